"""Chunk OpenAPI 3.x documents: smart (readable, refs inlined) and naive (raw JSON) chunks.

Smart chunks: one per operation (parameters, request body and main responses with `$ref`s
inlined as prose to depth 2, and the same facts as fields), one per component schema (large ones
split into parts that cover the same id, `rag.ingest.parts`), one overview and one conventions chunk
(`rag.ingest.conventions`) per spec. Naive chunks: raw JSON per path and per schema. Reading the
document itself (operations, parameters, security schemes) is `rag.ingest.spec`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rag.chunk import (
    Chunk,
    FieldFacts,
    RequestBodyFacts,
    ResponseFacts,
    conventions_id,
    overview_id,
    schema_id,
)
from rag.ingest.conventions import conventions_text, count_conventions, response_label
from rag.ingest.parts import split_field_lines
from rag.ingest.refs import RefResolver, component_schema_name, json_pointer
from rag.ingest.schema_prose import SchemaProse, clean, enum_values, field_line, item_enum_values, show_value
from rag.ingest.spec import (
    HTTP_METHODS,
    Operation,
    component_schemas,
    content_schemas,
    describe_scheme,
    iter_operations,
    parameter_schema,
    security_schemes,
)
from rag.tokens import estimate_tokens, truncate_to_tokens

EMBEDDING_TOKENS = 200
SCHEMA_PART_TOKENS = 900
OPERATION_MAX_TOKENS = 3500
NAIVE_EMBEDDING_CHARS = 800  # ≈ the 256 word pieces the packaged embedder reads of JSON
NAIVE_EMBEDDING_TOKENS = 256  # dense JSON (punctuation, ids) can estimate above 256 in 800 chars


@dataclass
class OpenAPIChunks:
    """What chunking one spec produced."""

    api: str
    smart: list[Chunk] = field(default_factory=list)
    naive: list[Chunk] = field(default_factory=list)
    unresolved_refs: list[str] = field(default_factory=list)
    operation_count: int = 0
    schema_count: int = 0


def parameter_text(parameter: dict[str, Any], facts: FieldFacts | None) -> str:
    """A parameter's line from its facts (None: its `$ref` did not resolve, and the line says so)."""
    if facts is None:
        return f"- (a parameter from unresolved reference {parameter['x-unresolved-ref']})"
    return field_line(facts, parameter=True)


