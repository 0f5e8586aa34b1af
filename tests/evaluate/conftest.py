"""Fixtures for the evaluation tests: the fixture question set over the fixture index, and a log in tmp."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rag.evaluate.questions import Question, load_questions
from tests.conftest import FIXTURES

QUESTIONS_FILE = FIXTURES / "eval" / "fixture_questions.jsonl"


@pytest.fixture
def questions(fixture_index) -> list[Question]:  # type: ignore[no-untyped-def]
    """The eight fixture questions, checked against the fixture index."""
    return load_questions(QUESTIONS_FILE, fixture_index)


@pytest.fixture
def log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where evaluation logs go during the test ($RAG_EVAL_LOG)."""
    path = tmp_path / "logs" / "eval.log"
    monkeypatch.setenv("RAG_EVAL_LOG", str(path))
    return path


def lines_of(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
