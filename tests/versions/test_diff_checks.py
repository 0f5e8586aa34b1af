"""Spec pairs that each show one kind of change, held against the level oasdiff gives it: every error-level
change is an error, every warning-level one is reported, and no info-level change or equivalent edit
(reorder, `$ref` rename, inline → `$ref`, `allOf` split, description edits) is an error."""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest

from rag.versions.checks import CHECKS, LEVELS, SCHEMA_SUFFIXES, check
from rag.versions.diff import diff_documents

Spec = dict[str, Any]
TODAY = dt.date(2026, 1, 15)


def base() -> Spec:
    """A small pet store: a list with a limit, a create with a body, a get with a path parameter and a header,
    security as two alternatives (OAuth with a scope, or an API key)."""
    pet = {
        "type": "object",
        "required": ["id", "name"],
        "properties": {
            "id": {"type": "integer", "format": "int64"},
            "name": {"type": "string", "maxLength": 50, "description": "The pet's name"},
            "tag": {"type": "string"},
            "status": {"type": "string", "enum": ["available", "sold"]},
        },
    }
    new_pet = {"type": "object", "required": ["name"],
               "properties": {"name": {"type": "string", "maxLength": 50}, "tag": {"type": "string"},
                              "age": {"type": "integer"}, "nickname": {"type": "string", "nullable": True}}}
    json_of = lambda schema: {"application/json": {"schema": schema}}  # noqa: E731
    return {
        "openapi": "3.0.3",
        "info": {"title": "Pets", "version": "1.0.0"},
        "security": [{"oauth": ["pets:read"]}, {"key": []}],
        "paths": {
            "/pets": {
                "get": {
                    "summary": "List pets",
                    "parameters": [
                        {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}},
                        {"name": "kind", "in": "query", "schema": {"type": "string"}},
                        {"name": "q", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": {
                        "200": {"description": "pets", "content": json_of(
                            {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}})},
                    },
                },
                "post": {
                    "requestBody": {"required": False, "content": {
                        **json_of({"$ref": "#/components/schemas/NewPet"}),
                        "application/xml": {"schema": {"$ref": "#/components/schemas/NewPet"}}}},
                    "responses": {"201": {"description": "created", "content": {
                        **json_of({"$ref": "#/components/schemas/Pet"}),
                        "application/xml": {"schema": {"$ref": "#/components/schemas/Pet"}}}},
                        "400": {"description": "bad"}},
                },
            },
            "/pets/{petId}": {
                "get": {
                    "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {"200": {
                        "description": "a pet",
                        "headers": {"X-Rate-Limit": {"required": True, "schema": {"type": "integer"}},
                                    "X-Trace": {"schema": {"type": "string"}}},
                        "content": json_of({"$ref": "#/components/schemas/Pet"})}},
                },
                "delete": {
                    "parameters": [{"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}}],
                    "responses": {"204": {"description": "deleted"}},
                },
            },
        },
        "components": {
            "schemas": {"Pet": pet, "NewPet": new_pet},
            "securitySchemes": {
                "oauth": {"type": "oauth2", "flows": {"clientCredentials": {
                    "tokenUrl": "https://example.com/token", "scopes": {"pets:read": "read", "pets:write": "write"}}}},
                "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            },
        },
    }


Edit = Callable[[Spec], None]


def pet(s: Spec) -> dict[str, Any]:
    return s["components"]["schemas"]["Pet"]


def new_pet(s: Spec) -> dict[str, Any]:
    return s["components"]["schemas"]["NewPet"]


def params(s: Spec) -> list[dict[str, Any]]:
    return s["paths"]["/pets"]["get"]["parameters"]


def _parent(s: Spec, path: str) -> tuple[Any, str]:
    """The node that holds the last key of a `|`-separated path, and that key."""
    node: Any = s
    *parents, last = path.split("|")
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node, last


def _set(path: str, value: Any) -> Edit:
    """An edit setting one value under a `|`-separated path."""
    def edit(s: Spec) -> None:
        node, last = _parent(s, path)
        node[int(last) if isinstance(node, list) else last] = value
    return edit


