"""The evaluation page's tables (`webapp.eval_frames`): saved runs, the suite table and the blinded sets' table as
the frames its tables and charts draw."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from rag.evaluate.saved_runs import SavedRun, SuiteTable, load_run
from rag.evaluate.verdict import load_blind_table
from tests.saved_run_fixtures import BLIND_TABLE, SUITE_TABLE, TINY_RUN, copy_run
from webapp import eval_frames


@pytest.fixture
def run() -> SavedRun:
    return load_run(TINY_RUN)


def test_metrics_frame_flattens_the_reranker_lift(run: SavedRun) -> None:
    frame = eval_frames.metrics_frame([run])
    lift = frame[frame["metric"] == "reranker_lift"]
    assert list(lift["label"]) == ["full"] and lift["value"].iloc[0] == pytest.approx(1.0)
    assert "by_category" not in set(frame["metric"])
    assert "latency_by_stage" not in set(frame["metric"])


def test_summary_frame_has_one_row_per_config_with_headline_metrics(run: SavedRun) -> None:
    frame = eval_frames.summary_frame([run])
    assert list(frame["label"]) == ["C0", "full"]
    for column in ("hit@5", "MRR", "abstention accuracy", "false-abstention rate", "keyword recall", "judge score",
                   "latency p50 (ms)"):
        assert column in frame.columns
    assert frame.loc[frame["label"] == "full", "judge score"].iloc[0] == 4.5
    assert list(frame["role"]) == ["unmarked", "unmarked"] and list(frame["fallback"]) == ["", ""]


def test_questions_frame_and_filters(run: SavedRun) -> None:
    frame = eval_frames.questions_frame([run])
    assert len(frame) == 8
    c0 = frame[frame["config"] == "C0"].set_index("query_id")
    assert c0.loc["q2", "failure"] == "retrieval_miss"
    assert c0.loc["q1", "failure"] == "ok"
    assert c0.loc["q3", "relevant rank"] == 3
    assert pd.isna(c0.loc["q2", "relevant rank"])
    only = eval_frames.filter_questions(frame, configs=["full"], categories=["schema"])
    assert list(only["query_id"]) == ["q2"] and list(only["config"]) == ["full"]
    failing = eval_frames.filter_questions(frame, failures=["false_answer", "generation_miss"])
    assert sorted(failing["query_id"]) == ["q3", "q4"]
    assert len(eval_frames.filter_questions(frame)) == 8
    assert eval_frames.pick_label(only, 0).startswith("q2 · full · ")
    assert eval_frames.pick_label(only, 5) == "–"
    counts = eval_frames.failure_counts(frame)
    assert counts[(counts["label"] == "C0") & (counts["failure"] == "retrieval_miss")]["count"].tolist() == [1]


def test_two_runs_are_labelled_run_slash_config(run: SavedRun, tmp_path: Path) -> None:
    shutil.copytree(TINY_RUN, tmp_path / "other")
    runs = [run, load_run(tmp_path / "other")]
    assert list(eval_frames.summary_frame(runs)["label"]) == ["tiny-run / C0", "tiny-run / full", "other / C0",
                                                              "other / full"]
    frame = eval_frames.questions_frame(runs)
    assert len(eval_frames.filter_questions(frame, configs=["other / full"])) == 4


def test_category_frame_and_metrics(run: SavedRun) -> None:
    assert eval_frames.category_metrics([run])[:2] == ["hit@5", "mrr"]
    frame = eval_frames.category_frame([run], "hit@5")
    assert set(frame["category"]) == {"endpoint", "parameter", "schema"}  # out_of_scope has no hit@5
    assert frame[(frame["label"] == "C0") & (frame["category"] == "schema")]["value"].iloc[0] == 0.0


def test_record_summary_and_run_caption(run: SavedRun) -> None:
    text = eval_frames.record_summary({"retrieval_time_ms": 12.4, "total_time_ms": 500, "tokens_in": 1200,
                                       "model": "x", "dry_run": True})
    assert text.startswith("retrieval 12 ms · generation 0 ms · total 500 ms · tokens in 1,200")
    assert text.endswith("model x · dry run")
    assert eval_frames.run_caption(run) == "tiny-run · unmarked"


def test_fallback_configs_are_marked_in_every_label(tmp_path: Path) -> None:
    reason = "LLM reranker unavailable: ran without reranking"
    run = load_run(copy_run(tmp_path, "held", "eval_data/heldout_set.jsonl", {"full": [reason]}))
    summary = eval_frames.summary_frame([run])
    assert list(summary["label"]) == ["C0", "full (fallback)"]
    assert set(summary["role"]) == {"validation"}
    assert list(summary["fallback"]) == ["", reason]
    assert set(eval_frames.questions_frame([run])["label"]) == {"C0", "full (fallback)"}
    assert eval_frames.config_label(run, "full", [run, run]) == "held / full (fallback)"


def test_suite_table_one_row_per_set_with_its_role_then_the_macro_average() -> None:
    suite = SuiteTable.from_dict(SUITE_TABLE)
    frame = eval_frames.suite_frame(suite)
    assert list(frame.columns) == ["set", "role", "questions", "answerable", "out of scope", "C2", "full",
                                   "full beats C2"]
    assert list(frame["set"]) == ["dev", "spotify", "macro average"]
    assert list(frame["role"]) == ["tuning", "validation", "validation"]
    assert list(frame["full beats C2"]) == ["yes", "", ""]
    assert eval_frames.suite_frame(suite, "mrr")["C2"].tolist() == [0.52, 0.81, 0.81]
    with pytest.raises(ValueError, match="allowed: hit_rate"):
        eval_frames.suite_frame(suite, "accuracy")


def test_the_blinded_table_frame() -> None:
    table, warning = load_blind_table(BLIND_TABLE)
    assert warning is None and table is not None
    frame = eval_frames.blind_frame(table, "oos_abstained")
    assert list(frame.columns) == ["set", "answerable", "out of scope", "C0", "C2", "full", "full-minus-lookup",
                                   "full-minus-rerank"]
    assert list(frame["set"]) == ["tmdb", "toolalpaca-sim", "mean over the sets"]
    assert frame["full"].tolist() == pytest.approx([0.875, 0.8, 0.8375])
    assert frame["answerable"].tolist()[:2] == [100, 50]
    with pytest.raises(ValueError, match="allowed: hit@5"):
        eval_frames.blind_frame(table, "accuracy")


def test_metric_units() -> None:
    assert eval_frames.metric_unit("hit@10") == "share of answerable"
    assert eval_frames.metric_unit("mrr") == "0–1, 1 = first"
    assert eval_frames.metric_unit("n") == ""


def test_a_run_about_several_apis_breaks_down_by_api_too(run: SavedRun) -> None:
    one_api = SavedRun("one", Path("one"), metrics={"full": {"by_api": {}}})
    assert eval_frames.breakdowns([one_api]) == ["category"]
    # the tiny run's metrics predate the per-API block: it is computed from its records (questions on two APIs)
    assert set(run.by_api("full")) == {"people-3_1", "shop-3_0"}
    assert eval_frames.breakdowns([run]) == ["category", "API"]
    figures = {"lucidtech": {"n": 23, "hit@1": 0.174, "mrr": 0.289, "another_api_first": 0.565},
               "zoom": {"n": 33, "hit@1": 0.455, "mrr": 0.637, "another_api_first": 0.0}}
    several = SavedRun("zl", Path("zl"), metrics={"C2": {"by_api": {}}, "full": {"by_api": figures}})
    assert eval_frames.breakdowns([one_api, several]) == ["category", "API"]
    assert eval_frames.category_metrics([several], "API") == ["mrr", "hit@1", "another_api_first"]
    frame = eval_frames.category_frame([several], "another_api_first", "API")
    assert frame.to_dict("records") == [{"label": "full", "category": "lucidtech", "value": 0.565},
                                        {"label": "full", "category": "zoom", "value": 0.0}]
    assert eval_frames.category_frame([several], "mrr", "category").empty
