"""Where an evaluation logs, and that the log file is let go when the run ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.evaluate.eval_log import LOG_ENV, log, log_file, logging_to


def test_log_file_prefers_the_given_path_then_the_environment_then_the_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(LOG_ENV, raising=False)
    assert log_file(tmp_path / "run") == tmp_path / "run" / "eval.log"
    monkeypatch.setenv(LOG_ENV, str(tmp_path / "env.log"))
    assert log_file(tmp_path / "run") == tmp_path / "env.log"
    assert log_file(tmp_path / "run", tmp_path / "given.log") == tmp_path / "given.log"


def test_logging_to_writes_while_the_block_runs(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "eval.log"
    handlers = list(log.handlers)
    with logging_to(path):
        log.info("inside")
    log.info("outside")
    assert log.handlers == handlers
    text = path.read_text(encoding="utf-8")
    assert " INFO inside" in text and "outside" not in text


def test_an_unwritable_log_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    handlers = list(log.handlers)
    with logging_to(blocker / "eval.log"):  # its folder is a file
        log.info("nowhere")
    assert log.handlers == handlers
