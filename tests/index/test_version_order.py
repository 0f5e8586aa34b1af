"""Which version of an API is the newest: by labels that are dates or semantic versions, else by the specs'
own info.version, and only then by ingest time: never by the order versions were indexed in."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from rag.index.embedder import Embedder
from rag.index.registry import DocumentRecord
from rag.index.store import Index
from rag.index.versions import parse_label, versions_of, visible_records
from rag.ingest.pipeline import parse_document
from rag.retrieve.context import QueryContext


def record(label: str, ingested_at: float, spec_version: str = "") -> DocumentRecord:
    return DocumentRecord(source=f"lms.json@{label}", api="lms", doc_type="openapi", content_hash=label,
                          version=f"v-{label}", ingested_at=ingested_at, api_version=label,
                          spec_version=spec_version)


@pytest.mark.parametrize("labels", [("2025-02", "2025-06", "2025-12"), ("1.2.0", "1.9.1", "1.10.0"),
                                    ("v1", "v2.0.0-beta", "v2.0.0")])
def test_three_versions_in_any_ingest_order_are_ordered_by_label(labels: tuple[str, ...]) -> None:
    for order in itertools.permutations(labels):
        records = [record(label, 1000.0 + i) for i, label in enumerate(order)]
        assert [r.api_version for r in versions_of(records, "lms")] == list(labels), order
        newest = [r.api_version for r in visible_records(records) if r.doc_type == "openapi"]
        assert newest == [labels[-1]]


def test_labels_that_say_nothing_fall_back_to_the_specs_info_version_then_ingest_time() -> None:
    spring = record("spring", 2000.0, spec_version="2.0.0")
    autumn = record("autumn", 1000.0, spec_version="3.0.0")  # back-filled? no: indexed first, yet newer
    assert [r.api_version for r in versions_of([spring, autumn], "lms")] == ["spring", "autumn"]
    same = [record("a", 2000.0, "1.0.0"), record("b", 1000.0, "1.0.0")]
    assert [r.api_version for r in versions_of(same, "lms")] == ["b", "a"]  # nothing else tells: ingest time


def test_a_dated_label_is_held_against_the_day_the_other_was_indexed() -> None:
    # `ingest stackone` (labelled 1.0.0 today) then `ingest stackone-2025-02 --version 2025-02`: 1.0.0 is newest
    now = record("1.0.0", 1_780_000_000.0, "1.0.0")
    february = record("2025-02", 1_780_000_100.0, "1.0.0")
    assert [r.api_version for r in versions_of([february, now], "lms")] == ["2025-02", "1.0.0"]


def test_parse_label() -> None:
    assert parse_label("2025-02") == ("date", (2025, 2, 1))
    assert parse_label("1.10.0")[1] > parse_label("1.9.0")[1]  # type: ignore[index]
    assert parse_label("2.0.0-rc1")[1] < parse_label("2.0.0")[1]  # type: ignore[index]
    assert parse_label("december") is None


def three_versions() -> dict[str, bytes]:
    """2025-02 has `PUT /courses`; 2025-06 dropped it and gained `DELETE /courses/{id}`; 2025-12 gained
    `PATCH /courses/{id}`. Every spec says info.version 1.0.0: only the labels tell their order."""
    from tests.versions.test_diff import spec

    february = spec()
    june = spec()
    del june["paths"]["/courses"]["put"]
    june["paths"]["/courses/{id}"]["delete"] = {"summary": "Delete Course", "responses": {"204": {"description": "ok"}}}
    december = json.loads(json.dumps(june))
    december["paths"]["/courses/{id}"]["patch"] = {"summary": "Update Course",
                                                  "responses": {"200": {"description": "ok"}}}
    return {label: json.dumps(document).encode() for label, document in
            (("2025-02", february), ("2025-06", june), ("2025-12", december))}


@pytest.mark.parametrize("order", list(itertools.permutations(("2025-02", "2025-06", "2025-12"))),
                         ids="-".join)
def test_three_indexed_versions_newest_by_label_and_since_the_version_named(
        tmp_path: Path, hashing_embedder: Embedder, order: tuple[str, ...]) -> None:
    index = Index(tmp_path / "index", hashing_embedder)
    specs = three_versions()
    for label in order:
        index.add(parse_document("courses.json", specs[label], version=label))
    operations = {c.covers[0] for c in index.snapshot().chunks.values() if c.kind == "operation"}
    assert "courses.paths./courses/{id}.patch" in operations and "courses.paths./courses.put" not in operations
    changes = sorted(r.source for r in index.documents() if r.doc_type == "changes")
    assert changes == ["courses.changes", "courses.changes@2025-02"]

    def change_chunks(question: str) -> dict[str, str]:
        context = QueryContext(index, question)
        return {c.chunk_id.split("/", 1)[1]: c.text for c in context.snapshot.chunks.values() if c.kind == "change"}

    plain = change_chunks("What changed in the courses API?")  # since the version before the newest: 2025-06
    assert "courses.changes.paths./courses.put" not in plain and "since version 2025-06" in plain["courses.changes"]
    since = change_chunks("What changed in the courses API since 2025-02?")
    assert "since version 2025-02" in since["courses.changes"]
    assert "was removed" in since["courses.changes.paths./courses.put"]
    assert "courses.changes.paths./courses/{id}.patch" in since
    assert {c.api_version for c in QueryContext(index, "since 2025-02?").snapshot.chunks.values()
            if c.kind == "operation"} == {"2025-12"}  # the newest version is what is searched
