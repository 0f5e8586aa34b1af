"""What each operation does, in short texts compared like with like with a question.

A whole chunk is long and scores middling for every question; a question is short. Two short texts per chunk say
what it does: its lead (an operation's summary, else its description's first sentence) and its name (an
operation's operationId, or its method and path, in words) (rag.rerank.features). Their embeddings are made
once per text (the embedder's persistent cache keeps them across processes) and serve twice: as an operation
search that adds to the candidate pool the operations whose lead or name is closest to the question (a
paraphrase the whole chunk's embedding and BM25 both miss: "kick someone from my server" ↔ `delete guild member`),
and as features of the learned ranker.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from rag.chunk import Chunk
from rag.index.embedder import Embedder, unit_rows
from rag.index.exact import sorted_places
from rag.rerank.features import lead_text, name_text


@dataclass
class ShortTexts:
    """The unit vectors of short texts, embedded on first need (in batches) and kept."""

    embedder: Embedder
    _vectors: dict[str, np.ndarray] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of `texts`, a row each (embedded once per text)."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            embedded = unit_rows(np.asarray(self.embedder.embed(missing), dtype=np.float32))
            with self._lock:
                self._vectors.update(zip(missing, embedded, strict=True))
        with self._lock:
            return np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, 1), np.float32)


@dataclass(frozen=True)
class OperationTexts:
    """Every operation of an index generation with its lead and name vectors: what the operation search
    searches."""

    operations: tuple[Chunk, ...]
    lead: np.ndarray
    name: np.ndarray
    # Each operation's API, and its place in chunk-id order (the tie-break of equal similarities)
    apis: np.ndarray = field(init=False, repr=False)
    id_order: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "apis", np.array([c.api for c in self.operations], dtype=object))
        object.__setattr__(self, "id_order", sorted_places([c.chunk_id for c in self.operations]))

    @classmethod
    def of(cls, chunks: Sequence[Chunk], texts: ShortTexts) -> OperationTexts:
        """The operations among `chunks` (smart ones) and their short texts' vectors."""
        operations = tuple(c for c in chunks if c.kind == "operation" and c.strategy == "smart")
        if not operations:
            return cls((), np.zeros((0, 1), np.float32), np.zeros((0, 1), np.float32))
        return cls(operations, texts.vectors([lead_text(c) for c in operations]),
                   texts.vectors([name_text(c) for c in operations]))

    def search(self, query_vector: np.ndarray, n: int, apis: Sequence[str] = ()) -> list[tuple[Chunk, float]]:
        """The `n` operations (of `apis`, when given) whose lead or name is most similar to the query, with that
        similarity, best first (ties by chunk id)."""
        if not self.operations or n <= 0:
            return []
        query = np.asarray(query_vector, dtype=np.float32).ravel()
        query = query / (float(np.linalg.norm(query)) or 1.0)
        best = np.maximum(self.lead @ query, self.name @ query)
        allowed = np.flatnonzero(np.isin(self.apis, list(apis))) if apis else np.arange(len(self.operations))
        ranked = allowed[np.lexsort((self.id_order[allowed], -best[allowed]))[:n]]
        return [(self.operations[i], float(best[i])) for i in ranked]
