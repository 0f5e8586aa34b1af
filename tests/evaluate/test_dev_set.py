"""The hand-made dev set (eval_data/dev_set.jsonl): well-formed, and every fact checked against the real specs.

Each answerable question names the structural ids its answer lives in and the keywords a correct answer must
contain; here every id must resolve in StackOne's December 2025 specs and every keyword must occur in the JSON
of one of those ids (operations and schemas with their directly referenced component schemas expanded one
level). Keywords written as `METHOD /path` must be existing operations listed in `relevant_ids`. write_check
questions carry `absent_write` (the write that must NOT exist); out_of_scope questions carry `absent_terms`
(names that must occur in no spec).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ["RAG_SHARED_DIR"]) if os.environ.get("RAG_SHARED_DIR") else ROOT.parent / "shared"
SPECS_DIR = SHARED / "specs" / "stackone"
DEV_SET = ROOT / "eval_data" / "dev_set.jsonl"
HELD_OUT_SET = ROOT / "eval_data" / "heldout_set.jsonl"

APIS = ("stackone", "hris", "ats", "lms", "iam", "crm", "marketing")
CATEGORIES = (
    "endpoint",
    "parameter",
    "schema",
    "auth",
    "write_check",
    "cross_api",
    "follow_up",
    "vague",
    "synonym",
    "out_of_scope",
)
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")
REQUIRED_FIELDS: dict[str, type] = {
    "id": str,
    "question": str,
    "category": str,
    "answerable": bool,
    "relevant_ids": list,
    "required_keywords": list,
    "ground_truth": str,
}
OPTIONAL_FIELDS: dict[str, type] = {"history": list, "absent_write": dict, "absent_terms": list}
OPERATION_KEYWORD = re.compile(r"^(GET|PUT|POST|DELETE|PATCH) (/\S*)$")
SCHEMA_REF = re.compile(r'"\$ref":\s*"#/components/schemas/([^"]+)"')
# Words in a question that ask for a write, per HTTP method.
WRITE_WORDS: dict[str, tuple[str, ...]] = {
    "post": ("create", "add", "new", "post", "make", "publish"),
    "put": ("create", "add", "new", "replace", "upsert", "update"),
    "patch": ("update", "edit", "change", "modify", "rename"),
    "delete": ("delete", "remove", "erase", "destroy"),
}


def load_dev_set(path: Path = DEV_SET) -> list[dict[str, Any]]:
    """A question set, one dict per non-empty line (a malformed line fails with its line number)."""
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as exc:  # pragma: no cover - only on a broken file
                raise AssertionError(f"{path.name}:{number}: not JSON: {exc}") from exc
    return items


DEV: list[dict[str, Any]] = load_dev_set()
# The held-out set was written after the offline stages were tuned on the dev set; its facts are checked alike.
HELD_OUT: list[dict[str, Any]] = load_dev_set(HELD_OUT_SET)
BY_ID = {str(item.get("id")): item for item in DEV + HELD_OUT}


def items(category: str | None = None) -> list[Any]:
    """pytest params of the dev and held-out set items (of one category), named by question id."""
    chosen = [item for item in DEV + HELD_OUT if category is None or item.get("category") == category]
    return [pytest.param(item, id=str(item.get("id"))) for item in chosen]


@cache
def specs() -> dict[str, dict[str, Any]]:
    """The 7 parsed specs by api name."""
    if not SPECS_DIR.is_dir():
        pytest.fail(f"real specs not found at {SPECS_DIR}; set RAG_SHARED_DIR")
    return {api: json.loads((SPECS_DIR / f"{api}.json").read_text(encoding="utf-8")) for api in APIS}


@cache
def spec_texts() -> dict[str, str]:
    """The raw text of each spec, lower-cased, for absence checks."""
    return {api: (SPECS_DIR / f"{api}.json").read_text(encoding="utf-8").lower() for api in APIS}


# ----------------------------------------------------------------------------- structural ids
def parse_operation_id(relevant_id: str) -> tuple[str, str, str] | None:
    """`{api}.paths.{path}.{method}` -> (api, path, method); None when the id is not an operation id."""
    api, _, rest = relevant_id.partition(".")
    if not rest.startswith("paths."):
        return None
    path, _, method = rest.removeprefix("paths.").rpartition(".")
    return (api, path, method) if path.startswith("/") and method else None


def operation(api: str, path: str, method: str) -> dict[str, Any] | None:
    """The operation object at paths[path][method] of one spec, or None."""
    path_item = specs().get(api, {}).get("paths", {}).get(path)
    node = path_item.get(method) if isinstance(path_item, dict) and method in HTTP_METHODS else None
    return node if isinstance(node, dict) else None


def resolve(relevant_id: str) -> Any:
    """The spec object a structural id names (operation, component schema, security scheme, overview), or None."""
    parsed = parse_operation_id(relevant_id)
    if parsed:
        return operation(*parsed)
    api, _, rest = relevant_id.partition(".")
    document = specs().get(api)
    if document is None:
        return None
    components = document.get("components", {})
    if rest == "overview":
        return {
            "info": document.get("info"),
            "servers": document.get("servers"),
            "security": document.get("security"),
            "tags": document.get("tags"),
            "securitySchemes": components.get("securitySchemes"),
        }
    if rest.startswith("components.securitySchemes."):
        return components.get("securitySchemes", {}).get(rest.removeprefix("components.securitySchemes."))
    if rest.startswith("components."):
        return components.get("schemas", {}).get(rest.removeprefix("components."))
    return None


@cache
def evidence(relevant_id: str) -> str:
    """Lower-cased JSON of the id's object plus the component schemas it references directly (one level)."""
    node = resolve(relevant_id)
    text = json.dumps(node, ensure_ascii=False)
    schemas = specs()[relevant_id.partition(".")[0]].get("components", {}).get("schemas", {})
    parts = [text] + [
        json.dumps(schemas[name], ensure_ascii=False)
        for name in sorted(set(SCHEMA_REF.findall(text)))
        if name in schemas
    ]
    return "\n".join(parts).lower()


