"""An existing index read without its embedding model."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.errors import IndexUnavailableError
from rag.evaluate.offline_index import open_index_without_model
from rag.settings import Settings


def test_an_index_opens_without_its_model(fixture_index) -> None:  # type: ignore[no-untyped-def]
    index = open_index_without_model(Settings(index_dir=fixture_index.directory))
    assert index.embedder.name == "hashing-384"
    assert {d.source for d in index.documents()} == {d.source for d in fixture_index.documents()}
    with pytest.raises(IndexUnavailableError, match="not loaded"):
        index.embedder.embed(["a question"])


def test_no_index_says_how_to_build_one(tmp_path: Path) -> None:
    with pytest.raises(IndexUnavailableError, match="make index"):
        open_index_without_model(Settings(index_dir=tmp_path / "nothing"))
