"""The structural reranker's features on hand-made operation chunks (pure, no index)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from rag.rerank.base import apply_scores
from rag.rerank.structural import StructuralReranker, grammatical_number, parent_words, question_methods
from rag.results import RetrievedChunk
from rag.retrieve.synonyms import expand_query, original_query
from tests.fakes import make_chunk


def operation(method: str, path: str, api: str = "crm") -> RetrievedChunk:
    structural_id = f"{api}.paths.{path}.{method}"
    chunk = make_chunk(structural_id, f"{method.upper()} {path}", kind="operation")
    return RetrievedChunk(replace(chunk, path=path, method=method))


def schema(name: str, api: str = "crm") -> RetrievedChunk:
    return RetrievedChunk(make_chunk(f"{api}.components.{name}", f"{name} schema"))


def top(question: str, candidates: list[RetrievedChunk]) -> str:
    ranked = apply_scores(candidates, StructuralReranker().score(question, candidates))
    return ranked[0].chunk.covers[0]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What's the easiest way to fetch an account from CRM?", "singular"),
        ("What API call should I use to retrieve customer account info?", "singular"),
        ("What's the API call for accounts?", "plural"),
        ("is there a flag on the unified account list?", "plural"),
        ("How do I create a contact?", None),
    ],
)
def test_grammatical_number_of_the_resource(question: str, expected: str | None) -> None:
    assert grammatical_number(re.findall(r"[a-z]+", question.lower()), "account") == expected


def test_one_item_or_the_collection_follows_the_resource_noun() -> None:
    collection, item = operation("get", "/unified/crm/accounts"), operation("get", "/unified/crm/accounts/{id}")
    assert top("How do I fetch an account from the CRM?", [collection, item]).endswith("accounts/{id}.get")
    collection, item = operation("get", "/unified/crm/accounts"), operation("get", "/unified/crm/accounts/{id}")
    assert top("How do I fetch accounts from the CRM?", [item, collection]).endswith("accounts.get")


def test_creating_one_item_uses_the_collection_path() -> None:
    """Grammatical number only decides between GETs: "create an employee" is a POST on the collection."""
    candidates = [
        operation("get", "/unified/hris/employees/{id}", "hris"),
        operation("post", "/unified/hris/employees", "hris"),
    ]
    assert top("What do I get back after creating an employee?", candidates).endswith("employees.post")


def test_get_back_is_not_a_get_and_state_participles_are_not_writes() -> None:
    assert question_methods("What do I get back after creating an employee?") == {"post"}
    assert question_methods("list contacts that were updated after a certain date") == {"get"}
    assert question_methods("what training has been assigned to one learner?") == set()
    assert question_methods("How do I update a contact?") == {"patch", "put"}
    assert question_methods("how do I record that a learner finished a course?") == {"post"}


def test_a_nested_path_needs_its_parent_named() -> None:
    """/connect_sessions/authenticate answers "session authentication", not "authenticate against HRIS"."""
    reranker = StructuralReranker()
    nested = operation("post", "/connect_sessions/authenticate", "stackone")
    unnested = operation("post", "/authenticate", "stackone")
    plain, penalised = reranker.score("How do I authenticate against the HRIS API?", [unnested, nested])
    named = reranker.score("How do I authenticate a connect session?", [unnested, nested])[1]
    assert penalised < named and penalised < plain
    nested = operation("post", "/connect_sessions/authenticate", "stackone")
    create = operation("post", "/connect_sessions", "stackone")
    assert top("Can you explain the connect session authentication?", [create, nested]).endswith("authenticate.post")
    assert parent_words("/unified/ats/jobs/{id}/application_stages") == ("ats", "job")


def test_endpoint_questions_prefer_operations_over_schemas() -> None:
    candidates = [
        schema("CustomFieldDefinition", "hris"),
        operation("get", "/unified/hris/custom_field_definitions/employees", "hris"),
    ]
    assert top("Which APIs have custom field definition endpoints?", candidates).startswith("hris.paths.")


def test_glossary_words_count_less_than_the_users_own_words() -> None:
    """ "customer" adds account and contact; the user wrote "account", so accounts win."""
    question = expand_query("What API call should I use to retrieve customer account info?")
    assert original_query(question) == "What API call should I use to retrieve customer account info?"
    candidates = [operation("get", "/unified/crm/contacts/{id}"), operation("get", "/unified/crm/accounts/{id}")]
    assert top(question, candidates).endswith("accounts/{id}.get")


def test_a_follow_up_takes_its_verb_from_the_new_question() -> None:
    query = (
        "and how do I remove one of them? (regarding: How do I list the users of the IAM API? "
        "| earlier answer: GET /unified/iam/users returns IamUsersPaginated.)"
    )
    candidates = [operation("get", "/unified/iam/users", "iam"), operation("delete", "/unified/iam/users/{id}", "iam")]
    assert top(query, candidates).endswith("users/{id}.delete")
