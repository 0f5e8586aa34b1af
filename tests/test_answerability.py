"""The LLM answerability judge and the gate that asks it (scripted chat models)."""

from __future__ import annotations

from rag.answerability import LLMAnswerabilityJudge, parse_verdict
from rag.config import PRESETS
from rag.index.store import Index
from rag.llm.base import LLMError
from rag.runner import Engine
from tests.fakes import FakeChatModel, make_chunk, retrieved


def test_the_judge_shows_the_chunks_and_reads_its_verdict() -> None:
    model = FakeChatModel([{"answerable": "no", "reason": "nothing about payroll"}])
    chunks = retrieved(make_chunk("hris.paths./employees.get", "GET /employees lists employees", kind="operation"))
    verdict = LLMAnswerabilityJudge(model).judge("How do I run payroll?", chunks)
    assert verdict.verdict == "no" and verdict.reason == "nothing about payroll"
    assert "How do I run payroll?" in model.user_prompt and "GET /employees lists employees" in model.user_prompt
    assert model.calls[-1].json_mode and verdict.tokens_in > 0


def test_replies_without_a_verdict_are_doubt_not_evidence() -> None:
    assert parse_verdict('{"answerable": "YES", "reason": "r"}') == ("yes", "r")
    assert parse_verdict("Partly: the excerpts name the operation") == ("partly", "")
    assert parse_verdict("I cannot tell") == ("partly", "")


def engine_with(index: Index, replies: list[object]) -> tuple[Engine, FakeChatModel]:
    model = FakeChatModel(replies, repeat_last=True)
    engine = Engine(index, default_llm="fake:judge", chat_model_factory=lambda spec: model)
    return engine, model


def test_an_llm_no_abstains_and_a_partly_is_partial(fixture_index: Index) -> None:
    question = "How do I list the employees?"
    engine, _ = engine_with(fixture_index, [{"answerable": "no", "reason": "off topic"}])
    result = engine.run(question, PRESETS["full"], retrieval_only=True)
    assert result.confidence == "abstain" and any("LLM: no (off topic)" in n for n in result.notes)
    engine, _ = engine_with(fixture_index, [{"answerable": "partly"}])
    assert engine.run(question, PRESETS["full"], retrieval_only=True).confidence == "partial"
    # A "yes" keeps the tier of the evidence: the similarity gate's without a judge.
    unjudged = Engine(fixture_index, default_llm="extractive").run(question, PRESETS["full"], retrieval_only=True)
    engine, _ = engine_with(fixture_index, [{"answerable": "yes"}])
    judged = engine.run(question, PRESETS["full"], retrieval_only=True)
    assert judged.confidence == unjudged.confidence and any("LLM: yes" in n for n in judged.notes)


def test_a_failing_judge_leaves_the_similarity_gate_to_decide(fixture_index: Index) -> None:
    engine, _ = engine_with(fixture_index, [LLMError("fake:judge", "server down")])
    result = engine.run("How do I list the employees?", PRESETS["full"], retrieval_only=True)
    assert result.confidence != "abstain" and any("answerability judge failed" in n for n in result.notes)


def test_without_an_llm_nothing_is_asked(fixture_index: Index) -> None:
    calls: list[str] = []
    engine = Engine(fixture_index, default_llm="extractive", chat_model_factory=lambda spec: calls.append(spec))
    engine.run("How do I list the employees?", PRESETS["full"], retrieval_only=True)
    assert calls == []
