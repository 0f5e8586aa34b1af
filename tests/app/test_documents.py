"""Uploads (`webapp.documents`): a report per file."""

from __future__ import annotations

from tests.app.conftest import INVENTORY_SPEC
from webapp.documents import ingest_uploads, pending_note, report_frame, report_line


def test_ingest_uploads_reports_each_file(empty_index) -> None:  # type: ignore[no-untyped-def]
    seen: list[float] = []
    reports = ingest_uploads(
        empty_index,
        [("inventory.yaml", INVENTORY_SPEC), ("empty.md", b""), ("virus.exe", b"MZ"),
         ("inventory.yaml", INVENTORY_SPEC)],
        "reject",
        progress=lambda fraction, text: seen.append(fraction),
    )
    assert [r.status for r in reports] == ["added", "error", "error", "rejected"]
    assert ".exe files cannot be indexed" in reports[2].message and ".json .yaml .yml" in reports[2].message
    assert reports[1].message.startswith("empty.md: not indexed — ")
    assert "already indexed, so it was not added" in reports[3].message and "on_duplicate" not in reports[3].message
    assert seen == sorted(seen) and seen[-1] == 1.0
    frame = report_frame(reports)
    assert frame.loc[0, "chunks"] > 0 and frame.loc[3, "status"] == "rejected"


def test_an_upload_sets_aside_the_naive_chunks_and_the_page_says_so_until_they_are_embedded(empty_index) -> None:  # type: ignore[no-untyped-def]
    texts: list[str] = []
    reports = ingest_uploads(empty_index, [("inventory.yaml", INVENTORY_SPEC)], "reject",
                             progress=lambda fraction, text: texts.append(text), defer=("naive",))
    assert texts[0].startswith("inventory.yaml: parsing and chunking · ") and texts[0].endswith(" left")
    assert texts[-1] == "done: 1 file(s)"
    assert reports[0].pending == ("naive",) and "naive (not embedded yet)" in report_line(reports[0])
    note = pending_note(empty_index)
    assert "naive chunks of inventory" in note and "C0" in note and "still indexing" in note
    empty_index.complete_pending()
    assert pending_note(empty_index) == ""
