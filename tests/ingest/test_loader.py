"""Loading OpenAPI documents: JSON and YAML, 3.0 and 3.1, and every way a file can be wrong."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
import yaml

from rag.errors import IngestError
from rag.ingest.loader import (
    MAX_EXPANDED_NODES,
    check_expansion,
    decode_text,
    document_nodes,
    load_openapi,
    looks_like_openapi,
    parse_structured,
    validate_openapi,
)
from tests.conftest import FIXTURES

SPECS = FIXTURES / "specs"
MINIMAL_YAML = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"


def load_text(name: str, text: str | bytes) -> dict:
    """Load a document from bytes under a file name (nothing is written to disk)."""
    return load_openapi(name, data=text.encode() if isinstance(text, str) else text)


def ingest_error(name: str, text: str | bytes) -> IngestError:
    with pytest.raises(IngestError) as caught:
        load_text(name, text)
    assert caught.value.source == name
    assert str(caught.value).startswith(f"{name}: ")
    return caught.value


# ---------------------------------------------------------------- valid documents


def test_loads_openapi_30_yaml_fixture_from_path() -> None:
    document = load_openapi(SPECS / "shop-3.0.yaml")
    assert document["openapi"] == "3.0.3"
    assert "/orders" in document["paths"]
    assert document["components"]["schemas"]["OrderStatus"]["enum"] == ["pending", "paid", "shipped", "cancelled"]


def test_loads_openapi_31_json_fixture_from_path_string() -> None:
    document = load_openapi(str(SPECS / "people-3.1.json"))
    assert document["openapi"] == "3.1.0"
    assert document["webhooks"]["employeeCreated"]["post"]["operationId"] == "on_employee_created"


def test_json_and_yaml_forms_of_one_document_load_equal() -> None:
    document = json.loads((SPECS / "people-3.1.json").read_text())
    from_json = load_text("people.json", json.dumps(document))
    from_yaml = load_text("people.yaml", yaml.safe_dump(document, sort_keys=False))
    from_yml = load_text("people.yml", yaml.safe_dump(document))
    assert from_json == from_yaml == from_yml == document


def test_json_content_in_a_yaml_file_and_yaml_without_extension() -> None:
    assert load_text("spec.yaml", '{"openapi": "3.1.0", "paths": {}}')["openapi"] == "3.1.0"
    assert load_text("spec", MINIMAL_YAML)["openapi"] == "3.0.3"


def test_utf8_bom_and_non_ascii_text_are_accepted() -> None:
    document = load_text("bom.yaml", "\ufeff" + MINIMAL_YAML.replace("title: t", "title: Café ✓"))
    assert document["info"]["title"] == "Café ✓"


def test_unquoted_float_version_is_accepted() -> None:
    assert load_text("v.yaml", "openapi: 3.0\npaths: {}\n")["openapi"] == 3.0


def test_31_document_without_paths_but_with_webhooks_or_components() -> None:
    assert "webhooks" in load_text("hooks.yaml", "openapi: 3.1.0\nwebhooks: {}\n")
    assert "components" in load_text("lib.yaml", "openapi: 3.1.0\ncomponents: {schemas: {}}\n")


def test_yaml_timestamps_stay_strings_as_written() -> None:
    document = load_text("dates.yaml", MINIMAL_YAML + "x-date: 2024-01-31\nx-time: 2024-01-31T10:00:00Z\n")
    assert document["x-date"] == "2024-01-31"
    assert document["x-time"] == "2024-01-31T10:00:00Z"


def test_document_nodes_visits_each_mapping_and_list_once_even_through_loops() -> None:
    shared: dict[str, object] = {"type": "string"}
    loop: dict[str, object] = {"name": "loop"}
    loop["again"] = loop  # what `x-loop: &loop {again: *loop}` reads to
    items = [shared, shared, loop]
    document = {"a": shared, "b": items, "c": loop, "d": "text"}
    visited = list(document_nodes(document))
    assert [id(node) for node in visited] == [id(node) for node in (document, loop, items, shared)]
    assert list(document_nodes("text")) == []


def test_yaml_non_string_keys_become_strings() -> None:
    text = MINIMAL_YAML.replace(
        "paths: {}", "paths:\n  /a:\n    get:\n      responses:\n        200: {description: ok}\n"
    )
    text += "x-keys: {1: a, 2024-01-31: b, false: c, null: d, name: e}\n"
    document = load_text("keys.yaml", text)
    assert list(document["paths"]["/a"]["get"]["responses"]) == ["200"]
    assert document["x-keys"] == {"1": "a", "2024-01-31": "b", "false": "c", "null": "d", "name": "e"}


def test_yaml_shared_anchors_within_limits_are_fine() -> None:
    text = MINIMAL_YAML + "x-a: &shared {type: string, enum: [a, b]}\nx-b: *shared\nx-c: [*shared, *shared]\n"
    document = load_text("anchors.yaml", text)
    assert document["x-b"] == document["x-a"] == {"type": "string", "enum": ["a", "b"]}


# ---------------------------------------------------------------- not OpenAPI


def test_missing_openapi_and_paths_names_the_file() -> None:
    error = ingest_error("hris.yaml", (SPECS / "not-openapi.yaml").read_bytes())
    assert str(error) == "hris.yaml: not an OpenAPI document: missing 'openapi' and 'paths'"


def test_missing_only_paths_or_only_openapi() -> None:
    assert str(ingest_error("a.yaml", "openapi: 3.0.0\ninfo: {}\n")).endswith("missing 'paths'")
    assert str(ingest_error("b.json", '{"paths": {}}')).endswith("missing 'openapi'")


@pytest.mark.parametrize(("text", "kind"), [("[1, 2]", "list"), ('"just a string"', "str"), ("42", "int")])
def test_top_level_must_be_an_object(text: str, kind: str) -> None:
    error = ingest_error("top.json", text)
    assert f"top level is {kind}, expected an object" in str(error)


def test_swagger_20_is_converted_and_other_swagger_versions_are_refused() -> None:
    document = load_openapi(SPECS / "swagger-2.0.json")
    assert document["openapi"] == "3.0.3" and "/pets" in document["paths"]
    error = ingest_error("old.json", '{"swagger": "1.2", "paths": {}}')
    assert "Swagger 1.2 is not supported; allowed: Swagger 2.0, OpenAPI 3.0.x and 3.1.x" in str(error)
    assert "missing 'paths'" in str(ingest_error("v2.json", '{"swagger": "2.0", "info": {}}'))


@pytest.mark.parametrize("version", ["2.0", "4.0.0", "v3", "three"])
def test_unsupported_openapi_versions(version: str) -> None:
    error = ingest_error("v.json", json.dumps({"openapi": version, "paths": {}}))
    assert f"OpenAPI version {version!r} is not supported" in str(error)
    assert "3.0.x, 3.1.x" in str(error)


def test_paths_must_be_an_object() -> None:
    error = ingest_error("p.json", json.dumps({"openapi": "3.0.0", "paths": ["/a"]}))
    assert "'paths' must be an object" in str(error)


def test_a_valid_document_is_returned_as_is() -> None:
    document = {"openapi": "3.1.0", "paths": {}}
    assert validate_openapi("x.json", document) is document


# ---------------------------------------------------------------- parse errors


def test_invalid_json_reports_line_and_column() -> None:
    text = '{\n  "openapi": "3.0.0",\n  "paths": {,}\n}\n'
    error = ingest_error("broken.json", text)
    assert re.search(r"invalid JSON at line 3, column 13: ", str(error)), str(error)


def test_truncated_json_reports_line_and_column() -> None:
    error = ingest_error("cut.json", '{"openapi": "3.0.0",\n "paths": {"/a": ')
    assert "invalid JSON at line 2, column" in str(error)


def test_invalid_yaml_reports_line_and_column() -> None:
    text = "openapi: 3.0.0\npaths:\n  /a:\n    get: [unclosed\n  /b: {}\n"
    error = ingest_error("broken.yaml", text)
    match = re.search(r"invalid YAML at line (\d+), column (\d+): ", str(error))
    assert match, str(error)
    assert int(match.group(1)) in (4, 5)


def test_yaml_indentation_error_reports_position() -> None:
    text = "openapi: 3.0.0\npaths:\n  /a:\n    get: {}\n   bad: indentation\n"
    error = ingest_error("indent.yml", text)
    assert re.search(r"invalid YAML at line 5, column \d+", str(error)), str(error)


def test_invalid_json_in_a_yaml_file_reports_a_position() -> None:
    error = ingest_error("spec.yaml", '{"openapi": "3.0.0",\n "paths": {,}}')
    assert re.search(r"invalid YAML at line 2, column \d+", str(error)), str(error)


def test_yaml_python_tags_are_refused_by_the_safe_loader(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = MINIMAL_YAML + f"x: !!python/object/apply:os.system ['touch {marker}']\n"
    error = ingest_error("evil.yaml", text)
    assert "invalid YAML at line 4" in str(error)
    assert not marker.exists()


# ---------------------------------------------------------------- hostile inputs


def billion_laughs(levels: int = 9) -> str:
    lines = ["openapi: 3.0.0", "paths: {}", 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels + 1):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_yaml_alias_bomb_is_rejected_quickly() -> None:
    started = time.perf_counter()
    error = ingest_error("laughs.yaml", billion_laughs())
    assert time.perf_counter() - started < 2
    assert "alias bomb" in str(error)
    assert f"{MAX_EXPANDED_NODES:,}" in str(error)


def test_recursive_yaml_alias_is_rejected() -> None:
    error = ingest_error("loop.yaml", MINIMAL_YAML + "x-loop: &loop\n  again: *loop\n")
    assert "recursive structure" in str(error)


def test_check_expansion_counts_shared_nodes_every_time_they_appear() -> None:
    leaf = list(range(10))
    check_expansion("ok.yaml", {"a": [leaf] * 10})  # 1 + 1 + 10 * 11 nodes
    with pytest.raises(IngestError, match="expand to more than 100"):
        check_expansion("big.yaml", {"a": [leaf] * 10}, limit=100)


@pytest.mark.parametrize("depth", [10_000, 2_000, 600])
def test_deeply_nested_json_is_rejected_cleanly(depth: int) -> None:
    nested = "[" * depth + "1" + "]" * depth
    error = ingest_error("deep.json", '{"openapi": "3.1.0", "paths": {}, "x-deep": ' + nested + "}")
    assert "nested too deeply" in str(error)


def test_deeply_nested_json_schema_under_the_interpreter_limit_is_rejected() -> None:
    # 700 levels parse fine with json.loads, but would take the chunker close to Python's recursion limit.
    schema = '{"items": ' * 700 + '{"type": "string"}' + "}" * 700
    text = '{"openapi": "3.1.0", "paths": {}, "components": {"schemas": {"Deep": ' + schema + "}}}"
    assert "nested too deeply (more than 500 levels)" in str(ingest_error("deep.json", text))


@pytest.mark.parametrize("flow", [True, False])
def test_deeply_nested_yaml_is_rejected_cleanly(flow: bool) -> None:
    depth = 10_000 if flow else 2_000
    if flow:
        body = "x-deep: " + "[" * depth + "1" + "]" * depth + "\n"
    else:
        body = "x-deep:\n" + "".join("  " * (level + 1) + f"k{level}:\n" for level in range(depth))
    error = ingest_error("deep.yaml", "openapi: 3.1.0\npaths: {}\n" + body)
    assert "nested too deeply" in str(error)


def test_depth_limit_counts_through_shared_aliases() -> None:
    # Each anchor is only 200 levels deep, but the chain of aliases nests 1,600 levels: the chunker would
    # overflow Python's stack on it, so the loader must see the depth through memoized (shared) nodes.
    lines = ["openapi: 3.1.0", "paths: {}", "x-anchors:", "  - &a0 {type: string}"]
    lines += [f"  - &a{i} " + "{items: " * 200 + f"*a{i - 1}" + "}" * 200 for i in range(1, 9)]
    lines += ["components:", "  schemas:", "    Deep: *a8"]
    error = ingest_error("chain.yaml", "\n".join(lines) + "\n")
    assert "nested too deeply (more than 500 levels)" in str(error)


def test_moderately_nested_document_loads() -> None:
    schema = '{"items": ' * 300 + '{"type": "string"}' + "}" * 300
    text = '{"openapi": "3.1.0", "paths": {}, "components": {"schemas": {"Deep": ' + schema + "}}}"
    assert "Deep" in load_text("ok.json", text)["components"]["schemas"]


# ---------------------------------------------------------------- encodings and empty files


@pytest.mark.parametrize("content", [b"", b"   \n\t\n"])
def test_empty_file(content: bytes) -> None:
    assert str(ingest_error("empty.yaml", content)) == "empty.yaml: the file is empty"


@pytest.mark.parametrize(
    ("name", "content"), [("comments.yaml", b"# nothing here\n# at all\n"), ("null.json", b"null")]
)
def test_file_without_content(name: str, content: bytes) -> None:
    assert "the file is empty" in str(ingest_error(name, content))


def test_non_utf8_file_names_the_byte_offset() -> None:
    prefix = b"openapi: 3.0.0\ninfo: {title: Caf"
    error = ingest_error("latin1.yaml", prefix + b"\xe9}\npaths: {}\n")
    assert f"not UTF-8 text (invalid byte at offset {len(prefix)})" in str(error)


def test_binary_file_is_rejected() -> None:
    assert "binary file" in str(ingest_error("spec.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))


def test_decode_text_strips_bom() -> None:
    assert decode_text("a.json", b"\xef\xbb\xbf{}") == "{}"


def test_read_from_disk_names_the_file_and_name_overrides(tmp_path: Path) -> None:
    path = tmp_path / "hris.yaml"
    path.write_text("title: not openapi\n")
    with pytest.raises(IngestError, match=r"^hris\.yaml: not an OpenAPI document"):
        load_openapi(path)
    with pytest.raises(IngestError, match=r"^upload-7\.yaml: "):
        load_openapi(path, name="upload-7.yaml")


def test_parse_structured_returns_plain_data() -> None:
    assert parse_structured("a.json", '{"a": [1, 2]}') == {"a": [1, 2]}
    assert parse_structured("a.yaml", "a: [1, 2]\n") == {"a": [1, 2]}


def test_looks_like_openapi() -> None:
    assert looks_like_openapi("a.yaml", MINIMAL_YAML)
    assert looks_like_openapi("a.json", '{"swagger": "2.0"}')
    assert not looks_like_openapi("a.yaml", "services:\n  web: {}\n")
