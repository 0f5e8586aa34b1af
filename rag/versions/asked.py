"""Questions about versions the pipeline answers with facts: a write an older version of the API had."""

from __future__ import annotations

from collections.abc import Iterable

from rag.chunk import Chunk
from rag.corpus.path_words import resource_segments
from rag.corpus.paths import resource_of
from rag.corpus.vocabulary import normalize_term, tokenize
from rag.query import Query
from rag.question_analysis import write_verbs


def removed_writes(query: Query | str, chunks: Iterable[Chunk], apis: tuple[str, ...] = ()) -> list[Chunk]:
    """The change chunks of removed operations that did the write a question asks for ("Can I still upsert a
    course?" → `PUT /unified/lms/courses` removed), when no searched operation does it any more (the write
    request of the query's analysis, the nouns of its retrieval text)."""
    query = Query.of(query)
    request = query.analysis.write
    if request is None:
        return []
    methods = request.methods
    nouns = {normalize_term(t) for t in tokenize(query.text)} - set(write_verbs())
    wanted = [c for c in chunks if c.kind in ("operation", "change") and c.method in methods
              and resource_of(c.path) in nouns and (not apis or c.api in apis)]
    # The operations whose path the question names most of (`batch upsert LMS courses`: /lms/courses/batch
    # rather than /lms/content/batch) are the ones asked about.
    named = {id(c): len({normalize_term(s) for s in resource_segments(c.path)} & nouns) for c in wanted}
    best = max(named.values(), default=0)
    wanted = [c for c in wanted if named[id(c)] == best]
    if any(c.kind == "operation" for c in wanted):
        return []
    return sorted((c for c in wanted if "removed" in c.tags), key=lambda c: (c.api, c.path, c.method))

