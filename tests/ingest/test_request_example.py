"""The request example ingest builds for each operation (rag.ingest.request_example): the server URL, the path
with its parameters, the required query and header parameters, and a body holding the required fields of its
schema, valid against that schema (checked with `jsonschema`, OpenAPI 3.0 and 3.1 alike)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import pytest

from rag.chunk import Chunk, RequestExample
from rag.ingest.openapi import chunk_openapi
from rag.ingest.refs import RefResolver
from rag.ingest.request_example import FORMAT_SAMPLES, Sampler, smallest_number
from rag.ingest.spec import iter_operations
from tests.ingest.json_schema import OpenAPISchemas


def spec(paths: dict[str, Any], schemas: dict[str, Any] | None = None, version: str = "3.0.3",
         **top: Any) -> dict[str, Any]:
    """A small OpenAPI document."""
    return {"openapi": version, "info": {"title": "Acme Widgets", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas or {}, **top.pop("components", {})}, **top}


def operations(document: dict[str, Any]) -> dict[str, Chunk]:
    """The operation chunks of a document by `METHOD /path`."""
    return {c.title: c for c in chunk_openapi(document, "acme", "acme.json").smart if c.kind == "operation"}


def example_of(document: dict[str, Any], title: str) -> RequestExample:
    found = operations(document)[title].request_example
    assert found is not None
    return found


def body_of(document: dict[str, Any], title: str) -> Any:
    return json.loads(example_of(document, title).body)


def post(schema: dict[str, Any], media: str = "application/json") -> dict[str, Any]:
    return {"post": {"requestBody": {"required": True, "content": {media: {"schema": schema}}},
                     "responses": {"201": {"description": "created"}}}}


def assert_valid(document: dict[str, Any], title: str) -> Any:
    """The example body of an operation, checked against the operation's request schema."""
    method, path = title.split(" ", 1)
    example = example_of(document, title)
    operation = document["paths"][path][method.lower()]
    schemas = OpenAPISchemas(document)
    body, _ = schemas.resolver.deref(operation["requestBody"])
    value = json.loads(example.body)
    errors = [error.message for error in schemas.validator(body["content"][example.media_type]["schema"])
              .iter_errors(value)]
    assert errors == [], (value, errors)
    return value


# --- bodies ---------------------------------------------------------------------------------------------------


def test_a_body_holds_the_required_fields_from_example_default_and_enum_and_typed_placeholders() -> None:
    document = spec({"/widgets": post({"$ref": "#/components/schemas/NewWidget"})}, {"NewWidget": {
        "type": "object",
        "required": ["name", "size", "colour", "count", "price", "active", "created_at", "owner_email", "site",
                     "id", "tags"],
        "properties": {
            "name": {"type": "string", "example": "Sprocket"},
            "size": {"type": "integer", "default": 3},
            "colour": {"type": "string", "enum": ["red", "blue"]},
            "count": {"type": "integer", "minimum": 5, "maximum": 9},
            "price": {"type": "number", "exclusiveMinimum": True, "minimum": 1},
            "active": {"type": "boolean"},
            "created_at": {"type": "string", "format": "date-time"},
            "owner_email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "id": {"type": "string", "format": "uuid"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "notes": {"type": "string", "example": "optional, so not sent"},
        },
    }})
    body = assert_valid(document, "POST /widgets")
    assert body == {
        "name": "Sprocket", "size": 3, "colour": "red", "count": 5, "price": 1.5, "active": True,
        "created_at": FORMAT_SAMPLES["date-time"], "owner_email": FORMAT_SAMPLES["email"],
        "site": FORMAT_SAMPLES["uri"], "id": FORMAT_SAMPLES["uuid"], "tags": ["<tags>", "<tags>"],
    }


def test_format_samples_are_valid_values_of_their_format() -> None:
    datetime.fromisoformat(FORMAT_SAMPLES["date-time"])
    datetime.fromisoformat(FORMAT_SAMPLES["date"])
    assert datetime.fromisoformat(f"2024-01-15T{FORMAT_SAMPLES['time']}").tzinfo is not None  # RFC 3339 full-time
    for key in ("uri", "url", "uri-reference", "iri"):
        parts = urlsplit(FORMAT_SAMPLES[key])
        assert parts.scheme == "https" and parts.netloc, key
    for fmt in ("email", "uuid", "ipv4", "ipv6", "date", "hostname"):  # jsonschema checks these
        schema = {"type": "string", "format": fmt}
        assert OpenAPISchemas({}).validator(schema).is_valid(FORMAT_SAMPLES[fmt]), fmt


