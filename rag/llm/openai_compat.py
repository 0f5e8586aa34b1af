"""Chat models behind the OpenAI chat-completions API: OpenAI, Groq, and OpenAI-compatible servers.

One class serves them all, because `openai.OpenAI` and `groq.Groq` clients share the
`client.chat.completions.create(...)` shape; Ollama, vLLM and the llama.cpp server speak the same
protocol (reach them through `OPENAI_BASE_URL`). Retries are the SDK's own (`max_retries`, default
2: three attempts in all, with back-off that honours `Retry-After`), every request has a timeout,
and every failure becomes an `LLMError` naming the model, the problem and the HTTP status.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from rag.llm.base import ChatMessage, ChatResponse, LLMError, estimate_prompt_tokens, to_dicts
from rag.tokens import estimate_tokens

_KEY_PATTERN = re.compile(r"\b(?:sk|gsk|pk|rk)[-_][A-Za-z0-9_\-]{8,}")
_KEY_ENV = {"openai": "OPENAI_API_KEY", "groq": "GROQ_API_KEY"}
_DETAIL_LIMIT = 200


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


class OpenAIChatModel:
    """A `ChatModel` over an `openai.OpenAI`-style client (also `groq.Groq`).

    `provider` only names the model (`<provider>:<model>`) and picks provider quirks: OpenAI gets
    `stream_options={"include_usage": True}` when streaming, Groq reports streamed usage in
    `x_groq.usage`. `timeout` (seconds) and `max_retries` are applied to the client with
    `with_options` when it has that method (both SDKs do).
    """

    def __init__(self, client: Any, model: str, provider: str = "openai", *, timeout: float = 60.0,
                 max_retries: int = 2) -> None:
        self.model = model
        self.provider = provider
        self.name = f"{provider}:{model}"
        self.timeout = timeout
        self.max_retries = max_retries
        self.last_usage: tuple[int, int] = (0, 0)
        self._secret = str(getattr(client, "api_key", "") or "")
        with_options = getattr(client, "with_options", None)
        self._client = with_options(timeout=timeout, max_retries=max_retries) if callable(with_options) else client
        self._stream_options = provider == "openai"
        self._limit_field = "max_tokens"
        self._quirk_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIChatModel(name={self.name!r}, base_url={self.base_url!r}, timeout={self.timeout:g})"

    @property
    def base_url(self) -> str:
        """The API base URL the client talks to (user info stripped)."""
        raw = str(getattr(self._client, "base_url", "") or "")
        parts = urlsplit(raw)
        if "@" in parts.netloc:
            parts = parts._replace(netloc=parts.netloc.rsplit("@", 1)[1])
        return urlunsplit(parts)

    @property
    def attempts(self) -> int:
        """How many attempts one call makes at most (1 + the SDK's retries)."""
        return self.max_retries + 1

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_mode: bool = False,
    ) -> ChatResponse:
        """Answer the conversation in one request; usage comes from the response or is estimated."""
        kwargs: dict[str, Any] = {"temperature": temperature}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        response = self._create(messages, max_tokens, kwargs)
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise LLMError(self.name, "the response has no choices", kind="other")
        message = getattr(choices[0], "message", None)
        text = str(getattr(message, "content", None) or "")
        usage = getattr(response, "usage", None)
        tokens_in = _usage_value(usage, "prompt_tokens")
        tokens_out = _usage_value(usage, "completion_tokens")
        if tokens_in is None:
            tokens_in = estimate_prompt_tokens(messages)
        if tokens_out is None:
            tokens_out = estimate_tokens(text)
        self.last_usage = (tokens_in, tokens_out)
        model = str(getattr(response, "model", None) or self.model)
        return ChatResponse(text=text, tokens_in=tokens_in, tokens_out=tokens_out, model=model)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> Iterator[str]:
        """Yield text pieces as the server sends them; `last_usage` is set when the iterator ends.

        Usage comes from the final usage chunk (OpenAI with `include_usage`, Groq's `x_groq`);
        servers that send none get an estimate.
        """
        self.last_usage = (0, 0)
        kwargs: dict[str, Any] = {"temperature": temperature, "stream": True}
        pieces: list[str] = []
        usage: Any = None
        response = self._create(messages, max_tokens, kwargs)
        try:
            for chunk in response:
                chunk_usage = getattr(chunk, "usage", None) or getattr(getattr(chunk, "x_groq", None), "usage", None)
                if chunk_usage is not None:
                    usage = chunk_usage
                for choice in getattr(chunk, "choices", None) or []:
                    if getattr(choice, "index", 0) not in (0, None):
                        continue
                    piece = getattr(getattr(choice, "delta", None), "content", None)
                    if piece:
                        pieces.append(piece)
                        yield piece
        except LLMError:
            raise
        except Exception as exc:
            raise self._error(exc) from None
        finally:
            close = getattr(response, "close", None)
            if callable(close):
                close()
            tokens_in = _usage_value(usage, "prompt_tokens")
            tokens_out = _usage_value(usage, "completion_tokens")
            self.last_usage = (
                estimate_prompt_tokens(messages) if tokens_in is None else tokens_in,
                estimate_tokens("".join(pieces)) if tokens_out is None else tokens_out,
            )

    # -- internals -----------------------------------------------------------------------------------

    def _create(self, messages: Sequence[ChatMessage], max_tokens: int, kwargs: dict[str, Any]) -> Any:
        """Call `chat.completions.create`, adapting once to servers that reject an optional parameter."""
        for _ in range(3):
            request = dict(kwargs)
            request[self._limit_field] = max_tokens
            streaming = bool(request.get("stream"))
            if streaming and self._stream_options:
                request["stream_options"] = {"include_usage": True}
            try:
                return self._client.chat.completions.create(model=self.model, messages=to_dicts(messages), **request)
            except Exception as exc:
                if self._adapt(exc, streaming):
                    continue
                raise self._error(exc) from None
        raise LLMError(self.name, "the server rejected the request parameters", kind="bad_request")

    def _adapt(self, exc: Exception, streaming: bool) -> bool:
        """Learn from a 400 naming `stream_options` or `max_tokens`; True when the request should be resent."""
        if getattr(exc, "status_code", None) not in (400, 422):
            return False
        detail = self._detail(exc).lower()
        with self._quirk_lock:
            if streaming and self._stream_options and "stream_options" in detail:
                self._stream_options = False
                return True
            if self._limit_field == "max_tokens" and "max_completion_tokens" in detail:
                self._limit_field = "max_completion_tokens"
                return True
        return False

    def _redact(self, text: str) -> str:
        if self._secret and len(self._secret) >= 4:
            text = text.replace(self._secret, "***")
        return _KEY_PATTERN.sub("***", text)

    def _detail(self, exc: BaseException) -> str:
        """A short, redacted description of what the server said."""
        body = getattr(exc, "body", None)
        detail = ""
        if isinstance(body, dict):
            error = body.get("error", body)
            detail = str(error.get("message", "") if isinstance(error, dict) else error)
        if not detail:
            detail = str(getattr(exc, "message", "") or exc)
        detail = " ".join(self._redact(detail).split())
        return detail if len(detail) <= _DETAIL_LIMIT else detail[: _DETAIL_LIMIT - 1] + "…"

    def _error(self, exc: BaseException) -> LLMError:
        """Map an SDK (or transport) exception to an `LLMError` that names the status and never the key."""
        names = _names(exc)
        attempts = self.attempts
        status = getattr(exc, "status_code", None)
        if not isinstance(status, int):
            status = None
        if "APITimeoutError" in names or "TimeoutException" in names or isinstance(exc, TimeoutError):
            return LLMError(self.name, f"timed out after {self.timeout:g} s per attempt, {attempts} attempts",
                            kind="timeout", attempts=attempts)
        if "APIConnectionError" in names or "ConnectError" in names:
            return LLMError(self.name, f"cannot reach {self.base_url} after {attempts} attempts",
                            kind="connection", attempts=attempts)
        if status is None:
            return LLMError(self.name, f"{type(exc).__name__}: {self._detail(exc)}", kind="other")
        detail = self._detail(exc)
        if status == 429:
            return LLMError(self.name, f"rate limited (429) after {attempts} attempts: {detail}", status=status,
                            kind="rate_limit", attempts=attempts)
        if status >= 500 or status in (408, 409):
            return LLMError(self.name, f"server error ({status}) after {attempts} attempts: {detail}", status=status,
                            kind="server" if status >= 500 else "timeout", attempts=attempts)
        if status in (401, 403):
            variable = _KEY_ENV.get(self.provider, "the API key")
            return LLMError(self.name, f"authentication failed ({status}); check {variable}: {detail}",
                            status=status, kind="auth")
        if status == 404:
            return LLMError(self.name, f"not found (404); is the model name right? {detail}", status=status,
                            kind="not_found")
        if status in (400, 413, 422):
            return LLMError(self.name, f"request rejected ({status}): {detail}", status=status, kind="bad_request")
        return LLMError(self.name, f"HTTP {status}: {detail}", status=status, kind="other")


def _usage_value(usage: Any, field: str) -> int | None:
    """`usage.<field>` (object or dict) as an int, or None when absent."""
    if usage is None:
        return None
    value = usage.get(field) if isinstance(usage, dict) else getattr(usage, field, None)
    return int(value) if isinstance(value, int | float) else None
