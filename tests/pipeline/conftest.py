"""The index the stage tests share: the small fixture specs with the hashing embedder, built once (stages
only read it)."""

from __future__ import annotations

import pytest

from rag.index.store import Index
from tests.conftest import FIXTURES


@pytest.fixture(scope="session")
def people_shop_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    """The people (HRIS: employees, no DELETE) and shop (orders, categories) specs, hashing-embedded."""
    from rag.index.build import ingest_paths
    from rag.index.embedder import HashingEmbedder

    index = Index(tmp_path_factory.mktemp("stages") / "index", HashingEmbedder())
    reports = ingest_paths(index, [FIXTURES / "specs" / "people-3.1.json", FIXTURES / "specs" / "shop-3.0.yaml"])
    assert all(r.status == "added" for r in reports), reports
    return index
