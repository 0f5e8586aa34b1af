"""What a run records about itself: `OUT/run.json` pins the settings a resumed run must match, and the manifest
saved in `OUT/metrics.json` says what was run on what (question-set hash, index hash, configs, models, judge, git
commit, times)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.config import Config
from rag.errors import EvaluationError
from rag.evaluate.dry_run import DRY_RUN_EMBEDDING_MODEL
from rag.evaluate.questions import Question, question_set_hash
from rag.evaluate.records import write_atomically
from rag.index.store import Index
from rag.settings import PROJECT_ROOT

if TYPE_CHECKING:
    from rag.evaluate.judge import Judge

RUN_FILE = "run.json"
PINNED_KEYS = ("question_set_hash", "k", "retrieval_only", "dry_run", "history_mode")
_PINNED_DEFAULTS = {"history_mode": "given"}  # runs saved before replaying existed used the given history


def write_json(path: Path, data: Any) -> None:
    """Write `data` as indented JSON, atomically (see `write_atomically`)."""
    write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


# ---------------------------------------------------------------------- run.json
def pinned_settings(
    questions: Sequence[Question],
    configs: Sequence[Config],
    *,
    k: int,
    retrieval_only: bool,
    dry_run: bool,
    history_mode: str,
) -> dict[str, Any]:
    """What `run.json` pins: the question-set hash, k, the modes and every config's settings."""
    return {
        "question_set_hash": question_set_hash(questions),
        "k": k,
        "retrieval_only": retrieval_only,
        "dry_run": dry_run,
        "history_mode": history_mode,
        "configs": {config.name: config.to_dict() for config in configs},
    }


def _check_resume(run_file: Path, pinned: Mapping[str, Any]) -> dict[str, Any]:
    """The settings pinned before, when a resumed run uses the same question set, k and modes, and unchanged
    configs; else EvaluationError."""
    try:
        previous = json.loads(run_file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise EvaluationError(f"{run_file} is unreadable ({error}); use --overwrite to start over") from None
    for key in PINNED_KEYS:
        if previous.get(key, _PINNED_DEFAULTS.get(key)) != pinned[key]:
            raise EvaluationError(
                f"cannot resume: {key} was {previous.get(key)!r} and is now {pinned[key]!r}; "
                "use the same settings, another --out folder, or --overwrite"
            )
    for name, settings in pinned["configs"].items():
        before = previous.get("configs", {}).get(name)
        if before is not None and before != settings:
            raise EvaluationError(f"cannot resume: config {name!r} changed since the run started; use --overwrite")
    return previous


def pin_run(run_file: Path, pinned: dict[str, Any], resume: bool) -> dict[str, Any]:
    """Write `pinned` to `run_file` and return it; a resumed run must match what the file pinned before
    (EvaluationError otherwise), and the configs pinned then stay pinned."""
    if resume and run_file.exists():
        previous = _check_resume(run_file, pinned)
        pinned["configs"] = {**previous.get("configs", {}), **pinned["configs"]}
    write_json(run_file, pinned)
    return pinned


# ---------------------------------------------------------------------- the manifest
def git_commit() -> str | None:
    """`git rev-parse HEAD` of the project, or None outside a repository / without git."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def git_dirty() -> bool | None:
    """Whether tracked files differ from the commit (None without git)."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=PROJECT_ROOT, capture_output=True,
            text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


def index_fingerprint(index: Index) -> dict[str, Any]:
    """Hash of the indexed documents' content hashes and the embedding model, with the documents listed."""
    documents = sorted(index.documents(), key=lambda record: record.source)
    model = str(getattr(index.embedder, "name", "unknown"))
    payload = "\n".join([model, *(f"{record.source}\x00{record.content_hash}" for record in documents)])
    return {
        "index_hash": hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16],
        "embedding_model": model,
        "embedding_backend": str(getattr(index, "backend", "")),  # the same vectors either way; recorded for timings
        "documents": [
            {"source": record.source, "api": record.api, "content_hash": record.content_hash[:16]}
            for record in documents
        ],
    }


def build_manifest(
    pinned: Mapping[str, Any],
    *,
    questions: int,
    questions_source: str,
    fingerprint: Mapping[str, Any],
    configs: Sequence[Config],
    models: Mapping[str, str],
    judge: Judge | None,
    started_at: datetime,
    finished_at: datetime,
    max_text_chars: int | None,
    resumed: int,
    parallel: bool,
    warnings: list[str],
) -> dict[str, Any]:
    """The manifest saved with a run's metrics: the pinned settings (`pinned_settings`), the index fingerprint,
    each config's settings and model, the judge, the git commit and when the run started and finished."""
    return {
        "question_set_hash": pinned["question_set_hash"],
        "questions": questions,
        "questions_source": questions_source,
        **fingerprint,
        "dry_run_embedding_model": DRY_RUN_EMBEDDING_MODEL if pinned["dry_run"] else None,
        "configs": {config.name: config.to_dict() for config in configs},
        "models": dict(models),
        "judge": judge.spec if judge is not None else None,
        "judge_runs": judge.runs if judge is not None else None,
        "git_commit": git_commit(),
        "git_dirty": git_dirty(),
        "started_at": started_at.isoformat(timespec="seconds"),
        "finished_at": finished_at.isoformat(timespec="seconds"),
        "k": pinned["k"],
        "retrieval_only": pinned["retrieval_only"],
        "dry_run": pinned["dry_run"],
        "max_text_chars": max_text_chars,
        "resumed_records": resumed,
        "parallel": parallel,
        "warnings": warnings,
    }
