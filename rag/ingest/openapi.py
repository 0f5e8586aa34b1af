"""Chunk OpenAPI 3.x documents: smart (readable, refs inlined) and naive (raw JSON) chunks.

Smart chunks: one per operation (parameters, request body and main responses with `$ref`s
inlined as prose to depth 2), one per component schema (large ones split into parts that cover
the same id) and one overview per spec. Naive chunks: raw JSON per path and per schema.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rag.chunk import (
    Chunk,
    FieldFacts,
    RequestBodyFacts,
    ResponseFacts,
    conventions_id,
    is_item_path,
    overview_id,
    schema_id,
)
from rag.ingest.refs import RefResolver, component_schema_name, json_pointer, ref_name
from rag.ingest.schema_prose import SchemaProse, clean, enum_values, field_line, item_enum_values, show_value
from rag.tokens import estimate_tokens, truncate_to_tokens

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
EMBEDDING_TOKENS = 200
SCHEMA_PART_TOKENS = 900
OPERATION_MAX_TOKENS = 3500
NAIVE_EMBEDDING_CHARS = 800  # ≈ the 256 word pieces the packaged embedder reads of JSON
NAIVE_EMBEDDING_TOKENS = 256  # dense JSON (punctuation, ids) can estimate above 256 in 800 chars
_API_NAME = re.compile(r"[^a-z0-9_-]+")
CONVENTION_SHARE = 0.5  # what at least half of the operations (or list operations) have is a convention
CONVENTION_LINE_CHARS = 240


def api_name_from_source(source: str) -> str:
    """Spec name from a file name: `hris.json` → `hris`, `My Spec.v2.yaml` → `my_spec_v2`."""
    stem = source.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".json", ".yaml", ".yml"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    name = _API_NAME.sub("_", stem.lower()).strip("_")
    return name or "spec"


@dataclass
class OpenAPIChunks:
    """What chunking one spec produced."""

    api: str
    smart: list[Chunk] = field(default_factory=list)
    naive: list[Chunk] = field(default_factory=list)
    unresolved_refs: list[str] = field(default_factory=list)
    operation_count: int = 0
    schema_count: int = 0


@dataclass(frozen=True)
class Operation:
    """One operation (or webhook) found in the document."""

    section: str  # "paths" or "webhooks"
    path: str
    method: str
    node: dict[str, Any]
    path_item: dict[str, Any]
    key: str = ""  # the method key exactly as written in the document (for the JSON pointer)

    @property
    def structural_id(self) -> str:
        """`{api}.paths.{path}.{method}` without the api prefix."""
        return f"{self.section}.{self.path}.{self.method}"

    @property
    def pointer(self) -> str:
        """JSON pointer of the operation object."""
        return json_pointer(self.section, self.path, self.key or self.method)


def iter_operations(document: dict[str, Any]) -> list[Operation]:
    """Every operation under `paths` and `webhooks`, in document order."""
    found: list[Operation] = []
    for section in ("paths", "webhooks"):
        items = document.get(section)
        if not isinstance(items, dict):
            continue
        for path, path_item in items.items():
            if not isinstance(path_item, dict):
                continue
            seen: set[str] = set()
            for key, node in path_item.items():
                method = str(key).lower()
                # "GET" beside "get" (not valid OpenAPI) would give two chunks the same id: the first wins.
                if method in HTTP_METHODS and method not in seen and isinstance(node, dict):
                    seen.add(method)
                    found.append(Operation(section, str(path), method, node, path_item, str(key)))
    return found


def parameter_schema(parameter: Any) -> dict[str, Any]:
    """A parameter's schema, from `schema` or else from its first `content` entry ({} when none)."""
    if not isinstance(parameter, dict):
        return {}
    schema = parameter.get("schema")
    if not isinstance(schema, dict):
        content = parameter.get("content")
        if isinstance(content, dict) and content:
            first = next(iter(content.values()))
            schema = first.get("schema") if isinstance(first, dict) else None
    return schema if isinstance(schema, dict) else {}


def component_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """The `components.schemas` mapping (empty when absent or malformed)."""
    components = document.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    return schemas if isinstance(schemas, dict) else {}


def security_schemes(document: dict[str, Any]) -> dict[str, Any]:
    """The `components.securitySchemes` mapping."""
    components = document.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    return schemes if isinstance(schemes, dict) else {}


def describe_scheme(scheme: Any) -> str:
    """Readable security scheme type: `HTTP Basic`, `API key in header X-Key`, `OAuth2 …`."""
    if not isinstance(scheme, dict):
        return "unknown"
    kind = str(scheme.get("type", "unknown"))
    if kind == "http":
        name = str(scheme.get("scheme", "")).lower()
        text = {"basic": "HTTP Basic", "bearer": "HTTP Bearer"}.get(name, f"HTTP {name}".strip())
        if scheme.get("bearerFormat"):
            text += f" ({scheme['bearerFormat']})"
        return text
    if kind == "apiKey":
        return f"API key in {scheme.get('in', '?')} '{scheme.get('name', '?')}'"
    if kind == "oauth2":
        flows = scheme.get("flows")
        names = ", ".join(flows) if isinstance(flows, dict) else ""
        return f"OAuth2 ({names})" if names else "OAuth2"
    if kind == "openIdConnect":
        return f"OpenID Connect ({scheme.get('openIdConnectUrl', '')})"
    return kind


