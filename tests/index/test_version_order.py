"""Which version of an API is the newest: by labels that are dates or semantic versions, else by the specs'
own info.version, and only then by ingest time: never by the order versions were indexed in."""

from __future__ import annotations

import itertools

import pytest

from rag.index.registry import DocumentRecord
from rag.index.versions import parse_label, versions_of, visible_records


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
