"""Chunk OpenAPI 3.x documents: smart (readable, refs inlined) and naive (raw JSON) chunks.

Smart chunks: one per operation (`rag.ingest.operation_chunks`: parameters, request body and main responses
with `$ref`s inlined as prose to depth 2, and the same facts as fields), one per component schema
(`rag.ingest.schema_chunks`: large ones split into parts that cover the same id, `rag.ingest.parts`), one
overview and one conventions chunk per spec (`rag.ingest.overview_chunks`, `rag.ingest.conventions`). Naive
chunks: raw JSON per path and per schema (`rag.ingest.naive_chunks`). What they share while one spec is
chunked (the `$ref` resolver, which operations use each schema) is `rag.ingest.spec_context`; reading the
document itself (operations, parameters, security schemes) is `rag.ingest.spec`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rag.chunk import Chunk, FieldFacts
from rag.ingest.naive_chunks import naive_chunks
from rag.ingest.operation_chunks import OperationChunker
from rag.ingest.overview_chunks import conventions_chunk, overview_chunk
from rag.ingest.schema_chunks import schema_chunks
from rag.ingest.spec import component_schemas, iter_operations
from rag.ingest.spec_context import SpecContext


@dataclass
class OpenAPIChunks:
    """What chunking one spec produced."""

    api: str
    smart: list[Chunk] = field(default_factory=list)
    naive: list[Chunk] = field(default_factory=list)
    unresolved_refs: list[str] = field(default_factory=list)
    # Parameters left out for having no name (`METHOD /path (location)`).
    nameless_parameters: list[str] = field(default_factory=list)
    operation_count: int = 0
    schema_count: int = 0


def with_shared_parameters(chunk: Chunk, shared: dict[tuple[str, str], FieldFacts]) -> Chunk:
    """An operation chunk whose parameters most of its API's operations share (`shared`, by name and location: the
    conventions chunk's, such as `$.xgafv`, `alt`, `key` of every Google API operation) are marked so (`shared_by`),
    an answer listing its own first; its text is unchanged."""
    if chunk.kind != "operation" or not any((p.name, p.location) in shared for p in chunk.parameters):
        return chunk
    marked = tuple(replace(p, shared_by=common.shared_by, operations=common.operations)
                   if (common := shared.get((p.name, p.location))) is not None else p for p in chunk.parameters)
    return replace(chunk, parameters=marked)


def chunk_openapi(document: dict[str, Any], api: str, source: str) -> OpenAPIChunks:
    """Chunk a validated OpenAPI document into smart and naive chunks (see module docstring).

    Operations are chunked first: they note which schemas each one uses, which the schema chunks then list.
    """
    spec = SpecContext(document, api, source)
    chunker = OperationChunker(spec)
    operations = iter_operations(document)
    result = OpenAPIChunks(api=api, operation_count=len(operations))
    result.smart.extend(chunker.operation_chunk(operation) for operation in operations)
    schemas = component_schemas(document)
    result.schema_count = len(schemas)
    for name, schema in schemas.items():
        result.smart.extend(schema_chunks(spec, str(name), schema))
    result.smart.insert(0, overview_chunk(spec, operations))
    conventions = conventions_chunk(spec, operations, chunker)
    if conventions is not None:
        shared = {(p.name, p.location): p for p in conventions.parameters}
        result.smart = [with_shared_parameters(chunk, shared) for chunk in result.smart]
        result.smart.insert(1, conventions)
    result.naive = naive_chunks(document, api, source)
    spec.resolver.check_all()
    result.unresolved_refs = sorted(spec.resolver.unresolved)
    result.nameless_parameters = sorted(chunker.nameless)
    return result


__all__ = ["OpenAPIChunks", "chunk_openapi"]
