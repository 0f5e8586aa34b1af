"""The BM25 index ranks exact identifiers first (the tokenizer is tested in tests/corpus)."""

import numpy as np

from rag.corpus.vocabulary import tokenize
from rag.index.bm25 import BM25Index


def test_search_ranks_the_document_with_the_identifier_first() -> None:
    index = BM25Index(
        ["a", "b", "c"],
        ["the page size parameter", "expires_in: how long the session is valid", "list of employees"],
    )
    results = index.search("what is expires_in", 3)
    assert results[0][0] == "b"
    assert all(score > 0 for _, score in results)


def test_search_respects_allowed_ids_and_empty_queries() -> None:
    texts = ["employees list", "employees get", "orders", "payments", "x", "y"]
    index = BM25Index(["a", "b", "c", "d", "e", "f"], texts)
    assert [i for i, _ in index.search("employees", 5, allowed=np.array([i == "b" for i in index.ids]))] == ["b"]
    assert index.search("the a of", 5) == []
    assert BM25Index([], []).search("anything", 5) == []


def test_scores_over_postings_equal_rank_bm25s_own() -> None:
    texts = [
        "List employees with pagination: page_size, next cursor",
        "Get one employee by id; employee fields include name and manager",
        "Create a time off request for an employee",
        "Employees employees employees: a long text about employees and their employments and more words here",
        "Nothing related at all",
    ]
    index = BM25Index([f"c{i}" for i in range(len(texts))], texts)
    for query in ("employee time off", "employees employees page_size", "unknown words only", "id"):
        terms = tokenize(query)
        assert np.array_equal(index.scores(terms), index._bm25.get_scores(terms)), query  # type: ignore[union-attr]
    assert BM25Index([], []).scores(["employee"]).size == 0


def test_a_scoped_search_takes_the_best_allowed_and_reuses_the_querys_scores() -> None:
    texts = [f"employee record number {n}" + " employee" * (n % 4) for n in range(40)]
    index = BM25Index([f"c{n}" for n in range(40)], texts)
    scores = index.query_scores("employee record")
    allowed = np.array([n % 3 == 0 for n in range(40)])
    found = index.search("employee record", 5, allowed, scores)
    best_allowed = sorted((n for n in range(40) if n % 3 == 0), key=lambda n: -scores[n])[:5]
    assert [score for _, score in found] == [float(scores[n]) for n in best_allowed]
    assert all(int(chunk_id[1:]) % 3 == 0 for chunk_id, _ in found)
    assert found == index.search("employee record", 5, allowed)  # the same without the scores handed in
    assert index.query_scores("the of").size == 0 and index.search("the of", 5) == []
