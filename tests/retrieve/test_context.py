"""The per-question context (rag/retrieve/context.py): one similarity and one BM25 scoring per strategy serve the
candidate pools of every API filter, each pool the same as the index's own search."""

from __future__ import annotations

from rag.index.store import Index
from rag.retrieve.context import POOL_SIZE, QueryContext


def test_pools_of_every_api_filter_share_one_scoring(fixture_index: Index) -> None:
    question = "How do I list the orders of a person?"
    ctx = QueryContext(fixture_index, question)
    apis = ctx.snapshot.apis()
    assert len(apis) >= 2
    for scope in [(), *((api,) for api in apis)]:
        assert ctx.vector_pool("smart", scope) == fixture_index.vector_search(
            "smart", ctx.query_vector(), POOL_SIZE, scope or None, snapshot=ctx.snapshot)
        assert ctx.bm25_pool("smart", scope) == fixture_index.bm25_search(
            "smart", question, POOL_SIZE, scope or None, snapshot=ctx.snapshot)
        assert {chunk_id for chunk_id, _ in ctx.vector_pool("smart", scope)} <= {
            c.chunk_id for c in ctx.snapshot.chunks.values() if not scope or c.api in scope}
    assert [key[0] for key in ctx.computed].count("cosines") == 1
    assert [key[0] for key in ctx.computed].count("bm25-scores") == 1
