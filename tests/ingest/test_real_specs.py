"""The real specs in ../shared/specs (StackOne, its older version, and other vendors' large YAML/JSON specs) and the
Swagger 2.0 ones in ../shared/swagger2 (converted to 3.0 on load):
everything is covered, ids are unique, embedding texts fit, no fact is lost, and known facts are where
people will look for them. Each spec is loaded and chunked once per test session (the big OpenAI YAML
takes ~2 s)."""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

import pytest

from rag.chunk import Chunk
from rag.ingest.loader import SPEC_EXTENSIONS, load_openapi
from rag.ingest.openapi import OpenAPIChunks, chunk_openapi
from rag.ingest.schema_chunks import SCHEMA_PART_TOKENS
from rag.ingest.spec import api_name_from_source
from tests.conftest import SHARED
from tests.ingest.test_openapi import (
    by_cover,
    check_coverage,
    check_metadata,
    line_of,
    lost_operation_facts,
    lost_schema_facts,
)
from tests.processes import load_allowance

pytestmark = pytest.mark.corpus

SPEC_DIRS = ("specs/stackone", "specs/stackone-2025-02", "specs/external", "swagger2")  # Swagger 2.0: converted
SPECS_ROOT = SHARED
SPEC_FILES = sorted(
    f"{directory}/{path.name}"
    for directory in SPEC_DIRS
    if (SPECS_ROOT / directory).is_dir()
    for path in (SPECS_ROOT / directory).iterdir()
    if path.suffix in SPEC_EXTENSIONS
)


@functools.cache
def chunked(relative: str) -> tuple[dict[str, Any], OpenAPIChunks, float]:
    """Load and chunk one real spec (cached for the session); also return the seconds it took."""
    path = SPECS_ROOT / relative
    if not path.is_file():
        pytest.fail(f"real spec not found at {path}; set RAG_SHARED_DIR")
    started = time.perf_counter()
    document = load_openapi(path)
    result = chunk_openapi(document, api_name_from_source(path.name), path.name)
    return document, result, time.perf_counter() - started


def covering(relative: str, cover: str) -> list[Chunk]:
    chunks = by_cover(chunked(relative)[1].smart).get(cover, [])
    assert chunks, f"no smart chunk covers {cover} in {relative}"
    return chunks


def test_every_shared_spec_is_found() -> None:
    assert len([f for f in SPEC_FILES if f.startswith("specs/stackone/")]) == 7, SPEC_FILES
    assert len([f for f in SPEC_FILES if f.startswith("specs/stackone-2025-02/")]) == 7, SPEC_FILES
    assert {f for f in SPEC_FILES if f.startswith("specs/external/")} >= {
        "specs/external/apideck-hris.yml",
        "specs/external/openai-openapi.yaml",
        "specs/external/twilio_api_v2010.json",
    }
    assert {f for f in SPEC_FILES if f.startswith("swagger2/")} >= {
        "swagger2/slack_web.json", "swagger2/netlify.yml", "swagger2/netlify-2024-05.yml"}


@pytest.mark.parametrize("relative", SPEC_FILES)
def test_real_spec_is_fully_covered_with_unique_ids_and_small_embeddings(relative: str) -> None:
    document, result, seconds = chunked(relative)
    assert seconds < 15 * load_allowance(), f"{relative} took {seconds:.1f} s to load and chunk"
    assert result.operation_count > 0
    check_coverage(document, result)
    check_metadata(document, result)  # includes unique ids and embedding_text <= 256 estimated tokens
    assert result.unresolved_refs == []


@pytest.mark.parametrize("relative", SPEC_FILES)
def test_real_spec_schema_parts_stay_near_the_limit(relative: str) -> None:
    _, result, _ = chunked(relative)
    for chunk in result.smart:
        if chunk.kind == "schema":
            assert chunk.tokens <= 1.5 * SCHEMA_PART_TOKENS, (chunk.chunk_id, chunk.tokens)
    split = [chunk for chunk in result.smart if chunk.parts > 1]
    for cover, parts in by_cover(split).items():
        assert sorted(chunk.part for chunk in parts) == list(range(1, parts[0].parts + 1)), cover


@pytest.mark.parametrize("relative", SPEC_FILES)
def test_real_spec_loses_no_fact(relative: str) -> None:
    """Every default, enum value, limit, pattern, format, example, nullable, deprecated and required of
    every inline property of every component schema, parameter, request body and 2xx response is shown."""
    document, result, _ = chunked(relative)
    assert lost_schema_facts(document, result)[:5] == []
    assert lost_operation_facts(document, result)[:5] == []


# ---------------------------------------------------------------- facts people ask about


def test_stackone_connect_session_create_keeps_its_default_expiry(stackone_specs: Path) -> None:
    chunks = covering("specs/stackone/stackone.json", "stackone.components.ConnectSessionCreate")
    assert any("1800" in chunk.text for chunk in chunks)


def test_stackone_list_accounts_mentions_providers(stackone_specs: Path) -> None:
    (chunk,) = covering("specs/stackone/stackone.json", "stackone.paths./accounts.get")
    assert chunk.kind == "operation"
    assert "providers" in chunk.text
    assert chunk.json_pointer == "/paths/~1accounts/get"


def test_stackone_overview_says_http_basic(stackone_specs: Path) -> None:
    (chunk,) = covering("specs/stackone/stackone.json", "stackone.overview")
    assert chunk.kind == "overview"
    assert "HTTP Basic" in chunk.text
    assert "basic: HTTP Basic" in chunk.text


def test_hris_list_employees_names_the_response_schema_and_its_fields(stackone_specs: Path) -> None:
    (chunk,) = covering("specs/stackone/hris.json", "hris.paths./unified/hris/employees.get")
    assert chunk.json_pointer == "/paths/~1unified~1hris~1employees/get"
    assert chunk.operation_id == "hris_list_employees"
    assert "200 → EmployeesPaginated" in chunk.text
    responses = chunk.text[chunk.text.index("\nResponses:\n") :]
    assert "\n- 200 → EmployeesPaginated: The list of employees was retrieved.\n" in responses
    assert "\n  - next (string, optional, nullable)" in responses
    assert "\n  - data (array of Employee, required)" in responses
    assert line_of(chunk.text, "- next (").startswith("- next (query, string, optional, nullable)")
    assert "Security: basic (HTTP Basic)" in chunk.text
    assert "hris.components.EmployeesPaginated" in chunk.ref_ids
    # the deepObject filter lists the fields it accepts
    assert "  - email (string, optional, nullable): Filter to select employees by email" in chunk.text


def test_older_lms_version_has_the_course_upsert(stackone_specs: Path) -> None:
    older = by_cover(chunked("specs/stackone-2025-02/lms.json")[1].smart)
    newer = by_cover(chunked("specs/stackone/lms.json")[1].smart)
    assert "lms.paths./unified/lms/courses.put" in older
    assert "lms.paths./unified/lms/courses.put" not in newer


def test_openai_yaml_is_chunked_quickly() -> None:
    document, result, seconds = chunked("specs/external/openai-openapi.yaml")
    assert len(document["components"]["schemas"]) > 1_000
    assert result.operation_count > 250
    assert seconds < 15 * load_allowance()
