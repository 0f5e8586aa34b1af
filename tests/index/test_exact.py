"""Exact search: ties go by id, a scope mask keeps rows out, and arrays about rows follow the rows read."""

import numpy as np

from rag.index.exact import RowArrays, cosine_scores, sorted_places, top_rows


def test_top_rows_best_first_ties_by_id_and_scope() -> None:
    ids = ("c", "a", "b", "d")
    matrix = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], dtype=np.float32)
    places = lambda: sorted_places(ids)  # noqa: E731
    along_x = cosine_scores(matrix, np.array([1.0, 0.0]))
    assert [i for i, _ in top_rows(ids, along_x, 2, None, places)] == ["a", "c"]
    in_scope = np.array([True, False, True, True])
    found = top_rows(ids, cosine_scores(matrix, np.array([2.0, 0.0])), 3, in_scope, places)
    assert [i for i, _ in found] == ["c", "b", "d"]
    assert [round(score, 6) for _, score in found] == [1.0, 0.6, 0.0]
    assert top_rows(ids, cosine_scores(matrix, np.zeros(2)), 3, None, places) == []


def test_equal_scores_go_by_id_without_its_document_version() -> None:
    matrix = np.array([[1.0, 0.0], [1.0, 0.0]], dtype=np.float32)
    for old, new in (("000000000000", "ffffffffffff"), ("ffffffffffff", "000000000000")):
        ids = (f"{old}/smart/b.paths./x.get", f"{new}/smart/a.paths./y.get")
        found = top_rows(ids, cosine_scores(matrix, np.array([1.0, 0.0])), 2, None, lambda ids=ids: sorted_places(ids))
        assert [i for i, _ in found] == [ids[1], ids[0]]


def test_one_set_of_scores_serves_every_scope() -> None:
    ids = ("c", "a", "b", "d")
    matrix = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], dtype=np.float32)
    scores, places = cosine_scores(matrix, np.array([0.0, 3.0])), lambda: sorted_places(ids)
    before = scores.copy()
    assert [i for i, _ in top_rows(ids, scores, 4, np.array([True, True, False, False]), places)] == ["a", "c"]
    assert [i for i, _ in top_rows(ids, scores, 4, None, places)] == ["d", "b", "a", "c"]
    assert np.array_equal(scores, before)  # a scope masks a copy: the next search reads the same scores


def test_row_arrays_are_made_again_for_other_rows_under_the_same_key() -> None:
    arrays, made = RowArrays(), []

    def make(rows: tuple[str, ...]) -> np.ndarray:
        made.append(rows)
        return sorted_places(rows)

    first = ("b", "a", "c")
    assert arrays.get("key", first, lambda: make(first)).tolist() == [1, 0, 2]
    assert arrays.get("key", first, lambda: make(first)).tolist() == [1, 0, 2]
    fewer = ("b", "a")  # an older generation read again after a write removed a row
    assert arrays.get("key", fewer, lambda: make(fewer)).tolist() == [1, 0]
    assert made == [first, fewer]
