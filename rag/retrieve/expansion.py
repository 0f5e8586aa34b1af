"""Reference expansion and per-API merging of ranked candidates."""

from __future__ import annotations

from collections.abc import Sequence

from rag.index.store import Snapshot
from rag.results import RetrievedChunk


def expand_references(
    results: Sequence[RetrievedChunk], snapshot: Snapshot, budget_tokens: int, max_added: int = 4
) -> list[RetrievedChunk]:
    """Append the schema chunks the top operations reference (`ref_ids`), deduplicated, within budget.

    Added chunks are labelled `from_expansion` and ranked after the originals; referenced
    schemas already present are not added twice; parts of large schemas are added from part 1 on.
    """
    output = list(results)
    present = {covered for r in results for covered in r.chunk.covers}
    used = sum(r.chunk.tokens for r in results)
    added = 0
    for result in results:
        if result.chunk.kind != "operation":
            continue
        for ref in result.chunk.ref_ids:
            if added >= max_added or ref in present:
                continue
            candidates = sorted(
                (
                    snapshot.chunks[i]
                    for i in snapshot.by_cover.get(ref, ())
                    if snapshot.chunks[i].strategy == result.chunk.strategy
                ),
                key=lambda chunk: chunk.part,
            )
            if not candidates:
                continue
            chunk = candidates[0]
            if used + chunk.tokens > budget_tokens:
                continue
            present.add(ref)
            used += chunk.tokens
            added += 1
            output.append(
                RetrievedChunk(
                    chunk, {"expanded_from_rank": float(result.rank)}, rank=len(output) + 1, from_expansion=True
                )
            )
    return output


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
    leaders = sorted((api for api in apis if per_api[api]), key=lambda api: pool.index(per_api[api][0]))
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
