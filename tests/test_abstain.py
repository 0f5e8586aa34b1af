"""The confidence gate on hand-made profiles (pure)."""

from __future__ import annotations

from collections import Counter

from rag.abstain import GateThresholds, decide, identifiers_in, salient_terms, unindexed_api_names
from rag.retrieve.profile import CorpusProfile


def profile() -> CorpusProfile:
    vocabulary = {"employee", "employees", "list", "session", "expires_in", "expires", "connect", "default", "hris"}
    return CorpusProfile(
        generation=1,
        apis=["hris", "stackone"],
        term_apis={"hris": Counter()},
        vocabulary=vocabulary,
        api_titles={"hris": "HRIS", "stackone": "StackOne"},
    )


def test_salient_terms_and_identifiers() -> None:
    assert salient_terms("How do I list the employees?") == ["employees"]
    assert identifiers_in("What does `blood_type` mean, or createdAt and x-account-id?") == [
        "blood_type",
        "createdAt",
        "x-account-id",
    ]


def test_well_matched_question_is_answered() -> None:
    decision = decide("What is the default expires_in of a connect session?", 0.55, profile())
    assert decision.tier == "answer" and decision.score > 0.5


def test_low_similarity_abstains_and_middle_is_partial() -> None:
    thresholds = GateThresholds(abstain_below=0.25, partial_below=0.40)
    assert decide("list employees", 0.10, profile(), thresholds).tier == "abstain"
    assert decide("list employees", 0.33, profile(), thresholds).tier == "partial"


def test_unknown_identifier_abstains_even_when_similar() -> None:
    decision = decide("What does the employee blood_type field contain?", 0.6, profile())
    assert decision.tier == "abstain"
    assert any("blood_type" in reason for reason in decision.reasons)


def test_out_of_scope_prototype_wins_only_above_the_floor_and_margin() -> None:
    assert decide("How much does StackOne cost?", 0.42, profile(), out_of_scope_similarity=0.55).tier == "abstain"
    assert decide("How much does StackOne cost?", 0.42, profile(), out_of_scope_similarity=0.44).tier == "answer"


def test_unindexed_api_names() -> None:
    assert unindexed_api_names("How do I list tickets from the StackOne ticketing API?", profile()) == ["ticketing"]
    assert unindexed_api_names("Does the HRIS API paginate?", profile()) == []
    assert unindexed_api_names("Show me the REST API", profile()) == []
