"""Write-operation check: does an operation exist that creates/updates/deletes what is asked about?

If a question asks how to create, update or delete a resource and the index has the resource
but no such operation, the answer must say so and list what does exist (e.g. LMS courses are
read-only: only `GET /unified/lms/courses` and `GET /unified/lms/courses/{id}`). The write verbs and the
methods that perform them: rag/data/question_words.toml.
"""

from __future__ import annotations

from rag.chunk import Chunk, is_item_path
from rag.corpus.paths import resource_of
from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import normalize_term, tokenize
from rag.facts import MissingWrite
from rag.query import Query
from rag.question_analysis import write_verbs

_METHOD_ORDER = {"get": 0, "patch": 1, "put": 2, "post": 3, "delete": 4}


def _closeness(operation: Chunk, methods: tuple[str, ...]) -> tuple[int, int, int, str, str]:
    """Sort key: what a reader asking for `methods` most likely wants instead, first.

    Updating or deleting acts on one item, so the item paths (`…/{id}`) come first; creating acts
    on the collection. Shorter (less nested) paths before longer ones.
    """
    item_level = any(method in ("patch", "delete") for method in methods)
    is_item = is_item_path(operation.path)
    return (
        0 if is_item == item_level else 1,
        operation.path.count("/"),
        _METHOD_ORDER.get(operation.method, 5),
        operation.api,
        operation.path,
    )


def check_write_operation(
    query: Query | str, profile: CorpusProfile, apis: tuple[str, ...] = ()
) -> MissingWrite | None:
    """A MissingWrite fact when the resource exists but no operation performs the write the query's retrieval
    text asks for (its analysis's write request); else None."""
    query = Query.of(query)
    request = query.analysis.write
    if request is None:
        return None
    verb, methods = request
    writes = write_verbs()
    nouns = [normalize_term(t) for t in tokenize(query.text) if normalize_term(t) not in writes]
    operations = [op for op in profile.operations if not apis or op.api in apis]
    for noun in nouns:
        if len(noun) < 3:
            continue
        matching = [op for op in operations if resource_of(op.path) == noun]
        if not matching:
            continue
        if any(op.method in methods for op in matching):
            return None
        return MissingWrite(verb, noun, methods, tuple(sorted(matching, key=lambda op: _closeness(op, methods))))
    return None