class OpenAPIChunker:
    """Builds smart and naive chunks for one validated OpenAPI document."""

    def __init__(self, document: dict[str, Any], api: str, source: str) -> None:
        self.document = document
        self.api = api
        self.source = source
        self.resolver = RefResolver(document)
        self.schemes = security_schemes(document)
        self.used_by: dict[str, list[str]] = {}
        self.payload_of: dict[str, list[str]] = {}

    # ------------------------------------------------------------ helpers
    def security_text(self, requirement: Any) -> str:
        """Describe a security requirement list, naming each scheme's type."""
        if not isinstance(requirement, list):
            return ""
        if not requirement:
            return "none (public)"
        names: list[str] = []
        for alternative in requirement:
            if isinstance(alternative, dict):
                if not alternative:
                    names.append("none (optional)")
                for name, scopes in alternative.items():
                    kind = describe_scheme(self.schemes.get(name))
                    scope_text = f", scopes: {', '.join(map(str, scopes))}" if scopes else ""
                    names.append(f"{name} ({kind}{scope_text})")
        return " or ".join(names)

    def parameters(self, operation: Operation) -> list[dict[str, Any]]:
        """Path-level and operation-level parameters merged (operation wins), refs resolved."""
        merged: dict[tuple[str, str], dict[str, Any]] = {}
        for source in (operation.path_item.get("parameters"), operation.node.get("parameters")):
            for raw in source if isinstance(source, list) else []:
                parameter, _ = self.resolver.deref(raw)
                if isinstance(parameter, dict):
                    unresolved = parameter.get("x-unresolved-ref")
                    key = (str(parameter.get("name", unresolved or "?")), str(parameter.get("in", "?")))
                    merged[key] = parameter
        return list(merged.values())

    def parameter_facts(self, parameter: dict[str, Any], prose: SchemaProse) -> FieldFacts | None:
        """A parameter's location, type, flags, description, defaults, enums and limits (None when its
        `$ref` did not resolve)."""
        if "x-unresolved-ref" in parameter:
            return None
        schema = parameter_schema(parameter)
        merged = prose.merged_keywords(schema)
        flags = prose.flags(merged, bool(parameter.get("required", False)))
        if parameter.get("deprecated") is True and "deprecated" not in flags:
            flags.append("deprecated")
        label = prose.type_label(schema)
        facts = prose.fact_pairs(merged, label)
        if "example" in parameter:
            facts.append(("Example", show_value(parameter["example"])))
        return FieldFacts(
            name=str(parameter.get("name", "?")),
            type=label,
            location=str(parameter.get("in", "?")),
            flags=tuple(flags),
            description=clean(parameter.get("description") or merged.get("description")),
            facts=tuple(facts),
            enum=enum_values(merged),
            item_enum=item_enum_values(merged),
        )

    def parameter_line(self, parameter: dict[str, Any], prose: SchemaProse) -> str:
        """`- page_size (query, number, optional, nullable): … Default: 25.`"""
        return parameter_text(parameter, self.parameter_facts(parameter, prose))

    def request_body(self, operation: Operation, prose: SchemaProse) -> tuple[list[str], RequestBodyFacts | None]:
        """The request body's lines (its schema fields inlined) and its facts (None when there is none)."""
        body, body_name = self.resolver.deref(operation.node.get("requestBody"))
        if not isinstance(body, dict) or not body:
            return [], None
        if "x-unresolved-ref" in body:
            return [f"Request body → unresolved reference {body['x-unresolved-ref']}"], None
        content = body.get("content") if isinstance(body.get("content"), dict) else {}
        required = "required" if body.get("required") else "optional"
        description = clean(body.get("description"))
        lines: list[str] = []
        labels: list[str] = []
        fields: list[FieldFacts] = []
        rendered: set[str] = set()
        for media_type, media in content.items():
            schema = media.get("schema") if isinstance(media, dict) else None
            label = prose.type_label(schema) if isinstance(schema, dict) else "no schema"
            labels.append(label)
            head = f"Request body ({media_type}, {required}) → {label}"
            if body_name:
                head += f" [request body {body_name}]"
            lines.append(head + (f": {description}" if description else ""))
            key = json.dumps(schema, sort_keys=True, default=str)
            if isinstance(schema, dict) and key not in rendered:
                rendered.add(key)
                lines.extend(prose.field_lines(schema, 1, 1, ()) or ["  " + " ".join(prose.schema_summary(schema))])
                fields.extend(prose.top_level_fields(schema))
        facts = RequestBodyFacts(
            media_types=tuple(str(media_type) for media_type in content),
            required=bool(body.get("required")),
            schema=labels[0] if labels else "",
            name=body_name or "",
            description=description,
            fields=tuple(fields),
        )
        return lines, facts

    def responses(self, operation: Operation, prose: SchemaProse) -> tuple[list[str], list[ResponseFacts]]:
        """Main (2xx) responses inlined; the others one line each with their schema names. Also their facts."""
        responses = operation.node.get("responses")
        if not isinstance(responses, dict):
            return [], []
        codes = [str(code) for code in responses]
        main = [code for code in codes if code.startswith("2")] or [c for c in codes if c == "default"]
        lines: list[str] = ["Responses:"]
        facts: list[ResponseFacts] = []
        for code, raw_response in zip(codes, responses.values(), strict=True):
            response, response_name = self.resolver.deref(raw_response)
            if not isinstance(response, dict):
                continue
            schemas = content_schemas(response)
            schema = schemas[0] if schemas else None
            label = prose.type_label(schema) if schema is not None else (response_name or "no body")
            if "x-unresolved-ref" in response:
                label = f"unresolved reference {response['x-unresolved-ref']}"
            description = clean(response.get("description"))
            facts.append(ResponseFacts(code, label, description, success=code in main))
            lines.append(f"- {code} → {label}" + (f": {description}" if description else "") + self._headers(response))
            if code in main and isinstance(schema, dict):
                lines.extend(prose.field_lines(schema, 1, 1, ()))
        return lines, facts

    def _headers(self, response: dict[str, Any]) -> str:
        """` Headers: X-Rate-Limit (requests left); Retry-After.` for a response with headers, else ""."""
        headers = response.get("headers")
        if not isinstance(headers, dict) or not headers:
            return ""
        header_texts = []
        for header_name, header in headers.items():
            header_node, _ = self.resolver.deref(header)
            header_node = header_node if isinstance(header_node, dict) else {}
            header_description = clean(header_node.get("description"))
            header_texts.append(header_name + (f" ({header_description})" if header_description else ""))
        return " Headers: " + "; ".join(header_texts) + "."

    def payload_schemas(self, operation: Operation) -> list[str]:
        """Component schemas that are an operation's whole request body or success (2xx) response."""
        bodies: list[Any] = [operation.node.get("requestBody")]
        responses = operation.node.get("responses")
        if isinstance(responses, dict):
            bodies += [raw for code, raw in responses.items() if str(code).startswith("2")]
        names: list[str] = []
        for raw in bodies:
            body, _ = self.resolver.deref(raw)
            for schema in content_schemas(body):
                name = component_schema_name(schema.get("$ref", ""))
                if name and name not in names:
                    names.append(name)
        return names

    # ------------------------------------------------------------ smart chunks
    def operation_chunk(self, operation: Operation) -> Chunk:
        """One smart chunk for an operation, falling back to depth 1 when depth 2 is huge."""
        chunk = self._operation_chunk(operation, max_depth=2)
        if chunk.tokens > OPERATION_MAX_TOKENS:
            chunk = self._operation_chunk(operation, max_depth=1)
        return chunk

    def _operation_chunk(self, operation: Operation, max_depth: int) -> Chunk:
        prose = SchemaProse(self.resolver, max_depth=max_depth)
        node = operation.node
        method = operation.method.upper()
        summary = clean(node.get("summary"))
        description = clean(node.get("description"))
        raw_tags = node.get("tags")
        tags = tuple(str(tag) for tag in raw_tags if isinstance(tag, (str, int))) if isinstance(raw_tags, list) else ()
        op_id = str(node.get("operationId") or "")
        lines = self._header_lines(operation, summary, description, tags, op_id)
        parameters = self.parameters(operation)
        parameter_lines, parameter_facts = self._parameter_section(parameters, prose)
        body_lines, request_body = self.request_body(operation, prose)
        response_lines, responses = self.responses(operation, prose)
        text = "\n".join(lines + parameter_lines + body_lines + response_lines)
        parameter_names = ", ".join(str(p.get("name")) for p in parameters[:25])
        embedding = " ".join(
            part
            for part in (
                f"{method} {operation.path}.",
                f"{summary}." if summary else "",
                f"{op_id.replace('_', ' ')}." if op_id else "",
                f"Tags: {', '.join(tags)}." if tags else "",
                description[:400],
                f"Parameters: {parameter_names}." if parameter_names else "",
            )
            if part
        )
        structural = f"{self.api}.{operation.structural_id}"
        self._note_users(operation, prose.referenced, structural)
        return Chunk(
            chunk_id=f"smart/{structural}",
            strategy="smart",
            api=self.api,
            kind="operation",
            text=text,
            embedding_text=truncate_to_tokens(embedding, EMBEDDING_TOKENS),
            covers=(structural,),
            source=self.source,
            json_pointer=operation.pointer,
            path=operation.path,
            method=operation.method,
            operation_id=op_id,
            tags=tags,
            ref_ids=tuple(schema_id(self.api, name) for name in prose.referenced),
            tokens=estimate_tokens(text),
            title=f"{method} {operation.path}",
            summary=summary,
            description=description,
            parameters=tuple(parameter_facts),
            request_body=request_body,
            responses=tuple(responses),
        )

    def _header_lines(
        self, operation: Operation, summary: str, description: str, tags: tuple[str, ...], op_id: str
    ) -> list[str]:
        """The lines above the parameters: method and path, operationId, summary, tags, deprecation,
        security and description."""
        method = operation.method.upper()
        lines = [f"{method} {operation.path}  [{self.api} API]"]
        if operation.section == "webhooks":
            lines[0] = f"Webhook {operation.path} ({method})  [{self.api} API]"
        if op_id:
            lines.append(f"Operation ID: {op_id}")
        if summary:
            lines.append(f"Summary: {summary}")
        if tags:
            lines.append("Tags: " + ", ".join(tags))
        if operation.node.get("deprecated") is True:
            lines.append("Deprecated: yes, this operation is deprecated.")
        security = self.security_text(operation.node.get("security", self.document.get("security")))
        if security:
            lines.append(f"Security: {security}")
        if description and description != summary:
            lines.append(f"Description: {description}")
        return lines

    def _parameter_section(
        self, parameters: list[dict[str, Any]], prose: SchemaProse
    ) -> tuple[list[str], list[FieldFacts]]:
        """The `Parameters:` lines (an object parameter's fields listed under it) and each parameter's facts."""
        if not parameters:
            return [], []
        lines = ["Parameters:"]
        found: list[FieldFacts] = []
        for parameter in parameters:
            facts = self.parameter_facts(parameter, prose)
            lines.append(parameter_text(parameter, facts))
            found.extend([facts] if facts else [])
            # An object parameter (a deepObject `filter`, say) lists its fields like a body does.
            lines.extend(prose.field_lines(parameter_schema(parameter), 1, 2, ()))
        return lines, found

    def _note_users(self, operation: Operation, referenced: list[str], structural: str) -> None:
        """Remember which operations use each schema (`Used by:`) and whose whole payload it is (`payload_of`)."""
        label = f"{operation.method.upper()} {operation.path}"
        for name in referenced:
            users = self.used_by.setdefault(name, [])
            if label not in users:
                users.append(label)
        for name in self.payload_schemas(operation):
            payloads = self.payload_of.setdefault(name, [])
            if structural not in payloads:
                payloads.append(structural)

    def schema_chunks(self, name: str, schema: Any) -> list[Chunk]:
        """Smart chunk(s) for one component schema, split into parts when large."""
        prose = SchemaProse(self.resolver, max_depth=2)
        target = schema if isinstance(schema, dict) else {}
        description = clean(target.get("description"))
        title = f"Schema {name}  [{self.api} API]"
        header: list[str] = []
        if description:
            header.append(f"Description: {description}")
        header.extend(prose.schema_summary(schema))
        properties, required = prose.merged_object(schema, ())
        if required:
            header.append("Required fields: " + ", ".join(sorted(required)))
        body = prose.field_lines(schema, 0, 1, (name,))
        used = self.used_by.get(name, [])
        footer = ["Used by: " + "; ".join(used[:20])] if used else []
        # The header is split with the fields so that no part (the first included) grows far past the limit.
        parts = split_field_lines([*header, *(["Fields:", *body] if body else [])], SCHEMA_PART_TOKENS)
        structural = schema_id(self.api, name)
        refs = tuple(schema_id(self.api, ref) for ref in prose.referenced if ref != name)
        field_names = ", ".join(list(properties)[:40])
        embedding = " ".join(
            p
            for p in (
                f"Schema {name} ({self.api} API).",
                description[:300],
                f"Fields: {field_names}." if field_names else "",
            )
            if p
        )
        chunks: list[Chunk] = []
        for index, part_lines in enumerate(parts, start=1):
            part_header = [title]
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
                part_embedding = f"Schema {name} ({self.api} API), part {index}. Fields: {', '.join(part_fields[:40])}."
            chunks.append(
                Chunk(
                    chunk_id=f"smart/{structural}{suffix}",
                    strategy="smart",
                    api=self.api,
                    kind="schema",
                    text=text,
                    embedding_text=truncate_to_tokens(part_embedding, EMBEDDING_TOKENS),
                    covers=(structural,),
                    source=self.source,
                    json_pointer=json_pointer("components", "schemas", name),
                    ref_ids=refs,
                    payload_of=tuple(self.payload_of.get(name, ())),
                    tokens=estimate_tokens(text),
                    title=f"Schema {name}" + (f" (part {index}/{len(parts)})" if len(parts) > 1 else ""),
                    part=index,
                    parts=len(parts),
                )
            )
        return chunks

    def overview_chunk(self, operations: list[Operation]) -> Chunk:
        """Title, version, servers, security schemes with their types, tags and counts."""
        info = self.document.get("info") if isinstance(self.document.get("info"), dict) else {}
        title = clean(info.get("title")) or self.api
        lines = [f"API overview: {title}  [{self.api} API]", f"OpenAPI version: {self.document.get('openapi')}"]
        if info.get("version"):
            lines.append(f"API version: {info['version']}")
        if info.get("description"):
            lines.append(f"Description: {clean(info['description'])}")
        servers = self.document.get("servers")
        if isinstance(servers, list) and servers:
            urls = [str(s.get("url")) for s in servers if isinstance(s, dict) and s.get("url")]
            lines.append("Servers (base URLs): " + ", ".join(urls))
        covers = [overview_id(self.api)]
        if self.schemes:
            lines.append("Authentication / security schemes:")
            for name, scheme in self.schemes.items():
                kind = describe_scheme(scheme)
                description = clean(scheme.get("description")) if isinstance(scheme, dict) else ""
                lines.append(f"- {name}: {kind}" + (f". {description}" if description else ""))
                if kind == "HTTP Basic":
                    lines.append(
                        "  Authenticate with HTTP Basic auth: send the header 'Authorization: Basic "
                        "<base64 of username:password>'."
                    )
                covers.append(f"{self.api}.components.securitySchemes.{name}")
        security = self.security_text(self.document.get("security"))
        if security:
            lines.append(f"Default security for all operations: {security}")
        elif self.schemes:
            used = sorted(
                {self.security_text(op.node.get("security")) for op in operations if op.node.get("security")}
            )
            if used:
                lines.append("Security used by operations: " + "; ".join(used))
        tags = self.document.get("tags")
        if isinstance(tags, list) and tags:
            tag_texts = []
            for tag in tags:
                if isinstance(tag, dict) and tag.get("name"):
                    tag_description = clean(tag.get("description"))[:160]
                    tag_texts.append(str(tag["name"]) + (f" ({tag_description})" if tag_description else ""))
            if tag_texts:
                lines.append("Tags: " + "; ".join(tag_texts))
        lines.append(f"Operations: {len(operations)}; component schemas: {len(component_schemas(self.document))}.")
        text = "\n".join(lines)
        scheme_words = ", ".join(f"{n} {describe_scheme(s)}" for n, s in self.schemes.items())
        embedding = (
            f"{title} API overview ({self.api}): authentication, security schemes {scheme_words}, "
            f"base URL servers, version. {clean(info.get('description'))[:300]}"
        )
        return self.spec_level_chunk(tuple(covers), text, embedding, f"{title} overview")

    def spec_level_chunk(self, covers: tuple[str, ...], text: str, embedding: str, title: str) -> Chunk:
        """A smart chunk about the whole spec (overview, conventions): no path, no JSON pointer."""
        return Chunk(
            chunk_id=f"smart/{covers[0]}",
            strategy="smart",
            api=self.api,
            kind="overview",
            text=text,
            embedding_text=truncate_to_tokens(embedding, EMBEDDING_TOKENS),
            covers=covers,
            source=self.source,
            json_pointer="",
            tokens=estimate_tokens(text),
            title=title,
        )

    def conventions_chunk(self, operations: list[Operation]) -> Chunk | None:
        """What most operations share, stated once (see `rag.ingest.conventions`); None when the spec has
        fewer than two operations or they share nothing."""
        if len(operations) < 2:
            return None
        prose = SchemaProse(self.resolver, max_depth=1)
        counts = count_conventions(operations, self.parameters, lambda raw: response_label(self.resolver, raw, prose))
        found = conventions_text(self.api, counts, lambda parameter: self.parameter_line(parameter, prose))
        if found is None:
            return None
        text, embedding = found
        return self.spec_level_chunk((conventions_id(self.api),), text, embedding, f"{self.api} API conventions")

    # ------------------------------------------------------------ naive chunks
    def naive_chunks(self) -> list[Chunk]:
        """Raw JSON per path (all its methods) and per schema; nothing resolved."""
        chunks: list[Chunk] = []
        for section in ("paths", "webhooks"):
            items = self.document.get(section)
            for path, path_item in (items or {}).items() if isinstance(items, dict) else []:
                if not isinstance(path_item, dict):
                    continue
                methods = dict.fromkeys(str(m).lower() for m, node in path_item.items() if isinstance(node, dict))
                covers = tuple(f"{self.api}.{section}.{path}.{m}" for m in methods if m in HTTP_METHODS)
                raw = json.dumps({path: path_item}, indent=1, ensure_ascii=False, default=str)
                pointer = json_pointer(section, str(path))
                chunks.append(self._naive(f"{section}.{path}", raw, covers, pointer, "operation", str(path)))
        for name, schema in component_schemas(self.document).items():
            raw = json.dumps({name: schema}, indent=1, ensure_ascii=False, default=str)
            pointer = json_pointer("components", "schemas", str(name))
            chunks.append(self._naive(f"components.{name}", raw, (schema_id(self.api, name),), pointer, "schema", ""))
        return chunks

    def _naive(self, local: str, raw: str, covers: tuple[str, ...], pointer: str, kind: str, path: str) -> Chunk:
        return Chunk(
            chunk_id=f"naive/{self.api}.{local}",
            strategy="naive",
            api=self.api,
            kind=kind,  # type: ignore[arg-type]
            text=raw,
            embedding_text=truncate_to_tokens(raw[:NAIVE_EMBEDDING_CHARS], NAIVE_EMBEDDING_TOKENS),
            covers=covers,
            source=self.source,
            json_pointer=pointer,
            path=path,
            tokens=estimate_tokens(raw),
            title=local,
        )

    # ------------------------------------------------------------ all
    def chunk(self) -> OpenAPIChunks:
        """Build every chunk of the document."""
        operations = iter_operations(self.document)
        result = OpenAPIChunks(api=self.api, operation_count=len(operations))
        result.smart.extend(self.operation_chunk(operation) for operation in operations)
        schemas = component_schemas(self.document)
        result.schema_count = len(schemas)
        for name, schema in schemas.items():
            result.smart.extend(self.schema_chunks(str(name), schema))
        result.smart.insert(0, self.overview_chunk(operations))
        conventions = self.conventions_chunk(operations)
        if conventions is not None:
            result.smart.insert(1, conventions)
        result.naive = self.naive_chunks()
        self.resolver.check_all()
        result.unresolved_refs = sorted(self.resolver.unresolved)
        return result


def chunk_openapi(document: dict[str, Any], api: str, source: str) -> OpenAPIChunks:
    """Chunk a validated OpenAPI document into smart and naive chunks (see module docstring)."""
    return OpenAPIChunker(document, api, source).chunk()


__all__ = ["OpenAPIChunks", "chunk_openapi"]
