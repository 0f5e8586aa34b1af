"""The chunk: the unit that is indexed, retrieved, cited and evaluated."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Self

from rag.field_facts import FieldFacts, JsonFacts

Strategy = Literal["smart", "naive", "docs"]
Kind = Literal["operation", "schema", "overview", "doc", "change"]
STRATEGIES: tuple[str, ...] = ("smart", "naive", "docs")
KINDS: tuple[str, ...] = ("operation", "schema", "overview", "doc", "change")


def operation_id(api: str, path: str, method: str) -> str:
    """Structural id of an operation: `{api}.paths.{path}.{method}` (method lower-case)."""
    return f"{api}.paths.{path}.{method.lower()}"


def operation_path(structural_id: str) -> str:
    """The path of an operation's structural id (`hris.paths./unified/hris/employees.get` → /unified/hris/employees);
    "" for an id that is no operation's."""
    return structural_id.partition(".paths.")[2].rpartition(".")[0]


def schema_id(api: str, name: str) -> str:
    """Structural id of a component schema: `{api}.components.{name}`."""
    return f"{api}.components.{name}"


def overview_id(api: str) -> str:
    """Structural id of a spec's overview (info, servers, security schemes)."""
    return f"{api}.overview"


def conventions_id(api: str) -> str:
    """Structural id of what a spec's operations share (common headers, paging, error responses, retries)."""
    return f"{api}.conventions"


@dataclass(frozen=True)
class BodyAlternative(JsonFacts):
    """One of the objects a request body's `oneOf` / `anyOf` allows: its type label (`single_droplet_request`,
    `object`), its top-level fields (the body schema's own properties with the alternative's), what the spec
    calls it, if anything (its discriminator value: `A` of a DNS record's `type`; its title or its schema's name)
    and a body of this object as JSON text, made as the request example's is (`RequestExample.body`)."""

    schema: str
    fields: tuple[FieldFacts, ...] = ()
    name: str = ""
    example: str = ""


@dataclass(frozen=True)
class RequestBodyFacts(JsonFacts):
    """An operation's request body: media types, whether it is required, its schema and top-level fields.

    `schema` is the type label of the first media type's schema (`Employee`, `array of Order`);
    `fields` the top-level fields of every media type's schema, in the order the chunk shows them;
    `alternatives` the objects the first media type's schema allows where it is a `oneOf` / `anyOf` of several
    (DigitalOcean's Droplet create takes one Droplet's `name` or several's `names`), each with its own fields."""

    media_types: tuple[str, ...]
    required: bool
    schema: str = ""
    name: str = ""  # the `components.requestBodies` entry it came from, if any
    description: str = ""
    fields: tuple[FieldFacts, ...] = ()
    alternatives: tuple[BodyAlternative, ...] = ()

    def top_fields(self) -> list[FieldFacts]:
        """Its top-level fields, then those of the objects its alternatives allow, each name once (1Password's
        events take a `Cursor`'s `cursor` or a `ResetCursor`'s `limit`, `start_time`, `end_time`)."""
        named: dict[str, FieldFacts] = {}
        for fact in [*self.fields, *(f for alternative in self.alternatives for f in alternative.fields)]:
            named.setdefault(fact.name, fact)
        return list(named.values())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (`alternatives` only when there are some)."""
        data = super().to_dict()
        data.pop("alternatives", None)
        if self.alternatives:
            data["alternatives"] = [alternative.to_dict() for alternative in self.alternatives]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild from `to_dict` (its alternatives as `BodyAlternative`)."""
        plain = super().from_dict({key: value for key, value in data.items() if key != "alternatives"})
        return replace(plain, alternatives=tuple(BodyAlternative.from_dict(item)
                                                 for item in data.get("alternatives") or ()))