def test_nested_required_objects_and_arrays_are_filled_and_read_only_fields_left_out() -> None:
    document = spec({"/orders": post({"$ref": "#/components/schemas/Order"})}, {
        "Order": {"type": "object", "required": ["id", "customer", "lines"], "properties": {
            "id": {"type": "string", "readOnly": True},
            "customer": {"$ref": "#/components/schemas/Customer"},
            "lines": {"type": "array", "items": {"$ref": "#/components/schemas/Line"}},
        }},
        "Customer": {"type": "object", "required": ["email"], "properties": {
            "email": {"type": "string", "format": "email"}, "name": {"type": "string"}}},
        "Line": {"type": "object", "required": ["sku", "quantity"], "properties": {
            "sku": {"type": "string", "pattern": "^SKU-[0-9]{4}$"}, "quantity": {"type": "integer", "minimum": 1}}},
    })
    body = assert_valid(document, "POST /orders")
    assert set(body) == {"customer", "lines"}
    assert body["customer"] == {"email": FORMAT_SAMPLES["email"]}
    assert body["lines"][0]["quantity"] == 1 and body["lines"][0]["sku"].startswith("SKU-")


def test_openapi_3_0_nullable_and_3_1_null_types_take_the_real_type() -> None:
    schema = {"type": "object", "required": ["a", "b", "c"], "properties": {
        "a": {"type": "string", "nullable": True, "enum": ["x", "y", None]},
        "b": {"type": ["null", "integer"]},
        "c": {"anyOf": [{"type": "null"}, {"type": "string", "format": "date"}]},
    }}
    for version in ("3.0.3", "3.1.0"):
        body = assert_valid(spec({"/things": post(schema)}, version=version), "POST /things")
        assert body == {"a": "x", "b": 1, "c": FORMAT_SAMPLES["date"]}


def test_one_of_takes_the_first_alternative_and_any_of_fields_named_by_the_parent() -> None:
    document = spec({
        "/pets": post({"oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
                       "discriminator": {"propertyName": "kind"}}),
        "/batches": post({"type": "object", "additionalProperties": False,
                          "properties": {"file_ids": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                                         "files": {"type": "array", "items": {"type": "string"}}},
                          "anyOf": [{"required": ["file_ids"]}, {"required": ["files"]}]}),
    }, {
        "Cat": {"type": "object", "required": ["kind", "lives"], "properties": {
            "kind": {"type": "string", "enum": ["cat"]}, "lives": {"type": "integer", "maximum": 9}}},
        "Dog": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string", "enum": ["dog"]}}},
    })
    assert assert_valid(document, "POST /pets") == {"kind": "cat", "lives": 1}
    assert assert_valid(document, "POST /batches") == {"file_ids": ["<file_ids>"]}


def test_all_of_parts_are_merged() -> None:
    document = spec({"/staff": post({"allOf": [
        {"$ref": "#/components/schemas/Person"},
        {"type": "object", "required": ["role"], "properties": {"role": {"type": "string", "default": "engineer"}}},
    ]})}, {"Person": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}})
    assert assert_valid(document, "POST /staff") == {"name": "<name>", "role": "engineer"}


def test_a_recursive_schema_ends() -> None:
    document = spec({"/nodes": post({"$ref": "#/components/schemas/Node"})}, {"Node": {
        "type": "object", "required": ["label", "child"], "properties": {
            "label": {"type": "string"}, "child": {"$ref": "#/components/schemas/Node"}}}})
    body = body_of(document, "POST /nodes")
    assert body["label"] == "<label>" and isinstance(body["child"], dict)


def test_an_example_of_the_wrong_type_is_not_used() -> None:
    document = spec({"/limits": post({"type": "object", "required": ["max"], "properties": {
        "max": {"type": "integer", "example": "ten", "default": 10}}})})
    assert assert_valid(document, "POST /limits") == {"max": 10}


