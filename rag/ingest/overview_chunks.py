"""Smart chunks about a whole OpenAPI spec: its overview (title, version, servers, security schemes, tags and
counts) and its conventions (what most operations share, `rag.ingest.conventions`)."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk, ProseStatement, conventions_id, overview_id
from rag.ingest.clean_text import clean_prose, statements_under_headings
from rag.ingest.conventions import conventions_text, count_conventions, response_label, shared_by_most
from rag.ingest.operation_chunks import OperationChunker
from rag.ingest.schema_prose import SchemaProse
from rag.ingest.spec import Operation, component_schemas, describe_scheme
from rag.ingest.spec_context import EMBEDDING_TOKENS, SpecContext
from rag.tokens import estimate_tokens, truncate_to_tokens


def overview_chunk(spec: SpecContext, operations: list[Operation]) -> Chunk:
    """Title, version, servers, security schemes with their types, tags and counts."""
    info = spec.document.get("info") if isinstance(spec.document.get("info"), dict) else {}
    title = clean_prose(info.get("title")) or spec.api
    lines = [f"API overview: {title}  [{spec.api} API]", f"OpenAPI version: {spec.document.get('openapi')}"]
    if info.get("version"):
        lines.append(f"API version: {info['version']}")
    if info.get("description"):
        lines.append(f"Description: {clean_prose(info['description'])}")
    servers = spec.document.get("servers")
    if isinstance(servers, list) and servers:
        urls = [str(s.get("url")) for s in servers if isinstance(s, dict) and s.get("url")]
        lines.append("Servers (base URLs): " + ", ".join(urls))
    covers = [overview_id(spec.api)]
    if spec.schemes:
        lines.append("Authentication / security schemes:")
        for name, scheme in spec.schemes.items():
            kind = describe_scheme(scheme)
            description = clean_prose(scheme.get("description")) if isinstance(scheme, dict) else ""
            lines.append(f"- {name}: {kind}" + (f". {description}" if description else ""))
            if kind == "HTTP Basic":
                lines.append(
                    "  Authenticate with HTTP Basic auth: send the header 'Authorization: Basic "
                    "<base64 of username:password>'."
                )
            covers.append(f"{spec.api}.components.securitySchemes.{name}")
    security = spec.security_text(spec.document.get("security"))
    if security:
        lines.append(f"Default security for all operations: {security}")
    elif spec.schemes:
        used = sorted(
            {spec.security_text(op.node.get("security")) for op in operations if op.node.get("security")}
        )
        if used:
            lines.append("Security used by operations: " + "; ".join(used))
    tags = spec.document.get("tags")
    if isinstance(tags, list) and tags:
        tag_texts = []
        for tag in tags:
            if isinstance(tag, dict) and tag.get("name"):
                tag_description = clean_prose(tag.get("description"))[:160]
                tag_texts.append(str(tag["name"]) + (f" ({tag_description})" if tag_description else ""))
        if tag_texts:
            lines.append("Tags: " + "; ".join(tag_texts))
    lines.append(f"Operations: {len(operations)}; component schemas: {len(component_schemas(spec.document))}.")
    text = "\n".join(lines)
    scheme_words = ", ".join(f"{n} {describe_scheme(s)}" for n, s in spec.schemes.items())
    embedding = (
        f"{title} API overview ({spec.api}): authentication, security schemes {scheme_words}, "
        f"base URL servers, version. {clean_prose(info.get('description'))[:300]}"
    )
    # What the API says it does (`info.summary` and `info.description`) as fields: the gate reads them.
    chunk = spec_level_chunk(spec, tuple(covers), text, embedding, f"{title} overview",
                             summary=clean_prose(info.get("summary")), description=clean_prose(info.get("description")))
    description = str(info.get("description") or "")
    prose = tuple(ProseStatement(heading, text, code) for heading, text, code in statements_under_headings(description))
    return replace(chunk, security=spec.scheme_alternatives(operations), prose=prose)


def spec_level_chunk(spec: SpecContext, covers: tuple[str, ...], text: str, embedding: str, title: str,
                     summary: str = "", description: str = "") -> Chunk:
    """A smart chunk about the whole spec (overview, conventions): no path, no JSON pointer."""
    return Chunk(
        chunk_id=f"smart/{covers[0]}",
        strategy="smart",
        api=spec.api,
        kind="overview",
        text=text,
        embedding_text=truncate_to_tokens(embedding, EMBEDDING_TOKENS),
        covers=covers,
        source=spec.source,
        json_pointer="",
        tokens=estimate_tokens(text),
        title=title,
        summary=summary,
        description=description,
    )


def conventions_chunk(spec: SpecContext, operations: list[Operation], chunker: OperationChunker) -> Chunk | None:
    """What most operations share, stated once (see `rag.ingest.conventions`); None when the spec has
    fewer than two operations or they share nothing."""
    if len(operations) < 2:
        return None
    prose = SchemaProse(spec.resolver, max_depth=1)
    counts = count_conventions(operations, chunker.parameters, lambda raw: response_label(spec.resolver, raw, prose))
    found = conventions_text(spec.api, counts, lambda parameter: chunker.parameter_line(parameter, prose))
    if found is None:
        return None
    text, embedding = found
    chunk = spec_level_chunk(spec, (conventions_id(spec.api),), text, embedding, f"{spec.api} API conventions")
    shared = [
        replace(facts, shared_by=count, operations=counts.total)
        for key, count in counts.parameters.items()
        if shared_by_most(count, counts.total) and key[1] != "path"
        and (facts := chunker.parameter_facts(counts.examples[key], prose)) is not None
    ]
    return replace(chunk, parameters=tuple(shared))