def _del(path: str) -> Edit:
    """An edit deleting the value under a `|`-separated path."""
    def edit(s: Spec) -> None:
        node, last = _parent(s, path)
        del node[last]
    return edit


def _rename_path_parameter(s: Spec) -> None:
    item = s["paths"].pop("/pets/{petId}")
    for operation in item.values():
        operation["parameters"][0]["name"] = "id"
    s["paths"]["/pets/{id}"] = item


def _rename_schema(s: Spec) -> None:
    import json

    s["components"]["schemas"]["Animal"] = s["components"]["schemas"].pop("Pet")
    text = json.dumps(s["paths"]).replace("#/components/schemas/Pet\"", "#/components/schemas/Animal\"")
    s["paths"] = json.loads(text)


def _inline_to_ref(s: Spec) -> None:
    s["components"]["schemas"]["Limit"] = {"type": "integer", "maximum": 100}
    params(s)[0]["schema"] = {"$ref": "#/components/schemas/Limit"}
    s["components"]["schemas"]["PetList"] = {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}
    s["paths"]["/pets"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] = {
        "$ref": "#/components/schemas/PetList"}


def _ref_to_inline(s: Spec) -> None:
    s["paths"]["/pets/{petId}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"] = \
        copy.deepcopy(pet(s))


def _all_of_split(s: Spec) -> None:
    whole = pet(s)
    s["components"]["schemas"]["PetBase"] = {"type": "object", "required": ["id"],
                                             "properties": {"id": whole["properties"]["id"]}}
    s["components"]["schemas"]["Pet"] = {"allOf": [
        {"$ref": "#/components/schemas/PetBase"},
        {"type": "object", "required": ["name"], "properties": {k: v for k, v in whole["properties"].items()
                                                                 if k != "id"}}]}


def _reorder(s: Spec) -> None:
    pet(s)["properties"] = dict(reversed(list(pet(s)["properties"].items())))
    pet(s)["required"] = ["name", "id"]
    pet(s)["properties"]["status"]["enum"] = ["sold", "available"]
    s["paths"] = dict(reversed(list(s["paths"].items())))
    params(s).reverse()


def _descriptions(s: Spec) -> None:
    pet(s)["description"] = "A pet in the store"
    pet(s)["properties"]["name"]["description"] = "What the pet answers to"
    s["paths"]["/pets"]["get"]["summary"] = "All pets, paged"
    s["paths"]["/pets"]["get"]["description"] = "Lists every pet"


def _nullable_31(s: Spec) -> None:
    """3.0's `nullable: true` written as 3.1's type array: the same schema."""
    new_pet(s)["properties"]["nickname"] = {"type": ["string", "null"]}


def _response_nullable_31(s: Spec) -> None:
    pet(s)["properties"]["tag"] = {"type": ["string", "null"]}


def _response_nullable_one_of(s: Spec) -> None:
    pet(s)["properties"]["tag"] = {"oneOf": [{"type": "string"}, {"type": "null"}]}


def _deprecate(sunset: str | None) -> Edit:
    def edit(s: Spec) -> None:
        operation = s["paths"]["/pets/{petId}"]["delete"]
        operation["deprecated"] = True
        if sunset:
            operation["x-sunset"] = sunset
    return edit


def _removed_after(sunset: str | None, deprecated: bool = True) -> tuple[Edit, Edit]:
    """(edit of the old version: deprecate, with a sunset; edit of the new one: remove)."""
    return _deprecate(sunset) if deprecated else (lambda s: None), _del("paths|/pets/{petId}|delete")


def _security_alternative_removed(s: Spec) -> None:
    s["security"] = [{"oauth": ["pets:read"]}]


def _scope_added(s: Spec) -> None:
    s["security"] = [{"oauth": ["pets:read", "pets:write"]}, {"key": []}]


def _scope_removed(s: Spec) -> None:
    s["security"] = [{"oauth": []}, {"key": []}]


def _alternative_added(s: Spec) -> None:
    s["components"]["securitySchemes"]["basic"] = {"type": "http", "scheme": "basic"}
    s["security"] = [*s["security"], {"basic": []}]


