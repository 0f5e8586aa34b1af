"""The write-operation check names what exists, with each operation's summary from its field."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk
from rag.corpus.profile import CorpusProfile
from rag.write_check import check_write_operation
from tests.fakes import make_chunk


def _operation(method: str, path: str, summary: str) -> Chunk:
    text = f"{method.upper()} {path}  [lms API]\nOperation ID: x"  # no "Summary:" line in the text
    chunk = make_chunk(f"lms.paths.{path}.{method}", text, kind="operation")
    return replace(chunk, method=method, path=path, summary=summary)


def test_the_fact_lists_existing_operations_with_the_summary_field() -> None:
    operations = [
        _operation("get", "/unified/lms/courses", "List Courses"),
        _operation("get", "/unified/lms/courses/{id}", ""),
    ]
    profile = CorpusProfile(generation=1, apis=["lms"], operations=operations)
    found = check_write_operation("How do I delete a course?", profile)
    assert found is not None
    fact = found.statement()
    assert "GET /unified/lms/courses (List Courses)" in fact
    assert "GET /unified/lms/courses/{id}; GET /unified/lms/courses (List Courses)." in fact  # item first, no summary
