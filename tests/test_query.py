"""The typed query: what was asked, the turn it continues, the glossary words — as fields."""

from __future__ import annotations

from rag.query import Query
from rag.retrieve.synonyms import expand_query


def test_the_parts_are_fields_and_the_text_is_only_their_rendering() -> None:
    query = Query("and the response?", previous="How do I list employees? | earlier answer: GET /employees")
    assert query.focus == "and the response?"
    assert query.standalone == (
        "and the response? (regarding: How do I list employees? | earlier answer: GET /employees)"
    )
    expanded = query.expanded(("employees",))
    assert expanded.focus == query.focus and expanded.standalone == query.standalone
    assert expanded.text == query.standalone + " (glossary: employees)"
    assert str(expanded) == expanded.text


def test_an_llm_rewrite_is_the_focus_and_a_plain_string_is_a_question_as_asked() -> None:
    rewritten = Query("and them?", rewritten="How do I page through employees?")
    assert rewritten.focus == rewritten.standalone == rewritten.text == "How do I page through employees?"
    assert rewritten.asked == "and them?"
    # Text that looks like a marker is part of the question, never parsed back into fields.
    odd = Query.of("What does (regarding: x) mean?")
    assert odd.focus == odd.text == "What does (regarding: x) mean?"
    assert Query.of(odd) is odd


def test_glossary_expansion_adds_words_without_touching_the_question() -> None:
    query = expand_query("How do I list the staff?", {"staff": "employees"})
    assert query.asked == "How do I list the staff?" and query.expansions == ("employees",)
    assert expand_query("How do I list the staff?", {}).expansions == ()


def test_the_words_naming_a_filtered_api_are_not_searched() -> None:
    """"how do I get a pocketsmith transaction?" found PocketSmith's overview first: the API's name is the filter's,
    the rest is searched (as a word only: `pocketsmith_id` keeps its words); nothing left keeps the question."""
    query = Query("how do I get a PocketSmith transaction?", unsearched=("pocketsmith",))
    assert query.searched == query.text == "how do I get a transaction?"
    assert query.standalone == query.focus == "how do I get a PocketSmith transaction?"
    assert Query("what is pocketsmith_id?", unsearched=("pocketsmith",)).searched == "what is pocketsmith_id?"
    assert Query("PocketSmith?", unsearched=("pocketsmith",)).searched == "PocketSmith?"
    assert query.expanded(("money",)).text == "how do I get a transaction? (glossary: money)"
