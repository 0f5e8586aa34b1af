"""Saved evaluation runs and tables shared by the evaluation and app tests: the tiny saved run, copies of it with
another question source or fallbacks, a suite table and a suite file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES

TINY_RUN = FIXTURES / "eval_run" / "tiny-run"
BLIND_TABLE = FIXTURES / "blind" / "latest.json"

SUITE_TABLE: dict[str, Any] = {
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
}  # fmt: skip


def copy_run(tmp_path: Path, name: str, source: str, fallbacks: dict[str, list[str]] | None = None) -> Path:
    """A copy of the tiny run named `name` whose manifest says its questions came from `source`; `fallbacks` gives
    every record of a configuration those typed fallbacks."""
    target = tmp_path / name
    shutil.copytree(TINY_RUN, target)
    metrics = json.loads((target / "metrics.json").read_text())
    metrics["manifest"]["questions_source"] = source
    (target / "metrics.json").write_text(json.dumps(metrics))
    for config, reasons in (fallbacks or {}).items():
        records = [json.loads(line) for line in (target / f"{config}.jsonl").read_text().splitlines() if line]
        for record in records:
            record["fallbacks"] = list(reasons)
        (target / f"{config}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return target


def write_suite_file(folder: Path, sets: dict[str, tuple[str, str]]) -> Path:
    """A suite file in `folder` naming one corpus and, per set name, its (role, question file); neither the
    corpus's specs nor the question files need to exist."""
    folder.mkdir(parents=True, exist_ok=True)
    text = '[corpora.stackone]\nspecs = ["specs"]\n'
    for name, (role, questions) in sets.items():
        text += f'[[sets]]\nname = "{name}"\nrole = "{role}"\ncorpus = "stackone"\nquestions = "{questions}"\n'
    path = folder / "suite.toml"
    path.write_text(text)
    return path
