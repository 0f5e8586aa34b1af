"""What the MCP tools do, as plain functions: the endpoint list and the schema text read chunk fields."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag.chunk import Chunk
from rag.errors import ConfigError
from rag.index.store import Index
from rag.ingest.pipeline import ParsedDocument
from rag.mcp_queries import endpoints_of, schema_text
from rag.runner import Engine
from tests.ingest.test_schema_chunks import PARTS


def test_list_endpoints_reads_the_summary_field_not_the_text(empty_index: Index) -> None:
    chunk = Chunk(
        chunk_id="smart/x.paths./a.get", strategy="smart", api="x", kind="operation",
        text="GET /a  [x API]\nOperation ID: list_a", embedding_text="GET /a", covers=("x.paths./a.get",),
        source="x.json", path="/a", method="get", operation_id="list_a", summary="List As",
    )
    empty_index.add(ParsedDocument("x.json", "x", "openapi", "h", (chunk,), 1))
    listed = endpoints_of(Engine(empty_index, default_llm="extractive"), "x")
    assert [(e.path, e.summary) for e in listed.endpoints] == [("/a", "List As")]


def test_get_schema_joins_the_indexed_parts_of_a_split_schema(empty_index: Index) -> None:
    empty_index.add(ParsedDocument("x.json", "x", "openapi", "h", tuple(PARTS), 1))
    engine = Engine(empty_index, default_llm="extractive")
    text = schema_text(engine, "x", "big")  # the name is matched regardless of case
    assert text.split("\n")[0] == "Schema Big  [x API]" and text.count("Used by:") == 1
    assert text.index("- a (string") < text.index("- b (integer") < text.index("- e (string")
    with pytest.raises(ConfigError, match="did you mean: Big"):
        schema_text(engine, "x", "Bigg")


def test_list_endpoints_keeps_the_first_part_of_an_operation(empty_index: Index) -> None:
    first = Chunk(
        chunk_id="smart/x.paths./a.get", strategy="smart", api="x", kind="operation", text="GET /a  [x API]",
        embedding_text="GET /a", covers=("x.paths./a.get",), source="x.json", path="/a", method="get",
        summary="List As", part=1, parts=2,
    )
    second = replace(first, chunk_id="smart/x.paths./a.get#part2", summary="", part=2)
    post = replace(first, chunk_id="smart/x.paths./a.post", covers=("x.paths./a.post",), method="post", parts=1)
    empty_index.add(ParsedDocument("x.json", "x", "openapi", "h", (second, post, first), 1))
    listed = endpoints_of(Engine(empty_index, default_llm="extractive"), "x")
    assert [(e.method, e.summary) for e in listed.endpoints] == [("GET", "List As"), ("POST", "List As")]
