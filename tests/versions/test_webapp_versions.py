"""The app's version helpers: an upload of an indexed API, added as a version, its diff table and the pins."""

from __future__ import annotations

import pytest

from rag.errors import DuplicateDocumentError
from rag.index.store import Index
from rag.ingest.pipeline import parse_document
from tests.index.test_versions import old_and_new
from webapp.versions import (
    add_version,
    change_details,
    changes_frame,
    diff_param,
    known_uploads,
    reopen_diff,
    version_choices,
    what_changed_question,
)


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
    assert frame["level"].iloc[0] == "error" and len(frame) == len(diff.changes)
    assert set(changes_frame(diff, breaking_only=True)["level"]) == {"error"}
    assert reopen_diff(empty_index, diff_param(diff)) == diff  # the URL reopens it
    details = change_details(frame.iloc[0].to_dict())
    assert details.startswith("**error** `api-removed-without-deprecation`") and "`PUT /courses`" in details
    assert reopen_diff(empty_index, "courses@2024-01..courses@2025-12") is None
    only = changes_frame(diff, operations=["DELETE /courses/{id}"])
    assert set(only["name"]) == {"DELETE /courses/{id}"}
    assert version_choices(empty_index.documents()) == ["", "courses@2025-02"]
    assert what_changed_question(diff) == "What changed in the COURSES API since the 2025-02 version?"
    with pytest.raises(DuplicateDocumentError):  # the same label twice: reported, nothing written
        add_version(empty_index, "courses.json", old, "2025-02")
    with pytest.raises(ValueError, match="label"):
        add_version(empty_index, "courses.json", old, " ")


def test_the_upload_form_proposes_the_specs_info_version_or_asks(empty_index: Index) -> None:
    old, new = old_and_new()
    empty_index.add(parse_document("courses.json", new))  # labelled 1.0.0, its info.version
    assert known_uploads(empty_index, [("courses.json", old)])[0].suggested == ""  # 1.0.0 is taken: the form asks
