"""Local `$ref` resolution: pointers, cycles, and external refs that must never be fetched."""

from __future__ import annotations

import builtins
import io
import socket
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from rag.ingest.refs import (
    RefResolver,
    component_schema_name,
    escape_pointer_token,
    is_local,
    json_pointer,
    names_a_definition,
    ref_name,
    unescape_pointer_token,
)

EXTERNAL_REFS = [
    "http://127.0.0.1:9/x.json",
    "https://127.0.0.1:9/x.yaml#/components/schemas/X",
    "file:///etc/passwd",
    "../other.yaml#/X",
    "other.json",
    "//127.0.0.1:9/x.json",
]


def document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "paths": {"/unified/hris/employees": {"get": {"parameters": [{"name": "page"}, {"name": "size"}]}}},
        "components": {
            "schemas": {
                "Employee": {"type": "object", "properties": {"id": {"type": "string"}}},
                "Alias": {"$ref": "#/components/schemas/Employee"},
                "AliasOfAlias": {"$ref": "#/components/schemas/Alias"},
                "Self": {"$ref": "#/components/schemas/Self"},
                "A": {"$ref": "#/components/schemas/B"},
                "B": {"$ref": "#/components/schemas/A"},
                "a/b": {"type": "string"},
                "til~de": {"type": "integer"},
                "My Schema": {"type": "boolean"},
                "Remote": {"$ref": "http://127.0.0.1:9/x.json"},
                "Broken": {"$ref": "#/components/schemas/Nope"},
            }
        },
    }


