"""OpenAIChatModel against a real local OpenAI-compatible HTTP server (stdlib, loopback only)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import groq
import openai
import pytest

from rag.llm import ChatMessage, ChatModel, ChatResponse, LLMError, OpenAIChatModel
from tests.llm.fake_openai_server import FakeOpenAIServer, FakeReply

API_KEY = "sk-test-SECRET-0123456789abcdefXYZ"
MESSAGES = [ChatMessage("system", "Answer briefly."), ChatMessage("user", "What does GET /employees return?")]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A started fake server; tests add their script with `server.add(...)`."""
    with FakeOpenAIServer() as fake:
        yield fake


def make_model(server: FakeOpenAIServer, *, timeout: float = 5.0, provider: str = "openai") -> OpenAIChatModel:
    """An OpenAIChatModel on a real `openai.OpenAI` client pointed at the fake server."""
    client = openai.OpenAI(api_key=API_KEY, base_url=server.base_url)
    return OpenAIChatModel(client, "gpt-4o-mini", provider, timeout=timeout, max_retries=2)


def assert_no_key(*texts: str) -> None:
    """None of the texts contains the API key (nor a recognisable part of it)."""
    for text in texts:
        assert API_KEY not in text
        assert "SECRET-0123456789" not in text


def test_is_a_chat_model(server: FakeOpenAIServer) -> None:
    model = make_model(server)
    assert isinstance(model, ChatModel)
    assert model.name == "openai:gpt-4o-mini"
    assert model.attempts == 3


def test_complete_returns_text_usage_and_model(server: FakeOpenAIServer) -> None:
    server.add(FakeReply(text="It returns a list of employees.", usage=(42, 7), model="gpt-4o-mini-2024"))
    response = make_model(server).complete(MESSAGES, max_tokens=64, temperature=0.2)
    assert response == ChatResponse(text="It returns a list of employees.", tokens_in=42, tokens_out=7,
                                    model="gpt-4o-mini-2024")
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.body["model"] == "gpt-4o-mini"
    assert sent.body["messages"] == [{"role": "system", "content": "Answer briefly."},
                                     {"role": "user", "content": "What does GET /employees return?"}]
    assert sent.body["max_tokens"] == 64
    assert sent.body["temperature"] == 0.2
    assert "response_format" not in sent.body
    assert "stream" not in sent.body


def test_complete_json_mode_asks_for_a_json_object(server: FakeOpenAIServer) -> None:
    server.add(FakeReply(text='{"answer": "yes"}'))
    response = make_model(server).complete(MESSAGES, json_mode=True)
    assert response.text == '{"answer": "yes"}'
    assert server.requests[0].body["response_format"] == {"type": "json_object"}


def test_complete_without_usage_estimates_tokens(server: FakeOpenAIServer) -> None:
    server.add(FakeReply(text="Three short words", usage=None))
    response = make_model(server).complete(MESSAGES)
    assert response.tokens_out == 3
    assert response.tokens_in > 10


def test_stream_yields_pieces_and_records_usage(server: FakeOpenAIServer) -> None:
    server.add(FakeReply(pieces=["It ", "returns ", "employees."], usage=(30, 3)))
    model = make_model(server)
    pieces = list(model.stream(MESSAGES, max_tokens=32))
    assert pieces == ["It ", "returns ", "employees."]
    assert model.last_usage == (30, 3)
    body = server.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 32


def test_stream_from_a_server_that_ignores_stream_options_estimates_usage(server: FakeOpenAIServer) -> None:
    server.add(FakeReply(text="one two three four", usage=None))
    model = make_model(server)
    assert "".join(model.stream(MESSAGES)) == "one two three four"
    tokens_in, tokens_out = model.last_usage
    assert tokens_out == 4
    assert tokens_in > 10


def test_stream_adapts_to_a_server_that_rejects_stream_options() -> None:
    with FakeOpenAIServer(reject_params={"stream_options"}) as server:
        model = make_model(server)
        assert "".join(model.stream(MESSAGES)) == "Hello from the fake server."
        assert "".join(model.stream(MESSAGES)) == "Hello from the fake server."
        assert "stream_options" in server.requests[0].body
        assert all("stream_options" not in request.body for request in server.requests[1:])
        assert len(server.requests) == 3  # one rejected, then two answered; the lesson is remembered


def test_rate_limit_then_success_is_retried(server: FakeOpenAIServer) -> None:
    server.add(FakeReply(status=429, error_message="Rate limit reached"), FakeReply(text="after retry"))
    response = make_model(server).complete(MESSAGES)
    assert response.text == "after retry"
    assert len(server.requests) == 2


def test_persistent_rate_limit_names_status_and_attempts(server: FakeOpenAIServer) -> None:
    server.default = FakeReply(status=429, error_message="Rate limit reached")
    with pytest.raises(LLMError) as caught:
        make_model(server).complete(MESSAGES)
    error = caught.value
    assert str(error).startswith("openai:gpt-4o-mini: rate limited (429) after 3 attempts")
    assert (error.status, error.kind, error.attempts, error.retryable) == (429, "rate_limit", 3, True)
    assert len(server.requests) == 3


