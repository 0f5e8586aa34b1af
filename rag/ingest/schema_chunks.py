"""Smart chunks of OpenAPI component schemas: one per schema (its description, summary, required fields, every
field with `$ref`s inlined to depth 2, and the operations that use it), large ones split into parts that cover
the same id (`rag.ingest.parts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rag.chunk import Chunk, FieldFacts, schema_id
from rag.ingest.clean_text import clean_prose
from rag.ingest.parts import split_field_lines
from rag.ingest.refs import json_pointer
from rag.ingest.schema_prose import SchemaProse
from rag.ingest.spec_context import EMBEDDING_TOKENS, SpecContext
from rag.tokens import estimate_tokens, truncate_to_tokens

SCHEMA_PART_TOKENS = 900


def schema_chunks(spec: SpecContext, name: str, schema: Any) -> list[Chunk]:
    """Smart chunk(s) for one component schema, split into parts when large."""
    prose = SchemaProse(spec.resolver, max_depth=2)
    target = schema if isinstance(schema, dict) else {}
    description = clean_prose(target.get("description"))
    lines, field_names = _schema_lines(prose, name, schema, description)
    top_level = prose.top_level_fields(schema)
    used = spec.used_by.get(name, [])
    footer = [used_by_line(used)] if used else []
    # The header is split with the fields so that no part (the first included) grows far past the limit.
    parts = split_field_lines(lines, SCHEMA_PART_TOKENS)
    refs = tuple(schema_id(spec.api, ref) for ref in prose.referenced if ref != name)
    embedding = " ".join(
        p
        for p in (
            f"Schema {name} ({spec.api} API).",
            description[:300],
            f"Fields: {field_names}." if field_names else "",
        )
        if p
    )
    chunks = [_schema_part(spec, name, parts, index, footer, embedding, refs) for index in range(1, len(parts) + 1)]
    return [replace(chunk, schema_fields=_part_fields(top_level, parts[chunk.part - 1]), used_by=tuple(used))
            for chunk in chunks]


def _part_fields(top_level: list[FieldFacts], part_lines: list[str]) -> tuple[FieldFacts, ...]:
    """The top-level fields whose lines (`- name (…`, at the left margin) are in one part, in order."""
    starts = {line.split(" (", 1)[0] for line in part_lines if line.startswith("- ")}
    return tuple(facts for facts in top_level if f"- {facts.name}" in starts)


def schema_title(name: str, api: str) -> str:
    """The first line of a schema's chunk (a part adds ` (part i of n)`): `Schema Employee  [hris API]`."""
    return f"Schema {name}  [{api} API]"


def used_by_line(used: Sequence[str]) -> str:
    """The last line of each of a schema's chunks when operations use it: `Used by: GET /a; POST /b` (20 at most)."""
    return "Used by: " + "; ".join(used[:20])


def join_schema_parts(parts: Sequence[Chunk]) -> str:
    """One text from the parts of a schema: one title, the fields in order, the `Used by:` line once.

    The parts' fields say where each text's lines are: a title line (a later part also a `(continued)` line)
    above the fields, and the `Used by:` line below them when the schema has users (`used_by`)."""
    ordered = sorted(parts, key=lambda c: c.part)
    if len(ordered) == 1:
        return ordered[0].text
    first = ordered[0]
    used = first.used_by
    body: list[str] = []
    for chunk in ordered:
        lines = chunk.text.split("\n")
        body.extend(lines[1 if chunk.part == 1 else 2 : len(lines) - (1 if used else 0)])
    name = first.covers[0].removeprefix(schema_id(first.api, "")) if first.covers else first.title
    return "\n".join([schema_title(name, first.api), *body, *([used_by_line(used)] if used else [])])


def _schema_lines(prose: SchemaProse, name: str, schema: Any, description: str) -> tuple[list[str], str]:
    """The lines a schema's parts are cut from (description, summary, required fields, then `Fields:` and a line
    per field) and its first 40 field names."""
    header: list[str] = []
    if description:
        header.append(f"Description: {description}")
    header.extend(prose.schema_summary(schema))
    properties, required = prose.merged_object(schema, ())
    if required:
        header.append("Required fields: " + ", ".join(sorted(required)))
    body = prose.field_lines(schema, 0, 1, (name,))
    return [*header, *(["Fields:", *body] if body else [])], ", ".join(list(properties)[:40])


def _schema_part(spec: SpecContext, name: str, parts: list[list[str]], index: int, footer: list[str],
                 embedding: str, refs: tuple[str, ...]) -> Chunk:
    """The chunk of part `index` (from 1) of a schema's `parts`; a schema in one part has no part suffix."""
    part_lines = parts[index - 1]
    part_header = [schema_title(name, spec.api)]
    if len(parts) > 1:
        part_header[0] += f" (part {index} of {len(parts)})"
        if index > 1:
            fields_started = any("Fields:" in earlier for earlier in parts[: index - 1])
            part_header.append("Fields (continued):" if fields_started else "(continued)")
    text = "\n".join(part_header + part_lines + footer)
    suffix = f"#part{index}" if len(parts) > 1 else ""
    part_embedding = embedding
    if len(parts) > 1:
        part_fields = [line.split(" (", 1)[0][2:] for line in part_lines if line.startswith("- ")]
        part_embedding = f"Schema {name} ({spec.api} API), part {index}. Fields: {', '.join(part_fields[:40])}."
    structural = schema_id(spec.api, name)
    return Chunk(
        chunk_id=f"smart/{structural}{suffix}",
        strategy="smart",
        api=spec.api,
        kind="schema",
        text=text,
        embedding_text=truncate_to_tokens(part_embedding, EMBEDDING_TOKENS),
        covers=(structural,),
        source=spec.source,
        json_pointer=json_pointer("components", "schemas", name),
        ref_ids=refs,
        payload_of=tuple(spec.payload_of.get(name, ())),
        tokens=estimate_tokens(text),
        title=f"Schema {name}" + (f" (part {index}/{len(parts)})" if len(parts) > 1 else ""),
        part=index,
        parts=len(parts),
    )
