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
