"""BM25 over chunk texts, tokenized by `rag.corpus.vocabulary.tokenize` (identifiers split as well as words)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rank_bm25 import BM25Okapi

from rag.corpus.vocabulary import tokenize


class BM25Index:
    """An immutable BM25 index over (chunk id, text) pairs.

    rank-bm25's Okapi BM25 supplies the statistics (idf, document lengths); the scores are its formula
    computed over postings (the documents that hold each term) instead of a pass over every document per
    query term: the same numbers, a fraction of the time on a large index.
    """

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self.ids = list(ids)
        self._bm25 = BM25Okapi([tokenize(text) or ["_empty_"] for text in texts]) if self.ids else None
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._length_norm = np.zeros(0)
        if self._bm25 is not None:
            bm25 = self._bm25
            doc_len = np.array(bm25.doc_len)
            self._length_norm = bm25.k1 * (1 - bm25.b + bm25.b * doc_len / bm25.avgdl)
            postings: dict[str, tuple[list[int], list[int]]] = {}
            for position, frequencies in enumerate(bm25.doc_freqs):
                for term, count in frequencies.items():
                    where, how_often = postings.setdefault(term, ([], []))
                    where.append(position)
                    how_often.append(count)
            self._postings = {
                term: (np.array(where), np.array(counts, dtype=float)) for term, (where, counts) in postings.items()
            }

    def scores(self, terms: Sequence[str]) -> np.ndarray:
        """The Okapi BM25 score of every document for the query `terms` (rank-bm25's `get_scores`)."""
        if self._bm25 is None:
            return np.zeros(0)
        bm25 = self._bm25
        score = np.zeros(bm25.corpus_size)
        for term in terms:
            posting = self._postings.get(term)
            if posting is None:
                continue
            where, frequency = posting
            idf = bm25.idf.get(term) or 0
            score[where] += idf * (frequency * (bm25.k1 + 1) / (frequency + self._length_norm[where]))
        return score

    def __len__(self) -> int:
        return len(self.ids)

    def query_scores(self, query: str) -> np.ndarray:
        """The score of every document for the query text (`scores` of its tokens; empty when it has none)."""
        terms = tokenize(query) if self._bm25 is not None else []
        return self.scores(terms) if terms else np.zeros(0)

    def search(
        self, query: str, n: int, allowed: np.ndarray | None = None, scores: np.ndarray | None = None
    ) -> list[tuple[str, float]]:
        """Top `n` (chunk id, score) pairs with score > 0, optionally only the documents `allowed` marks (a
        boolean per document, in the order of the ids); `scores`: the query's `query_scores` when the caller has
        them."""
        scores = self.query_scores(query) if scores is None else scores
        if not len(scores):
            return []
        order = np.argsort(-scores)
        keep = scores[order] > 0
        if allowed is not None:
            keep &= allowed[order]
        return [(self.ids[position], float(scores[position])) for position in order[keep][:n]]
