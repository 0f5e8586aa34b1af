"""The order of ranked candidates: per-API merging (a multi-API question keeps each API it asks about in the
top k), repeated parts of one structural id moved to the end, and component schemas after the rest."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import Chunk
from rag.corpus.paths import path_shape
from rag.corpus.vocabulary import schema_name
from rag.results import RetrievedChunk


def interleave_by_api(per_api: dict[str, list[RetrievedChunk]], n: int) -> list[RetrievedChunk]:
    """Round-robin merge of per-API rankings so each API is represented, best of each first."""
    merged: list[RetrievedChunk] = []
    seen: set[str] = set()
    queues = {api: list(items) for api, items in per_api.items() if items}
    while queues and len(merged) < n:
        for api in sorted(queues, key=lambda a: -max(_first_score(queues[a]), 0.0)):
            queue = queues[api]
            while queue and queue[0].chunk.chunk_id in seen:
                queue.pop(0)
            if queue:
                item = queue.pop(0)
                seen.add(item.chunk.chunk_id)
                item.rank = len(merged) + 1
                merged.append(item)
            if not queue:
                queues.pop(api)
            if len(merged) >= n:
                break
    return merged


def balance_by_api(pool: list[RetrievedChunk], apis: Sequence[str], k: int) -> list[RetrievedChunk]:
    """The ranked pool with its first `k` shared among `apis` (round robin, each API's best first, the API
    whose best candidate ranks highest leading): a multi-API question keeps every API it asks about in the
    top k after reranking. The rest of the pool follows in its order."""
    per_api = {api: [c for c in pool if c.chunk.api == api] for api in apis}
    position = {id(c): n for n, c in enumerate(pool)}
    leaders = sorted((api for api in apis if per_api[api]), key=lambda api: position[id(per_api[api][0])])
    queues = [list(per_api[api]) for api in leaders]
    head: list[RetrievedChunk] = []
    while len(head) < k and any(queues):
        for queue in queues:
            if queue and len(head) < k:
                head.append(queue.pop(0))
    chosen = {id(c) for c in head}
    return head + [c for c in pool if id(c) not in chosen]


def _first_score(items: list[RetrievedChunk]) -> float:
    if not items:
        return -1.0
    scores = items[0].scores
    return scores.get("fused", scores.get("vector", scores.get("bm25", 0.0)))


def demote_repeated_covers(ranked: Sequence[RetrievedChunk]) -> list[RetrievedChunk]:
    """Keep the best chunk of each structural id in place and move further parts of it to the end.

    Parts of one large schema cover the same id; several of them in the top-k crowd out other
    evidence without adding a new source.
    """
    first: list[RetrievedChunk] = []
    repeats: list[RetrievedChunk] = []
    seen: set[tuple[str, ...]] = set()
    for item in ranked:
        key = item.chunk.covers or (item.chunk.chunk_id,)
        (repeats if key in seen else first).append(item)
        seen.add(key)
    return first + repeats


def schemas_last(ranked: Sequence[RetrievedChunk], question: str = "") -> list[RetrievedChunk]:
    """The ranked candidates with component-schema chunks after every other kind, each group in its order;
    a schema the question names by its identifier keeps its place.

    A question is answered by an operation (or a guide): an operation's chunk already carries the schemas it
    references, resolved into its text, while a large spec's hundreds of schema chunks match any question's
    words (a field list names everything) and crowd the operations out of the top k. A question that names
    a schema (`EmployeesSort`, `api.v2010.account.message`, `` `Employee` ``) asks about that schema."""

    may_name = may_name_schema(question)
    stays = [c.chunk.kind != "schema" or (may_name and names_schema(question, c.chunk.covers)) for c in ranked]
    return [c for c, keep in zip(ranked, stays, strict=True) if keep] + [
        c for c, keep in zip(ranked, stays, strict=True) if not keep
    ]


_COMPOUND = re.compile(r"[a-z0-9][A-Z]|[_.\-]|\d")


def may_name_schema(question: str) -> bool:
    """Whether the question can name a schema by its identifier at all: it has backticks or a compound word (a
    compound name written in it makes it compound too)."""
    return "`" in question or bool(_COMPOUND.search(question))


def names_schema(question: str, covers: Sequence[str]) -> bool:
    """Whether the question names one of these schemas by its identifier: a compound name (`ListsPaginated`,
    `time_off`, `api.v2010.account.message`) as written, or any name in backticks. A plain word that happens
    to be a schema's name ("an employee", "Employee records") names no schema."""
    if not may_name_schema(question):
        return False
    for name in filter(None, map(schema_name, covers)):
        if f"`{name}`" in question:
            return True
        if _COMPOUND.search(name) and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w|\.\w)", question):
            return True
    return False


def shared_headers_in_top(ranked: Sequence[RetrievedChunk], k: int) -> list[RetrievedChunk]:
    """For a question asking about a header: the best-ranked API-wide chunk that states headers the operations
    share (an overview kind with header parameters: the conventions chunk) at the last place of the top `k` when it
    ranked below; the ranking unchanged otherwise. Which header an API's operations share is said once for the API,
    and no operation's chunk says that it is shared."""
    shared = next((c for c in ranked if c.chunk.kind == "overview"
                   and any(p.location == "header" for p in c.chunk.parameters)), None)
    if shared is None or any(c is shared for c in ranked[:k]):
        return list(ranked)
    return _last_of_top(ranked, shared, k)


def _last_of_top(ranked: Sequence[RetrievedChunk], chosen: RetrievedChunk, k: int) -> list[RetrievedChunk]:
    """The ranking with `chosen` moved to the last place of the top `k` (unchanged for a `k` below 1)."""
    if k < 1:
        return list(ranked)
    rest = [c for c in ranked if c is not chosen]
    return [*rest[: k - 1], chosen, *rest[k - 1:]]


def schemes_in_top(ranked: Sequence[RetrievedChunk], k: int) -> list[RetrievedChunk]:
    """For a question asking how to authenticate: the best-ranked overview that states the API's security schemes at
    the last place of the top `k` when no chunk there states any (an operation whose spec applies none, as
    SalesLoft's, says nothing of how to authenticate); the ranking unchanged otherwise."""
    overview = next((c for c in ranked if c.chunk.kind == "overview" and c.chunk.security), None)
    if overview is None or any(c.chunk.security for c in ranked[:k]):
        return list(ranked)
    return _last_of_top(ranked, overview, k)


def collection_listing(anchor: Chunk, chunks: Sequence[Chunk]) -> Chunk | None:
    """The operation among `chunks` that lists the collection the anchor operation acts on: a GET of the anchor's
    path without a last parameter (`POST /webhooks`, `DELETE /webhooks/{id}` → `GET /webhooks`); None when none is
    there."""
    collection = path_shape(anchor.path).removesuffix("/{}") or "/"
    return next((chunk for chunk in chunks if chunk.kind == "operation" and chunk.api == anchor.api
                 and chunk.method.lower() == "get" and path_shape(chunk.path) == collection), None)
