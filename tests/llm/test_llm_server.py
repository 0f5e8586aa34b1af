"""Every LLM stage against a real model over real HTTP: `make llm-server`'s server, started by a fixture.

The `openai:` generator (plain and streamed), the LLM reranker (C4, C5), LLM intent detection, the follow-up
rewriter, chain-of-thought verification (E4) and the evaluation judge each run against llama-cpp-python's
OpenAI-compatible server on 127.0.0.1 (the local GGUF model). Each test asserts what only a real reply
gives (usage reported by the server, no fallback note), so none passes with the server down. They need
`make local-llm` (the runtime, its server extras and the model); without them they are skipped, saying so.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.evaluate.judge import Judge
from rag.generate.base import StreamEvent
from rag.index.store import Index
from rag.llm import ChatMessage, make_chat_model
from rag.llm.factory import DEFAULT_LOCAL_MODEL
from rag.llm.server import base_url, missing_server_modules, server_command, server_models, start_server, stop_server
from rag.results import AnswerResult
from rag.runner import Engine

pytestmark = [pytest.mark.local_llm, pytest.mark.slow]


def _skip_reason() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (run `make local-llm`)"
    if not DEFAULT_LOCAL_MODEL.is_file():
        return f"{DEFAULT_LOCAL_MODEL} is absent (run `make local-llm`)"
    missing = missing_server_modules()
    if missing:
        return f"the LLM server's extras {', '.join(missing)} are missing (run `make local-llm`)"
    return None


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The local model served on a free 127.0.0.1 port for this module; stopped afterwards."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    port = _free_port()
    process = start_server(DEFAULT_LOCAL_MODEL, port, log=tmp_path_factory.mktemp("llm-server") / "server.log")
    try:
        yield base_url(port)
    finally:
        stop_server(process)


@pytest.fixture
def spec(server_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """`openai:<model>` pointed at the server with a dummy key; local prompts as the product chooses them."""
    monkeypatch.setenv("OPENAI_BASE_URL", server_url)
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    monkeypatch.delenv("RAG_LLM_PROMPT", raising=False)
    return f"openai:{DEFAULT_LOCAL_MODEL.stem}"


@pytest.fixture
def engine(fixture_index: Index, spec: str) -> Engine:
    return Engine(fixture_index, default_llm=spec)


def test_the_server_listens_on_loopback_only_and_serves_the_model(server_url: str) -> None:
    assert server_url.startswith("http://127.0.0.1:")
    assert server_models(server_url) == [DEFAULT_LOCAL_MODEL.stem]
    command = server_command(DEFAULT_LOCAL_MODEL, 8080)
    assert command[command.index("--host") + 1] == "127.0.0.1"


def test_a_dummy_key_or_none_is_accepted(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for env in ({"OPENAI_BASE_URL": server_url}, {"OPENAI_BASE_URL": server_url, "OPENAI_API_KEY": "sk-dummy"}):
        model = make_chat_model("openai:anything", env=env)
        response = model.complete([ChatMessage("user", "Reply with the word OK and nothing else.")], max_tokens=5)
        assert "OK" in response.text.upper() and response.tokens_in > 5


def _assert_real(result: AnswerResult) -> None:
    assert not result.errors, result.errors
    assert not result.fallbacks, result.fallbacks
    assert result.tokens_in > 0 and result.tokens_out > 0  # usage the server reported


def test_openai_generator_answers_and_streams_from_the_server(engine: Engine, spec: str) -> None:
    question = "Which endpoint lists employees?"
    result = engine.run(question, PRESETS["C2"])
    _assert_real(result)
    assert result.generator == spec and "/unified/hris/employees" in result.answer
    events = list(engine.stream(question, PRESETS["C2"]))
    tokens = [event for event in events if isinstance(event, StreamEvent) and event.kind == "token"]
    assert len(tokens) > 3  # streamed piece by piece
    final = events[-1]
    assert isinstance(final, AnswerResult)
    _assert_real(final)


@pytest.mark.parametrize("name", ["C4", "C5"])
def test_llm_reranker_reorders_with_the_server(engine: Engine, name: str) -> None:
    config = replace(PRESETS[name], candidate_pool=5)  # five candidates keep the prompt short on a CPU
    result = engine.run("How do I update an employee?", config, retrieval_only=True)
    _assert_real(result)
    assert "rerank" in result.timings_ms
    assert not any("reranker failed" in note for note in result.notes), result.notes
    assert all("rerank" in chunk.scores and chunk.rank_before_rerank for chunk in result.chunks)


def test_llm_intent_detection_asks_the_server(engine: Engine) -> None:
    result = engine.run("How do I list employees in the People API?", PRESETS["C3"], retrieval_only=True)
    assert not result.errors
    assert "intent: LLM classifier" in result.notes, result.notes


def test_follow_up_is_rewritten_by_the_server(engine: Engine) -> None:
    history = [{"role": "user", "content": "How do I list employees?"},
               {"role": "assistant", "content": "Use GET /unified/hris/employees [1]."}]
    result = engine.run("And how do I update one?", PRESETS["C2"], history=history, retrieval_only=True)
    assert "follow-up rewritten by the LLM" in result.notes, result.notes
    assert result.standalone_query and result.standalone_query != "And how do I update one?"


def test_chain_of_thought_verification_runs_on_the_server(engine: Engine, spec: str) -> None:
    config = replace(PRESETS["E4"], reranker="none")  # E4's cross-encoder cannot load offline
    result = engine.run("Which endpoint lists employees?", config)
    _assert_real(result)
    assert result.reasoning_steps, result.answer


def test_judge_grades_with_the_server(spec: str) -> None:
    judge = Judge(spec)
    right = judge.score("What is the default page size?", "The default page size is 25.", "25 items per page")
    assert not right.errors, right.errors
    assert right.scores and 1 <= right.scores[0] <= 5 and right.tokens_in > 0


def test_no_server_no_pass(tmp_path: Path) -> None:
    """The same call against a port nobody listens on fails: the tests above need the real server."""
    model = make_chat_model("openai:anything", timeout=2, env={"OPENAI_BASE_URL": base_url(_free_port())})
    with pytest.raises(Exception, match="cannot reach"):
        model.complete([ChatMessage("user", "hi")], max_tokens=2)
