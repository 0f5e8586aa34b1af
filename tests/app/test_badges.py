"""The status badges (`webapp.badges`): one word per outcome, for live results and saved records."""

from __future__ import annotations

import pytest

from rag.results import AnswerResult
from webapp.badges import Badge, badge_for, badge_for_record, badge_status


@pytest.mark.parametrize(
    ("abstained", "confidence", "errors", "retrieval_only", "expected"),
    [
        (False, "answer", False, False, "answered"),
        (False, "partial", False, False, "partial"),
        (True, "abstain", False, False, "abstained"),
        (False, "abstain", False, True, "abstained"),
        (False, "answer", False, True, "retrieval only"),
        (True, "abstain", True, False, "error"),
    ],
)
def test_badge_status(abstained, confidence, errors, retrieval_only, expected) -> None:  # type: ignore[no-untyped-def]
    assert badge_status(abstained, confidence, errors, retrieval_only) == expected


def test_badge_for_results_and_records() -> None:
    abstained = AnswerResult("full", "q", abstained=True, confidence="abstain", confidence_score=0.16,
                             notes=["confidence gate: abstain (…)"])
    badge = badge_for(abstained)
    assert (badge.status, badge.color, badge.detail) == (
        "abstained", "gray", "confidence: abstain · first result 16% likely right"
    )
    plain = badge_for(AnswerResult("C0", "q", answer="x"))
    assert (plain.status, plain.color, plain.detail) == ("answered", "green", "confidence gate off")
    partial = AnswerResult("full", "q", confidence="partial", confidence_score=0.5)
    assert badge_for(partial, gated=True).color == "orange"
    assert badge_for_record({"abstained": False, "confidence": "partial"}).status == "partial"
    assert badge_for_record({"error": "boom"}).status == "error"


def test_badges_say_no_match_and_fell_back() -> None:
    from rag.generate.extractive import NO_MATCH_NOTE

    unmatched = badge_for(AnswerResult("C0", "q", answer=f"{NO_MATCH_NOTE}\n- some line [1]"))
    assert (unmatched.status, unmatched.color) == ("no match", "gray")
    degraded = badge_for(AnswerResult("C5", "q", answer="x", fallbacks=["LLM reranker unavailable"]))
    assert (degraded.status, degraded.color) == ("fell back", "orange")
    # Abstaining says so even when a stage fell back; an error wins over everything.
    assert badge_for(AnswerResult("C5", "q", abstained=True, fallbacks=["x"])).status == "abstained"
    assert badge_for_record({"answer": NO_MATCH_NOTE, "error": "boom"}).status == "error"
    assert badge_for_record({"answer": "x", "fallbacks": ["no cross-encoder"]}).status == "fell back"
    with pytest.raises(ValueError, match="allowed: answered"):
        Badge("maybe", "maybe", "green", "", "")


def test_a_result_missing_chunks_not_embedded_yet_is_still_indexing_whatever_it_answered() -> None:
    waiting = AnswerResult("C0", "q", answer="x", fallbacks=["naive chunks of people not embedded yet"],
                           pending=["people"])
    badge = badge_for(waiting)
    assert (badge.status, badge.color) == ("still indexing", "blue")
    assert badge.detail.startswith("people: chunks being embedded")
    assert badge_status(True, "abstain", pending=True) == "still indexing"
    assert badge_status(True, "abstain", errors=True, pending=True) == "error"
