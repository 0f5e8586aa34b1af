"""Where an evaluation logs: the path the run is given, else $RAG_EVAL_LOG, else `eval.log` beside its records.

The log names questions and their outcomes, so it stays with the records it describes: a run in a private
folder (the blinded sets) leaves nothing of its questions behind in the project.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOG_NAME = "eval.log"  # in the run's output folder
LOG_ENV = "RAG_EVAL_LOG"  # overrides where evaluation logs go
log = logging.getLogger("rag.evaluate")


def log_file(out_dir: Path | str, path: Path | None = None) -> Path:
    """`path`, else $RAG_EVAL_LOG, else `eval.log` in `out_dir` (the folder of the run's records)."""
    return Path(path or os.environ.get(LOG_ENV) or Path(out_dir) / LOG_NAME)


@contextmanager
def logging_to(path: Path) -> Iterator[None]:
    """Send the evaluation log to `path` (INFO and up) while the block runs; an unwritable path logs nowhere."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        yield
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield
    finally:
        log.removeHandler(handler)
        handler.close()
