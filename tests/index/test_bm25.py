"""The BM25 tokenizer splits identifiers; the index ranks exact identifiers first."""

from rag.index.bm25 import BM25Index, tokenize


def test_tokenize_splits_snake_case_paths_and_camel_case() -> None:
    tokens = tokenize("expires_in on /unified/hris/employees createdAt")
    assert {"expires_in", "expires", "unified/hris/employees", "hris", "employees", "createdat", "created"} <= set(
        tokens
    )


def test_tokenize_keeps_acronyms_whole_and_drops_stop_words() -> None:
    tokens = tokenize("Which APIs let me list the users?")
    assert "apis" not in tokens and "the" not in tokens
    assert "list" in tokens and "users" in tokens


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
    assert [i for i, _ in index.search("employees", 5, allowed={"b"})] == ["b"]
    assert index.search("the a of", 5) == []
    assert BM25Index([], []).search("anything", 5) == []
