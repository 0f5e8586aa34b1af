"""Named operations: a question that names an operation's path gets that operation in its candidate pool.

"What is the largest `PageSize` when I call GET /2010-04-01/Accounts/{AccountSid}/Calls.json?" names the
operation outright, yet a short path among hundreds of longer ones that share its words may rank below the
pool's cut. Every path the question names that the index has (parameters written any way or as values:
`/users/42` ↔ `/users/{id}`) adds its operations (only the stated method's when the question states one) to
the pool; the reranker then weighs them with the rest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import Chunk
from rag.corpus.paths import METHOD_PATH, named_paths, path_fits, path_shape
from rag.results import RetrievedChunk

# More named operations than this is a pasted listing, not a question about one operation.
MAX_NAMED_OPERATIONS = 6


def named_operations(question: str, operations: Sequence[Chunk], apis: Sequence[str] = ()) -> list[Chunk]:
    """The operations of `apis` (all when empty) whose path the question names, in the order named."""
    paths = named_paths(question)
    if not paths:
        return []
    methods: dict[str, set[str]] = {}
    for match in METHOD_PATH.finditer(question):
        verb = match.group(0).split(None, 1)[0].lower()
        methods.setdefault(path_shape(match.group(1).rstrip(".")), set()).add(verb)
    by_shape: dict[str, list[Chunk]] = {}
    for operation in operations:
        if operation.path and (not apis or operation.api in apis):
            by_shape.setdefault(path_shape(operation.path), []).append(operation)
    # Some specs key a path with a query (`/responses/{id}?beta=true`): named when the question writes it whole.
    written = path_shape(re.sub(r"\s+", " ", question))
    found: list[Chunk] = []
    for path in paths:
        shape = path_shape(path)
        stated = methods.get(shape)
        with_query = [s for s in by_shape if s.startswith(shape + "?") and s in written]
        exact = [shape] if shape in by_shape else []
        for named in with_query or exact or [s for s in by_shape if path_fits(shape, s)]:
            found += [op for op in by_shape.get(named, ()) if not stated or op.method.lower() in stated]
    unique = list({op.chunk_id: op for op in found}.values())
    return unique if len(unique) <= MAX_NAMED_OPERATIONS else []


def add_named_operations(pool: Sequence[RetrievedChunk], named: Sequence[Chunk]) -> tuple[list[RetrievedChunk], str]:
    """The pool with the named operations it lacks appended (score `named` 1.0), and a note ("" if none)."""
    present = {candidate.chunk.chunk_id for candidate in pool}
    missing = [op for op in named if op.chunk_id not in present]
    if not missing:
        return list(pool), ""
    added = [RetrievedChunk(op, {"named": 1.0}) for op in missing]
    titles = ", ".join(f"{op.method.upper()} {op.path}" for op in missing)
    return [*pool, *added], f"named operations: {titles} added to the candidates (the question names the path)"
