"""Deterministic test doubles shared by the test suites (import them; conftest stays fixture-only)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rag.chunk import Chunk
from rag.ingest.clean_text import clean_description
from rag.llm.base import ChatMessage, ChatResponse, estimate_prompt_tokens
from rag.results import AnswerResult, RetrievedChunk
from rag.tokens import estimate_tokens

Reply = str | dict[str, Any] | list[Any] | BaseException
Script = Sequence[Reply] | Callable[[Sequence[ChatMessage]], Reply]


@dataclass(frozen=True)
class FakeCall:
    """One call a FakeChatModel received."""

    method: str  # "complete" or "stream"
    messages: tuple[ChatMessage, ...]
    max_tokens: int
    temperature: float
    json_mode: bool


class FakeChatModel:
    """A scripted chat model: no network, same answers every run.

    `responses` is a list used in order (each call takes the next reply; the last one repeats when
    `repeat_last` is set, otherwise running out fails the test), or a function of the messages.
    A reply may be a string, a dict or list (sent as JSON text) or an exception instance (raised,
    e.g. `LLMError(...)`). Every call is recorded in `calls`; `stream` yields the reply in pieces of
    `piece_chars` characters and then sets `last_usage`.
    """

    def __init__(self, responses: Script = (), *, name: str = "fake:scripted", piece_chars: int = 5,
                 repeat_last: bool = False) -> None:
        self.name = name
        self.piece_chars = max(1, piece_chars)
        self.repeat_last = repeat_last
        self.calls: list[FakeCall] = []
        self.last_usage: tuple[int, int] = (0, 0)
        self._script = responses
        self._next = 0

    @property
    def messages(self) -> list[ChatMessage]:
        """The messages of the latest call (empty before any call)."""
        return list(self.calls[-1].messages) if self.calls else []

    @property
    def system_prompt(self) -> str:
        """The system message content of the latest call."""
        return next((m.content for m in self.messages if m.role == "system"), "")

    @property
    def user_prompt(self) -> str:
        """The last user message content of the latest call."""
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")

    def _reply(self, messages: Sequence[ChatMessage]) -> str:
        if callable(self._script):
            reply = self._script(messages)
        else:
            script = list(self._script)
            if self._next < len(script):
                reply = script[self._next]
                self._next += 1
            elif self.repeat_last and script:
                reply = script[-1]
            else:
                raise AssertionError(f"FakeChatModel: no scripted reply left for call {len(self.calls)}")
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, (dict, list)):
            return json.dumps(reply)
        return str(reply)

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0,
                 json_mode: bool = False) -> ChatResponse:
        """Record the call and return the next scripted reply."""
        self.calls.append(FakeCall("complete", tuple(messages), max_tokens, temperature, json_mode))
        text = self._reply(messages)
        usage = (estimate_prompt_tokens(messages), estimate_tokens(text))
        self.last_usage = usage
        return ChatResponse(text=text, tokens_in=usage[0], tokens_out=usage[1], model=self.name)

    def stream(self, messages: Sequence[ChatMessage], *, max_tokens: int = 512,
               temperature: float = 0.0) -> Iterator[str]:
        """Record the call and yield the next scripted reply in small pieces."""
        self.calls.append(FakeCall("stream", tuple(messages), max_tokens, temperature, False))
        text = self._reply(messages)
        for start in range(0, len(text), self.piece_chars):
            yield text[start:start + self.piece_chars]
        self.last_usage = (estimate_prompt_tokens(messages), estimate_tokens(text))


def make_chunk(structural_id: str, text: str, *, api: str = "", kind: str = "schema", title: str = "",
               chunk_id: str = "", json_pointer: str = "", source: str = "", **facts: Any) -> Chunk:
    """A smart chunk built directly (no ingestion): `structural_id` is its only `covers` entry; `facts` are
    further `Chunk` fields (`parameters`, `responses`, `schema_fields` …), which the text is not read for."""
    api = api or structural_id.split(".", 1)[0]
    if kind == "operation" and "description" in facts:  # as ingest reads it (`rag.ingest.clean_text.clean_description`)
        facts.setdefault("opening", clean_description(facts["description"])[1])
    return Chunk(
        chunk_id=chunk_id or f"smart/{structural_id}",
        strategy="smart",
        api=api,
        kind=kind,  # type: ignore[arg-type]
        text=text,
        embedding_text=text[:200],
        covers=(structural_id,),
        source=source or f"{api}.json",
        json_pointer=json_pointer,
        tokens=estimate_tokens(text),
        title=title or (text.splitlines()[0].split("  [")[0] if text else structural_id),
        **facts,
    )


def retrieved(*chunks: Chunk) -> list[RetrievedChunk]:
    """The chunks as a ranked result list (rank 1 first)."""
    return [RetrievedChunk(chunk=chunk, rank=rank) for rank, chunk in enumerate(chunks, start=1)]


def answer_with_chunks(config: str, *items: tuple[str, int], **fields: Any) -> AnswerResult:
    """An AnswerResult of `config` whose chunks cover the given (structural id, rank) pairs."""
    chunks = [
        RetrievedChunk(make_chunk(sid, f"text of {sid}", chunk_id=f"{config}/{sid}"), {"vector": 0.5}, rank)
        for sid, rank in items
    ]
    return AnswerResult(config=config, question="q", chunks=chunks, **fields)


@dataclass(frozen=True)
class FakeBooster:
    """A deterministic stand-in for the learned ranker's model (`rag.rerank.learned.RankingModel`): a linear score
    over named features (`weights`: feature name → weight), each feature's contribution its value × weight."""

    weights: tuple[tuple[str, float], ...]
    bias: float = 0.0

    def score(self, features: Any) -> Any:
        """Per row: the sum of its contributions (each feature's value × weight, the bias last)."""
        import numpy as np

        from rag.rerank.features import FEATURE_NAMES
        from rag.rerank.learned import Scored

        weight = dict(self.weights)
        vector = np.array([weight.get(name, 0.0) for name in FEATURE_NAMES])
        rows = np.asarray(features, dtype=float).reshape(-1, len(FEATURE_NAMES))
        contributions = np.hstack([rows * vector, np.full((len(rows), 1), self.bias)])
        return Scored(contributions.sum(axis=1), lambda row: contributions[row])


# A small music API: an album operation that takes an id, albums listed, playback, and a search operation (the
# lookup lift's target).
MUSIC_SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Music", "version": "1"},
    "paths": {
        "/search": {"get": {"summary": "Search for Item", "parameters": [
            {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "Albums, artists and tracks matching the query"}}}},
        "/albums/{id}": {"get": {"summary": "Get Album", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "An album"}}}},
        "/albums": {"get": {"summary": "List Albums", "responses": {"200": {"description": "Albums"}}}},
        "/me/player/play": {"put": {"summary": "Start playing an album", "responses": {"204": {"description": "ok"}}}},
    },
}  # fmt: skip
