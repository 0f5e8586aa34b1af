"""The confidence gate as a pipeline stage: gathers the signals `rag.abstain.decide` weighs for one index.

The best similarity to any chunk and to any operation's summary, the similarity to the out-of-scope prototypes
that apply to the index (those an indexed API says it does are set aside, per index generation) and thresholds
calibrated on the index itself; with an LLM configured, the model's verdict on whether the retrieved chunks
answer the question (rag.answerability). It returns the tier, score and reasons as a `GateOutcome`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rag.abstain import GateDecision, GateThresholds, calibrate, decide, out_of_scope_prototypes, thresholds_for
from rag.answerability import LLMAnswerabilityJudge
from rag.chunk import Chunk
from rag.corpus.profile import CorpusProfile, profile_for
from rag.corpus.vocabulary import opening_sentence, operation_gist
from rag.errors import RagError
from rag.generate.named import spells_field
from rag.index.embedder import embed_queries, unit_rows
from rag.index.store import Index
from rag.index.versions import named_version
from rag.llm.base import ChatModel
from rag.query import Query
from rag.results import RetrievedChunk
from rag.retrieve.context import QueryContext

# How many of the retrieved chunks a follow-up may name a field of (the candidates an answer quotes).
SPELT_FIELD_CHUNKS = 5


def spells_a_field(question: str, chunks: Sequence[RetrievedChunk]) -> bool:
    """Whether the question spells the name of a field of one of the first retrieved chunks (`timeFrame` as "time
    frame")."""
    return any(spells_field(named.name, question)
               for found in chunks[:SPELT_FIELD_CHUNKS] for named in found.chunk.every_field())


def best_similarity(ctx: QueryContext, chunking: str) -> float:
    """The best cosine similarity between the context's query and any chunk of `chunking` or the docs."""
    found = (ctx.best_similarity(strategy) for strategy in (chunking, "docs"))
    return max((similarity for similarity in found if similarity is not None), default=0.0)


_MARKUP = re.compile(r"<[^>]+>|\[([^\]]*)\]\([^)]*\)")


def api_statements(chunk: Chunk) -> list[str]:
    """What an API says it does, from its overview chunk: `info.summary` and the opening sentence of
    `info.description` (markup dropped). The sentences after it say how to use the API, its limits and plans
    and whom to contact: on the thirteen public APIs, LanguageTool's "Just contact us." and its plans set aside
    or met off-topic requests. Empty for any other chunk."""
    if chunk.kind != "overview":
        return []
    description = " ".join(_MARKUP.sub(lambda m: m.group(1) or " ", chunk.description).split())
    opening = opening_sentence(description)
    return [text for text in (chunk.summary.strip(), opening) if text]


@dataclass(frozen=True)
class SetAside:
    """An off-topic prototype an indexed API says it does: the API's text it matches and how closely."""

    prototype: str
    similarity: float
    api: str
    text: str

    def note(self) -> str:
        """`"What is the square root…" (0.42 to calc: "A calculator service…")`."""
        return f'"{_short(self.prototype)}" ({self.similarity:.2f} to {self.api}: "{_short(self.text)}")'


def _short(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class IndexScope:
    """What one index generation covers, as the gate compares questions with it: the short texts (operation
    summaries in words, docs section titles) with their vectors, and the off-topic prototypes that apply to it,
    those an API says it does set aside with the reason."""

    texts: tuple[str, ...] = ()
    vectors: Any = ()
    prototypes: tuple[str, ...] = ()
    prototype_vectors: Any = ()
    set_aside: tuple[SetAside, ...] = ()


def set_aside_prototypes(
    prototype_vectors: Any, said_vectors: Any, cut_off: float
) -> list[tuple[int, int, float]]:
    """The prototypes an index does: (prototype row, text row, similarity) for each prototype at least
    `cut_off` similar to one of the texts in which the index's APIs say what they do, and nearer to it than to
    any other prototype (its nearest neighbour is something an API does, not another off-topic request)."""
    if len(prototype_vectors) == 0 or len(said_vectors) == 0:
        return []
    to_index = prototype_vectors @ said_vectors.T
    among = prototype_vectors @ prototype_vectors.T
    np.fill_diagonal(among, -1.0)
    nearest_prototype = among.max(axis=1) if len(prototype_vectors) > 1 else np.full(len(prototype_vectors), -1.0)
    best, where = to_index.max(axis=1), to_index.argmax(axis=1)
    return [
        (row, int(where[row]), float(best[row]))
        for row in range(len(prototype_vectors))
        if best[row] >= cut_off and best[row] > nearest_prototype[row]
    ]


@dataclass
class GateOutcome:
    """What the gate decided for one question, with its notes, the judge's tokens and the time it took."""

    decision: GateDecision
    notes: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    ms: float = 0.0
    verdict: str = ""  # the LLM judge's answerability verdict (yes, partly, no); "" when no judge ruled


@dataclass
class ConfidenceGate:
    """The gate of one index. `thresholds` fixes the cut-offs (else they are calibrated per index
    generation)."""

    index: Index
    thresholds: GateThresholds | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _prototypes: Any = field(default=None, init=False, repr=False)
    _calibrated: dict[tuple[int, str], GateThresholds] = field(default_factory=dict, init=False, repr=False)
    _scopes: dict[tuple[int, str], IndexScope] = field(default_factory=dict, init=False, repr=False)

    def apply(
        self,
        chunking: str,
        query: Query,
        ctx: QueryContext,
        asked: str,
        known: AbstractSet[str],
        chunks: Sequence[RetrievedChunk] = (),
        chat_model: ChatModel | None = None,
    ) -> GateOutcome:
        """Gate `query` (`asked`: the question as the user wrote it) and return the tier, score, reasons
        and time. `known` are words the engine understands beyond the index (an applied glossary's); given a
        `chat_model`, it also judges whether `chunks` answer the question."""
        started = time.perf_counter()
        standalone, searched = query.standalone, query.searched
        top_similarity = best_similarity(ctx, chunking)
        out_of_scope = ctx.memo(
            ("out-of-scope", chunking, searched), lambda: self.out_of_scope_similarity(ctx, searched, chunking)
        )
        profile, thresholds = profile_for(ctx.snapshot), self.thresholds_for(ctx, chunking)
        summary = ctx.memo(
            ("operation-summary", chunking, searched), lambda: self.summary_similarity(ctx, chunking, searched)
        )
        asks_changes = bool(named_version(query.focus, ctx.index.documents))
        decision = decide(query, top_similarity, profile, thresholds, out_of_scope, known, summary_similarity=summary,
                          asks_changes=asks_changes)
        asked = asked.strip()
        if decision.tier != "abstain" and asked and asked != standalone and not spells_a_field(asked, chunks):
            # A rewritten follow-up borrows the earlier turn's words; the question as asked must be in scope
            # too ("What's the weather in Berlin?" at turn 4). Low similarity alone does not count for it:
            # a follow-up is elliptical by nature. One that spells a field of what was found asks about it ("what's
            # the default time frame?" after generating a meal plan: `timeFrame`), however near an off-topic request.
            own = self.asked_decision(chunking, asked, profile, thresholds, known)
            if own is not None:
                decision = own
        outcome = GateOutcome(decision)
        if decision.tier != "abstain" and chat_model is not None and chunks:
            outcome = self.judged(decision, query.focus, chunks, chat_model)
        outcome.notes.append(f"confidence gate: {outcome.decision.tier} ({'; '.join(outcome.decision.reasons)})")
        set_aside = self.scope(ctx, chunking).set_aside
        if set_aside:
            outcome.notes.append(
                f"off-topic prototypes set aside, an indexed API says it does them ({len(set_aside)}): "
                + "; ".join(entry.note() for entry in set_aside)
            )
        outcome.ms = round((time.perf_counter() - started) * 1000.0, 3)
        return outcome

    @staticmethod
    def judged(
        decision: GateDecision, question: str, chunks: Sequence[RetrievedChunk], chat_model: ChatModel
    ) -> GateOutcome:
        """The outcome after the LLM's answerability verdict: `no` abstains, `partly` is partial, `yes`
        keeps the evidence's tier. A failing model leaves the decision as it was (noted)."""
        try:
            verdict = LLMAnswerabilityJudge(chat_model).judge(question, chunks)
        except RagError as error:
            return GateOutcome(decision, [f"answerability judge failed: {error}; the similarity gate decides alone"])
        reason = f"LLM: {verdict.verdict}" + (f" ({verdict.reason})" if verdict.reason else "")
        if verdict.verdict == "no":
            reasons = (*decision.reasons, reason)
            judged = replace(decision, tier="abstain", score=min(decision.score, 0.3), reasons=reasons)
        else:
            tier = "partial" if verdict.verdict == "partly" else decision.tier
            judged = replace(decision, tier=tier, reasons=(*decision.reasons, reason))
        return GateOutcome(judged, tokens_in=verdict.tokens_in, tokens_out=verdict.tokens_out,
                           verdict=verdict.verdict)

    def asked_decision(
        self, chunking: str, asked: str, profile: CorpusProfile, thresholds: GateThresholds, known: AbstractSet[str]
    ) -> GateDecision | None:
        """The gate's abstention on the question as asked, when it rests on positive evidence; else None."""
        probe = QueryContext(self.index, asked)
        out_of_scope = self.out_of_scope_similarity(probe, asked, chunking)
        top, summary = best_similarity(probe, chunking), self.summary_similarity(probe, chunking, asked)
        own = decide(asked, top, profile, thresholds, out_of_scope, known, elliptical=True, summary_similarity=summary)
        if own.tier != "abstain":
            return None
        return replace(own, reasons=(*own.reasons, "judged on the question as asked"))

    def thresholds_for(self, ctx: QueryContext, chunking: str) -> GateThresholds:
        """The thresholds for this index: given ones, else the model's calibrated on the index itself
        (how similar the out-of-scope prototypes are to its chunks; computed once per index generation)."""
        if self.thresholds is not None:
            return self.thresholds
        return self._per_generation(self._calibrated, ctx, chunking, lambda: self._calibrate(ctx, chunking))

    def _calibrate(self, ctx: QueryContext, chunking: str) -> GateThresholds:
        # Only the prototypes that apply to this index are off-topic for it; each was embedded once, in one batch.
        scope = self.scope(ctx, chunking)
        similarities = []
        for prototype, vector in zip(scope.prototypes, scope.prototype_vectors, strict=True):
            probe = QueryContext(self.index, prototype)
            probe.memo(("embed", prototype), lambda vector=vector: vector)
            similarities.append(best_similarity(probe, chunking))
        return calibrate(thresholds_for(self.index.embedder.name), similarities)

    def _per_generation(self, cache: dict[tuple[int, str], Any], ctx: QueryContext, chunking: str,
                        compute: Callable[[], Any]) -> Any:
        """`cache`'s value for the context's index generation and chunking, computed once (a few kept)."""
        key = (ctx.snapshot.generation, chunking)
        with self._lock:
            if key in cache:
                return cache[key]
        value = compute()
        with self._lock:
            if len(cache) > 8:
                cache.clear()
            cache[key] = value
        return value

    def summary_similarity(self, ctx: QueryContext, chunking: str, query: str) -> float | None:
        """Best cosine similarity between the query and the short texts that say what the index covers: its
        operations' summaries (in words: `operation_gist`) and, beside them, its docs' section titles (None
        without operations: the check was measured on operation summaries). A summary is a short text like a
        question, so the two compare like with like; a whole chunk is long and scores middling for every
        question. Embedded once per index generation (a pinned version's view has its own)."""
        vectors = self.scope(ctx, chunking).vectors
        if len(vectors) == 0:
            return None
        return float((vectors @ ctx.query_vector(query)).max())

    def scope(self, ctx: QueryContext, chunking: str) -> IndexScope:
        """What the context's index generation covers and the off-topic prototypes that apply to it (computed
        once per generation and chunking)."""
        return self._per_generation(self._scopes, ctx, chunking, lambda: self._scope(ctx, chunking))

    def _scope(self, ctx: QueryContext, chunking: str) -> IndexScope:
        chunks = list(ctx.snapshot.chunks.values())
        prototypes, prototype_vectors = out_of_scope_prototypes(), self.prototype_vectors(ctx)
        texts = [operation_gist(c) for c in chunks if c.kind == "operation" and c.strategy == chunking]
        if not texts:
            return IndexScope(prototypes=prototypes, prototype_vectors=prototype_vectors)
        texts = list(dict.fromkeys(texts + [c.title for c in chunks if c.kind == "doc" and c.title]))
        said = list(dict.fromkeys((c.api, text) for c in chunks if c.strategy == chunking
                                  for text in api_statements(c)))
        # The index's embedder keeps the vectors in its persistent cache: the next process reads them back.
        embedded = self.index.embedder.embed(texts + [text for _, text in said])
        vectors = unit_rows(np.asarray(embedded, dtype=np.float32))
        # A prototype is set aside on what an API says it does as a whole, not on one operation's summary: a
        # summary shares a noun with an everyday request too easily (StackOne CRM's "Get Contact" and "How do
        # I contact customer support?", Giphy's "Translate phrase to GIF" and a translation request). The
        # statements stay out of the summary check: "The documentation for the StackOne Unified API - HRIS"
        # meets every question that names StackOne (the dev set's pricing, GraphQL and self-hosting requests).
        cut_off = (self.thresholds or thresholds_for(self.index.embedder.name)).out_of_scope_floor
        found = set_aside_prototypes(prototype_vectors, vectors[len(texts):], cut_off)
        aside = {row for row, _, _ in found}
        kept = [row for row in range(len(prototypes)) if row not in aside]
        return IndexScope(
            texts=tuple(texts),
            vectors=vectors[: len(texts)],
            prototypes=tuple(prototypes[row] for row in kept),
            prototype_vectors=prototype_vectors[kept],
            set_aside=tuple(SetAside(prototypes[row], round(sim, 4), *said[col]) for row, col, sim in found),
        )

    def prototype_vectors(self, ctx: QueryContext) -> Any:
        """The out-of-scope prototypes embedded as questions (once)."""
        with self._lock:
            prototypes = self._prototypes
            if prototypes is None:
                vectors = embed_queries(ctx.embedder, list(out_of_scope_prototypes()))
                prototypes = self._prototypes = unit_rows(np.asarray(vectors, dtype=np.float32))
        return prototypes

    def out_of_scope_similarity(self, ctx: QueryContext, query: str, chunking: str = "smart") -> float:
        """Best cosine similarity between the query and the out-of-scope prototypes that apply to the index
        (0.0 when the index does them all)."""
        vectors = self.scope(ctx, chunking).prototype_vectors
        if len(vectors) == 0:
            return 0.0
        return float((vectors @ ctx.query_vector(query)).max())
