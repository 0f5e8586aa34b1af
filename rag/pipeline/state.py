"""What travels through the pipeline: the question, and the small frozen outputs of the stages, grouped by role.

A stage takes the (frozen) `PipelineState` and returns its group's output with its trace events beside it —
`(output, events)`, a `Step` — and changes nothing it was given; the pipeline puts the output in its place and
the events at the end of the trace (`PipelineState.after`):

- `Scope`: what is asked and where (rewrite, embed, glossary expansion, intent filter);
- `Ranking`: the ranked candidate pool (retrieve, rerank, order, lookup lift, conversation subject);
- `Evidence`: what the answer stands on (top k, write check, gate);
- `Answer`: the generation (generate).

`AnswerResult` is assembled from them once, when the stages are done (`PipelineState.to_result`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import ClassVar, Protocol, TypeVar

from rag.facts import Fact
from rag.generate.base import Generation
from rag.query import Query
from rag.results import AnswerResult, Confidence, RetrievedChunk, placed_ahead
from rag.retrieve.context import QueryContext
from rag.retrieve.intent import Intent


@dataclass(frozen=True)
class TraceEvent:
    """What one stage reports: its time in milliseconds (None when it reports none), a note for the reader,
    a fallback (what the config asked for but could not do here), the APIs whose chunks it needed are not embedded
    yet (`pending`)."""

    stage: str
    ms: float | None = None
    note: str = ""
    fallback: str = ""
    pending: tuple[str, ...] = ()


Events = tuple[TraceEvent, ...]


@dataclass(frozen=True)
class Scope:
    """What the question asks and where to look. The rewrite makes `query` standalone and the glossary expansion
    adds its spec words (each returns the query it was given, renewed); embed writes the query context (`ctx`);
    the intent filter the `intent` and the APIs it asks retrieval to search (`asked_apis`)."""

    query: Query
    ctx: QueryContext | None = None
    intent: Intent = field(default_factory=Intent)
    asked_apis: tuple[str, ...] = ()

    @property
    def context(self) -> QueryContext:
        """The query context (the embedding and the candidate pools); made by the embed stage."""
        if self.ctx is None:
            raise RuntimeError("Scope.ctx is None: the embed stage makes it before any stage searches")
        return self.ctx


@dataclass(frozen=True)
class Ranking:
    """The ranked candidate pool. Retrieval writes the APIs it searched (`apis`), `k`, `balanced` (the APIs a
    multi-API question shares its top k among) and the `candidates`, which the reranker, the order, the lookup
    lift and the conversation's subject each return reordered; the reranker writes its `tokens` and, the learned
    one, its name in `ranker` (its `rerank` scores are the model's, which the gate's confidence reads)."""

    candidates: tuple[RetrievedChunk, ...] = ()
    apis: tuple[str, ...] = ()
    k: int = 0
    balanced: tuple[str, ...] = ()
    tokens: tuple[int, int] = (0, 0)
    ranker: str = ""

    def reordered(self, candidates: Sequence[RetrievedChunk], rule: str = "") -> Ranking:
        """The same ranking with its candidates in a new order; a `rule` (a stage's name) that orders by something
        else than their scores marks each candidate it put ahead of a higher-scored one (`placed_ahead`)."""
        return replace(self, candidates=tuple(placed_ahead(candidates, rule) if rule else candidates))

    def led_by(self, candidates: Sequence[RetrievedChunk], rule: str) -> Ranking:
        """The same ranking with its candidates in the order a `rule` (a stage's name) gave by putting one of them
        first (the lookup lift, the conversation's subject): a new first is the candidate marked as placed by it."""
        first = candidates[:1]
        moved = first if first and (not self.candidates or first[0].chunk.chunk_id != self.candidates[0].chunk.chunk_id
                                    ) else ()
        return replace(self, candidates=tuple(placed_ahead(candidates, rule, moved)))

    def rank_groups(self) -> tuple[list[list[RetrievedChunk]], list[RetrievedChunk]]:
        """The candidates in the lists that are ranked among themselves, and the rest: one list for a
        question about one API; for a multi-API question one per API (in the order of its best candidate)
        and the candidates of other APIs apart."""
        candidates = list(self.candidates)
        if not self.balanced:
            return [candidates], []
        groups = [[c for c in candidates if c.chunk.api == api] for api in self.balanced]
        position = {id(c): n for n, c in enumerate(candidates)}
        groups.sort(key=lambda group: position[id(group[0])] if group else len(candidates))
        others = [c for c in candidates if c.chunk.api not in self.balanced]
        return groups, others


@dataclass(frozen=True)
class Evidence:
    """What the answer stands on. Top k writes the `pool` (the ranking numbered, kept for the record) and its
    first k (`top`); the write check the `facts` and the operations they name (`added`); the gate the tier
    (`confidence`), its score and its `tokens`."""

    pool: tuple[RetrievedChunk, ...] = ()
    top: tuple[RetrievedChunk, ...] = ()
    added: tuple[RetrievedChunk, ...] = ()
    facts: tuple[Fact, ...] = ()
    confidence: Confidence = "answer"
    # The estimated probability that the first result is right (rag.rerank.calibration); None without a gate.
    confidence_score: float | None = None
    tokens: tuple[int, int] = (0, 0)

    @property
    def chunks(self) -> list[RetrievedChunk]:
        """The context for the answer: the top k, then the operations a fact names."""
        return [*self.top, *self.added]


@dataclass(frozen=True)
class Answer:
    """The generate stage's output: the generation, or (a generator that failed) an empty one with the error."""

    generation: Generation = field(default_factory=lambda: Generation(answer=""))
    errors: tuple[str, ...] = ()


Output = Scope | Ranking | Evidence | Answer
OutputT = TypeVar("OutputT", bound=Output)
Step = tuple[OutputT, Events]  # what a stage returns: its output and its trace events
PLACES: dict[type, str] = {Scope: "scope", Ranking: "ranking", Evidence: "evidence", Answer: "answer"}


@dataclass
class StageTrace:
    """The trace events one stage records while it runs, returned beside its output (`events`)."""

    stage: str
    recorded: list[TraceEvent] = field(default_factory=list)

    @property
    def events(self) -> Events:
        """The events recorded so far, in order."""
        return tuple(self.recorded)

    def note(self, text: str) -> None:
        """Record a note the views show under the answer."""
        self.recorded.append(TraceEvent(self.stage, note=text))

    def fall_back(self, text: str, pending: tuple[str, ...] = ()) -> None:
        """Record that the config could not do what it asked for here (because the chunks it searches of the APIs
        `pending` are not embedded yet, when given)."""
        self.recorded.append(TraceEvent(self.stage, fallback=text, pending=pending))

    def took(self, ms: float) -> None:
        """Record the stage's time in milliseconds."""
        self.recorded.append(TraceEvent(self.stage, ms=ms))

    @contextmanager
    def timed(self) -> Iterator[None]:
        """Time the block (the time is recorded even when the block raises)."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.took(round((time.perf_counter() - started) * 1000.0, 3))


@dataclass(frozen=True)
class PipelineState:
    """One question on its way through one configuration's stages: what the caller asked (the config's name,
    the question, the conversation, `only_apis` — the APIs the caller restricts the search to —, retrieval
    only, and `contexts`: the query contexts configurations asking the same share, a cache the embed stage
    fills), then one output per group of stages and the trace. Frozen: a stage reads it and returns its own
    output; only `after` (the pipeline) makes the next state."""

    config: str  # the configuration's name
    question: str
    scope: Scope
    history: Sequence[Mapping[str, str]] = ()
    only_apis: tuple[str, ...] = ()
    retrieval_only: bool = False
    contexts: dict[str, QueryContext] | None = None
    ranking: Ranking = field(default_factory=Ranking)
    evidence: Evidence = field(default_factory=Evidence)
    answer: Answer = field(default_factory=Answer)
    trace: Events = ()

    def after(self, step: Step[Output]) -> PipelineState:
        """The state with a stage's output in its place and its events at the end of the trace."""
        output, events = step
        return replace(self, **{PLACES[type(output)]: output}, trace=self.trace + events)  # type: ignore[arg-type]

    def to_result(self) -> AnswerResult:
        """The answer result this state explains (notes, fallbacks and timings from the trace, tokens summed over
        the reranker, the gate and generation), assembled here and nowhere else."""
        timings: dict[str, float] = {}
        for event in self.trace:
            if event.ms is not None:
                timings[event.stage] = timings.get(event.stage, 0.0) + event.ms
        generation, evidence, ranking = self.answer.generation, self.evidence, self.ranking
        return AnswerResult(
            config=self.config,
            question=self.question,
            standalone_query=self.scope.query.standalone,
            answer=generation.answer,
            abstained=generation.abstained,
            confidence="abstain" if generation.abstained else evidence.confidence,
            confidence_score=evidence.confidence_score,
            citations=list(generation.citations),
            dropped_citations=generation.dropped_citations,
            reasoning_steps=list(generation.reasoning_steps),
            chunks=evidence.chunks,
            pool=list(evidence.pool),
            detected_apis=list(ranking.apis),
            timings_ms=timings,
            tokens_in=ranking.tokens[0] + evidence.tokens[0] + generation.tokens_in,
            tokens_out=ranking.tokens[1] + evidence.tokens[1] + generation.tokens_out,
            generator=generation.generator,
            retrieval_only=self.retrieval_only,
            notes=[event.note for event in self.trace if event.note],
            facts=[fact.statement() for fact in evidence.facts],
            errors=list(self.answer.errors),
            fallbacks=[event.fallback for event in self.trace if event.fallback],
            pending=sorted({api for event in self.trace for api in event.pending}),
            request_example=None if generation.abstained else generation.request_example,
            subject=generation.subject or self.scope.query.subject,
            query=self.scope.query,
        )


class Stage(Protocol):
    """One step of the pipeline, made once by `rag.pipeline.build.build_pipeline` with its own settings and
    models: it reads the state and returns its group's output with its trace events."""

    name: ClassVar[str]

    def run(self, state: PipelineState) -> Step[Output]:
        """This stage's output and events."""
        ...
