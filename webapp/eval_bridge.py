"""The app's bridge to the evaluation package (`rag.evaluate`): start evaluations and test sets as background jobs.

The package is imported at run time: `evaluation_available()` / `question_generation_available()` say whether
the features can be offered, and why not (so the pages show a clear message instead of failing).
Used: `rag.evaluate.runner.run_evaluation(engine, questions, configs, out_dir, retrieval_only=…, progress=…)`,
`rag.evaluate.questions.load_questions / write_questions` and `rag.evaluate.generate.make_questions(index, api,
limit)`.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rag.config import Config
from rag.errors import RagError
from rag.runner import Engine
from webapp.eval_runs import eval_data_dir, results_dir
from webapp.jobs import Job, start_job

RUNNER_MODULE = "rag.evaluate.runner"
GENERATE_MODULE = "rag.evaluate.generate"
QUESTIONS_MODULE = "rag.evaluate.questions"
TEST_SET_SIZE = 30
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _function(module_name: str, name: str) -> tuple[Callable[..., Any] | None, str]:
    """A function of the evaluation package, or None and why it is not there."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None, f"`{module_name}` is not installed"
    except Exception as error:  # a half-written module must not break the page
        return None, f"`{module_name}` failed to load ({type(error).__name__}: {error})"
    function = getattr(module, name, None)
    if not callable(function):
        return None, f"`{module_name}` has no `{name}()`"
    return function, ""


def _require(module_name: str, name: str, feature: str) -> Callable[..., Any]:
    function, why = _function(module_name, name)
    if function is None:
        raise RagError(f"cannot {feature}: {why}")
    return function


def evaluation_available() -> tuple[bool, str]:
    """Whether evaluations can be started here; the reason when they cannot."""
    for module_name, name in ((RUNNER_MODULE, "run_evaluation"), (QUESTIONS_MODULE, "load_questions")):
        function, why = _function(module_name, name)
        if function is None:
            return False, f"Starting evaluations needs the evaluation package: {why}."
    return True, ""


def question_generation_available() -> tuple[bool, str]:
    """Whether a test set can be generated and run here; the reason when it cannot."""
    ok, why = evaluation_available()
    if not ok:
        return False, why.replace("Starting evaluations", "Making a test set")
    function, reason = _function(GENERATE_MODULE, "make_questions")
    if function is None:
        return False, f"Making a test set needs the evaluation package: {reason}."
    return True, ""


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
    questions: Path | Sequence[Any],
    configs: Sequence[Config],
    retrieval_only: bool = False,
    out_root: Path | None = None,
    run_name: str | None = None,
) -> Path:
    """Evaluate `configs` on a question file (or loaded questions) in the job's thread; returns the run folder."""
    run_evaluation = _require(RUNNER_MODULE, "run_evaluation", "start an evaluation")
    source = ""
    if isinstance(questions, Path):
        load_questions = _require(QUESTIONS_MODULE, "load_questions", "read the question set")
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
    return Path(getattr(result, "out_dir", out_dir))


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
    make_questions = _require(GENERATE_MODULE, "make_questions", "make a test set")
    write_questions = _require(QUESTIONS_MODULE, "write_questions", "save the test set")
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
