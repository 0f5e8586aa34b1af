"""Deterministic test doubles shared by the test suites (import them; conftest stays fixture-only)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.chunk import Chunk
from rag.llm.base import ChatMessage, ChatResponse, estimate_prompt_tokens
from rag.results import RetrievedChunk
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
               chunk_id: str = "", json_pointer: str = "", source: str = "") -> Chunk:
    """A smart chunk built directly (no ingestion): `structural_id` is its only `covers` entry."""
    api = api or structural_id.split(".", 1)[0]
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
    )


def retrieved(*chunks: Chunk) -> list[RetrievedChunk]:
    """The chunks as a ranked result list (rank 1 first)."""
    return [RetrievedChunk(chunk=chunk, rank=rank) for rank, chunk in enumerate(chunks, start=1)]


def write_wordnet(
    directory: Path,
    nouns: dict[str, list[tuple[str, list[str], int]]],
    verbs: dict[str, int] | None = None,
    adjectives: dict[str, int] | None = None,
) -> Path:
    """A tiny WordNet database in WordNet's own file format (what `rag.lexicon` reads).

    `nouns` maps a lemma to its senses, most frequent first: (lexicographer file such as "noun.artifact",
    the other lemmas of the synset, tagged-sense count). `verbs` and `adjectives` map a lemma to its
    tagged-sense count (one sense each).
    """
    from rag.lexicon import LEXICOGRAPHER_FILES

    directory.mkdir(parents=True, exist_ok=True)
    data = "  1 A tiny WordNet written by the tests.\n"
    index_lines: dict[str, list[str]] = {}
    for lemma, senses in sorted(nouns.items()):
        offsets, tagged = [], 0
        for lexfile, synonyms, count in senses:
            offsets.append(len(data.encode()))
            words = [lemma, *synonyms]
            listed = " ".join(f"{w} 0" for w in words)
            data += f"{offsets[-1]:08d} {LEXICOGRAPHER_FILES.index(lexfile):02d} n {len(words):02x} {listed} 000 | x\n"
            tagged += count
        index_lines.setdefault("noun", []).append(
            f"{lemma} n {len(senses)} 0 {len(senses)} {tagged} " + " ".join(f"{o:08d}" for o in offsets)
        )
    for name, table in (("verb", verbs or {}), ("adj", adjectives or {})):
        pos = name[0]
        index_lines[name] = [f"{lemma} {pos} 1 0 1 {count} 00000000" for lemma, count in sorted(table.items())]
    (directory / "data.noun").write_text(data, encoding="utf-8")
    for name in ("noun", "verb", "adj", "adv"):
        (directory / f"index.{name}").write_text(
            "  1 A tiny WordNet written by the tests.\n" + "\n".join(index_lines.get(name, [])) + "\n", encoding="utf-8"
        )
    return directory
