"""Chunking OpenAPI documents: smart chunks that keep every fact, naive chunks, metadata, robustness."""

from __future__ import annotations

import builtins
import copy
import io
import json
import re
import socket
import time
import urllib.request
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag.chunk import Chunk
from rag.ingest.loader import load_openapi
from rag.ingest.naive_chunks import NAIVE_EMBEDDING_TOKENS
from rag.ingest.openapi import OpenAPIChunks, chunk_openapi
from rag.ingest.operation_chunks import OPERATION_MAX_TOKENS
from rag.ingest.parts import split_field_lines
from rag.ingest.refs import RefResolver
from rag.ingest.schema_chunks import SCHEMA_PART_TOKENS
from rag.ingest.schema_prose import SchemaProse, show_value
from rag.ingest.spec import (
    api_alias_from_source,
    api_name_from_source,
    describe_scheme,
    iter_operations,
    parameter_schema,
)
from rag.tokens import estimate_tokens
from tests.conftest import FIXTURES

SPECS = FIXTURES / "specs"
EMBEDDING_LIMIT = 256
_SPACES = re.compile(r"\s+")

# ---------------------------------------------------------------- helpers (also used by test_real_specs)


def chunk_file(name: str, api: str | None = None) -> tuple[dict[str, Any], OpenAPIChunks]:
    document = load_openapi(SPECS / name)
    return document, chunk_openapi(document, api or api_name_from_source(name), name)


def by_cover(chunks: Iterable[Chunk]) -> dict[str, list[Chunk]]:
    found: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        for cover in chunk.covers:
            found.setdefault(cover, []).append(chunk)
    return found


def one(result: OpenAPIChunks, cover: str) -> Chunk:
    chunks = by_cover(result.smart)[cover]
    assert len(chunks) == 1, [c.chunk_id for c in chunks]
    return chunks[0]


def line_of(text: str, start: str) -> str:
    """The (stripped) line of `text` that starts with `start` after its indentation."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith(start)]
    assert lines, f"no line starting with {start!r} in:\n{text}"
    return lines[0]


def norm(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


_SCALAR_FACTS = (
    "default",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "format",
    "example",
)


def expected_facts(schema: dict[str, Any], required: bool = False) -> list[str]:
    """What the line of a field with this (inline) schema must contain: every default, enum value,
    limit, pattern, format and example, and the words nullable / deprecated / required."""
    facts: list[str] = []
    for keyword in _SCALAR_FACTS:
        value = schema.get(keyword)
        if keyword in schema and (keyword in ("default", "const", "example") or not isinstance(value, (dict, list))):
            facts.append(show_value(value))
    if isinstance(schema.get("enum"), list):
        facts += [show_value(v) if v is not None else "null" for v in schema["enum"]]
    if isinstance(schema.get("examples"), list):
        facts += [show_value(v) for v in schema["examples"]]
    kind = schema.get("type")
    if schema.get("nullable") is True or (isinstance(kind, list) and "null" in kind):
        facts.append("nullable")
    if schema.get("deprecated") is True:
        facts.append("deprecated")
    if required:
        facts.append("required")
    return [norm(fact) for fact in facts]


def inline_properties(schema: Any) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """(name, schema, required) of every property written inline under `schema` (no `$ref` followed)."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    required = set(schema["required"]) if isinstance(schema.get("required"), list) else set()
    properties = schema.get("properties")
    for name, prop in properties.items() if isinstance(properties, dict) else []:
        if isinstance(prop, dict):
            yield str(name), prop, name in required
            yield from inline_properties(prop)
    for keyword in ("items", "additionalProperties"):
        yield from inline_properties(schema.get(keyword))
    for keyword in ("allOf", "oneOf", "anyOf"):
        parts = schema.get(keyword)
        for part in parts if isinstance(parts, list) else []:
            yield from inline_properties(part)


def logical_lines(chunks: Iterable[Chunk]) -> list[str]:
    """The lines of chunks (parts in order), continuation pieces glued back to their line."""
    lines: list[str] = []
    for chunk in sorted(chunks, key=lambda c: c.part):
        for raw in chunk.text.splitlines():
            line = raw.strip()
            if line.startswith("(continued) ") and lines:
                lines[-1] += " " + line[len("(continued) ") :]
            elif not (line.startswith(("Schema ", "Used by: ")) or line in ("Fields (continued):", "(continued)")):
                lines.append(line)
    return [norm(line) for line in lines]


def missing_facts(lines: list[str], name: str, facts: list[str]) -> list[str]:
    """The facts that no line of field `name` holds completely ([] when one line holds them all)."""
    candidates = [line for line in lines if line.startswith(f"- {name} (")]
    if not candidates:
        return [f"<no line for {name}>"]
    return min(([fact for fact in facts if fact not in line] for line in candidates), key=len)


def lost_schema_facts(document: dict[str, Any], result: OpenAPIChunks) -> list[tuple[str, str, list[str]]]:
    """Facts of inline properties of each component schema that its smart chunk(s) do not show."""
    covering = by_cover(result.smart)
    lost = []
    for name, schema in (document.get("components", {}).get("schemas") or {}).items():
        lines = logical_lines(covering[f"{result.api}.components.{name}"])
        for prop_name, prop, required in inline_properties(schema):
            missing = missing_facts(lines, prop_name, expected_facts(prop, required))
            if missing:
                lost.append((name, prop_name, missing))
    return lost


def lost_operation_facts(document: dict[str, Any], result: OpenAPIChunks) -> list[tuple[str, str, list[str]]]:
    """Facts of parameters and of inline body / 2xx response properties missing from operation chunks."""
    resolver = RefResolver(document)
    covering = by_cover(result.smart)
    lost = []
    for operation in iter_operations(document):
        cover = f"{result.api}.{operation.structural_id}"
        lines = logical_lines(covering[cover])
        raw_parameters = [*(operation.path_item.get("parameters") or []), *(operation.node.get("parameters") or [])]
        for raw in raw_parameters:
            parameter, _ = resolver.deref(raw)
            schema = parameter_schema(parameter)
            if "$ref" in schema or "x-unresolved-ref" in parameter:
                continue
            facts = expected_facts(schema, bool(parameter.get("required")))
            facts += ["deprecated"] if parameter.get("deprecated") is True else []
            facts += [norm(show_value(parameter["example"]))] if "example" in parameter else []
            missing = missing_facts(lines, str(parameter.get("name")), facts)
            if missing:
                lost.append((cover, str(parameter.get("name")), missing))
        schemas = []
        body, _ = resolver.deref(operation.node.get("requestBody"))
        for media in (body.get("content") or {}).values() if isinstance(body, dict) else []:
            schemas.append(media.get("schema"))
        for code, raw_response in (operation.node.get("responses") or {}).items():
            response, _ = resolver.deref(raw_response)
            if str(code).startswith("2") and isinstance(response, dict):
                schemas.extend(media.get("schema") for media in (response.get("content") or {}).values())
        for schema in schemas:
            for prop_name, prop, required in inline_properties(schema):
                missing = missing_facts(lines, prop_name, expected_facts(prop, required))
                if missing:
                    lost.append((cover, prop_name, missing))
    return lost


_ABSENT = object()


def at_pointer(document: Any, pointer: str) -> Any:
    """The node at a JSON pointer, or _ABSENT."""
    node = document
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or token not in node:
            return _ABSENT
        node = node[token]
    return node


