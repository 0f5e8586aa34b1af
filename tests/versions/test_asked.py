"""A write an older version had: "Can I still upsert a course?" states that the operation was removed."""

from __future__ import annotations

from rag.config import PRESETS
from rag.index.store import Index
from rag.runner import Engine
from rag.versions.asked import removed_writes
from tests.index.test_versions import two_versions  # noqa: F401  (the fixture)


def test_a_removed_write_is_found_only_when_no_operation_does_it_now(two_versions: Index) -> None:  # noqa: F811
    chunks = list(two_versions.snapshot().chunks.values())
    assert [c.covers[0] for c in removed_writes("Can I still upsert a course?", chunks)] == [
        "courses.changes.paths./courses.put"]
    assert removed_writes("Can I still delete a course?", chunks) == []  # DELETE /courses/{id} exists now
    assert removed_writes("How do I list courses?", chunks) == []  # not a write
    assert removed_writes("Can I still upsert a course?", list(two_versions.version_view("2025-02").chunks.values())) \
        == []  # the old version has no change chunks (and has the operation)


def test_the_answer_states_that_the_operation_was_removed(two_versions: Index) -> None:  # noqa: F811
    result = Engine(two_versions).run("Can I still upsert a course?", PRESETS["full"])
    assert any("PUT /courses (Upsert Course) was removed" in fact for fact in result.facts), result.facts
    assert "PUT /courses (Upsert Course) was removed" in result.answer
