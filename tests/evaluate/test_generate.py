"""The template question generator: facts read from chunks, wording, write checks, determinism."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

import pytest

from rag.chunk import FieldFacts, RequestBodyFacts
from rag.errors import ConfigError
from rag.evaluate.generate import (
    DISTRACTOR_POOLS,
    DISTRACTORS,
    KINDS,
    default_of,
    enum_of,
    make_questions,
    operation_facts,
    paraphrase,
    parse_field_line,
    singular,
    stated_facts,
    with_article,
)
from tests.fakes import make_chunk


def test_parse_field_lines() -> None:
    line = "- page_size (query, integer (int32), optional): Results per page Default: 25. Minimum: 1. Maximum: 100."
    parsed = parse_field_line(line)
    assert parsed is not None
    assert (parsed.name, parsed.location, parsed.type, parsed.flags) == (
        "page_size", "query", "integer (int32)", ("optional",)
    )
    assert parsed.description == "Results per page"
    assert dict(parsed.facts) == {"Default": "25", "Minimum": "1", "Maximum": "100"}
    assert default_of(parsed) == "25"
    deprecated = parse_field_line("- updated_after (query, string (date-time), optional, nullable, deprecated): x")
    assert deprecated is not None and deprecated.deprecated and not deprecated.required
    enum = parse_field_line("  - status (OrderStatus, required): Where Default: pending. Enum: pending, paid, null.")
    assert enum is not None and enum.location == "" and enum.required
    assert enum_of(enum) == ["pending", "paid"]
    described = parse_field_line("- page_size (query, string, optional): The number of results (default value is 25)")
    assert described is not None and default_of(described) == "25"
    assert parse_field_line("Responses:") is None
    assert parse_field_line("- 200 → Order: One order") is None


def test_wording_helpers() -> None:
    assert singular("time off policies") == "time off policy"
    assert singular("addresses") == "address"
    assert singular("courses") == "course"
    assert with_article("employee") == "an employee"
    assert with_article("user") == "a user"
    rng = random.Random(0)
    phrase = paraphrase("List Employees", rng)
    assert phrase is not None and phrase.endswith(("employees", "employee"))
    assert not phrase.startswith("list")
    assert paraphrase("Frobnicate Widgets", rng) is None


def test_questions_for_the_fixture_spec(fixture_index) -> None:  # type: ignore[no-untyped-def]
    questions = make_questions(fixture_index, "shop-3_0", limit=None, seed=3)
    kinds = Counter(q.category for q in questions)
    assert set(kinds) <= set(KINDS)
    assert {"endpoint", "parameter", "schema", "write_check", "auth", "out_of_scope"} <= set(kinds)
    known = fixture_index.structural_ids()
    for question in questions:
        assert re.fullmatch(r"gen-shop-3-0-\d{3}", question.id)
        assert all(sid in known for sid in question.relevant_ids)
        if question.answerable:
            assert question.relevant_ids and question.required_keywords and question.ground_truth
        else:
            assert question.category == "out_of_scope" and not question.relevant_ids
    assert len({q.id for q in questions}) == len(questions)
    assert len({q.question.lower() for q in questions}) == len(questions)
    by_text = {q.question: q for q in questions}
    defaults = [q for q in questions if "default value of `page_size`" in q.question]
    assert defaults and defaults[0].required_keywords == ("page_size", "25")
    assert defaults[0].relevant_ids == ("shop-3_0.paths./orders.get",)
    largest = [q for q in questions if "largest `page_size`" in q.question]
    assert largest and largest[0].required_keywords == ("100",)
    assert any(q.required_keywords == ("cursor",) and "deprecated" in q.question for q in questions)
    enums = [q for q in questions if "`status` parameter" in q.question]
    assert enums and enums[0].required_keywords == ("pending", "paid", "shipped")
    # orders can be listed, created, read and deleted, but not updated
    update = by_text["How can I update an order in the Shop API?"]
    assert update.answerable and update.category == "write_check"
    assert "shop-3_0.paths./orders.get" in update.relevant_ids
    assert update.required_keywords == ("GET /orders", "GET /orders/{id}")
    assert not any(q.category == "write_check" and "delete an order" in q.question for q in questions)
    # endpoint lookups never repeat the summary's verb
    for question in (q for q in questions if q.category == "endpoint"):
        assert not re.search(r"\b(list|create)\b", question.question.lower())


def test_out_of_scope_terms_occur_in_no_chunk(fixture_index) -> None:  # type: ignore[no-untyped-def]
    texts = " ".join(c.text.lower() for c in fixture_index.snapshot().chunks.values())
    distractors = [q for q in make_questions(fixture_index, "people-3_1", limit=None) if q.category == "out_of_scope"]
    assert len(distractors) >= 5
    for question in distractors:
        assert not question.answerable and not question.relevant_ids and not question.required_keywords
        terms = [term for term, _ in DISTRACTORS if term in question.question.lower()]
        assert terms, question.question
        assert not any(re.search(rf"\b{re.escape(term)}\b", texts) for term in terms)


def test_a_term_the_corpus_mentions_is_no_distractor(fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.index.build import ingest_paths

    before = {q.question for q in make_questions(fixture_index, "people-3_1", limit=None)}
    assert any("fax" in question for question in before)
    note = fixture_index.directory.parent / "fax-notes.md"
    note.write_text("# Fax\n\nOrders can be confirmed by fax to the warehouse.\n", encoding="utf-8")
    assert ingest_paths(fixture_index, [note])[0].status == "added"
    after = {q.question for q in make_questions(fixture_index, "people-3_1", limit=None)}
    assert not any("fax" in question for question in after)


def test_limit_balance_and_determinism(fixture_index) -> None:  # type: ignore[no-untyped-def]
    first = make_questions(fixture_index, "people-3_1", limit=12, seed=7)
    assert first == make_questions(fixture_index, "people-3_1", limit=12, seed=7)
    assert len(first) == 12
    assert len(Counter(q.category for q in first)) >= 5  # round-robin over the kinds
    other = make_questions(fixture_index, "people-3_1", limit=12, seed=8)
    assert [q.question for q in other] != [q.question for q in first]
    with pytest.raises(ConfigError, match="not indexed; indexed: people-3_1, shop-3_0"):
        make_questions(fixture_index, "nope")
    with pytest.raises(ConfigError, match="limit"):
        make_questions(fixture_index, "people-3_1", limit=0)


def test_operation_facts_read_the_fields_not_the_text() -> None:
    chunk = replace(
        make_chunk("x.paths./orders.get", "GET /orders  [x API]\nno parameter or summary lines", kind="operation"),
        method="get",
        path="/orders",
        summary="List orders",
        parameters=(
            FieldFacts("page_size", "integer", "query", ("optional",), "Per page. Default: 20.",
                       (("Default", "25"), ("Maximum", "100"))),
            FieldFacts("status", "string", "query", ("required",), enum=("a", "b", "null")),
            FieldFacts("odd", "string", "?"),
        ),
        request_body=RequestBodyFacts(
            ("application/json",), True, fields=(FieldFacts("name", "string", flags=("required",)),)
        ),
    )
    facts = operation_facts(chunk)
    assert (facts.summary, facts.label) == ("List orders", "GET /orders")
    assert [p.name for p in facts.parameters] == ["page_size", "status"]  # no known location: left out
    assert default_of(facts.parameters[0]) == "20"  # a fact the description states comes first, as in the text
    assert stated_facts(facts.parameters[0])[1]["Maximum"] == "100"
    assert enum_of(facts.parameters[1]) == ["a", "b"]
    assert [f.name for f in facts.body_fields if f.required] == ["name"]


def test_the_validation_pool_names_no_thing_a_tuning_pool_names() -> None:
    """A rule designed on a tuning pool's made-up features must not meet them again in validation."""
    def words(pools: list[str]) -> set[str]:
        return {w for name in pools for term, _ in DISTRACTOR_POOLS[name] for w in term.split()}

    tuning = [name for name in DISTRACTOR_POOLS if name != "fresh"]
    assert tuning and not words(["fresh"]) & words(tuning)
    assert len(DISTRACTOR_POOLS["fresh"]) >= 10
