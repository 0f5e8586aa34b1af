"""Schema chunks: the title and `Used by:` lines, and the parts of a split schema joined back into one text."""

from __future__ import annotations

import json
from dataclasses import replace

from rag.chunk import Chunk
from rag.ingest.pipeline import parse_document
from rag.ingest.schema_chunks import SCHEMA_PART_TOKENS, join_schema_parts, schema_title, used_by_line


def part(index: int, lines: list[str], used_by: tuple[str, ...] = ("GET /big",)) -> Chunk:
    """Part `index` of 3 of the schema `Big`, laid out as the chunker lays it out."""
    header = [schema_title("Big", "x") + f" (part {index} of 3)"] + (["Fields (continued):"] if index > 1 else [])
    text = "\n".join([*header, *lines, *([used_by_line(used_by)] if used_by else [])])
    return Chunk(f"smart/x.components.Big#part{index}", "smart", "x", "schema", text, "", ("x.components.Big",),
                 "x.json", part=index, parts=3, used_by=used_by)


PARTS = [
    part(3, ["- e (string, optional)"]),
    part(1, ["Type: object.", "Fields:", "- a (string, required)", "  - nested (integer, optional)"]),
    part(2, ["- b (integer, optional): Default: 1. Enum: 1, 2."]),
]
BODY = [
    "Type: object.",
    "Fields:",
    "- a (string, required)",
    "  - nested (integer, optional)",
    "- b (integer, optional): Default: 1. Enum: 1, 2.",
    "- e (string, optional)",
]


def test_split_schema_parts_are_joined_into_one_text() -> None:
    assert join_schema_parts(PARTS).split("\n") == ["Schema Big  [x API]", *BODY, "Used by: GET /big"]
    assert join_schema_parts([PARTS[1]]) == PARTS[1].text  # one part is shown as it is


def test_the_join_reads_the_users_from_the_field() -> None:
    unused = [part(p.part, p.text.split("\n")[1 if p.part == 1 else 2 : -1], used_by=()) for p in PARTS]
    assert join_schema_parts(unused).split("\n") == ["Schema Big  [x API]", *BODY]
    many = tuple(f"GET /big/{n}" for n in range(25))
    joined = join_schema_parts([replace(p, used_by=many, text=p.text.replace("Used by: GET /big", used_by_line(many)))
                                for p in PARTS])
    assert joined.split("\n")[-1] == "Used by: " + "; ".join(many[:20])


def test_a_real_split_schema_joins_into_its_fields_in_order() -> None:
    fields = {f"field_{n:03}": {"type": "string", "description": f"Field number {n} of the big schema, " * 3}
              for n in range(120)}
    spec = {
        "openapi": "3.0.3", "info": {"title": "Big", "version": "1"},
        "paths": {"/big": {"get": {"responses": {"200": {"description": "OK", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Big"}}}}}}}},
        "components": {"schemas": {"Big": {"type": "object", "properties": fields}}},
    }
    document = parse_document("big.json", json.dumps(spec).encode())
    parts = [c for c in document.chunks if c.strategy == "smart" and c.kind == "schema"]
    assert len(parts) > 1 and all(c.tokens < 2 * SCHEMA_PART_TOKENS for c in parts)
    assert [f.name for p in sorted(parts, key=lambda c: c.part) for f in p.schema_fields] == list(fields)
    lines = join_schema_parts(parts).split("\n")
    assert lines[0] == schema_title("Big", "big") and lines[-1] == "Used by: GET /big"
    assert [line.split(" (")[0][2:] for line in lines if line.startswith("- ")] == list(fields)
