"""The scale benchmarks run end to end on small inputs (hashing embedder, fixture specs)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.scale import bench_all_specs, bench_throughput, spec_groups
from rag.index.build import ingest_paths, open_index
from rag.settings import Settings
from tests.conftest import FIXTURES

pytestmark = pytest.mark.timeout(120)
PEOPLE = FIXTURES / "specs" / "people-3.1.json"
SHOP = FIXTURES / "specs" / "shop-3.0.yaml"


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    """A shared-folder look-alike: two StackOne versions with the same file name, and a vendor folder."""
    root = tmp_path / "specs"
    for folder in ("stackone", "stackone-2025-02", "external"):
        (root / folder).mkdir(parents=True)
    shutil.copy(PEOPLE, root / "stackone" / "hris.json")
    shutil.copy(PEOPLE, root / "stackone-2025-02" / "hris.json")
    shutil.copy(SHOP, root / "external" / "shop.yaml")
    (root / "external" / "shop-LICENSE.txt").write_text("license text")
    return root


def test_spec_groups_give_the_older_stackone_version_its_own_names(specs: Path) -> None:
    groups = spec_groups(specs)
    assert {group: [name for _, name in files] for group, files in groups.items()} == {
        "external": ["shop.yaml"],
        "stackone": ["hris.json"],
        "stackone-2025-02": ["hris-2025-02.json"],
    }


def test_bench_all_specs_indexes_every_group_together(specs: Path) -> None:
    report = bench_all_specs(specs, embedding_model="hashing")
    assert report["documents"] == 3 and report["specs"] == 3
    assert set(report["groups"]) == {"external", "stackone", "stackone-2025-02"}
    assert report["groups"]["stackone"]["chunks"] == report["groups"]["stackone-2025-02"]["chunks"] > 0
    assert report["index_mb"] > 0 and report["ingest_s"] > 0
    assert report["snapshot_chunks"] == sum(report["chunks"].values())


def test_bench_throughput_reports_each_thread_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index_dir = tmp_path / "index"
    index = open_index(Settings(index_dir=index_dir, embedding_model="hashing"))
    assert {r.status for r in ingest_paths(index, [PEOPLE, SHOP])} == {"added"}
    monkeypatch.setenv("RAG_INDEX_DIR", str(index_dir))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "hashing")
    monkeypatch.delenv("RAG_CHROMA_URL", raising=False)
    report = bench_throughput(threads=(1, 2), questions=6)
    assert set(report["threads"]) == {"1", "2"}
    for row in report["threads"].values():
        assert row["errors"] == 0 and row["questions_per_s"] > 0 and row["p95_ms"] >= row["p50_ms"] > 0