# ----------------------------------------------------------------------------- the helpers themselves
def test_helpers_resolve_ids() -> None:
    assert parse_operation_id("hris.paths./unified/hris/employees.get") == ("hris", "/unified/hris/employees", "get")
    assert parse_operation_id("hris.paths./unified/hris/employees/{id}.patch") == (
        "hris",
        "/unified/hris/employees/{id}",
        "patch",
    )
    assert parse_operation_id("stackone.components.ConnectSessionCreate") is None
    assert resolve("hris.paths./unified/hris/employees.get")["operationId"] == "hris_list_employees"
    assert resolve("hris.paths./unified/hris/employees.put") is None
    assert resolve("lms.paths./unified/lms/courses.post") is None
    assert resolve("stackone.components.ConnectSessionCreate")["properties"]["expires_in"]["default"] == 1800
    assert resolve("ats.components.securitySchemes.basic") == {"type": "http", "scheme": "basic"}
    assert resolve("crm.overview")["info"]["title"] == "CRM"
    assert resolve("nope.overview") is None
    assert "employeespaginated" in evidence("hris.paths./unified/hris/employees.get")
    assert '"next"' in evidence("hris.paths./unified/hris/employees.get")  # from EmployeesPaginated, one level down


# ----------------------------------------------------------------------------- the set as a whole
def test_dev_set_size_and_mix() -> None:
    ids = [item.get("id") for item in DEV]
    assert len(DEV) >= 70
    assert len(set(ids)) == len(ids), [i for i, n in Counter(ids).items() if n > 1]
    questions = [str(item.get("question", "")).strip().lower() for item in DEV]
    assert len(set(questions)) == len(questions), "duplicate questions"
    counts = Counter(item.get("category") for item in DEV)
    assert set(CATEGORIES) <= set(counts), f"missing categories: {set(CATEGORIES) - set(counts)}"
    assert counts["out_of_scope"] >= 12


def test_dev_set_contains_the_key_facts() -> None:
    """The five facts the evaluation must always cover."""

    def has(relevant_id: str, *keywords: str, category: str | None = None) -> bool:
        return any(
            relevant_id in item["relevant_ids"]
            and set(keywords) <= set(item["required_keywords"])
            and (category is None or item["category"] == category)
            for item in DEV
        )

    assert has("hris.components.securitySchemes.basic", "basic", category="auth")
    assert has("stackone.paths./accounts.get", "providers")
    assert has("stackone.components.ConnectSessionCreate", "expires_in", "1800")
    assert has("lms.paths./unified/lms/courses.get", "GET /unified/lms/courses", category="write_check")
    assert has("hris.paths./unified/hris/employees.get", "EmployeesPaginated", "next", "data")


