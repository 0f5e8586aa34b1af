"""The kept specs and registry of an index read without opening it: nothing written, older registries read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rag.errors import IndexUnavailableError
from rag.index.kept_specs import REGISTRY_FILE, KeptSpecs
from rag.index.registry import DocumentRecord, Registry


def test_no_index_is_an_error_and_nothing_is_created(tmp_path: Path) -> None:
    with pytest.raises(IndexUnavailableError, match="no index in"):
        KeptSpecs(tmp_path / "missing")
    assert not (tmp_path / "missing").exists()


def test_a_registry_without_the_newer_columns_is_read_and_left_unchanged(tmp_path: Path) -> None:
    Registry(tmp_path / REGISTRY_FILE).put(DocumentRecord("lms.json", "lms", "openapi", "h", "v1", api_version="1.0.0",
                                                          spec_version="1.0.0"))
    with sqlite3.connect(tmp_path / REGISTRY_FILE) as connection:
        connection.execute("ALTER TABLE documents DROP COLUMN spec_version")  # as written before it existed
    before = sorted(p.name for p in tmp_path.iterdir())
    kept = KeptSpecs(tmp_path)
    [record] = kept.documents()
    assert (record.api_version, record.spec_version) == ("1.0.0", "")
    assert kept.spec_of(record) is None  # indexed before specs were kept
    assert sorted(p.name for p in tmp_path.iterdir()) == before
