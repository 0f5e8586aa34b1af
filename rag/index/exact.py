"""Exact nearest-neighbour search over a matrix of stored embeddings, and the arrays it keeps about the rows."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

MAX_ARRAYS = 256

# The prefix `Chunk.with_version` gives a chunk id: its document version (a hash of the file, its name and the chunker).
_VERSION_PREFIX = re.compile(r"^[0-9a-f]{12}/")


def order_key(chunk_id: str) -> tuple[str, str]:
    """What puts chunks of equal score in order: the id without its document version, then the whole id (two
    versions of one chunk). A chunk's place among equals then never depends on the hash of its file's version, which
    changes with every chunker version (`rag.ingest.pipeline.CHUNKER_VERSION`)."""
    return _VERSION_PREFIX.sub("", chunk_id, count=1), chunk_id


def cosine_scores(matrix: np.ndarray, query_vector: np.ndarray) -> np.ndarray:
    """The cosine similarity of each row (unit-length) with the query, rounded so that scores equal but for the
    last bits of float32 arithmetic tie; empty when the query is the zero vector."""
    query = np.asarray(query_vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(query))
    if norm == 0.0:
        return np.zeros(0, dtype=np.float32)
    return np.round(matrix @ (query / norm), 6)


def top_rows(
    ids: Sequence[str], scores: np.ndarray, n: int, in_scope: np.ndarray | None, id_places: Callable[[], np.ndarray],
) -> list[tuple[str, float]]:
    """The `n` rows with the best `scores` (`cosine_scores`: one per id, or none), of those `in_scope` marks (all
    when None): (id, score), best first, equal scores by id (`id_places()` gives each row's place in the ids' sorted
    order)."""
    if not len(ids) or len(scores) != len(ids):
        return []
    if in_scope is not None:
        scores = np.where(in_scope, scores, -np.inf)
    keep = min(len(ids), n)
    best = np.argpartition(-scores, keep - 1)[:keep] if keep < len(ids) else np.arange(len(ids))
    # Everything tied with the n-th score competes on id, so the cut never depends on partition order.
    cutoff = scores[best].min()
    tied = np.flatnonzero((scores >= cutoff) & np.isfinite(scores))
    order = np.lexsort((id_places()[tied], -scores[tied]))[:n]
    return [(ids[i], float(scores[i])) for i in tied[order]]


def sorted_places(ids: Sequence[str]) -> np.ndarray:
    """Each id's place in the order of `ids` that puts equal scores in order (`order_key`)."""
    places = np.empty(len(ids), dtype=np.int64)
    places[sorted(range(len(ids)), key=lambda row: order_key(ids[row]))] = np.arange(len(ids))
    return places


class RowArrays:
    """Arrays about a set of rows (a mask per API set, the ids' sorted places), each made once while those rows
    are the ones read: an older generation's reader may read its rows again, fewer after a write, and gets
    arrays of its own then."""

    def __init__(self) -> None:
        self._arrays: dict[Hashable, tuple[Any, np.ndarray]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, rows: Any, make: Callable[[], np.ndarray]) -> np.ndarray:
        """The array `key` names about `rows` (the very object), made by `make` the first time."""
        cached = self._arrays.get(key)
        if cached is not None and cached[0] is rows:
            return cached[1]
        made = make()
        with self._lock:
            if len(self._arrays) > MAX_ARRAYS:
                self._arrays.clear()
            self._arrays[key] = (rows, made)
        return made
