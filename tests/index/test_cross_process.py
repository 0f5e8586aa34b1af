"""A running reader (the app) sees what another process (the CLI) ingested, without a restart."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.ingest.pipeline import parse_path
from tests.conftest import FIXTURES, ROOT

SCRIPT = (
    "import sys; from rag.index.store import Index; from rag.index.embedder import HashingEmbedder; "
    "from rag.ingest.pipeline import parse_path; Index(sys.argv[1], HashingEmbedder()).add(parse_path(sys.argv[2]))"
)


def test_reader_sees_vectors_written_by_another_process(tmp_path: Path) -> None:
    index = Index(tmp_path / "idx", HashingEmbedder())
    index.add(parse_path(FIXTURES / "specs" / "people-3.1.json"))
    vector = index.embedder.embed(["list orders"])[0]
    before = len(index.vector_search("smart", vector, 100))
    subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "idx"), str(FIXTURES / "specs" / "shop-3.0.yaml")],
        cwd=ROOT,
        check=True,
        timeout=120,
    )
    hits = index.vector_search("smart", vector, 100)
    assert len(hits) == len(index.snapshot().by_strategy["smart"]) > before
    assert any(index.get_chunk(i).source == "shop-3.0.yaml" for i, _ in hits)  # type: ignore[union-attr]
