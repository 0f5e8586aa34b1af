"""The stages that find and order the evidence: first-stage retrieval (with per-API k), reranking, the
order of the pool, the lookup lift, the top k, and the write-operation check."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import ClassVar

from rag.chunk import Chunk
from rag.corpus.profile import profile_for
from rag.errors import ConfigError, RagError
from rag.facts import Fact, RemovedWrite
from rag.index.deferred import part_label, part_strategy
from rag.index.store import Index, Snapshot
from rag.names import names_the_users_own, names_to_look_up
from rag.pipeline.state import Evidence, PipelineState, Ranking, Scope, StageTrace, Step
from rag.query import Query
from rag.question_analysis import FACTS_OF_AN_OPERATION, FOR_AN_OPERATION
from rag.rerank.base import Reranker, RerankerUnavailable, apply_scores
from rag.rerank.llm import LLMReranker
from rag.results import RetrievedChunk
from rag.retrieve.lookup import lift_lookup, names_foreign_values
from rag.retrieve.named_operations import NAMED_SCORE, OperationNames, named_operations, precondition_spans
from rag.retrieve.ordering import (
    balance_by_api,
    collection_listing,
    demote_repeated_covers,
    interleave_by_api,
    schemas_last,
    schemes_in_top,
    shared_headers_in_top,
)
from rag.retrieve.retrievers import Retriever
from rag.retrieve.short_texts import OperationTexts
from rag.versions.asked import removed_writes
from rag.write_check import check_write_operation

MAX_DYNAMIC_K = 10
# Candidates per API for a question about several APIs: each API's are reranked among themselves.
PER_API_POOL = 60


@dataclass(frozen=True)
class Retrieve:
    """The candidate pool (`candidate_pool` of them): the retriever's search over the `chunking` collection and
    the docs, in the APIs the intent filter (or the caller's scope) chose; k is `k`, and with `dynamic_k` a
    multi-API question gets each API's best candidates first and a k that holds them all (per-API k)."""

    retriever: Retriever
    chunking: str
    k: int
    candidate_pool: int
    dynamic_k: bool = False
    # How many operations the operation search adds (those whose short texts are closest to the question:
    # rag.retrieve.short_texts), from `operations_for`'s operations of the searched snapshot; 0: none.
    operation_search: int = 0
    operations_for: Callable[[Snapshot], OperationTexts] | None = None
    name: ClassVar[str] = "retrieve"

    def __post_init__(self) -> None:
        if not 1 <= self.k <= self.candidate_pool:
            raise ConfigError(f"retrieve k={self.k} is not allowed; allowed: 1 to candidate_pool={self.candidate_pool}")

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking: the candidates, the APIs searched (the caller's, else those the intent filter asked for)
        and k."""
        trace, scope, only = StageTrace(self.name), state.scope, state.only_apis
        apis = only or scope.asked_apis
        if only:
            trace.note(f"searched only: {', '.join(only)} (as asked)")
        for part, waiting in self._not_embedded_yet(scope.context.snapshot, apis).items():
            trace.fall_back(f"{part_label(part)} of {', '.join(waiting)} not embedded yet (set aside at ingest so "
                            "that the spec was searchable sooner, now being embedded): searched without them; ask "
                            "again shortly", waiting)
        with trace.timed():
            candidates = self._search(scope, self.candidate_pool, apis)
            if apis and not candidates and not only:
                trace.note("intent filter matched nothing; searched all APIs")
                apis = ()
                candidates = self._search(scope, self.candidate_pool, ())
            candidates += self._operations_found(scope, candidates, apis, trace)
            ranking = Ranking(tuple(candidates), apis, self.k)
            if self.dynamic_k and scope.intent.multi_api and not only:
                ranking = self._shared_among_apis(scope, ranking, trace)
        return ranking, trace.events

    def _not_embedded_yet(self, snapshot: Snapshot, apis: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """Part → the APIs searched (`apis`; none: all) whose chunks of that part of this stage's chunking are set
        aside and not embedded yet (rag.index.deferred)."""
        found = {part: tuple(api for api in waiting if not apis or api in apis)
                 for part, waiting in snapshot.pending.items() if part_strategy(part) == self.chunking}
        return {part: waiting for part, waiting in found.items() if waiting}

    def _operations_found(self, scope: Scope, candidates: Sequence[RetrievedChunk], apis: tuple[str, ...],
                          trace: StageTrace) -> list[RetrievedChunk]:
        """The operations the operation search finds that the retriever did not, after its candidates."""
        if not self.operation_search or self.operations_for is None:
            return []
        ctx = scope.context
        found = self.operations_for(ctx.snapshot).search(ctx.query_vector(scope.query.text), self.operation_search,
                                                         apis)
        present = {c.chunk.chunk_id for c in candidates}
        added = [RetrievedChunk(chunk, {"operation": score}, rank=len(candidates) + n)
                 for n, (chunk, score) in enumerate((f for f in found if f[0].chunk_id not in present), start=1)]
        if added:
            trace.note(f"operation search: {len(added)} operation(s) whose summary or name is close to the question "
                       "joined the candidates")
        return added

    def _search(self, scope: Scope, size: int, apis: tuple[str, ...]) -> list[RetrievedChunk]:
        return self.retriever.retrieve(scope.context, (self.chunking, "docs"), size, apis, scope.query.text)

    def _shared_among_apis(self, scope: Scope, ranking: Ranking, trace: StageTrace) -> Ranking:
        """Each API's best candidates first, k large enough for every API the question spans."""
        intent = scope.intent
        targets = list(intent.apis) if len(intent.apis) >= 2 else scope.context.snapshot.apis()
        per_api = {api: self._search(scope, PER_API_POOL, (api,)) for api in targets}
        k = min(max(self.k, len(targets)), MAX_DYNAMIC_K)
        merged = interleave_by_api(per_api, k)
        rest = [c for api in targets for c in per_api[api]] + list(ranking.candidates)
        first: dict[str, RetrievedChunk] = {}
        for candidate in merged + rest:  # each chunk where it first comes: its API's best lead
            first.setdefault(candidate.chunk.chunk_id, candidate)
        trace.note(f"multi-API question: top results from each of {len(targets)} APIs, k={k}")
        return replace(ranking, candidates=tuple(first.values()), k=k, balanced=tuple(targets))


@dataclass(frozen=True)
class Rerank:
    """The candidates in the order of the reranker `reranker_for` makes for the searched corpus (a multi-API
    question's per API); the first-stage order, noted, when the
    reranker cannot run (`kind` names it then)."""

    reranker_for: Callable[[Snapshot], Reranker]
    kind: str
    name: ClassVar[str] = "rerank"

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking with its candidates reranked within each group that is ranked on its own (and the tokens
        an LLM reranker used)."""
        trace, ranking = StageTrace(self.name), state.ranking
        groups, others = ranking.rank_groups()
        usage: list[tuple[int, int]] = []
        reranked = [c for group in groups for c in self._rerank(state.scope, group, usage, trace)]
        tokens = (sum(used[0] for used in usage), sum(used[1] for used in usage))
        return replace(ranking.reordered(reranked + others), tokens=tokens), trace.events

    def _rerank(self, scope: Scope, pool: list[RetrievedChunk], usage: list[tuple[int, int]],
                trace: StageTrace) -> list[RetrievedChunk]:
        reranker = self.reranker_for(scope.context.snapshot)
        if not pool:
            return pool
        with trace.timed():
            try:
                scores = reranker.score(scope.query, pool)
                # Scored on copies: the candidates given stay as they were.
                pool = apply_scores([c.copy(own_scores=True) for c in pool], scores)
                if isinstance(reranker, LLMReranker):
                    usage.append(reranker.last_usage)
            except RerankerUnavailable as error:
                trace.note(str(error))
                trace.fall_back(f"{self.kind} reranker unavailable: ran without reranking")
            except RagError as error:
                trace.note(f"reranker failed: {error}; first-stage order kept")
        return pool


@dataclass(frozen=True)
class Order:
    """Further parts of a structural id already ranked move to the end (and, with `schemas_last`, component
    schemas after the operations and guides); a multi-API question's top k is shared among its APIs (round
    robin, each API's best first)."""

    schemas_last: bool = False
    name: ClassVar[str] = "order"

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking with its candidates in their final order before the lookup lift (a note says how many
        schemas left the top k for operations)."""
        trace, ranking, query = StageTrace(self.name), state.ranking, state.scope.query
        if not ranking.balanced:
            ordered = self._ordered(list(ranking.candidates), ranking.k, query, trace)
            return ranking.reordered(ordered, self.name), trace.events
        groups, others = ranking.rank_groups()
        ordered = self._ordered([c for group in groups for c in group], ranking.k, query, trace)
        return ranking.reordered(balance_by_api(ordered, ranking.balanced, ranking.k) + others, self.name), trace.events

    def _ordered(self, ranked: list[RetrievedChunk], k: int, query: Query, trace: StageTrace) -> list[RetrievedChunk]:
        ordered = demote_repeated_covers(ranked)
        if not self.schemas_last:
            return ordered
        reordered = schemas_last(ordered, query.text)
        moved = {id(c) for c in ordered[:k]} - {id(c) for c in reordered[:k]}
        if moved:
            trace.note(f"schemas after operations: {len(moved)} schema chunk(s) left the top {k} for operations "
                       "(a schema the question names by its identifier keeps its place)")
        if "header" in query.analysis.asks:
            with_shared = shared_headers_in_top(reordered, k)
            if with_shared != reordered:
                trace.note(f"a header question: the chunk stating the headers the API's operations share joined the "
                           f"top {k}")
            reordered = with_shared
        if "auth" in query.analysis.asks and (with_schemes := schemes_in_top(reordered, k)) != reordered:
            trace.note(f"an authentication question: the overview stating the API's schemes joined the top {k}")
            reordered = with_schemes
        return reordered


@dataclass(frozen=True)
class LookupLift:
    """A request naming values ("play the album Kind of Blue") gets its API's lookup (search) operation on
    top when its best operation takes an id (rag.retrieve.lookup); `index` gives the smart chunks'
    similarities (to the adapted question vector with `adapt`, as the retriever compares them)."""

    index: Index
    adapt: bool = False
    name: ClassVar[str] = "lookup"

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking with the lookup operation first, when the question names values."""
        trace, ranking = StageTrace(self.name), state.ranking
        ctx, query, index = state.scope.context, state.scope.query, self.index
        profile = profile_for(ctx.snapshot)
        if not profile.lookup_operations:
            return ranking, trace.events
        with trace.timed():

            def similarity(chunk: Chunk) -> float:
                searched = ctx.search_vector(query.text, self.adapt)
                return index.similarity("smart", chunk.chunk_id, searched, ctx.snapshot)

            # A value that is the user's own ("my playlist called Workout") is found in their collection; the name of
            # what the request creates, or a date, is looked up nowhere.
            names_values = (names_foreign_values(query.focus, profile, names_to_look_up)
                            and not names_the_users_own(query.focus))
            lookups = profile.lookup_operations
            lifted, note = lift_lookup(ranking.candidates, lookups, names_values, similarity, ranking.apis)
            if note:
                trace.note(note)
        return ranking.led_by(lifted, self.name), trace.events


# How far down a paging question's ranking the listing it asks of may stand (the first five: hit@5).
PAGING_LISTING_WITHIN = 5


@dataclass(frozen=True)
class PagesAsked:
    """A new question asking how to page through results ("how do I page through incidents?") asks of an operation
    that pages: where the first candidate takes no paging parameters, the listing of its own collection (`POST
    /incidents` → `GET /incidents`, `rag.retrieve.ordering.collection_listing`) leads when it pages and stands among
    the first candidates. The lead sentence answers the question from that listing (rag.generate.paging)."""

    name: ClassVar[str] = "paging"

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking with the paging listing first, when the question asks how to page."""
        trace, ranking, query = StageTrace(self.name), state.ranking, state.scope.query
        candidates = list(ranking.candidates)
        if ("pagination" not in query.analysis.asks or query.follows_up or not candidates
                or candidates[0].chunk.kind != "operation" or candidates[0].chunk.pagination is not None):
            return ranking, trace.events
        with trace.timed():
            near = candidates[:PAGING_LISTING_WITHIN]
            listing = collection_listing(candidates[0].chunk, [c.chunk for c in near])
            if listing is None or listing.pagination is None:
                return ranking, trace.events
            lifted = next(c for c in near if c.chunk is listing)
            trace.note(f"a paging question: {listing.title}, the listing of {candidates[0].chunk.title}'s collection, "
                       "pages and leads")
        return ranking.led_by([lifted, *(c for c in candidates if c is not lifted)], self.name), trace.events


@dataclass(frozen=True)
class KeepSubject:
    """A follow-up that names nothing of its own ("and how do I page through them?") asks about the
    conversation's subject (the operation the last answer was about): that operation leads its candidates.

    Behind a ranker that reads the subject itself (`model_knows_subject`: the learned ranker's `subject` and
    `subject_resource` features), a follow-up asking for an operation (`FOR_AN_OPERATION`: "how do I undo that?",
    "how do I add someone to it?") gets the model's order, unless it asks a fact of the subject too (its fields, its
    pages, a limit…: `FACTS_OF_AN_OPERATION`) or the rewrite moved the subject to the operation it points to ("how
    do I get a single one?"); any other ("only the archived ones though", "is it paginated?") is about the
    subject, which leads."""

    model_knows_subject: bool = False
    name: ClassVar[str] = "subject"

    def leads(self, query: Query) -> bool:
        """Whether the query's subject leads its candidates."""
        if not (query.subject and query.keeps_subject):
            return False
        if not self.model_knows_subject or query.moved_subject:
            return True
        asks = query.analysis.asks
        return bool(asks & FACTS_OF_AN_OPERATION) or not (asks & FOR_AN_OPERATION or query.analysis.acts_on_pointed)

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking with the subject's chunk first (fetched from the index when retrieval did not find it)."""
        trace, query, ranking = StageTrace(self.name), state.scope.query, state.ranking
        if not self.leads(query):
            return ranking, trace.events
        snapshot = state.scope.context.snapshot
        present = [c for c in ranking.candidates if c.chunk.covers and c.chunk.covers[0] == query.subject]
        if present:
            subject = present[0]
        else:
            ids = [i for i in snapshot.by_cover.get(query.subject, ()) if snapshot.chunks[i].strategy == "smart"]
            if not ids:
                return ranking, trace.events
            subject = RetrievedChunk(snapshot.chunks[ids[0]], {"subject": 1.0})
        trace.note(f"the conversation's subject {subject.chunk.title} leads: the follow-up names nothing of its own")
        led = [subject, *(c for c in ranking.candidates if c is not subject)]
        return ranking.led_by(led, self.name), trace.events


@dataclass(frozen=True)
class NamedOperations:
    """The operations a question names exactly (`GET /users/{id}`, a path, an operationId such as `crm_get_list`)
    lead its candidates, in the order it names them (those one name covers, such as a path's methods, in the
    ranking's order), each fetched from the index when retrieval did not find it: a developer who names an
    operation means it, whatever a ranker trained on people's words makes of the rest of the question."""

    name: ClassVar[str] = "named"

    def run(self, state: PipelineState) -> Step[Ranking]:
        """The ranking led by the operations the question names (unchanged when it names none)."""
        trace, ranking = StageTrace(self.name), state.ranking
        profile = profile_for(state.scope.context.snapshot)
        names = profile.remembered("operation-names", lambda: OperationNames.of(profile.operations))
        focus = state.scope.query.focus
        groups = named_operations(focus, names)
        if not groups:
            before = [op.title for group in named_operations(focus, names, context=True) for op in group
                      ] if precondition_spans(focus) else []
            if before:
                trace.note(f"the question names {', '.join(before[:3])} as what was done before: not named first")
            return ranking, trace.events
        with trace.timed():
            place = {c.chunk.chunk_id: n for n, c in enumerate(ranking.candidates)}
            found = {c.chunk.chunk_id: c for c in ranking.candidates}
            named: list[RetrievedChunk] = []
            for group in groups:
                for op in sorted(group, key=lambda op: place.get(op.chunk_id, len(place))):
                    present = found.get(op.chunk_id)
                    candidate = present.copy(own_scores=True) if present is not None else RetrievedChunk(op)
                    candidate.scores[NAMED_SCORE] = 1.0
                    named.append(candidate)
            kept = {c.chunk.chunk_id for c in named}
            led = [*named, *(c for c in ranking.candidates if c.chunk.chunk_id not in kept)]
            trace.note("the question names " + ", ".join(c.chunk.title for c in named[:3])
                       + (f" and {len(named) - 3} more" if len(named) > 3 else "") + ": named first")
        return ranking.led_by(led, self.name), trace.events


@dataclass(frozen=True)
class TopK:
    """The evidence the ranking gives: the ranked pool numbered (kept for the record) and its first k, the
    answer's context."""

    name: ClassVar[str] = "top_k"

    def run(self, state: PipelineState) -> Step[Evidence]:
        """The evidence with its pool (numbered copies of the ranked candidates) and its top k (copies again)."""
        ranking = state.ranking
        pool = tuple(c.copy(rank=rank) for rank, c in enumerate(ranking.candidates, start=1))
        return Evidence(pool=pool, top=tuple(c.copy() for c in pool[: ranking.k])), ()


@dataclass(frozen=True)
class WriteCheck:
    """A question asking to create, update or delete what has no such operation gets the fact (and the
    operations that do exist join the context after the ranked chunks); so does a write an older version
    of the API had."""

    name: ClassVar[str] = "write_check"

    def run(self, state: PipelineState) -> Step[Evidence]:
        """The evidence with the facts established and the operations they name added to its chunks."""
        trace, evidence, searched = StageTrace(self.name), state.evidence, state.ranking.apis
        ctx, query = state.scope.context, state.scope.query
        with trace.timed():
            # On an index of several APIs the claim is about the APIs asked about, else those retrieval found.
            apis = searched or tuple(dict.fromkeys(c.chunk.api for c in evidence.top))
            profile = profile_for(ctx.snapshot)
            missing = check_write_operation(query, profile, apis)
            facts: list[Fact] = []
            named: list[Chunk] = []
            if missing is not None:
                trace.note("write check: " + missing.statement())
                named += missing.existing
                facts.append(missing)
            removed = removed_writes(query, chain(profile.operations, profile.changes), searched)
            if removed:
                fact = RemovedWrite(tuple(removed))
                trace.note("write check: " + fact.statement())
                facts.append(fact)
                named += removed
            evidence = replace(evidence, facts=tuple(facts), added=tuple(self._added(evidence.top, named)))
        return evidence, trace.events

    @staticmethod
    def _added(ranked: Sequence[RetrievedChunk], named: list[Chunk]) -> list[RetrievedChunk]:
        """The chunks the facts name that the ranked ones lack, numbered on after them (the ranking itself is the
        retriever's and the reranker's)."""
        present = {c.chunk.chunk_id for c in ranked}
        added: list[RetrievedChunk] = []
        for chunk in named:
            if chunk.chunk_id not in present:
                present.add(chunk.chunk_id)
                added.append(RetrievedChunk(chunk, {"write_check": 1.0}, rank=len(ranked) + len(added) + 1))
        return added
