"""Every operation of every real spec in ../shared (StackOne's two versions, Apideck HRIS, Twilio, OpenAI,
RestBench's Spotify, and Slack's and Netlify's Swagger 2.0 specs) gets a request example whose body is valid
against the operation's request schema (`jsonschema`, OpenAPI 3.0's `nullable` and 3.1's `null` types alike), as is
the body of each object a body of several objects allows, whose
Python parses and whose curl is one well-formed shell command."""

from __future__ import annotations

import ast
import functools
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from rag.chunk import Chunk
from rag.ingest.loader import load_openapi
from rag.ingest.openapi import chunk_openapi
from rag.ingest.spec import iter_operations
from rag.request_example import curl_command, python_snippet
from tests.conftest import SHARED
from tests.ingest.json_schema import OpenAPISchemas
from tests.ingest.test_real_specs import SPEC_FILES as REAL_SPECS

pytestmark = pytest.mark.corpus

SPOTIFY = "eval/restbench-spotify/spotify.json"
SPEC_FILES = list(REAL_SPECS) + ([SPOTIFY] if (SHARED / SPOTIFY).is_file() else [])


@functools.cache
def chunked(relative: str) -> tuple[dict[str, Any], dict[str, Chunk]]:
    """A real spec and its operation chunks by `METHOD /path` (once per session)."""
    document = load_openapi(SHARED / relative)
    chunks = chunk_openapi(document, Path(relative).stem, Path(relative).name).smart
    return document, {c.title: c for c in chunks if c.kind == "operation"}


def test_the_shared_specs_are_there() -> None:
    if not SPEC_FILES:
        pytest.skip(f"no real specs under {SHARED} (../shared is not beside the checkout; set RAG_SHARED_DIR)")
    assert len(SPEC_FILES) == 21, SPEC_FILES  # 17 OpenAPI 3, Spotify, 3 Swagger 2.0


@pytest.mark.parametrize("relative", SPEC_FILES or [pytest.param("", marks=pytest.mark.skip(
    reason=f"no real specs under {SHARED}; set RAG_SHARED_DIR"))])
def test_every_operation_has_an_example_whose_body_its_schema_accepts(relative: str) -> None:
    document, chunks = chunked(relative)
    schemas = OpenAPISchemas(document)
    invalid: list[str] = []
    bodies = 0
    for operation in iter_operations(document):
        if operation.section != "paths":
            continue
        chunk = chunks[f"{operation.method.upper()} {operation.path}"]
        example = chunk.request_example
        assert example is not None, chunk.title
        ast.parse(python_snippet(example))
        assert shlex.split(curl_command(example).replace("\\\n", " "))[0] == "curl"
        body, _ = schemas.resolver.deref(operation.node.get("requestBody"))
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, dict) or not content:
            assert example.body == "", chunk.title
            continue
        bodies += 1
        schema = content[example.media_type].get("schema", {})
        errors = [f"{list(e.absolute_path)}: {e.message[:120]}"
                  for e in schemas.validator(schema).iter_errors(json.loads(example.body))]
        if errors:
            invalid.append(f"{chunk.title}: {errors[:2]}")
        # So is the body of each object a body of several objects allows (the one a question names is sent).
        for alternative in chunk.request_body.alternatives if chunk.request_body else ():
            errors = [f"{list(e.absolute_path)}: {e.message[:120]}"
                      for e in schemas.validator(schema).iter_errors(json.loads(alternative.example))]
            if errors:
                invalid.append(f"{chunk.title} ({alternative.name or alternative.schema}): {errors[:2]}")
    assert invalid == [], invalid
    assert bodies or relative.endswith("iam.json"), f"{relative}: no operation took a body"
