"""The vector store's reads: a read that meets a write half applied is tried again."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from chromadb.errors import InternalError

from rag.index import collections
from rag.index.collections import READ_ATTEMPTS, read_retrying, read_vectors
from tests.fakes import make_chunk


class HalfWrittenCollection:
    """A collection whose first `failures` reads fail as Chroma's do while a delete is half applied."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.reads = 0

    def get(self, ids: list[str], include: list[str]) -> dict[str, Any]:
        self.reads += 1
        if self.reads <= self.failures:
            raise InternalError("Error executing plan: Internal error: Error finding id")
        return {"ids": ids, "embeddings": [[3.0, 4.0] for _ in ids]}


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collections, "READ_RETRY_WAIT_S", 0.0)


def test_a_read_meeting_a_half_applied_write_is_tried_again() -> None:
    collection = HalfWrittenCollection(failures=READ_ATTEMPTS - 1)
    chunks = {"a": make_chunk("hris.components.A", "a"), "b": make_chunk("hris.components.B", "b")}
    ids, matrix, apis = read_vectors(collection, ["a", "b"], chunks)
    assert ids == ("a", "b")
    assert np.allclose(matrix, [[0.6, 0.8], [0.6, 0.8]])
    assert list(apis) == ["hris", "hris"]
    assert collection.reads == READ_ATTEMPTS


def test_a_read_that_keeps_failing_raises_chromas_error() -> None:
    collection = HalfWrittenCollection(failures=READ_ATTEMPTS)
    with pytest.raises(InternalError, match="Error finding id"):
        read_vectors(collection, ["a"], {"a": make_chunk("hris.components.A", "a")})
    assert collection.reads == READ_ATTEMPTS


def test_other_errors_are_not_tried_again() -> None:
    calls: list[int] = []

    def read() -> None:
        calls.append(1)
        raise ValueError("bad where clause")

    with pytest.raises(ValueError, match="bad where clause"):
        read_retrying(read)
    assert len(calls) == 1