def test_an_example_that_breaks_its_own_limits_pattern_or_date_format_is_not_used() -> None:
    document = spec({"/people": post({"type": "object", "required": ["birthday", "code", "nick", "due"],
                                      "properties": {
        "birthday": {"type": "string", "format": "date", "example": "2025-10-15T13:51:36.638Z"},  # Apideck's
        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "example": "abcd", "default": "ABC"},
        "nick": {"type": "string", "maxLength": 4, "example": "Alexander"},
        "due": {"type": "string", "format": "date-time", "example": "2024-02-01T10:00:00+01:00"},
    }})})
    body = assert_valid(document, "POST /people")
    assert body == {"birthday": FORMAT_SAMPLES["date"], "code": "ABC", "nick": "xxxx",
                    "due": "2024-02-01T10:00:00+01:00"}


def test_a_whole_example_whose_items_or_fields_break_the_schema_is_not_used() -> None:
    order = {"type": "object", "required": ["accountId"], "properties": {"accountId": {"type": "integer"}}}
    document = spec({"/batches": post({"type": "object", "required": ["orders", "tags"], "properties": {
        "orders": {"type": "array", "items": order, "example": [{"accountId": "1234"}]},  # BeezUP's
        "tags": {"type": "array", "items": {"type": "string"}, "example": ["vip", "late"]},
    }})})
    assert assert_valid(document, "POST /batches") == {"orders": [{"accountId": 1}], "tags": ["vip", "late"]}


