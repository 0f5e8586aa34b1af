"""The status badge of an answer — what happened: answered, partial, abstained, no match, fell back, still
indexing (or retrieval only, error) — with its confidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rag.generate.extractive import found_no_match
from rag.results import AnswerResult

STATUSES: tuple[str, ...] = ("answered", "partial", "abstained", "no match", "fell back", "still indexing",
                             "retrieval only", "error")


@dataclass(frozen=True)
class Badge:
    """What the badge says and how it looks (`color` is one of st.badge's colours)."""

    status: str  # one of STATUSES
    label: str
    color: str
    icon: str
    detail: str

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Badge.status={self.status!r} is not allowed; allowed: {', '.join(STATUSES)}")


_LOOKS: dict[str, tuple[str, str]] = {
    "answered": ("green", ":material/check_circle:"),
    "partial": ("orange", ":material/rule:"),
    "abstained": ("gray", ":material/do_not_disturb_on:"),
    "no match": ("gray", ":material/search_off:"),
    "fell back": ("orange", ":material/settings_backup_restore:"),
    "still indexing": ("blue", ":material/hourglass_top:"),
    "retrieval only": ("blue", ":material/search:"),
    "error": ("red", ":material/error:"),
}


def badge_status(abstained: bool, confidence: str, errors: bool = False, retrieval_only: bool = False,
                 no_match: bool = False, fell_back: bool = False, pending: bool = False) -> str:
    """The badge status from the result fields: errors win, then chunks the configuration searches that are not
    embedded yet (whatever it answered, it answered without them), then abstention, then an answer that found no
    matching line, then a configuration that ran without one of its stages, then the gate's tier."""
    if errors:
        return "error"
    if pending:
        return "still indexing"
    if abstained or confidence == "abstain":
        return "abstained"
    if retrieval_only:
        return "retrieval only"
    if no_match:
        return "no match"
    if fell_back:
        return "fell back"
    if confidence == "partial":
        return "partial"
    return "answered"


def _detail(confidence: str, score: float | None, gated: bool) -> str:
    if not gated:
        return "confidence gate off"
    if not isinstance(score, (int, float)):
        return f"confidence: {confidence}"
    return f"confidence: {confidence} · first result {score:.0%} likely right"


def badge_for(result: AnswerResult, gated: bool | None = None) -> Badge:
    """The badge of a live result; `gated` says whether the config had the confidence gate
    (default: whether the gate left a note or a score)."""
    if gated is None:
        gated = result.confidence_score is not None
    status = badge_status(result.abstained, result.confidence, bool(result.errors), result.retrieval_only,
                          found_no_match(result.answer), result.fell_back, bool(result.pending))
    color, icon = _LOOKS[status]
    detail = _detail(result.confidence, result.confidence_score, gated)
    if result.pending:
        detail = f"{', '.join(result.pending)}: chunks being embedded · {detail}"
    return Badge(status, status, color, icon, detail)


def badge_for_record(record: Mapping[str, Any]) -> Badge:
    """The badge of a saved evaluation record (`abstained`, `confidence`, `answer`, `fallbacks`)."""
    confidence = str(record.get("confidence") or "answer")
    status = badge_status(bool(record.get("abstained")), confidence, bool(record.get("error")),
                          bool(record.get("retrieval_only")), found_no_match(str(record.get("answer") or "")),
                          bool(record.get("fallbacks")))
    color, icon = _LOOKS[status]
    score = record.get("confidence_score")
    return Badge(status, status, color, icon, _detail(confidence, score, isinstance(score, (int, float))))
