"""Vector, BM25 and hybrid (reciprocal rank fusion) retrievers behind one Protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from rag.config import DEFAULT_RRF_K
from rag.index.exact import order_key
from rag.results import RetrievedChunk
from rag.retrieve.context import QueryContext


class Retriever(Protocol):
    """Returns up to `n` ranked candidates for the query from the given collections."""

    name: str

    def retrieve(
        self, ctx: QueryContext, strategies: Sequence[str], n: int, apis: tuple[str, ...] = (), text: str | None = None
    ) -> list[RetrievedChunk]:
        """Ranked candidates (rank 1 first) with their scores."""
        ...


def _merged(pools: Sequence[list[tuple[str, float]]]) -> list[tuple[str, float]]:
    merged = [pair for pool in pools for pair in pool]
    merged.sort(key=lambda pair: pair[1], reverse=True)
    return merged


def _as_chunks(ctx: QueryContext, pairs: Sequence[tuple[str, float]], score_name: str, n: int) -> list[RetrievedChunk]:
    results: list[RetrievedChunk] = []
    for chunk_id, score in pairs[:n]:
        chunk = ctx.snapshot.chunks.get(chunk_id)
        if chunk is not None:
            results.append(RetrievedChunk(chunk, {score_name: score}, rank=len(results) + 1))
    return results


@dataclass(frozen=True)
class VectorRetriever:
    """Cosine similarity of embeddings (Chroma); with `adapt`, of the adapted question vector
    (rag.retrieve.query_adapter)."""

    adapt: bool = False
    name: str = "vector"

    def retrieve(
        self, ctx: QueryContext, strategies: Sequence[str], n: int, apis: tuple[str, ...] = (), text: str | None = None
    ) -> list[RetrievedChunk]:
        """Top `n` by cosine similarity across the collections."""
        pairs = _merged([ctx.vector_pool(strategy, apis, text, self.adapt) for strategy in strategies])
        return _as_chunks(ctx, pairs, "vector", n)


@dataclass(frozen=True)
class BM25Retriever:
    """Lexical BM25 with an identifier-aware tokenizer."""

    name: str = "bm25"

    def retrieve(
        self, ctx: QueryContext, strategies: Sequence[str], n: int, apis: tuple[str, ...] = (), text: str | None = None
    ) -> list[RetrievedChunk]:
        """Top `n` by BM25 score across the collections."""
        pairs = _merged([ctx.bm25_pool(strategy, apis, text) for strategy in strategies])
        return _as_chunks(ctx, pairs, "bm25", n)


def reciprocal_rank_fusion(
    vector_ranked: Sequence[str], bm25_ranked: Sequence[str], alpha: float = 0.5, k: int = DEFAULT_RRF_K
) -> list[tuple[str, float]]:
    """`score = α/(k + rank_vec) + (1-α)/(k + rank_bm25)`; a list a chunk is missing from adds 0."""
    scores: dict[str, float] = {}
    for rank, chunk_id in enumerate(vector_ranked, start=1):
        scores[chunk_id] = scores.get(chunk_id, 0.0) + alpha / (k + rank)
    for rank, chunk_id in enumerate(bm25_ranked, start=1):
        scores[chunk_id] = scores.get(chunk_id, 0.0) + (1 - alpha) / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], order_key(pair[0])))


@dataclass(frozen=True)
class HybridRetriever:
    """Reciprocal rank fusion of the vector and BM25 rankings (`adapt`: the vector ranking of the adapted question
    vector)."""

    alpha: float = 0.5
    rrf_k: int = DEFAULT_RRF_K
    adapt: bool = False
    name: str = "hybrid"

    def retrieve(
        self, ctx: QueryContext, strategies: Sequence[str], n: int, apis: tuple[str, ...] = (), text: str | None = None
    ) -> list[RetrievedChunk]:
        """Top `n` by fused score; each candidate keeps its vector and BM25 scores too."""
        vector = _merged([ctx.vector_pool(strategy, apis, text, self.adapt) for strategy in strategies])
        bm25 = _merged([ctx.bm25_pool(strategy, apis, text) for strategy in strategies])
        vector_scores, bm25_scores = dict(vector), dict(bm25)
        fused = reciprocal_rank_fusion([i for i, _ in vector], [i for i, _ in bm25], self.alpha, self.rrf_k)
        results: list[RetrievedChunk] = []
        for chunk_id, score in fused:
            chunk = ctx.snapshot.chunks.get(chunk_id)
            if chunk is None:
                continue
            scores = {"fused": score}
            if chunk_id in vector_scores:
                scores["vector"] = vector_scores[chunk_id]
            if chunk_id in bm25_scores:
                scores["bm25"] = bm25_scores[chunk_id]
            results.append(RetrievedChunk(chunk, scores, rank=len(results) + 1))
            if len(results) >= n:
                break
        return results


def make_retriever(kind: str, alpha: float = 0.5, rrf_k: int = DEFAULT_RRF_K, adapt: bool = False) -> Retriever:
    """The retriever named by a config (`vector`, `bm25` or `hybrid`; `adapt`: its vector search uses the query
    adapter)."""
    if kind == "vector":
        return VectorRetriever(adapt)
    if kind == "bm25":
        return BM25Retriever()
    return HybridRetriever(alpha=alpha, rrf_k=rrf_k, adapt=adapt)
