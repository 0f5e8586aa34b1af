"""A run's report: metrics.json from the result files, and the text table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.errors import EvaluationError
from rag.evaluate.metrics import summarize
from rag.evaluate.questions import Question
from rag.evaluate.report import (
    METRICS_FILE,
    compute_metrics,
    format_api_table,
    format_metrics_table,
    load_metrics,
)
from tests.conftest import FIXTURES

TINY_RUN = FIXTURES / "eval_run" / "tiny-run"


def test_compute_metrics_reads_each_config_in_question_order(tmp_path: Path) -> None:
    records = [json.loads(line) for line in (TINY_RUN / "C0.jsonl").read_text(encoding="utf-8").splitlines()]
    stray = {**records[0], "query_id": "not-in-the-set"}
    lines = [*reversed(records), stray]
    (tmp_path / "C0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    questions = [Question(str(r["query_id"]), str(r["query"])) for r in records]
    metrics = compute_metrics(tmp_path, [PRESETS["C0"], PRESETS["full"]], questions, 5, manifest={"k": 5})
    assert metrics["manifest"] == {"k": 5}
    assert metrics["configs"]["C0"] == summarize(records, 5)
    assert metrics["configs"]["full"] == summarize([], 5)  # no result file: no records


def test_load_metrics_round_trip_and_errors(tmp_path: Path) -> None:
    (tmp_path / METRICS_FILE).write_text(json.dumps({"configs": {}, "manifest": {"k": 3}}), encoding="utf-8")
    assert load_metrics(tmp_path) == {"configs": {}, "manifest": {"k": 3}}
    (tmp_path / METRICS_FILE).write_text("{", encoding="utf-8")
    with pytest.raises(EvaluationError, match="cannot read"):
        load_metrics(tmp_path)
    with pytest.raises(EvaluationError, match="cannot read"):
        load_metrics(tmp_path / "missing")


def test_format_metrics_table() -> None:
    metrics = load_metrics(TINY_RUN)
    metrics["configs"]["C0"]["failures"] = {"retrieval_miss": 1, "ranked_low": 2}
    lines = format_metrics_table(metrics).splitlines()
    assert lines[0].split() == ["config", "n", "hit@1", "hit@5", "MRR", "recall@5", "nDCG@5", "abst.acc",
                                "false.abst", "kw.recall", "judge", "ECE", "right@.9", "p50", "ms", "p95", "ms",
                                "failures"]
    assert lines[1].split()[:4] == ["C0", "4", "-", "0.667"] and lines[1].endswith("  retrieval_miss=1, ranked_low=2")
    assert lines[2].startswith("full  ") and lines[2].endswith("  -")
    end = lines[0].index("MRR") + len("MRR")  # numbers are right-aligned under their titles
    assert all(line[end - 1] != " " and line[end] == " " for line in lines)
    assert format_metrics_table(metrics, k=3).splitlines()[0].split()[3] == "hit@3"
    latency = format_metrics_table({"configs": {"x": {"latency_ms_p50": 12.345, "n": 1}}}).splitlines()[1]
    assert "12.3" in latency and latency.split()[2] == "-"


def test_format_api_table_lists_each_configs_figures_per_api_and_nothing_for_one_api() -> None:
    figures = {"n": 23, "hit@1": 0.174, "hit@5": 0.478, "mrr": 0.289, "follow_up_hit@5": None,
               "another_api_first": 0.565}
    metrics = {"manifest": {"k": 5}, "configs": {
        "C2": {"by_api": {}},
        "full": {"by_api": {"lucidtech": figures, "zoom": {**figures, "n": 33, "another_api_first": 0.0}}},
    }}
    lines = format_api_table(metrics).splitlines()
    assert lines[0].split() == ["config", "API", "n", "hit@1", "hit@5", "MRR", "follow-up", "hit@5", "another",
                                "API", "first"]
    assert lines[1].split() == ["full", "lucidtech", "23", "0.174", "0.478", "0.289", "-", "0.565"]
    assert lines[2].split()[:3] == ["full", "zoom", "33"] and lines[2].endswith("0.000")
    assert format_api_table({"configs": {"C2": {"by_api": {}}, "C0": {}}}) == ""
