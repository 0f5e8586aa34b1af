"""What travels through the pipeline: one typed state that every stage takes and returns, and the stage
interface itself.

The state carries the query, the candidates with their scores, the facts the checks established and the
trace (stage, time, note, fallback). `AnswerResult` is made from it once, when the stages are done.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from rag.facts import Fact
from rag.generate.base import Generation
from rag.query import Query
from rag.results import AnswerResult, Confidence, RetrievedChunk
from rag.retrieve.context import QueryContext
from rag.retrieve.intent import Intent


@dataclass(frozen=True)
class TraceEvent:
    """What one stage reports: its time in milliseconds (None when it reports none), a note for the reader,
    a fallback (what the config asked for but could not do here)."""

    stage: str
    ms: float | None = None
    note: str = ""
    fallback: str = ""


@dataclass
class PipelineState:
    """One question on its way through one configuration's stages; each field has one writer, but for the
    query (the rewrite, then the glossary expansion), the candidates (ranked by each ranking stage in turn) and
    the trace (every stage's events).

    The intent filter asks to search `asked_apis`; retrieval writes the APIs it searched (`apis`), `k`, the
    ranked candidate pool (`candidates`) and `balanced` (the APIs a multi-API question shares its top k among);
    the top k stage writes `pool` (the pool as finally ranked, kept for the record) and `chunks` (the top k);
    the write check the operations its facts name (`added`); the gate the tier and its tokens; the reranker
    its tokens; generation the answer.
    """

    config: str  # the configuration's name
    question: str
    query: Query
    history: Sequence[Mapping[str, str]] = ()
    scope: tuple[str, ...] = ()
    retrieval_only: bool = False
    ctx: QueryContext | None = None
    contexts: dict[str, QueryContext] | None = None
    intent: Intent = field(default_factory=Intent)
    asked_apis: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()
    k: int = 0
    balanced: tuple[str, ...] = ()
    candidates: list[RetrievedChunk] = field(default_factory=list)
    pool: list[RetrievedChunk] = field(default_factory=list)
    chunks: list[RetrievedChunk] = field(default_factory=list)
    added: list[RetrievedChunk] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    trace: list[TraceEvent] = field(default_factory=list)
    confidence: Confidence = "answer"
    confidence_score: float = 0.0
    rerank_tokens: tuple[int, int] = (0, 0)
    gate_tokens: tuple[int, int] = (0, 0)
    generation: Generation | None = None
    generator: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def evidence(self) -> list[RetrievedChunk]:
        """The context for the answer: the top k, then the operations a fact names."""
        return [*self.chunks, *self.added]

    @property
    def context(self) -> QueryContext:
        """The query context (the embedding and the candidate pools); set by the embed stage."""
        if self.ctx is None:
            raise RuntimeError("PipelineState.ctx is None: the embed stage makes it before any stage searches")
        return self.ctx

    def note(self, stage: str, text: str) -> None:
        """Record a note the views show under the answer."""
        self.trace.append(TraceEvent(stage, note=text))

    def fall_back(self, stage: str, text: str) -> None:
        """Record that the config could not do what it asked for here."""
        self.trace.append(TraceEvent(stage, fallback=text))

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Time the block as `stage` (the time is recorded even when the block raises)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.trace.append(TraceEvent(stage, ms=round((time.perf_counter() - started) * 1000.0, 3)))

    def rank_groups(self) -> tuple[list[list[RetrievedChunk]], list[RetrievedChunk]]:
        """The candidates in the lists that are ranked among themselves, and the rest: one list for a
        question about one API; for a multi-API question one per API (in the order of its best candidate)
        and the candidates of other APIs apart."""
        if not self.balanced:
            return [self.candidates], []
        groups = [[c for c in self.candidates if c.chunk.api == api] for api in self.balanced]
        groups.sort(key=lambda group: self.candidates.index(group[0]) if group else len(self.candidates))
        others = [c for c in self.candidates if c.chunk.api not in self.balanced]
        return groups, others

    def to_result(self) -> AnswerResult:
        """The answer result this state explains (notes, fallbacks and timings from the trace, tokens summed over
        the reranker, the gate and generation), assembled here and nowhere else."""
        timings: dict[str, float] = {}
        for event in self.trace:
            if event.ms is not None:
                timings[event.stage] = timings.get(event.stage, 0.0) + event.ms
        generation = self.generation or Generation(answer="", generator=self.generator)
        return AnswerResult(
            config=self.config,
            question=self.question,
            standalone_query=self.query.standalone,
            answer=generation.answer,
            abstained=generation.abstained,
            confidence="abstain" if generation.abstained else self.confidence,
            confidence_score=self.confidence_score,
            citations=list(generation.citations),
            dropped_citations=generation.dropped_citations,
            reasoning_steps=list(generation.reasoning_steps),
            chunks=self.evidence,
            pool=list(self.pool),
            detected_apis=list(self.apis),
            timings_ms=timings,
            tokens_in=self.rerank_tokens[0] + self.gate_tokens[0] + generation.tokens_in,
            tokens_out=self.rerank_tokens[1] + self.gate_tokens[1] + generation.tokens_out,
            generator=generation.generator,
            retrieval_only=self.retrieval_only,
            notes=[event.note for event in self.trace if event.note],
            facts=[fact.statement() for fact in self.facts],
            errors=list(self.errors),
            fallbacks=[event.fallback for event in self.trace if event.fallback],
            query=self.query,
        )


class Stage(Protocol):
    """One step of the pipeline, made once by `rag.pipeline.build.build_pipeline` with its own settings and
    models: it takes the state and returns it."""

    name: ClassVar[str]

    def run(self, state: PipelineState) -> PipelineState:
        """The state after this stage."""
        ...