def check_metadata(document: dict[str, Any], result: OpenAPIChunks) -> None:
    """Every chunk carries consistent metadata; pointers resolve to the node the chunk is about."""
    api = result.api
    ids = Counter(chunk.chunk_id for chunk in [*result.smart, *result.naive])
    assert [chunk_id for chunk_id, count in ids.items() if count > 1] == []
    for chunk in [*result.smart, *result.naive]:
        assert chunk.api == api
        assert chunk.chunk_id.startswith(f"{chunk.strategy}/{api}.")
        assert chunk.kind in ("operation", "schema", "overview")
        assert chunk.tokens == estimate_tokens(chunk.text) > 0
        assert estimate_tokens(chunk.embedding_text) <= EMBEDDING_LIMIT, chunk.chunk_id
        assert chunk.embedding_text.strip()
        assert 1 <= chunk.part <= chunk.parts
        for cover in chunk.covers:
            assert cover.startswith(f"{api}.")
        node = at_pointer(document, chunk.json_pointer)
        if chunk.kind == "overview":
            assert chunk.json_pointer == ""
        else:
            assert node is not _ABSENT, chunk.json_pointer
        if chunk.kind == "operation" and chunk.strategy == "smart":
            section = chunk.json_pointer.split("/")[1]
            assert chunk.covers == (f"{api}.{section}.{chunk.path}.{chunk.method}",)
            assert chunk.method == chunk.method.lower() == chunk.json_pointer.rsplit("/", 1)[1].lower()
            assert chunk.operation_id == str(node.get("operationId") or "")
            assert (
                at_pointer(document, f"/{section}/" + chunk.json_pointer.split("/")[2])[
                    chunk.json_pointer.rsplit("/", 1)[1]
                ]
                is node
            )
        if chunk.kind == "operation" and chunk.strategy == "naive":
            assert all(
                cover.startswith(f"{api}.{chunk.json_pointer.split('/')[1]}.{chunk.path}.") for cover in chunk.covers
            )
        if chunk.kind == "schema":
            name = chunk.covers[0].removeprefix(f"{api}.components.")
            assert chunk.covers == (f"{api}.components.{name}",)
            assert node is document["components"]["schemas"][name]
        schemas = document.get("components", {}).get("schemas") or {}
        for ref_id in chunk.ref_ids:
            assert ref_id.removeprefix(f"{api}.components.") in schemas, ref_id
        assert Chunk.from_metadata(chunk.chunk_id, chunk.text, chunk.to_metadata()) == chunk


def check_coverage(document: dict[str, Any], result: OpenAPIChunks) -> None:
    """Every operation and component schema has a smart chunk; every operation a naive chunk."""
    smart = by_cover(result.smart)
    naive = by_cover(result.naive)
    operations = [f"{result.api}.{operation.structural_id}" for operation in iter_operations(document)]
    schemas = [f"{result.api}.components.{name}" for name in document.get("components", {}).get("schemas") or {}]
    assert [cover for cover in operations if cover not in smart] == []
    assert [cover for cover in operations if cover not in naive] == []
    assert [cover for cover in schemas if cover not in smart] == []
    assert [cover for cover in schemas if cover not in naive] == []
    assert result.operation_count == len(operations)
    assert result.schema_count == len(schemas)
    overviews = [c.covers[0] for c in result.smart if c.kind == "overview"]
    assert overviews[0] == f"{result.api}.overview"
    assert overviews[1:] in ([], [f"{result.api}.conventions"])


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def shop() -> tuple[dict[str, Any], OpenAPIChunks]:
    return chunk_file("shop-3.0.yaml", "shop")


@pytest.fixture(scope="module")
def people() -> tuple[dict[str, Any], OpenAPIChunks]:
    return chunk_file("people-3.1.json", "people")


# ---------------------------------------------------------------- small functions


@pytest.mark.parametrize(
    ("source", "api"),
    [
        ("hris.json", "hris"),
        ("specs/stackone/hris.json", "hris"),
        ("C:\\specs\\ats.yaml", "ats"),
        ("My Spec.v2.yaml", "my_spec_v2"),
        ("openai-openapi.yaml", "openai-openapi"),
        ("twilio_api_v2010.json", "twilio_api_v2010"),
        ("API.YML", "api"),
        ("???.json", "spec"),
    ],
)
def test_api_name_from_source(source: str, api: str) -> None:
    assert api_name_from_source(source) == api


@pytest.mark.parametrize(
    ("source", "alias"),
    [("asana.com.json", "asana"), ("specs/api.getpostman.com.yaml", "getpostman"),
     ("ote-godaddy.com.json", "ote-godaddy"), ("dev.to.json", ""), ("hris.json", ""), ("My Spec.v2.yaml", ""),
     ("twilio_api_v2010.json", ""), ("https://docs.example.com/guides/page.html", ""), ("readme.md", "")],
)
def test_an_api_named_after_its_domain_is_also_called_by_the_domain_s_name(source: str, alias: str) -> None:
    assert api_alias_from_source(source) == alias