@pytest.mark.parametrize(("field", "low", "high"), [
    ({"type": "string", "pattern": "^arn:aws:[a-z0-9-]+:.*$", "maxLength": 20}, 0, 20),
    ({"type": "string", "pattern": r"^[\s]*[\w+=.#!&-]+@[\w.-]+\.[\w]+[\s]*$", "maxLength": 64}, 0, 64),  # AWS's email
    ({"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "minLength": 5, "maxLength": 8}, 5, 8),
    ({"type": "string", "pattern": "^(?!aws)[^/]+$", "maxLength": 12}, 0, 12),
    ({"type": "string", "pattern": "^[0-9]+$", "minLength": 12, "maxLength": 12}, 12, 12),  # an AWS account id
    ({"type": "string", "pattern": r"^\d+-\d+$", "minLength": 12, "maxLength": 12}, 12, 12),
])
def test_a_string_made_from_its_pattern_is_short_readable_and_within_its_length_limits(
        field: dict[str, Any], low: int, high: int) -> None:
    document = spec({"/things": post({"type": "object", "required": ["name"], "properties": {"name": field}})})
    name = assert_valid(document, "POST /things")["name"]
    assert low <= len(name) <= high and name.isprintable() and not any(c.isspace() for c in name), name
    assert body_of(document, "POST /things") == {"name": name}  # the same string every time


def test_an_object_holds_as_many_fields_as_its_min_properties_asks() -> None:
    document = spec({"/extensions": post({"type": "object", "required": ["actions", "filter"], "properties": {
        "actions": {"type": "object", "minProperties": 1,  # AWS AppConfig's map of action lists
                    "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "filter": {"type": "object", "minProperties": 2, "required": ["kind"], "properties": {
            "kind": {"type": "string"}, "size": {"type": "integer", "minimum": 3}, "tag": {"type": "string"}}},
    }})})
    body = assert_valid(document, "POST /extensions")
    assert body == {"actions": {"<key>": ["<value>"]}, "filter": {"kind": "<kind>", "size": 3}}


def test_a_body_that_requires_nothing_shows_its_first_sendable_fields() -> None:
    document = spec({"/profiles": post({"type": "object", "properties": {
        "id": {"type": "string", "readOnly": True},
        "old": {"type": "string", "deprecated": True},
        "title": {"type": "string", "example": "Dr"},
        "first_name": {"type": "string", "example": "Ada"},
        "last_name": {"type": "string", "example": "Lovelace"},
        "nickname": {"type": "string"},
    }})})
    assert assert_valid(document, "POST /profiles") == {"title": "Dr", "first_name": "Ada", "last_name": "Lovelace"}


def test_a_wrapper_object_that_requires_nothing_shows_the_first_fields_inside_it() -> None:
    """Jumpseller's `POST /customers.json` sends `{"customer": {…}}` and requires nothing: the example showed
    `{"customer": {}}`."""
    document = spec({"/customers.json": post({"$ref": "#/components/schemas/CustomerCreate"})}, {
        "CustomerCreate": {"type": "object", "properties": {"customer": {"$ref": "#/components/schemas/Fields"}}},
        "Fields": {"type": "object", "properties": {
            "email": {"type": "string", "example": "ada@example.com"},
            "phone": {"type": "string", "example": "+44 20 7946 0000"},
            "address": {"type": "object", "properties": {"city": {"type": "string", "example": "London"}}},
            "notes": {"type": "string"},
        }},
    })
    assert assert_valid(document, "POST /customers.json") == {"customer": {
        "email": "ada@example.com", "phone": "+44 20 7946 0000", "address": {"city": "London"}}}


def test_fields_whose_sample_is_empty_come_after_those_that_show_what_they_take() -> None:
    """Postmark's `SendEmailRequest` requires nothing and begins with `Attachments` (objects requiring nothing): the
    example sent `"Attachments": [{}]`."""
    document = spec({"/email": post({"type": "object", "properties": {
        "Attachments": {"type": "array", "items": {"type": "object", "properties": {"Name": {"type": "string"}}}},
        "Headers": {"type": "object"},
        "From": {"type": "string", "example": "sender@example.com"},
        "To": {"type": "string", "example": "receiver@example.com"},
        "Subject": {"type": "string", "example": "Test"},
    }})})
    assert assert_valid(document, "POST /email") == {
        "From": "sender@example.com", "To": "receiver@example.com", "Subject": "Test"}


def test_smallest_number_respects_bounds_and_multiples() -> None:
    assert smallest_number({"minimum": 10, "multipleOf": 4}, integer=True) == 12
    assert smallest_number({"maximum": -3}, integer=True) == -3
    assert smallest_number({"exclusiveMaximum": 1}, integer=False) == 0.5
    assert smallest_number({}, integer=True) == 1


def test_sampling_follows_refs_with_the_projects_resolver() -> None:
    document = {"components": {"schemas": {"Id": {"type": "string", "example": "w_1"}}}}
    assert Sampler(RefResolver(document)).value({"$ref": "#/components/schemas/Id"}) == "w_1"
    assert Sampler(RefResolver(document)).value({"$ref": "#/components/schemas/Missing"}, "x") == "<x>"


# --- the rest of the request ----------------------------------------------------------------------------------


def test_url_from_the_operations_server_with_variables_filled_and_path_parameters() -> None:
    document = spec(
        {"/owners/{owner}/repos/{repo}": {
            "servers": [{"url": "https://{region}.acme.test/{base}", "variables": {
                "region": {"default": "eu"}, "base": {"default": "v2"}}}],
            "parameters": [{"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"parameters": [{"name": "repo", "in": "path", "required": True, "example": "hello world",
                                    "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "ok"}}}}},
        servers=[{"url": "https://api.acme.test"}])
    example = example_of(document, "GET /owners/{owner}/repos/{repo}")
    assert example.url == "https://eu.acme.test/v2/owners/<owner>/repos/hello%20world"
    assert example.method == "GET" and example.body == "" and example.credential == "ACME"


def test_a_relative_or_missing_server_is_put_under_a_placeholder_host() -> None:
    paths = {"/ping": {"get": {"responses": {"200": {"description": "ok"}}}}}
    assert example_of(spec(paths, servers=[{"url": "/v1"}]), "GET /ping").url == "https://<host>/v1/ping"
    missing = example_of(spec(paths), "GET /ping")
    assert missing.url == "https://<host>/ping" and missing.credential == "ACME"
    # Postmark's server is scheme-relative: its host is given.
    assert example_of(spec(paths, servers=[{"url": "//api.postmarkapp.com"}]), "GET /ping").url == (
        "https://api.postmarkapp.com/ping")


def test_required_query_and_header_parameters_only_and_no_content_type_or_auth_header() -> None:
    document = spec({"/search": {"get": {"parameters": [
        {"name": "q", "in": "query", "required": "true", "schema": {"type": "string"}},
        {"name": "type", "in": "query", "required": True, "schema": {"type": "array", "items": {
            "type": "string", "enum": ["album", "artist"]}}},
        {"name": "filter", "in": "query", "required": True, "style": "deepObject",
         "schema": {"type": "object", "required": ["status"], "properties": {"status": {"type": "string",
                                                                                        "enum": ["open"]}}}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}},
        {"name": "x-account-id", "in": "header", "required": True, "schema": {"type": "string"}},
        {"name": "Content-Type", "in": "header", "required": True, "schema": {"type": "string"}},
        {"name": "Authorization", "in": "header", "required": True, "schema": {"type": "string"}},
    ], "responses": {"200": {"description": "ok"}}}}})
    example = example_of(document, "GET /search")
    assert example.query == (("q", "<q>"), ("type", "album"), ("filter[status]", "open"))
    assert example.headers == (("x-account-id", "<x-account-id>"),)


def test_the_first_alternative_of_the_security_requirement_is_the_auth() -> None:
    document = spec({"/me": {"get": {"security": [{"key": [], "token": []}, {"basic": []}],
                                     "responses": {"200": {"description": "ok"}}}}},
                    components={"securitySchemes": {
                        "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
                        "token": {"type": "http", "scheme": "bearer"},
                        "basic": {"type": "http", "scheme": "basic"}}},
                    servers=[{"url": "https://api.widgets.example.com"}])
    example = example_of(document, "GET /me")
    assert [scheme.name for scheme in example.auth] == ["key", "token"]
    assert example.credential == "EXAMPLE"


def test_form_and_multipart_bodies_keep_their_media_type_and_name_their_files() -> None:
    document = spec({
        "/messages": post({"type": "object", "required": ["To", "Body"], "properties": {
            "To": {"type": "string"}, "Body": {"type": "string", "example": "Hi there"}}},
            media="application/x-www-form-urlencoded"),
        "/uploads": post({"type": "object", "required": ["file", "purpose"], "properties": {
            "file": {"type": "string", "format": "binary"}, "purpose": {"type": "string", "enum": ["batch"]}}},
            media="multipart/form-data"),
    })
    form = example_of(document, "POST /messages")
    assert form.media_type == "application/x-www-form-urlencoded" and form.files == ()
    assert json.loads(form.body) == {"To": "<To>", "Body": "Hi there"}
    upload = example_of(document, "POST /uploads")
    assert upload.media_type == "multipart/form-data" and upload.files == ("file",)


def test_json_is_preferred_among_media_types() -> None:
    paths = {"/notes": {"post": {"requestBody": {"content": {
        "text/plain": {"schema": {"type": "string"}},
        "application/merge-patch+json": {"schema": {"type": "object", "required": ["n"],
                                                    "properties": {"n": {"type": "integer"}}}}}},
        "responses": {"200": {"description": "ok"}}}}}
    example = example_of(spec(paths), "POST /notes")
    assert example.media_type == "application/merge-patch+json" and json.loads(example.body) == {"n": 1}


def test_a_webhook_has_no_request_example() -> None:
    document = spec({}, version="3.1.0", webhooks={"newPet": {"post": {"responses": {"200": {"description": "ok"}}}}})
    chunks = [c for c in chunk_openapi(document, "acme", "acme.json").smart if c.kind == "operation"]
    assert chunks and all(chunk.request_example is None for chunk in chunks)


def test_every_operation_of_the_fixture_specs_has_a_valid_example(fixture_specs: list[dict[str, Any]]) -> None:
    for document in fixture_specs:
        chunks = operations(document)
        for operation in iter_operations(document):
            if operation.section != "paths":
                continue
            chunk = chunks[f"{operation.method.upper()} {operation.path}"]
            assert chunk.request_example is not None, chunk.title
            if chunk.request_example.body:
                assert_valid(document, chunk.title)


@pytest.fixture
def fixture_specs() -> list[dict[str, Any]]:
    from rag.ingest.loader import load_openapi
    from tests.conftest import FIXTURES

    names = ("people-3.1.json", "shop-3.0.yaml", "workforce-3.1.json", "notes-3.1.yaml")
    return [load_openapi(FIXTURES / "specs" / name) for name in names]
