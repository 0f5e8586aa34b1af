"""Per-question shared work: the query is embedded once, each candidate pool computed once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from rag.index.embedder import Embedder, embed_queries
from rag.index.store import Index, Snapshot
from rag.index.versions import named_version
from rag.retrieve.query_adapter import adapted, adapter_for

POOL_SIZE = 60
T = TypeVar("T")


def search_view(index: Index, query: str, api_version: str = "") -> Snapshot:
    """The chunks a query searches: a pinned version's (`2025-02`, `lms@2025-02`), else the newest, with the
    changes since the version the question names ("What changed since 2025-02?")."""
    since = "" if api_version else named_version(query, index.documents)
    return index.version_view(api_version, since) if api_version or since else index.snapshot()


def _vector_key(strategy: str, apis: tuple[str, ...], text: str, adapt: bool = False) -> tuple[object, ...]:
    """The memo key of one vector pool (searched with the adapted question vector, or its own)."""
    return ("vector", strategy, apis, text, adapt)


class QueryContext:
    """Memoised, thread-safe access to the expensive parts of answering one query.

    Every configuration answering the same query shares one context, so the embedding and each
    (collection, retriever, API filter) candidate pool are computed once, however many configs run.
    """

    def __init__(self, index: Index, query: str, embedder: Embedder | None = None, api_version: str = "") -> None:
        self.index = index
        self.query = query
        self.api_version = api_version  # a pinned API version (`2025-02`, `lms@2025-02`); "" the newest
        # Queries skip the persistent embedding cache: caching every question would only grow it.
        chosen = embedder or index.embedder
        self.embedder = getattr(chosen, "inner", chosen)
        self.snapshot: Snapshot = search_view(index, query, api_version)
        self.adapter = adapter_for(self.embedder.name, int(getattr(self.embedder, "dimension", 0)))
        self._memo: dict[tuple[object, ...], object] = {}
        self._locks: dict[tuple[object, ...], threading.Lock] = {}
        self._guard = threading.Lock()
        self.computed: list[tuple[object, ...]] = []

    def memo(self, key: tuple[object, ...], compute: Callable[[], T]) -> T:
        """Compute `key` once (other threads asking for it wait for the first)."""
        with self._guard:
            if key in self._memo:
                return self._memo[key]  # type: ignore[return-value]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                if key in self._memo:
                    return self._memo[key]  # type: ignore[return-value]
            value = compute()
            with self._guard:
                self._memo[key] = value
                self.computed.append(key)
            return value

    def query_vector(self, text: str | None = None) -> np.ndarray:
        """The embedding of the query (or of another text, e.g. a rewritten query)."""
        text = self.query if text is None else text
        return self.memo(("embed", text), lambda: embed_queries(self.embedder, [text])[0])

    def search_vector(self, text: str | None = None, adapt: bool = False) -> np.ndarray:
        """The vector a chunk search compares with chunks: with `adapt`, the query's through the embedder's query
        adapter (rag.retrieve.query_adapter; its own vector where the embedder has none), else its own."""
        text = self.query if text is None else text
        if not adapt or self.adapter is None:
            return self.query_vector(text)
        return self.memo(("search", text), lambda: adapted(self.query_vector(text), self.adapter))

    def vector_pool(
        self, strategy: str, apis: tuple[str, ...] = (), text: str | None = None, adapt: bool = False
    ) -> list[tuple[str, float]]:
        """Top POOL_SIZE (chunk id, cosine) of one collection, optionally only some APIs (`adapt`: searched with
        the adapted query vector, `search_vector`)."""
        text = self.query if text is None else text
        adapt = adapt and self.adapter is not None
        return self.memo(
            _vector_key(strategy, apis, text, adapt),
            lambda: self.index.vector_search(strategy, self.search_vector(text, adapt), POOL_SIZE, apis or None,
                                             snapshot=self.snapshot, scores=self._cosines(strategy, text, adapt)),
        )

    def _cosines(self, strategy: str, text: str, adapt: bool = False) -> np.ndarray | None:
        """The text's similarity with every chunk of one strategy (`Index.exact_scores`: one product for the
        pools of every API filter)."""
        return self.memo(("cosines", strategy, text, adapt),
                         lambda: self.index.exact_scores(strategy, self.search_vector(text, adapt), self.snapshot))

    def best_similarity(self, strategy: str) -> float | None:
        """The best cosine similarity between the query and any chunk of one strategy (None: no chunk): the first
        of its unfiltered `vector_pool` when that is made, else of a search for the one best chunk."""
        with self._guard:
            pool = self._memo.get(_vector_key(strategy, (), self.query))
        if pool is not None:
            return pool[0][1] if pool else None  # type: ignore[index]
        return self.memo(("best", strategy, self.query), lambda: self._best_of(strategy))

    def _best_of(self, strategy: str) -> float | None:
        """The best similarity of one strategy's chunks: the largest of its exact scores, else the first of an
        approximate search for one chunk."""
        scores = self._cosines(strategy, self.query)
        if scores is not None:
            return float(scores.max()) if len(scores) else None
        pool = self.index.vector_search(strategy, self.query_vector(self.query), 1, snapshot=self.snapshot)
        return pool[0][1] if pool else None

    def bm25_pool(self, strategy: str, apis: tuple[str, ...] = (), text: str | None = None) -> list[tuple[str, float]]:
        """Top POOL_SIZE (chunk id, BM25 score) of one collection, optionally only some APIs."""
        text = self.query if text is None else text
        return self.memo(
            ("bm25", strategy, apis, text),
            lambda: self.index.bm25_search(strategy, text, POOL_SIZE, apis or None, snapshot=self.snapshot,
                                           scores=self._bm25_scores(strategy, text)),
        )

    def _bm25_scores(self, strategy: str, text: str) -> np.ndarray | None:
        """The text's BM25 score of every chunk of one strategy (one scoring for the pools of every API filter);
        None for a strategy the snapshot has no BM25 index of (the search then says which are allowed)."""
        bm25 = self.snapshot.bm25.get(strategy)
        return None if bm25 is None else self.memo(("bm25-scores", strategy, text), lambda: bm25.query_scores(text))


_shared_lock = threading.Lock()


def shared_context(
    index: Index, query: str, contexts: dict[str, QueryContext] | None, api_version: str = ""
) -> QueryContext:
    """The query context of a search text: shared through `contexts` (a pinned version has its own); a fresh
    one without `contexts`."""
    if contexts is None:
        return QueryContext(index, query, api_version=api_version)
    key = f"{api_version}\x00{query}" if api_version else query
    with _shared_lock:
        if key not in contexts:
            contexts[key] = QueryContext(index, query, api_version=api_version)
        return contexts[key]
