"""Roles of saved runs: the suite file decides for the sets it names, the question file's name for the others."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.evaluate import roles
from rag.evaluate.saved_runs import SuiteTable, load_run
from tests.saved_run_fixtures import copy_run, write_suite_file


@pytest.mark.parametrize(("source", "role"), [
    ("eval_data/dev_set.jsonl", "tuning"),
    ("eval_data/heldout_set.jsonl", "validation"),
    ("../shared/eval/stackone-benchmark/benchmark-dataset-test.json", "validation"),
    ("../shared/eval/stackone-benchmark/benchmark-dataset-train.json", "tuning"),
    ("eval_data/generated/hris.jsonl", "unmarked"),
])  # fmt: skip
def test_run_role_from_the_question_source(tmp_path: Path, source: str, role: str) -> None:
    assert roles.run_role(load_run(copy_run(tmp_path, "r", source))) == role


def test_the_suite_decides_the_role_of_the_sets_it_names(tmp_path: Path) -> None:
    data = tmp_path / "suite-data"
    suite = write_suite_file(data, {"heldout": ("tuning", "heldout_set.jsonl"), "fresh": ("validation", "fresh.jsonl")})
    found = roles.suite_roles(SuiteTable.from_dict({"suite": str(suite)}))
    assert found == {str((data / "heldout_set.jsonl").resolve()): "tuning",
                     str((data / "fresh.jsonl").resolve()): "validation",
                     "relative:heldout_set.jsonl": "tuning", "relative:fresh.jsonl": "validation"}  # fmt: skip
    held = load_run(copy_run(tmp_path, "held", str(data / "heldout_set.jsonl")))
    other = load_run(copy_run(tmp_path, "other", "eval_data/heldout_unnamed.jsonl"))
    moved = load_run(copy_run(tmp_path, "moved", "eval_data/fresh.jsonl"))
    assert roles.run_role(held) == "validation"  # by its file name alone
    marked = roles.with_suite_roles([held, other, moved], found)
    # The suite names the first; not the second; the third by its path relative to the suite's folder (a suite
    # table written in another checkout names the same sets).
    assert [roles.run_role(run) for run in marked] == ["tuning", "validation", "validation"]
    marked = roles.with_suite_roles([load_run(copy_run(tmp_path, "h2", "eval_data/heldout_set.jsonl"))], found)
    assert roles.run_role(marked[0]) == "tuning"
    assert roles.run_role(held) == "validation"  # the (cached) original is left alone


def test_without_a_readable_suite_file_there_are_no_suite_roles(tmp_path: Path) -> None:
    missing = SuiteTable.from_dict({"suite": str(tmp_path / "missing.toml")})
    assert roles.suite_roles(missing, tmp_path / "none.toml") == {}
    bad = tmp_path / "bad.toml"
    bad.write_text('[corpora.stackone]\nspecs = ["specs"]\n[[sets]]\nname = "x"\nrole = "maybe"\ncorpus = "stackone"\n'
                   'questions = "x.jsonl"\n')
    assert roles.suite_roles(None, bad) == {}  # a role the suite does not allow: the file is not a suite


def test_the_default_suite_file_is_used_when_the_table_names_none(tmp_path: Path) -> None:
    suite = write_suite_file(tmp_path, {"dev": ("tuning", "dev_set.jsonl")})
    assert roles.suite_roles(SuiteTable.from_dict({}), suite) == {str((tmp_path / "dev_set.jsonl").resolve()): "tuning",
                                            "relative:dev_set.jsonl": "tuning"}
