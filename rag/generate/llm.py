"""The LLM generator: a chat model answers from the numbered context, citing blocks as [n].

`generate` uses JSON mode (`{"abstained", "answer", "citations"}`, plus `reasoning_steps` for
chain-of-thought verification) and parses the reply leniently; `stream` uses a plain-text variant
whose first line, `ANSWERABLE: yes|no`, is held back and never shown. Chat failures (`LLMError`)
propagate to the caller.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, StreamEvent
from rag.generate.compact import (
    COMPACT_ANSWER_TOKENS,
    COMPACT_REASONING_TOKENS,
    build_compact_messages,
    compact_blocks,
)
from rag.generate.context import (
    ContextBlock,
    build_context,
    drop_unknown_markers,
    extract_references,
    resolve_references,
)
from rag.generate.prompts import about_the_lead, build_messages
from rag.llm.base import ChatMessage, ChatModel, estimate_prompt_tokens
from rag.tokens import estimate_tokens

ANSWER_MAX_TOKENS = 700
REASONING_MAX_TOKENS = 1400
GATE_NOTE = "(Retrieval confidence was too low to answer, so the language model was not asked.)"
EMPTY_ANSWER = "(The model returned no answer.)"

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?|\n?\s*```\s*$")
_PARTIAL_ANSWER = re.compile(r'"answer"\s*:\s*"((?:[^"\\]|\\.)*)', re.DOTALL)
_ANSWERABLE_LINE = re.compile(
    r"^[\s*_`#>]*ANSWERABLE[\s*_`]*[:=\-]?[\s*_`]*(yes|no|true|false)\b[\s*_`.:]*", re.IGNORECASE
)
_HEAD_LIMIT = 200
_MAX_JSON_STARTS = 25


@dataclass
class ParsedOutput:
    """What a model reply said, however well-formed it was."""

    answer: str
    abstained: bool = False
    references: list[int | str] = field(default_factory=list)
    reasoning_steps: list[str] = field(default_factory=list)
    was_json: bool = False


def _normalise(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").strip().lower()


def starts_with_abstention(text: str) -> bool:
    """Whether `text` begins with the abstention message (curly apostrophes and case ignored)."""
    return _normalise(text).startswith(_normalise(ABSTAIN_MESSAGE))


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (code fences and surrounding prose allowed), or None."""
    decoder = json.JSONDecoder()
    cleaned = _FENCE.sub("", text.strip())
    for candidate in (cleaned, text):
        start = candidate.find("{")
        attempts = 0
        while start != -1 and attempts < _MAX_JSON_STARTS:
            attempts += 1
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = candidate.find("{", start + 1)
    return None


def _as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"true", "yes", "1", "y"}
    return bool(value)


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n".join(_as_text(item) for item in value if item is not None).strip()
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value).strip()


def _as_references(value: Any) -> list[int | str]:
    items = value if isinstance(value, list) else [value] if value is not None else []
    references: list[int | str] = []
    for item in items:
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, int):
            references.append(item)
        elif isinstance(item, float) and item.is_integer():
            references.append(int(item))
        elif isinstance(item, str) and item.strip():
            inner = item.strip().strip("[]").strip()
            references.extend(extract_references(f"[{inner}]") or [inner])
    return references


def _as_steps(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value] if value is not None else []
    steps: list[str] = []
    for item in items:
        if isinstance(item, dict):
            text = "; ".join(f"{key}: {_as_text(part)}" for key, part in item.items())
        else:
            text = _as_text(item)
        if text:
            steps.append(text)
    return steps


def parse_model_output(text: str) -> ParsedOutput:
    """Parse a JSON-mode reply leniently; never raises.

    The first JSON object in the text is used; if there is none, a cut-off `"answer": "…"` is
    salvaged, and failing that the whole text is the answer.
    """
    data = extract_json_object(text or "")
    if data is not None:
        answer = _as_text(data.get("answer", data.get("response", data.get("text"))))
        return ParsedOutput(
            answer=answer,
            abstained=_as_bool(data.get("abstained", False)),
            references=_as_references(data.get("citations", data.get("sources"))),
            reasoning_steps=_as_steps(data.get("reasoning_steps", data.get("reasoning"))),
            was_json=True,
        )
    partial = _PARTIAL_ANSWER.search(text or "")
    if partial:
        raw = partial.group(1)
        try:
            answer = json.loads(f'"{raw}"')
        except json.JSONDecodeError:
            answer = raw.replace("\\n", "\n").replace('\\"', '"')
        return ParsedOutput(answer=answer.strip())
    return ParsedOutput(answer=_FENCE.sub("", (text or "").strip()).strip())


