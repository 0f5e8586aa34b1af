"""Learning the query adapter (rag/evaluate/adapter_training.py): pairs from an index and its questions, a map that
brings questions closer to their answers on data it was not trained on, learned deterministically."""

from __future__ import annotations

import numpy as np
import pytest

from rag.evaluate.adapter_training import AdapterPairs, adapter_pairs, rank_of_answers, train_adapter
from rag.evaluate.questions import Question
from rag.index.store import Index


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _corpus(name: str, seed: int, twist: np.ndarray, size: int = 60, asked: int = 40) -> AdapterPairs:
    """Chunks at random, and questions that are their chunk's vector through `twist` plus noise: a geometry the
    embedder gets wrong the same way on every corpus."""
    rng = np.random.default_rng(seed)
    chunks = _unit(rng.normal(size=(size, 16)))
    answers = rng.choice(size, asked, replace=False)
    questions = _unit(chunks[answers] @ twist + 0.1 * rng.normal(size=(asked, 16)))
    return AdapterPairs(name, questions, answers.astype(np.int64), chunks)


def _twist() -> np.ndarray:
    rng = np.random.default_rng(99)
    return np.linalg.qr(rng.normal(size=(16, 16)))[0].astype(np.float32) * 0.7 + np.eye(16, dtype=np.float32) * 0.3


def test_the_adapter_learned_on_some_corpora_ranks_answers_higher_on_another() -> None:
    twist = _twist()
    trained = [_corpus(f"c{i}", i, twist) for i in range(4)]
    unseen = _corpus("unseen", 10, twist)
    matrix = train_adapter(trained, epochs=60, pull=0.0001)
    before, after = rank_of_answers(unseen), rank_of_answers(unseen, matrix)
    assert np.mean(1 / after) > np.mean(1 / before) + 0.1


def test_the_adapter_is_learned_deterministically_and_is_the_identity_without_pairs() -> None:
    twist = _twist()
    corpora = [_corpus("a", 1, twist), _corpus("b", 2, twist)]
    assert np.array_equal(train_adapter(corpora, epochs=2), train_adapter(list(reversed(corpora)), epochs=2))
    empty = AdapterPairs("none", np.zeros((0, 16), np.float32), np.zeros(0, np.int64), _unit(np.ones((3, 16))))
    assert np.array_equal(train_adapter([empty]), np.eye(16, dtype=np.float32))


def test_pairs_need_one_answer_per_question() -> None:
    with pytest.raises(ValueError, match="2 question vectors but 1 answers"):
        AdapterPairs("x", np.zeros((2, 4), np.float32), np.zeros(1, np.int64), np.zeros((3, 4), np.float32))


def test_pairs_are_the_first_turn_answerable_questions_a_smart_chunk_answers(fixture_index: Index) -> None:
    questions = [
        Question("list", "How do I list orders?", relevant_ids=("shop-3_0.paths./orders.get",)),
        Question("follow", "and the next page?", relevant_ids=("shop-3_0.paths./orders.get",),
                 history=({"role": "user", "content": "How do I list orders?"},)),
        Question("off", "What is the weather?", answerable=False),
        Question("unknown", "How do I fly?", relevant_ids=("shop-3_0.paths./flights.get",)),
    ]
    pairs = adapter_pairs(fixture_index, questions, "fixture")
    ids, vectors, _ = fixture_index.stored_vectors("smart", fixture_index.snapshot())
    assert pairs.questions.shape == (1, vectors.shape[1])
    assert "shop-3_0.paths./orders.get" in fixture_index.snapshot().chunks[ids[int(pairs.answers[0])]].covers
    assert np.array_equal(pairs.chunks, vectors)
