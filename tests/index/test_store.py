"""The index: duplicate policies, atomic replace, orphan cleanup, lookups and filters."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rag.errors import ConfigError, DuplicateDocumentError, IndexUnavailableError
from rag.index.build import ingest_paths
from rag.index.deferred import searchable_versions
from rag.index.embedder import HashingEmbedder
from rag.index.exact import order_key
from rag.index.store import Index
from rag.ingest.pipeline import parse_document
from tests.conftest import FIXTURES

PEOPLE = FIXTURES / "specs" / "people-3.1.json"


def people_variant(summary: str) -> bytes:
    """The people fixture with a different summary for the list operation (a 'changed' spec)."""
    document = json.loads(PEOPLE.read_text())
    document["paths"]["/unified/hris/employees"]["get"]["summary"] = summary
    return json.dumps(document).encode()


def test_fixture_specs_are_indexed_with_every_strategy(fixture_index: Index) -> None:
    stats = fixture_index.stats()
    assert stats["documents"] == 2
    assert stats["chunks"]["smart"] > 0 and stats["chunks"]["naive"] > 0
    assert set(stats["per_api"]) == {"people-3_1", "shop-3_0"} or len(stats["per_api"]) == 2


def test_lookup_by_structural_id_and_chunk_id(fixture_index: Index) -> None:
    api = next(r.api for r in fixture_index.documents() if r.source == "people-3.1.json")
    chunks = fixture_index.chunks_covering(f"{api}.paths./unified/hris/employees.get")
    assert len(chunks) == 1
    chunk = chunks[0]
    assert chunk.json_pointer == "/paths/~1unified~1hris~1employees/get"
    assert fixture_index.get_chunk(chunk.chunk_id) == chunk
    assert fixture_index.chunks_covering(f"{api}.paths./unified/hris/employees.get", strategy="naive")


def test_identical_content_is_skipped_and_changed_content_replaced(empty_index: Index) -> None:
    first = empty_index.add(parse_document("people.json", PEOPLE.read_bytes()))
    assert first.status == "added"
    again = empty_index.add(parse_document("people.json", PEOPLE.read_bytes()))
    assert again.status == "skipped" and "identical" in again.message
    changed = empty_index.add(parse_document("people.json", people_variant("Enumerate all staff members")))
    assert changed.status == "replaced"
    texts = [c.text for c in empty_index.snapshot().chunks.values()]
    assert any("Enumerate all staff members" in t for t in texts)
    assert not any("Summary: List Employees" in t for t in texts)
    assert len(empty_index.documents()) == 1


def test_reject_and_skip_policies(empty_index: Index) -> None:
    empty_index.add(parse_document("people.json", PEOPLE.read_bytes()))
    with pytest.raises(DuplicateDocumentError, match="already indexed"):
        empty_index.add(parse_document("people.json", people_variant("x")), on_duplicate="reject")
    skipped = empty_index.add(parse_document("people.json", people_variant("x")), on_duplicate="skip")
    assert skipped.status == "skipped"
    with pytest.raises(ValueError, match="allowed"):
        empty_index.add(parse_document("people.json", PEOPLE.read_bytes()), on_duplicate="merge")  # type: ignore[arg-type]


def test_two_files_with_the_same_api_name_are_refused(empty_index: Index, tmp_path: Path) -> None:
    empty_index.add(parse_document("people.json", PEOPLE.read_bytes()))
    with pytest.raises(DuplicateDocumentError, match="rename"):
        empty_index.add(parse_document("people.yaml", people_variant("other")))


def test_a_crash_before_the_switch_leaves_the_old_version_live(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    index = Index(tmp_path / "idx", embedder)
    index.add(parse_document("people.json", PEOPLE.read_bytes()))
    before = {c.chunk_id for c in index.snapshot().chunks.values()}
    new = parse_document("people.json", people_variant("Half written"))
    # Simulate a process dying after writing the new chunks but before the registry switch.
    index._write_chunks([c.with_version(new.version) for c in new.chunks], None)
    assert {c.chunk_id for c in index.snapshot().chunks.values()} == before
    results = index.bm25_search("smart", "Half written", 5)
    assert results == [] or all(chunk_id in before for chunk_id, _ in results)
    reopened = Index(tmp_path / "idx", embedder)
    assert reopened.collect_orphans() == 0  # the reopen already removed them
    stored = sum(len(c.get(include=[])["ids"]) for c in reopened._collections.values())
    assert stored == len(before)
    assert reopened.add(new).status == "replaced"


def test_delete_removes_every_chunk(fixture_index: Index) -> None:
    source = fixture_index.documents()[0].source
    assert fixture_index.delete(source)
    assert all(c.source != source for c in fixture_index.snapshot().chunks.values())
    assert not fixture_index.delete(source)


def test_vector_and_bm25_search_filter_by_api(fixture_index: Index) -> None:
    apis = [r.api for r in fixture_index.documents()]
    vector = fixture_index.embedder.embed(["list employees"])[0]
    for api in apis:
        hits = fixture_index.vector_search("smart", vector, 10, apis=[api])
        assert hits and all(fixture_index.get_chunk(i).api == api for i, _ in hits)  # type: ignore[union-attr]
        lexical = fixture_index.bm25_search("smart", "employees orders", 10, apis=[api])
        assert all(fixture_index.get_chunk(i).api == api for i, _ in lexical)  # type: ignore[union-attr]


def test_vector_search_is_exact_and_orders_ties_by_chunk_id(fixture_index: Index) -> None:
    vector = fixture_index.embedder.embed(["list employees"])[0]
    snapshot = fixture_index.snapshot()
    ids = snapshot.by_strategy["smart"]
    stored = fixture_index._collections["smart"].get(ids=list(ids), include=["embeddings"])
    matrix = np.asarray(stored["embeddings"], dtype=np.float64)
    cosine = matrix @ vector / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(vector))
    expected = sorted(zip(stored["ids"], cosine, strict=True), key=lambda pair: -pair[1])[:6]
    hits = fixture_index.vector_search("smart", vector, 6)
    assert [round(score, 5) for _, score in hits] == [round(float(score), 5) for _, score in expected]
    cutoff = expected[-1][1]
    clearly_above = {chunk_id for chunk_id, score in expected if score > cutoff + 1e-5}
    assert clearly_above <= {chunk_id for chunk_id, _ in hits}
    tied = [chunk_id for chunk_id, score in hits if abs(score - hits[0][1]) < 1e-6]
    assert tied == sorted(tied)
    assert fixture_index.vector_search("smart", vector, 6) == hits
    every = fixture_index.vector_search("smart", vector, len(ids) + 5)
    assert len(every) == len(ids)


def test_the_similarities_of_several_chunks_are_each_ones_similarity(fixture_index: Index) -> None:
    """One call for a candidate list gives what a call per chunk gives, bit for bit; a chunk not in the
    strategy's collection scores 0, as does a zero query."""
    snapshot = fixture_index.snapshot()
    ids = list(snapshot.by_strategy["smart"])[:6]
    query = np.asarray(fixture_index.embedder.embed(["list employees"])[0], dtype=np.float32)
    each = [fixture_index.similarity("smart", chunk_id, query, snapshot) for chunk_id in ids]
    assert fixture_index.similarities("smart", [*ids, "no-such-chunk"], query, snapshot) == [*each, 0.0]
    assert any(value != 0.0 for value in each)
    assert fixture_index.similarities("smart", ids, 0 * query, snapshot) == [0.0] * len(ids)


