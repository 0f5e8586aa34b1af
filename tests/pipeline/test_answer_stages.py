"""The stages that decide and write the answer (rag/pipeline/answer_stages.py) through their `run`: the gate
stage with a stand-in confidence gate, generation with a scripted generator."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from rag.abstain import GateDecision
from rag.config import PRESETS
from rag.gate import GateOutcome
from rag.generate.base import Generation, GenerationRequest, StreamEvent
from rag.index.store import Index
from rag.llm.base import LLMError
from rag.llm.spec import LLM, ModelSpec
from rag.pipeline.answer_stages import Gate, Generate
from rag.pipeline.build import LOCAL_CONTEXT_TOKENS
from rag.pipeline.query_stages import Embed
from rag.query import Query
from rag.rerank.calibration import FirstPlace
from rag.retrieve.synonyms import Glossary
from rag.runner import Engine
from tests.fakes import FakeChatModel, make_chunk, retrieved
from tests.pipeline.stage_states import drained, notes_of, run, state_for, timed


@dataclass
class RecordingGate:
    """A confidence gate that records what it was given and decides `tier`."""

    tier: str = "partial"
    calls: list[dict[str, Any]] = field(default_factory=list)

    def apply(self, chunking, query, ctx, asked, known, chunks=(), chat_model=None) -> GateOutcome:  # type: ignore[no-untyped-def]
        self.calls.append({"chunking": chunking, "query": query, "known": known, "chunks": chunks, "model": chat_model,
                           "asked": asked})
        decision = GateDecision(self.tier, 0.42, 0.5)  # type: ignore[arg-type]
        return GateOutcome(decision, [f"confidence gate: {self.tier}"], tokens_in=7, tokens_out=3, ms=1.5)


@dataclass
class GateEngine(Engine):
    """An engine whose gate is a RecordingGate."""

    gate: RecordingGate = field(default_factory=RecordingGate)

    @property
    def confidence_gate(self):  # type: ignore[no-untyped-def]
        return self.gate


STAFF = Glossary("staff", (("staff", "employees"),))


def test_the_gate_stage_takes_the_gates_tier_score_tokens_notes_and_time(people_shop_index: Index) -> None:
    engine, gate = Engine(people_shop_index), RecordingGate()
    chunks = retrieved(make_chunk("a.components.S", "s"))
    stage = Gate(gate, "smart", (STAFF,), LLM(ModelSpec("extractive")))  # type: ignore[arg-type]
    state = run(state_for("How do I see all staff?", top=chunks), engine, Embed, stage)
    assert (state.evidence.confidence, state.evidence.confidence_score) == ("partial", 0.42)
    assert state.evidence.tokens == (7, 3) and (state.to_result().tokens_in, state.to_result().tokens_out) == (7, 3)
    assert notes_of(state, "gate") == ["confidence gate: partial"] and timed(state)["gate"] == 1.5
    (call,) = gate.calls
    assert call["query"] is state.scope.query and call["chunks"] == chunks and call["model"] is None
    assert call["known"] == {"staff", "employees"} and call["chunking"] == "smart"


PLACE = FirstPlace(score=1.5, margin=0.25, share=0.4, vector=0.6, lead=0.7, name=0.5, best_vector=0.6,
                   operation=True)


@pytest.mark.parametrize(
    ("gate_tier", "probability", "tier"),
    [("answer", 0.8, "answer"), ("answer", 0.3, "partial"), ("partial", 0.7, "answer"), ("abstain", 0.9, "abstain")],
)
def test_the_confidence_shown_is_the_probability_and_the_tier_reads_it(
    people_shop_index: Index, gate_tier: str, probability: float, tier: str
) -> None:
    stage = Gate(RecordingGate(gate_tier), "smart", (), LLM(ModelSpec("extractive")),  # type: ignore[arg-type]
                 lambda state: (probability, PLACE))
    state = run(state_for("How do I list orders?"), Engine(people_shop_index), Embed, stage)
    assert (state.evidence.confidence, state.evidence.confidence_score) == (tier, probability)
    assert notes_of(state, "gate")[-1] == (
        f"confidence {probability:.2f} that the first result is right (learned score 1.50, margin 0.25 over the "
        f"next; {tier} from 0.50)"
    )


def test_without_an_estimate_the_gates_own_tier_and_score_stand(people_shop_index: Index) -> None:
    stage = Gate(RecordingGate("partial"), "smart", (), LLM(ModelSpec("extractive")),  # type: ignore[arg-type]
                 lambda state: None)
    state = run(state_for("How do I list orders?"), Engine(people_shop_index), Embed, stage)
    assert (state.evidence.confidence, state.evidence.confidence_score) == ("partial", 0.42)


def test_a_judge_that_cannot_be_made_is_noted_and_the_gate_decides_without_it(people_shop_index: Index) -> None:
    def no_model(spec: str) -> Any:
        raise LLMError(spec, "no key")

    engine = GateEngine(people_shop_index, default_llm="openai:gpt-x", chat_model_factory=no_model)
    state = run(state_for("How do I list orders?"), engine, Embed, Gate)
    assert notes_of(state, "gate")[0].startswith("answerability judge unavailable:")
    assert engine.gate.calls[0]["model"] is None and state.evidence.confidence == "partial"
    model = FakeChatModel()
    judged = GateEngine(people_shop_index, default_llm="openai:gpt-x", chat_model_factory=lambda spec: model)
    run(state_for("How do I list orders?"), judged, Embed, Gate)
    assert judged.gate.calls[0]["model"] is model


@dataclass
class ScriptedGenerator:
    """A generator that answers `answer` (or raises `error`) and records the requests."""

    answer: str = "Use GET /orders. [1]"
    error: Exception | None = None
    requests: list[GenerationRequest] = field(default_factory=list)

    def generate(self, request: GenerationRequest) -> Generation:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        return Generation(self.answer, generator="scripted", tokens_in=5, tokens_out=2)

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        generation = self.generate(request)
        yield StreamEvent("token", text=generation.answer)
        yield StreamEvent("done", generation=generation)


@pytest.fixture
def generator() -> ScriptedGenerator:
    return ScriptedGenerator()


def engine_with(index: Index, generator: ScriptedGenerator, llm: str = "extractive") -> Engine:
    return Engine(index, default_llm=llm, generator_factory=lambda spec: generator)


def test_generation_gets_the_typed_query_chunks_tier_and_facts(people_shop_index: Index, generator) -> None:  # type: ignore[no-untyped-def]
    chunks = retrieved(make_chunk("a.components.S", "s"))
    state = state_for("How do I list orders?", top=chunks, confidence="partial")
    state = run(state, engine_with(people_shop_index, generator), Generate)
    (request,) = generator.requests
    assert request.query is state.scope.query and request.chunks == chunks and request.gate == "partial"
    assert request.abstain_allowed and request.context_tokens == state.settings.context_tokens
    assert state.answer.generation.answer == "Use GET /orders. [1]" and not state.answer.errors
    result = state.to_result()
    assert result.answer == "Use GET /orders. [1]" and result.generator == "scripted" and "generate" in timed(state)
    without_gate = run(state_for("q", replace(PRESETS["full"], abstention=False), confidence="abstain"),
                       engine_with(people_shop_index, generator), Generate)
    assert generator.requests[-1].gate == "answer" and not generator.requests[-1].abstain_allowed
    assert without_gate.answer.generation.generator == "scripted"


def test_a_local_model_gets_a_short_context(people_shop_index: Index, generator) -> None:  # type: ignore[no-untyped-def]
    run(state_for("q"), engine_with(people_shop_index, generator, llm="local:tiny"), Generate)
    assert generator.requests[0].context_tokens == min(PRESETS["full"].context_tokens, LOCAL_CONTEXT_TOKENS)


def test_a_failing_generator_is_an_error_and_leaves_no_answer(people_shop_index: Index) -> None:
    failing = ScriptedGenerator(error=RuntimeError("boom"))
    state = run(state_for("q"), engine_with(people_shop_index, failing), Generate)
    assert state.answer.errors == ("generation with extractive failed: boom",)
    assert state.answer.generation.answer == "" and state.answer.generation.generator == "extractive"
    result = state.to_result()
    assert result.errors == ["generation with extractive failed: boom"] and result.generator == "extractive"


def test_retrieval_only_cites_the_chunks_and_abstains_with_the_gate(people_shop_index: Index, generator) -> None:  # type: ignore[no-untyped-def]
    chunks = retrieved(make_chunk("a.components.S", "s"), make_chunk("a.components.T", "t"))
    engine = engine_with(people_shop_index, generator)
    state = run(state_for("q", top=chunks, retrieval_only=True), engine, Generate)
    generation = state.answer.generation
    assert not generation.abstained and not generator.requests and generation.generator == "none (retrieval only)"
    assert [c.structural_id for c in generation.citations] == ["a.components.S", "a.components.T"]
    abstained = run(state_for("q", top=chunks, retrieval_only=True, confidence="abstain"), engine, Generate)
    assert abstained.answer.generation.abstained


def test_reasoning_without_an_llm_falls_back(people_shop_index: Index, generator) -> None:  # type: ignore[no-untyped-def]
    config = replace(PRESETS["full"], reasoning=True)
    state = run(state_for("q", config), engine_with(people_shop_index, generator), Generate)
    assert [e.fallback for e in state.trace if e.fallback] == ["no LLM: chain-of-thought verification skipped"]
    plain = run(state_for("q"), engine_with(people_shop_index, generator), Generate)
    assert not [e for e in plain.trace if e.fallback]


def test_streaming_yields_the_generators_events_and_finishes_the_state(people_shop_index: Index, generator) -> None:  # type: ignore[no-untyped-def]
    state = state_for("q")
    stage = engine_with(people_shop_index, generator).pipeline(state.settings).generate
    events, (answer, trace) = drained(stage.stream(state))
    assert [event.kind for event in events] == ["token", "done"] and answer.generation.generator == "scripted"
    assert [event.stage for event in trace] == ["generate"] and trace[0].ms is not None


def test_a_stream_that_fails_is_an_error(people_shop_index: Index) -> None:
    state = state_for("q")
    failing = ScriptedGenerator(error=RuntimeError("boom"))
    stage = engine_with(people_shop_index, failing).pipeline(state.settings).generate
    events, (answer, _) = drained(stage.stream(state))
    assert events == [] and answer.errors == ("generation with extractive failed: boom",)


def test_the_extractive_lead_names_its_rule_in_the_trace_and_its_operation_is_the_subject(
    people_shop_index: Index,
) -> None:
    """The generate stage notes which lead rule fired (`lead: about_an_operation`, in the app's notes and the
    evaluation records); the result's subject is the operation the answer is about, else the conversation's."""
    orders = replace(make_chunk("shop.paths./orders.get", "GET /orders  [shop API]", kind="operation"),
                     method="get", path="/orders", summary="List orders")
    engine = Engine(people_shop_index, default_llm="extractive")
    state = run(state_for("How do I list orders?", top=retrieved(orders)), engine, Generate)
    assert notes_of(state, "generate") == ["lead: about_an_operation"]
    assert state.to_result().subject == "shop.paths./orders.get"
    carried = Query("What is the weather?", subject="shop.paths./orders.get")
    schema_only = run(state_for(carried, top=retrieved(make_chunk("a.components.S", "s"))), engine, Generate)
    assert schema_only.to_result().subject == "shop.paths./orders.get"
