"""A multi-API question keeps every API it asks about in the top k after reranking."""

from __future__ import annotations

from rag.retrieve.ordering import balance_by_api
from tests.fakes import make_chunk, retrieved


def test_the_top_k_is_shared_among_the_apis_after_reranking() -> None:
    ats = [make_chunk(f"ats.paths./c{i}.get", f"ats {i}", api="ats", kind="operation") for i in range(4)]
    hris = [make_chunk(f"hris.paths./e{i}.get", f"hris {i}", api="hris", kind="operation") for i in range(2)]
    pool = retrieved(*ats, *hris)
    balanced = balance_by_api(pool, ("hris", "ats"), 4)
    assert [c.chunk.api for c in balanced[:4]] == ["ats", "hris", "ats", "hris"]
    assert [c.chunk for c in balanced[:4]] == [ats[0], hris[0], ats[1], hris[1]]
    assert len(balanced) == len(pool) and {id(c) for c in balanced} == {id(c) for c in pool}


def test_an_api_without_candidates_gives_its_share_to_the_others() -> None:
    ats = [make_chunk(f"ats.paths./c{i}.get", f"ats {i}", api="ats", kind="operation") for i in range(3)]
    pool = retrieved(*ats)
    assert [c.chunk for c in balance_by_api(pool, ("ats", "lms"), 3)] == ats
