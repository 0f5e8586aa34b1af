"""The reranker interface and the bookkeeping every reranker shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rag.errors import RagError
from rag.query import Query
from rag.results import RERANK_SCORE, RetrievedChunk


class RerankerUnavailable(RagError):
    """The reranker cannot run here (no model, no LLM); the message says why."""


class Reranker(Protocol):
    """Reorders candidates; each gets a `rerank` score."""

    name: str

    def score(self, query: Query | str, candidates: Sequence[RetrievedChunk]) -> list[float]:
        """One relevance score per candidate (higher is better); a plain string is a query as asked."""
        ...


def apply_scores(candidates: Sequence[RetrievedChunk], scores: Sequence[float]) -> list[RetrievedChunk]:
    """Sort by score (stable), record `rank_before_rerank` and the `rerank` score, renumber ranks."""
    for position, (candidate, score) in enumerate(zip(candidates, scores, strict=True), start=1):
        candidate.rank_before_rerank = position
        candidate.scores[RERANK_SCORE] = float(score)
    ordered = sorted(candidates, key=lambda c: (-c.scores[RERANK_SCORE], c.rank_before_rerank or 0))
    for rank, candidate in enumerate(ordered, start=1):
        candidate.rank = rank
    return ordered
