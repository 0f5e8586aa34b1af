"""The app's pure building blocks: figures, tables, badges, saved-run loading, configs and the evaluation bridge."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from rag.config import PRESETS
from rag.errors import ConfigError, RagError
from rag.evaluate.metrics import summarize
from rag.results import AnswerResult, Citation, RetrievedChunk
from tests.app.conftest import EVAL_RUN_FIXTURE, INVENTORY_SPEC
from tests.fakes import make_chunk
from webapp import charts, eval_runs, tables
from webapp.asking import Turn, ask_all, ask_live, conversation_history
from webapp.badges import Badge, badge_for, badge_for_record, badge_status
from webapp.documents import ingest_uploads, report_frame
from webapp.engine import (
    apply_choices,
    build_engine,
    clear_engine_override,
    engine_key,
    generator_options,
    known_configs,
    resolve_config_name,
    set_engine_override,
)
from webapp.eval_bridge import (
    default_run_name,
    evaluation_available,
    make_test_set_now,
    question_generation_available,
    run_evaluation_now,
    safe_name,
)
from webapp.jobs import Job, start_job, wait

RUN = EVAL_RUN_FIXTURE / "tiny-run"


@pytest.fixture
def run() -> eval_runs.SavedRun:
    return eval_runs.load_run(RUN)


def result(config: str, *items: tuple[str, int], **fields: Any) -> AnswerResult:
    """An AnswerResult whose chunks cover the given (structural id, rank) pairs."""
    chunks = [
        RetrievedChunk(make_chunk(sid, f"text of {sid}", chunk_id=f"{config}/{sid}"), {"vector": 0.5}, rank)
        for sid, rank in items
    ]
    return AnswerResult(config=config, question="q", chunks=chunks, **fields)


# ---------------------------------------------------------------------- saved runs
def test_load_run_reads_records_metrics_and_manifest(run) -> None:  # type: ignore[no-untyped-def]
    assert run.name == "tiny-run"
    assert run.configs == ["C0", "full"]
    assert {name: len(items) for name, items in run.records.items()} == {"C0": 4, "full": 4}
    assert run.metrics["full"]["hit@5"] == 1.0
    assert run.manifest["configs"]["full"]["reranker"] == "structural"
    assert not run.warnings and not run.computed


def test_load_run_without_metrics_computes_them_and_skips_bad_lines(tmp_path: Path) -> None:
    folder = tmp_path / "partial"
    folder.mkdir()
    lines = (RUN / "C0.jsonl").read_text().splitlines()
    (folder / "C0.jsonl").write_text("\n".join([lines[0], "{not json", "[1, 2]", *lines[1:]]) + "\n")
    (folder / "tmp-C0.jsonl").write_text("ignored\n")
    loaded = eval_runs.load_run(folder)
    assert loaded.computed and loaded.configs == ["C0"]
    assert len(loaded.records["C0"]) == 4
    assert len(loaded.warnings) == 2 and "line 2" in loaded.warnings[0]
    stored = json.loads((RUN / "metrics.json").read_text())["configs"]["C0"]
    for metric in ("hit@5", "mrr", "abstention_accuracy", "false_abstention_rate"):
        assert loaded.metrics["C0"][metric] == pytest.approx(stored[metric], abs=1e-3), metric


def test_a_run_still_being_written_is_read_without_touching_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "running"
    folder.mkdir()
    text = (RUN / "C0.jsonl").read_text() + '{"query_id": "held-9", "que'  # the writer is mid-line
    (folder / "C0.jsonl").write_text(text)
    loaded = eval_runs.load_run(folder)
    assert len(loaded.records["C0"]) == 4 and loaded.computed
    assert loaded.warnings == ["C0.jsonl line 5: not JSON (skipped)"]
    assert (folder / "C0.jsonl").read_text() == text


def test_computed_metrics_are_the_evaluation_packages(run) -> None:  # type: ignore[no-untyped-def]
    computed = eval_runs.compute_metrics(run.records["full"])
    assert computed == summarize(run.records["full"], 5)
    stored = run.metrics["full"]
    for metric in ("n", "hit@5", "mrr", "recall@5", "abstention_accuracy", "false_abstention_rate",
                   "latency_ms_p50", "tokens_in"):
        assert computed[metric] == pytest.approx(stored[metric], abs=1e-3), metric
    assert set(computed["by_category"]) == {"endpoint", "schema", "parameter", "out_of_scope"}


def test_records_the_metrics_cannot_score_are_left_out_with_a_warning(run) -> None:  # type: ignore[no-untyped-def]
    records = run.records["full"]
    broken = [*records, {**records[0], "query_id": "bad", "retrieved_chunks": ["not a chunk"]}]
    warnings: list[str] = []
    assert eval_runs.compute_metrics(broken, warnings=warnings, source="full.jsonl") == summarize(records, 5)
    assert warnings == ["full.jsonl: 1 record(s) could not be scored; the computed metrics leave them out"]
    mixed = [{**records[0], "failure": 1}, {**records[1], "failure": "ranked_low"}]  # fail only together
    assert eval_runs.compute_metrics(mixed, warnings=warnings)["n"] == 0
    assert warnings[-1].startswith("records: 2 record(s)")


def test_find_runs_newest_first_and_extra_folders(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(RUN, root / "older")
    shutil.copytree(RUN, tmp_path / "elsewhere")
    (root / "empty").mkdir()
    (root / "tmp-scratch").mkdir()
    newer = root / "newer"
    newer.mkdir()
    (newer / "C0.jsonl").write_text((RUN / "C0.jsonl").read_text())
    found = eval_runs.find_runs(root, [tmp_path / "elsewhere", tmp_path / "missing"])
    assert [p.name for p in found][:1] == ["newer"] or [p.name for p in found][:1] == ["elsewhere"]
    assert {p.name for p in found} == {"older", "newer", "elsewhere"}
    assert eval_runs.find_runs(tmp_path / "nowhere") == []


def test_load_runs_makes_names_unique(tmp_path: Path) -> None:
    shutil.copytree(RUN, tmp_path / "a" / "tiny-run")
    runs = eval_runs.load_runs([RUN, tmp_path / "a" / "tiny-run"])
    assert [r.name for r in runs] == ["tiny-run", "tiny-run (2)"]


def test_metrics_frame_flattens_the_reranker_lift(run) -> None:  # type: ignore[no-untyped-def]
    frame = eval_runs.metrics_frame([run])
    lift = frame[frame["metric"] == "reranker_lift"]
    assert list(lift["label"]) == ["full"] and lift["value"].iloc[0] == pytest.approx(1.0)
    assert "by_category" not in set(frame["metric"])
    assert "latency_by_stage" not in set(frame["metric"])


def test_summary_frame_has_one_row_per_config_with_headline_metrics(run) -> None:  # type: ignore[no-untyped-def]
    frame = eval_runs.summary_frame([run])
    assert list(frame["label"]) == ["C0", "full"]
    for column in ("hit@5", "MRR", "abstention accuracy", "false-abstention rate", "keyword recall", "judge score",
                   "latency p50 (ms)"):
        assert column in frame.columns
    assert frame.loc[frame["label"] == "full", "judge score"].iloc[0] == 4.5


def test_questions_frame_and_filters(run) -> None:  # type: ignore[no-untyped-def]
    frame = eval_runs.questions_frame([run])
    assert len(frame) == 8
    c0 = frame[frame["config"] == "C0"].set_index("query_id")
    assert c0.loc["q2", "failure"] == "retrieval_miss"
    assert c0.loc["q1", "failure"] == "ok"
    assert c0.loc["q3", "relevant rank"] == 3
    assert pd.isna(c0.loc["q2", "relevant rank"])
    only = eval_runs.filter_questions(frame, configs=["full"], categories=["schema"])
    assert list(only["query_id"]) == ["q2"] and list(only["config"]) == ["full"]
    failing = eval_runs.filter_questions(frame, failures=["false_answer", "generation_miss"])
    assert sorted(failing["query_id"]) == ["q3", "q4"]
    assert len(eval_runs.filter_questions(frame)) == 8
    record = eval_runs.record_at([run], "tiny-run", "C0", int(only["_position"].iloc[0]))
    assert record is not None and record["query_id"] == "q2"


def test_two_runs_are_labelled_run_slash_config(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shutil.copytree(RUN, tmp_path / "other")
    runs = [run, eval_runs.load_run(tmp_path / "other")]
    assert list(eval_runs.summary_frame(runs)["label"]) == ["tiny-run / C0", "tiny-run / full", "other / C0",
                                                            "other / full"]
    frame = eval_runs.questions_frame(runs)
    assert len(eval_runs.filter_questions(frame, configs=["other / full"])) == 4


def test_category_frame_and_metrics(run) -> None:  # type: ignore[no-untyped-def]
    assert eval_runs.category_metrics([run])[:2] == ["hit@5", "mrr"]
    frame = eval_runs.category_frame([run], "hit@5")
    assert set(frame["category"]) == {"endpoint", "parameter", "schema"}  # out_of_scope has no hit@5
    assert frame[(frame["label"] == "C0") & (frame["category"] == "schema")]["value"].iloc[0] == 0.0


def test_config_definitions_from_the_manifest(run) -> None:  # type: ignore[no-untyped-def]
    definitions = eval_runs.config_definitions([run])
    assert definitions["C0"]["chunking"] == "naive"


def test_record_summary() -> None:
    text = eval_runs.record_summary({"retrieval_time_ms": 12.4, "total_time_ms": 500, "tokens_in": 1200,
                                     "model": "x", "dry_run": True})
    assert text.startswith("retrieval 12 ms · generation 0 ms · total 500 ms · tokens in 1,200")
    assert text.endswith("model x · dry run")


# ---------------------------------------------------------------------- evaluation charts
def test_metric_bars_one_panel_per_metric_one_bar_per_config(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.metric_bars(eval_runs.metrics_frame([run]))
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


def test_metric_bars_without_data_says_so() -> None:
    figure = charts.metric_bars(eval_runs.metrics_frame([]))
    assert "No metrics" in figure.layout.annotations[0].text


def test_category_heatmap_rows_are_categories_columns_configs(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.category_heatmap(eval_runs.category_frame([run], "mrr"), "mrr")
    heat = figure.data[0]
    assert heat.type == "heatmap"
    assert list(heat.x) == ["C0", "full"]
    assert list(heat.y) == ["endpoint", "parameter", "schema"]
    assert heat.z[2][0] == 0.0 and heat.z[2][1] == 0.5  # schema: C0 missed, full found it at rank 2
    assert charts.category_heatmap(eval_runs.category_frame([run], "nothing"), "nothing").layout.annotations


def test_quality_latency_scatter_sizes_points_by_tokens(run) -> None:  # type: ignore[no-untyped-def]
    metrics = eval_runs.metrics_frame([run])
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
    metrics = eval_runs.metrics_frame([run])
    metrics = metrics[~metrics["metric"].str.startswith("tokens")]
    figure = charts.quality_latency_scatter(metrics)
    assert len({trace.marker.size for trace in figure.data}) == 1
    assert "no LLM tokens used" in figure.layout.title.text
    assert len({trace.marker.symbol for trace in figure.data}) == len(figure.data)


def test_quality_latency_scatter_needs_latency() -> None:
    frame = pd.DataFrame([{"run": "r", "config": "a", "label": "a", "metric": "hit@5", "value": 0.5}])
    assert "latency" in charts.quality_latency_scatter(frame).layout.annotations[0].text


def test_reranker_lift_bars(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.reranker_lift_bars(eval_runs.metrics_frame([run]))
    assert list(figure.data[0].x) == ["full"] and list(figure.data[0].y) == [1.0]
    assert list(figure.data[0].text) == ["+1.00 ranks"]
    assert figure.layout.yaxis.title.text == "rank positions gained"
    negative = pd.DataFrame([{"label": "x", "metric": "reranker_lift", "value": -0.5}])
    assert charts.reranker_lift_bars(negative).data[0].marker.color[0] == "#C0392B"
    assert "No configuration" in charts.reranker_lift_bars(pd.DataFrame(columns=["metric"])).layout.annotations[0].text


def test_failure_bars_count_labels_per_config(run) -> None:  # type: ignore[no-untyped-def]
    figure = charts.failure_bars(eval_runs.questions_frame([run]))
    counts = {trace.name: dict(zip(trace.x, trace.y, strict=True)) for trace in figure.data}
    assert counts["ok"] == {"C0": 1, "full": 4}
    assert counts["retrieval_miss"] == {"C0": 1}


# ---------------------------------------------------------------------- live tables and figures
def test_chunk_frame_has_every_score_and_rank() -> None:
    chunk = make_chunk("api.paths./x.get", "GET /x", kind="operation")
    items = [
        RetrievedChunk(chunk, {"vector": 0.5, "bm25": 2.0, "fused": 0.016, "rerank": 1.5}, rank=1,
                       rank_before_rerank=3),
        RetrievedChunk(make_chunk("api.components.X", "X"), {"vector": 0.2}, rank=2),
    ]
    frame = tables.chunk_frame(items)
    assert list(frame.columns) == list(tables.CHUNK_COLUMNS)
    assert frame.loc[0, "rank before rerank"] == 3 and pd.isna(frame.loc[1, "rank before rerank"])
    assert frame.loc[0, "rerank"] == 1.5 and pd.isna(frame.loc[1, "bm25"])
    assert "from expansion" not in frame.columns and "named" not in frame.columns
    assert frame.loc[0, "structural ids"] == "api.paths./x.get" and frame.loc[0, "kind"] == "operation"
    assert tables.chunk_frame([]).empty


def test_record_chunk_frame_reads_saved_chunks(run) -> None:  # type: ignore[no-untyped-def]
    frame = tables.record_chunk_frame(run.records["full"][1]["retrieved_chunks"])
    assert list(frame["structural ids"]) == ["people-3_1.paths./unified/hris/employees.get",
                                             "people-3_1.components.Employee"]
    assert list(frame["rank before rerank"]) == [1, 4]


def test_overlap_frame_lines_up_structural_ids_across_configs() -> None:
    a = result("C0", ("api.paths./x.get", 1), ("api.components.A", 2), ("api.components.OnlyC0", 3))
    b = result("full", ("api.components.A", 1), ("api.paths./x.get", 2), ("api.components.OnlyFull", 3))
    failed = AnswerResult(config="broken", question="q", errors=["boom"])
    frame = tables.overlap_frame([a, b, failed])
    assert list(frame.columns) == ["structural id", "api", "C0", "full", "found by", "only some"]
    rows = frame.set_index("structural id")
    assert rows.loc["api.paths./x.get", "C0"] == 1 and rows.loc["api.paths./x.get", "full"] == 2
    assert not rows.loc["api.components.A", "only some"]
    assert rows.loc["api.components.OnlyC0", "only some"] and pd.isna(rows.loc["api.components.OnlyC0", "full"])
    assert list(frame["found by"]) == [2, 2, 1, 1]  # shared rows first
    summary = tables.overlap_summary(frame, ["C0", "full"])
    assert summary == {"total": 4, "all": 2, "some": 2, "unique": {"C0": 1, "full": 1}}
    style = tables.overlap_styler(frame).to_html().split("</style>")[0]
    assert "#FFF4D6" in style
    assert "row2_col0" in style and "row3_col0" in style and "row0_col0" not in style  # only the "only some" rows
    figure = charts.overlap_figure(frame, ["C0", "full"])
    assert list(figure.data[0].x) == ["C0", "full"]
    assert sum(label.startswith("◆ ") for label in figure.data[0].y) == 2
    assert charts.overlap_figure(tables.overlap_frame([]), []).layout.annotations


def test_overlap_counts_a_chunk_covering_two_ids_for_both() -> None:
    chunk = make_chunk("api.paths./x.get", "naive /x")
    chunk = type(chunk)(**{**chunk.__dict__, "covers": ("api.paths./x.get", "api.paths./x.post")})
    a = AnswerResult(config="C0", question="q", chunks=[RetrievedChunk(chunk, {}, 1)])
    b = result("full", ("api.paths./x.post", 1))
    rows = tables.overlap_frame([a, b]).set_index("structural id")
    assert rows.loc["api.paths./x.post", "found by"] == 2
    assert rows.loc["api.paths./x.get", "only some"]


def test_timings_tokens_and_citations() -> None:
    item = result("full", ("api.paths./x.get", 1), timings_ms={"generate": 80.0, "embed": 1.25, "retrieve": 10.0},
                  tokens_in=812, tokens_out=96, generator="extractive")
    frame = tables.timing_frame(item)
    assert list(frame["stage"]) == ["embed", "retrieve", "generate", "total"]
    assert frame["ms"].iloc[-1] == pytest.approx(91.2, abs=0.1)
    assert tables.timing_summary(item).startswith("embed 1.2 ms · retrieve 10.0 ms · generate 80.0 ms = 91 ms")
    assert tables.token_summary(item) == "tokens in 812 · out 96 · generator extractive"
    citation = Citation("api.paths./x.get", "/paths/~1x/get", "api", "full/api.paths./x.get", "api.json")
    assert tables.citation_label(1, citation) == "[1] GET /x"
    assert [tables.readable_id(i) for i in ("hris.paths./unified/hris/employees/{id}.delete",
                                             "hris.components.Employee", "hris.overview", "stackone.conventions",
                                             "docs.guide#intro")] == [
        "DELETE /unified/hris/employees/{id}", "Employee", "HRIS API overview", "stackone API conventions",
        "docs.guide#intro"]
    assert tables.find_cited_chunk(citation, item) is item.chunks[0]
    other = Citation("api.paths./x.get", "", "api", "gone", "")
    assert tables.find_cited_chunk(other, item) is item.chunks[0]
    assert list(tables.citation_frame([citation])["json pointer"]) == ["/paths/~1x/get"]


def test_latency_breakdown_stacks_stages() -> None:
    items = [result("C0", timings_ms={"embed": 1.0, "generate": 5.0}), result("full", timings_ms={"gate": 2.0})]
    figure = charts.latency_breakdown(items)
    assert [trace.name for trace in figure.data] == ["embed", "gate", "generate"]
    assert charts.latency_breakdown([]).layout.annotations


def test_markdown_safety_helpers() -> None:
    assert tables.safe_markdown("see ![x](http://evil/x.png)") == "see !\\[x](http://evil/x.png)"
    assert tables.md_escape("a_b *c* [d] <e> $f$ `g`") == "a\\_b \\*c\\* \\[d\\] \\<e\\> \\$f\\$ \\`g\\`"


def test_documents_and_chunk_tables(fixture_index) -> None:  # type: ignore[no-untyped-def]
    frame = tables.documents_frame(fixture_index.documents())
    assert list(frame["source"]) == ["people-3.1.json", "shop-3.0.yaml"]
    assert list(frame["api"]) == ["people-3_1", "shop-3_0"]
    assert (frame["ingest (s)"] >= 0).all() and frame["indexed at"].str.match(r"\d{4}-\d\d-\d\d").all()
    chunks = tables.document_chunks(fixture_index.snapshot().chunks.values(), "shop-3.0.yaml", "smart")
    assert chunks and {c.strategy for c in chunks} == {"smart"}
    assert chunks[0].kind == "overview"
    table = tables.document_chunks_frame(chunks)
    assert len(table) == len(chunks) and "json pointer" in table.columns
    metadata = tables.chunk_metadata(chunks[0])
    assert "text" not in metadata and "embedding_text" not in metadata and metadata["api"] == "shop-3_0"


# ---------------------------------------------------------------------- badges
@pytest.mark.parametrize(
    ("abstained", "confidence", "errors", "retrieval_only", "expected"),
    [
        (False, "answer", False, False, "answered"),
        (False, "partial", False, False, "partial"),
        (True, "abstain", False, False, "abstained"),
        (False, "abstain", False, True, "abstained"),
        (False, "answer", False, True, "retrieval only"),
        (True, "abstain", True, False, "error"),
    ],
)
def test_badge_status(abstained, confidence, errors, retrieval_only, expected) -> None:  # type: ignore[no-untyped-def]
    assert badge_status(abstained, confidence, errors, retrieval_only) == expected


def test_badge_for_results_and_records() -> None:
    abstained = AnswerResult("full", "q", abstained=True, confidence="abstain", confidence_score=0.16,
                             notes=["confidence gate: abstain (…)"])
    badge = badge_for(abstained)
    assert (badge.status, badge.color, badge.detail) == ("abstained", "gray", "confidence: abstain (0.16)")
    plain = badge_for(AnswerResult("C0", "q", answer="x"))
    assert (plain.status, plain.color, plain.detail) == ("answered", "green", "confidence gate off")
    partial = AnswerResult("full", "q", confidence="partial", confidence_score=0.5)
    assert badge_for(partial, gated=True).color == "orange"
    assert badge_for_record({"abstained": False, "confidence": "partial"}).status == "partial"
    assert badge_for_record({"error": "boom"}).status == "error"


def test_badges_say_no_match_and_fell_back() -> None:
    from rag.generate.extractive import NO_MATCH_NOTE

    unmatched = badge_for(AnswerResult("C0", "q", answer=f"{NO_MATCH_NOTE}\n- some line [1]"))
    assert (unmatched.status, unmatched.color) == ("no match", "gray")
    degraded = badge_for(AnswerResult("C5", "q", answer="x", fallbacks=["LLM reranker unavailable"]))
    assert (degraded.status, degraded.color) == ("fell back", "orange")
    # Abstaining says so even when a stage fell back; an error wins over everything.
    assert badge_for(AnswerResult("C5", "q", abstained=True, fallbacks=["x"])).status == "abstained"
    assert badge_for_record({"answer": NO_MATCH_NOTE, "error": "boom"}).status == "error"
    assert badge_for_record({"answer": "x", "fallbacks": ["no cross-encoder"]}).status == "fell back"
    with pytest.raises(ValueError, match="allowed: answered"):
        Badge("maybe", "maybe", "green", "", "")


# ---------------------------------------------------------------------- engine and configs
def test_engine_override_and_key(fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.runner import Engine

    engine = Engine(fixture_index)
    before = engine_key()
    set_engine_override(engine)
    try:
        first = engine_key()
        assert first != before and build_engine() is engine
        set_engine_override(lambda: engine)
        assert engine_key() != first and build_engine() is engine
    finally:
        clear_engine_override()
    assert engine_key() == before


def test_engine_from_an_environment_factory(monkeypatch, fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.runner import Engine

    made = Engine(fixture_index)
    monkeypatch.setattr("tests.app.test_charts.small_engine", lambda: made, raising=False)
    monkeypatch.setenv("RAG_APP_TEST_ENGINE", "tests.app.test_charts:small_engine")
    assert engine_key() == "env:tests.app.test_charts:small_engine"
    assert build_engine() is made
    monkeypatch.setenv("RAG_APP_TEST_ENGINE", "no_such_module_here:x")
    with pytest.raises(ConfigError, match="cannot import"):
        build_engine()
    monkeypatch.setenv("RAG_APP_TEST_ENGINE", "nocolon")
    with pytest.raises(ConfigError, match="module:function"):
        build_engine()


def test_apply_choices_sets_k_and_the_auto_generator() -> None:
    own = PRESETS["C0"].__class__(name="own", generator="groq:x")
    chosen = apply_choices([PRESETS["C0"], PRESETS["full"], own], k=12, generator="extractive")
    assert [c.k for c in chosen] == [12, 12, 12]
    assert chosen[0].candidate_pool == 20 and chosen[1].candidate_pool == PRESETS["full"].candidate_pool
    assert [c.generator for c in chosen] == ["extractive", "extractive", "groq:x"]
    assert apply_choices([PRESETS["C0"]])[0] is PRESETS["C0"]
    with pytest.raises(ConfigError, match="k=99"):
        apply_choices([PRESETS["C0"]], k=99)


def test_known_configs_with_a_user_file_and_resolution(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('[configs.mine]\nbase = "C2"\nk = 7\n')
    known = known_configs({"RAG_CONFIG_FILE": str(path)})
    assert known["mine"].k == 7 and known["mine"].retriever == "hybrid"
    assert resolve_config_name("full-minus-rerank", known).reranker == "none"
    defined = resolve_config_name("saved", known, {"saved": {"name": "saved", "chunking": "naive", "k": 3}})
    assert defined.chunking == "naive" and defined.k == 3
    with pytest.raises(ConfigError, match="unknown config"):
        resolve_config_name("nope", known)


def test_generator_options_always_offer_extractive() -> None:
    assert generator_options("extractive", {"RAG_LOCAL_MODEL": "/nonexistent/model.gguf"}) == ["extractive"]
    options = generator_options("openai:gpt-4o-mini", {"OPENAI_API_KEY": "k", "GROQ_API_KEY": "g",
                                                       "RAG_LOCAL_MODEL": "/nonexistent/model.gguf"})
    assert options[0] == "openai:gpt-4o-mini" and options[-1] == "extractive" and "groq:llama-3.1-8b-instant" in options


# ---------------------------------------------------------------------- asking
def test_ask_live_yields_every_result_and_isolates_a_failure(fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.runner import Engine

    engine = Engine(fixture_index, default_llm="extractive")
    broken = PRESETS["C0"].__class__(name="broken", generator="groq:x")
    configs = apply_choices([PRESETS["C0"], PRESETS["full"], broken], generator="extractive")
    events = list(ask_live(engine, "What is the page_size parameter of list orders?", configs))
    finished = {e.config: e.result for e in events if e.kind == "result"}
    assert set(finished) == {"C0", "full", "broken"}
    assert finished["C0"].ok and finished["full"].ok  # type: ignore[union-attr]
    assert finished["broken"].errors  # type: ignore[union-attr]
    ordered = ask_all(engine, "What is the page_size parameter of list orders?", configs[:2])
    assert [r.config for r in ordered] == ["C0", "full"]


def test_ask_live_streams_tokens_from_a_streaming_generator(fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.generate.base import Generation, StreamEvent
    from rag.runner import Engine

    class Streaming:
        name = "fake:stream"

        def generate(self, request):  # type: ignore[no-untyped-def]
            return Generation("Hello world", generator=self.name)

        def stream(self, request):  # type: ignore[no-untyped-def]
            yield StreamEvent("token", "Hello ")
            yield StreamEvent("token", "world")
            yield StreamEvent("done", generation=Generation("Hello world", generator=self.name))

    engine = Engine(fixture_index, default_llm="fake:stream", generator_factory=lambda spec: Streaming())
    events = list(ask_live(engine, "list orders", [PRESETS["C0"]]))
    assert [e.text for e in events if e.kind == "token"] == ["Hello ", "world"]
    assert events[-1].result is not None and events[-1].result.answer == "Hello world"


def test_conversation_history_uses_the_first_usable_answer() -> None:
    turn = Turn("first?", ["C0", "full"], False, "extractive", 5,
                [AnswerResult("C0", "first?", errors=["x"]), AnswerResult("full", "first?", answer="the answer")])
    assert conversation_history([turn]) == [{"role": "user", "content": "first?"},
                                            {"role": "assistant", "content": "the answer"}]


# ---------------------------------------------------------------------- uploads and jobs
def test_ingest_uploads_reports_each_file(empty_index) -> None:  # type: ignore[no-untyped-def]
    seen: list[float] = []
    reports = ingest_uploads(
        empty_index,
        [("inventory.yaml", INVENTORY_SPEC), ("empty.md", b""), ("virus.exe", b"MZ"),
         ("inventory.yaml", INVENTORY_SPEC)],
        "reject",
        progress=lambda fraction, text: seen.append(fraction),
    )
    assert [r.status for r in reports] == ["added", "error", "error", "rejected"]
    assert ".exe files cannot be indexed" in reports[2].message and ".json .yaml .yml" in reports[2].message
    assert reports[1].message.startswith("empty.md: not indexed — ")
    assert "already indexed, so it was not added" in reports[3].message and "on_duplicate" not in reports[3].message
    assert seen == sorted(seen) and seen[-1] == 1.0
    frame = report_frame(reports)
    assert frame.loc[0, "chunks"] > 0 and frame.loc[3, "status"] == "rejected"


def test_jobs_run_in_the_background_and_report_progress() -> None:
    gate = threading.Event()

    def target(job: Job) -> Path:
        job.report(done=1, total=4, message="one")
        gate.wait(5)
        return Path("/tmp")

    job = start_job("demo", target)
    for _ in range(100):
        if job.done == 1:
            break
        threading.Event().wait(0.01)
    assert job.active and job.fraction == 0.25 and "1/4" in job.progress_text()
    gate.set()
    wait(job, 5)
    assert job.status == "done" and job.run_dir == Path("/tmp") and job.fraction == 1.0

    failed = wait(start_job("bad", lambda job: (_ for _ in ()).throw(RagError("no questions"))), 5)
    assert failed.status == "failed" and "no questions" in failed.error


def test_bridge_names_and_availability(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    assert safe_name("from the page/../x") == "from-the-page-..-x"
    assert default_run_name("spec-shop 3").startswith("spec-shop-3-")
    assert evaluation_available() == (True, "")
    assert question_generation_available() == (True, "")
    monkeypatch.setitem(sys.modules, "rag.evaluate.generate", None)
    ok, why = question_generation_available()
    assert not ok and "rag.evaluate.generate" in why and why.startswith("Making a test set needs")
    monkeypatch.setitem(sys.modules, "rag.evaluate.runner", None)
    ok, why = evaluation_available()
    assert not ok and "rag.evaluate.runner" in why


def test_run_evaluation_now_saves_a_run_the_app_can_load(fixture_index, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from rag.runner import Engine

    engine = Engine(fixture_index, default_llm="extractive")
    job = Job("j", "demo")
    path = make_test_set_now(job, engine, "people-3_1", limit=6, out_dir=tmp_path / "generated")
    assert path == tmp_path / "generated" / "people-3_1.jsonl"
    run_dir = run_evaluation_now(job, engine, path, [PRESETS["C0"], PRESETS["full"]], True, tmp_path / "runs", "t1")
    assert run_dir == tmp_path / "runs" / "t1"
    assert job.done == job.total == 6
    loaded = eval_runs.load_run(run_dir)
    assert loaded.configs == ["C0", "full"] and not loaded.computed and not loaded.warnings
    assert len(eval_runs.questions_frame([loaded])) == 12
    assert charts.metric_bars(eval_runs.metrics_frame([loaded])).data
    with pytest.raises(RagError, match="already holds results"):
        run_evaluation_now(job, engine, path, [PRESETS["C0"]], True, tmp_path / "runs", "t1")
    with pytest.raises(ConfigError, match="not indexed"):
        make_test_set_now(job, engine, "nope", out_dir=tmp_path / "generated")


# ---------------------------------------------------------------------- roles, fallbacks, verdict, suite
def _named_run(tmp_path: Path, name: str, source: str, notes: dict[str, list[str]] | None = None) -> Path:
    """A copy of the tiny run named `name` whose manifest says its questions came from `source`; `notes` adds
    notes to every record of a configuration."""
    target = tmp_path / name
    shutil.copytree(RUN, target)
    metrics = json.loads((target / "metrics.json").read_text())
    metrics["manifest"]["questions_source"] = source
    (target / "metrics.json").write_text(json.dumps(metrics))
    for config, extra in (notes or {}).items():
        records = [json.loads(line) for line in (target / f"{config}.jsonl").read_text().splitlines() if line]
        for record in records:
            record["notes"] = list(record.get("notes") or []) + extra
        (target / f"{config}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return target


@pytest.mark.parametrize(("source", "role"), [
    ("eval_data/dev_set.jsonl", "tuning"),
    ("eval_data/heldout_set.jsonl", "validation"),
    ("../shared/eval/stackone-benchmark/benchmark-dataset-test.json", "validation"),
    ("../shared/eval/stackone-benchmark/benchmark-dataset-train.json", "tuning"),
    ("eval_data/generated/hris.jsonl", "unmarked"),
])
def test_run_role_from_the_question_source(tmp_path: Path, source: str, role: str) -> None:
    assert eval_runs.run_role(eval_runs.load_run(_named_run(tmp_path, "r", source))) == role


def test_the_suite_decides_the_role_of_the_sets_it_names(tmp_path: Path) -> None:
    data = tmp_path / "suite-data"
    data.mkdir()
    (data / "suite.toml").write_text(
        '[[sets]]\nname = "heldout"\nrole = "tuning"\ncorpus = "stackone"\nquestions = "heldout_set.jsonl"\n'
        '[[sets]]\nname = "fresh"\nrole = "validation"\ncorpus = "stackone"\nquestions = "fresh.jsonl"\n'
    )
    roles = eval_runs.suite_roles({"suite": str(data / "suite.toml")})
    assert roles == {str((data / "heldout_set.jsonl").resolve()): "tuning",
                     str((data / "fresh.jsonl").resolve()): "validation",
                     "relative:heldout_set.jsonl": "tuning", "relative:fresh.jsonl": "validation"}
    held = eval_runs.load_run(_named_run(tmp_path, "held", str(data / "heldout_set.jsonl")))
    other = eval_runs.load_run(_named_run(tmp_path, "other", "eval_data/heldout_unnamed.jsonl"))
    moved = eval_runs.load_run(_named_run(tmp_path, "moved", "eval_data/fresh.jsonl"))
    assert eval_runs.run_role(held) == "validation"  # by its file name alone
    marked = eval_runs.with_suite_roles([held, other, moved], roles)
    # The suite names the first; not the second; the third by its path relative to the suite's folder (a suite
    # table written in another checkout names the same sets).
    assert [eval_runs.run_role(run) for run in marked] == ["tuning", "validation", "validation"]
    marked = eval_runs.with_suite_roles([eval_runs.load_run(_named_run(tmp_path, "h2", "eval_data/heldout_set.jsonl"))],
                                        roles)
    assert eval_runs.run_role(marked[0]) == "tuning"
    assert eval_runs.run_role(held) == "validation"  # the (cached) original is left alone
    assert eval_runs.suite_roles({"suite": str(tmp_path / "missing.toml")}, tmp_path / "none.toml") == {}


def test_fallback_configs_are_marked_in_every_label(tmp_path: Path) -> None:
    note = ("LLM reranker unavailable: no LLM is configured (set RAG_LLM, OPENAI_API_KEY or GROQ_API_KEY); results "
            "are shown in first-stage order")
    run = eval_runs.load_run(_named_run(tmp_path, "held", "eval_data/heldout_set.jsonl", {"full": [note]}))
    assert run.fell_back == {"full": "LLM rerank skipped: no LLM configured"}
    assert list(eval_runs.summary_frame([run])["label"]) == ["C0", "full (fallback)"]
    assert set(eval_runs.summary_frame([run])["role"]) == {"validation"}
    assert set(eval_runs.questions_frame([run])["label"]) == {"C0", "full (fallback)"}
    bars = charts.metric_bars(eval_runs.metrics_frame([run]))
    hatched = {trace.name for trace in bars.data if trace.marker.pattern.shape == "/"}
    assert hatched == {"full (fallback)"}
    cross = "cross-encoder 'x' is unavailable: it is not a local folder and could not be loaded (OSError)"
    assert eval_runs.fallback_reason([{"notes": [cross]}]).startswith("cross-encoder rerank skipped")
    assert eval_runs.fallback_reason([{"notes": ["intent: terms point to hris"]}]) is None


SUITE = {
    "created": "2026-11-22T19:02:23+00:00", "configs": ["C2", "full"], "k": 5,
    "sets": [
        {"name": "dev", "role": "tuning", "questions": 86, "answerable": 71, "out_of_scope": 15,
         "metrics": {"C2": {"hit_rate": 0.68, "mrr": 0.52, "recall": 0.59, "false_abstention_rate": 0.0,
                            "out_of_scope_abstention": 0.0},
                     "full": {"hit_rate": 0.96, "mrr": 0.91, "recall": 0.86, "false_abstention_rate": 0.0,
                              "out_of_scope_abstention": 1.0}}, "full_beats_c2": True},
        {"name": "spotify", "role": "validation", "questions": 57, "answerable": 57, "out_of_scope": 0,
         "metrics": {"C2": {"hit_rate": 0.90, "mrr": 0.81, "recall": 0.62, "false_abstention_rate": 0.0,
                            "out_of_scope_abstention": None},
                     "full": {"hit_rate": 0.95, "mrr": 0.78, "recall": 0.61, "false_abstention_rate": 0.26,
                              "out_of_scope_abstention": None}}, "full_beats_c2": None},
    ],
    "macro_validation": {"C2": {"hit_rate": 0.90, "mrr": 0.81, "recall": 0.62, "false_abstention_rate": 0.0,
                                "out_of_scope_abstention": None},
                         "full": {"hit_rate": 0.95, "mrr": 0.78, "recall": 0.61, "false_abstention_rate": 0.26,
                                  "out_of_scope_abstention": None}},
}


def test_suite_table_one_row_per_set_with_its_role_then_the_macro_average(tmp_path: Path) -> None:
    path = eval_runs.suite_path(tmp_path)
    assert eval_runs.load_suite_table(path) == (None, None)  # absent: nothing to show, nothing breaks
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(SUITE))
    suite, warning = eval_runs.load_suite_table(path)
    assert warning is None and suite is not None
    frame = eval_runs.suite_frame(suite)
    assert list(frame.columns) == ["set", "role", "questions", "answerable", "out of scope", "C2", "full",
                                   "full beats C2"]
    assert list(frame["set"]) == ["dev", "spotify", "macro average"]
    assert list(frame["role"]) == ["tuning", "validation", "validation"]
    assert list(frame["full beats C2"]) == ["yes", "", ""]
    assert eval_runs.suite_frame(suite, "mrr")["C2"].tolist() == [0.52, 0.81, 0.81]
    with pytest.raises(ValueError, match="allowed: hit_rate"):
        eval_runs.suite_frame(suite, "accuracy")
    path.write_text("{not json")
    assert eval_runs.load_suite_table(path)[1].startswith(str(path))


def test_each_configuration_continues_its_own_conversation() -> None:
    from webapp.asking import Turn, conversation_history

    turn = Turn("Can I create a course in the LMS API?", ["C0", "full"], False, "extractive", 5, [
        AnswerResult(config="C0", question="q", answer="\"/unified/lms/courses\": { [1]"),
        AnswerResult(config="full", question="q", answer="There is no endpoint to create courses [1]."),
    ])  # fmt: skip
    assert conversation_history([turn], "full")[1]["content"] == "There is no endpoint to create courses [1]."
    assert conversation_history([turn], "C0")[1]["content"].startswith('"/unified/lms/courses"')
    assert conversation_history([turn], "E2") == [{"role": "user", "content": "Can I create a course in the LMS API?"}]


# ---------------------------------------------------------------------- many runs stay readable
def test_several_runs_get_a_panel_each_and_one_colour_per_configuration(tmp_path: Path) -> None:
    runs = eval_runs.with_unique_names([eval_runs.load_run(_named_run(tmp_path, name, "eval_data/x.jsonl"))
                                        for name in ("first", "second", "third")])
    metrics = eval_runs.metrics_frame(runs)
    figure = charts.metric_bars(metrics, metric="mrr")
    assert [a.text for a in figure.layout.annotations] == ["first", "second", "third"]  # a panel per run
    assert all(len(trace.x) == 1 and trace.x[0] in ("C0", "full") for trace in figure.data)
    assert [trace.name for trace in figure.data if trace.showlegend] == ["C0", "full"]  # once per configuration
    colours = {(trace.x[0], trace.marker.color) for trace in figure.data}
    assert colours == {("C0", charts.config_colour("C0")), ("full", charts.config_colour("full"))}
    # The colour is the configuration's, whichever runs are chosen and whatever the label.
    alone = charts.metric_bars(eval_runs.metrics_frame(runs[1:2]))
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
    failures = charts.failure_bars(eval_runs.questions_frame(runs))
    assert sorted(a.text for a in failures.layout.annotations) == ["first", "second", "third"]
    assert {x for trace in failures.data for x in trace.x} == {"C0", "full"}
    assert failures.layout.xaxis2.matches is None  # each panel shows only its run's configurations


def test_widths_fit_headers_and_short_values() -> None:
    frame = pd.DataFrame({"label": ["heldout-retrieval / full-minus-write_check"], "ranked_low": [0.5],
                          "answer": ["x" * 400]})
    widths = tables.fitted_widths(frame)
    assert widths["ranked_low"] >= len("ranked_low") * tables.CHARACTER_PX
    assert widths["label"] >= len("heldout-retrieval / full-minus-write_check") * tables.CHARACTER_PX
    assert "answer" not in widths  # long free text keeps the default width


def test_the_summary_of_many_configurations_uses_the_badges_words() -> None:
    rows = tables.results_summary_frame([
        AnswerResult("C5", "q", answer="x", fallbacks=["LLM reranker unavailable: ran without reranking"]),
        AnswerResult("full", "q", abstained=True, confidence="abstain"),
        AnswerResult("C0", "q", answer="No line matched the question's terms; the best-ranked source begins:"),
        AnswerResult("C3", "q", answer="Use GET /x. [1]"),
    ])  # fmt: skip
    assert list(rows["status"]) == ["fell back", "abstained", "no match", "answered"]