def content_schemas(node: Any) -> list[dict[str, Any]]:
    """The schemas of a request body's or response's `content`, one per media type that has one."""
    content = node.get("content") if isinstance(node, dict) else None
    if not isinstance(content, dict):
        return []
    media_types = [media for media in content.values() if isinstance(media, dict)]
    return [media["schema"] for media in media_types if isinstance(media.get("schema"), dict)]


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
        lines = [f"{method} {operation.path}  [{self.api} API]"]
        if operation.section == "webhooks":
            lines[0] = f"Webhook {operation.path} ({method})  [{self.api} API]"
        if op_id:
            lines.append(f"Operation ID: {op_id}")
        if summary:
            lines.append(f"Summary: {summary}")
        if tags:
            lines.append("Tags: " + ", ".join(tags))
        if node.get("deprecated") is True:
            lines.append("Deprecated: yes, this operation is deprecated.")
        security = self.security_text(node.get("security", self.document.get("security")))
        if security:
            lines.append(f"Security: {security}")
        if description and description != summary:
            lines.append(f"Description: {description}")
        parameters = self.parameters(operation)
        parameter_facts: list[FieldFacts] = []
        if parameters:
            lines.append("Parameters:")
            for parameter in parameters:
                facts = self.parameter_facts(parameter, prose)
                lines.append(parameter_text(parameter, facts))
                parameter_facts.extend([facts] if facts else [])
                # An object parameter (a deepObject `filter`, say) lists its fields like a body does.
                lines.extend(prose.field_lines(parameter_schema(parameter), 1, 2, ()))
        body_lines, request_body = self.request_body(operation, prose)
        lines.extend(body_lines)
        response_lines, responses = self.responses(operation, prose)
        lines.extend(response_lines)
        text = "\n".join(lines)
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
        refs = tuple(schema_id(self.api, name) for name in prose.referenced)
        for name in prose.referenced:
            self.used_by.setdefault(name, [])
            label = f"{method} {operation.path}"
            if label not in self.used_by[name]:
                self.used_by[name].append(label)
        for name in self.payload_schemas(operation):
            users = self.payload_of.setdefault(name, [])
            if structural not in users:
                users.append(structural)
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
            ref_ids=refs,
            tokens=estimate_tokens(text),
            title=f"{method} {operation.path}",
            summary=summary,
            description=description,
            parameters=tuple(parameter_facts),
            request_body=request_body,
            responses=tuple(responses),
        )

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

    def _response_label(self, raw: Any, prose: SchemaProse) -> str:
        """`TooManyRequestsResponse: Too many requests.` for a response object or reference."""
        response, name = self.resolver.deref(raw)
        schemas = content_schemas(response)
        label = prose.type_label(schemas[0]) if schemas else (name or "no body")
        description = clean(response.get("description")) if isinstance(response, dict) else ""
        return label + (f": {description}" if description else "")

    def conventions_chunk(self, operations: list[Operation]) -> Chunk | None:
        """What most operations share, stated once: common parameters (e.g. a required account
        header), the paging parameters of list operations, common error responses and retry
        policies. Vague questions ("pagination?", "errors?", "what if I send too many requests?")
        are answered here; None when the spec has fewer than two operations."""
        if len(operations) < 2:
            return None
        prose = SchemaProse(self.resolver, max_depth=1)
        total = len(operations)
        lists = [op for op in operations if op.method == "get" and not is_item_path(op.path)]
        list_pointers = {op.pointer for op in lists}
        parameter_counts: Counter[tuple[str, str]] = Counter()
        list_parameter_counts: Counter[tuple[str, str]] = Counter()
        examples: dict[tuple[str, str], dict[str, Any]] = {}
        for operation in operations:
            for parameter in self.parameters(operation):
                key = (str(parameter.get("name", "?")), str(parameter.get("in", "?")))
                examples.setdefault(key, parameter)
                parameter_counts[key] += 1
                if operation.pointer in list_pointers:
                    list_parameter_counts[key] += 1
        response_counts: Counter[str] = Counter()
        response_labels: dict[str, str] = {}
        extensions: Counter[str] = Counter()
        extension_values: dict[str, Any] = {}
        for operation in operations:
            responses = operation.node.get("responses")
            for code, raw in responses.items() if isinstance(responses, dict) else ():
                response_counts[str(code)] += 1
                if str(code) not in response_labels:
                    response_labels[str(code)] = self._response_label(raw, prose)
            for key, value in operation.node.items():
                if key in ("x-speakeasy-retries", "x-speakeasy-pagination", "x-retries"):
                    extensions[key] += 1
                    extension_values.setdefault(key, value)

        def shared(count: int, out_of: int) -> bool:
            return out_of > 0 and count >= CONVENTION_SHARE * out_of

        def short(line: str) -> str:
            return line if len(line) <= CONVENTION_LINE_CHARS else line[: CONVENTION_LINE_CHARS - 1] + "…"

        title = f"Conventions shared by the operations of the {self.api} API  [{self.api} API]"
        lines = [title, f"Derived from its {total} operations ({len(lists)} of them list collections)."]
        common = [key for key, count in parameter_counts.items() if shared(count, total) and key[1] != "path"]
        if common:
            lines.append("Parameters on most operations:")
            for key in common:
                text = short(self.parameter_line(examples[key], prose))
                lines.append(f"{text} — on {parameter_counts[key]} of {total} operations.")
        paging = [
            key
            for key, count in list_parameter_counts.items()
            if key not in common and key[1] == "query" and len(lists) >= 2 and shared(count, len(lists))
        ]
        if paging:
            lines.append("Parameters of list operations (paging, filtering):")
            for key in paging:
                text = short(self.parameter_line(examples[key], prose))
                lines.append(f"{text} — on {list_parameter_counts[key]} of {len(lists)} list operations.")
        if "x-speakeasy-pagination" in extensions:
            lines.append(
                f"Pagination (x-speakeasy-pagination on {extensions['x-speakeasy-pagination']} operations): "
                + short(json.dumps(extension_values["x-speakeasy-pagination"], default=str))
            )
        responses = [code for code, count in response_counts.items() if shared(count, total) and code[:1] != "2"]
        if responses:
            lines.append("Error and other non-success responses on most operations:")
            for code in sorted(responses):
                counted = f" — on {response_counts[code]} of {total}."
                lines.append(short(f"- {code} → {response_labels[code]}") + counted)
        for key in ("x-speakeasy-retries", "x-retries"):
            if key in extensions:
                value = extension_values[key]
                described = json.dumps(value, default=str)
                if isinstance(value, dict) and value.get("statusCodes"):
                    described = (
                        f"retry status codes {', '.join(map(str, value['statusCodes']))}"
                        + (f" with strategy {value['strategy']}" if value.get("strategy") else "")
                    )
                lines.append(f"Retries ({key} on {extensions[key]} operations): {described}.")
        if len(lines) == 2:
            return None
        text = "\n".join(lines)
        topics = ", ".join(f"{name} {where}" for name, where in common[:4])
        embedding = (
            f"{self.api} API conventions common to all operations: headers and parameters ({topics}), "
            "pagination and page size of list endpoints, next cursor, error responses and status codes, "
            "too many requests, retries and backoff."
        )
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