@dataclass(frozen=True)
class ResponseFacts(JsonFacts):
    """One response of an operation: status code, schema label, description; `success` for the main
    responses (2xx, or `default` when there is none), whose fields the chunk text inlines.

    `headers` are the response headers as (name, description) pairs; `fields` a main response's top-level
    fields (an object's properties, or its items'), in the order the chunk shows them."""

    code: str
    schema: str
    description: str = ""
    success: bool = False
    headers: tuple[tuple[str, str], ...] = ()
    fields: tuple[FieldFacts, ...] = ()



@dataclass(frozen=True)
class SecurityFacts(JsonFacts):
    """One security scheme as a request must satisfy it, resolved from `components.securitySchemes`.

    `type` is the OpenAPI type (`http`, `apiKey`, `oauth2`, `openIdConnect`, `mutualTLS`); `scheme` the HTTP
    scheme (`basic`, `bearer`); `location` and `parameter` where the credential goes (`header` /
    `Authorization`, `query` / `api_key`); `flows` the OAuth2 flows and `urls` their authorization and token
    URLs (or the OpenID Connect discovery URL); `scopes` the scopes an operation's requirement asks for.
    An operation's requirement may list alternatives: `alternative` numbers them (0, 1, …), and the schemes of
    one alternative are all required together."""

    name: str
    type: str
    scheme: str = ""
    bearer_format: str = ""
    location: str = ""
    parameter: str = ""
    flows: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    description: str = ""
    alternative: int = 0

    @property
    def kind(self) -> str:
        """The scheme in words: `HTTP Basic`, `HTTP Bearer (JWT)`, `API key`, `OAuth2 (authorization code)`."""
        if self.type == "http":
            text = {"basic": "HTTP Basic", "bearer": "HTTP Bearer"}.get(self.scheme, f"HTTP {self.scheme}".strip())
            return text + (f" ({self.bearer_format})" if self.bearer_format else "")
        if self.type == "apiKey":
            return "an API key"
        if self.type == "oauth2":
            flows = ", ".join(_flow_words(flow) for flow in self.flows)
            return f"OAuth2 ({flows})" if flows else "OAuth2"
        if self.type == "openIdConnect":
            return "OpenID Connect"
        if self.type == "mutualTLS":
            return "mutual TLS"
        return f"the `{self.name}` scheme (not defined in the spec)" if self.type == "unknown" else self.type

    @property
    def how_to_send(self) -> str:
        """What a request sends: "the header `Authorization: Basic <base64 of username:password>`"."""
        if self.type == "http" and self.scheme == "basic":
            return "the header `Authorization: Basic <base64 of username:password>`"
        if self.type == "http":
            return f"the header `Authorization: {self.scheme.capitalize() or 'Bearer'} <token>`"
        if self.type == "apiKey" and self.location == "header":
            return f"the header `{self.parameter}: <your API key>`"
        if self.type == "apiKey":
            where = {"query": "query parameter", "cookie": "cookie"}.get(self.location, "value")
            return f"the key in the {where} `{self.parameter}`"
        if self.type in ("oauth2", "openIdConnect"):
            return "the access token in the header `Authorization: Bearer <access token>`"
        if self.type == "mutualTLS":
            return "a client certificate"
        return ""


@dataclass(frozen=True)
class RequestExample(JsonFacts):
    """A request that calls an operation, built at ingest from the spec (`rag.ingest.request_example`) and rendered
    as curl and Python in one place (`rag.request_example`).

    `url` is the server URL (its variables filled with their defaults; `https://<host>` stands for a relative
    or missing one) and the path with its parameters filled (`<owner>`, or the spec's example); `query` and
    `headers` the required query and header parameters as (name, value) pairs; `body` the request body as JSON
    text ("" when none) sent as `media_type`, `files` the body fields that are files (a multipart upload);
    `auth` the security schemes of the requirement's first alternative and `credential` the prefix of the
    environment variables that hold their secrets (`STACKONE` → `$STACKONE_API_KEY`)."""

    method: str
    url: str
    query: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    media_type: str = ""
    body: str = ""
    files: tuple[str, ...] = ()
    auth: tuple[SecurityFacts, ...] = ()
    credential: str = "API"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild from `to_dict` (the schemes in `auth` as `SecurityFacts`)."""
        plain = super().from_dict({key: value for key, value in data.items() if key != "auth"})
        return replace(plain, auth=tuple(SecurityFacts.from_dict(scheme) for scheme in data.get("auth") or ()))


def _flow_words(flow: str) -> str:
    """`authorizationCode` → "authorization code", `clientCredentials` → "client credentials"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", flow).lower()


