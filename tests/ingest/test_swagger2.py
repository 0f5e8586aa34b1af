"""Swagger 2.0 → OpenAPI 3.0 (rag/ingest/swagger2.py): each rule on a small document, then real 2.0 specs
(Slack's Web API and two versions of Netlify's, from ../shared/swagger2) converted, chunked and diffed."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest

from rag.ingest.loader import load_openapi
from rag.ingest.openapi import OpenAPIChunks, chunk_openapi
from rag.ingest.pipeline import parse_path
from rag.ingest.swagger2 import convert_swagger2, is_swagger2
from tests.conftest import SHARED
from tests.ingest.test_openapi import check_coverage, check_metadata

SWAGGER2 = SHARED / "swagger2"
REAL = ("slack_web.json", "netlify.yml", "netlify-2024-05.yml")
needs_shared = pytest.mark.skipif(not SWAGGER2.is_dir(), reason=f"the real Swagger 2.0 specs are not at {SWAGGER2} "
                                  "(../shared is absent; set RAG_SHARED_DIR)")

PETSTORE: dict[str, Any] = {
    "swagger": "2.0",
    "info": {"title": "Pets", "version": "1.0.0"},
    "host": "api.pets.example", "basePath": "/v1", "schemes": ["https", "http"],
    "consumes": ["application/json"], "produces": ["application/json", "application/xml"],
    "x-logo": {"url": "logo.png"},
    "securityDefinitions": {
        "basic": {"type": "basic", "description": "user and password"},
        "key": {"type": "apiKey", "in": "header", "name": "X-Api-Key", "x-vendor": 1},
        "code": {"type": "oauth2", "flow": "accessCode", "authorizationUrl": "https://a/authorize",
                 "tokenUrl": "https://a/token", "scopes": {"pets:read": "read pets"}},
        "machine": {"type": "oauth2", "flow": "application", "tokenUrl": "https://a/token", "scopes": {}},
    },
    "parameters": {
        "limit": {"name": "limit", "in": "query", "type": "integer", "default": 20, "maximum": 100},
        "petBody": {"name": "pet", "in": "body", "required": True, "schema": {"$ref": "#/definitions/Pet"}},
    },
    "responses": {"NotFound": {"description": "no such pet", "schema": {"$ref": "#/definitions/Error"}}},
    "definitions": {
        "Pet": {"type": "object", "required": ["name"], "discriminator": "kind",
                "properties": {"name": {"type": "string"}, "kind": {"type": "string"},
                               "tag": {"type": "string", "x-nullable": True},
                               "photo": {"type": "file"},
                               "owner": {"$ref": "#/definitions/Owner"}}},
        "Owner": {"type": "object", "properties": {"pets": {"type": "array", "items": {"$ref": "#/definitions/Pet"}}}},
        "Error": {"type": "object", "properties": {"message": {"type": "string"}}},
    },
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets", "x-internal": False,
                "parameters": [
                    {"$ref": "#/parameters/limit"},
                    {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"},
                     "collectionFormat": "multi"},
                    {"name": "ids", "in": "query", "type": "array", "items": {"type": "integer"}},
                    {"name": "X-Trace", "in": "header", "type": "string", "x-example": "abc"},
                ],
                "responses": {"200": {"description": "pets", "schema": {"type": "array",
                                                                         "items": {"$ref": "#/definitions/Pet"}},
                                      "headers": {"X-Rate-Limit": {"type": "integer", "description": "per hour"}},
                                      "examples": {"application/json": [{"name": "Rex"}]}},
                              "404": {"$ref": "#/responses/NotFound"}},
                "security": [{"code": ["pets:read"]}],
            },
            "post": {"operationId": "addPet", "parameters": [{"$ref": "#/parameters/petBody"}],
                     "responses": {"201": {"description": "created"}}},
        },
        "/pets/{petId}/photo": {
            "parameters": [{"name": "petId", "in": "path", "required": True, "type": "string"}],
            "post": {
                "operationId": "uploadPhoto", "consumes": ["multipart/form-data"], "produces": ["text/plain"],
                "parameters": [
                    {"name": "file", "in": "formData", "type": "file", "required": True, "description": "the photo"},
                    {"name": "caption", "in": "formData", "type": "string", "maxLength": 80},
                ],
                "responses": {"200": {"description": "stored", "schema": {"type": "string"}}},
            },
        },
        "/pets/{petId}/tags": {
            "put": {"consumes": ["application/x-www-form-urlencoded"],
                    "parameters": [{"name": "petId", "in": "path", "type": "string"},
                                   {"name": "tags", "in": "formData", "type": "array", "items": {"type": "string"},
                                    "collectionFormat": "pipes"}],
                    "responses": {"default": {"description": "done"}}},
        },
    },
}


@pytest.fixture(scope="module")
def converted() -> dict[str, Any]:
    return convert_swagger2(PETSTORE)


def test_the_input_is_not_changed_and_only_20_is_swagger2(converted: dict[str, Any]) -> None:
    before = copy.deepcopy(PETSTORE)
    convert_swagger2(PETSTORE)
    assert before == PETSTORE
    assert is_swagger2(PETSTORE) and not is_swagger2(converted) and not is_swagger2({"swagger": "1.2"})
    assert converted["openapi"] == "3.0.3" and converted["info"] == PETSTORE["info"]


def test_servers_from_host_base_path_and_schemes(converted: dict[str, Any]) -> None:
    assert converted["servers"] == [{"url": "https://api.pets.example/v1"}, {"url": "http://api.pets.example/v1"}]
    assert convert_swagger2({"swagger": "2.0", "basePath": "api", "paths": {}})["servers"] == [{"url": "/api"}]
    assert "servers" not in convert_swagger2({"swagger": "2.0", "paths": {}})


def test_definitions_become_component_schemas_and_every_ref_moves(converted: dict[str, Any]) -> None:
    schemas = converted["components"]["schemas"]
    assert set(schemas) == {"Pet", "Owner", "Error"}
    assert schemas["Owner"]["properties"]["pets"]["items"] == {"$ref": "#/components/schemas/Pet"}
    assert "#/definitions/" not in json.dumps(converted)
    pet = schemas["Pet"]
    assert pet["discriminator"] == {"propertyName": "kind"}
    assert pet["properties"]["tag"] == {"type": "string", "x-nullable": True, "nullable": True}
    assert pet["properties"]["photo"] == {"type": "string", "format": "binary"}


def test_security_definitions_become_security_schemes(converted: dict[str, Any]) -> None:
    schemes = converted["components"]["securitySchemes"]
    assert schemes["basic"] == {"type": "http", "scheme": "basic", "description": "user and password"}
    assert schemes["key"] == {"type": "apiKey", "name": "X-Api-Key", "in": "header", "x-vendor": 1}
    assert schemes["code"]["flows"] == {"authorizationCode": {
        "authorizationUrl": "https://a/authorize", "tokenUrl": "https://a/token", "scopes": {"pets:read": "read pets"}}}
    assert list(schemes["machine"]["flows"]) == ["clientCredentials"]


def test_parameters_get_schemas_and_collection_formats_become_styles(converted: dict[str, Any]) -> None:
    assert converted["components"]["parameters"] == {"limit": {
        "name": "limit", "in": "query", "schema": {"type": "integer", "default": 20, "maximum": 100}}}
    listing = converted["paths"]["/pets"]["get"]
    ref, tags, ids, trace = listing["parameters"]
    assert ref == {"$ref": "#/components/parameters/limit"}
    assert (tags["style"], tags["explode"]) == ("form", True)  # multi
    assert (ids["style"], ids["explode"]) == ("form", False)  # csv, 2.0's default
    assert trace == {"name": "X-Trace", "in": "header", "schema": {"type": "string"}, "x-example": "abc"}
    assert listing["x-internal"] is False and listing["security"] == [{"code": ["pets:read"]}]
    path_item = converted["paths"]["/pets/{petId}/photo"]
    assert path_item["parameters"] == [{"name": "petId", "in": "path", "required": True, "schema": {"type": "string"}}]


def test_responses_get_content_per_produced_type_with_examples_and_headers(converted: dict[str, Any]) -> None:
    responses = converted["paths"]["/pets"]["get"]["responses"]
    ok = responses["200"]
    assert set(ok["content"]) == {"application/json", "application/xml"}
    assert ok["content"]["application/json"]["example"] == [{"name": "Rex"}]
    assert ok["content"]["application/xml"]["schema"]["items"] == {"$ref": "#/components/schemas/Pet"}
    assert ok["headers"] == {"X-Rate-Limit": {"description": "per hour", "schema": {"type": "integer"}}}
    assert responses["404"] == {"$ref": "#/components/responses/NotFound"}
    assert converted["components"]["responses"]["NotFound"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"}
    assert converted["paths"]["/pets"]["post"]["responses"]["201"] == {"description": "created"}


def test_a_shared_body_parameter_becomes_the_request_body(converted: dict[str, Any]) -> None:
    add = converted["paths"]["/pets"]["post"]
    assert "parameters" not in add
    assert add["requestBody"] == {"required": True, "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}
    assert "petBody" not in converted["components"]["parameters"]


def test_form_data_becomes_an_object_body_multipart_when_a_file_is_sent(converted: dict[str, Any]) -> None:
    upload = converted["paths"]["/pets/{petId}/photo"]["post"]
    body = upload["requestBody"]
    assert body["required"] is True and list(body["content"]) == ["multipart/form-data"]
    schema = body["content"]["multipart/form-data"]["schema"]
    assert schema["required"] == ["file"]
    assert schema["properties"]["file"] == {"type": "string", "format": "binary", "description": "the photo"}
    assert schema["properties"]["caption"] == {"type": "string", "maxLength": 80}
    assert upload["responses"]["200"]["content"] == {"text/plain": {"schema": {"type": "string"}}}
    tags = converted["paths"]["/pets/{petId}/tags"]["put"]
    assert tags["parameters"][0]["required"] is True  # a path parameter always is
    form = tags["requestBody"]["content"]["application/x-www-form-urlencoded"]
    assert form["encoding"] == {"tags": {"style": "pipeDelimited", "explode": False}}


def test_the_converted_petstore_is_chunked_with_its_facts(converted: dict[str, Any]) -> None:
    result = chunk_openapi(converted, "pets", "pets.json")
    check_coverage(converted, result)
    check_metadata(converted, result)
    assert result.unresolved_refs == []
    text = {chunk.chunk_id: chunk.text for chunk in result.smart}
    overview = next(t for t in text.values() if t.startswith("API overview"))
    assert "https://api.pets.example/v1" in overview and "HTTP Basic" in overview


# ---------------------------------------------------------------------- real 2.0 specs
@cache
def real(name: str) -> tuple[dict[str, Any], OpenAPIChunks]:
    document = load_openapi(SWAGGER2 / name)
    return document, chunk_openapi(document, name.split(".")[0], name)


@needs_shared
@pytest.mark.parametrize(("name", "operations"), [("slack_web.json", 174), ("netlify.yml", 174),
                                                  ("netlify-2024-05.yml", 132)])
def test_a_real_swagger2_spec_converts_with_every_operation(name: str, operations: int) -> None:
    """(Coverage and lost facts of these specs: tests/ingest/test_real_specs.py, which reads them too.)"""
    document, result = real(name)
    assert document["openapi"] == "3.0.3" and "#/definitions/" not in json.dumps(document)
    assert result.operation_count == operations and result.unresolved_refs == []


@needs_shared
def test_slack_post_message_reads_as_a_developer_needs_it() -> None:
    document, result = real("slack_web.json")
    assert result.operation_count == 174 and document["servers"] == [{"url": "https://slack.com/api"}]
    (chunk,) = [c for c in result.smart if c.covers == ("slack_web.paths./chat.postMessage.post",)]
    assert "Request body (application/x-www-form-urlencoded, required)" in chunk.text
    assert "- channel (string, required)" in chunk.text
    assert "- token (header, string, required)" in chunk.text
    assert "scopes: chat:write:user, chat:write:bot" in chunk.text
    schemes = document["components"]["securitySchemes"]["slackAuth"]
    assert schemes["flows"]["authorizationCode"]["tokenUrl"] == "https://slack.com/api/oauth.access"


@needs_shared
@pytest.mark.parametrize("name", ["netlify.yml", "netlify-2024-05.yml"])
def test_netlify_body_path_level_and_file_parameters_convert(name: str) -> None:
    document, _ = real(name)
    update = document["paths"]["/sites/{site_id}"]["patch"]
    assert update["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/siteSetup"}
    assert update["requestBody"]["required"] is True
    assert {p["name"] for p in document["paths"]["/sites/{site_id}"]["parameters"]} == {"site_id"}
    assert set(document["components"]["parameters"]) == {"page", "perPage", "retryCount"}
    assert document["x-tagGroups"]  # extensions stay


@needs_shared
def test_ingest_reports_the_conversion() -> None:
    parsed = parse_path(SWAGGER2 / "slack_web.json")
    assert parsed.notes == ("converted from Swagger 2.0 to OpenAPI 3.0",)
    assert parsed.spec is not None and parsed.spec["openapi"] == "3.0.3"
    assert parsed.api == "slack_web" and parsed.spec_version == "1.7.0"

