"""Which words of the index a question word means: the corpus's naming vocabulary, embedded.

A question names things in its own words (`staff` for employees, `applicant` for candidates,
`centre` for center). The gate must not count such a word as a thing the docs never mention. The
words a developer uses to name a part of *this* API (path segments, tags, operationIds, schema and
operation names, from the corpus profile) are embedded once per index generation; a question word
whose embedding is close to one of them means something the index has. Nothing here is written for
one corpus: an uploaded spec gets its own vocabulary.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import word_forms
from rag.index.embedder import Embedder, unit_rows
from rag.index.store import Snapshot


@dataclass(frozen=True)
class NamingVocabulary:
    """The naming words of one index and their unit-length embeddings (one row per word)."""

    words: tuple[str, ...]
    vectors: np.ndarray
    embedder: Embedder

    def nearest(self, terms: Sequence[str]) -> dict[str, tuple[str, float]]:
        """Each term's closest naming word and its cosine similarity (no entry when there are no words).

        A naming word that contains the term or is contained in it (`list` for `playlist`, `block` for
        `blockchain`) shares letters, not meaning: word embeddings rate such pairs high, so they are
        not candidates.
        """
        terms = [t for t in dict.fromkeys(terms) if t]
        if not terms or not self.words:
            return {}
        asked = unit_rows(np.asarray(self.embedder.embed(terms)))
        similarities = asked @ self.vectors.T
        found: dict[str, tuple[str, float]] = {}
        for row, term in zip(similarities, terms, strict=True):
            for j in np.argsort(-row):
                word = self.words[int(j)]
                if not shares_letters(word, term):
                    found[term] = (word, float(row[int(j)]))
                    break
        return found

    def close(self, terms: Sequence[str], threshold: float) -> set[str]:
        """The terms whose closest naming word is at least `threshold` similar: words the index has in
        other words."""
        return {term for term, (_, similarity) in self.nearest(terms).items() if similarity >= threshold}


def shares_letters(word: str, term: str) -> bool:
    """Whether two words share letters rather than a meaning: one contains the other, or a base form of
    the other (`list` in `playlist`, `write` in handwrite of `handwriting`)."""
    if word in term or term in word:
        return True
    return any(word in form for form in word_forms(term) if len(form) >= 5) or any(
        term in form for form in word_forms(word) if len(form) >= 5
    )


def naming_words(profile: CorpusProfile) -> tuple[str, ...]:
    """The words that name parts of the indexed APIs: structural terms and operation-naming words
    (alphabetic, three letters or more), sorted."""
    words = set(profile.structural_terms) | set(profile.term_apis)
    return tuple(sorted(w for w in words if w.isalpha() and len(w) >= 3))


_cache_lock = threading.Lock()
_cache: dict[tuple[int, str], tuple[Snapshot, NamingVocabulary]] = {}


def naming_vocabulary(snapshot: Snapshot, profile: CorpusProfile, embedder: Embedder) -> NamingVocabulary:
    """The (cached) embedded naming vocabulary of a snapshot: embedded on first use, once per
    generation and embedding model (a second or two for a large spec; the embedder's cache keeps it)."""
    key = (id(snapshot), embedder.name)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is snapshot:
            return hit[1]
    words = naming_words(profile)
    dimension = int(getattr(embedder, "dimension", 0) or 0)
    vectors = unit_rows(np.asarray(embedder.embed(list(words)))) if words else np.zeros((0, dimension))
    vocabulary = NamingVocabulary(words, vectors, embedder)
    with _cache_lock:
        if len(_cache) > 8:
            _cache.clear()
        _cache[key] = (snapshot, vocabulary)
    return vocabulary