def _abstention_answer(text: str) -> str:
    """`text` led by the abstention message (added when the model did not start with it)."""
    text = text.strip()
    if starts_with_abstention(text):
        return text
    return f"{ABSTAIN_MESSAGE}\n\n{text}" if text else ABSTAIN_MESSAGE


def gate_abstention(request: GenerationRequest, blocks: Sequence[ContextBlock], generator: str) -> Generation:
    """The answer when the retrieval gate says abstain: no model call, 0 tokens."""
    parts = [ABSTAIN_MESSAGE, GATE_NOTE]
    facts = request.stated_facts()
    if facts:
        parts.append("Established facts:\n" + "\n".join(f"- {fact}" for fact in facts))
    titles = [block.chunk.title or block.label for block in blocks[:2]]
    if titles:
        parts.append("Closest matches: " + "; ".join(titles) + ".")
    return Generation(answer="\n\n".join(parts), abstained=True, generator=generator)


class AnswerableFilter:
    """Holds back the streamed `ANSWERABLE: yes|no` first line; the rest passes through.

    After `ANSWERABLE: no` (when abstaining is allowed) the abstention message is put in front of
    the text unless the model already began with it.
    """

    def __init__(self, abstain_allowed: bool) -> None:
        self.abstain_allowed = abstain_allowed
        self.answerable: bool | None = None
        self.shown = ""
        self._buffer = ""
        self._state = "head"

    def feed(self, piece: str) -> list[str]:
        """Take one streamed piece; return the texts that may be shown now."""
        self._buffer += piece
        return self._drain(final=False)

    def finish(self) -> list[str]:
        """The stream ended: return whatever is still held back."""
        return self._drain(final=True)

    def _emit(self, text: str, out: list[str]) -> None:
        if text:
            self.shown += text
            out.append(text)

    def _drain(self, final: bool) -> list[str]:
        out: list[str] = []
        while True:
            if self._state == "head":
                stripped = self._buffer.lstrip()
                if "\n" in stripped or final:
                    first, _, rest = stripped.partition("\n")
                    match = _ANSWERABLE_LINE.match(first)
                    if match:
                        self.answerable = match.group(1).lower() in {"yes", "true"}
                        remainder = first[match.end():].strip()
                        self._buffer = "\n".join(part for part in (remainder, rest) if part).lstrip("\r\n")
                        abstaining = self.answerable is False and self.abstain_allowed
                        self._state = "abstain-check" if abstaining else "pass"
                    else:
                        self._buffer = stripped
                        self._state = "pass"
                    continue
                head = stripped.lstrip("*_`#> ").upper()
                if len(stripped) < _HEAD_LIMIT and ("ANSWERABLE".startswith(head) or head.startswith("ANSWERABLE")):
                    return out  # may still be the ANSWERABLE line: wait for its end
                self._buffer = stripped
                self._state = "pass"
                continue
            if self._state == "abstain-check":
                begun = _normalise(self._buffer)
                expected = _normalise(ABSTAIN_MESSAGE)
                if not final and len(begun) < len(expected) and expected.startswith(begun):
                    return out  # may still be the abstention message: wait
                self._buffer = self._buffer.lstrip()
                if not begun.startswith(expected):
                    self._emit(ABSTAIN_MESSAGE + ("\n\n" if self._buffer.strip() else ""), out)
                self._state = "pass"
                continue
            if not self.shown:
                self._buffer = self._buffer.lstrip()  # no blank lines before the answer
            self._emit(self._buffer, out)
            self._buffer = ""
            return out


