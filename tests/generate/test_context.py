"""Context building (numbering, budget) and citation parsing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag.generate.context import (
    TRUNCATION_MARKER,
    build_context,
    extract_references,
    format_context,
    parse_citations,
)
from rag.tokens import estimate_tokens
from tests.fakes import make_chunk, retrieved

SCHEMA_TEXT = """Schema ConnectSessionCreate  [stackone API]
Type: object.
Required fields: origin_owner_id, origin_owner_name
Fields:
- expires_in (number, optional, nullable): How long the session should be valid for in seconds Default: 1800.
- origin_owner_id (string, required): The origin owner identifier"""

OPERATION_TEXT = """POST /connect_sessions  [stackone API]
Operation ID: stackone_create_connect_session
Summary: Create Connect Session
Request body (application/json, required) → ConnectSessionCreate"""


def _long_text(title: str, lines: int) -> str:
    body = "\n".join(f"- field_{i} (string, optional): Description number {i} of a long schema." for i in range(lines))
    return f"{title}  [stackone API]\n{body}"


@pytest.fixture
def chunks() -> list:
    return retrieved(
        make_chunk("stackone.components.ConnectSessionCreate", SCHEMA_TEXT),
        make_chunk("stackone.paths./connect_sessions.post", OPERATION_TEXT, kind="operation"),
    )


def test_blocks_are_numbered_in_rank_order_with_structural_labels(chunks: list) -> None:
    blocks = build_context(chunks, 4000)
    assert [b.number for b in blocks] == [1, 2]
    assert [b.label for b in blocks] == ["stackone.components.ConnectSessionCreate",
                                         "stackone.paths./connect_sessions.post"]
    assert blocks[0].chunk is chunks[0].chunk
    assert not any(b.truncated for b in blocks)
    text = format_context(blocks)
    assert text.startswith("[1] stackone.components.ConnectSessionCreate\nSchema ConnectSessionCreate")
    assert "\n\n[2] stackone.paths./connect_sessions.post\nPOST /connect_sessions" in text


@pytest.mark.parametrize("budget", [0, 5, 30, 60, 100, 250, 700, 1500, 4000])
def test_budget_is_never_exceeded(budget: int) -> None:
    items = retrieved(*(make_chunk(f"stackone.components.S{i}", _long_text(f"Schema S{i}", 40)) for i in range(8)))
    blocks = build_context(items, budget)
    assert estimate_tokens(format_context(blocks)) <= budget
    assert sum(block.tokens for block in blocks) <= budget
    assert [b.number for b in blocks] == list(range(1, len(blocks) + 1))
    # Rank order is kept: the blocks are a prefix of the ranking.
    assert [b.chunk.chunk_id for b in blocks] == [c.chunk.chunk_id for c in items[: len(blocks)]]


def test_later_chunks_are_cut_or_dropped_first() -> None:
    items = retrieved(*(make_chunk(f"stackone.components.S{i}", _long_text(f"Schema S{i}", 30)) for i in range(5)))
    full = estimate_tokens(format_context(build_context(items[:1], 100_000)))
    blocks = build_context(items, int(full * 2.5))
    assert len(blocks) == 3
    assert [b.truncated for b in blocks] == [False, False, True]
    assert blocks[0].text == items[0].chunk.text
    assert blocks[2].text.endswith(TRUNCATION_MARKER)


def test_default_budget_is_4000_tokens() -> None:
    items = retrieved(*(make_chunk(f"stackone.components.S{i}", _long_text(f"Schema S{i}", 60)) for i in range(20)))
    assert estimate_tokens(format_context(build_context(items))) <= 4000


def test_first_chunk_alone_larger_than_budget_is_truncated() -> None:
    items = retrieved(make_chunk("stackone.components.Big", _long_text("Schema Big", 400)))
    blocks = build_context(items, 300)
    assert len(blocks) == 1 and blocks[0].truncated
    assert estimate_tokens(format_context(blocks)) <= 300


def test_empty_chunk_list() -> None:
    assert build_context([], 4000) == []
    assert format_context([]) == ""


def test_chunk_without_covers_is_labelled_by_chunk_id() -> None:
    chunk = make_chunk("x.y", "Some doc text")
    chunk = replace(chunk, covers=())
    blocks = build_context(retrieved(chunk), 100)
    assert blocks[0].label == chunk.chunk_id


def test_parse_citations_numbers_lists_and_ids(chunks: list) -> None:
    blocks = build_context(chunks, 4000)
    citations, dropped = parse_citations(
        "Default is 1800 [1]. Endpoint [2]. Both [1, 2]. Again [stackone.paths./connect_sessions.post].", blocks
    )
    assert [c.structural_id for c in citations] == ["stackone.components.ConnectSessionCreate",
                                                    "stackone.paths./connect_sessions.post"]
    assert dropped == 0
    assert citations[0].chunk_id == "smart/stackone.components.ConnectSessionCreate"


def test_unknown_citations_are_dropped_and_counted(chunks: list) -> None:
    blocks = build_context(chunks, 4000)
    citations, dropped = parse_citations(
        "Claim [2]. Made up [7]. Also [0] and [stackone.components.Nope] and [7] again; real [1].", blocks
    )
    assert [c.structural_id for c in citations] == ["stackone.paths./connect_sessions.post",
                                                    "stackone.components.ConnectSessionCreate"]
    assert dropped == 3  # 7 (counted once), 0, stackone.components.Nope


def test_non_citation_brackets_are_ignored(chunks: list) -> None:
    blocks = build_context(chunks, 4000)
    text = 'POST /x  [stackone API], items[0], ["PRODUCTION", "TEST"], [docs](https://x.io), [truncated] [2]'
    citations, dropped = parse_citations(text, blocks)
    assert [c.structural_id for c in citations] == ["stackone.paths./connect_sessions.post"]
    assert dropped == 0


def test_extract_references_forms() -> None:
    assert extract_references("[1][2] [3, 4] [5-6] [a.b.c]") == [1, 2, 3, 4, 5, 6, "a.b.c"]
    assert extract_references("no citations here") == []


def test_citations_deduplicated_in_order(chunks: list) -> None:
    blocks = build_context(chunks, 4000)
    citations, dropped = parse_citations("[2] [1] [2] [stackone.components.ConnectSessionCreate]", blocks)
    assert [c.structural_id for c in citations] == ["stackone.paths./connect_sessions.post",
                                                    "stackone.components.ConnectSessionCreate"]
    assert dropped == 0


def test_citations_only_to_blocks_that_fit() -> None:
    items = retrieved(*(make_chunk(f"stackone.components.S{i}", _long_text(f"Schema S{i}", 30)) for i in range(5)))
    blocks = build_context(items, 300)
    assert len(blocks) < 5
    _, dropped = parse_citations("[5]", blocks)
    assert dropped == 1
