"""Reading a file into a parsed document (rag/ingest/pipeline.py): what the reader is told about how it was read."""

from __future__ import annotations

import json
from pathlib import Path

from rag.ingest.pipeline import parse_path


def spec(operations: dict[str, dict[str, object]]) -> dict[str, object]:
    """An OpenAPI document whose paths hold `operations` (`METHOD /path` → the operation)."""
    paths: dict[str, dict[str, object]] = {}
    for endpoint, operation in operations.items():
        method, path = endpoint.split(" ", 1)
        paths.setdefault(path, {})[method] = {**operation, "responses": {"200": {"description": "ok"}}}
    return {"openapi": "3.0.3", "info": {"title": "Docs AI", "version": "1"}, "paths": paths}


def test_a_spec_whose_operations_say_nothing_in_words_says_so_when_it_is_read(tmp_path: Path) -> None:
    """An API Gateway export (methods and paths only) is matched on its names, paths and fields alone: the person
    who indexes it is told how many operations that is, and which have no operationId either."""
    bare = tmp_path / "docs-ai.json"
    bare.write_text(json.dumps(spec({"post /documents": {}, "get /models": {}})))
    notes = parse_path(bare).notes
    assert notes == ("none of its 2 operations has a summary, description or operationId: a question in other "
                     "words than their names, paths and fields finds them less often",)

    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(spec({"post /documents": {"operationId": "createDocument"}, "get /models": {},
                                      "delete /models/{id}": {"summary": "Delete a model"}})))
    assert parse_path(mixed).notes == ("2 of 3 operations have no summary or description, 1 of them no operationId "
                                       "either: a question in other words than their names, paths and fields finds "
                                       "them less often",)
    one = tmp_path / "one.json"
    one.write_text(json.dumps(spec({"get /models": {"operationId": "listModels"}})))
    assert parse_path(one).notes == ("its one operation has no summary or description: a question in other words "
                                     "than its name, path and fields finds it less often",)
    described = tmp_path / "described.json"
    described.write_text(json.dumps(spec({"get /models": {"description": "Lists the models."}})))
    assert parse_path(described).notes == ()


def test_a_parameter_without_a_name_is_left_out_and_the_reader_told(tmp_path: Path) -> None:
    """OpenAPI requires a parameter's name, and a request cannot send one without it; Notion's published spec has a
    header parameter named "" on GET /v1/pages/{id}, which answers showed as "`` (header, string)"."""
    page = {"summary": "Retrieve a page", "parameters": [
        {"name": "Notion-Version", "in": "header", "schema": {"type": "string"}},
        {"name": "", "in": "header", "schema": {"type": "string"}},
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}]}
    path = tmp_path / "notion.json"
    path.write_text(json.dumps(spec({"get /v1/pages/{id}": page})))
    document = parse_path(path)
    assert document.notes == ("1 parameter without a name left out: GET /v1/pages/{id} (header)",)
    operation = next(c for c in document.chunks if c.kind == "operation" and c.strategy == "smart")
    assert [p.name for p in operation.parameters] == ["Notion-Version", "id"]
    assert "``" not in operation.text
