"""The numbered context a generator answers from, and the citations parsed back out of an answer.

Blocks are numbered [1]..[n] in rank order. Each block is labelled with the structural id of its
chunk (`chunk.covers[0]`), so an answer may cite `[2]`, `[1, 3]` or `[stackone.components.Foo]`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rag.chunk import Chunk
from rag.results import Citation, RetrievedChunk
from rag.tokens import estimate_tokens, truncate_to_tokens

DEFAULT_CONTEXT_TOKENS = 4000
# A block cut shorter than this is not worth showing (unless it is the only block).
MIN_TRUNCATED_TOKENS = 24
TRUNCATION_MARKER = "\n… (truncated)"

# `[...]` not preceded by an identifier character (so `items[0]` is not a citation) nor followed by `(`
# (so a markdown link `[text](url)` is not one either).
_BRACKETS = re.compile(r"(?<![A-Za-z_])\[([^\[\]\n]{1,300})\](?!\()")
_NUMBER = re.compile(r"\d{1,4}")
_RANGE = re.compile(r"(\d{1,4})\s*[-–]\s*(\d{1,4})")
# A structural id: starts with a letter, has at least one dot, no whitespace (paths may hold / { } - _).
_IDENTIFIER = re.compile(r"[A-Za-z][\w\-]*(?:\.[^\s,;\[\]]+)+")
_MAX_RANGE = 50


@dataclass(frozen=True)
class ContextBlock:
    """One numbered block of context: the chunk, its citation label and the (possibly cut) text shown."""

    number: int
    retrieved: RetrievedChunk
    label: str
    text: str
    truncated: bool = False

    @property
    def chunk(self) -> Chunk:
        """The chunk this block shows."""
        return self.retrieved.chunk

    @property
    def citation(self) -> Citation:
        """The citation an answer gets when it cites this block (numbered as the block)."""
        return Citation.of(self.chunk, self.number)

    @property
    def header(self) -> str:
        """The block's first line: `[n] structural.id`."""
        return f"[{self.number}] {self.label}"

    def render(self) -> str:
        """The block as it appears in the prompt."""
        return f"{self.header}\n{self.text}"

    @property
    def tokens(self) -> int:
        """Estimated tokens of the rendered block."""
        return estimate_tokens(self.render())


def citation_label(chunk: Chunk) -> str:
    """The label a chunk is cited by: its first structural id, else its chunk id."""
    return chunk.covers[0] if chunk.covers else chunk.chunk_id


def _as_retrieved(item: RetrievedChunk | Chunk, rank: int) -> RetrievedChunk:
    return item if isinstance(item, RetrievedChunk) else RetrievedChunk(chunk=item, rank=rank)


def build_context(
    chunks: Sequence[RetrievedChunk | Chunk], budget_tokens: int = DEFAULT_CONTEXT_TOKENS
) -> list[ContextBlock]:
    """Number the chunks [1]..[n] in the given (rank) order and fit them into `budget_tokens`.

    Blocks are filled in rank order: earlier chunks keep their full text, the first chunk that does
    not fit is cut (or dropped when too little room is left) and every later chunk is dropped. The
    estimated tokens of `format_context(blocks)` never exceed the budget.
    """
    blocks: list[ContextBlock] = []
    remaining = max(0, int(budget_tokens))
    marker_tokens = estimate_tokens(TRUNCATION_MARKER)
    for rank, item in enumerate(chunks, start=1):
        retrieved = _as_retrieved(item, rank)
        number = len(blocks) + 1
        label = citation_label(retrieved.chunk)
        text = retrieved.chunk.text.strip()
        header_tokens = estimate_tokens(f"[{number}] {label}")
        full = ContextBlock(number, retrieved, label, text)
        full_tokens = full.tokens
        if full_tokens <= remaining:
            blocks.append(full)
            remaining -= full_tokens
            continue
        room = remaining - header_tokens - marker_tokens
        minimum = 1 if not blocks else MIN_TRUNCATED_TOKENS
        if room >= minimum:
            cut = truncate_to_tokens(text, room).rstrip()
            if cut:
                block = ContextBlock(number, retrieved, label, cut + TRUNCATION_MARKER, truncated=True)
                if block.tokens <= remaining:
                    blocks.append(block)
        break
    return blocks


