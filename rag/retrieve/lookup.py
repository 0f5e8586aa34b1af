"""The lookup lift: a request that names things by value needs the API's lookup operation first.

"Play the album Kind of Blue by Miles Davis": the operations that act on an album take its id, and
the id of a thing named by value comes from the API's search operation. So when a question names
values the index does not have (songs, people, films: `rag.names`), the best candidate is an operation
that takes an id in its path, and its API has lookup operations, the one that fits the question best
leads the list: it is the first call of the chain.
A value that is the user's own ("my playlist called Workout") is found in their collection instead, so
then nothing moves (the engine passes `names_values=False`); nor is the name a request gives what it creates
("create a flag called new-checkout") or a day ("next Monday") looked up (`rag.names.names_to_look_up`).

On a corpus of several APIs only the API the question is about may lend its lookup: the APIs it names,
else the API of the best-ranked candidate (a jokes search never leads a request for an airport).

Lookup operations are found per index (`CorpusProfile.lookup_operations`): GET operations with a `search`
or `lookup` path segment, or whose summary starts with "Search", "Lookup" or "Find". A corpus without
them is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag.chunk import Chunk
from rag.corpus.profile import CorpusProfile, is_lookup_operation
from rag.corpus.vocabulary import stop_words, tokenize
from rag.names import names_and_values
from rag.results import RetrievedChunk


def names_foreign_values(
    question: str, profile: CorpusProfile, names: Callable[[str], list[str]] = names_and_values
) -> bool:
    """Whether the question names something the index does not (a song, a film, a person): then it is a
    request about data, whose ids come from a lookup. `names` reads the names of the question: all it mentions
    (the learned ranker's feature), or only those of things that exist before the request runs
    (`names_to_look_up`: what the lift looks up)."""
    for name in names(question):
        words = [w for w in tokenize(name) if w not in stop_words()]
        if words and not all(profile.knows(w) or w in profile.apis for w in words):
            return True
    return False


def needs_an_id(chunk: Chunk) -> bool:
    """Whether a chunk is an operation that takes a path parameter (`/movie/{movie_id}/credits`): what it acts
    on is named by an id, which a request naming the thing by value must look up first."""
    return chunk.kind == "operation" and "{" in chunk.path and not is_lookup_operation(chunk)


def lift_lookup(
    pool: Sequence[RetrievedChunk],
    operations: Sequence[Chunk],
    names_values: bool,
    similarity: Callable[[Chunk], float],
    apis: Sequence[str] = (),
) -> tuple[list[RetrievedChunk], str]:
    """The pool with the best lookup operation first, and a note saying so ("" when nothing moved).

    It moves only when the question names values (`names_values`) and the pool leads with an operation
    that needs an id (`needs_an_id`): one that takes the value itself (`GET /breweries?by_city=`) needs no
    lookup. The best one is the highest in the pool, else (none retrieved) the most
    `similarity`-similar of the lookup operations of `apis` (when empty: the API of the pool's first
    candidate; another API's lookup never moves).
    """
    ranked = list(pool)
    if not names_values or not ranked or not needs_an_id(ranked[0].chunk):
        return ranked, ""
    apis = tuple(apis) or (ranked[0].chunk.api,)
    lookups = [op for op in operations if is_lookup_operation(op) and op.api in apis]
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
