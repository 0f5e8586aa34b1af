"""`python -m rag` ask and configs as a user runs them (`rag.cli.question_commands`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import rag
from tests.conftest import ROOT


def test_ask_side_by_side_and_json(index_dir: Path) -> None:
    text = rag("ask", "How do I list employees?", "--configs", "C1,full", index=index_dir)
    assert text.returncode == 0, text.stderr
    assert "=== C1" in text.stdout and "=== full" in text.stdout
    data = json.loads(rag("ask", "How do I list employees?", "--configs", "C0,C5", "--json", index=index_dir).stdout)
    assert [r["config"] for r in data] == ["C0", "C5"]
    assert all(r["chunks"] and r["generator"] == "extractive (no LLM)" for r in data)


def test_ask_unknown_config_names_the_allowed_ones(index_dir: Path) -> None:
    result = rag("ask", "x", "--configs", "C9", index=index_dir)
    assert result.returncode == 2 and "allowed: C0, C1" in result.stderr


def test_configs_lists_every_preset() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rag", "configs", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert set(json.loads(result.stdout)) >= {"C0", "C5", "E4", "full"}
