"""The evaluation and live charts (`webapp.charts`): a panel per metric or run, one colour per configuration."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rag.evaluate.saved_runs import SavedRun, load_run, with_unique_names
from tests.fakes import answer_with_chunks
from tests.saved_run_fixtures import TINY_RUN, copy_run
from webapp import charts, eval_frames


@pytest.fixture
def run() -> SavedRun:
    return load_run(TINY_RUN)


def test_metric_bars_one_panel_per_metric_one_bar_per_config(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.metric_bars(eval_frames.metrics_frame([run]))
    panels = {a.text for a in figure.layout.annotations}
    assert panels == {  # units on every panel
        "hit@5 (share of answerable)", "MRR (0–1, 1 = first)", "abstention accuracy (share of out-of-scope)",
        "false-abstention rate (share of answerable, lower is better)",
        "keyword recall (share of required keywords)", "judge score (LLM judge, 1–5)",
    }
    assert sorted({trace.name for trace in figure.data}) == ["C0", "full"]
    full = [trace for trace in figure.data if trace.name == "full"]
    values = sorted(v for trace in full for v in trace.y)
    assert values == sorted([1.0, 0.8333, 1.0, 0.0, 1.0, 4.5])


def test_a_configuration_that_fell_back_has_hatched_bars(tmp_path: Path) -> None:
    reason = "LLM reranker unavailable: ran without reranking"
    fell_back = load_run(copy_run(tmp_path, "held", "eval_data/heldout_set.jsonl", {"full": [reason]}))
    bars = charts.metric_bars(eval_frames.metrics_frame([fell_back]))
    assert {trace.name for trace in bars.data if trace.marker.pattern.shape == "/"} == {"full (fallback)"}


def test_metric_bars_without_data_says_so() -> None:
    figure = charts.metric_bars(eval_frames.metrics_frame([]))
    assert "No metrics" in figure.layout.annotations[0].text


def test_category_heatmap_rows_are_categories_columns_configs(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.category_heatmap(eval_frames.category_frame([run], "mrr"), "mrr")
    heat = figure.data[0]
    assert heat.type == "heatmap"
    assert list(heat.x) == ["C0", "full"]
    assert list(heat.y) == ["endpoint", "parameter", "schema"]
    assert heat.z[2][0] == 0.0 and heat.z[2][1] == 0.5  # schema: C0 missed, full found it at rank 2
    assert charts.category_heatmap(eval_frames.category_frame([run], "nothing"), "nothing").layout.annotations
    assert figure.layout.title.text == "MRR by category"
    by_api = charts.category_heatmap(pd.DataFrame([{"label": "full", "category": "zoom", "value": 0.2}]),
                                     "another_api_first", "API")
    assert by_api.layout.title.text == "another API's chunk first by API"
    assert by_api.data[0].colorscale[0][1] != figure.data[0].colorscale[0][1]  # fewer is better: reversed colours
    assert "No per-API values" in charts.category_heatmap(pd.DataFrame(), "mrr", "API").layout.annotations[0].text


def test_quality_latency_scatter_sizes_points_by_tokens(run) -> None:  # type: ignore[no-untyped-def]
    metrics = eval_frames.metrics_frame([run])
    data = charts.scatter_frame(metrics, "hit@5").set_index("label")
    assert data.loc["full", "tokens"] == 960.0  # 900 in + 60 out per question
    assert data.loc["C0", "tokens"] == 0.0
    assert data.loc["full", "latency_ms_p50"] == 520.0
    figure = charts.quality_latency_scatter(metrics)
    assert {trace.name for trace in figure.data} == {"C0", "full"}
    sizes = {trace.name: trace.marker.size for trace in figure.data}
    assert sizes["full"] > sizes["C0"]
    assert "ms per question" in figure.layout.xaxis.title.text
    assert figure.layout.showlegend is not False and all(trace.mode == "markers" for trace in figure.data)  # no text


def test_quality_latency_scatter_does_not_size_by_tokens_when_none_were_used(run) -> None:  # type: ignore[no-untyped-def]
    metrics = eval_frames.metrics_frame([run])
    metrics = metrics[~metrics["metric"].str.startswith("tokens")]
    figure = charts.quality_latency_scatter(metrics)
    assert len({trace.marker.size for trace in figure.data}) == 1
    assert "no LLM tokens used" in figure.layout.title.text
    assert len({trace.marker.symbol for trace in figure.data}) == len(figure.data)


def test_quality_latency_scatter_needs_latency() -> None:
    frame = pd.DataFrame([{"run": "r", "config": "a", "label": "a", "metric": "hit@5", "value": 0.5}])
    assert "latency" in charts.quality_latency_scatter(frame).layout.annotations[0].text


def test_reranker_lift_bars(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.reranker_lift_bars(eval_frames.metrics_frame([run]))
    assert list(figure.data[0].x) == ["full"] and list(figure.data[0].y) == [1.0]
    assert list(figure.data[0].text) == ["+1.00 ranks"]
    assert figure.layout.yaxis.title.text == "rank positions gained"
    negative = pd.DataFrame([{"label": "x", "metric": "reranker_lift", "value": -0.5}])
    assert charts.reranker_lift_bars(negative).data[0].marker.color[0] == "#C0392B"
    assert "No configuration" in charts.reranker_lift_bars(pd.DataFrame(columns=["metric"])).layout.annotations[0].text


def test_failure_bars_count_labels_per_config(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.failure_bars(eval_frames.questions_frame([run]))
    counts = {trace.name: dict(zip(trace.x, trace.y, strict=True)) for trace in figure.data}
    assert counts["ok"] == {"C0": 1, "full": 4}
    assert counts["retrieval_miss"] == {"C0": 1}


def test_latency_breakdown_stacks_stages() -> None:
    items = [
        answer_with_chunks("C0", timings_ms={"embed": 1.0, "generate": 5.0}),
        answer_with_chunks("full", timings_ms={"gate": 2.0}),
    ]
    figure = charts.latency_breakdown(items)
    assert [trace.name for trace in figure.data] == ["embed", "gate", "generate"]
    assert charts.latency_breakdown([]).layout.annotations


def test_several_runs_get_a_panel_each_and_one_colour_per_configuration(tmp_path: Path) -> None:
    runs = with_unique_names([load_run(copy_run(tmp_path, name, "eval_data/x.jsonl"))
                                        for name in ("first", "second", "third")])
    metrics = eval_frames.metrics_frame(runs)
    figure = charts.metric_bars(metrics, metric="mrr")
    assert [a.text for a in figure.layout.annotations] == ["first", "second", "third"]  # a panel per run
    assert all(len(trace.x) == 1 and trace.x[0] in ("C0", "full") for trace in figure.data)
    assert [trace.name for trace in figure.data if trace.showlegend] == ["C0", "full"]  # once per configuration
    colours = {(trace.x[0], trace.marker.color) for trace in figure.data}
    assert colours == {("C0", charts.config_colour("C0")), ("full", charts.config_colour("full"))}
    # The colour is the configuration's, whichever runs are chosen and whatever the label.
    alone = charts.metric_bars(eval_frames.metrics_frame(runs[1:2]))
    assert {trace.marker.color for trace in alone.data if trace.name == "full"} == {charts.config_colour("full")}
    presets = [charts.config_colour(name) for name in charts.PRESET_ORDER]
    assert len(set(presets)) == len(presets)  # no preset shares a colour
    assert charts.config_colour("second / full (fallback)") == charts.config_colour("full")
    assert charts.config_colour("full-minus-lookup") == charts.config_colour("full-minus-lookup")
    assert charts.config_colour("full-minus-lookup") not in presets
    scatter = charts.quality_latency_scatter(metrics)
    assert {trace.marker.color for trace in scatter.data if trace.name == "full"} == {charts.config_colour("full")}
    assert len({trace.marker.symbol for trace in scatter.data if trace.name == "full"}) == 3  # a symbol per run
    assert [trace.name for trace in scatter.data if trace.showlegend] == ["C0", "full"]
    assert "symbol = run: circle first, square second, diamond third" in scatter.layout.title.text
    failures = charts.failure_bars(eval_frames.questions_frame(runs))
    assert sorted(a.text for a in failures.layout.annotations) == ["first", "second", "third"]
    assert {x for trace in failures.data for x in trace.x} == {"C0", "full"}
    assert failures.layout.xaxis2.matches is None  # each panel shows only its run's configurations
