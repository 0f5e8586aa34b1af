"""The stages that find and order the evidence: first-stage retrieval (with per-API k), reranking, the
order of the pool, the lookup lift, the top k, and the write-operation check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar

from rag.chunk import Chunk
from rag.corpus.profile import profile_for
from rag.errors import ConfigError, RagError
from rag.facts import Fact, RemovedWrite
from rag.index.store import Index, Snapshot
from rag.names import names_the_users_own
from rag.pipeline.state import PipelineState
from rag.rerank.base import Reranker, RerankerUnavailable, apply_scores
from rag.rerank.llm import LLMReranker
from rag.rerank.structural import StructuralReranker
from rag.results import RetrievedChunk
from rag.retrieve.lookup import lift_lookup, names_foreign_values
from rag.retrieve.ordering import balance_by_api, demote_repeated_covers, interleave_by_api, schemas_last
from rag.retrieve.retrievers import Retriever
from rag.versions.asked import removed_writes
from rag.write_check import check_write_operation

MAX_DYNAMIC_K = 10
# Candidates per API for a question about several APIs: each API's are reranked among themselves, where the
# structural evidence is not fused with the first-stage order (it misleads across APIs, not within one).
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
    name: ClassVar[str] = "retrieve"

    def __post_init__(self) -> None:
        if not 1 <= self.k <= self.candidate_pool:
            raise ConfigError(f"retrieve k={self.k} is not allowed; allowed: 1 to candidate_pool={self.candidate_pool}")

    def run(self, state: PipelineState) -> PipelineState:
        """The state with its candidates, the APIs searched (the caller's scope, else those the intent filter
        asked for) and k."""
        apis = state.scope or state.asked_apis
        if state.scope:
            state.note(self.name, f"searched only: {', '.join(state.scope)} (as asked)")
        with state.timed(self.name):
            candidates = self._search(state, self.candidate_pool, apis)
            if apis and not candidates and not state.scope:
                state.note(self.name, "intent filter matched nothing; searched all APIs")
                apis = ()
                candidates = self._search(state, self.candidate_pool, ())
            state.apis, state.candidates = apis, candidates
            state.k = self.k
            if self.dynamic_k and state.intent.multi_api and not state.scope:
                self._share_among_apis(state)
        return state

    def _search(self, state: PipelineState, size: int, apis: tuple[str, ...]) -> list[RetrievedChunk]:
        return self.retriever.retrieve(state.context, (self.chunking, "docs"), size, apis, state.query.text)

    def _share_among_apis(self, state: PipelineState) -> None:
        """Each API's best candidates first, k large enough for every API the question spans."""
        intent = state.intent
        targets = list(intent.apis) if len(intent.apis) >= 2 else state.context.snapshot.apis()
        per_api = {api: self._search(state, PER_API_POOL, (api,)) for api in targets}
        state.k = min(max(self.k, len(targets)), MAX_DYNAMIC_K)
        merged = interleave_by_api(per_api, state.k)
        rest = [c for api in targets for c in per_api[api]] + state.candidates
        first: dict[str, RetrievedChunk] = {}
        for candidate in merged + rest:  # each chunk where it first comes: its API's best lead
            first.setdefault(candidate.chunk.chunk_id, candidate)
        state.candidates = list(first.values())
        state.balanced = tuple(targets)
        state.note(self.name, f"multi-API question: top results from each of {len(targets)} APIs, k={state.k}")