def whole_context(chunks: Sequence[RetrievedChunk | Chunk]) -> list[ContextBlock]:
    """Every chunk whole, numbered [1]..[n] in rank order: the context of a generator that sends no prompt (the
    extractive one quotes lines), which a token budget would only cut short."""
    return [
        ContextBlock(rank, retrieved, citation_label(retrieved.chunk), retrieved.chunk.text.strip())
        for rank, retrieved in ((rank, _as_retrieved(item, rank)) for rank, item in enumerate(chunks, start=1))
    ]


def format_context(blocks: Sequence[ContextBlock]) -> str:
    """The blocks as prompt text, separated by blank lines (each starts with `[n] structural.id`)."""
    return "\n\n".join(block.render() for block in blocks)


def extract_references(text: str) -> list[int | str]:
    """Every citation reference in `text`, in order: block numbers (int) and structural ids (str).

    Accepts `[1]`, `[1, 3]`, `[1][2]`, `[2-4]` and `[stackone.components.Foo]`. Brackets holding
    anything else (`[stackone API]`, `["a", "b"]`, `items[0]`, markdown links) are not citations.
    """
    references: list[int | str] = []
    for match in _BRACKETS.finditer(text):
        parts = [part.strip() for part in re.split(r"[,;]", match.group(1))]
        found: list[int | str] = []
        for part in parts:
            if _NUMBER.fullmatch(part):
                found.append(int(part))
            elif (span := _RANGE.fullmatch(part)) is not None:
                low, high = int(span.group(1)), int(span.group(2))
                if not low <= high <= low + _MAX_RANGE:
                    found = []
                    break
                found.extend(range(low, high + 1))
            elif _IDENTIFIER.fullmatch(part):
                found.append(part)
            else:
                found = []
                break
        references.extend(found)
    return references


def resolve_references(references: Iterable[int | str], blocks: Sequence[ContextBlock]) -> tuple[list[Citation], int]:
    """Turn references into citations of the given blocks; unknown ones are dropped and counted.

    Numbers must be block numbers; ids may be any structural id a block's chunk covers, or its
    chunk id. Citations are deduplicated (by chunk) in first-seen order; each distinct unknown
    reference counts once.
    """
    by_number = {block.number: block for block in blocks}
    by_id: dict[str, ContextBlock] = {}
    for candidate in blocks:
        for key in (*candidate.chunk.covers, candidate.label, candidate.chunk.chunk_id):
            by_id.setdefault(key, candidate)
    citations: list[Citation] = []
    seen_chunks: set[str] = set()
    unknown: set[int | str] = set()
    for reference in references:
        block: ContextBlock | None
        if isinstance(reference, bool):
            block = None
        elif isinstance(reference, int):
            block = by_number.get(reference)
        else:
            key = str(reference).strip()
            block = by_number.get(int(key)) if key.isdigit() else by_id.get(key)
        if block is None:
            unknown.add(reference)
            continue
        if block.chunk.chunk_id not in seen_chunks:
            seen_chunks.add(block.chunk.chunk_id)
            citations.append(block.citation)
    return citations, len(unknown)


_NUMBER_MARKER = re.compile(r"\s?\[(\d+)\]")


def drop_unknown_markers(text: str, blocks: Sequence[ContextBlock]) -> str:
    """The answer without `[n]` markers that name no context block (they are counted by `resolve_references`)."""
    numbers = {block.number for block in blocks}
    return _NUMBER_MARKER.sub(lambda m: m.group(0) if int(m.group(1)) in numbers else "", text)


def parse_citations(text: str, blocks: Sequence[ContextBlock]) -> tuple[list[Citation], int]:
    """Citations `[n]`, `[n, m]` or `[structural.id]` in `text` that name context blocks, and how many did not."""
    return resolve_references(extract_references(text), blocks)
