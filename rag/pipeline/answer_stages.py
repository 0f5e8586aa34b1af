"""The stages that decide and write the answer: the confidence gate and generation."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from rag.errors import RagError
from rag.gate import ConfidenceGate
from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, Generator, StreamEvent
from rag.llm.spec import LLM, ModelSpec
from rag.pipeline.query_stages import fitting_glossaries
from rag.pipeline.state import PipelineState, TraceEvent
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
    name: ClassVar[str] = "gate"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the gate's tier and score."""
        ctx = state.context
        known = {word for glossary in fitting_glossaries(self.glossaries, ctx) for word in glossary.words()}
        chat_model = None
        try:
            chat_model = self.llm.model()
        except RagError as error:
            state.note(self.name, f"answerability judge unavailable: {error}")
        outcome = self.gate.apply(self.chunking, state.query, ctx, state.question, known, state.evidence, chat_model)
        state.confidence, state.confidence_score = outcome.decision.tier, outcome.decision.score
        state.gate_tokens = (outcome.tokens_in, outcome.tokens_out)
        state.trace += [TraceEvent(self.name, note=note) for note in outcome.notes]
        state.trace.append(TraceEvent(self.name, ms=outcome.ms))
        return state


@dataclass(frozen=True)
class Generate:
    """The answer from the chunks and the facts by `generator` (made for `spec`): the extractive generator or
    an LLM (chain-of-thought verification with `reasoning`), told the gate's tier with `abstention`, its context
    at most `context_tokens`; a retrieval-only run cites the chunks and writes none."""

    generator: Generator
    spec: ModelSpec
    abstention: bool
    reasoning: bool
    context_tokens: int
    name: ClassVar[str] = "generate"

    def request(self, state: PipelineState) -> GenerationRequest:
        """What the generator gets: the typed query, the chunks, the gate's tier and the typed facts."""
        return GenerationRequest(
            query=state.query,
            chunks=state.evidence,
            abstain_allowed=self.abstention,
            reasoning=self.reasoning,
            context_tokens=self.context_tokens,
            gate=state.confidence if self.abstention else "answer",
            facts=tuple(state.facts),
        )

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the generation (or, retrieval only, the chunks as citations); a failing generator
        is recorded as an error."""
        if state.retrieval_only:
            return self._retrieval_only(state)
        with state.timed(self.name):
            try:
                generation = self.generator.generate(self.request(state))
            except Exception as error:  # a failing generator leaves the evidence to show
                state.errors.append(f"generation with {self.spec} failed: {error}")
                state.generator = self.spec.text
                return state
        return self.finish(state, generation)

    def stream(self, state: PipelineState) -> Iterator[StreamEvent]:
        """The generator's stream events; the state gets the generation (or the error) when it ends."""
        generation: Generation | None = None
        with state.timed(self.name):
            try:
                for event in self.generator.stream(self.request(state)):
                    if event.kind == "done":
                        generation = event.generation
                    yield event
            except Exception as error:
                state.errors.append(f"generation with {self.spec} failed: {error}")
        if not state.errors:
            self.finish(state, generation or Generation(answer=ABSTAIN_MESSAGE, generator=self.spec.text))

    def finish(self, state: PipelineState, generation: Generation) -> PipelineState:
        """The state with the generation (a `reasoning` config without an LLM notes that it fell back)."""
        state.generation = generation
        if self.reasoning and not generation.reasoning_steps and self.spec.is_extractive:
            state.fall_back(self.name, "no LLM: chain-of-thought verification skipped")
        return state

    def _retrieval_only(self, state: PipelineState) -> PipelineState:
        if self.abstention and state.confidence == "abstain":
            state.generation = Generation(answer="", abstained=True, generator="none (retrieval only)")
        else:
            state.generation = Generation(answer="", generator="none (retrieval only)")
        state.generation.citations = [Citation.of(c.chunk) for c in state.evidence]
        return state
