"""Uploads (`webapp.documents`): a report per file, saying how a spec was read (converted, bundled)."""

from __future__ import annotations

import pytest

from tests.app.conftest import INVENTORY_SPEC
from tests.conftest import FIXTURES, SHARED
from tests.ingest.test_bundle import SPLIT, archive_of, zipped
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


def test_an_upload_goes_live_before_its_schemas_are_embedded_and_the_page_names_who_waits(empty_index) -> None:  # type: ignore[no-untyped-def]
    from rag.config import set_aside_parts

    reports = ingest_uploads(empty_index, [("inventory.yaml", INVENTORY_SPEC)], "reject", defer=set_aside_parts())
    assert reports[0].pending == ("smart:schema", "naive")
    assert "smart (schema chunks not embedded yet)" in report_line(reports[0])
    note = pending_note(empty_index)
    assert note.startswith("Embedding in the background: ") and "schema chunks of inventory; " in note
    assert "the schema chunks by C1, C2, C3, C4, C5, E2, E3, E4, full; the naive chunks by C0" in note
    empty_index.complete_pending(("smart",))
    assert "schema" not in pending_note(empty_index) and "naive chunks of inventory" in pending_note(empty_index)


def test_a_swagger2_spec_and_a_split_spec_zip_say_how_they_were_read(empty_index) -> None:  # type: ignore[no-untyped-def]
    swagger2 = (FIXTURES / "specs" / "swagger-2.0.json").read_bytes()
    broken = SPLIT.joinpath("openapi.yaml").read_text().replace("description.yml#/introduction", "intro.yml#/x")
    reports = ingest_uploads(empty_index, [("old.json", swagger2), ("digitalocean.zip", zipped(SPLIT)),
                                           ("broken.zip", archive_of({"openapi.yaml": broken}))], "reject")
    assert [r.status for r in reports] == ["added", "added", "error"]
    assert "converted from Swagger 2.0 to OpenAPI 3.0" in report_line(reports[0])
    assert "digitalocean.zip → digitalocean: added" in report_line(reports[1])
    assert "bundled from 20 files" in report_line(reports[1])
    assert reports[2].message == ("broken.zip/openapi.yaml: not indexed — $ref 'intro.yml#/x' names intro.yml, which "
                                  "is not in the upload; allowed: files inside it (upload a spec split over files as a "
                                  ".zip of its folder, or ingest the folder)")
    assert {r.api for r in empty_index.documents()} == {"old", "digitalocean"}


@pytest.mark.skipif(not (SHARED / "swagger2").is_dir(), reason="Slack's spec is in ../shared/swagger2 (absent)")
def test_slacks_swagger2_spec_is_uploaded(empty_index) -> None:  # type: ignore[no-untyped-def]
    (report,) = ingest_uploads(empty_index, [("slack_web.json", (SHARED / "swagger2" / "slack_web.json").read_bytes())])
    assert report.status == "added" and report.chunk_counts["smart"] == 228  # 174 operations, 48 schemas, 6 more
    assert "converted from Swagger 2.0 to OpenAPI 3.0" in report_line(report)
    assert "slack_web.paths./chat.postMessage.post" in empty_index.structural_ids()
