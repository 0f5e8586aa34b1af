"""The operation search over the operations' short texts (rag/retrieve/short_texts.py)."""

from __future__ import annotations

import numpy as np

from rag.retrieve.short_texts import OperationTexts
from tests.fakes import make_chunk


def operation(api: str, path: str):  # type: ignore[no-untyped-def]
    return make_chunk(f"{api}.paths.{path}.get", f"GET {path}", api=api, kind="operation", method="get", path=path)


def test_the_closest_operations_first_equal_ones_by_chunk_id_and_only_the_apis_asked() -> None:
    """Each operation scores the closer of its lead and its name; equal scores go by chunk id whatever the order
    the operations came in; `apis` keeps the operations of those APIs; n of them at most."""
    close, closer = np.array([0.6, 0.8], dtype=np.float32), np.array([1.0, 0.0], dtype=np.float32)
    far = np.array([0.0, 1.0], dtype=np.float32)
    ops = [operation("b", "/tied/two"), operation("a", "/tied/one"), operation("a", "/far"), operation("b", "/best")]
    texts = OperationTexts(tuple(ops), np.stack([close, close, far, far]), np.stack([far, far, far, closer]))
    query = np.array([2.0, 0.0], dtype=np.float32)  # not unit length: the search normalizes it
    found = texts.search(query, 3)
    assert [(c.path, round(score, 3)) for c, score in found] == [("/best", 1.0), ("/tied/one", 0.6), ("/tied/two", 0.6)]
    assert [c.path for c, _ in texts.search(query, 10, ("a",))] == ["/tied/one", "/far"]
    assert [c.path for c, _ in texts.search(query, 1, ("b", "c"))] == ["/best"]
    assert texts.search(query, 0) == [] and texts.search(query, 5, ("c",)) == []
