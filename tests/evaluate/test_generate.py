"""The template question generator: facts read from chunks, wording, write checks, determinism."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from rag.errors import ConfigError
from rag.evaluate.generate import (
    DISTRACTOR_POOLS,
    DISTRACTORS,
    KINDS,
    make_questions,
    paraphrase,
    singular,
    with_article,
)


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


def test_the_validation_pool_names_no_thing_a_tuning_pool_names() -> None:
    """A rule designed on a tuning pool's made-up features must not meet them again in validation."""
    def words(pools: list[str]) -> set[str]:
        return {w for name in pools for term, _ in DISTRACTOR_POOLS[name] for w in term.split()}

    tuning = [name for name in DISTRACTOR_POOLS if name != "fresh"]
    assert tuning and not words(["fresh"]) & words(tuning)
    assert len(DISTRACTOR_POOLS["fresh"]) >= 10