def test_persistent_server_error_fails_after_bounded_attempts(server: FakeOpenAIServer) -> None:
    server.default = FakeReply(status=500, error_message="upstream exploded")
    with pytest.raises(LLMError) as caught:
        make_model(server).complete(MESSAGES)
    message = str(caught.value)
    assert "server error (500) after 3 attempts" in message
    assert "upstream exploded" in message
    assert caught.value.status == 500
    assert len(server.requests) == 3


def test_stream_server_error_is_an_llm_error(server: FakeOpenAIServer) -> None:
    server.default = FakeReply(status=503)
    with pytest.raises(LLMError, match=r"server error \(503\) after 3 attempts"):
        list(make_model(server).stream(MESSAGES))
    assert len(server.requests) == 3


def test_timeout_is_an_llm_error_after_bounded_attempts(server: FakeOpenAIServer) -> None:
    server.default = FakeReply(delay=5.0, text="too late")
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:
        make_model(server, timeout=0.3).complete(MESSAGES)
    elapsed = time.monotonic() - started
    assert caught.value.kind == "timeout"
    assert "timed out after 0.3 s per attempt, 3 attempts" in str(caught.value)
    assert len(server.requests) == 3
    assert elapsed < 5.0  # three 0.3 s attempts plus the SDK's short back-off, not the server's delay


def test_bad_request_is_not_retried(server: FakeOpenAIServer) -> None:
    server.default = FakeReply(status=400, error_message="messages must not be empty", retry_after_ms=None)
    with pytest.raises(LLMError, match=r"request rejected \(400\): messages must not be empty") as caught:
        make_model(server).complete(MESSAGES)
    assert caught.value.kind == "bad_request"
    assert not caught.value.retryable
    assert len(server.requests) == 1


def test_connection_refused_is_an_llm_error() -> None:
    with FakeOpenAIServer() as server:
        model = make_model(server, timeout=1.0)
    # The server is stopped: nothing listens on the port any more.
    with pytest.raises(LLMError) as caught:
        model.complete(MESSAGES)
    assert caught.value.kind == "connection"
    assert "cannot reach http://127.0.0.1:" in str(caught.value)


def test_auth_error_never_contains_the_api_key(server: FakeOpenAIServer) -> None:
    server.default = FakeReply(status=401, error_message=f"Incorrect API key provided: {API_KEY}", echo_auth=True)
    model = make_model(server)
    with pytest.raises(LLMError) as caught:
        model.complete(MESSAGES)
    error = caught.value
    assert "authentication failed (401); check OPENAI_API_KEY" in str(error)
    assert error.kind == "auth"
    assert len(server.requests) == 1  # 401 is not retried
    assert error.__cause__ is None and error.__suppress_context__
    assert_no_key(str(error), repr(error), repr(error.args), repr(model), str(vars(error)))


@pytest.mark.parametrize("status", [429, 500])
def test_retryable_errors_never_contain_the_api_key(server: FakeOpenAIServer, status: int) -> None:
    server.default = FakeReply(status=status, error_message=f"key {API_KEY} is busy", echo_auth=True)
    with pytest.raises(LLMError) as caught:
        make_model(server).complete(MESSAGES)
    assert_no_key(str(caught.value), repr(caught.value))
    assert "***" in str(caught.value)


def test_groq_client_through_the_same_class() -> None:
    with FakeOpenAIServer([FakeReply(text="groq says hi", usage=(9, 3)),
                           FakeReply(pieces=["a", "b"], usage=(9, 2), stream_usage_always=True)]) as server:
        client = groq.Groq(api_key="gsk_test_SECRET_0123456789", base_url=server.root_url)
        model = OpenAIChatModel(client, "llama-3.1-8b-instant", "groq", timeout=5.0)
        assert model.name == "groq:llama-3.1-8b-instant"
        assert model.complete(MESSAGES) == ChatResponse("groq says hi", 9, 3, "fake-model")
        assert list(model.stream(MESSAGES)) == ["a", "b"]
        assert model.last_usage == (9, 2)
        assert server.requests[0].path == "/openai/v1/chat/completions"
        assert "stream_options" not in server.requests[1].body  # the Groq SDK has no such parameter


def test_groq_auth_error_names_groq_key() -> None:
    with FakeOpenAIServer(default=FakeReply(status=401, echo_auth=True)) as server:
        client = groq.Groq(api_key="gsk_test_SECRET_0123456789", base_url=server.root_url)
        model = OpenAIChatModel(client, "llama-3.1-8b-instant", "groq", timeout=5.0)
        with pytest.raises(LLMError, match="check GROQ_API_KEY") as caught:
            model.complete(MESSAGES)
        assert "SECRET_0123456789" not in str(caught.value)


def test_max_completion_tokens_fallback(server: FakeOpenAIServer) -> None:
    server.add(FakeReply(status=400, retry_after_ms=None,
                         error_message="Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."),
               FakeReply(text="ok"))
    model = make_model(server)
    assert model.complete(MESSAGES, max_tokens=20).text == "ok"
    assert server.requests[1].body["max_completion_tokens"] == 20
    assert "max_tokens" not in server.requests[1].body


def test_chat_message_rejects_unknown_roles() -> None:
    with pytest.raises(ValueError, match="role='tool' is not allowed; allowed: 'assistant', 'system', 'user'"):
        ChatMessage("tool", "x")
