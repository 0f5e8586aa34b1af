"""Dry runs: the pipeline over a hashing-embedded copy of the index, placeholder answers, no model, no network."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.config import PRESETS, resolve_configs
from rag.evaluate.dry_run import (
    DRY_RUN_ANSWER,
    DryRunEngine,
    dry_run_engine,
    mark_dry_run,
    temporary_dry_run_engine,
)
from rag.evaluate.judge import Judge
from rag.evaluate.runner import run_evaluation
from rag.results import AnswerResult
from rag.runner import Engine
from tests.evaluate.conftest import lines_of
from tests.fakes import FakeChatModel


class ExplodingFactory:
    """A chat-model factory that fails the test if anything asks for a model."""

    def __call__(self, spec: str) -> Any:
        raise AssertionError(f"a model was requested in a dry run: {spec}")


def test_dry_run_calls_no_model_and_no_network(fixture_index, questions, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    # The autouse block_network fixture fails any non-loopback connection; the factories fail any model use.
    engine = Engine(fixture_index, default_llm="openai:gpt-4o-mini", chat_model_factory=ExplodingFactory(),
                    generator_factory=ExplodingFactory())
    many = [replace(questions[n % len(questions)], id=f"dry-{n:03d}") for n in range(150)]
    configs = resolve_configs("C4,E3,full")
    started = time.perf_counter()
    result = run_evaluation(engine, many, configs, tmp_path / "dry", dry_run=True,
                            judge=Judge("openai:gpt-4o", chat_model=FakeChatModel([])))
    assert time.perf_counter() - started < 60
    for config in configs:
        records = lines_of(tmp_path / "dry" / f"{config.name}.jsonl")
        assert len(records) == 150
        assert all(r["error"] is None and r["dry_run"] and r["model"] == "dry-run" for r in records)
        assert all(r["llm_answer"].startswith("[dry run]") and not r["answered"] for r in records)
        assert all("judge_score" not in r for r in records)
    e3 = lines_of(tmp_path / "dry" / "E3.jsonl")[0]
    assert any("dry run: the cross-encoder reranker is not called" in note for note in e3["notes"])
    manifest = result.metrics["manifest"]
    assert manifest["dry_run"] is True and manifest["dry_run_embedding_model"] == "hashing-384"
    assert manifest["models"] == {"C4": "dry-run", "E3": "dry-run", "full": "dry-run"}
    assert "dry run: the judge is not called" in result.warnings


def test_the_dry_run_index_holds_the_same_chunks(fixture_index, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    engine = dry_run_engine(fixture_index, tmp_path / "copy")
    assert isinstance(engine, DryRunEngine) and engine.llm_spec(PRESETS["full"]) == "extractive"
    original = fixture_index.snapshot()
    copy = engine.index.snapshot()
    assert sorted(c.covers for c in copy.chunks.values()) == sorted(c.covers for c in original.chunks.values())
    assert [d.source for d in copy.documents] == [d.source for d in original.documents]


def test_the_temporary_dry_run_engine_removes_its_folder(fixture_index) -> None:  # type: ignore[no-untyped-def]
    with temporary_dry_run_engine(fixture_index) as engine:
        folder = Path(engine.index.directory)
        assert folder.is_dir() and folder.name.startswith("specrag-dry-run-")
    assert not folder.exists()


def test_mark_dry_run_gives_placeholder_answers_but_keeps_errors() -> None:
    answered = AnswerResult(config="full", question="q", answer="real", generator="extractive")
    mark_dry_run(answered, retrieval_only=False)
    assert answered.answer == DRY_RUN_ANSWER and answered.generator == "dry-run"
    retrieved = AnswerResult(config="full", question="q", answer="real")
    mark_dry_run(retrieved, retrieval_only=True)
    assert retrieved.answer == "" and retrieved.generator == "dry-run"
    failed = AnswerResult(config="full", question="q", answer="partial", errors=["boom"])
    mark_dry_run(failed, retrieval_only=False)
    assert failed.answer == "partial" and failed.generator == ""


def test_the_dry_run_index_holds_the_chunks_set_aside_at_ingest_too(empty_index, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from rag.index.build import ingest_paths
    from tests.conftest import FIXTURES

    ingest_paths(empty_index, [FIXTURES / "specs" / "people-3.1.json"], defer=("naive",))
    copy = dry_run_engine(empty_index, tmp_path / "copy").index.snapshot()
    assert len(copy.by_strategy["naive"]) == empty_index.documents()[0].chunk_counts["naive"] > 0
