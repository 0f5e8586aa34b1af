"""The stages that decide and write the answer: the confidence gate and generation."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Generator as Stream
from dataclasses import dataclass, replace
from typing import ClassVar

from rag.errors import RagError
from rag.gate import ConfidenceGate
from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, Generator, StreamEvent
from rag.llm.spec import LLM, ModelSpec
from rag.pipeline.query_stages import fitting_glossaries
from rag.pipeline.state import Answer, Evidence, PipelineState, StageTrace, Step
from rag.rerank.calibration import ANSWER_FROM, FirstPlace
from rag.results import Citation
from rag.retrieve.synonyms import Glossary


@dataclass(frozen=True)
class Gate:
    """The confidence gate (rag.gate) over the `chunking` collection: answer, partial or abstain from the
    evidence about the index (the words of the fitting `glossaries` count as understood); with an LLM, the
    model also judges whether the chunks answer the question (a model that could not be made is noted, and
    the similarity gate decides alone)."""

    gate: ConfidenceGate
    chunking: str
    glossaries: tuple[Glossary, ...]
    llm: LLM
    # The probability that the ranked pool's first result is right (rag.pipeline.learned_rank), with what it read;
    # None (or an estimate of None): the gate's own evidence score is shown.
    estimate: Callable[[PipelineState], tuple[float, FirstPlace] | None] | None = None
    name: ClassVar[str] = "gate"

    def run(self, state: PipelineState) -> Step[Evidence]:
        """The evidence with the gate's tier, score and tokens."""
        trace, scope, evidence = StageTrace(self.name), state.scope, state.evidence
        ctx = scope.context
        known = frozenset().union(*(glossary.words() for glossary in fitting_glossaries(self.glossaries, ctx)))
        chat_model = None
        try:
            chat_model = self.llm.model()
        except RagError as error:
            trace.note(f"answerability judge unavailable: {error}")
        outcome = self.gate.apply(self.chunking, scope.query, ctx, state.question, known, evidence.chunks, chat_model)
        for note in outcome.notes:
            trace.note(note)
        trace.took(outcome.ms)
        decision, tokens = outcome.decision, (outcome.tokens_in, outcome.tokens_out)
        tier, score = decision.tier, decision.score
        estimate = self.estimate(state) if self.estimate is not None else None
        if estimate is not None:
            # The confidence shown is the probability that the first operation is right; below ANSWER_FROM the
            # answer offers the likeliest operations (partial). Abstaining stays the gate's evidence alone, and an
            # LLM judge's "partly" keeps the answer partial whatever the probability.
            score, place = round(estimate[0], 4), estimate[1]
            if tier != "abstain" and outcome.verdict != "partly":
                tier = "answer" if score >= ANSWER_FROM else "partial"
            if place.named:
                read = "named in the question: how often named operations were right on the tuning sets"
            elif place.placed:
                read = (f"placed first by a stage after the ranker ({place.placed_by}), {-place.margin:.2f} below the "
                        "model's first: how often that stage's first places were right on the tuning sets")
            else:
                read = f"learned score {place.score:.2f}, margin {place.margin:.2f} over the next"
            trace.note(f"confidence {score:.2f} that the first result is right ({read}; {tier} from {ANSWER_FROM:.2f})")
        return replace(evidence, confidence=tier, confidence_score=score, tokens=tokens), trace.events


@dataclass(frozen=True)
class Generate:
    """The answer from the chunks and the facts by `generator` (made for `spec`): the extractive generator or
    an LLM (chain-of-thought verification with `reasoning`), told the gate's tier with `abstention`, an LLM's
    context at most `context_tokens` (the extractive generator sends no prompt and quotes from every chunk); a
    retrieval-only run cites the chunks and writes none."""

    generator: Generator
    spec: ModelSpec
    abstention: bool
    reasoning: bool
    context_tokens: int
    name: ClassVar[str] = "generate"

    def request(self, state: PipelineState) -> GenerationRequest:
        """What the generator gets: the typed query, the chunks, the gate's tier and the typed facts."""
        evidence = state.evidence
        return GenerationRequest(
            query=state.scope.query,
            chunks=evidence.chunks,
            abstain_allowed=self.abstention,
            reasoning=self.reasoning,
            context_tokens=self.context_tokens,
            gate=evidence.confidence if self.abstention else "answer",
            facts=evidence.facts,
        )

    def run(self, state: PipelineState) -> Step[Answer]:
        """The generation (or, retrieval only, the chunks as citations); a failing generator is recorded as an
        error, with an empty answer by the generator it was made for."""
        if state.retrieval_only:
            return self._retrieval_only(state), ()
        trace, error = StageTrace(self.name), ""
        with trace.timed():
            try:
                generation = self.generator.generate(self.request(state))
            except Exception as failure:  # a failing generator leaves the evidence to show
                error = self.failure(failure)
        if error:
            return Answer(Generation(answer="", generator=self.spec.text), (error,)), trace.events
        return self.finish(generation, trace)

    def stream(self, state: PipelineState) -> Stream[StreamEvent, None, Step[Answer]]:
        """The generator's stream events; when it ends, the generation (or the error) with the trace events."""
        trace, generation, error = StageTrace(self.name), None, ""
        with trace.timed():
            try:
                for event in self.generator.stream(self.request(state)):
                    if event.kind == "done":
                        generation = event.generation
                    yield event
            except Exception as failure:
                error = self.failure(failure)
        if error:  # the error alone (no generator named), as a stream stopped early
            return Answer(errors=(error,)), trace.events
        return self.finish(generation or Generation(answer=ABSTAIN_MESSAGE, generator=self.spec.text), trace)

    def failure(self, error: Exception) -> str:
        """The error a failing generator is recorded with."""
        return f"generation with {self.spec} failed: {error}"

    def finish(self, generation: Generation, trace: StageTrace) -> Step[Answer]:
        """The answer of a generation (a `reasoning` config without an LLM notes that it fell back)."""
        if self.reasoning and not generation.reasoning_steps and self.spec.is_extractive:
            trace.fall_back("no LLM: chain-of-thought verification skipped")
        if generation.lead_rule:
            trace.note(f"lead: {generation.lead_rule}")
        return Answer(generation), trace.events

    def _retrieval_only(self, state: PipelineState) -> Answer:
        """The chunks as citations; the subject a follow-up continues is the first operation among them."""
        abstained = self.abstention and state.evidence.confidence == "abstain"
        chunks = state.evidence.chunks
        citations = [Citation.of(c.chunk) for c in chunks]
        subject = next((c.chunk.covers[0] for c in chunks if c.chunk.kind == "operation" and c.chunk.covers), "")
        return Answer(Generation("", abstained, citations, generator="none (retrieval only)", subject=subject))