@dataclass(frozen=True)
class ProseStatement(JsonFacts):
    """One statement of an API's description (a paragraph, list item, table row or, with `code`, a block of code)
    and the heading it sits under ("" before any): "The default limit is 3600 requests per hour." under "Rate
    Limiting"."""

    heading: str
    text: str
    code: bool = False


@dataclass(frozen=True)
class PaginationFacts(JsonFacts):
    """How an operation pages through results, recognised from its structure (`rag.ingest.pagination`).

    `style` is `cursor` (an opaque position: `next`, `after`, `marker`), `offset` or `page`; `cursor`,
    `size`, `offset` and `page` the query parameters that carry each (empty when absent), or the request body's
    fields where `location` is `body` (Square's `POST /v2/orders/search` takes `cursor` and `limit` in its body);
    `next_field` the success response's field that carries the next position (`next`, `next_marker`),
    `total_field` the one that counts all results, `more_field` a has-more flag; `link_header` a `Link` response
    header."""

    style: str
    cursor: str = ""
    size: str = ""
    offset: str = ""
    page: str = ""
    next_field: str = ""
    total_field: str = ""
    more_field: str = ""
    link_header: bool = False
    location: str = "query"

    @property
    def parameters(self) -> tuple[str, ...]:
        """The query parameters (or body fields) that page, in the order a request sets them."""
        return tuple(name for name in (self.cursor, self.offset, self.page, self.size) if name)


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a document.

    `embedding_text` is compact (the packaged embedder reads at most 256 word pieces); `text` is the full context
    given to the generator and shown to people. `covers` lists the structural ids this chunk is about; quality is
    measured on them. `payload_of` (schema chunks) lists the operations whose whole request body or success response
    is this schema. Operation chunks also carry the operation's facts as the chunker read them from the spec
    (`summary`, `description`, `parameters`, `request_body`, `responses`; `opening`, the description's first
    paragraph past the headings it opens with), and schema chunks the top-level fields their part shows
    (`schema_fields`) and the `METHOD /path` of the operations using the schema (`used_by`), so later stages read
    fields instead of parsing `text`. `security` is an operation's security requirement resolved to its schemes (an
    overview's: every scheme the spec defines), `pagination` how a list operation pages, `request_example` a request
    that calls the operation; a conventions chunk's `parameters` are the parameters its operations share; an
    overview's `prose` the statements of the API's description under their headings (its `description` is the same
    text as one line, headings flattened into it)."""

    chunk_id: str
    strategy: Strategy
    api: str
    kind: Kind
    text: str
    embedding_text: str
    covers: tuple[str, ...]
    source: str
    json_pointer: str = ""
    path: str = ""
    method: str = ""
    operation_id: str = ""
    tags: tuple[str, ...] = ()
    ref_ids: tuple[str, ...] = ()
    payload_of: tuple[str, ...] = ()
    tokens: int = 0
    title: str = ""
    section_path: str = ""
    depth: int = 0
    has_code: bool = False
    part: int = 1
    parts: int = 1
    doc_version: str = ""
    api_version: str = ""  # the label of the API version the chunk belongs to (`2025-02`); "" for docs
    summary: str = ""
    description: str = ""
    opening: str = ""
    parameters: tuple[FieldFacts, ...] = ()
    request_body: RequestBodyFacts | None = None
    responses: tuple[ResponseFacts, ...] = ()
    schema_fields: tuple[FieldFacts, ...] = ()
    used_by: tuple[str, ...] = ()
    security: tuple[SecurityFacts, ...] = ()
    pagination: PaginationFacts | None = None
    request_example: RequestExample | None = None
    prose: tuple[ProseStatement, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def every_field(self) -> list[FieldFacts]:
        """Every typed field: parameters, request body fields, success response fields, schema fields, then their
        own fields one level down, named by their parent (`filter[status]` for a query parameter's, else
        `data.status`)."""
        response = [f for r in self.responses if r.success for f in r.fields]
        return _with_nested([*self.input_fields(top_only=True), *response, *self.schema_fields])

    def input_fields(self, top_only: bool = False) -> list[FieldFacts]:
        """The fields a request sends: parameters and request body fields (and, unless `top_only`, their own
        fields one level down, named as `every_field` names them)."""
        top = [*self.parameters, *(self.request_body.fields if self.request_body else ())]
        return top if top_only else _with_nested(top)

    def with_version(self, doc_version: str, api_version: str = "") -> Chunk:
        """Return this chunk tagged with the document version it belongs to (id prefixed) and the label of
        its API version (structural ids stay the same across API versions)."""
        return replace(self, chunk_id=f"{doc_version}/{self.chunk_id}", doc_version=doc_version,
                       api_version=api_version)

    def to_metadata(self) -> dict[str, str | int | bool]:
        """Flatten to Chroma metadata (scalar values only; tuples are JSON-encoded)."""
        return {
            "strategy": self.strategy,
            "api": self.api,
            "kind": self.kind,
            "covers": json.dumps(list(self.covers)),
            "source": self.source,
            "json_pointer": self.json_pointer,
            "path": self.path,
            "method": self.method,
            "operation_id": self.operation_id,
            "tags": json.dumps(list(self.tags)),
            "ref_ids": json.dumps(list(self.ref_ids)),
            "payload_of": json.dumps(list(self.payload_of)),
            "tokens": self.tokens,
            "title": self.title,
            "section_path": self.section_path,
            "depth": self.depth,
            "has_code": self.has_code,
            "part": self.part,
            "parts": self.parts,
            "doc_version": self.doc_version,
            "api_version": self.api_version,
            "embedding_text": self.embedding_text,
            "summary": self.summary,
            "description": self.description,
            "opening": self.opening,
            "parameters": json.dumps([p.to_dict() for p in self.parameters]),
            "request_body": json.dumps(self.request_body.to_dict()) if self.request_body else "",
            "responses": json.dumps([r.to_dict() for r in self.responses]),
            "schema_fields": json.dumps([f.to_dict() for f in self.schema_fields]),
            "used_by": json.dumps(list(self.used_by)),
            "security": json.dumps([scheme.to_dict() for scheme in self.security]),
            "pagination": json.dumps(self.pagination.to_dict()) if self.pagination else "",
            "request_example": json.dumps(self.request_example.to_dict()) if self.request_example else "",
            "prose": json.dumps([statement.to_dict() for statement in self.prose]) if self.prose else "",
        }

    @classmethod
    def from_metadata(cls, chunk_id: str, text: str, metadata: dict[str, Any]) -> Chunk:
        """Rebuild a chunk from what `to_metadata` stored."""
        return cls(
            chunk_id=chunk_id,
            strategy=metadata["strategy"],
            api=metadata["api"],
            kind=metadata["kind"],
            text=text,
            embedding_text=str(metadata.get("embedding_text", "")),
            covers=tuple(json.loads(metadata.get("covers", "[]"))),
            source=str(metadata.get("source", "")),
            json_pointer=str(metadata.get("json_pointer", "")),
            path=str(metadata.get("path", "")),
            method=str(metadata.get("method", "")),
            operation_id=str(metadata.get("operation_id", "")),
            tags=tuple(json.loads(metadata.get("tags", "[]"))),
            ref_ids=tuple(json.loads(metadata.get("ref_ids", "[]"))),
            payload_of=tuple(json.loads(metadata.get("payload_of", "[]"))),
            tokens=int(metadata.get("tokens", 0)),
            title=str(metadata.get("title", "")),
            section_path=str(metadata.get("section_path", "")),
            depth=int(metadata.get("depth", 0)),
            has_code=bool(metadata.get("has_code", False)),
            part=int(metadata.get("part", 1)),
            parts=int(metadata.get("parts", 1)),
            doc_version=str(metadata.get("doc_version", "")),
            api_version=str(metadata.get("api_version", "")),
            summary=str(metadata.get("summary", "")),
            description=str(metadata.get("description", "")),
            opening=str(metadata.get("opening", "")),
            parameters=tuple(FieldFacts.from_dict(p) for p in json.loads(metadata.get("parameters") or "[]")),
            request_body=_request_body(metadata.get("request_body")),
            responses=tuple(ResponseFacts.from_dict(r) for r in json.loads(metadata.get("responses") or "[]")),
            schema_fields=tuple(FieldFacts.from_dict(f) for f in json.loads(metadata.get("schema_fields") or "[]")),
            used_by=tuple(json.loads(metadata.get("used_by") or "[]")),
            security=tuple(SecurityFacts.from_dict(s) for s in json.loads(metadata.get("security") or "[]")),
            pagination=_pagination(metadata.get("pagination")),
            request_example=_request_example(metadata.get("request_example")),
            prose=tuple(ProseStatement.from_dict(p) for p in json.loads(metadata.get("prose") or "[]")),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view with every field (for `--json`, results and the UI)."""
        data: dict[str, Any] = dict(self.to_metadata())
        data.update(
            chunk_id=self.chunk_id,
            text=self.text,
            covers=list(self.covers),
            tags=list(self.tags),
            ref_ids=list(self.ref_ids),
            payload_of=list(self.payload_of),
            parameters=[p.to_dict() for p in self.parameters],
            request_body=self.request_body.to_dict() if self.request_body else None,
            responses=[r.to_dict() for r in self.responses],
            schema_fields=[f.to_dict() for f in self.schema_fields],
            used_by=list(self.used_by),
            security=[scheme.to_dict() for scheme in self.security],
            pagination=self.pagination.to_dict() if self.pagination else None,
            request_example=self.request_example.to_dict() if self.request_example else None,
            prose=[statement.to_dict() for statement in self.prose],
        )
        return data


