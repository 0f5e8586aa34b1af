"""BM25 over chunk texts, tokenized by `rag.corpus.vocabulary.tokenize` (identifiers split as well as words)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from rag.corpus.vocabulary import tokenize


class BM25Index:
    """An immutable BM25 index over (chunk id, text) pairs."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self.ids = list(ids)
        self._bm25 = BM25Okapi([tokenize(text) or ["_empty_"] for text in texts]) if self.ids else None

    def __len__(self) -> int:
        return len(self.ids)

    def search(self, query: str, n: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """Top `n` (chunk id, score) pairs with score > 0, optionally only ids in `allowed`."""
        if self._bm25 is None:
            return []
        terms = tokenize(query)
        if not terms:
            return []
        scores = self._bm25.get_scores(terms)
        order = np.argsort(-scores)
        results: list[tuple[str, float]] = []
        for position in order:
            score = float(scores[position])
            if score <= 0:
                break
            chunk_id = self.ids[position]
            if allowed is not None and chunk_id not in allowed:
                continue
            results.append((chunk_id, score))
            if len(results) >= n:
                break
        return results
