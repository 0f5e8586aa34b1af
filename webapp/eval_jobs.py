"""Evaluations and test sets started from the app, run as background jobs (`webapp.jobs`): a question set through
`rag.evaluate.runner.run_evaluation`, or a test set made by `rag.evaluate.generate.make_questions` and then
evaluated.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rag.config import Config
from rag.errors import RagError
from rag.evaluate.generate import make_questions
from rag.evaluate.questions import Question, load_questions, write_questions
from rag.evaluate.runner import run_evaluation
from rag.evaluate.saved_runs import eval_data_dir, results_dir
from rag.runner import Engine
from webapp.jobs import Job, start_job

TEST_SET_SIZE = 30
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    """A file or folder name made of letters, digits, `.`, `_` and `-`."""
    return _UNSAFE.sub("-", text).strip("-.") or "run"


def default_run_name(prefix: str = "app") -> str:
    """`app-20250101-120000`."""
    return f"{safe_name(prefix)}-{time.strftime('%Y%m%d-%H%M%S')}"


def _progress(job: Job) -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        job.report(done=done, total=total, message=f"question {done} of {total}")

    return report


def run_evaluation_now(
    job: Job,
    engine: Engine,
    questions: Path | Sequence[Question],
    configs: Sequence[Config],
    retrieval_only: bool = False,
    out_root: Path | None = None,
    run_name: str | None = None,
) -> Path:
    """Evaluate `configs` on a question file (or loaded questions) in the job's thread; returns the run folder."""
    source = ""
    if isinstance(questions, Path):
        job.report(message=f"loading {questions.name}")
        source = str(questions)
        questions = load_questions(questions, index=engine.index)
    items = list(questions)
    out_dir = (out_root or results_dir()) / safe_name(run_name or default_run_name())
    job.report(done=0, total=len(items), message=f"{len(items)} questions × {len(configs)} configuration(s)")
    result = run_evaluation(
        engine,
        items,
        list(configs),
        out_dir,
        retrieval_only=retrieval_only,
        progress=_progress(job),
        questions_source=source,
    )
    return Path(result.out_dir)


def start_evaluation(
    engine: Engine,
    questions_path: Path,
    configs: Sequence[Config],
    retrieval_only: bool = False,
    out_root: Path | None = None,
    run_name: str | None = None,
) -> Job:
    """Start an evaluation in the background (the session is not blocked); returns the job to poll."""
    label = f"{questions_path.name} × {', '.join(c.name for c in configs)}"
    return start_job(
        label,
        lambda job: run_evaluation_now(job, engine, questions_path, configs, retrieval_only, out_root, run_name),
    )


def make_test_set_now(job: Job, engine: Engine, api: str, limit: int = TEST_SET_SIZE,
                      out_dir: Path | None = None) -> Path:
    """Generate questions about one indexed API and save them as `eval_data/generated/<api>.jsonl`."""
    job.report(message=f"making questions about {api}")
    questions = make_questions(engine.index, api, limit=limit)
    if not questions:
        raise RagError(f"no questions could be made about {api}: it has no operations or schemas to ask about")
    path = (out_dir or eval_data_dir() / "generated") / f"{safe_name(api)}.jsonl"
    write_questions(questions, path)
    return path


def start_test_set(
    engine: Engine,
    api: str,
    configs: Sequence[Config],
    retrieval_only: bool = False,
    out_root: Path | None = None,
    generated_dir: Path | None = None,
    limit: int = TEST_SET_SIZE,
) -> Job:
    """Make a test set for one API and evaluate `configs` on it, as one background job."""

    def target(job: Job) -> Path:
        path = make_test_set_now(job, engine, api, limit, generated_dir)
        return run_evaluation_now(job, engine, path, configs, retrieval_only, out_root, default_run_name(f"spec-{api}"))

    return start_job(f"test set for {api}", target, kind="test-set")