class LLMGenerator:
    """Answers with a chat model from the numbered context; every claim cited as [n].

    `compact=True` (slow local models, see `rag.generate.compact`) sends only the lines of the context
    that bear on the question under a short system prompt, caps the answer at a few sentences, and
    answers `generate` in plain text through `stream` (no JSON, except for chain-of-thought).
    """

    def __init__(self, chat_model: ChatModel, *, max_tokens: int | None = None,
                 reasoning_max_tokens: int | None = None, compact: bool = False) -> None:
        self.chat_model = chat_model
        self.name: str = chat_model.name
        self.compact = compact
        self.max_tokens = max_tokens or (COMPACT_ANSWER_TOKENS if compact else ANSWER_MAX_TOKENS)
        self.reasoning_max_tokens = reasoning_max_tokens or (
            COMPACT_REASONING_TOKENS if compact else REASONING_MAX_TOKENS
        )

    def _max_tokens(self, request: GenerationRequest) -> int:
        return self.reasoning_max_tokens if request.reasoning else self.max_tokens

    def _prompt(self, request: GenerationRequest, blocks: list[ContextBlock], *, stream: bool
                ) -> tuple[list[ContextBlock], list[ChatMessage]]:
        """The blocks the model sees (cut down when compact) and the messages."""
        if self.compact:
            shown = compact_blocks(request.question, blocks, asked=request.asked)
            return shown, build_compact_messages(request, shown, stream=stream)
        return blocks, build_messages(request, blocks, stream=stream)

    def generate(self, request: GenerationRequest) -> Generation:
        """One JSON-mode call; the reply is parsed leniently and its citations checked against the context."""
        if self.compact and not request.reasoning:
            done = [event.generation for event in self.stream(request) if event.kind == "done" and event.generation]
            return done[-1] if done else Generation(answer=EMPTY_ANSWER, generator=self.name)
        blocks = build_context(request.chunks, request.context_tokens)
        if request.gate == "abstain" and request.abstain_allowed:
            return gate_abstention(request, blocks, self.name)
        blocks, messages = self._prompt(request, blocks, stream=False)
        response = self.chat_model.complete(messages, max_tokens=self._max_tokens(request), temperature=0.0,
                                            json_mode=True)
        parsed = parse_model_output(response.text)
        abstained = request.abstain_allowed and (parsed.abstained or starts_with_abstention(parsed.answer))
        answer = _abstention_answer(parsed.answer) if abstained else parsed.answer or EMPTY_ANSWER
        citations, dropped = resolve_references([*extract_references(parsed.answer), *parsed.references], blocks)
        generation = Generation(
            answer=drop_unknown_markers(answer, blocks),
            abstained=abstained,
            citations=citations,
            dropped_citations=dropped,
            reasoning_steps=parsed.reasoning_steps,
            tokens_in=response.tokens_in,
            tokens_out=response.tokens_out,
            generator=self.name,
        )
        return about_the_lead(generation, request, blocks)

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        """Token events as the model writes (the ANSWERABLE line held back), then sources, then done."""
        blocks = build_context(request.chunks, request.context_tokens)
        if request.gate == "abstain" and request.abstain_allowed:
            generation = gate_abstention(request, blocks, self.name)
            yield StreamEvent("token", text=generation.answer)
            yield StreamEvent("sources")
            yield StreamEvent("done", generation=generation)
            return
        blocks, messages = self._prompt(request, blocks, stream=True)
        # A small local model tends to answer "ANSWERABLE: no" when only a verified fact ("no endpoint creates
        # courses") answers the question: with compact prompts such facts answer it, never an abstention.
        facts = request.stated_facts() if self.compact else []
        abstain_allowed = request.abstain_allowed and not facts
        answer_filter = AnswerableFilter(abstain_allowed)
        raw: list[str] = []
        for piece in self.chat_model.stream(messages, max_tokens=self._max_tokens(request), temperature=0.0):
            raw.append(piece)
            for text in answer_filter.feed(piece):
                yield StreamEvent("token", text=text)
        for text in answer_filter.finish():
            yield StreamEvent("token", text=text)
        if facts and not answer_filter.shown.strip():
            answer_filter.shown = "\n".join(facts)
            yield StreamEvent("token", text=answer_filter.shown)
        shown = answer_filter.shown.strip()
        abstained = abstain_allowed and (answer_filter.answerable is False or starts_with_abstention(shown))
        citations, dropped = resolve_references(extract_references(shown), blocks)
        yield StreamEvent("sources", citations=tuple(citations))
        tokens_in, tokens_out = getattr(self.chat_model, "last_usage", (0, 0)) or (0, 0)
        if not tokens_in and not tokens_out:  # the backend reported nothing: estimate
            tokens_in, tokens_out = estimate_prompt_tokens(messages), estimate_tokens("".join(raw))
        generation = Generation(
            answer=drop_unknown_markers((_abstention_answer(shown) if abstained else shown) or EMPTY_ANSWER, blocks),
            abstained=abstained,
            citations=citations,
            dropped_citations=dropped,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            generator=self.name,
        )
        yield StreamEvent("done", generation=about_the_lead(generation, request, blocks))
