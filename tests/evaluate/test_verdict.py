"""The evaluation verdict: validation runs and the blinded sets' table only, sources named, ablations apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rag.evaluate.roles import run_role, suite_roles, with_suite_roles
from rag.evaluate.saved_runs import SuiteTable, load_run
from rag.evaluate.verdict import BlindTable, blind_path, is_ablation, load_blind_table, verdict
from tests.saved_run_fixtures import BLIND_TABLE, copy_run, write_suite_file


def blind_table(tmp_path: Path) -> BlindTable:
    path = blind_path(tmp_path)
    path.parent.mkdir(parents=True)
    shutil.copy(BLIND_TABLE, path)
    table, warning = load_blind_table(path)
    assert warning is None and table is not None
    return table


def test_the_verdict_reads_validation_runs_and_names_them(tmp_path: Path) -> None:
    held = load_run(copy_run(tmp_path, "held", "eval_data/heldout_set.jsonl"))
    dev = load_run(copy_run(tmp_path, "dev", "eval_data/dev_set.jsonl"))
    found = verdict([dev, held], None, blind_path(tmp_path))
    assert "Best on the validation runs: full" in found.text and "hit@5 on the validation run held:" in found.text
    assert "+0.33 over the runner-up C0" in found.text  # hit@5 1.00 vs 0.67
    assert "520 ms per question" in found.text and "(C0: 400 ms)" in found.text
    assert "None of its validation records failed." in found.text
    assert found.sources == ("validation runs: held",)  # the tuning run is no source
    assert found.missing == (f"The blinded sets' table is absent ({blind_path(tmp_path)}): run `make eval-blind` "
                             "to make it.",)
    reason = "LLM reranker unavailable: ran without reranking"
    fell_back = load_run(copy_run(tmp_path, "held2", "eval_data/heldout_set.jsonl", {"full": [reason]}))
    text = verdict([fell_back], None).text
    assert "Best on the validation runs: C0" in text  # a configuration that fell back is no candidate
    assert "main failure is `retrieval_miss` (1 of 4 validation records)" in text
    alone = verdict([dev], None)
    assert alone.text == "" and alone.sources == () and "No validation run is saved" in alone.missing[0]


def test_a_suite_marking_a_set_tuning_keeps_its_run_out_of_the_verdict(tmp_path: Path) -> None:
    suite = write_suite_file(tmp_path / "suite-data", {"heldout": ("tuning", "heldout_set.jsonl")})
    roles = suite_roles(SuiteTable.from_dict({"suite": str(suite)}))
    held = with_suite_roles([load_run(copy_run(tmp_path, "heldout-retrieval", "eval_data/heldout_set.jsonl"))], roles)
    assert run_role(held[0]) == "tuning"
    assert verdict(held, None).text == ""


def test_the_blinded_sets_give_the_best_contender_and_ablations_apart(tmp_path: Path) -> None:
    table = blind_table(tmp_path)
    found = verdict([], table)
    # full: mean hit@5 (0.86 + 0.74) / 2 = 0.80; C2 0.74; C0 0.45. full-minus-lookup ties full but is no contender.
    assert "**Best on the blinded sets (tmdb, toolalpaca-sim): full** — mean hit@5 **0.80**, +0.06 over the " \
           "runner-up C2 (0.74) and +0.35 over the naive baseline C0 (0.45)." in found.text
    assert "tied" not in found.text
    assert "out-of-scope abstention 0.84 and false-abstention rate 0.03" in found.text
    assert "without rerank -0.05; no change without lookup" in found.text
    assert "a measurement, not a contender" in found.text
    assert found.sources == (f"blinded sets' table {table.path} (generated 2026-11-24T22:10:00+00:00)",)
    assert "No validation run is saved" in found.missing[0] and len(found.missing) == 1


def test_bad_blinded_tables_are_explained(tmp_path: Path) -> None:
    path = blind_table(tmp_path).path
    assert load_blind_table(tmp_path / "none.json") == (None, None)
    path.write_text("{not json")
    assert load_blind_table(path)[1].startswith(f"{path}: cannot read")
    path.write_text(json.dumps({"sets": {"tmdb": {"full": 0.8}}}))
    table_or_none, warning = load_blind_table(path)
    assert table_or_none is None and "tmdb/full is float" in (warning or "")
    path.write_text(json.dumps({"sets": []}))
    assert "expected an object with a 'sets' object" in (load_blind_table(path)[1] or "")
    path.write_text(json.dumps({"sets": {}}))
    assert "'sets' is empty" in (load_blind_table(path)[1] or "")


def test_the_blinded_table_reads_numbers_and_averages_over_sets(tmp_path: Path) -> None:
    table = blind_table(tmp_path)
    assert table.all_configs == ["C0", "C2", "full", "full-minus-lookup", "full-minus-rerank"]
    assert table.value("tmdb", "full", "oos_abstained") == 0.875
    assert table.value("tmdb", "nobody", "hit@5") is None
    assert table.macro("full", "oos_abstained") == pytest.approx(0.8375)
    assert table.question_counts("toolalpaca-sim") == (50, 5) and table.question_counts("nowhere") == (None, None)
    assert is_ablation("full-minus-lookup") and not is_ablation("full")
