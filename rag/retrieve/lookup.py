"""The lookup lift: a request that names things by value needs the API's lookup operation first.

"Play the album Kind of Blue by Miles Davis": the operations that act on an album take its id, and
the id of a thing named by value comes from the API's search operation. So when a question names
values the index does not have (songs, people, films: `rag.names`) and the corpus has lookup
operations, the one that fits the question best leads the list: it is the first call of the chain.
A value that is the user's own ("my playlist called Workout") is found in their collection instead, so
then nothing moves (the engine passes `names_values=False`).

Lookup operations are found per index (`CorpusProfile.lookup_operations`): GET operations with a `search`
or `lookup` path segment, or whose summary starts with "Search", "Lookup" or "Find". A corpus without
them is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag.chunk import Chunk
from rag.corpus.profile import is_lookup_operation
from rag.results import RetrievedChunk


def lift_lookup(
    pool: Sequence[RetrievedChunk],
    operations: Sequence[Chunk],
    names_values: bool,
    similarity: Callable[[Chunk], float],
    apis: Sequence[str] = (),
) -> tuple[list[RetrievedChunk], str]:
    """The pool with the best lookup operation first, and a note saying so ("" when nothing moved).

    It moves only when the question names values (`names_values`) and the pool does not already lead
    with a lookup operation. The best one is the highest in the pool, else (none retrieved) the most
    `similarity`-similar of the corpus's lookup operations in `apis` (all APIs when empty).
    """
    ranked = list(pool)
    if not names_values or not ranked or is_lookup_operation(ranked[0].chunk):
        return ranked, ""
    lookups = [op for op in operations if is_lookup_operation(op) and (not apis or op.api in apis)]
    if not lookups:
        return ranked, ""
    lookup_ids = {op.chunk_id for op in lookups}
    in_pool = [candidate for candidate in ranked if candidate.chunk.chunk_id in lookup_ids]
    if in_pool:
        lifted = in_pool[0]
        ranked.remove(lifted)
        origin = f"from rank {lifted.rank_before_rerank or pool.index(lifted) + 1}"
    else:
        best = max(lookups, key=lambda op: (similarity(op), op.chunk_id))
        lifted = RetrievedChunk(best, {"lookup": round(similarity(best), 6)})
        origin = "not retrieved; the closest lookup operation"
    ranked.insert(0, lifted)
    return ranked, f"lookup lift: {lifted.chunk.title} first ({origin}): the question names values to look up"
