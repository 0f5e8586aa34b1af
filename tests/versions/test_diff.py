"""The structural diff: operations, parameters, fields, schemas and security schemes, breaking or not."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rag.cli import main
from rag.versions.compare import check_same_api, diff_files, diff_folders
from rag.versions.diff import diff_documents
from rag.versions.spec_diff import Change, DiffError
from tests.conftest import SHARED

OLD_STACKONE = SHARED / "specs" / "stackone-2025-02"
NEW_STACKONE = SHARED / "specs" / "stackone"
REMOVED_LMS = {
    "PUT /unified/lms/courses",
    "POST /unified/lms/courses/batch",
    "POST /unified/lms/collections",
    "PATCH /unified/lms/collections/{id}",
}


def spec() -> dict[str, Any]:
    """A small API: a shared `Course` schema used by a list, a get and an upsert."""
    course = {
        "type": "object",
        "required": ["id", "title"],
        "properties": {
            "id": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "string", "enum": ["draft", "live", "archived"]},
            "seats": {"type": "integer", "maximum": 100},
        },
    }
    list_response = {"type": "object", "properties": {"data": {"type": "array",
                                                               "items": {"$ref": "#/components/schemas/Course"}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Courses", "version": "1.0.0"},
        "paths": {
            "/courses": {
                "get": {
                    "parameters": [{"name": "page_size", "in": "query", "schema": {"type": "integer", "default": 25}}],
                    "responses": {"200": {"content": {"application/json": {"schema": list_response}}}},
                },
                "put": {
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Course"}}}},
                    "responses": {"200": {"content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Course"}}}}},
                },
            },
            "/courses/{id}": {
                "get": {
                    "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                    "responses": {"200": {"content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Course"}}}}},
                },
            },
        },
        "components": {
            "schemas": {"Course": course, "Old": {"type": "object"}},
            "securitySchemes": {"basic": {"type": "http", "scheme": "basic"}},
        },
        "security": [{"basic": []}],
    }


def find(changes: tuple[Change, ...], kind: str, action: str, name: str, attribute: str = "") -> Change:
    hits = [c for c in changes if (c.kind, c.action, c.name, c.attribute) == (kind, action, name, attribute)]
    assert len(hits) == 1, [c.message for c in changes]
    return hits[0]


def test_identical_documents_have_no_changes() -> None:
    assert diff_documents(spec(), spec()).changes == ()


def test_operations_added_and_removed_and_classed() -> None:
    old, new = spec(), spec()
    del new["paths"]["/courses"]["put"]
    new["paths"]["/courses/{courseId}"] = new["paths"].pop("/courses/{id}")  # a renamed path parameter: same path
    new["paths"]["/courses/{courseId}"]["delete"] = {"responses": {"204": {"description": "gone"}}}
    diff = diff_documents(old, new)
    assert diff.removed_operations == ["PUT /courses"]
    assert diff.added_operations == ["DELETE /courses/{courseId}"]
    assert find(diff.changes, "operation", "removed", "PUT /courses").breaking
    assert not find(diff.changes, "operation", "added", "DELETE /courses/{courseId}").breaking


def test_a_change_inside_a_shared_schema_is_reported_once_with_every_operation() -> None:
    old, new = spec(), spec()
    new["components"]["schemas"]["Course"]["properties"]["seats"]["type"] = "string"
    diff = diff_documents(old, new)
    response = find(diff.changes, "response-field", "changed", "Course.seats", "type")
    assert response.breaking and response.schema == "Course"
    assert set(response.operations) == {"GET /courses", "PUT /courses", "GET /courses/{id}"}
    request = find(diff.changes, "request-field", "changed", "Course.seats", "type")
    assert request.operations == ("PUT /courses",) and request.breaking


def test_removed_response_field_breaks_removed_request_field_does_not() -> None:
    old, new = spec(), spec()
    del new["components"]["schemas"]["Course"]["properties"]["status"]
    diff = diff_documents(old, new)
    assert find(diff.changes, "response-field", "removed", "Course.status").level == "warning"  # was optional
    assert find(diff.changes, "request-field", "removed", "Course.status").level == "warning"
    del new["components"]["schemas"]["Course"]["properties"]["title"]
    new["components"]["schemas"]["Course"]["required"] = ["id"]
    diff = diff_documents(old, new)
    assert find(diff.changes, "response-field", "removed", "Course.title").breaking  # was required


def test_enum_narrowed_in_a_request_breaks_widened_does_not() -> None:
    old, new = spec(), spec()
    new["components"]["schemas"]["Course"]["properties"]["status"]["enum"] = ["draft", "live"]
    narrowed = find(diff_documents(old, new).changes, "request-field", "changed", "Course.status", "enum")
    assert narrowed.breaking and narrowed.old == "archived" and narrowed.new == ""
    assert "enum removed: archived" in narrowed.message and narrowed.check == "request-property-enum-value-removed"
    new["components"]["schemas"]["Course"]["properties"]["status"]["enum"] = ["draft", "live", "archived", "new"]
    widened = find(diff_documents(old, new).changes, "request-field", "changed", "Course.status", "enum")
    assert not widened.breaking and widened.new == "new"


def test_required_default_limit_and_deprecation() -> None:
    old, new = spec(), spec()
    course = new["components"]["schemas"]["Course"]
    course["required"] = ["id"]  # title: required → optional
    course["properties"]["seats"]["maximum"] = 50
    course["properties"]["id"]["deprecated"] = True
    get = new["paths"]["/courses"]["get"]
    get["parameters"][0]["schema"]["default"] = 50
    get["parameters"].append({"name": "x-account-id", "in": "header", "required": True, "schema": {"type": "string"}})
    changes = diff_documents(old, new).changes
    assert find(changes, "response-field", "changed", "Course.title", "required").breaking  # response: now optional
    assert not find(changes, "request-field", "changed", "Course.title", "required").breaking
    assert find(changes, "request-field", "changed", "Course.seats", "max").breaking  # request limit narrowed
    assert not find(changes, "response-field", "changed", "Course.seats", "max").breaking
    assert not find(changes, "response-field", "changed", "Course.id", "deprecated").breaking
    default = find(changes, "parameter", "changed", "query page_size", "default")  # may change behaviour: a warning
    assert default.level == "warning" and (default.old, default.new) == ("25", "50")
    assert find(changes, "parameter", "added", "header x-account-id").breaking  # a new required parameter


def test_schemas_and_security_schemes() -> None:
    old, new = spec(), spec()
    del new["components"]["schemas"]["Old"]
    new["components"]["schemas"]["New"] = {"type": "object"}
    new["components"]["securitySchemes"]["basic"] = {"type": "http", "scheme": "bearer"}
    new["components"]["securitySchemes"]["key"] = {"type": "apiKey", "in": "header", "name": "X-Key"}
    changes = diff_documents(old, new).changes
    diff = diff_documents(old, new)
    assert diff.schemas_removed == diff.schemas_added == ()  # New is Old renamed: nothing a client sees
    new["components"]["schemas"]["New"] = {"type": "string"}
    diff = diff_documents(old, new)
    assert diff.schemas_removed == ("Old",) and diff.schemas_added == ("New",)
    changed = find(changes, "security-scheme", "changed", "basic", "scheme")
    assert changed.breaking and (changed.old, changed.new) == ("HTTP Basic", "HTTP Bearer")
    assert not find(changes, "security-scheme", "added", "key").breaking


def test_a_nested_field_appearing_with_its_parent_is_one_change() -> None:
    old, new = spec(), spec()
    new["components"]["schemas"]["Course"]["properties"]["author"] = {
        "type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}}}
    added = [c for c in diff_documents(old, new).changes if c.action == "added"]
    assert sorted(c.name for c in added) == ["Course.author", "Course.author"]  # request and response, once each


def test_different_apis_are_refused(tmp_path: Path) -> None:
    other = copy.deepcopy(spec())
    other["info"]["title"] = "Employees"
    with pytest.raises(DiffError, match="are different APIs"):
        check_same_api("courses.json", spec(), "employees.json", other)
    check_same_api("courses.json", spec(), "courses (1).json", spec())  # same title: one API


def test_cli_bad_input_is_one_line_and_exit_code_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "courses.json"
    good.write_text(json.dumps(spec()))
    other = spec()
    other["info"]["title"] = "Employees"
    (tmp_path / "employees.json").write_text(json.dumps(other))
    (tmp_path / "notes.json").write_text(json.dumps({"hello": "world"}))
    for args, expected in (
        ([str(tmp_path / "notes.json"), str(good)], "not an OpenAPI document"),
        ([str(good), str(tmp_path / "employees.json")], "are different APIs"),
        ([str(good), str(tmp_path / "missing.json")], "no such file"),
    ):
        assert main(["diff", *args]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and expected in err[0], err


def test_cli_json_of_two_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = tmp_path / "old" / "courses.json", tmp_path / "new" / "courses.json"
    old.parent.mkdir()
    new.parent.mkdir()
    old.write_text(json.dumps(spec()))
    changed = spec()
    del changed["paths"]["/courses"]["put"]
    new.write_text(json.dumps(changed))
    assert main(["diff", str(old), str(new), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["operations"]["removed"] == ["PUT /courses"]
    assert data["summary"]["operations_removed"] == 1 and data["summary"]["breaking"] >= 1


# ---------------------------------------------------------------------- the real StackOne versions
def operations_of(path: Path) -> set[str]:
    """An independent count: `METHOD /path` of every operation, path parameters written as `{}`."""
    document = json.loads(path.read_text(encoding="utf-8"))
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    return {f"{method.upper()} {re.sub(r'{[^}]*}', '{}', p)}" for p, item in document.get("paths", {}).items()
            for method in item if method in methods}


@pytest.mark.corpus
def test_lms_lost_its_four_write_operations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(OLD_STACKONE / "lms.json"), str(NEW_STACKONE / "lms.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    removed = {c["name"]: c for c in data["changes"] if c["kind"] == "operation" and c["action"] == "removed"}
    assert set(removed) == REMOVED_LMS
    assert all(change["breaking"] for change in removed.values())


@pytest.mark.corpus
def test_whole_folders_list_every_added_and_removed_operation() -> None:
    diffs = {diff.api: diff for diff in diff_folders(OLD_STACKONE, NEW_STACKONE)}
    assert set(diffs) == {"ats", "crm", "hris", "iam", "lms", "marketing", "stackone"}
    for api, diff in diffs.items():
        old, new = operations_of(OLD_STACKONE / f"{api}.json"), operations_of(NEW_STACKONE / f"{api}.json")
        shape = {label: re.sub(r"{[^}]*}", "{}", label) for label in diff.added_operations + diff.removed_operations}
        assert {shape[label] for label in diff.removed_operations} == old - new, api
        assert {shape[label] for label in diff.added_operations} == new - old, api
    assert "POST /unified/hris/time_off" in diffs["hris"].removed_operations
    assert len(diffs["hris"].added_operations) == 20
    assert {"DELETE /unified/iam/users/{id}", "PATCH /unified/iam/users/{id}"} <= set(diffs["iam"].added_operations)
    assert {"POST /mcp", "GET /actions"} & set(diffs["stackone"].added_operations)


@pytest.mark.corpus
def test_a_shared_schema_change_in_the_real_specs_is_listed_once() -> None:
    diff = diff_files(OLD_STACKONE / "lms.json", NEW_STACKONE / "lms.json")
    keys = [(c.kind, c.action, c.name, c.attribute, c.old, c.new) for c in diff.changes if c.schema]
    assert len(keys) == len(set(keys))
    assert any(len(c.operations) > 1 for c in diff.changes if c.schema)


def renamed_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """The document with every component schema renamed (`Course` → `RenamedCourse`) and every `$ref` to it."""
    names = list(document.get("components", {}).get("schemas", {}))
    text = json.dumps(document)
    for name in names:
        text = text.replace(f'"#/components/schemas/{name}"', f'"#/components/schemas/Renamed{name}"')
    renamed = json.loads(text)
    renamed["components"]["schemas"] = {f"Renamed{k}": v for k, v in renamed["components"]["schemas"].items()}
    return renamed


@pytest.mark.corpus
def test_no_stackone_change_is_caused_by_a_ref_name_alone() -> None:
    """Renaming every schema of the February spec changes nothing, and the February → December diff finds
    the same changes (check, values, operations) whatever the February schemas are called."""
    for path in sorted(OLD_STACKONE.glob("*.json")):
        old = json.loads(path.read_text(encoding="utf-8"))
        new = json.loads((NEW_STACKONE / path.name).read_text(encoding="utf-8"))
        renamed = renamed_schemas(old)
        assert diff_documents(old, renamed).changes == (), path.name

        def key(change: Change) -> tuple[str, str, str, tuple[str, ...]]:
            return change.check, change.old, change.new, change.operations

        assert sorted(map(key, diff_documents(old, new).changes)) == \
            sorted(map(key, diff_documents(renamed, new).changes)), path.name


# ---------------------------------------------------------------------- two real Swagger 2.0 versions
NETLIFY_OLD, NETLIFY_NEW = SHARED / "swagger2" / "netlify-2024-05.yml", SHARED / "swagger2" / "netlify.yml"


def swagger_operations(path: Path) -> set[str]:
    """An independent count read from the 2.0 file itself: `METHOD /path` of every operation, `{}` for parameters."""
    import yaml

    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    methods = {"get", "put", "post", "delete", "patch", "head", "options"}
    return {f"{method.upper()} {re.sub(r'{[^}]*}', '{}', p)}" for p, item in document["paths"].items()
            for method in item if method in methods}


@pytest.mark.corpus
def test_rag_diff_between_two_netlify_swagger2_versions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(NETLIFY_OLD), str(NETLIFY_NEW), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    listed = {c["name"] for c in data["changes"] if c["kind"] == "operation" and c["action"] == "added"}
    result = diff_files(NETLIFY_OLD, NETLIFY_NEW)
    assert listed == set(result.added_operations)
    shape = {label: re.sub(r"{[^}]*}", "{}", label) for label in result.added_operations + result.removed_operations}
    old, new = swagger_operations(NETLIFY_OLD), swagger_operations(NETLIFY_NEW)
    assert {shape[label] for label in result.added_operations} == new - old and len(new - old) == 42
    assert {shape[label] for label in result.removed_operations} == old - new
    assert "GET /agent_runners" in result.added_operations
    errors = [change for change in result.changes if change.level == "error"]
    assert errors and main(["diff", str(NETLIFY_OLD), str(NETLIFY_NEW), "--fail-on", "error"]) == 1