# ----------------------------------------------------------------------------- each question
@pytest.mark.parametrize("item", items())
def test_fields_present_and_typed(item: dict[str, Any]) -> None:
    for field, kind in REQUIRED_FIELDS.items():
        assert isinstance(item.get(field), kind), f"{field} missing or not {kind.__name__}"
    for field, kind in OPTIONAL_FIELDS.items():
        assert field not in item or isinstance(item[field], kind), f"{field} is not {kind.__name__}"
    assert set(item) <= set(REQUIRED_FIELDS) | set(OPTIONAL_FIELDS), (
        f"unknown fields {set(item) - set(REQUIRED_FIELDS)}"
    )
    assert re.fullmatch(r"(dev|held)-\d{3}", item["id"])
    assert item["question"].strip() and item["ground_truth"].strip()
    assert item["category"] in CATEGORIES
    assert item["answerable"] is (item["category"] != "out_of_scope")
    assert all(isinstance(x, str) and x.strip() for x in item["relevant_ids"] + item["required_keywords"])
    assert len(set(item["relevant_ids"])) == len(item["relevant_ids"])
    if item["answerable"]:
        assert item["relevant_ids"] and item["required_keywords"]
    else:
        assert item["relevant_ids"] == [] and item["required_keywords"] == []
    if item["category"] == "follow_up":
        history = item.get("history")
        assert history, "a follow-up needs its prior turns"
        for turn in history:
            assert set(turn) == {"role", "content"} and turn["role"] in ("user", "assistant")
            assert isinstance(turn["content"], str) and turn["content"].strip()
        assert history[0]["role"] == "user" and history[-1]["role"] == "assistant"
    else:
        assert not item.get("history"), "only follow-ups carry history"
    assert ("absent_write" in item) is (item["category"] == "write_check")
    assert "absent_terms" not in item or item["category"] == "out_of_scope"


@pytest.mark.parametrize("item", items())
def test_relevant_ids_exist_in_the_specs(item: dict[str, Any]) -> None:
    for relevant_id in item["relevant_ids"]:
        assert relevant_id.partition(".")[0] in APIS, relevant_id
        assert resolve(relevant_id) is not None, f"{relevant_id} is not in the specs"


@pytest.mark.parametrize("item", items())
def test_required_keywords_occur_in_a_relevant_object(item: dict[str, Any]) -> None:
    relevant = item["relevant_ids"]
    for keyword in item["required_keywords"]:
        endpoint = OPERATION_KEYWORD.match(keyword)
        if endpoint:
            method, path = endpoint.group(1).lower(), endpoint.group(2)
            named = [r for r in relevant if (parsed := parse_operation_id(r)) and parsed[1:] == (path, method)]
            assert named, f"{keyword!r} is not among the relevant operations"
            assert all(resolve(r) is not None for r in named), f"{keyword!r} does not exist"
        else:
            assert any(keyword.lower() in evidence(r) for r in relevant), f"{keyword!r} occurs in none of {relevant}"


@pytest.mark.parametrize("item", items("write_check"))
def test_write_check_operation_really_absent(item: dict[str, Any]) -> None:
    absent = item["absent_write"]
    api, paths, methods = absent["api"], absent["paths"], absent["methods"]
    assert api in APIS and paths and methods and set(methods) <= set(WRITE_WORDS)
    words = set(re.findall(r"[a-z]+", item["question"].lower()))
    assert any(word in words for method in methods for word in WRITE_WORDS[method]), "question asks for no write"
    for path in paths:
        for method in methods:
            assert operation(api, path, method) is None, f"{method.upper()} {path} exists in {api}"
    # The resource itself exists: the answer points at the operations that do.
    existing = {parsed[1] for r in item["relevant_ids"] if (parsed := parse_operation_id(r)) and parsed[0] == api}
    assert existing & set(paths), "no relevant operation on the resource's paths"


@pytest.mark.parametrize("item", items("out_of_scope"))
def test_out_of_scope_names_occur_in_no_spec(item: dict[str, Any]) -> None:
    named_fields = re.findall(r"`([^`]+)`", item["question"])
    terms = item.get("absent_terms", [])
    assert set(named_fields) <= set(terms), "a field named in the question must be listed in absent_terms"
    for term in terms:
        found = [api for api, text in spec_texts().items() if term.lower() in text]
        assert not found, f"{term!r} occurs in {found}"
