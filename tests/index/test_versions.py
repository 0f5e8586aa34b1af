"""Versions of an API side by side: the newest searched by default, a pinned one on request, change chunks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rag.cli import main
from rag.config import PRESETS
from rag.errors import ConfigError
from rag.index.store import Index
from rag.ingest.pipeline import parse_document
from rag.runner import Engine
from tests.versions.test_diff import spec


def old_and_new() -> tuple[bytes, bytes]:
    """Version 2025-02 has `PUT /courses` (Upsert Course); version 2025-12 dropped it and gained `DELETE`."""
    old = spec()
    old["paths"]["/courses"]["put"]["summary"] = "Upsert Course"
    new = spec()
    del new["paths"]["/courses"]["put"]
    new["paths"]["/courses/{id}"]["delete"] = {"summary": "Delete Course", "responses": {"204": {"description": "ok"}}}
    return json.dumps(old).encode(), json.dumps(new).encode()


@pytest.fixture
def two_versions(empty_index: Index) -> Index:
    old, new = old_and_new()
    empty_index.add(parse_document("courses.json", new, version="2025-12"))
    report = empty_index.add(parse_document("courses.json", old, version="2025-02"))
    assert report.status == "added" and report.source == "courses.json@2025-02", report
    return empty_index


def operation_ids(snapshot) -> set[str]:  # type: ignore[no-untyped-def]
    return {c for chunk in snapshot.chunks.values() if chunk.kind == "operation" for c in chunk.covers}


def test_the_newest_version_is_searched_by_default_and_an_older_one_when_pinned(two_versions: Index) -> None:
    newest = two_versions.snapshot()
    assert "courses.paths./courses.put" not in operation_ids(newest)
    assert "courses.paths./courses/{id}.delete" in operation_ids(newest)
    assert {c.api_version for c in newest.chunks.values() if c.kind == "operation"} == {"2025-12"}
    pinned = two_versions.version_view("2025-02")
    assert "courses.paths./courses.put" in operation_ids(pinned)
    assert "courses.paths./courses/{id}.delete" not in operation_ids(pinned)
    assert not [c for c in pinned.chunks.values() if c.kind == "change"]  # changes belong to the newest
    assert two_versions.version_view("courses@2025-02").chunks.keys() == pinned.chunks.keys()
    assert pinned.generation != newest.generation  # nothing cached per generation is shared with the view


def test_an_unknown_version_is_refused_naming_the_indexed_ones(two_versions: Index) -> None:
    with pytest.raises(ConfigError, match="'2024-01' is not an indexed version; indexed: courses@2025-02, "
                                          "courses@2025-12"):
        two_versions.version_view("2024-01")
    engine = Engine(two_versions)
    result = engine.run("How do I upsert a course?", replace(PRESETS["full"], api_version="2024-01"))
    assert result.errors and "2024-01" in result.errors[0]


def test_change_chunks_name_what_was_removed_and_added(two_versions: Index) -> None:
    changes = {c.covers[0]: c for c in two_versions.snapshot().chunks.values() if c.kind == "change"}
    overview = changes["courses.changes"]
    assert "Removed operations (1, breaking" in overview.text and "PUT /courses (Upsert Course)" in overview.text
    assert "DELETE /courses/{id} (Delete Course)" in overview.text
    removed = changes["courses.changes.paths./courses.put"]
    assert "was removed" in removed.text and removed.ref_ids == ("courses.paths./courses.put",)
    assert "courses.changes.paths./courses/{id}.delete" in changes


def test_a_pinned_question_answers_from_that_version(two_versions: Index) -> None:
    engine = Engine(two_versions)
    config = replace(PRESETS["C2"], api_version="2025-02")
    pinned = engine.run("Upsert Course PUT /courses", config)
    assert any("courses.paths./courses.put" in c.chunk.covers for c in pinned.chunks)
    newest = engine.run("Upsert Course PUT /courses", PRESETS["C2"])
    assert not any("courses.paths./courses.put" in c.chunk.covers for c in newest.chunks)


def test_deleting_a_version_removes_its_changes(two_versions: Index) -> None:
    assert two_versions.delete("courses.json@2025-02")
    kinds = {c.kind for c in two_versions.snapshot().chunks.values()}
    assert "change" not in kinds
    assert [r.source for r in two_versions.documents()] == ["courses.json"]


def test_a_single_version_index_reads_exactly_as_before(fixture_index: Index) -> None:
    snapshot = fixture_index.snapshot()
    assert len(snapshot.chunks) == sum(sum(r.chunk_counts.values()) for r in fixture_index.documents())
    assert fixture_index.version_view("") is snapshot


def test_reingesting_a_file_without_a_label_updates_it(empty_index: Index) -> None:
    old, new = old_and_new()
    empty_index.add(parse_document("courses.json", old))
    report = empty_index.add(parse_document("courses.json", new.replace(b'"1.0.0"', b'"1.1.0"')))
    assert report.status == "replaced"
    assert [(r.source, r.api_version) for r in empty_index.documents()] == [("courses.json", "1.1.0")]


def test_cli_versions_stats_diff_and_bad_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "hashing")
    old, new = old_and_new()
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "old" / "courses.json").write_bytes(old)
    (tmp_path / "new" / "courses.json").write_bytes(new)
    index = ["--index-dir", str(tmp_path / "index")]
    assert main(["ingest", str(tmp_path / "new" / "courses.json"), *index]) == 0
    assert main(["ingest", str(tmp_path / "old" / "courses.json"), "--version", "2025-02", *index]) == 0
    capsys.readouterr()
    assert main(["stats", *index]) == 0
    assert "versions: 2025-02, 1.0.0 (newest)" in capsys.readouterr().out
    assert main(["diff", "courses@2025-02", "courses@1.0.0", "--json", *index]) == 0
    assert json.loads(capsys.readouterr().out)["operations"]["removed"] == ["PUT /courses"]
    before = sorted(p.name for p in (tmp_path / "index").rglob("*") if p.is_file())
    for args in (["diff", "courses@2024-01", "courses@1.0.0"], ["ask", "upsert a course?", "--api-version", "2024-01"]):
        assert main([*args, *index]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "2024-01" in err[0] and "2025-02" in err[0], err
    assert sorted(p.name for p in (tmp_path / "index").rglob("*") if p.is_file()) == before


def test_chunk_totals_count_what_questions_search_from_the_registry_alone(two_versions: Index) -> None:
    from rag.index.versions import chunk_totals

    totals = chunk_totals(two_versions.documents())
    searched = two_versions.snapshot()
    assert totals == {strategy: len(ids) for strategy, ids in searched.by_strategy.items() if ids}
    stored = sum(sum(record.chunk_counts.values()) for record in two_versions.documents())
    assert sum(totals.values()) < stored  # the older version's chunks are not searched
