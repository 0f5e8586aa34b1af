"""BM25 over chunk texts with a tokenizer that splits identifiers as well as words."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from rank_bm25 import BM25Okapi

_RAW_TOKENS = re.compile(r"[A-Za-z0-9_\-./{}]+")
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i if in is it its me my of on or so that the this to "
    "what when where which who why will with you your we our there their them they should would could please "
    "api apis".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-case tokens: whole identifiers plus their parts.

    `expires_in` → `expires_in`, `expires`, `in`; `/unified/hris/employees` → the path and
    `unified`, `hris`, `employees`; `createdAt` → `createdat`, `created`, `at`. Stop words are
    dropped unless they are part of a longer identifier.
    """
    tokens: list[str] = []
    for raw in _RAW_TOKENS.findall(text):
        whole = raw.strip("-./{}").lower()
        parts = [
            part.lower()
            for piece in re.split(r"[_\-./{}]+", raw)
            for part in (_CAMEL.findall(piece) if _LOWER_UPPER.search(piece) else [piece])
            if part
        ]
        if whole and (whole not in STOPWORDS or len(parts) > 1):
            tokens.append(whole)
        if len(parts) > 1 or (parts and parts[0] != whole):
            tokens.extend(part for part in parts if part not in STOPWORDS)
    return tokens


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
