"""Start-up of the MCP server: the warm-up, and stdout kept for protocol messages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.mcp_startup import prepare_in_background, stdout_to_stderr, warm_up
from rag.runner import Engine


def test_warm_up_loads_everything_or_says_why(fixture_index: Index, tmp_path: Path) -> None:
    assert warm_up(Engine(fixture_index, default_llm="extractive")) == []
    empty = Index(tmp_path / "empty", HashingEmbedder())
    assert warm_up(Engine(empty, default_llm="extractive")) == [
        "the index is empty; index some specs first: `python -m rag ingest PATH...` (or `make index`), "
        "or point RAG_INDEX_DIR / --index-dir at a built index"
    ]


def test_the_rankers_inputs_are_prepared_while_the_server_answers_and_a_failure_only_warns(
    fixture_index: Index, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The servers (MCP, REST) start answering at once; every searched chunk's ranking inputs follow in a thread."""
    from rag.pipeline.learned_rank import ranking_inputs

    engine = Engine(fixture_index, default_llm="extractive")
    prepare_in_background(engine).join(timeout=60)
    snapshot = fixture_index.snapshot()
    inputs = ranking_inputs(fixture_index, snapshot)
    assert set(inputs._words) == set(snapshot.by_strategy["smart"]) | set(snapshot.by_strategy.get("docs", ()))

    def fails(configs: object) -> int:
        raise OSError("disk full")

    monkeypatch.setattr(engine, "prepare", fails)
    prepare_in_background(engine).join(timeout=60)
    assert "warning: preparing the ranker's inputs failed: disk full" in capfd.readouterr().err


def test_start_up_output_goes_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    with stdout_to_stderr():
        print("from python")
        os.write(1, b"from C\n")
    print("after")
    out, err = capfd.readouterr()
    assert out == "after\n"
    assert "from python" in err and "from C" in err
