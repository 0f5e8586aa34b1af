"""The role of a saved run's questions: `tuning` (used to tune the pipeline) or `validation` (held out).

The evaluation suite's file (`eval_data/suite.toml`, read by `rag.evaluate.suite.load_suite`) decides for the
sets it names, also for a run saved in another checkout (matched by the set's path relative to the suite's
folder). A run whose set the suite does not name is judged by its question file's name (a dev set or train split
is tuning; a held-out set or test split is validation), else it is `unmarked`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from rag.errors import ConfigError
from rag.evaluate.saved_runs import EVAL_DATA_DIR, SavedRun, SuiteTable, eval_data_dir
from rag.evaluate.suite import load_suite
from rag.settings import PROJECT_ROOT

TUNING = "tuning"
VALIDATION = "validation"
UNMARKED = "unmarked"
_TUNING_WORDS = ("dev", "train", "tuning")
_VALIDATION_WORDS = ("heldout", "held-out", "held_out", "test", "validation", "benchmark")
RELATIVE = "relative:"  # suite_roles' key prefix for a set's path relative to the suite's folder


def run_role(run: SavedRun) -> str:
    """The suite's role for the run's question set when it names it; else `tuning` for a dev set or a train split,
    `validation` for a held-out set or a benchmark's test split (read from the manifest's question source, the
    run's name when the manifest has none), else `unmarked`."""
    if run.suite_role:
        return run.suite_role
    source = str(run.manifest.get("questions_source") or run.manifest.get("questions_file") or "")
    name = Path(source).stem.lower() if source else run.name.lower()
    for words, role in ((("train",), TUNING), (_VALIDATION_WORDS, VALIDATION), (_TUNING_WORDS, TUNING)):
        if any(word in name for word in words):
            return role
    return UNMARKED


def suite_roles(suite_table: SuiteTable | None, default: Path | str | None = None) -> dict[str, str]:
    """Question file (resolved path, and `relative:` + its path relative to the suite's folder) → role, from the
    suite file the latest suite table names, else `default` (eval_data/suite.toml). Empty when there is none or it
    cannot be read."""
    named = suite_table.suite if suite_table is not None else ""
    path = Path(named) if named and Path(named).is_file() else Path(default or eval_data_dir() / "suite.toml")
    try:
        suite = load_suite(path, check_files=False)
    except ConfigError:
        return {}
    roles: dict[str, str] = {}
    for item in suite.sets:
        if item.questions is not None:
            roles[str(item.questions)] = item.role
            roles[RELATIVE + os.path.relpath(item.questions, suite.path.parent)] = item.role
    return roles


def with_suite_roles(runs: Sequence[SavedRun], roles: Mapping[str, str]) -> list[SavedRun]:
    """Copies of `runs` carrying the suite's role for their question set (the suite decides: a held-out set
    read question by question becomes tuning there); runs whose set the suite does not name keep theirs."""
    marked: list[SavedRun] = []
    for run in runs:
        source = str(run.manifest.get("questions_source") or "")
        role = roles.get(str((PROJECT_ROOT / source).resolve())) if source else None
        if role is None and source and not Path(source).is_absolute():
            relative = os.path.relpath(PROJECT_ROOT / source, EVAL_DATA_DIR)
            role = roles.get(RELATIVE + os.path.normpath(relative))
        marked.append(replace(run, suite_role=role) if role else run)
    return marked
