"""Saved runs read back for comparison: records, metrics (computed when a run has none yet), typed fallbacks,
names made unique, the suite table beside them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rag.evaluate import saved_runs
from rag.evaluate.saved_runs import SavedRun
from tests.saved_run_fixtures import SUITE_TABLE, TINY_RUN, copy_run


@pytest.fixture
def run() -> SavedRun:
    return saved_runs.load_run(TINY_RUN)


def test_load_run_reads_records_metrics_and_manifest(run: SavedRun) -> None:
    assert run.name == "tiny-run"
    assert run.configs == ["C0", "full"]
    assert {name: len(items) for name, items in run.records.items()} == {"C0": 4, "full": 4}
    assert run.n_records == 8
    assert run.metrics["full"]["hit@5"] == 1.0
    assert run.manifest["configs"]["full"]["reranker"] == "structural"
    assert not run.warnings and not run.computed and run.fell_back == {}


def test_load_run_without_metrics_computes_them_and_skips_bad_lines(tmp_path: Path) -> None:
    folder = tmp_path / "partial"
    folder.mkdir()
    lines = (TINY_RUN / "C0.jsonl").read_text().splitlines()
    (folder / "C0.jsonl").write_text("\n".join([lines[0], "{not json", "[1, 2]", *lines[1:]]) + "\n")
    (folder / "tmp-C0.jsonl").write_text("ignored\n")
    loaded = saved_runs.load_run(folder)
    assert loaded.computed and loaded.configs == ["C0"]
    assert len(loaded.records["C0"]) == 4
    assert len(loaded.warnings) == 2 and "line 2" in loaded.warnings[0]
    stored = json.loads((TINY_RUN / "metrics.json").read_text())["configs"]["C0"]
    for metric in ("hit@5", "mrr", "abstention_accuracy", "false_abstention_rate"):
        assert loaded.metrics["C0"][metric] == pytest.approx(stored[metric], abs=1e-3), metric


def test_an_unreadable_metrics_file_is_a_warning_and_the_metrics_are_computed(tmp_path: Path) -> None:
    shutil.copytree(TINY_RUN, tmp_path / "broken")
    (tmp_path / "broken" / "metrics.json").write_text("{not json")
    loaded = saved_runs.load_run(tmp_path / "broken")
    assert loaded.computed and loaded.configs == ["C0", "full"] and loaded.manifest == {}
    assert loaded.warnings[0].startswith("metrics.json: cannot read")


def test_a_run_still_being_written_is_read_without_touching_its_files(tmp_path: Path) -> None:
    folder = tmp_path / "running"
    folder.mkdir()
    text = (TINY_RUN / "C0.jsonl").read_text() + '{"query_id": "held-9", "que'  # the writer is mid-line
    (folder / "C0.jsonl").write_text(text)
    loaded = saved_runs.load_run(folder)
    assert len(loaded.records["C0"]) == 4 and loaded.computed
    assert loaded.warnings == ["C0.jsonl line 5: not JSON (skipped)"]
    assert (folder / "C0.jsonl").read_text() == text


def test_find_runs_newest_first_and_extra_folders(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(TINY_RUN, root / "older")
    shutil.copytree(TINY_RUN, tmp_path / "elsewhere")
    (root / "empty").mkdir()
    (root / "tmp-scratch").mkdir()
    newer = root / "newer"
    newer.mkdir()
    (newer / "C0.jsonl").write_text((TINY_RUN / "C0.jsonl").read_text())
    found = saved_runs.find_runs(root, [tmp_path / "elsewhere", tmp_path / "missing"])
    assert {p.name for p in found} == {"older", "newer", "elsewhere"}
    assert found[-1].name == "older"  # its files are the fixture's, older than those written here
    assert saved_runs.run_stamp(found[0]) >= saved_runs.run_stamp(found[-1])
    assert saved_runs.find_runs(tmp_path / "nowhere") == []
    assert saved_runs.run_stamp(tmp_path / "nowhere") == 0.0


def test_with_unique_names_renames_copies_and_leaves_the_originals(run: SavedRun, tmp_path: Path) -> None:
    shutil.copytree(TINY_RUN, tmp_path / "a" / "tiny-run")
    other = saved_runs.load_run(tmp_path / "a" / "tiny-run")
    runs = saved_runs.with_unique_names([run, other])
    assert [r.name for r in runs] == ["tiny-run", "tiny-run (2)"]
    assert other.name == "tiny-run"


def test_records_definitions_and_hit_key(run: SavedRun) -> None:
    record = saved_runs.record_at([run], "tiny-run", "C0", 1)
    assert record is not None and record["query_id"] == "q2"
    assert saved_runs.record_at([run], "tiny-run", "C0", 9) is None
    assert saved_runs.record_at([run], "other", "C0", 0) is None
    assert saved_runs.config_definitions([run])["C0"]["chunking"] == "naive"
    assert saved_runs.hit_metric([run]) == "hit@5"
    assert saved_runs.hit_metric([]) == "hit@5"
    assert saved_runs.failure_of({"failure": "ranked_low"}) == "ranked_low"
    assert saved_runs.failure_of({"error": "boom"}) == "error"
    assert saved_runs.failure_of({"failure": None}) == saved_runs.OK_LABEL


def test_fallbacks_come_from_the_records_typed_field(tmp_path: Path) -> None:
    reason = "LLM reranker unavailable: ran without reranking"
    run = saved_runs.load_run(copy_run(tmp_path, "held", "eval_data/heldout_set.jsonl", {"full": [reason]}))
    assert run.fell_back == {"full": reason}
    assert saved_runs.fallbacks([run]) == {("held", "full"): reason}
    assert saved_runs.fallback_reason([{"fallbacks": []}, {"fallbacks": ["a", "b"]}]) == "a; b"
    # A note that merely says "unavailable" is no fallback: only the typed field counts.
    assert saved_runs.fallback_reason([{"notes": ["cross-encoder 'x' is unavailable"], "fallbacks": []}]) is None


def test_the_suite_table_is_read_or_explained(tmp_path: Path) -> None:
    path = saved_runs.suite_path(tmp_path)
    assert path == tmp_path / "suite" / "latest.json"
    assert saved_runs.load_suite_table(path) == (None, None)  # absent: nothing to show, nothing breaks
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(SUITE_TABLE))
    assert saved_runs.load_suite_table(path) == (saved_runs.SuiteTable.from_dict(SUITE_TABLE), None)
    path.write_text("{not json")
    assert saved_runs.load_suite_table(path)[1].startswith(f"{path}: cannot read the suite table")
    path.write_text(json.dumps({"sets": {}}))
    assert saved_runs.load_suite_table(path)[1] == f"{path}: not a suite table (expected an object with a 'sets' list)"


def test_results_and_question_folders_follow_the_environment(tmp_path: Path) -> None:
    assert saved_runs.results_dir({}) == saved_runs.RESULTS_DIR
    assert saved_runs.results_dir({"RAG_EVAL_RESULTS_DIR": str(tmp_path)}) == tmp_path
    assert saved_runs.eval_data_dir({"RAG_EVAL_DATA_DIR": str(tmp_path)}) == tmp_path
    (tmp_path / "generated").mkdir()
    for path in (tmp_path / "b.jsonl", tmp_path / "a.jsonl", tmp_path / "generated" / "hris.jsonl"):
        path.write_text("")
    (tmp_path / "notes.txt").write_text("")
    assert [p.name for p in saved_runs.question_sets(tmp_path)] == ["a.jsonl", "b.jsonl", "hris.jsonl"]


def test_failure_order_lists_ok_then_the_package_labels_then_any_other() -> None:
    assert saved_runs.FAILURE_ORDER[:2] == ("ok", "error")
    assert saved_runs.failure_order(["zz_old", "ok", "ranked_low", "aa_old"]) == [*saved_runs.FAILURE_ORDER, "aa_old",
                                                                                  "zz_old"]
    assert saved_runs.failure_of({"error": "boom"}) == "error" and saved_runs.failure_of({"failure": None}) == "ok"


@pytest.mark.parametrize(("value", "number", "whole"), [
    (3, 3.0, 3), (2.5, 2.5, None), (4.0, 4.0, 4), (True, None, None), ("7", None, None), (float("nan"), None, None),
    (float("inf"), None, None), (None, None, None),
])  # fmt: skip
def test_saved_values_are_read_as_finite_numbers(value: object, number: float | None, whole: int | None) -> None:
    assert saved_runs.finite_number(value) == number
    assert saved_runs.whole_number(value) == whole


def test_headline_numbers_and_categories_of_a_configuration(run: SavedRun) -> None:
    headline = run.headline("full")
    assert headline["reranker_lift"] == pytest.approx(1.0)  # the lift's summary counts as its mean gain
    assert "by_category" not in headline and "latency_by_stage" not in headline and "failures" not in headline
    assert all(isinstance(value, float) for value in headline.values())
    assert saved_runs.metric_number("reranker_lift", {"lift": 2}) == 2.0
    categories = run.by_category("C0")
    assert set(categories) == {"endpoint", "parameter", "schema", "out_of_scope"}
    assert categories["schema"]["hit@5"] == 0.0 and "hit@5" not in categories["out_of_scope"]
    assert run.headline("nobody") == {} and run.by_category("nobody") == {}


def test_record_outcome_names_what_the_questions_table_shows() -> None:
    record = {"query_id": 7, "query": "q?", "failure": "ranked_low", "abstained": 1, "relevant_ids": ["b"],
              "retrieved_chunks": [{"covers": ["a", "z"]}, "junk", {"chunk_id": "c3"}, {"covers": ["b"]},
                                   {"covers": ["e"]}],
              "answer": "old field", "total_time_ms": 12}
    outcome = saved_runs.record_outcome(record)
    assert outcome == saved_runs.RecordOutcome("7", "unknown", "q?", "ranked_low", True, "", 4, ("a", "c3", "b"),
                                               "old field", 12.0)
    assert saved_runs.record_outcome({"llm_answer": "new", "answer": "old"}).answer == "new"


def test_the_suite_table_is_read_into_typed_sets() -> None:
    table = saved_runs.SuiteTable.from_dict(SUITE_TABLE)
    assert (table.created, table.k, table.configs) == ("2026-11-22T19:02:23+00:00", 5, ("C2", "full"))
    dev, spotify = table.sets
    assert (dev.name, dev.role, dev.questions, dev.answerable, dev.out_of_scope) == ("dev", "tuning", 86, 71, 15)
    assert dev.full_beats_c2 is True and spotify.full_beats_c2 is None
    assert dev.value("full", "mrr") == 0.91 and spotify.value("C2", "out_of_scope_abstention") is None
    assert table.macro("full", "false_abstention_rate") == 0.26 and table.macro("E9", "mrr") is None
    odd = saved_runs.SuiteTable.from_dict({"sets": ["junk", {"name": "a", "metrics": {"C2": "bad", "full": {
        "mrr": "0.5", "hit_rate": True}}, "full_beats_c2": "yes", "questions": 2.5}]})
    assert len(odd.sets) == 1 and odd.sets[0].metrics == {"C2": {}, "full": {"mrr": None, "hit_rate": None}}
    assert odd.sets[0].full_beats_c2 is None and odd.sets[0].questions is None
    assert odd.k is None and odd.configs == () and odd.macro_validation == {}