def split_long_line(line: str, max_tokens: int) -> list[str]:
    """Cut one overlong line (a huge enum, say) into continuation lines at spaces."""
    if estimate_tokens(line) <= max_tokens:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    pieces: list[str] = []
    rest = line
    while estimate_tokens(rest) > max_tokens:
        head = truncate_to_tokens(rest, max_tokens) or rest[: max_tokens * 2]
        pieces.append(head)
        rest = indent + "  (continued) " + rest[len(head) :].lstrip()
    pieces.append(rest)
    return pieces


def split_field_lines(lines: list[str], max_tokens: int) -> list[list[str]]:
    """Group lines into parts of at most ~`max_tokens`, cutting before top-level fields when
    possible and inside a field only when one field alone is larger than a part."""
    fields: list[list[tuple[str, int]]] = []
    for line in (piece for raw in lines for piece in split_long_line(raw, max_tokens)):
        top_level = line.startswith("- ") or not line.startswith(" ")
        if top_level or not fields:
            fields.append([])
        fields[-1].append((line, estimate_tokens(line) + 1))
    groups: list[list[str]] = []
    current: list[str] = []
    size = 0
    for field_lines in fields:
        field_size = sum(tokens for _, tokens in field_lines)
        if field_size <= max_tokens:
            if current and size + field_size > max_tokens:
                groups.append(current)
                current, size = [], 0
            current.extend(line for line, _ in field_lines)
            size += field_size
            continue
        for line, tokens in field_lines:  # one field alone is larger than a part: cut inside it
            if current and size + tokens > max_tokens:
                groups.append(current)
                current, size = [], 0
            current.append(line)
            size += tokens
    if current or not groups:
        groups.append(current)
    return groups


def chunk_openapi(document: dict[str, Any], api: str, source: str) -> OpenAPIChunks:
    """Chunk a validated OpenAPI document into smart and naive chunks (see module docstring)."""
    return OpenAPIChunker(document, api, source).chunk()


__all__ = ["OpenAPIChunks", "api_name_from_source", "chunk_openapi", "describe_scheme", "ref_name"]
