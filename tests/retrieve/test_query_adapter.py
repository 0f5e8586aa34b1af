"""The query adapter (rag/retrieve/query_adapter.py): stored and read back, applied only for the embedder it was
learned for, and only to chunk searches that ask for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from rag.index.store import Index
from rag.retrieve.context import POOL_SIZE, QueryContext
from rag.retrieve.query_adapter import (
    ADAPTER_FILE,
    AdapterUnreadable,
    adapted,
    adapter_for,
    load_adapter,
    save_adapter,
    set_adapter_override,
)


@pytest.fixture
def override() -> Iterator[None]:
    """Leaves no override behind."""
    yield
    set_adapter_override(None, active=False)


def test_an_adapter_is_written_as_float16_and_read_back_with_its_model(tmp_path: Path) -> None:
    matrix = np.eye(4, dtype=np.float32) + 0.1
    path = tmp_path / "adapter.npy"
    save_adapter(matrix, "some-model", path)
    model, read = load_adapter(path)
    assert model == "some-model"
    assert read.dtype == np.float32 and read.shape == (4, 4)
    assert np.allclose(read, matrix, atol=1e-3)
    assert np.load(path).dtype == np.float16
    first = path.read_bytes()
    save_adapter(matrix, "some-model", path)
    assert path.read_bytes() == first  # rebuilt byte for byte


def test_a_missing_or_malformed_adapter_names_the_file_and_how_to_rebuild_it(tmp_path: Path) -> None:
    with pytest.raises(AdapterUnreadable, match=r"cannot be read .*make ranker"):
        load_adapter(tmp_path / "missing.npy")
    path = tmp_path / "flat.npy"
    save_adapter(np.ones((2, 3), dtype=np.float32), "m", path)
    with pytest.raises(AdapterUnreadable, match=r"\(2, 3\), not a square matrix"):
        load_adapter(path)


def test_the_shipped_adapter_serves_only_the_embedder_it_was_learned_for(override: None) -> None:
    model, matrix = load_adapter(ADAPTER_FILE)
    assert matrix.shape == (384, 384)
    assert np.array_equal(adapter_for(model, 384), matrix)  # type: ignore[arg-type]
    assert adapter_for("hashing-384", 384) is None
    assert adapter_for(model, 768) is None
    replacement = np.eye(384, dtype=np.float32)
    set_adapter_override(replacement)
    assert np.array_equal(adapter_for("hashing-384", 384), replacement)  # type: ignore[arg-type]
    set_adapter_override(None)
    assert adapter_for(model, 384) is None
    set_adapter_override(None, active=False)
    assert np.array_equal(adapter_for(model, 384), matrix)  # type: ignore[arg-type]


def test_an_adapted_vector_is_unit_length_and_no_matrix_leaves_it_as_it_is() -> None:
    vector = np.array([3.0, 4.0, 0.0], dtype=np.float32) / 5
    assert adapted(vector, None) is vector
    moved = adapted(vector, np.diag([2.0, 1.0, 1.0]).astype(np.float32))
    assert np.isclose(np.linalg.norm(moved), 1.0)
    assert moved[0] > vector[0]


def test_only_a_search_that_asks_for_it_is_adapted_and_the_gates_similarity_is_the_questions_own(
    fixture_index: Index, override: None
) -> None:
    question = "How do I list the orders of a person?"
    plain = QueryContext(fixture_index, question)
    assert plain.adapter is None  # the hashing embedder has no adapter of its own
    assert plain.vector_pool("smart", (), None, adapt=True) == plain.vector_pool("smart")
    rotation = np.roll(np.eye(384, dtype=np.float32), 7, axis=1)
    set_adapter_override(rotation)
    ctx = QueryContext(fixture_index, question)
    moved = ctx.search_vector(adapt=True)
    assert np.allclose(moved, np.roll(ctx.query_vector(), 7), atol=1e-6)
    assert np.array_equal(ctx.search_vector(), ctx.query_vector())
    assert ctx.vector_pool("smart", (), None, adapt=True) == fixture_index.vector_search(
        "smart", moved, POOL_SIZE, snapshot=ctx.snapshot)
    assert ctx.vector_pool("smart", (), None, adapt=True) != ctx.vector_pool("smart")
    assert ctx.best_similarity("smart") == ctx.vector_pool("smart")[0][1]
