"""An evaluation suite's results: each set's figures per configuration (and per API, for a set about several), the
macro averages, and the tables `rag suite` prints and saves (`latest.md`, `latest.json`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rag.evaluate.metrics import core_metrics

METRIC_KEYS = ("hit_rate", "mrr", "recall", "false_abstention_rate", "out_of_scope_abstention", "keyword_recall")
# The metrics the evaluation page offers for the suite table, and their names there and in the verdict.
SUITE_LABELS: dict[str, str] = {
    "hit_rate": "hit rate@k",
    "mrr": "MRR",
    "recall": "recall@k",
    "false_abstention_rate": "false-abstention rate",
    "out_of_scope_abstention": "out-of-scope abstention",
}


@dataclass
class SetResult:
    """One set's figures per config."""

    name: str
    role: str
    corpus: str
    questions: int
    answerable: int
    out_of_scope: int
    metrics: dict[str, dict[str, float | None]] = field(default_factory=dict)
    # Per config, the figures per API the questions are about (`rag.evaluate.metrics.by_api`; none for one API)
    by_api: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def full_beats_c2(self) -> bool | None:
        """Whether `full` is at least as good as C2 on both hit rate and MRR (None when either is missing)."""
        full, c2 = self.metrics.get("full"), self.metrics.get("C2")
        if not full or not c2 or full.get("hit_rate") is None or c2.get("hit_rate") is None:
            return None
        return bool(full["hit_rate"] >= c2["hit_rate"] and (full["mrr"] or 0) >= (c2["mrr"] or 0))  # type: ignore[operator]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {
            "name": self.name,
            "role": self.role,
            "corpus": self.corpus,
            "questions": self.questions,
            "answerable": self.answerable,
            "out_of_scope": self.out_of_scope,
            "metrics": self.metrics,
            "full_beats_c2": self.full_beats_c2(),
            "by_api": self.by_api,
        }


def set_metrics(records: Sequence[dict[str, Any]], k: int) -> dict[str, float | None]:
    """The suite's figures for one config's records (named as the suite table names them); keyword recall
    of the answers only when answers were generated."""
    core = core_metrics(records, k)
    answered = any(not r.get("retrieval_only", True) for r in records)
    return {
        "hit_rate": core[f"hit@{k}"],
        "mrr": core["mrr"],
        "recall": core[f"recall@{k}"],
        "false_abstention_rate": core["false_abstention_rate"],
        "out_of_scope_abstention": core["abstention_accuracy"],
        "keyword_recall": core["keyword_recall"] if answered else None,
    }


def macro_average(results: Sequence[SetResult], configs: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Per config, the mean of each figure over the given sets (sets without that figure are left out)."""
    average: dict[str, dict[str, float | None]] = {}
    for config in configs:
        average[config] = {}
        for key in METRIC_KEYS:
            values = [r.metrics[config].get(key) for r in results if config in r.metrics]
            present = [float(v) for v in values if v is not None]
            average[config][key] = round(sum(present) / len(present), 4) if present else None
    return average


@dataclass
class SuiteReport:
    """Everything a suite run produced."""

    suite: str
    configs: list[str]
    k: int
    sets: list[SetResult]
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def macro_validation(self) -> dict[str, dict[str, float | None]]:
        """The macro average over the validation sets."""
        return macro_average([s for s in self.sets if s.role == "validation"], self.configs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (the file the evaluation page reads)."""
        return {
            "created": self.created,
            "suite": self.suite,
            "configs": self.configs,
            "k": self.k,
            "seconds": round(self.seconds, 1),
            "sets": [s.to_dict() for s in self.sets],
            "macro_validation": self.macro_validation(),
            "macro_tuning": macro_average([s for s in self.sets if s.role == "tuning"], self.configs),
            "warnings": self.warnings,
        }


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def format_suite_table(report: SuiteReport) -> str:
    """A Markdown table: one row per set and config, then the validation macro average (and the answers'
    keyword recall when the run generated answers)."""
    k = report.k
    answers = any(m.get("keyword_recall") is not None for item in report.sets for m in item.metrics.values())
    lines = [
        f"| set | role | n (answerable / out of scope) | config | hit@{k} | MRR | recall@{k} | false abstention | "
        "out-of-scope abstained | full ≥ C2 |" + (" answer keyword recall |" if answers else ""),
        "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if answers else ""),
    ]
    for item in report.sets:
        beats = item.full_beats_c2()
        verdict = "—" if beats is None else ("yes" if beats else "**no**")
        for position, config in enumerate(report.configs):
            m = item.metrics.get(config, {})
            first = position == 0
            lines.append(
                f"| {item.name if first else ''} | {item.role if first else ''} | "
                f"{f'{item.questions} ({item.answerable} / {item.out_of_scope})' if first else ''} | {config} | "
                f"{_fmt(m.get('hit_rate'))} | {_fmt(m.get('mrr'))} | {_fmt(m.get('recall'))} | "
                f"{_fmt(m.get('false_abstention_rate'))} | {_fmt(m.get('out_of_scope_abstention'))} | "
                f"{verdict if first else ''} |" + (f" {_fmt(m.get('keyword_recall'))} |" if answers else "")
            )
    for label, average in (("validation macro average", report.macro_validation()),):
        for position, config in enumerate(report.configs):
            m = average[config]
            lines.append(
                f"| {'**' + label + '**' if position == 0 else ''} | | | {config} | {_fmt(m['hit_rate'])} | "
                f"{_fmt(m['mrr'])} | {_fmt(m['recall'])} | {_fmt(m['false_abstention_rate'])} | "
                f"{_fmt(m['out_of_scope_abstention'])} | |" + (f" {_fmt(m['keyword_recall'])} |" if answers else "")
            )
    return "\n".join(lines)


def format_suite_api_table(report: SuiteReport) -> str:
    """A Markdown table of the sets whose questions are about several APIs: per set, config and API, how often the
    first result is right, hit@k, MRR and how often another API's chunk came first ("" when no set is)."""
    k = report.k
    lines = [f"| set | config | API | n | hit@1 | hit@{k} | MRR | another API first |",
             "|---|---|---|---|---|---|---|---|"]
    for item in report.sets:
        for config in report.configs:
            for api, figures in item.by_api.get(config, {}).items():
                lines.append(f"| {item.name} | {config} | {api} | {figures.get('n', 0)} | "
                             f"{_fmt(figures.get('hit@1'))} | {_fmt(figures.get(f'hit@{k}'))} | "
                             f"{_fmt(figures.get('mrr'))} | {_fmt(figures.get('another_api_first'))} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def suite_markdown(report: SuiteReport) -> str:
    """`latest.md`: the suite table, then the per-API table of the sets about several APIs."""
    per_api = format_suite_api_table(report)
    return format_suite_table(report) + (f"\n\nBy the API each question is about:\n\n{per_api}" if per_api else "")
