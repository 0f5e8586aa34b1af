"""Start-up of the MCP server: the warm-up, and stdout kept for protocol messages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.mcp_startup import stdout_to_stderr, warm_up
from rag.runner import Engine


def test_warm_up_loads_everything_or_says_why(fixture_index: Index, tmp_path: Path) -> None:
    assert warm_up(Engine(fixture_index, default_llm="extractive")) == []
    empty = Index(tmp_path / "empty", HashingEmbedder())
    assert warm_up(Engine(empty, default_llm="extractive")) == [
        "the index is empty; index some specs first: `python -m rag ingest PATH...` (or `make index`), "
        "or point RAG_INDEX_DIR / --index-dir at a built index"
    ]


def test_start_up_output_goes_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    with stdout_to_stderr():
        print("from python")
        os.write(1, b"from C\n")
    print("after")
    out, err = capfd.readouterr()
    assert out == "after\n"
    assert "from python" in err and "from C" in err
