"""The learned ranking stage: the candidates in the order of the model rag.rerank.learned ships, each group a
multi-API question is ranked in on its own; the trace says which features put rank 1 first."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from rag.chunk import Chunk
from rag.corpus.profile import profile_for
from rag.errors import RagError
from rag.index.store import Index, Snapshot
from rag.names import names_the_users_own
from rag.pipeline.state import PipelineState, Ranking, Scope, StageTrace, Step
from rag.rerank.calibration import FirstPlace, first_place, load_calibrator
from rag.rerank.features import QuestionSignals, question_signals
from rag.rerank.learned import LearnedRanker, QuestionVectors, RankerUnavailable, RankingInputs, load_model
from rag.results import RERANK_SCORE, RetrievedChunk
from rag.retrieve.lookup import names_foreign_values
from rag.retrieve.named_operations import NAMED_SCORE
from rag.retrieve.short_texts import OperationTexts, ShortTexts

LEARNED = "learned"


def ranking_inputs(index: Index, snapshot: Snapshot) -> RankingInputs:
    """What the features of one index generation are computed from (made once: it remembers each chunk's
    words and short-text vectors)."""
    profile = profile_for(snapshot)

    def similarities(chunks: Sequence[Chunk], vector: np.ndarray) -> list[float]:
        found: dict[str, float] = {}
        for strategy in dict.fromkeys(c.strategy for c in chunks):
            ids = [c.chunk_id for c in chunks if c.strategy == strategy]
            found.update(zip(ids, index.similarities(strategy, ids, vector, snapshot), strict=True))
        return [found[c.chunk_id] for c in chunks]

    return profile.remembered(
        "ranking-inputs", lambda: RankingInputs(profile, ShortTexts(index.embedder), similarities)
    )


def operation_texts(index: Index, snapshot: Snapshot) -> OperationTexts:
    """The operations of one index generation with their short texts' vectors (what the operation search
    searches; made once)."""
    return ranking_inputs(index, snapshot).operations()


def prepare_ranking_inputs(index: Index, strategies: Sequence[str]) -> int:
    """Make the ranking inputs of every live chunk of `strategies` now (a warm-up: the first questions then
    compute no candidate's words or short-text vectors); returns how many chunks."""
    snapshot = index.snapshot()
    chunks = [snapshot.chunks[i] for strategy in strategies for i in snapshot.by_strategy.get(strategy, ())]
    ranking_inputs(index, snapshot).prepare(chunks)
    return len(chunks)


def learned_ranker(index: Index, snapshot: Snapshot) -> LearnedRanker:
    """The learned ranker of one index generation, with the model `load_model` gives now (`make ranker` writes a new
    one and reads it back in the same process)."""
    inputs, model = ranking_inputs(index, snapshot), load_model()
    ranker: LearnedRanker = inputs.profile.remembered("learned-ranker", lambda: LearnedRanker(inputs, model))
    if ranker.model is not model:
        ranker = inputs.profile.derived["learned-ranker"] = LearnedRanker(inputs, model)
    return ranker


def question_vectors(scope: Scope, adapt: bool) -> QuestionVectors:
    """The question's own vector (for short texts) and the one its chunk search used (`adapt`: the adapted one)."""
    text = scope.query.text
    return QuestionVectors(scope.context.query_vector(text), scope.context.search_vector(text, adapt))


def signals_of(scope: Scope) -> QuestionSignals:
    """What the features read of the scope's question: the APIs it names itself, whether it names values the
    index does not have."""
    query, intent = scope.query, scope.intent
    profile = profile_for(scope.context.snapshot)
    names_values = names_foreign_values(query.focus, profile) and not names_the_users_own(query.focus)
    return question_signals(query, profile, intent.apis if intent.explicit else (), names_values)


@dataclass(frozen=True)
class LearnedRank:
    """The candidates ordered by the learned ranker `ranker_for` makes for the searched snapshot (each group
    `Ranking.rank_groups` gives on its own); the first-stage order, noted as a fallback, when its model is
    missing."""

    ranker_for: Callable[[Snapshot], LearnedRanker]
    adapt: bool = False  # the retriever's vector search uses the query adapter: so do the candidates' similarities
    name: ClassVar[str] = "rerank"

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking reordered, marked as the learned ranker's (the gate's confidence reads its scores)."""
        trace, ranking, scope = StageTrace(self.name), state.ranking, state.scope
        groups, others = ranking.rank_groups()
        with trace.timed():
            try:
                ranker = self.ranker_for(scope.context.snapshot)
            except RankerUnavailable as error:
                trace.fall_back(f"learned ranker unavailable ({error}): ran without reranking")
                return ranking, trace.events
            signals = signals_of(scope)
            vectors = question_vectors(scope, self.adapt)
            reranked: list[RetrievedChunk] = []
            for group in groups:  # the trace explains the first group's first place
                ordered, explanation = ranker.rank(signals, vectors, group, explain=group is groups[0])
                reranked += ordered
                if explanation is not None:
                    trace.note(explanation.note())
        return replace(ranking.reordered(reranked + others), ranker=LEARNED), trace.events


# How many candidates the confidence compares the first with (the learned ranker reranks the candidate pool).
CONFIDENCE_POOL = 30


def first_place_confidence(
    state: PipelineState, ranker_for: Callable[[Snapshot], LearnedRanker], adapt: bool = False
) -> tuple[float, FirstPlace] | None:
    """The estimated probability that the ranked pool's first candidate is right, with what it was read from:
    from the learned ranker's own scores, or (a pool another stage ordered or led) from the model's scores of
    the pool in its order (`ranker_for`), made a probability by the shipped calibration; a first place a stage after
    the learned ranker put ahead of the model's choice is `placed_by` that stage, one the question names exactly
    `named` (the calibration counts how often each kind was right). None when there is nothing to rank or no model."""
    pool = list(state.evidence.pool[:CONFIDENCE_POOL])
    if not pool:
        return None
    learned_order = state.ranking.ranker == LEARNED
    try:
        if not (learned_order and all(RERANK_SCORE in c.scores for c in pool)):
            scope = state.scope
            ranker = ranker_for(scope.context.snapshot)
            pool = ranker.scored(signals_of(scope), question_vectors(scope, adapt), pool)
        query = state.scope.query
        place = first_place(pool, follow_up=query.follows_up)
        if place is None:
            return None
        first, placed_by = state.evidence.pool[0], ""
        if learned_order and place.margin < 0:
            # Unmarked, a first place below another candidate's score is the first of a multi-API question's first
            # API (each API's candidates are ranked apart: `Ranking.rank_groups`).
            placed_by = first.placed_by or ("apis" if state.ranking.balanced else "other")
        place = replace(place, placed_by=placed_by, named=NAMED_SCORE in first.scores)
        return load_calibrator().probability(place), place
    except RagError:
        return None
