"""The stages that decide and write the answer: the confidence gate and generation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from rag.errors import RagError
from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, StreamEvent
from rag.pipeline.state import BaseStage, Feature, PipelineState, Services, SwitchedStage, TraceEvent
from rag.results import Citation

if TYPE_CHECKING:
    from rag.config import Config

LOCAL_CONTEXT_TOKENS = 1800  # a 2-core CPU prefills ~150 tokens/s: keep local prompts short
# The generator spec of models that run on this machine (their context is kept short).
LOCAL_LLM_PREFIX = "local"


class Gate(SwitchedStage):
    """The confidence gate (rag.gate): answer, partial or abstain from the evidence about the index; with an
    LLM configured, the model also judges whether the chunks answer the question (a model that cannot be
    made is noted, and the similarity gate decides alone)."""

    name: ClassVar[str] = "gate"
    features: ClassVar[tuple[Feature, ...]] = (
        Feature("abstention", lambda config: config.abstention, {"abstention": False}),
    )

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the gate's tier and score."""
        ctx = state.context
        known = {word for glossary in self.services.active_glossaries(self.config, ctx) for word in glossary.words()}
        spec, chat_model = self.services.llm_spec(self.config), None
        try:
            chat_model = None if spec == "extractive" else self.services.chat_model(spec)
        except RagError as error:
            state.note(self.name, f"answerability judge unavailable: {error}")
        outcome = self.services.confidence_gate.apply(
            self.config.chunking, state.query, ctx, state.question, known, state.chunks, chat_model
        )
        state.confidence, state.confidence_score = outcome.decision.tier, outcome.decision.score
        state.tokens_in += outcome.tokens_in
        state.tokens_out += outcome.tokens_out
        state.trace += [TraceEvent(self.name, note=note) for note in outcome.notes]
        state.trace.append(TraceEvent(self.name, ms=outcome.ms))
        return state


class Generate(BaseStage):
    """The answer from the chunks and the facts: the extractive generator or an LLM (chain-of-thought
    verification with `reasoning`); a retrieval-only run cites the chunks and writes none."""

    name: ClassVar[str] = "generate"
    features: ClassVar[tuple[Feature, ...]] = (
        Feature("reasoning", lambda config: config.reasoning, {"reasoning": False}),
    )

    def __init__(self, config: Config, services: Services) -> None:
        super().__init__(config, services)
        self.spec = services.llm_spec(config)

    def request(self, state: PipelineState) -> GenerationRequest:
        """What the generator gets: the typed query, the chunks, the gate's tier and the typed facts."""
        context_tokens = self.config.context_tokens
        if self.spec.startswith(LOCAL_LLM_PREFIX):
            context_tokens = min(context_tokens, LOCAL_CONTEXT_TOKENS)
        return GenerationRequest(
            query=state.query,
            chunks=state.chunks,
            abstain_allowed=self.config.abstention,
            reasoning=self.config.reasoning,
            context_tokens=context_tokens,
            gate=state.confidence if self.config.abstention else "answer",
            facts=tuple(state.facts),
        )

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the generation (or, retrieval only, the chunks as citations); a failing generator
        is recorded as an error."""
        if state.retrieval_only:
            return self._retrieval_only(state)
        with state.timed(self.name):
            try:
                generation = self.services.generator(self.spec).generate(self.request(state))
            except Exception as error:  # a failing generator leaves the evidence to show
                state.errors.append(f"generation with {self.spec} failed: {error}")
                state.generator = self.spec
                return state
        return self.finish(state, generation)

    def stream(self, state: PipelineState) -> Iterator[StreamEvent]:
        """The generator's stream events; the state gets the generation (or the error) when it ends."""
        generation: Generation | None = None
        with state.timed(self.name):
            try:
                for event in self.services.generator(self.spec).stream(self.request(state)):
                    if event.kind == "done":
                        generation = event.generation
                    yield event
            except Exception as error:
                state.errors.append(f"generation with {self.spec} failed: {error}")
        if not state.errors:
            self.finish(state, generation or Generation(answer=ABSTAIN_MESSAGE, generator=self.spec))

    def finish(self, state: PipelineState, generation: Generation) -> PipelineState:
        """The state with the generation (a `reasoning` config without an LLM notes that it fell back)."""
        state.generation = generation
        if self.config.reasoning and not generation.reasoning_steps and self.spec == "extractive":
            state.fall_back(self.name, "no LLM: chain-of-thought verification skipped")
        return state

    def _retrieval_only(self, state: PipelineState) -> PipelineState:
        if self.config.abstention and state.confidence == "abstain":
            state.generation = Generation(answer="", abstained=True, generator="none (retrieval only)")
        else:
            state.generation = Generation(answer="", generator="none (retrieval only)")
        state.generation.citations = [Citation.of(c.chunk) for c in state.chunks]
        return state
