"""Where an evaluation logs: the path the run is given, else $RAG_EVAL_LOG, else `logs/eval.log`."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.settings import PROJECT_ROOT

DEFAULT_LOG = PROJECT_ROOT / "logs" / "eval.log"
LOG_ENV = "RAG_EVAL_LOG"  # overrides where evaluation logs go
log = logging.getLogger("rag.evaluate")


def log_file(path: Path | None = None) -> Path:
    """`path`, else $RAG_EVAL_LOG, else logs/eval.log."""
    return Path(path or os.environ.get(LOG_ENV) or DEFAULT_LOG)


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
