"""The immutable view of live chunks: lookups by strategy and structural id, BM25 per strategy, counts."""

from __future__ import annotations

from rag.index.registry import DocumentRecord
from rag.index.snapshot import Snapshot
from rag.ingest.pipeline import parse_document
from tests.conftest import FIXTURES


def people_snapshot() -> Snapshot:
    parsed = parse_document("people.json", (FIXTURES / "specs" / "people-3.1.json").read_bytes())
    record = DocumentRecord(parsed.source, parsed.api, parsed.doc_type, parsed.content_hash, parsed.version,
                            parsed.chunk_counts())
    return Snapshot.build(7, parsed.chunks, [record])


def test_chunks_are_found_by_id_strategy_and_structural_id() -> None:
    snapshot = people_snapshot()
    assert snapshot.generation == 7 and snapshot.apis() == ["people"]
    for strategy, ids in snapshot.by_strategy.items():
        assert all(snapshot.chunks[i].strategy == strategy for i in ids)
        assert list(ids) == sorted(ids, key=lambda i: (snapshot.chunks[i].source, i))
    covered = {cover for chunk in snapshot.chunks.values() for cover in chunk.covers}
    assert set(snapshot.by_cover) == covered
    assert all(cover in snapshot.chunks[i].covers for cover, ids in snapshot.by_cover.items() for i in ids)


def test_bm25_per_strategy_searches_only_that_strategy() -> None:
    snapshot = people_snapshot()
    found = snapshot.bm25["smart"].search("employees", 5, None)
    assert found and all(snapshot.chunks[chunk_id].strategy == "smart" for chunk_id, _ in found)


def test_counts_per_api_strategy_and_kind() -> None:
    snapshot = people_snapshot()
    per_api, per_kind = snapshot.counts()
    assert per_api == {"people": {s: len(ids) for s, ids in snapshot.by_strategy.items() if ids}}
    assert sum(per_kind.values()) == len(snapshot.chunks)
    assert per_kind["smart:operation"] == sum(
        1 for c in snapshot.chunks.values() if c.strategy == "smart" and c.kind == "operation"
    )
