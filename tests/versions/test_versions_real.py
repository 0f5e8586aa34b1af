"""Issue 22's acceptance on the real StackOne specs and the packaged embedder: both versions indexed, the change
question answered from the change chunks, an ordinary question from the newest version."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag.config import PRESETS
from rag.index.build import ingest_paths
from rag.index.store import Index
from rag.runner import Engine
from tests.conftest import SHARED, STACKONE_SPECS

pytestmark = pytest.mark.slow
OLD_STACKONE = SHARED / "specs" / "stackone-2025-02"


# February's LMS (whose changes are asked), HRIS (asked an ordinary question, which must not answer from it) and two
# small APIs whose change chunks compete; ATS, marketing and the core API would only add embedding time.
OLD_APIS = ("lms", "hris", "crm", "iam")


@pytest.fixture(scope="module")
def both_versions(stackone_index, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """December's seven APIs and four of February's in a fresh index; the session index's embedder (and its cache)
    embeds December's chunks for free, so only February's and the change chunks cost time."""
    index = Index(tmp_path_factory.mktemp("versions-index") / "index", stackone_index.embedder)
    assert {r.status for r in ingest_paths(index, [STACKONE_SPECS])} == {"added"}
    february = [OLD_STACKONE / f"{api}.json" for api in OLD_APIS]
    assert {r.status for r in ingest_paths(index, february, version="2025-02")} == {"added"}
    return index


def test_what_changed_names_the_removed_write_operations_first_and_cites_them(both_versions) -> None:  # type: ignore[no-untyped-def]
    result = Engine(both_versions, default_llm="extractive").run(
        "What changed in the LMS API since the 2025-02 version?", PRESETS["full"])
    first_lines = "\n".join(result.answer.splitlines()[:3])
    for operation in ("PUT /unified/lms/courses", "POST /unified/lms/courses/batch", "POST /unified/lms/collections",
                      "PATCH /unified/lms/collections/{id}"):
        assert operation in first_lines, result.answer
    assert result.citations[0].structural_id == "lms.changes"


def test_an_ordinary_question_answers_from_the_newest_version(both_versions) -> None:  # type: ignore[no-untyped-def]
    result = Engine(both_versions, default_llm="extractive").run("How do I list employees?", PRESETS["full"])
    assert result.chunks[0].chunk.covers[0] == "hris.paths./unified/hris/employees.get"
    assert {c.chunk.api_version for c in result.chunks if c.chunk.kind != "change"} == {"1.0.0"}
    pinned = Engine(both_versions, default_llm="extractive").run(
        "How do I upsert a course in the LMS API?", replace(PRESETS["full"], api_version="lms@2025-02"))
    assert any("lms.paths./unified/lms/courses.put" in c.chunk.covers for c in pinned.chunks[:3]), \
        [c.chunk.covers[0] for c in pinned.chunks]