@dataclass(frozen=True)
class Rerank:
    """The candidates in the order of the reranker `reranker_for` makes for the searched corpus (a multi-API
    question's per API, where the structural evidence decides alone); the first-stage order, noted, when the
    reranker cannot run (`kind` names it then)."""

    reranker_for: Callable[[Snapshot], Reranker]
    kind: str
    name: ClassVar[str] = "rerank"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with its candidates reranked within each group that is ranked on its own (and the tokens
        an LLM reranker used)."""
        groups, others = state.rank_groups()
        usage: list[tuple[int, int]] = []
        reranked = [c for group in groups for c in self._rerank(state, group, bool(state.balanced), usage)]
        state.candidates = reranked + others
        state.rerank_tokens = (sum(used[0] for used in usage), sum(used[1] for used in usage))
        return state

    def _rerank(self, state: PipelineState, pool: list[RetrievedChunk], one_api: bool,
                usage: list[tuple[int, int]]) -> list[RetrievedChunk]:
        reranker = self.reranker_for(state.context.snapshot)
        if one_api and isinstance(reranker, StructuralReranker):
            reranker = replace(reranker, fusion_k=0)
        if not pool:
            return pool
        with state.timed(self.name):
            try:
                pool = apply_scores(pool, reranker.score(state.query, pool))
                if isinstance(reranker, LLMReranker):
                    usage.append(reranker.last_usage)
            except RerankerUnavailable as error:
                state.note(self.name, str(error))
                state.fall_back(self.name, f"{self.kind} reranker unavailable: ran without reranking")
            except RagError as error:
                state.note(self.name, f"reranker failed: {error}; first-stage order kept")
        return pool


@dataclass(frozen=True)
class Order:
    """Further parts of a structural id already ranked move to the end (and, with `schemas_last`, component
    schemas after the operations and guides); a multi-API question's top k is shared among its APIs (round
    robin, each API's best first)."""

    schemas_last: bool = False
    name: ClassVar[str] = "order"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with its candidates in their final order before the lookup lift (a note says how many
        schemas left the top k for operations)."""
        if not state.balanced:
            state.candidates = self._ordered(state, state.candidates)
            return state
        groups, others = state.rank_groups()
        ordered = self._ordered(state, [c for group in groups for c in group])
        state.candidates = balance_by_api(ordered, state.balanced, state.k) + others
        return state

    def _ordered(self, state: PipelineState, ranked: list[RetrievedChunk]) -> list[RetrievedChunk]:
        ordered = demote_repeated_covers(ranked)
        if not self.schemas_last:
            return ordered
        reordered = schemas_last(ordered, state.query.text)
        moved = {id(c) for c in ordered[: state.k]} - {id(c) for c in reordered[: state.k]}
        if moved:
            state.note(self.name, f"schemas after operations: {len(moved)} schema chunk(s) left the top "
                       f"{state.k} for operations (a schema the question names by its identifier keeps its place)")
        return reordered


@dataclass(frozen=True)
class LookupLift:
    """A request naming values ("play the album Kind of Blue") gets its API's lookup (search) operation on
    top when its best operation takes an id (rag.retrieve.lookup); `index` gives the smart chunks'
    similarities."""

    index: Index
    name: ClassVar[str] = "lookup"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the lookup operation first, when the question names values."""
        ctx, query, index = state.context, state.query, self.index
        profile = profile_for(ctx.snapshot)
        if not profile.lookup_operations:
            return state
        with state.timed(self.name):

            def similarity(chunk: Chunk) -> float:
                return index.similarity("smart", chunk.chunk_id, ctx.query_vector(query.text), ctx.snapshot)

            # A value that is the user's own ("my playlist called Workout") is found in their collection.
            names_values = names_foreign_values(query.focus, profile) and not names_the_users_own(query.focus)
            lookups = profile.lookup_operations
            lifted, note = lift_lookup(state.candidates, lookups, names_values, similarity, state.apis)
            if note:
                state.note(self.name, note)
            state.candidates = lifted
        return state


@dataclass(frozen=True)
class KeepSubject:
    """A follow-up that names nothing of its own ("and how do I page through them?") asks about the
    conversation's subject (the operation the last answer was about): that operation leads its candidates."""

    name: ClassVar[str] = "subject"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the subject's chunk first (fetched from the index when retrieval did not find it)."""
        query = state.query
        if not (query.subject and query.keeps_subject):
            return state
        snapshot = state.context.snapshot
        present = [c for c in state.candidates if c.chunk.covers and c.chunk.covers[0] == query.subject]
        if present:
            subject = present[0]
        else:
            ids = [i for i in snapshot.by_cover.get(query.subject, ()) if snapshot.chunks[i].strategy == "smart"]
            if not ids:
                return state
            subject = RetrievedChunk(snapshot.chunks[ids[0]], {"subject": 1.0})
        state.candidates = [subject, *(c for c in state.candidates if c is not subject)]
        state.note(self.name, f"the conversation's subject {subject.chunk.title} leads: the follow-up names "
                   "nothing of its own")
        return state


@dataclass(frozen=True)
class TopK:
    """The ranked pool (numbered, kept for the record) and its first k, the answer's context."""

    name: ClassVar[str] = "top_k"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with its pool numbered and its chunks the top k."""
        for rank, candidate in enumerate(state.candidates, start=1):
            candidate.rank = rank
        state.pool = list(state.candidates)
        state.chunks = [replace(c) for c in state.candidates[: state.k]]
        return state


@dataclass(frozen=True)
class WriteCheck:
    """A question asking to create, update or delete what has no such operation gets the fact (and the
    operations that do exist join the context after the ranked chunks); so does a write an older version
    of the API had."""

    name: ClassVar[str] = "write_check"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the facts established and the operations they name in its chunks."""
        ctx, query = state.context, state.query
        with state.timed(self.name):
            # On an index of several APIs the claim is about the APIs asked about, else those retrieval found.
            apis = state.apis or tuple(dict.fromkeys(c.chunk.api for c in state.chunks))
            missing = check_write_operation(query, profile_for(ctx.snapshot), apis)
            facts: list[Fact] = []
            named: list[Chunk] = []
            if missing is not None:
                state.note(self.name, "write check: " + missing.statement())
                named += missing.existing
                facts.append(missing)
            removed = removed_writes(query, ctx.snapshot.chunks.values(), state.apis)
            if removed:
                fact = RemovedWrite(tuple(removed))
                state.note(self.name, "write check: " + fact.statement())
                facts.append(fact)
                named += removed
            state.facts, state.added = facts, self._added(state.chunks, named)
        return state

    @staticmethod
    def _added(ranked: list[RetrievedChunk], named: list[Chunk]) -> list[RetrievedChunk]:
        """The chunks the facts name that the ranked ones lack, numbered on after them (the ranking itself is the
        retriever's and the reranker's)."""
        present = {c.chunk.chunk_id for c in ranked}
        added: list[RetrievedChunk] = []
        for chunk in named:
            if chunk.chunk_id not in present:
                present.add(chunk.chunk_id)
                added.append(RetrievedChunk(chunk, {"write_check": 1.0}, rank=len(ranked) + len(added) + 1))
        return added