@pytest.mark.parametrize(
    ("scheme", "text"),
    [
        ({"type": "http", "scheme": "basic"}, "HTTP Basic"),
        ({"type": "http", "scheme": "Basic"}, "HTTP Basic"),
        ({"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}, "HTTP Bearer (JWT)"),
        ({"type": "http", "scheme": "digest"}, "HTTP digest"),
        ({"type": "apiKey", "in": "header", "name": "X-Api-Key"}, "API key in header 'X-Api-Key'"),
        (
            {"type": "oauth2", "flows": {"authorizationCode": {}, "clientCredentials": {}}},
            "OAuth2 (authorizationCode, clientCredentials)",
        ),
        ({"type": "oauth2"}, "OAuth2"),
        (
            {"type": "openIdConnect", "openIdConnectUrl": "https://id.example/.well-known"},
            "OpenID Connect (https://id.example/.well-known)",
        ),
        ({"type": "mutualTLS"}, "mutualTLS"),
        (None, "unknown"),
        ("basic", "unknown"),
    ],
)
def test_describe_scheme(scheme: Any, text: str) -> None:
    assert describe_scheme(scheme) == text


def test_iter_operations_finds_paths_and_webhooks_in_order(people: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    document, _ = people
    found = [(op.section, op.path, op.method) for op in iter_operations(document)]
    assert found == [
        ("paths", "/unified/hris/employees", "get"),
        ("paths", "/unified/hris/employees", "post"),
        ("paths", "/unified/hris/employees/{id}", "get"),
        ("paths", "/unified/hris/employees/{id}", "patch"),
        ("webhooks", "employeeCreated", "post"),
    ]


# ---------------------------------------------------------------- coverage and metadata


@pytest.mark.parametrize("name", ["shop-3.0.yaml", "people-3.1.json", "external-refs.yaml"])
def test_fixture_specs_are_fully_covered_with_consistent_metadata(name: str) -> None:
    document, result = chunk_file(name)
    check_coverage(document, result)
    check_metadata(document, result)


def test_one_smart_chunk_per_operation_and_per_schema(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    kinds = Counter(chunk.kind for chunk in result.smart)
    assert kinds == {"overview": 1, "operation": 7, "schema": 17}
    assert (result.operation_count, result.schema_count) == (7, 17)
    assert result.smart[0].kind == "overview"
    assert [c.chunk_id for c in result.smart if c.kind == "operation"] == [
        "smart/shop.paths./orders.get",
        "smart/shop.paths./orders.post",
        "smart/shop.paths./orders/{id}.get",
        "smart/shop.paths./orders/{id}.delete",
        "smart/shop.paths./categories/{id}.get",
        "smart/shop.paths./loops.get",
        "smart/shop.paths./ping.get",
    ]
    assert result.unresolved_refs == []


def test_operation_chunk_metadata(people: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = people
    chunk = one(result, "people.paths./unified/hris/employees.get")
    assert chunk.chunk_id == "smart/people.paths./unified/hris/employees.get"
    assert (chunk.strategy, chunk.api, chunk.kind) == ("smart", "people", "operation")
    assert (chunk.path, chunk.method, chunk.operation_id) == ("/unified/hris/employees", "get", "hris_list_employees")
    assert chunk.tags == ("Employees",)
    assert chunk.source == "people-3.1.json"
    assert chunk.json_pointer == "/paths/~1unified~1hris~1employees/get"
    assert chunk.ref_ids == (
        "people.components.EmployeeFilter",
        "people.components.EmployeesPaginated",
        "people.components.Employee",
        "people.components.EmploymentStatus",
    )
    assert chunk.tokens == estimate_tokens(chunk.text)
    assert chunk.title == "GET /unified/hris/employees"
    metadata = chunk.to_metadata()
    assert json.loads(str(metadata["covers"])) == ["people.paths./unified/hris/employees.get"]
    assert metadata["json_pointer"] == "/paths/~1unified~1hris~1employees/get"


def test_covers_keep_the_path_exactly_and_lowercase_the_method() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {
            "/Users/{userId}/Files.JSON": {"GET": {"operationId": "Get_File", "responses": {}}},
            "/a b/~tilde": {"post": {"responses": {}}},
        },
    }
    result = chunk_openapi(document, "api", "api.json")
    operations = [c for c in result.smart if c.kind == "operation"]
    assert [c.covers for c in operations] == [
        ("api.paths./Users/{userId}/Files.JSON.get",),
        ("api.paths./a b/~tilde.post",),
    ]
    assert [c.json_pointer for c in operations] == [
        "/paths/~1Users~1{userId}~1Files.JSON/GET",
        "/paths/~1a b~1~0tilde/post",
    ]
    assert [c.method for c in operations] == ["get", "post"]
    check_metadata(document, result)


def test_webhook_chunks(people: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = people
    chunk = one(result, "people.webhooks.employeeCreated.post")
    assert chunk.json_pointer == "/webhooks/employeeCreated/post"
    assert chunk.text.startswith("Webhook employeeCreated (POST)  [people API]")
    assert "Request body (application/json, optional) → Employee" in chunk.text
    naive = by_cover(result.naive)["people.webhooks.employeeCreated.post"]
    assert [c.json_pointer for c in naive] == ["/webhooks/employeeCreated"]


# ---------------------------------------------------------------- operation chunks


def test_operation_header(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    text = one(result, "shop.paths./orders.get").text
    assert text.splitlines()[:7] == [
        "GET /orders  [shop API]",
        "Operation ID: list_orders",
        "Summary: List orders",
        "Tags: Orders",
        "Security: basicAuth (HTTP Basic)",
        "Description: Returns the orders of the account, newest first.",
        "Parameters:",
    ]


def test_operation_security_overrides_and_public_operations(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    post = one(result, "shop.paths./orders.post").text
    assert (
        "Security: apiKey (API key in header 'X-Api-Key') or oauth (OAuth2 (clientCredentials), scopes: orders:write)"
        in post
    )
    delete = one(result, "shop.paths./orders/{id}.delete").text
    assert "Security: none (public)" in delete
    assert "Deprecated: yes, this operation is deprecated." in delete


def test_global_bearer_security(people: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    bearer = one(people[1], "people.paths./unified/hris/employees/{id}.get").text
    assert "Security: bearer (HTTP Bearer (JWT))" in bearer


def test_every_parameter_fact(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    text = one(result, "shop.paths./orders.get").text
    assert line_of(text, "- page_size ") == (
        "- page_size (query, integer (int32), optional): Results per page Default: 25. Minimum: 1. Maximum: 100."
    )
    assert line_of(text, "- status ") == (
        "- status (query, OrderStatus, optional): Only orders in this status Default: pending. "
        "Enum: pending, paid, shipped, cancelled."
    )
    assert line_of(text, "- cursor ") == (
        "- cursor (query, string, optional, nullable, deprecated): Old paging cursor Pattern: ^[A-Za-z0-9]+$."
    )
    assert line_of(text, "- since ") == "- since (query, string (date), optional): Example: 2024-01-31."
    # $ref'd parameters, one of them declared on the path item
    assert line_of(text, "- x-account-id ") == "- x-account-id (header, string, required): The account identifier"
    assert line_of(text, "- expand ") == (
        "- expand (query, array of string, optional): Related objects to include Item enum: items, customer."
    )


def test_parameters_31_style(people: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = people
    text = one(result, "people.paths./unified/hris/employees.get").text
    assert line_of(text, "- page_size ") == (
        "- page_size (query, integer, optional, nullable): The number of results per page "
        "Default: 25. Maximum: 200. Exclusive minimum: 0."
    )
    assert line_of(text, "- updated_after ") == (
        "- updated_after (query, string (date-time), optional, nullable, deprecated): "
        "Examples: 2020-01-01T00:00:00.000Z."
    )
    # a parameter with `content` instead of `schema`, whose fields are listed under it
    assert line_of(text, "- filter ") == "- filter (query, EmployeeFilter, optional)"
    assert "  - updated_after (string (date-time), optional)" in text


def test_object_parameter_lists_its_inline_fields() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {
            "/employees": {
                "get": {
                    "parameters": [
                        {
                            "name": "filter",
                            "in": "query",
                            "style": "deepObject",
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "email": {"type": "string", "nullable": True, "description": "By email"},
                                    "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
                                },
                            },
                        }
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    text = chunk_openapi(document, "api", "api.json").smart[1].text
    assert "- filter (query, object, optional)\n  - email (string, optional, nullable): By email\n" in text
    assert "  - status (string, optional): Default: active. Enum: active, inactive." in text


def test_path_level_parameters_merged_and_overridden(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    get = one(result, "shop.paths./orders/{id}.get").text
    assert line_of(get, "- id ") == (
        "- id (path, string (uuid), required): The order id Example: 3fa85f64-5717-4562-b3fc-2c963f66afa6."
    )
    assert get.count("- id (path") == 1
    assert "Path-level id" not in get
    assert "- x-trace (header, string, optional): A trace id for support" in get
    delete = one(result, "shop.paths./orders/{id}.delete").text
    assert "- id (path, string, required): Path-level id" in delete
    post = one(result, "shop.paths./orders.post").text
    assert "- x-account-id (header, string, required): The account identifier" in post


def test_request_body_from_a_ref_is_inlined(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    text = one(result, "shop.paths./orders.post").text
    assert (
        "Request body (application/json, required) → OrderCreateRequest [request body OrderCreate]: "
        "The order to create\n"
        "  - items (array of object, required): Min items: 1.\n"
        "    - sku (string, required): Pattern: ^[A-Z]{3}-[0-9]{4}$.\n"
        "    - quantity (integer, optional): Default: 1. Minimum: 1. Maximum: 99.\n"
        "  - coupon (string, optional, nullable): Example: SPRING24.\n"
    ) in text


def test_request_body_media_types_share_one_rendering(people: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = people
    text = one(result, "people.paths./unified/hris/employees.post").text
    assert "Request body (application/json, required) → Employee" in text
    assert "Request body (application/x-www-form-urlencoded, required) → Employee" in text
    assert text.count("  - first_name (") == 2  # once for the body, once for the 201 response


def test_main_response_named_and_inlined_to_depth_2(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    text = one(result, "shop.paths./orders.get").text
    assert "Responses:\n- 200 → OrdersPaginated: The orders\n" in text
    assert "  - next (string, optional, nullable): Cursor of the next page" in text
    assert "  - data (array of Order, required)" in text
    assert "    - id (string (uuid), required, read-only)" in text  # depth 2, from Order's allOf part Base
    assert "    - total (Money, optional)" in text
    assert "currency" not in text  # depth 3 (Money's fields) is left to Money's own chunk
    # non-2xx responses: one line each, with their schema names, not inlined
    assert "- 400 → Error: The request was malformed" in text
    assert "- code (" not in text


def test_ref_response_with_headers_and_default(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    post = one(result, "shop.paths./orders.post").text
    assert "- 201 → Order: The created order Headers: Location (URL of the new order)." in post
    assert "  - currency (string, required): Default: EUR. Min length: 3. Max length: 3." in post
    assert "- 422 → Error: Validation failed" in post
    get = one(result, "shop.paths./orders/{id}.get").text
    assert "- default → Error: Unexpected error" in get
    ping = one(result, "shop.paths./ping.get").text
    assert "- 200 → no body: pong" in ping


def test_default_response_is_main_when_there_is_no_2xx() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {
            "/a": {
                "get": {
                    "responses": {
                        "default": {
                            "description": "Anything",
                            "content": {
                                "application/json": {"schema": {"properties": {"x": {"type": "integer", "default": 7}}}}
                            },
                        }
                    }
                }
            }
        },
    }
    text = chunk_openapi(document, "api", "api.json").smart[1].text
    assert "- default → object: Anything\n  - x (integer, optional): Default: 7." in text


def test_array_response_lists_the_item_fields() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {
            "/pets": {
                "get": {
                    "responses": {
                        "200": {
                            "description": "Pets",
                            "content": {
                                "application/json": {
                                    "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}
                                }
                            },
                        }
                    }
                }
            }
        },
        "components": {"schemas": {"Pet": {"required": ["name"], "properties": {"name": {"type": "string"}}}}},
    }
    text = chunk_openapi(document, "api", "api.json").smart[1].text
    assert "- 200 → array of Pet: Pets\n  - name (string, required)" in text


def test_huge_operation_falls_back_to_depth_1() -> None:
    big = {"properties": {f"field_{i}": {"type": "string", "description": "word " * 20} for i in range(300)}}
    document = {
        "openapi": "3.0.0",
        "paths": {
            "/big": {
                "get": {
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "properties": {
                                            "data": {"$ref": "#/components/schemas/Big"},
                                            "next": {"type": "string"},
                                        }
                                    }
                                }
                            },
                        }
                    }
                }
            }
        },
        "components": {"schemas": {"Big": big}},
    }
    result = chunk_openapi(document, "api", "api.json")
    chunk = one(result, "api.paths./big.get")
    assert "  - data (Big, optional)" in chunk.text
    assert "field_0" not in chunk.text
    assert chunk.tokens < OPERATION_MAX_TOKENS
    assert "field_299" in "\n".join(c.text for c in by_cover(result.smart)["api.components.Big"])


# ---------------------------------------------------------------- schema prose: facts never lost


def test_all_of_merged(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    text = one(result, "shop.components.Order").text
    assert "Type: all of Base & object." in text
    assert "Required fields: id, status" in text
    # Anonymous objects merged are one object.
    merged = {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                        {"type": "object", "properties": {"b": {"type": "string"}}}]}
    assert SchemaProse(RefResolver({})).type_label(merged) == "object"
    # AWS's specs give every field as a `$ref` beside a part that only describes it: the part adds no type.
    components = {"components": {"schemas": {"WorkMailIdentifier": {"type": "string", "minLength": 12}}}}
    described = {"allOf": [{"$ref": "#/components/schemas/WorkMailIdentifier"}, {"description": "The user's id."}]}
    assert SchemaProse(RefResolver(components)).type_label(described) == "WorkMailIdentifier"
    assert SchemaProse(RefResolver({})).type_label({"allOf": [{}, {"description": "nothing"}]}) == "any"
    assert SchemaProse(RefResolver({})).type_label({"type": "array", "items": merged}) == "array of object"
    assert "- id (string (uuid), required, read-only)" in text
    assert "- created_at (string (date-time), optional): Example: 2024-01-31T10:00:00Z." in text
    assert "- status (OrderStatus, required): Where the order is in its life Default: pending." in text


def test_all_of_wrapped_enum_keeps_its_facts(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    for cover in ("shop.components.Order", "shop.paths./orders/{id}.get"):
        line = line_of(one(result, cover).text, "- priority ")
        assert line == "- priority (Priority, optional, nullable): How urgent the order is Default: 2. Enum: 1, 2, 3."


def test_one_of_and_any_of_are_listed(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    text = one(result, "shop.components.Order").text
    assert "- payment (one of CardPayment | BankPayment, optional)" in text
    assert "  One of (discriminator: kind): CardPayment | BankPayment" in text
    assert "- customer (any of Customer | string, optional)" in text
    assert "  Any of: Customer | string" in text
    assert "[CardPayment]" not in text  # alternatives at depth 2 are left to their own chunks


def test_top_level_one_of_alternatives_are_expanded() -> None:
    document = load_openapi(SPECS / "shop-3.0.yaml")
    payment = document["components"]["schemas"]["Order"]["allOf"][1]["properties"]["payment"]
    document["paths"]["/pay"] = {
        "post": {"requestBody": {"content": {"application/json": {"schema": payment}}}, "responses": {}}
    }
    text = one(chunk_openapi(document, "shop", "shop.yaml"), "shop.paths./pay.post").text
    assert (
        "Request body (application/json, optional) → one of CardPayment | BankPayment\n"
        "  One of (discriminator: kind): CardPayment | BankPayment\n"
        "    [CardPayment]\n"
        "    - kind (string, optional): Enum: card.\n"
        "    - last4 (string, optional): Example: 4242.\n"
        "    [BankPayment]\n"
        "    - kind (string, optional): Enum: bank.\n"
        "    - iban (string, optional)\n"
    ) in text


def test_nullable_30_and_31(
    shop: tuple[dict[str, Any], OpenAPIChunks], people: tuple[dict[str, Any], OpenAPIChunks]
) -> None:
    assert "- note (string, optional, nullable): Max length: 500." in one(shop[1], "shop.components.Order").text
    employee = one(people[1], "people.components.Employee").text
    assert "- first_name (string, optional, nullable): Examples: Isaac." in employee
    assert "- salary (number, optional, nullable): Minimum: 0. Multiple of: 0.01." in employee
    assert "- manager (one of Employee | null, optional)" in employee
    status = one(people[1], "people.components.EmploymentStatus").text
    assert "Type: string (nullable). Default: active. Enum: active, terminated, null." in status


def test_31_keywords(people: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    text = one(people[1], "people.components.Employee").text
    assert "- employee_number (string, optional, deprecated): Const: E-1." in text
    assert "- tags (array of string, optional): Max items: 10. Unique items: true." in text
    assert "- id (string, required): Examples: e-123." in text


@pytest.mark.parametrize("name", ["shop-3.0.yaml", "people-3.1.json"])
def test_no_fact_of_the_fixtures_is_lost(name: str) -> None:
    document, result = chunk_file(name)
    assert lost_schema_facts(document, result) == []
    assert lost_operation_facts(document, result) == []


def test_format_not_shown_in_the_type_becomes_a_fact() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {},
        "components": {
            "schemas": {
                "Day": {"type": "string", "format": "date"},
                "Holder": {
                    "properties": {
                        "day": {"$ref": "#/components/schemas/Day"},
                        "when": {"oneOf": [{"type": "string"}, {"type": "integer"}], "format": "date-time"},
                        "plain": {"type": "string", "format": "email"},
                    }
                },
            }
        },
    }
    text = one(chunk_openapi(document, "api", "api.json"), "api.components.Holder").text
    assert line_of(text, "- day ") == "- day (Day, optional): Format: date."
    assert line_of(text, "- when ") == "- when (one of string | integer, optional): Format: date-time."
    assert line_of(text, "- plain ") == "- plain (string (email), optional)"


def test_inline_schemas_below_depth_2_are_not_lost() -> None:
    leaf = {"type": "string", "enum": ["x", "y"], "default": "x"}
    document = {
        "openapi": "3.0.0",
        "paths": {
            "/deep": {
                "post": {
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "properties": {
                                        "a": {
                                            "properties": {"b": {"properties": {"c": {"properties": {"leaf": leaf}}}}}
                                        }
                                    }
                                }
                            }
                        }
                    },
                    "responses": {"204": {"description": "done"}},
                }
            }
        },
        "components": {
            "schemas": {
                "Deep": {
                    "properties": {
                        "l1": {
                            "anyOf": [
                                {"type": "null"},
                                {"properties": {"l2": {"items": {"properties": {"leaf": leaf}}}}},
                            ]
                        }
                    }
                },
                "ArrayOfInline": {"type": "array", "items": {"properties": {"leaf": leaf}}},
            }
        },
    }
    result = chunk_openapi(document, "api", "api.json")
    expected = "- leaf (string, optional): Default: x. Enum: x, y."
    for cover in ("api.paths./deep.post", "api.components.Deep", "api.components.ArrayOfInline"):
        assert line_of(one(result, cover).text, "- leaf ") == expected
    assert lost_schema_facts(document, result) == []
    assert lost_operation_facts(document, result) == []


def test_every_example_of_a_31_examples_list_is_shown() -> None:
    examples = [f"sample-{i}" for i in range(8)]
    document = {
        "openapi": "3.1.0",
        "paths": {},
        "components": {"schemas": {"Code": {"properties": {"code": {"type": "string", "examples": examples}}}}},
    }
    text = one(chunk_openapi(document, "api", "api.json"), "api.components.Code").text
    assert line_of(text, "- code ") == "- code (string, optional): Examples: " + "; ".join(examples) + "."


def test_multiline_examples_stay_on_their_field_line() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {},
        "components": {
            "schemas": {"Event": {"properties": {"payload": {"type": "string", "example": '{\n  "type": "x"\n}'}}}}
        },
    }
    text = one(chunk_openapi(document, "api", "api.json"), "api.components.Event").text
    assert '- payload (string, optional): Example: { "type": "x" }.' in text.splitlines()


# ---------------------------------------------------------------- cycles and refs


def test_self_referencing_schemas_are_cut_with_a_note(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    category = one(result, "shop.components.Category").text
    assert "- parent (Category, optional)\n  (recursive reference to Category)" in category
    assert "- children (array of Category, optional)\n  (recursive reference to Category)" in category
    operation = one(result, "shop.paths./categories/{id}.get").text
    assert "- 200 → Category: The category with its children" in operation
    assert operation.count("(recursive reference to Category)") == 2


def test_mutual_and_alias_cycles_terminate(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    assert "- to_b (B, optional)\n  - to_a (A, optional)" in one(result, "shop.components.A").text
    assert "- to_a (A, optional)\n  - to_b (B, optional)" in one(result, "shop.components.B").text
    assert "Type: AliasB." in one(result, "shop.components.AliasA").text
    assert "Type: Loop." in one(result, "shop.components.Loop").text
    loops = one(result, "shop.paths./loops.get").text
    assert (
        "  - a (A, optional)\n    - to_b (B, optional)\n  - alias (AliasA, optional)\n  - loop (Loop, optional)"
        in loops
    )


def test_cycles_through_all_of_and_items_terminate_quickly() -> None:
    schemas = {
        "Node": {
            "allOf": [{"$ref": "#/components/schemas/Base"}],
            "properties": {"next": {"$ref": "#/components/schemas/Node"}},
        },
        "Base": {"allOf": [{"$ref": "#/components/schemas/Node"}], "properties": {"id": {"type": "string"}}},
        "List": {"type": "array", "items": {"$ref": "#/components/schemas/List"}},
        "Either": {"oneOf": [{"$ref": "#/components/schemas/Either"}, {"$ref": "#/components/schemas/Node"}]},
        "Chain0": {"$ref": "#/components/schemas/Chain1"},
        "Chain1": {"$ref": "#/components/schemas/Chain2"},
        "Chain2": {"$ref": "#/components/schemas/Chain0"},
    }
    operation = {
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Either"}}}},
        "responses": {
            "200": {
                "description": "ok",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/List"}}},
            }
        },
    }
    document = {"openapi": "3.1.0", "paths": {"/x": {"post": operation}}, "components": {"schemas": schemas}}
    started = time.perf_counter()
    result = chunk_openapi(document, "api", "api.json")
    assert time.perf_counter() - started < 1
    check_coverage(document, result)
    check_metadata(document, result)
    node = one(result, "api.components.Node").text
    assert "- id (string, optional)" in node
    assert "- next (Node, optional)\n  (recursive reference to Node)" in node


def test_external_refs_are_reported_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    document = load_openapi(SPECS / "external-refs.yaml")
    attempts: list[str] = []

    def refuse(*args: object, **kwargs: object) -> object:
        attempts.append(repr(args))
        raise AssertionError(f"I/O attempted while chunking: {args!r}")

    with monkeypatch.context() as patch:  # loopback included: 127.0.0.1:9 must not even be tried
        for target, name in ((socket.socket, "connect"), (socket, "create_connection"), (urllib.request, "urlopen")):
            patch.setattr(target, name, refuse)
        patch.setattr(builtins, "open", refuse)
        patch.setattr(io, "open", refuse)
        result = chunk_openapi(document, "ext", "external-refs.yaml")
    assert attempts == []
    assert result.unresolved_refs == [
        "#/components/schemas/DoesNotExist",
        "../other.yaml#/X",
        "file:///etc/passwd",
        "http://127.0.0.1:9/params.json#/Limit",
        "http://127.0.0.1:9/x.json",
        "https://127.0.0.1:9/deep.yaml#/Leaf",  # only three inline levels down: found by the full scan
    ]
    remote = one(result, "ext.paths./remote.get").text
    assert "- (a parameter from unresolved reference http://127.0.0.1:9/params.json#/Limit)" in remote
    assert "- 200 → unresolved reference http://127.0.0.1:9/x.json: A schema fetched from a server" in remote
    passwd = one(result, "ext.paths./passwd.post").text
    assert "Request body → unresolved reference file:///etc/passwd" in passwd
    assert "- 200 → unresolved reference ../other.yaml#/X" in passwd
    local = one(result, "ext.components.Local").text
    assert "- other (unresolved reference ../other.yaml#/X, optional)" in local
    assert "- missing (unresolved reference #/components/schemas/DoesNotExist, optional)" in local
    assert "root:" not in "".join(chunk.text for chunk in [*result.smart, *result.naive])
    assert all(chunk.ref_ids == () for chunk in result.smart)


def test_percent_encoded_refs_resolve() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {},
        "components": {
            "schemas": {
                "Money Amount": {"type": "number", "minimum": 0},
                "Price": {"properties": {"amount": {"$ref": "#/components/schemas/Money%20Amount"}}},
            }
        },
    }
    result = chunk_openapi(document, "api", "api.json")
    price = one(result, "api.components.Price")
    assert "- amount (Money Amount, optional): Minimum: 0." in price.text
    assert price.ref_ids == ("api.components.Money Amount",)
    assert result.unresolved_refs == []


def test_a_ref_into_another_operation_s_schema_is_described_not_named_after_its_place() -> None:
    """DigitalOcean's `POST /v2/account/keys` takes `$ref: …/get/responses/200/…/properties/ssh_keys/items`: its body
    was "`items`" and its field's type "(items)", the pointer's last token; a place in a structure names nothing."""
    key = {"type": "object", "required": ["name", "public_key"],
           "properties": {"name": {"type": "string"}, "public_key": {"type": "string"}}}
    items = "#/paths/~1keys/get/responses/200/content/application~1json/schema/properties/ssh_keys/items"
    document = {"openapi": "3.0.0", "paths": {"/keys": {
        "get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"ssh_keys": {"type": "array", "items": key}}}}}}}},
        "post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": items}}}},
                 "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {
                     "type": "object", "properties": {"ssh_key": {"$ref": items}}}}}}}}}}}
    created = one(chunk_openapi(document, "api", "api.json"), "api.paths./keys.post")
    assert created.request_body is not None and created.request_body.schema != "items"
    assert [f.name for f in created.request_body.fields] == ["name", "public_key"]
    returned = next(f for r in created.responses for f in r.fields if f.name == "ssh_key")
    assert returned.type == "object"
    assert "items" not in created.text


