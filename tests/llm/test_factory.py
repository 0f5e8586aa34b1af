"""Spec parsing, key checks and default detection of `rag.llm.factory`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rag.errors import ConfigError
from rag.llm import ChatMessage, ChatModel, LlamaCppChatModel, OpenAIChatModel, factory, local
from rag.llm.factory import available_llms, detect_default_llm, make_chat_model
from tests.llm.fake_openai_server import FakeOpenAIServer, FakeReply

OPENAI_KEY = "sk-test-factory-0123456789abcdef"
GROQ_KEY = "gsk_test_factory_0123456789abcdef"


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    """A stand-in GGUF file (only its existence matters to the factory)."""
    path = tmp_path / "tiny-model.gguf"
    path.write_bytes(b"GGUF")
    return path


@pytest.fixture
def no_default_local(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Point the default local model at a file that does not exist."""
    monkeypatch.setattr(factory, "DEFAULT_LOCAL_MODEL", tmp_path / "absent.gguf")


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend llama-cpp-python is installed (nothing is loaded by these tests)."""
    monkeypatch.setattr(factory, "local_runtime_installed", lambda: True)
    monkeypatch.setattr(local, "llama_cpp_module", lambda: object())


# -- make_chat_model ---------------------------------------------------------------------------------


def test_openai_spec_with_key() -> None:
    model = make_chat_model("openai:gpt-4o-mini", env={"OPENAI_API_KEY": OPENAI_KEY})
    assert isinstance(model, OpenAIChatModel)
    assert isinstance(model, ChatModel)
    assert model.name == "openai:gpt-4o-mini"
    assert model.base_url.startswith("https://api.openai.com/v1")
    assert (model.timeout, model.attempts) == (60.0, 3)
    assert OPENAI_KEY not in repr(model)


def test_openai_spec_without_model_uses_rag_openai_model() -> None:
    model = make_chat_model("openai", env={"OPENAI_API_KEY": OPENAI_KEY, "RAG_OPENAI_MODEL": "gpt-4.1-nano"})
    assert model.name == "openai:gpt-4.1-nano"


def test_openai_spec_with_base_url_needs_no_key_and_talks_to_that_server() -> None:
    with FakeOpenAIServer([FakeReply(text="from ollama", usage=(5, 2))]) as server:
        model = make_chat_model("openai:qwen2.5:7b", timeout=7.5, env={"OPENAI_BASE_URL": server.base_url})
        assert model.name == "openai:qwen2.5:7b"
        assert isinstance(model, OpenAIChatModel)
        assert model.base_url.rstrip("/") == server.base_url
        assert model.timeout == 7.5
        assert model.complete([ChatMessage("user", "hi")]).text == "from ollama"
        assert server.requests[0].body["model"] == "qwen2.5:7b"


def test_openai_spec_without_key_or_base_url() -> None:
    with pytest.raises(ConfigError, match=r"'openai:gpt-4o-mini' needs OPENAI_API_KEY .*OPENAI_BASE_URL"):
        make_chat_model("openai:gpt-4o-mini", env={})


def test_groq_spec() -> None:
    model = make_chat_model("groq:llama-3.1-8b-instant", timeout=20, env={"GROQ_API_KEY": GROQ_KEY})
    assert isinstance(model, OpenAIChatModel)
    assert model.name == "groq:llama-3.1-8b-instant"
    assert model.provider == "groq"
    assert model.timeout == 20
    assert GROQ_KEY not in repr(model)


def test_groq_spec_without_model_uses_default() -> None:
    assert make_chat_model("groq", env={"GROQ_API_KEY": GROQ_KEY}).name == "groq:llama-3.1-8b-instant"


def test_groq_spec_without_key() -> None:
    with pytest.raises(ConfigError, match=r"'groq:llama-3\.1-8b-instant' needs GROQ_API_KEY"):
        make_chat_model("groq:llama-3.1-8b-instant", env={"OPENAI_API_KEY": OPENAI_KEY})


def test_groq_spec_against_fake_server() -> None:
    with FakeOpenAIServer([FakeReply(text="fast")]) as server:
        model = make_chat_model("groq:llama-3.1-8b-instant", env={"GROQ_API_KEY": GROQ_KEY,
                                                                   "GROQ_BASE_URL": server.root_url})
        assert model.complete([ChatMessage("user", "hi")]).text == "fast"
        assert server.requests[0].headers["authorization"] == f"Bearer {GROQ_KEY}"


def test_local_spec_with_path(gguf: Path, runtime: None) -> None:
    model = make_chat_model(f"local:{gguf}", env={})
    assert isinstance(model, LlamaCppChatModel)
    assert model.name == "local:tiny-model"
    assert model.model_path == gguf.resolve()
    assert model.load_seconds == 0.0  # nothing is loaded until the first call


def test_local_spec_uses_rag_local_model(gguf: Path, runtime: None) -> None:
    model = make_chat_model("local", env={"RAG_LOCAL_MODEL": str(gguf)})
    assert isinstance(model, LlamaCppChatModel)
    assert model.model_path == gguf.resolve()


def test_local_spec_uses_default_file(gguf: Path, runtime: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "DEFAULT_LOCAL_MODEL", gguf)
    model = make_chat_model("local", env={})
    assert isinstance(model, LlamaCppChatModel)
    assert model.model_path == gguf.resolve()


def test_local_spec_missing_file_says_make_local_llm(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ConfigError, match=r"nope\.gguf' does not exist; run `make local-llm`"):
        make_chat_model(f"local:{missing}", env={})
    with pytest.raises(ConfigError, match="make local-llm"):
        make_chat_model("local", env={"RAG_LOCAL_MODEL": str(missing)})


def test_local_spec_missing_default_file(no_default_local: None) -> None:
    with pytest.raises(ConfigError, match=r"absent\.gguf' does not exist; run `make local-llm`"):
        make_chat_model("local", env={})


def test_local_spec_without_runtime_says_make_local_llm(gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` raise ImportError
    with pytest.raises(ConfigError, match=r"llama-cpp-python, which is not installed.*run `make local-llm`"):
        make_chat_model(f"local:{gguf}", env={})


@pytest.mark.parametrize("spec", ["claude:sonnet", "gpt-4o-mini", "", "  ", "localhost:8080", "extractive:x"])
def test_unknown_spec_names_value_and_allowed_forms(spec: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make_chat_model(spec, env={"OPENAI_API_KEY": OPENAI_KEY})
    message = str(caught.value)
    assert f"llm={spec!r} is not allowed" in message
    for form in ("'openai:<model>'", "'groq:<model>'", "'local'", "'local:<path.gguf>'", "'extractive'"):
        assert form in message


def test_extractive_is_not_a_chat_model() -> None:
    with pytest.raises(ConfigError, match="'extractive' is the no-LLM generator, not a chat model"):
        make_chat_model("extractive", env={})


def test_spec_provider_is_case_insensitive_and_trimmed() -> None:
    assert make_chat_model(" OpenAI:gpt-4o ", env={"OPENAI_API_KEY": OPENAI_KEY}).name == "openai:gpt-4o"


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="timeout=0 is not allowed"):
        make_chat_model("openai:gpt-4o-mini", timeout=0, env={"OPENAI_API_KEY": OPENAI_KEY})


# -- detect_default_llm / available_llms ------------------------------------------------------------------


def test_detect_rag_llm_wins() -> None:
    env = {"RAG_LLM": "groq:llama-3.3-70b-versatile", "OPENAI_API_KEY": OPENAI_KEY, "GROQ_API_KEY": GROQ_KEY}
    assert detect_default_llm(env) == "groq:llama-3.3-70b-versatile"


def test_detect_openai_before_groq() -> None:
    assert detect_default_llm({"OPENAI_API_KEY": OPENAI_KEY, "GROQ_API_KEY": GROQ_KEY}) == "openai:gpt-4o-mini"


def test_detect_openai_base_url_and_model() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1", "RAG_OPENAI_MODEL": "llama3.2"}
    assert detect_default_llm(env) == "openai:llama3.2"


def test_detect_groq() -> None:
    assert detect_default_llm({"GROQ_API_KEY": GROQ_KEY}) == "groq:llama-3.1-8b-instant"


def test_detect_local_when_file_and_runtime_exist(gguf: Path, runtime: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "DEFAULT_LOCAL_MODEL", gguf)
    assert detect_default_llm({}) == "local"
    assert detect_default_llm({"GROQ_API_KEY": GROQ_KEY}) == "groq:llama-3.1-8b-instant"


def test_detect_local_needs_the_runtime(gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "DEFAULT_LOCAL_MODEL", gguf)
    monkeypatch.setattr(factory, "local_runtime_installed", lambda: False)
    assert detect_default_llm({}) == "extractive"


def test_detect_extractive_when_nothing_is_configured(no_default_local: None, runtime: None) -> None:
    assert detect_default_llm({}) == "extractive"
    assert detect_default_llm({"RAG_LLM": "  ", "OPENAI_API_KEY": ""}) == "extractive"


def test_available_llms_lists_everything_usable(gguf: Path, runtime: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "DEFAULT_LOCAL_MODEL", gguf)
    env = {"RAG_LLM": "openai:gpt-4.1", "OPENAI_API_KEY": OPENAI_KEY, "GROQ_API_KEY": GROQ_KEY}
    assert available_llms(env) == ["openai:gpt-4.1", "openai:gpt-4o-mini", "groq:llama-3.1-8b-instant", "local",
                                   "extractive"]


def test_available_llms_always_has_extractive(no_default_local: None) -> None:
    assert available_llms({}) == ["extractive"]
    assert available_llms({"RAG_LLM": "extractive"}) == ["extractive"]