def test_vector_search_ties_are_cut_by_chunk_id(fixture_index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ties go by the chunk id without its document version (`order_key`): a chunker version, which changes every
    id's prefix, reorders none."""
    snapshot = fixture_index.snapshot()
    ids, matrix, apis = fixture_index.stored_vectors("smart", snapshot)
    flat = np.ones_like(matrix) / np.sqrt(matrix.shape[1])
    monkeypatch.setattr(fixture_index, "stored_vectors", lambda strategy, snap: (ids, flat, apis))
    hits = fixture_index.vector_search("smart", flat[0], 3)
    assert [chunk_id for chunk_id, _ in hits] == sorted(ids, key=order_key)[:3]


def test_asking_for_no_results_scores_nothing_and_an_unknown_strategy_is_named(
    fixture_index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    vector = fixture_index.embedder.embed(["list orders"])[0]
    monkeypatch.setattr(fixture_index, "exact_scores", lambda *_: pytest.fail("scored for no results"))
    assert fixture_index.vector_search("smart", vector, 0) == []
    with pytest.raises(ConfigError, match=r"'no-such-strategy'.*smart"):
        fixture_index.vector_search("no-such-strategy", vector, 0)


def test_large_collections_use_chromas_approximate_index(fixture_index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    import rag.index.store as store

    vector = fixture_index.embedder.embed(["list orders"])[0]
    exact = fixture_index.vector_search("smart", vector, 4)
    monkeypatch.setattr(store, "EXACT_SEARCH_LIMIT", 0)
    monkeypatch.setattr(fixture_index, "stored_vectors", lambda *_: pytest.fail("exact search used"))
    approximate = fixture_index.vector_search("smart", vector, 4)
    assert [i for i, _ in approximate] == [i for i, _ in exact]


def test_a_different_embedding_model_is_refused_with_instructions(tmp_path: Path) -> None:
    Index(tmp_path / "idx", HashingEmbedder())
    with pytest.raises(IndexUnavailableError, match="RAG_EMBEDDING_MODEL"):
        Index(tmp_path / "idx", HashingEmbedder(name="other-model"))


def test_bad_files_are_reported_and_nothing_is_added(empty_index: Index, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"openapi": "3.1.0", "paths": {')
    old = tmp_path / "old.json"
    old.write_text('{"swagger": "1.2", "paths": {}}')
    reports = ingest_paths(empty_index, [broken, old])
    assert [r.status for r in reports] == ["error", "error"]
    assert "broken.json" in reports[0].message and "line" in reports[0].message
    assert empty_index.is_empty()


def test_a_new_generation_reads_only_the_new_document_and_matches_a_fresh_read(
    fixture_index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an upload the snapshot keeps the chunks it read (a version never changes) and reads the new
    document's alone; what it holds, in order, is what a process opening the index reads."""
    from rag.index import collections

    before = fixture_index.snapshot()
    reads: list[object] = []
    real_get = type(fixture_index._collections["smart"]).get

    def counting_get(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "documents" in (kwargs.get("include") or ()):  # a read of chunks (not a delete's look-up)
            reads.append(kwargs.get("where"))
        return real_get(self, *args, **kwargs)

    monkeypatch.setattr(type(fixture_index._collections["smart"]), "get", counting_get)
    replaced = parse_document("people-3.1.json", people_variant("List all the employees"))
    fixture_index.add(replaced)
    after = fixture_index.snapshot()
    monkeypatch.undo()
    assert after.generation != before.generation
    assert reads and all(where == {"doc_version": replaced.version} for where in reads)
    fresh = collections.read_chunks(fixture_index._collections, searchable_versions(fixture_index.documents()))
    assert list(after.chunks) == [chunk.chunk_id for chunk in fresh]
    assert Index(fixture_index.directory, HashingEmbedder()).snapshot().chunks == after.chunks