def test_used_by_and_ref_ids(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    money = one(result, "shop.components.Money")
    assert money.text.endswith("Used by: GET /orders; POST /orders; GET /orders/{id}")
    order = one(result, "shop.components.Order")
    assert order.ref_ids[:3] == ("shop.components.Base", "shop.components.OrderStatus", "shop.components.Money")
    assert "shop.components.Order" not in order.ref_ids
    assert "Used by" not in one(result, "shop.components.Base").text


def test_payload_of_lists_operations_whose_whole_body_or_success_response_is_the_schema(
    shop: tuple[dict[str, Any], OpenAPIChunks],
) -> None:
    """Through `requestBodies` and `responses` refs too; error responses and nested fields do not count."""
    _, result = shop
    assert one(result, "shop.components.OrdersPaginated").payload_of == ("shop.paths./orders.get",)
    assert one(result, "shop.components.OrderCreateRequest").payload_of == ("shop.paths./orders.post",)
    assert one(result, "shop.components.Order").payload_of == ("shop.paths./orders.post", "shop.paths./orders/{id}.get")
    assert one(result, "shop.components.Error").payload_of == ()  # 422 and default responses
    assert one(result, "shop.components.Money").payload_of == ()  # a field of Order, not a payload
    restored = Chunk.from_metadata("id", "text", one(result, "shop.components.Order").to_metadata())
    assert restored.payload_of == ("shop.paths./orders.post", "shop.paths./orders/{id}.get")


# ---------------------------------------------------------------- schema chunks and parts


def test_schema_chunk_metadata(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    chunk = one(result, "shop.components.Money")
    assert chunk.chunk_id == "smart/shop.components.Money"
    assert (chunk.kind, chunk.json_pointer, chunk.part, chunk.parts) == ("schema", "/components/schemas/Money", 1, 1)
    assert (chunk.path, chunk.method, chunk.operation_id, chunk.tags) == ("", "", "", ())
    assert chunk.text.startswith(
        "Schema Money  [shop API]\nType: object.\nRequired fields: amount, currency\nFields:\n"
    )
    assert chunk.embedding_text == "Schema Money (shop API). Fields: amount, currency."


def test_enum_schema_chunk(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    assert one(result, "shop.components.OrderStatus").text.startswith(
        "Schema OrderStatus  [shop API]\nDescription: Where the order is in its life\n"
        "Type: string. Default: pending. Enum: pending, paid, shipped, cancelled.\n"
    )


def large_document(fields: int = 150, enum_values: int = 0) -> dict[str, Any]:
    properties: dict[str, Any] = {
        f"field_{i:03d}": {
            "type": "string",
            "description": f"Field number {i} " + "lorem ipsum dolor " * 6,
            "default": f"d{i}",
        }
        for i in range(fields)
    }
    if enum_values:
        properties["country"] = {"type": "string", "enum": [f"C{i:04d}-XX" for i in range(enum_values)]}
    return {
        "openapi": "3.0.0",
        "paths": {},
        "components": {"schemas": {"Large": {"description": "A large schema", "properties": properties}}},
    }


@pytest.mark.parametrize(("fields", "enum_values"), [(150, 0), (3, 4000), (60, 2500)])
def test_large_schemas_split_into_parts_covering_the_same_id(fields: int, enum_values: int) -> None:
    document = large_document(fields, enum_values)
    result = chunk_openapi(document, "api", "api.json")
    parts = by_cover(result.smart)["api.components.Large"]
    assert len(parts) > 1
    assert [c.chunk_id for c in parts] == [f"smart/api.components.Large#part{i}" for i in range(1, len(parts) + 1)]
    assert [(c.part, c.parts) for c in parts] == [(i, len(parts)) for i in range(1, len(parts) + 1)]
    for chunk in parts:
        assert chunk.covers == ("api.components.Large",)
        assert chunk.json_pointer == "/components/schemas/Large"
        assert chunk.tokens <= 1.3 * SCHEMA_PART_TOKENS, (chunk.chunk_id, chunk.tokens)
        assert chunk.title == f"Schema Large (part {chunk.part}/{len(parts)})"
        assert chunk.text.startswith(f"Schema Large  [api API] (part {chunk.part} of {len(parts)})")
        assert estimate_tokens(chunk.embedding_text) <= EMBEDDING_LIMIT
    assert "Description: A large schema" in parts[0].text
    assert all(c.text.splitlines()[1] == "Fields (continued):" for c in parts[1:])
    joined = "\n".join(c.text for c in parts)
    for i in range(fields):
        assert f"- field_{i:03d} (string, optional): Field number {i} " in joined
    for i in range(enum_values):
        assert f"C{i:04d}-XX" in joined
    assert lost_schema_facts(document, result) == []
    check_metadata(document, result)


def test_split_field_lines_keeps_fields_with_their_nested_lines() -> None:
    lines = []
    for i in range(30):
        lines.append(f"- field_{i} (object, optional): " + "words " * 20)
        lines.extend(f"  - nested_{i}_{j} (string, optional)" for j in range(3))
    groups = split_field_lines(lines, 200)
    assert len(groups) > 1
    assert [line for group in groups for line in group] == lines
    for group in groups:
        assert group[0].startswith("- ")
        assert sum(estimate_tokens(line) + 1 for line in group) <= 200


def test_split_field_lines_cuts_inside_a_field_only_when_it_alone_is_too_big() -> None:
    lines = ["- small (string, optional)", "- huge (object, optional)"]
    lines += [f"  - inner_{i} (string, optional): " + "text " * 10 for i in range(100)]
    lines.append("- after (string, optional)")
    groups = split_field_lines(lines, 300)
    assert [line for group in groups for line in group] == lines
    assert groups[0][:2] == lines[:2]
    for group in groups:
        assert sum(estimate_tokens(line) + 1 for line in group) <= 300
    assert split_field_lines([], 100) == [[]]


# ---------------------------------------------------------------- overview


def test_overview_chunk(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    _, result = shop
    overview = result.smart[0]
    assert overview.chunk_id == "smart/shop.overview"
    assert overview.kind == "overview"
    assert overview.covers == (
        "shop.overview",
        "shop.components.securitySchemes.basicAuth",
        "shop.components.securitySchemes.apiKey",
        "shop.components.securitySchemes.oauth",
    )
    text = overview.text
    for expected in (
        "API overview: Shop API  [shop API]",
        "OpenAPI version: 3.0.3",
        "API version: 2.1.0",
        "Servers (base URLs): https://api.shop.example/v2, https://sandbox.shop.example/v2",
        "- basicAuth: HTTP Basic. Your API key as the username, no password.",
        "- apiKey: API key in header 'X-Api-Key'",
        "- oauth: OAuth2 (clientCredentials)",
        "Default security for all operations: basicAuth (HTTP Basic)",
        "Tags: Orders (Create and follow orders.); Catalog",
        "Operations: 7; component schemas: 17.",
    ):
        assert expected in text
    assert "HTTP Basic" in overview.embedding_text


def test_overview_lists_security_used_by_operations_without_a_global_default() -> None:
    document = {
        "openapi": "3.1.0",
        "info": {"title": "T", "version": "9"},
        "paths": {"/a": {"get": {"security": [{"basic": []}, {"ApiKey": []}], "responses": {}}}},
        "components": {"securitySchemes": {"basic": {"type": "http", "scheme": "basic"}}},
    }
    text = chunk_openapi(document, "t", "t.json").smart[0].text
    assert "Security used by operations: basic (HTTP Basic) or ApiKey (unknown)" in text


def test_the_overview_keeps_the_description_statements_under_their_headings() -> None:
    """Hetzner Cloud's `info.description` is a guide in Markdown: its rate limit stands under "Rate Limiting". The
    overview's one-line `description` (the text, as before) flattens the headings; `prose` keeps each statement
    under its heading, code marked as code."""
    description = ("Introduction\n\nThe API uses JSON.\n\n## Rate Limiting\n\nAll requests are rate limited. "
                   "Current limits:\n\n- 3600 requests per hour\n- bursts allowed\n\n```json\n{\"a\": 1}\n```\n")
    document = {"openapi": "3.0.0", "info": {"title": "T", "version": "1", "description": description}, "paths": {}}
    overview = chunk_openapi(document, "t", "t.json").smart[0]
    assert [(p.heading, p.text, p.code) for p in overview.prose] == [
        ("", "Introduction", False), ("", "The API uses JSON.", False),
        ("Rate Limiting", "All requests are rate limited. Current limits:", False),
        ("Rate Limiting", "3600 requests per hour", False), ("Rate Limiting", "bursts allowed", False),
        ("Rate Limiting", '{"a": 1}', True)]
    assert overview.description.startswith("Introduction. The API uses JSON. Rate Limiting. All requests")


# ---------------------------------------------------------------- naive chunks


def test_naive_chunks_are_raw_json_per_path_and_per_schema(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    document, result = shop
    naive = {chunk.chunk_id: chunk for chunk in result.naive}
    orders = naive["naive/shop.paths./orders"]
    assert orders.covers == ("shop.paths./orders.get", "shop.paths./orders.post")
    assert (orders.kind, orders.path, orders.json_pointer) == ("operation", "/orders", "/paths/~1orders")
    assert json.loads(orders.text) == {"/orders": document["paths"]["/orders"]}
    assert '"$ref": "#/components/requestBodies/OrderCreate"' in orders.text  # nothing resolved
    money = naive["naive/shop.components.Money"]
    assert money.covers == ("shop.components.Money",)
    assert (money.kind, money.json_pointer) == ("schema", "/components/schemas/Money")
    assert json.loads(money.text) == {"Money": document["components"]["schemas"]["Money"]}
    assert len(result.naive) == len(document["paths"]) + len(document["components"]["schemas"])
    for chunk in result.naive:
        assert chunk.strategy == "naive"
        assert chunk.text.startswith(chunk.embedding_text.rstrip())
        assert estimate_tokens(chunk.embedding_text) <= NAIVE_EMBEDDING_TOKENS


def test_naive_embedding_of_dense_json_stays_within_budget() -> None:
    document = {
        "openapi": "3.0.0",
        "paths": {},
        "components": {"schemas": {"Ids": {"type": "string", "enum": [f"{i}-{i}/{i}" for i in range(500)]}}},
    }
    chunk = chunk_openapi(document, "api", "api.json").naive[0]
    assert estimate_tokens(chunk.text[:800]) > EMBEDDING_LIMIT  # the old 800-character cut was too long
    assert estimate_tokens(chunk.embedding_text) <= EMBEDDING_LIMIT


# ---------------------------------------------------------------- robustness


ODD_YAML = """
openapi: 3.0.0
info: {title: Odd, version: 1}
paths:
  /tags-null:
    get:
      tags:
      operationId:
      summary:
      responses:
        200: {description: ok}
  /tags-string:
    parameters: not-a-list
    get:
      tags: Orders
      parameters: [{name: q, in: query}, 5, null]
      responses: {200: {description: ok}, 404: null}
  /methods:
    123: {}
    GET: {operationId: upper, responses: {}}
    get: {operationId: lower, responses: {}}
    x-extension: {get: 1}
    summary: a path-level summary
    post: not-an-operation
  /mixed-keys:
    post:
      requestBody:
        content:
          application/json:
            schema:
              properties:
                200: {type: string}
                name: {type: string, example: 2024-01-31}
      responses:
        201:
          description: created
          content:
            application/json:
              examples:
                2020-01-01: {value: 1}
  /not-a-dict: 42
  /empty: {}
components:
  schemas:
    Bool: true
    NullSchema:
    Weird: {type: [string, integer, 'null'], properties: 5, required: name, allOf: 3, oneOf: [], items: 7}
    BadRef: {$ref: 5}
"""


def test_odd_but_parseable_documents_do_not_crash() -> None:
    document = load_openapi("odd.yaml", data=ODD_YAML.encode())
    result = chunk_openapi(document, "odd", "odd.yaml")
    check_coverage(document, result)
    check_metadata(document, result)
    operations = {c.covers[0]: c for c in result.smart if c.kind == "operation"}
    assert operations["odd.paths./tags-null.get"].tags == ()
    assert operations["odd.paths./tags-null.get"].operation_id == ""
    assert "Operation ID: None" not in operations["odd.paths./tags-null.get"].text
    assert operations["odd.paths./tags-string.get"].tags == ()
    methods = operations["odd.paths./methods.get"]
    assert methods.operation_id == "upper"  # "GET" then "get": the first wins; ids stay unique
    assert methods.json_pointer == "/paths/~1methods/GET"
    assert "odd.paths./methods.post" not in operations
    assert by_cover(result.naive)["odd.paths./methods.get"][0].covers == ("odd.paths./methods.get",)
    mixed = operations["odd.paths./mixed-keys.post"].text
    assert "- 200 (string, optional)" in mixed
    assert "- name (string, optional): Example: 2024-01-31." in mixed


def test_minimal_documents() -> None:
    for document in (
        {"openapi": "3.1.0", "paths": {}},
        {"openapi": "3.1.0", "webhooks": {}},
        {
            "openapi": "3.1.0",
            "paths": {},
            "components": {"schemas": {}},
            "info": "not a dict",
            "servers": "x",
            "tags": [1],
        },
    ):
        result = chunk_openapi(document, "m", "m.json")
        assert [c.kind for c in result.smart] == ["overview"]
        assert "Tags:" not in result.smart[0].text
        assert result.naive == []
        assert result.unresolved_refs == []


def test_chunking_does_not_modify_the_document(shop: tuple[dict[str, Any], OpenAPIChunks]) -> None:
    document = load_openapi(SPECS / "shop-3.0.yaml")
    before = copy.deepcopy(document)
    chunk_openapi(document, "shop", "shop-3.0.yaml")
    assert document == before


def test_deep_but_accepted_nesting_chunks_without_recursion_error() -> None:
    schema = '{"items": ' * 240 + '{"type": "string", "enum": ["leaf"]}' + "}" * 240
    properties = '{"properties": {"p": ' * 120 + '{"type": "integer", "default": 3}' + "}}" * 120
    text = (
        '{"openapi": "3.1.0", "paths": {"/a": {"post": {"requestBody": {"content": {"application/json": '
        '{"schema": {"$ref": "#/components/schemas/Deep"}}}}}}}, '
        '"components": {"schemas": {"Deep": ' + schema + ', "Nested": ' + properties + "}}}"
    )
    document = load_openapi("deep.json", data=text.encode())
    result = chunk_openapi(document, "deep", "deep.json")
    check_coverage(document, result)
    assert "array of array of" in one(result, "deep.components.Deep").text


# ---------------------------------------------------------------- property test

_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-", min_size=1, max_size=8)
_SCHEMA_NAMES = ["Pet", "Owner", "Node", "Tag", "Error"]
_PRIMITIVES = st.sampled_from(["string", "integer", "number", "boolean"])


def _ref_strategy() -> st.SearchStrategy[dict[str, Any]]:
    local = st.sampled_from([*_SCHEMA_NAMES, "Missing"]).map(lambda name: {"$ref": f"#/components/schemas/{name}"})
    external = st.sampled_from(["http://127.0.0.1:9/x.json", "file:///etc/passwd", "../other.yaml#/X"]).map(
        lambda r: {"$ref": r}
    )
    return st.one_of(local, local, external)


def _leaf_strategy() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        _ref_strategy(),
        st.builds(
            lambda kind, nullable, default, enum, minimum, fmt: {
                "type": [kind, "null"] if nullable == "31" else kind,
                **({"nullable": True} if nullable == "30" else {}),
                **({"default": default} if default is not None else {}),
                **({"enum": enum} if enum else {}),
                **({"minimum": minimum} if minimum is not None else {}),
                **({"format": fmt} if fmt else {}),
            },
            _PRIMITIVES,
            st.sampled_from(["no", "30", "31"]),
            st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=5)),
            st.lists(st.text(max_size=4), max_size=3),
            st.one_of(st.none(), st.integers(0, 10)),
            st.sampled_from(["", "date-time", "uuid"]),
        ),
    )


def _schema_strategy() -> st.SearchStrategy[Any]:
    return st.recursive(
        _leaf_strategy(),
        lambda children: st.one_of(
            st.builds(
                lambda props, required: {"type": "object", "properties": props, "required": required},
                st.dictionaries(_NAMES, children, max_size=4),
                st.lists(_NAMES, max_size=2),
            ),
            st.builds(lambda items: {"type": "array", "items": items}, children),
            st.builds(lambda parts: {"allOf": parts}, st.lists(children, min_size=1, max_size=3)),
            st.builds(lambda parts: {"oneOf": parts}, st.lists(children, min_size=1, max_size=3)),
            st.builds(lambda parts: {"anyOf": parts, "nullable": True}, st.lists(children, min_size=1, max_size=3)),
        ),
        max_leaves=8,
    )


def _parameter_strategy() -> st.SearchStrategy[dict[str, Any]]:
    inline = st.builds(
        lambda name, where, required, deprecated, schema: {
            "name": name,
            "in": where,
            "required": required,
            "deprecated": deprecated,
            "schema": schema,
        },
        _NAMES,
        st.sampled_from(["query", "path", "header", "cookie"]),
        st.booleans(),
        st.booleans(),
        _schema_strategy(),
    )
    referenced = st.sampled_from(["#/components/parameters/Limit", "#/components/parameters/Nope"]).map(
        lambda r: {"$ref": r}
    )
    return st.one_of(inline, inline, referenced)


def _operation_strategy() -> st.SearchStrategy[dict[str, Any]]:
    response = st.one_of(
        st.builds(
            lambda schema: {"description": "ok", "content": {"application/json": {"schema": schema}}},
            _schema_strategy(),
        ),
        st.just({"$ref": "#/components/responses/Problem"}),
        st.just({"description": "empty"}),
    )
    return st.builds(
        lambda op_id, params, body, responses, tags, security: {
            **({"operationId": op_id} if op_id else {}),
            "parameters": params,
            **({"requestBody": {"content": {"application/json": {"schema": body}}}} if body is not None else {}),
            "responses": responses,
            "tags": tags,
            **({"security": security} if security is not None else {}),
        },
        st.one_of(st.none(), _NAMES),
        st.lists(_parameter_strategy(), max_size=2),
        st.one_of(st.none(), _schema_strategy()),
        st.dictionaries(st.sampled_from(["200", "201", "204", "400", "default"]), response, max_size=2),
        st.lists(_NAMES, max_size=2),
        st.one_of(st.none(), st.just([]), st.just([{"basic": []}]), st.just([{"undefined": ["scope"]}])),
    )


def _document_strategy() -> st.SearchStrategy[dict[str, Any]]:
    path = _NAMES.map(lambda name: f"/{name}") | _NAMES.map(lambda name: f"/{name}/{{id}}/Sub.{name}")
    path_item = st.dictionaries(
        st.sampled_from(["get", "put", "post", "delete", "patch", "head", "options", "trace"]),
        _operation_strategy(),
        min_size=1,
        max_size=2,
    )
    schemas = st.fixed_dictionaries({name: _schema_strategy() for name in _SCHEMA_NAMES})
    return st.builds(
        lambda version, paths, schemas: {
            "openapi": version,
            "info": {"title": "Generated", "version": "1"},
            "paths": paths,
            "components": {
                "schemas": schemas,
                "parameters": {
                    "Limit": {"name": "limit", "in": "query", "schema": {"$ref": "#/components/schemas/Pet"}}
                },
                "responses": {
                    "Problem": {
                        "description": "problem",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    }
                },
                "securitySchemes": {"basic": {"type": "http", "scheme": "basic"}},
            },
        },
        st.sampled_from(["3.0.3", "3.1.0"]),
        st.dictionaries(path, path_item, min_size=1, max_size=3),
        schemas,
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(document=_document_strategy())
def test_property_random_specs_chunk_without_crashing_and_cover_every_operation(document: dict[str, Any]) -> None:
    result = chunk_openapi(document, "gen", "gen.json")
    check_coverage(document, result)
    check_metadata(document, result)
    for chunk in result.smart:
        if chunk.kind == "schema":
            assert chunk.tokens <= 2 * SCHEMA_PART_TOKENS
    external = {"http://127.0.0.1:9/x.json", "file:///etc/passwd", "../other.yaml#/X"}
    text = json.dumps(document)
    for ref in external:
        assert (ref in result.unresolved_refs) == (f'"$ref": "{ref}"' in text)
    # the same document read back from JSON text (through the loader's checks) chunks identically
    reloaded = load_openapi("gen.json", data=json.dumps(document).encode())
    assert [c.text for c in chunk_openapi(reloaded, "gen", "gen.json").smart] == [c.text for c in result.smart]


# ---------------------------------------------------------------- conventions


def test_conventions_chunk_states_what_most_operations_share() -> None:
    too_many = {"schema": {"$ref": "#/components/schemas/TooMany"}}
    error = {"description": "Too many requests.", "content": {"application/json": too_many}}
    header = {
        "name": "x-account-id",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "The account identifier",
    }
    page_size = {
        "name": "page_size",
        "in": "query",
        "schema": {"type": "integer", "default": 25},
        "description": "Results per page",
    }
    retries = {"statusCodes": [429, 408], "strategy": "backoff"}
    item_id = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}

    def operation(parameters: list[dict[str, Any]]) -> dict[str, Any]:
        responses = {"200": {"description": "ok"}, "429": error}
        return {"parameters": parameters, "responses": responses, "x-speakeasy-retries": retries}

    document = {
        "openapi": "3.1.0",
        "info": {"title": "Shared", "version": "1"},
        "paths": {
            "/people": {"get": operation([header, page_size]), "post": operation([header])},
            "/people/{id}": {"get": operation([header, item_id]), "patch": operation([header, item_id])},
            "/teams": {"get": operation([header, page_size])},
            "/teams/{id}": {"get": operation([header, item_id])},
        },
        "components": {"schemas": {"TooMany": {"type": "object", "properties": {"message": {"type": "string"}}}}},
    }
    result = chunk_openapi(document, "shared", "shared.json")
    conventions = next(c for c in result.smart if c.covers == ("shared.conventions",))
    assert conventions.chunk_id == "smart/shared.conventions" and conventions.kind == "overview"
    text = conventions.text
    assert "Derived from its 6 operations (2 of them list collections)." in text
    assert "- x-account-id (header, string, required): The account identifier — on 6 of 6 operations." in text
    assert "- page_size (query, integer, optional): Results per page Default: 25. — on 2 of 2 list operations." in text
    assert "- 429 → TooMany: Too many requests. — on 6 of 6." in text
    assert "Retries (x-speakeasy-retries on 6 operations): retry status codes 429, 408 with strategy backoff." in text
    assert "id (path" not in text and "- 200" not in text  # path ids and successes are not conventions
    # Each operation's parameters say which most operations share, its text unchanged.
    people = next(c for c in result.smart if c.covers == ("shared.paths./people.get",))
    assert [(p.name, p.shared_by, p.operations) for p in people.parameters] == [("x-account-id", 6, 6),
                                                                               ("page_size", 0, 0)]
    assert "on 6 of 6" not in people.text
    single = {"openapi": "3.1.0", "info": {"title": "One", "version": "1"}, "paths": {"/a": {"get": operation([])}}}
    assert not any(c.covers == ("one.conventions",) for c in chunk_openapi(single, "one", "one.json").smart)


def test_an_operation_without_a_summary_is_embedded_with_its_operation_id() -> None:
    """Generated specs often have operationIds and paths but no prose: the embedding text keeps the operationId
    (`_` as spaces; spelling camelCase out in words cost the blinded sets, stop 33) and the path; the overview
    carries what the API says it does as fields."""
    ok = {"200": {"description": "ok"}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Guilds", "version": "1", "summary": "Chat servers", "description": "Run chat servers."},
        "paths": {
            "/guilds/{guild_id}/members/{user_id}": {
                "delete": {"operationId": "delete_guild_member", "responses": ok},
                "put": {"responses": ok},
            },
        },
    }
    result = chunk_openapi(document, "guilds", "guilds.json")
    embedded = {c.covers[0]: c.embedding_text for c in result.smart if c.kind == "operation"}
    member = "guilds.paths./guilds/{guild_id}/members/{user_id}"
    assert embedded[f"{member}.delete"].startswith("DELETE /guilds/{guild_id}/members/{user_id}. delete guild member.")
    assert embedded[f"{member}.put"].startswith("PUT /guilds/{guild_id}/members/{user_id}.")
    overview = one(result, "guilds.overview")
    assert (overview.summary, overview.description) == ("Chat servers", "Run chat servers.")


def test_a_cors_preflight_is_no_operation_but_a_documented_options_is() -> None:
    cors = {"Access-Control-Allow-Origin": {"schema": {"type": "string"}},
            "Access-Control-Allow-Methods": {"schema": {"type": "string"}}}
    document = {
        "openapi": "3.0.3", "info": {"title": "Docs AI", "version": "1"},
        "paths": {
            "/models/{modelId}": {
                "delete": {"summary": "Delete a model", "responses": {"200": {"description": "deleted"}}},
                "options": {"responses": {"200": {"description": "200 response", "headers": cors}}},
            },
            "/capabilities": {
                "options": {"summary": "What the server supports", "responses": {
                    "200": {"description": "ok", "headers": {"Allow": {"schema": {"type": "string"}}}}}},
            },
        },
    }
    assert [(o.method, o.path) for o in iter_operations(document)] == [
        ("delete", "/models/{modelId}"), ("options", "/capabilities")]
    covers = {c.covers[0] for c in chunk_openapi(document, "docs", "docs.json").smart if c.kind == "operation"}
    assert covers == {"docs.paths./models/{modelId}.delete", "docs.paths./capabilities.options"}
    naive = {c.title: c.covers for c in chunk_openapi(document, "docs", "docs.json").naive if c.kind == "operation"}
    assert naive == {"paths./models/{modelId}": ("docs.paths./models/{modelId}.delete",),
                     "paths./capabilities": ("docs.paths./capabilities.options",)}


def test_the_overview_s_alternatives_are_the_requirements_the_spec_states_the_most_used_first() -> None:
    """API2Cart: 140 operations require `x-api-key` and `x-store-key`, 7 `x-api-key` alone; "how do I authenticate?"
    was told to send one or the other. A scheme no requirement names is an alternative of its own, last."""
    both = {"security": [{"api_key": [], "store_key": []}], "responses": {}}
    document = {
        "openapi": "3.0.0", "info": {"title": "Carts", "version": "1"},
        "paths": {"/account.cart.list.json": {"get": {"security": [{"api_key": []}], "responses": {}}},
                  "/product.list.json": {"get": both}, "/cart.list.json": {"get": both},
                  "/public.json": {"get": {"security": [{}], "responses": {}}}},
        "components": {"securitySchemes": {
            "token": {"type": "http", "scheme": "bearer"},
            "api_key": {"type": "apiKey", "in": "header", "name": "x-api-key"},
            "store_key": {"type": "apiKey", "in": "header", "name": "x-store-key"}}},
    }
    overview = chunk_openapi(document, "carts", "carts.json").smart[0]
    assert [(s.name, s.alternative) for s in overview.security] == [
        ("api_key", 0), ("store_key", 0), ("api_key", 1), ("token", 2)]
