"""The evaluation verdict: validation runs and the blinded sets' table only, sources named, ablations apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.app.test_charts import _named_run
from tests.conftest import FIXTURES
from webapp import eval_runs
from webapp.verdict import BlindTable, blind_frame, blind_path, load_blind_table, verdict

BLIND = FIXTURES / "blind" / "latest.json"


def blind_table(tmp_path: Path) -> BlindTable:
    path = blind_path(tmp_path)
    path.parent.mkdir(parents=True)
    shutil.copy(BLIND, path)
    table, warning = load_blind_table(path)
    assert warning is None and table is not None
    return table


def test_the_verdict_reads_validation_runs_and_names_them(tmp_path: Path) -> None:
    held = eval_runs.load_run(_named_run(tmp_path, "held", "eval_data/heldout_set.jsonl"))
    dev = eval_runs.load_run(_named_run(tmp_path, "dev", "eval_data/dev_set.jsonl"))
    found = verdict([dev, held], None, blind_path(tmp_path))
    assert "Best on the validation runs: full" in found.text and "hit@5 on the validation run held:" in found.text
    assert "+0.33 over the runner-up C0" in found.text  # hit@5 1.00 vs 0.67
    assert "520 ms per question" in found.text and "(C0: 400 ms)" in found.text
    assert "None of its validation records failed." in found.text
    assert found.sources == ("validation runs: held",)  # the tuning run is no source
    assert found.missing == (f"The blinded sets' table is absent ({blind_path(tmp_path)}): run `make eval-blind` "
                             "to make it.",)
    note = "LLM reranker unavailable: no LLM is configured; results are shown in first-stage order"
    fell_back = eval_runs.load_run(_named_run(tmp_path, "held2", "eval_data/heldout_set.jsonl", {"full": [note]}))
    text = verdict([fell_back], None).text
    assert "Best on the validation runs: C0" in text  # a configuration that fell back is no candidate
    assert "main failure is `retrieval_miss` (1 of 4 validation records)" in text
    alone = verdict([dev], None)
    assert alone.text == "" and alone.sources == () and "No validation run is saved" in alone.missing[0]


def test_a_suite_marking_a_set_tuning_keeps_its_run_out_of_the_verdict(tmp_path: Path) -> None:
    data = tmp_path / "suite-data"
    data.mkdir()
    (data / "suite.toml").write_text('[[sets]]\nname = "heldout"\nrole = "tuning"\nquestions = "heldout_set.jsonl"\n')
    roles = eval_runs.suite_roles({"suite": str(data / "suite.toml")})
    held = eval_runs.with_suite_roles(
        [eval_runs.load_run(_named_run(tmp_path, "heldout-retrieval", "eval_data/heldout_set.jsonl"))], roles)
    assert eval_runs.run_role(held[0]) == "tuning"
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


def test_the_blinded_table_frame_and_bad_files(tmp_path: Path) -> None:
    table = blind_table(tmp_path)
    frame = blind_frame(table, "oos_abstained")
    assert list(frame.columns) == ["set", "answerable", "out of scope", "C0", "C2", "full", "full-minus-lookup",
                                   "full-minus-rerank"]
    assert list(frame["set"]) == ["tmdb", "toolalpaca-sim", "mean over the sets"]
    assert frame["full"].tolist() == pytest.approx([0.875, 0.8, 0.8375])
    assert frame["answerable"].tolist()[:2] == [100, 50]
    with pytest.raises(ValueError, match="allowed: hit@5"):
        blind_frame(table, "accuracy")
    path = table.path
    assert load_blind_table(tmp_path / "none.json") == (None, None)
    path.write_text("{not json")
    assert load_blind_table(path)[1].startswith(f"{path}: cannot read")
    path.write_text(json.dumps({"sets": {"tmdb": {"full": 0.8}}}))
    table_or_none, warning = load_blind_table(path)
    assert table_or_none is None and "tmdb/full is float" in (warning or "")
    path.write_text(json.dumps({"sets": []}))
    assert "expected an object with a 'sets' object" in (load_blind_table(path)[1] or "")
