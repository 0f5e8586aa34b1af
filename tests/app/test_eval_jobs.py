"""Evaluations and test sets started from the app (`webapp.eval_jobs`)."""

from __future__ import annotations

import pytest

from rag.config import PRESETS
from rag.errors import ConfigError, RagError
from rag.evaluate.saved_runs import load_run
from webapp import charts, eval_frames
from webapp.eval_jobs import default_run_name, make_test_set_now, run_evaluation_now, safe_name
from webapp.jobs import Job


def test_run_names_are_safe_file_names() -> None:
    assert safe_name("from the page/../x") == "from-the-page-..-x"
    assert safe_name("../") == "run"
    assert default_run_name("spec-shop 3").startswith("spec-shop-3-")


def test_run_evaluation_now_saves_a_run_the_app_can_load(fixture_index, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from rag.runner import Engine

    engine = Engine(fixture_index, default_llm="extractive")
    job = Job("j", "demo")
    path = make_test_set_now(job, engine, "people-3_1", limit=6, out_dir=tmp_path / "generated")
    assert path == tmp_path / "generated" / "people-3_1.jsonl"
    run_dir = run_evaluation_now(job, engine, path, [PRESETS["C0"], PRESETS["full"]], True, tmp_path / "runs", "t1")
    assert run_dir == tmp_path / "runs" / "t1"
    assert job.done == job.total == 6
    loaded = load_run(run_dir)
    assert loaded.configs == ["C0", "full"] and not loaded.computed and not loaded.warnings
    assert len(eval_frames.questions_frame([loaded])) == 12
    assert charts.metric_bars(eval_frames.metrics_frame([loaded])).data
    with pytest.raises(RagError, match="already holds results"):
        run_evaluation_now(job, engine, path, [PRESETS["C0"]], True, tmp_path / "runs", "t1")
    with pytest.raises(ConfigError, match="not indexed"):
        make_test_set_now(job, engine, "nope", out_dir=tmp_path / "generated")
