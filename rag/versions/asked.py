"""Questions about versions the pipeline answers with facts: a write an older version of the API had."""

from __future__ import annotations

from collections.abc import Iterable

from rag.chunk import Chunk
from rag.corpus.paths import resource_of
from rag.corpus.vocabulary import normalize_term, tokenize
from rag.write_check import WRITE_VERBS, requested_write


def removed_writes(question: str, chunks: Iterable[Chunk], apis: tuple[str, ...] = ()) -> list[Chunk]:
    """The change chunks of removed operations that did the write a question asks for ("Can I still upsert a
    course?" → `PUT /unified/lms/courses` removed), when no searched operation does it any more."""
    request = requested_write(question)
    if request is None:
        return []
    _, methods = request
    nouns = {normalize_term(t) for t in tokenize(question)} - set(WRITE_VERBS)
    wanted = [c for c in chunks if c.kind in ("operation", "change") and c.method in methods
              and resource_of(c.path) in nouns and (not apis or c.api in apis)]
    if any(c.kind == "operation" for c in wanted):
        return []
    return sorted((c for c in wanted if "removed" in c.tags), key=lambda c: (c.api, c.path, c.method))

