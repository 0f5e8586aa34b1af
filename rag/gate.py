"""The confidence gate as a pipeline stage: gathers the signals `rag.abstain.decide` weighs for one index.

The best similarity to any chunk and to any operation's summary, the similarity to the out-of-scope
prototypes and thresholds calibrated on the index itself; with an LLM configured, the model's verdict on
whether the retrieved chunks answer the question (rag.answerability). It returns the tier, score and
reasons as a `GateOutcome`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rag.abstain import GateDecision, GateThresholds, calibrate, decide, out_of_scope_prototypes, thresholds_for
from rag.answerability import LLMAnswerabilityJudge
from rag.chunk import Chunk
from rag.corpus.profile import CorpusProfile, profile_for
from rag.corpus.vocabulary import readable_name
from rag.errors import RagError
from rag.index.embedder import embed_queries
from rag.index.store import Index
from rag.query import Query
from rag.results import RetrievedChunk
from rag.retrieve.context import QueryContext


def best_similarity(ctx: QueryContext, chunking: str) -> float:
    """The best cosine similarity between the context's query and any chunk of `chunking` or the docs."""
    pools = [ctx.vector_pool(strategy, (), ctx.query) for strategy in (chunking, "docs")]
    return max((pool[0][1] for pool in pools if pool), default=0.0)


def operation_gist(chunk: Chunk) -> str:
    """What an operation does, as the gate compares it with a question: its summary, spelled out in words when
    the spec wrote an identifier there (`getLatestCountryDataByName` → "get latest country data by name", which
    an embedding model reads as words), else `METHOD /path`."""
    return readable_name(chunk.summary) if chunk.summary else chunk.title


@dataclass
class GateOutcome:
    """What the gate decided for one question, with its notes, the judge's tokens and the time it took."""

    decision: GateDecision
    notes: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    ms: float = 0.0


@dataclass
class ConfidenceGate:
    """The gate of one index. `thresholds` fixes the cut-offs (else they are calibrated per index
    generation)."""

    index: Index
    thresholds: GateThresholds | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _prototypes: Any = field(default=None, init=False, repr=False)
    _calibrated: dict[tuple[int, str], GateThresholds] = field(default_factory=dict, init=False, repr=False)
    _summaries: dict[tuple[int, str], Any] = field(default_factory=dict, init=False, repr=False)

    def apply(
        self,
        chunking: str,
        query: Query,
        ctx: QueryContext,
        asked: str,
        known: set[str],
        chunks: Sequence[RetrievedChunk] = (),
        chat_model: Any | None = None,
    ) -> GateOutcome:
        """Gate `query` (`asked`: the question as the user wrote it) and return the tier, score, reasons
        and time. `known` are words the engine understands beyond the index (an applied glossary's); given a
        `chat_model`, it also judges whether `chunks` answer the question."""
        started = time.perf_counter()
        standalone = query.standalone
        top_similarity = best_similarity(ctx, chunking)
        out_of_scope = ctx.memo(("out-of-scope", standalone), lambda: self.out_of_scope_similarity(ctx, standalone))
        profile, thresholds = profile_for(ctx.snapshot), self.thresholds_for(ctx, chunking)
        summary = ctx.memo(
            ("operation-summary", chunking, standalone), lambda: self.summary_similarity(ctx, chunking, standalone)
        )
        decision = decide(query, top_similarity, profile, thresholds, out_of_scope, known, summary_similarity=summary)
        asked = asked.strip()
        if decision.tier != "abstain" and asked and asked != standalone:
            # A rewritten follow-up borrows the earlier turn's words; the question as asked must be in scope
            # too ("What's the weather in Berlin?" at turn 4). Low similarity alone does not count for it:
            # a follow-up is elliptical by nature.
            own = self.asked_decision(chunking, asked, profile, thresholds, known)
            if own is not None:
                decision = own
        outcome = GateOutcome(decision)
        if decision.tier != "abstain" and chat_model is not None and chunks:
            outcome = self.judged(decision, query.focus, chunks, chat_model)
        outcome.notes.append(f"confidence gate: {outcome.decision.tier} ({'; '.join(outcome.decision.reasons)})")
        outcome.ms = round((time.perf_counter() - started) * 1000.0, 3)
        return outcome

    @staticmethod
    def judged(
        decision: GateDecision, question: str, chunks: Sequence[RetrievedChunk], chat_model: Any
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
        return GateOutcome(judged, tokens_in=verdict.tokens_in, tokens_out=verdict.tokens_out)

    def asked_decision(
        self, chunking: str, asked: str, profile: CorpusProfile, thresholds: GateThresholds, known: set[str]
    ) -> GateDecision | None:
        """The gate's abstention on the question as asked, when it rests on positive evidence; else None."""
        probe = QueryContext(self.index, asked)
        out_of_scope = self.out_of_scope_similarity(probe, asked)
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
        return self._per_generation(self._calibrated, ctx, chunking, lambda: self._calibrate(chunking))

    def _calibrate(self, chunking: str) -> GateThresholds:
        similarities = []
        for prototype, vector in zip(out_of_scope_prototypes(), self._prototype_vectors(None), strict=True):
            probe = QueryContext(self.index, prototype)
            probe.memo(("embed", prototype), lambda vector=vector: vector)  # embedded once, in one batch
            similarities.append(best_similarity(probe, chunking))
        return calibrate(thresholds_for(self.index.embedder.name), similarities)

    def _prototype_vectors(self, ctx: QueryContext | None) -> Any:
        """The out-of-scope prototypes embedded as questions (once per gate, in one batch)."""
        with self._lock:
            if self._prototypes is None:
                embedder = ctx.embedder if ctx is not None else QueryContext(self.index, "").embedder
                self._prototypes = embed_queries(embedder, list(out_of_scope_prototypes()))
            return self._prototypes

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
        operations' summaries and, beside them, its docs' section titles (None without operations: the check
        was measured on operation summaries). A summary is a short text like a question, so the two compare
        like with like; a whole chunk is long and scores middling for every question. Embedded once per
        index generation (a pinned version's view has its own)."""
        summaries = self._per_generation(self._summaries, ctx, chunking, lambda: self._embed_summaries(ctx, chunking))
        if len(summaries) == 0:
            return None
        return float((summaries @ ctx.query_vector(query)).max())

    def _embed_summaries(self, ctx: QueryContext, chunking: str) -> Any:
        chunks = ctx.snapshot.chunks.values()
        texts = [operation_gist(c) for c in chunks if c.kind == "operation" and c.strategy == chunking]
        if not texts:
            return ()
        texts += [c.title for c in chunks if c.kind == "doc" and c.title]
        # The index's embedder keeps the vectors in its persistent cache: the next process reads them back.
        return self.index.embedder.embed(list(dict.fromkeys(texts)))

    def out_of_scope_similarity(self, ctx: QueryContext, query: str) -> float:
        """Best cosine similarity between the query and the out-of-scope prototypes."""
        return float((self._prototype_vectors(ctx) @ ctx.query_vector(query)).max())
