"""Template follow-ups (rag/evaluate/follow_ups.py): an exchange about one operation, then a question asking for
another operation on the same resource."""

from __future__ import annotations

import pytest

from rag.errors import ConfigError
from rag.evaluate.follow_ups import ASKS, follow_up_questions
from rag.index.store import Index


def test_a_follow_up_asks_another_action_on_the_resource_the_earlier_answer_named(fixture_index: Index) -> None:
    api = next(a for a in fixture_index.snapshot().apis() if a.startswith("shop"))
    questions = follow_up_questions(fixture_index, api, limit=10, seed=1)
    assert questions and all(q.category == "follow_up" and q.answerable for q in questions)
    for question in questions:
        asked, answered = question.history
        assert asked["role"] == "user" and asked["content"].startswith("How can I ")
        assert answered["role"] == "assistant" and "/orders" in answered["content"]
        assert question.question in {text for texts in ASKS.values() for text in texts}
        assert all(rid.startswith(f"{api}.paths./orders") for rid in question.relevant_ids)
        method, path = question.required_keywords
        assert f"{path}.{method.lower()}" in question.relevant_ids[0]
    assert [q.id for q in questions] == [f"gen-fu-{api}-{n:03d}" for n in range(1, len(questions) + 1)]
    assert follow_up_questions(fixture_index, api, limit=10, seed=1) == questions  # deterministic per seed


def test_an_api_that_is_not_indexed_is_named_with_the_indexed_ones(fixture_index: Index) -> None:
    with pytest.raises(ConfigError, match="api='nope' is not indexed; indexed: "):
        follow_up_questions(fixture_index, "nope")