@pytest.fixture
def no_io(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Fail on any socket connection (loopback included), URL fetch or file open; yield the attempts."""
    attempts: list[str] = []

    def refuse(kind: str):
        def refused(*args: object, **kwargs: object) -> object:
            attempts.append(f"{kind}: {args!r}")
            raise AssertionError(f"{kind} attempted during ref resolution: {args!r}")

        return refused

    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    monkeypatch.setattr(urllib.request, "urlopen", refuse("urlopen"))
    monkeypatch.setattr(builtins, "open", refuse("open"))
    monkeypatch.setattr(io, "open", refuse("io.open"))
    yield attempts
    assert attempts == []


# ---------------------------------------------------------------- pointers and names


@pytest.mark.parametrize(
    ("token", "escaped"), [("plain", "plain"), ("/unified/hris", "~1unified~1hris"), ("a~b", "a~0b"), ("~1", "~01")]
)
def test_pointer_token_escaping_round_trips(token: str, escaped: str) -> None:
    assert escape_pointer_token(token) == escaped
    assert unescape_pointer_token(escaped) == token


def test_json_pointer_of_an_operation() -> None:
    assert json_pointer("paths", "/unified/hris/employees", "get") == "/paths/~1unified~1hris~1employees/get"
    assert json_pointer("components", "schemas", "Employee") == "/components/schemas/Employee"
    assert json_pointer() == ""


@pytest.mark.parametrize(
    ("ref", "name"),
    [
        ("#/components/schemas/Employee", "Employee"),
        ("#/components/schemas/a~1b", "a/b"),
        ("#/components/schemas/My%20Schema", "My Schema"),
        ("#/components/parameters/PageSize", "PageSize"),
        ("http://127.0.0.1:9/x.json", "x.json"),
        ("../other.yaml#/X", "X"),
        ("#/components/schemas/Employee/", "Employee"),
    ],
)
def test_ref_name(ref: str, name: str) -> None:
    assert ref_name(ref) == name


@pytest.mark.parametrize(
    ("ref", "names"),
    [
        ("#/components/schemas/Employee", True),
        ("#/components/schemas/items", True),  # a component is named whatever its name
        ("#/definitions/schema", True),
        ("#/components/schemas/Employee/properties/manager", True),
        ("#/paths/~1keys/get/responses/200/content/application~1json/schema/properties/ssh_keys/items", False),
        ("#/paths/~1keys/get/responses/200/content/application~1json/schema", False),
        ("#/components/schemas/Pet/allOf/0", False),
        ("other.json", True),
    ],
)
def test_a_ref_names_what_it_points_to_unless_its_last_token_is_a_place_in_a_structure(ref: str, names: bool) -> None:
    assert names_a_definition(ref) is names


@pytest.mark.parametrize(
    ("ref", "name"),
    [
        ("#/components/schemas/Employee", "Employee"),
        ("#/components/schemas/a~1b", "a/b"),
        ("#/components/schemas/Employee/properties/id", None),
        ("#/components/responses/Error", None),
        ("http://127.0.0.1:9/x.json#/components/schemas/X", None),
        ("#/components/schemas/", None),
    ],
)
def test_component_schema_name(ref: str, name: str | None) -> None:
    assert component_schema_name(ref) == name


def test_is_local() -> None:
    assert is_local("#/components/schemas/Employee")
    assert is_local("#")
    for ref in EXTERNAL_REFS:
        assert not is_local(ref)


# ---------------------------------------------------------------- lookup


def test_lookup_local_refs() -> None:
    doc = document()
    resolver = RefResolver(doc)
    assert resolver.lookup("#/components/schemas/Employee") is doc["components"]["schemas"]["Employee"]
    assert resolver.lookup("#/components/schemas/a~1b") == {"type": "string"}
    assert resolver.lookup("#/components/schemas/til~0de") == {"type": "integer"}
    assert resolver.lookup("#/paths/~1unified~1hris~1employees/get/parameters/1") == {"name": "size"}
    assert resolver.lookup("#") is doc
    assert resolver.unresolved == set()


def test_lookup_percent_encoded_fragment() -> None:
    resolver = RefResolver(document())
    assert resolver.lookup("#/components/schemas/My%20Schema") == {"type": "boolean"}
    assert resolver.unresolved == set()


@pytest.mark.parametrize(
    "ref",
    [
        "#/components/schemas/Nope",
        "#/paths/~1unified~1hris~1employees/get/parameters/7",
        "#/paths/~1unified~1hris~1employees/get/parameters/first",
        "#/components/schemas/Employee/type/deeper",
        "#/",
    ],
)
def test_broken_local_refs_are_recorded(ref: str) -> None:
    resolver = RefResolver(document())
    assert resolver.lookup(ref) is None
    assert resolver.unresolved == {ref}


@pytest.mark.parametrize("ref", EXTERNAL_REFS)
def test_external_refs_are_never_fetched_or_read(ref: str, no_io: list[str]) -> None:
    resolver = RefResolver(document())
    assert resolver.lookup(ref) is None
    target, name = resolver.deref({"$ref": ref})
    assert target == {"x-unresolved-ref": ref}
    assert name == ref_name(ref)
    assert resolver.unresolved == {ref}


def test_non_string_ref_is_recorded() -> None:
    resolver = RefResolver(document())
    assert resolver.lookup(42) is None  # type: ignore[arg-type]
    assert resolver.unresolved == {"42"}


def test_lookup_is_cached() -> None:
    resolver = RefResolver(document())
    first = resolver.lookup("#/components/schemas/Employee")
    resolver.document = {}
    assert resolver.lookup("#/components/schemas/Employee") is first


# ---------------------------------------------------------------- deref and cycles


def test_deref_follows_alias_chains_and_keeps_the_first_name() -> None:
    doc = document()
    resolver = RefResolver(doc)
    target, name = resolver.deref({"$ref": "#/components/schemas/AliasOfAlias"})
    assert target is doc["components"]["schemas"]["Employee"]
    assert name == "AliasOfAlias"


def test_deref_of_a_plain_node_returns_it() -> None:
    resolver = RefResolver(document())
    node = {"type": "string"}
    assert resolver.deref(node) == (node, None)
    assert resolver.deref(None) == (None, None)
    assert resolver.deref({"$ref": 5}) == ({"$ref": 5}, None)


@pytest.mark.parametrize(("ref", "name"), [("#/components/schemas/Self", "Self"), ("#/components/schemas/A", "A")])
def test_deref_cycles_stop_immediately(ref: str, name: str) -> None:
    resolver = RefResolver(document())
    started = time.perf_counter()
    assert resolver.deref({"$ref": ref}) == ({}, name)
    assert time.perf_counter() - started < 0.1
    assert resolver.unresolved == set()


def test_deref_stops_after_max_hops() -> None:
    schemas = {f"S{i}": {"$ref": f"#/components/schemas/S{i + 1}"} for i in range(50)}
    schemas["S50"] = {"type": "string"}
    resolver = RefResolver({"components": {"schemas": schemas}})
    target, name = resolver.deref({"$ref": "#/components/schemas/S0"}, max_hops=5)
    assert target == {"$ref": "#/components/schemas/S5"}
    assert name == "S0"
    assert resolver.deref({"$ref": "#/components/schemas/S0"}, max_hops=100) == ({"type": "string"}, "S0")


def test_deref_broken_ref_reports_it() -> None:
    resolver = RefResolver(document())
    assert resolver.deref({"$ref": "#/components/schemas/Broken"}) == (
        {"x-unresolved-ref": "#/components/schemas/Nope"},
        "Broken",
    )
    assert resolver.unresolved == {"#/components/schemas/Nope"}


def test_check_all_records_every_external_and_broken_ref_without_io(no_io: list[str]) -> None:
    doc = document()
    doc["components"]["schemas"]["Deep"] = {
        "properties": {"a": {"properties": {"b": {"items": {"oneOf": [{"$ref": "file:///etc/passwd"}]}}}}}
    }
    doc["components"]["schemas"]["Shared"] = shared = {"$ref": "../other.yaml#/X"}
    doc["x-list"] = [shared, shared, {"$ref": "#/components/schemas/Employee"}]
    resolver = RefResolver(doc)
    resolver.check_all()
    assert resolver.unresolved == {
        "http://127.0.0.1:9/x.json",
        "#/components/schemas/Nope",
        "file:///etc/passwd",
        "../other.yaml#/X",
    }