def _open_endpoint_secured(old: Spec) -> None:
    old["paths"]["/pets"]["get"]["security"] = []


def _tag_union(s: Spec) -> None:
    """`tag` a string, an integer or a list of strings, in requests and responses."""
    for schema in (pet(s), new_pet(s)):
        schema["properties"]["tag"] = {"oneOf": [{"type": "string"}, {"type": "integer"},
                                                 {"type": "array", "items": {"type": "string"}}]}


def _new_error_response(s: Spec) -> None:
    for item in s["paths"].values():
        for operation in item.values():
            operation["responses"]["429"] = {"description": "too many requests"}


# (id, edit of the new version, level oasdiff gives the change, the check expected, edit of the old version)
PAIRS: list[tuple[str, Edit, str, str, Edit | None]] = [
    # errors
    ("endpoint removed", _del("paths|/pets/{petId}|delete"), "error", "api-removed-without-deprecation", None),
    ("removed before its sunset", _removed_after("2099-01-01")[1], "error", "api-removed-before-sunset",
     _removed_after("2099-01-01")[0]),
    ("new required parameter", lambda s: params(s).append(
        {"name": "owner", "in": "query", "required": True, "schema": {"type": "string"}}),
     "error", "new-required-request-parameter", None),
    ("parameter became required", _set("paths|/pets|get|parameters|1|required", True), "error",
     "request-parameter-became-required", None),
    ("parameter became enum", _set("paths|/pets|get|parameters|1|schema|enum", ["cat", "dog"]), "error",
     "request-parameter-became-enum", None),
    ("parameter max decreased", _set("paths|/pets|get|parameters|0|schema|maximum", 50), "error",
     "request-parameter-max-decreased", None),
    ("parameter type changed", _set("paths|/pets|get|parameters|0|schema|type", "string"), "error",
     "request-parameter-type-changed", None),
    ("request property type changed", lambda s: new_pet(s)["properties"]["age"].update(type="string"), "error",
     "request-property-type-changed", None),
    ("request format narrowed", lambda s: new_pet(s)["properties"]["age"].update(format="int32"), "error",
     "request-property-type-specialized", None),
    ("request property became required", lambda s: new_pet(s).update(required=["name", "tag"]), "error",
     "request-property-became-required", None),
    ("new required request property", lambda s: (new_pet(s)["properties"].update(owner={"type": "string"}),
                                                  new_pet(s).update(required=["name", "owner"])), "error",
     "new-required-request-property", None),
    ("request became not nullable (3.0)", lambda s: new_pet(s)["properties"]["nickname"].pop("nullable"), "error",
     "request-property-became-not-nullable", None),
    ("request enum value removed", lambda s: new_pet(s)["properties"].update(
        tag={"type": "string", "enum": ["a"]}), "error", "request-property-became-enum", None),
    ("request maxLength decreased", lambda s: new_pet(s)["properties"]["name"].update(maxLength=20), "error",
     "request-property-max-length-decreased", None),
    ("request body became required", _set("paths|/pets|post|requestBody|required", True), "error",
     "request-body-became-required", None),
    ("request media type removed", _del("paths|/pets|post|requestBody|content|application/xml"), "error",
     "request-body-media-type-removed", None),
    ("response media type removed", _del("paths|/pets|post|responses|201|content|application/xml"), "error",
     "response-media-type-removed", None),
    ("response became nullable (3.0)", lambda s: pet(s)["properties"]["tag"].update(nullable=True), "error",
     "response-property-became-nullable", None),
    ("response became nullable (3.1 type array)", _response_nullable_31, "error",
     "response-property-became-nullable", None),
    ("response became nullable (oneOf null)", _response_nullable_one_of, "error",
     "response-property-became-nullable", None),
    ("response maxLength increased", lambda s: pet(s)["properties"]["name"].update(maxLength=100), "error",
     "response-property-max-length-increased", None),
    ("response oneOf alternative added", lambda s: pet(s)["properties"].update(
        tag={"oneOf": [{"type": "string"}, {"type": "object", "properties": {"label": {"type": "string"}}}]}),
     "error", "response-property-type-generalized", None),
    ("response union gained an alternative", lambda s: pet(s)["properties"]["tag"]["oneOf"].append(
        {"type": "boolean"}), "error", "response-property-one-of-added", _tag_union),
    ("request union lost an alternative", lambda s: new_pet(s)["properties"]["tag"]["oneOf"].pop(), "error",
     "request-property-one-of-removed", _tag_union),
    ("response type widened", lambda s: pet(s)["properties"]["id"].update(type="number", format="double"),
     "error", "response-property-type-generalized", None),
    ("response required property removed", lambda s: (pet(s)["properties"].pop("name"),
                                                       pet(s).update(required=["id"])), "error",
     "response-required-property-removed", None),
    ("response property became optional", lambda s: pet(s).update(required=["id"]), "error",
     "response-property-became-optional", None),
    ("success response removed", _del("paths|/pets/{petId}|delete|responses|204"), "error",
     "response-success-status-removed", None),
    ("required response header removed",
     _del("paths|/pets/{petId}|get|responses|200|headers|X-Rate-Limit"), "error",
     "required-response-header-removed", None),
    ("OAuth scope added", _scope_added, "error", "api-security-scope-added", None),
    ("security alternative removed", _security_alternative_removed, "error", "api-security-removed", None),
    ("security added to an open endpoint", lambda s: s["paths"]["/pets"]["get"].pop("security"), "error",
     "api-security-now-required", _open_endpoint_secured),
    ("security scheme type changed", _set("components|securitySchemes|key",
                                          {"type": "http", "scheme": "bearer"}), "error",
     "api-security-component-type-changed", None),
    # warnings
    ("parameter pattern added", _set("paths|/pets|get|parameters|2|schema|pattern", "^[a-z]+$"), "warning",
     "request-parameter-pattern-added", None),
    ("request property pattern added", lambda s: new_pet(s)["properties"]["tag"].update(pattern="^[a-z]+$"),
     "warning", "request-property-pattern-added", None),
    ("parameter removed", lambda s: params(s).pop(2), "warning", "request-parameter-removed", None),
    ("response enum value added", lambda s: pet(s)["properties"]["status"]["enum"].append("pending"), "warning",
     "response-property-enum-value-added", None),
    ("response optional property removed", lambda s: pet(s)["properties"].pop("tag"), "warning",
     "response-optional-property-removed", None),
    ("optional response header removed", _del("paths|/pets/{petId}|get|responses|200|headers|X-Trace"),
     "warning", "optional-response-header-removed", None),
    ("error response removed", _del("paths|/pets|post|responses|400"), "warning",
     "response-non-success-status-removed", None),
    ("deprecated without sunset", _deprecate(None), "warning", "api-deprecated-sunset-missing", None),
    ("parameter max set", _set("paths|/pets|get|parameters|2|schema|maxLength", 10), "warning",
     "request-parameter-max-length-set", None),
    # info
    ("deprecated with a sunset", _deprecate("2026-06-01"), "info", "endpoint-deprecated", None),
    ("removed after its sunset", _removed_after("2025-12-01")[1], "info", "api-removed-with-deprecation",
     _removed_after("2025-12-01")[0]),
    ("endpoint added", _set("paths|/owners", {"get": {"responses": {"200": {"description": "ok"}}}}), "info",
     "endpoint-added", None),
    ("optional parameter added", lambda s: params(s).append({"name": "sort", "in": "query",
                                                             "schema": {"type": "string"}}),
     "info", "new-optional-request-parameter", None),
    ("request type widened", _set("paths|/pets|get|parameters|0|schema|type", "number"), "info",
     "request-parameter-type-generalized", None),
    ("request property format widened", lambda s: new_pet(s)["properties"]["age"].update(type="number"), "info",
     "request-property-type-generalized", None),
    ("response format narrowed", lambda s: pet(s)["properties"]["id"].update(format="int32"), "info",
     "response-property-type-specialized", None),
    ("request became nullable", lambda s: new_pet(s)["properties"]["tag"].update(nullable=True), "info",
     "request-property-became-nullable", None),
    ("request maxLength increased", lambda s: new_pet(s)["properties"]["name"].update(maxLength=80), "info",
     "request-property-max-length-increased", None),
    ("response maxLength decreased", lambda s: pet(s)["properties"]["name"].update(maxLength=20), "info",
     "response-property-max-length-decreased", None),
    ("OAuth scope removed", _scope_removed, "info", "api-security-scope-removed", None),
    ("security alternative added", _alternative_added, "info", "api-security-added", None),
    ("optional request property added", lambda s: new_pet(s)["properties"].update(color={"type": "string"}),
     "info", "new-optional-request-property", None),
    ("response property added", lambda s: pet(s)["properties"].update(color={"type": "string"}), "info",
     "response-optional-property-added", None),
    ("error response added", _new_error_response, "info", "response-non-success-status-added", None),
    ("request property default changed", lambda s: new_pet(s)["properties"]["age"].update(default=1), "info",
     "request-property-default-value-changed", None),
    ("response pattern added", lambda s: pet(s)["properties"]["tag"].update(pattern="^[a-z]+$"), "info",
     "response-property-pattern-added", None),
]