def _request_body(stored: Any) -> RequestBodyFacts | None:
    """The request body facts from their stored JSON ("" or missing: none)."""
    return RequestBodyFacts.from_dict(json.loads(stored)) if stored else None


def _pagination(stored: Any) -> PaginationFacts | None:
    """The pagination facts from their stored JSON ("" or missing: none)."""
    return PaginationFacts.from_dict(json.loads(stored)) if stored else None


def _request_example(stored: Any) -> RequestExample | None:
    """The request example from its stored JSON ("" or missing, as in an index built before it: none)."""
    return RequestExample.from_dict(json.loads(stored)) if stored else None


def described(chunk: Chunk) -> bool:
    """Whether the spec says in words what the chunk does (a summary or a description)."""
    return bool(chunk.summary.strip() or chunk.description.strip())


def _with_nested(top: list[FieldFacts]) -> list[FieldFacts]:
    """`top` followed by each field's own fields one level down, named by their parent (`filter[status]` for a query
    parameter's, else `data.status`)."""
    def named(parent: FieldFacts, child: FieldFacts) -> str:
        return f"{parent.name}[{child.name}]" if parent.location == "query" else f"{parent.name}.{child.name}"

    return top + [replace(child, location=parent.location, name=named(parent, child))
                  for parent in top for child in parent.fields]
