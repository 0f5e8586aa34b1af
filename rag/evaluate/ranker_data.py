"""The learned ranker's training data: for each labelled question, the candidates `full` retrieves (before any
reranking) with their feature rows and whether each covers a relevant structural id.

The candidates and features come from the same code as at answer time: the pipeline of `full` without its
reranker, run up to its retrieve stage, and rag.pipeline.learned_rank's features. A follow-up's earlier turns are
replayed through that same first-stage pipeline (no trained model is needed to make the data).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from rag.config import PRESETS, Config
from rag.evaluate.history import replayed_history
from rag.evaluate.questions import Question
from rag.pipeline.learned_rank import (
    first_place_confidence,
    learned_ranker,
    question_vectors,
    ranking_inputs,
    signals_of,
)
from rag.pipeline.state import PipelineState, Scope
from rag.query import Query, clean_question
from rag.rerank.features import FEATURE_NAMES
from rag.runner import Engine

# Candidates the ranker reorders: `full`'s candidate pool.
TRAINING_CONFIG = replace(PRESETS["full"], name="ranker-training", reranker="none", schemas_last=False, lookup=False)


@dataclass(frozen=True)
class CandidateList:
    """One question's candidates in first-stage order: their feature rows, their labels (1: covers a relevant
    id), their kinds, and where the question comes from (set, corpus, id)."""

    set_name: str
    corpus: str
    question_id: str
    features: np.ndarray
    labels: np.ndarray
    operations: np.ndarray

    @property
    def answerable(self) -> bool:
        """Whether any candidate is right (the first-stage pool holds an answer)."""
        return bool(self.labels.any())


def retrieved_state(engine: Engine, config: Config, question: str, history: Sequence[dict[str, str]] | None
                    ) -> PipelineState:
    """The state of `config`'s pipeline after its retrieve stage."""
    pipeline = engine.pipeline(config)
    state = PipelineState(config.name, question, Scope(Query(clean_question(question))), history or (), (), True)
    for stage in pipeline.stages:
        state = state.after(stage.run(state))
        if stage.name == "retrieve":
            return state
    raise ValueError(f"config {config.name!r} has no retrieve stage; allowed: a config that retrieves")


def candidate_lists(
    engine: Engine, questions: Sequence[Question], set_name: str, corpus: str, config: Config = TRAINING_CONFIG
) -> Iterator[CandidateList]:
    """The candidate list of every answerable question that has relevant ids."""
    for question in questions:
        if not question.answerable or not question.relevant_ids:
            continue
        history = replayed_history(engine, tuple(question.history), config, True) if question.history else None
        state = retrieved_state(engine, config, question.question, history)
        scope = state.scope
        candidates = list(state.ranking.candidates)
        inputs = ranking_inputs(engine.index, scope.context.snapshot)
        features, _ = inputs.features(signals_of(scope), question_vectors(scope, config.query_adapter), candidates)
        wanted = set(question.relevant_ids)
        labels = np.array([int(bool(set(c.chunk.covers) & wanted)) for c in candidates], dtype=np.int8)
        operations = np.array([c.chunk.kind == "operation" for c in candidates], dtype=bool)
        yield CandidateList(set_name, corpus, question.id, features, labels, operations)


def first_place_outcomes(engine: Engine, questions: Sequence[Question], config: Config = PRESETS["full"]
                         ) -> Iterator[tuple[str, bool]]:
    """For each answerable question with relevant ids whose first place the question names exactly (`named`:
    `FirstPlace.named`) or a stage after `config`'s ranker chose (that stage, `FirstPlace.placed_by`: "lookup" for
    the lookup lift, "subject" for the conversation's subject…), that kind and whether the first place is right:
    what the calibration's `named_right` of `named_questions` and its placed counts (of all stages and of each)
    count."""
    ranker_for = partial(learned_ranker, engine.index)
    for question in questions:
        if not question.answerable or not question.relevant_ids:
            continue
        history = replayed_history(engine, tuple(question.history), config, True) if question.history else None
        _, state = engine.prepared(question.question, config, history, retrieval_only=True)
        found = first_place_confidence(state, ranker_for, config.query_adapter)
        if found is not None and (found[1].named or found[1].placed):
            right = bool(set(state.evidence.pool[0].chunk.covers) & set(question.relevant_ids))
            yield ("named" if found[1].named else found[1].placed_by), right


def save_lists(lists: Sequence[CandidateList], path: str) -> None:
    """Write candidate lists to one `.npz` file (`load_lists` reads it back)."""
    sizes = np.array([len(item.labels) for item in lists], dtype=np.int32)
    width = lists[0].features.shape[1] if lists else 0
    np.savez_compressed(
        path,
        features=np.concatenate([item.features for item in lists]) if lists else np.zeros((0, width), np.float32),
        labels=np.concatenate([item.labels for item in lists]) if lists else np.zeros(0, np.int8),
        operations=np.concatenate([item.operations for item in lists]) if lists else np.zeros(0, bool),
        sizes=sizes,
        meta=np.array([[item.set_name, item.corpus, item.question_id] for item in lists], dtype=str).reshape(-1, 3),
        feature_names=np.array(FEATURE_NAMES, dtype=str),
    )


def load_lists(path: str) -> list[CandidateList] | None:
    """The candidate lists `save_lists` wrote; None when they were made with other features than today's."""
    data = np.load(path)
    names = tuple(str(name) for name in data["feature_names"]) if "feature_names" in data else ()
    if names != FEATURE_NAMES:
        return None
    bounds = np.concatenate([[0], np.cumsum(data["sizes"])])
    return [
        CandidateList(str(set_name), str(corpus), str(question_id), data["features"][start:end],
                      data["labels"][start:end], data["operations"][start:end])
        for (set_name, corpus, question_id), start, end in zip(data["meta"], bounds[:-1], bounds[1:], strict=True)
    ]