EQUIVALENT: list[tuple[str, Edit]] = [
    ("reorder", _reorder),
    ("$ref renamed", _rename_schema),
    ("inline → $ref", _inline_to_ref),
    ("$ref → inline", _ref_to_inline),
    ("allOf split", _all_of_split),
    ("description edits", _descriptions),
    ("path parameter renamed", _rename_path_parameter),
    ("3.0 nullable written as a 3.1 type array", _nullable_31),
]


def diff_of(edit: Edit, old_edit: Edit | None = None) -> Any:
    old, new = base(), base()
    if old_edit:
        old_edit(old)
        old_edit(new)
    edit(new)
    return diff_documents(old, new, "pets", today=TODAY)


@pytest.mark.parametrize(("name", "edit", "level", "check_id", "old_edit"), PAIRS, ids=[p[0] for p in PAIRS])
def test_each_kind_of_change_gets_its_level(name: str, edit: Edit, level: str, check_id: str,
                                            old_edit: Edit | None) -> None:
    diff = diff_of(edit, old_edit)
    assert check(check_id).level == level, name
    assert check_id in {c.check for c in diff.changes}, [(c.check, c.message) for c in diff.changes]
    worst = min((LEVELS.index(c.level) for c in diff.changes), default=len(LEVELS))
    assert worst == LEVELS.index(level), [(c.check, c.level, c.message) for c in diff.changes]


