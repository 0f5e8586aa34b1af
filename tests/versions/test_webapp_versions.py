"""The app's version helpers: an upload of an indexed API, added as a version, its diff table and the pins."""

from __future__ import annotations

import pytest

from rag.errors import DuplicateDocumentError
from rag.index.store import Index
from rag.ingest.pipeline import parse_document
from tests.index.test_versions import old_and_new
from webapp.versions import add_version, changes_frame, known_uploads, version_choices, what_changed_question


def test_an_older_upload_is_added_beside_and_diffed_against_the_newest(empty_index: Index) -> None:
    old, new = old_and_new()
    empty_index.add(parse_document("courses.json", new, version="2025-12"))
    known = known_uploads(empty_index, [("courses.json", old), ("notes.md", b"# Notes")])
    assert [(k.api, k.versions) for k in known] == [("courses", ("2025-12",))]
    assert known[0].suggested == "1.0.0"  # the spec's info.version, not yet indexed
    report, diff = add_version(empty_index, "courses.json", old, "2025-02")
    assert report.status == "added" and (diff.old_label, diff.new_label) == ("2025-02", "2025-12")
    assert diff.removed_operations == ["PUT /courses"]
    frame = changes_frame(diff)
    assert frame["breaking"].iloc[0] and len(frame) == len(diff.changes)
    assert list(changes_frame(diff, breaking_only=True)["breaking"]) == [True] * int(frame["breaking"].sum())
    only = changes_frame(diff, operations=["DELETE /courses/{id}"])
    assert set(only["name"]) == {"DELETE /courses/{id}"}
    assert version_choices(empty_index.documents()) == ["", "courses@2025-02"]
    assert what_changed_question(diff) == "What changed in the COURSES API since the 2025-02 version?"
    with pytest.raises(DuplicateDocumentError):  # the same label twice: reported, nothing written
        add_version(empty_index, "courses.json", old, "2025-02")
    with pytest.raises(ValueError, match="label"):
        add_version(empty_index, "courses.json", old, " ")
