"""The chat-model interface shared by every LLM backend (hosted APIs and the local llama.cpp model)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

from rag.errors import RagError, allowed
from rag.tokens import estimate_tokens

ROLES: frozenset[str] = frozenset({"system", "user", "assistant"})


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation; `role` is `system`, `user` or `assistant`."""

    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise allowed("role", self.role, ROLES)


@dataclass(frozen=True)
class ChatResponse:
    """A completed answer with its token usage (reported by the backend, or estimated) and the model used."""

    text: str
    tokens_in: int
    tokens_out: int
    model: str


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: `complete` answers at once, `stream` yields text pieces.

    `name` is `<provider>:<model>`, e.g. "openai:gpt-4o-mini", "groq:llama-3.1-8b-instant" or
    "local:qwen2.5-coder-1.5b-instruct-q4_k_m". After a `stream` iterator is exhausted,
    `last_usage` holds `(tokens_in, tokens_out)` of that call. Failures raise `LLMError`.
    """

    name: str
    last_usage: tuple[int, int]

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_mode: bool = False,
    ) -> ChatResponse:
        """Answer the conversation; `json_mode` asks the backend for a JSON object."""
        ...

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> Iterator[str]:
        """Yield the answer piece by piece; set `last_usage` when done."""
        ...


class LLMError(RagError):
    """One chat call failed, e.g. "openai:gpt-4o-mini: rate limited (429) after 3 attempts".

    `model` is the model's name, `status` the HTTP status when there was one, `kind` one of
    "timeout", "connection", "rate_limit", "server", "auth", "bad_request", "not_found", "other",
    and `attempts` how many attempts were made. The message never contains an API key.
    """

    def __init__(self, model: str, problem: str, *, status: int | None = None, kind: str = "other",
                 attempts: int = 1) -> None:
        super().__init__(f"{model}: {problem}")
        self.model = model
        self.problem = problem
        self.status = status
        self.kind = kind
        self.attempts = attempts

    @property
    def retryable(self) -> bool:
        """True for failures that may pass later (timeouts, connection errors, 429, 5xx)."""
        return self.kind in {"timeout", "connection", "rate_limit", "server"}


def is_loopback_url(url: str) -> bool:
    """Whether `url` points at this machine (localhost, 127.x.x.x, ::1): a local server, not a hosted API."""
    host = (urlsplit(url.strip()).hostname or "").lower()
    return host == "localhost" or host.startswith("127.") or host == "::1"


def estimate_prompt_tokens(messages: Sequence[ChatMessage]) -> int:
    """Estimate the prompt tokens of `messages` (content estimate plus ~4 tokens of framing per message)."""
    return sum(estimate_tokens(message.content) + 4 for message in messages)


def to_dicts(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """The messages in the `[{"role": ..., "content": ...}]` form the chat APIs take."""
    return [{"role": message.role, "content": message.content} for message in messages]
