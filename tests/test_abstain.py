"""The confidence gate on hand-made profiles (pure)."""

from __future__ import annotations

from collections import Counter

from rag.abstain import (
    GateThresholds,
    decide,
    foreign_terms,
    identifiers_in,
    rare_terms,
    salient_terms,
    unindexed_api_names,
)
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


def rich_profile() -> CorpusProfile:
    vocabulary = {
        "employee", "employees", "list", "endpoint", "hris", "data", "query", "querying", "api", "crm_list_lists",
        "crm", "lists", "request", "requests", "header", "session", "workflow", "user", "users", "remove",
    }  # fmt: skip
    return CorpusProfile(generation=1, apis=["hris", "crm"], term_apis={}, vocabulary=vocabulary)


def test_a_question_presupposing_an_unmentioned_technology_abstains() -> None:
    decision = decide("What's the GraphQL endpoint for querying HRIS data?", 0.62, rich_profile())
    assert decision.tier == "abstain"
    assert any("graphql" in reason for reason in decision.reasons)
    # A yes/no question about it can be answered from what the docs do say.
    assert decide("Does the HRIS API have a GraphQL endpoint?", 0.62, rich_profile()).tier == "partial"


def test_compounds_of_common_words_and_adverbs_are_not_exotic_terms() -> None:
    assert rare_terms(["graphql", "timeout", "workflow", "kubernetes"]) == ["graphql", "kubernetes"]
    assert decide("How do I programmatically list employees?", 0.6, rich_profile()).tier == "answer"


def test_several_foreign_content_words_abstain_but_stop_and_glossary_words_do_not() -> None:
    decision = decide("Does the HRIS API host employee data in an Australian data centre?", 0.44, rich_profile())
    assert decision.tier == "abstain"
    assert foreign_terms(["australian", "centre", "everyone", "particular", "vacation"]) == [
        "australian",
        "centre",
        "particular",
    ]
    assert decide("How do I see everyone on vacation?", 0.5, rich_profile()).tier == "answer"


def test_naming_a_known_identifier_keeps_a_question_in_scope() -> None:
    question = "How can I integrate crm_list_lists into our orchestration pipeline?"
    assert decide(question, 0.46, rich_profile()).tier == "answer"
    assert decide("How can I integrate lists into our orchestration pipeline?", 0.44, rich_profile()).tier == "abstain"


def test_a_rate_the_docs_never_state_abstains() -> None:
    question = "How many requests per minute can I send to the HRIS API?"
    assert decide(question, 0.55, rich_profile()).tier == "abstain"
    stated = rich_profile()
    stated.rate_units.add("minute")
    assert decide(question, 0.55, stated).tier == "answer"


def test_a_follow_up_is_judged_on_its_own_words() -> None:
    query = (
        "and how do I remove one of them? (regarding: How do I list the users of a SaaS app? "
        "| earlier answer: GET /users returns UsersPaginated.)"
    )
    assert decide(query, 0.63, rich_profile()).tier == "answer"