@pytest.mark.parametrize(("name", "edit"), EQUIVALENT, ids=[e[0] for e in EQUIVALENT])
def test_equivalent_edits_are_not_changes(name: str, edit: Edit) -> None:
    diff = diff_of(edit)
    assert diff.changes == (), [(c.check, c.message) for c in diff.changes]


def test_a_change_shared_by_operations_is_one_finding_listing_them() -> None:
    changes = diff_of(_new_error_response).changes
    assert len(changes) == 1
    assert set(changes[0].operations) == {"GET /pets", "POST /pets", "GET /pets/{petId}", "DELETE /pets/{petId}"}
    tag = [c for c in diff_of(lambda s: pet(s)["properties"]["tag"].update(nullable=True)).changes]
    assert len(tag) == 1 and tag[0].name == "Pet.tag" and len(tag[0].operations) == 3


def test_a_renamed_schema_with_a_real_change_is_named_by_the_new_name_and_reported_once() -> None:
    def rename_and_change(s: Spec) -> None:
        _rename_schema(s)
        s["components"]["schemas"]["Animal"]["properties"]["tag"]["nullable"] = True

    changes = diff_of(rename_and_change).changes
    assert [(c.check, c.name) for c in changes] == [("response-property-became-nullable", "Animal.tag")]


def test_the_catalogue_has_every_schema_check_for_each_place() -> None:
    for suffix in SCHEMA_SUFFIXES:
        for place in ("request-parameter", "request-property", "request-body", "response-property", "response-body"):
            assert f"{place}-{suffix}" in CHECKS
    assert all(c.level in LEVELS for c in CHECKS.values())
    with pytest.raises(ValueError, match="not a known check id"):
        check("no-such-check")
