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


def test_best_similarity_is_the_first_of_a_search_for_one_chunk(fixture_index: Index) -> None:
    """Before any pool is made, the best similarity is the largest exact score: the first of the index's search for
    one chunk; none for a strategy with no chunks."""
    ctx = QueryContext(fixture_index, "How do I list the orders of a person?")
    expected = fixture_index.vector_search("smart", ctx.query_vector(), 1, snapshot=ctx.snapshot)
    assert ctx.best_similarity("smart") == expected[0][1]
    assert not any(key[0] == "vector" for key in ctx.computed)
    assert ctx.best_similarity("docs") is None
