"""The app's bridge to the evaluation package (`rag.evaluate`), which may not be installed yet.

`evaluation_available()` / `question_generation_available()` say whether the features can be offered
(and why not). `start_evaluation()` and `start_test_set()` run them as background jobs; arguments are
matched to the package's functions by parameter name, so the app keeps working as that API settles.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rag.app_support.eval_runs import eval_data_dir, results_dir
from rag.app_support.jobs import Job, start_job
from rag.config import Config
from rag.errors import RagError
from rag.runner import Engine

RUNNER_MODULE = "rag.evaluate.runner"
GENERATE_MODULE = "rag.evaluate.generate"
QUESTIONS_MODULE = "rag.evaluate.questions"

# our value name -> parameter names the evaluation package may use for it
ALIASES: dict[str, tuple[str, ...]] = {
    "engine": ("engine",),
    "index": ("index",),
    "snapshot": ("snapshot",),
    "questions": ("questions", "question_set", "questions_path", "question_file", "questions_file", "dataset",
                  "dataset_path", "test_set", "path", "queries"),
    "configs": ("configs", "config_names", "configurations", "experiments"),
    "retrieval_only": ("retrieval_only",),
    "out_dir": ("out_dir", "output_dir", "results_dir", "results_root", "out", "output", "dest", "root"),
    "run_name": ("run_name", "name", "run_id", "label"),
    "progress": ("progress", "on_progress", "progress_callback", "callback", "on_record", "on_result"),
    "source": ("source", "document", "doc_source", "spec", "spec_source"),
    "api": ("api", "api_name"),
    "count": ("n", "count", "limit", "max_questions", "num_questions", "n_questions", "per_kind"),
    "seed": ("seed",),
}


def _function(module_name: str, name: str) -> tuple[Callable[..., Any] | None, str]:
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        missing = getattr(error, "name", "") or ""
        if missing and (module_name.startswith(missing) or missing.startswith("rag.evaluate")):
            return None, f"`{module_name}` is not installed yet"
        return None, f"`{module_name}` cannot be imported ({error})"
    except Exception as error:  # a half-written module must not break the page
        return None, f"`{module_name}` failed to load ({type(error).__name__}: {error})"
    function = getattr(module, name, None)
    if not callable(function):
        return None, f"`{module_name}` has no `{name}()`"
    return function, ""


def evaluation_available() -> tuple[bool, str]:
    """Whether `rag.evaluate.runner.run_evaluation` exists; the reason when it does not."""
    function, why = _function(RUNNER_MODULE, "run_evaluation")
    if function is None:
        return False, f"Starting evaluations needs the evaluation package: {why}."
    return True, ""


def question_generation_available() -> tuple[bool, str]:
    """Whether `rag.evaluate.generate.make_questions` and the runner exist; the reason when not."""
    ok, why = evaluation_available()
    if not ok:
        return False, why
    function, reason = _function(GENERATE_MODULE, "make_questions")
    if function is None:
        return False, f"Making a test set needs the evaluation package: {reason}."
    return True, ""


def call_with(function: Callable[..., Any], values: Mapping[str, Any]) -> Any:
    """Call `function`, passing each of our values under whichever alias it accepts.

    Required parameters we cannot fill raise RagError naming them.
    """
    signature = inspect.signature(function)
    parameters = signature.parameters
    accepts_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    kwargs: dict[str, Any] = {}
    used: set[str] = set()
    for ours, value in values.items():
        if value is None:
            continue
        for alias in ALIASES.get(ours, (ours,)):
            if alias in parameters and alias not in kwargs and parameters[alias].kind not in (
                inspect.Parameter.VAR_POSITIONAL,
                inspect.Parameter.VAR_KEYWORD,
            ):
                kwargs[alias] = value(parameters[alias]) if isinstance(value, _PerParameter) else value
                used.add(ours)
                break
    missing = [
        name
        for name, parameter in parameters.items()
        if parameter.default is inspect.Parameter.empty
        and parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        and name not in kwargs
    ]
    if missing:
        raise RagError(
            f"{function.__module__}.{function.__name__}() needs {', '.join(missing)}, which the app cannot provide; "
            "run it from the command line instead"
        )
    if accepts_kwargs:
        for ours, value in values.items():
            if ours not in used and value is not None and ours in ("progress",):
                kwargs[ours] = value
    return function(**kwargs)


class _PerParameter:
    """A value that depends on the parameter it is passed to (its annotation)."""

    def __init__(self, choose: Callable[[inspect.Parameter], Any]) -> None:
        self.choose = choose

    def __call__(self, parameter: inspect.Parameter) -> Any:
        return self.choose(parameter)


def _annotation(parameter: inspect.Parameter) -> str:
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        return ""
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))


def _questions_value(path: Path, engine: Engine) -> _PerParameter:
    """The question set as a path (when the parameter looks like one) or as loaded questions."""

    def choose(parameter: inspect.Parameter) -> Any:
        annotation = _annotation(parameter)
        if re.search(r"path|file", parameter.name) or (
            re.search(r"\bPath\b|\bstr\b", annotation) and not re.search(r"Sequence|list|Iterable|Question", annotation)
        ):
            return path
        loader, _ = _function(QUESTIONS_MODULE, "load_questions")
        if loader is not None:
            return call_with(loader, {"questions": path, "index": engine.index})
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    return _PerParameter(choose)


def _configs_value(configs: Sequence[Config]) -> _PerParameter:
    def choose(parameter: inspect.Parameter) -> Any:
        annotation = _annotation(parameter)
        if "Config" not in annotation and re.search(r"\bstr\b", annotation):
            return [config.name for config in configs]
        return list(configs)

    return _PerParameter(choose)


class ProgressAdapter:
    """A progress callback of any shape: `(done, total)`, `(done, total, message)`, a record, or nothing."""

    def __init__(self, job: Job, expected: int = 0) -> None:
        self.job = job
        self.count = 0
        if expected:
            job.report(total=expected)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        numbers = [a for a in args if isinstance(a, int) and not isinstance(a, bool)]
        done = kwargs.get("done", numbers[0] if numbers else None)
        total = kwargs.get("total", numbers[1] if len(numbers) > 1 else None)
        texts = [a for a in args if isinstance(a, str)]
        message = kwargs.get("message", texts[0] if texts else None)
        if done is None:
            self.count += 1
            done = self.count
            record = next((a for a in args if isinstance(a, Mapping)), None) or next(
                (a for a in args if hasattr(a, "config")), None
            )
            if record is not None and message is None:
                config = record.get("experiment") if isinstance(record, Mapping) else getattr(record, "config", "")
                query_id = record.get("query_id") if isinstance(record, Mapping) else ""
                message = " ".join(str(x) for x in (config, query_id) if x)
        self.job.report(done=done, total=total, message=message)


def _count_questions(path: Path) -> int:
    try:
        return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    except OSError:
        return 0


def _run_dir(returned: Any, out_root: Path, started: float) -> Path | None:
    """Where the run was saved: the returned path (or an attribute naming it), else the newest folder."""
    if isinstance(returned, (str, Path)) and Path(returned).exists():
        path = Path(returned)
        return path if path.is_dir() else path.parent
    for attribute in ("run_dir", "path", "out_dir", "output_dir", "directory"):
        value = getattr(returned, attribute, None) if not isinstance(returned, Mapping) else returned.get(attribute)
        if isinstance(value, (str, Path)) and Path(value).exists():
            return Path(value)
    if out_root.is_dir():
        fresh = [p for p in out_root.iterdir() if p.is_dir() and p.stat().st_mtime >= started - 1]
        if fresh:
            return max(fresh, key=lambda p: p.stat().st_mtime)
    return None


def default_run_name(prefix: str = "app") -> str:
    """`app-20250101-120000`."""
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}"


def run_evaluation_now(
    job: Job,
    engine: Engine,
    questions_path: Path,
    configs: Sequence[Config],
    retrieval_only: bool = False,
    out_root: Path | None = None,
    run_name: str | None = None,
) -> Path | None:
    """Run `rag.evaluate.runner.run_evaluation` for a job (in the job's thread); returns the run folder."""
    function, why = _function(RUNNER_MODULE, "run_evaluation")
    if function is None:
        raise RagError(f"cannot start an evaluation: {why}")
    out_root = out_root or results_dir()
    out_root.mkdir(parents=True, exist_ok=True)
    name = run_name or default_run_name()
    progress = ProgressAdapter(job, _count_questions(questions_path) * len(configs))
    started = time.time()
    job.report(message=f"running {len(configs)} configuration(s) on {questions_path.name}")
    parameters = inspect.signature(function).parameters
    # A function that names its runs gets the results root; one that only takes a folder gets the run's own.
    names_runs = any(alias in parameters for alias in ALIASES["run_name"])
    takes_root = any(alias in parameters for alias in ("results_root", "results_dir", "root"))
    out_value = out_root if names_runs or takes_root else out_root / name
    returned = call_with(
        function,
        {
            "engine": engine,
            "questions": _questions_value(questions_path, engine),
            "configs": _configs_value(configs),
            "retrieval_only": retrieval_only,
            "out_dir": out_value,
            "run_name": name,
            "progress": progress,
        },
    )
    return _run_dir(returned, out_root, started)


def start_evaluation(
    engine: Engine,
    questions_path: Path,
    configs: Sequence[Config],
    retrieval_only: bool = False,
    out_root: Path | None = None,
    run_name: str | None = None,
) -> Job:
    """Start an evaluation in the background; returns the job to poll."""
    label = f"{questions_path.name} × {', '.join(c.name for c in configs)}"
    return start_job(
        label,
        lambda job: run_evaluation_now(job, engine, questions_path, configs, retrieval_only, out_root, run_name),
    )


def make_test_set_now(job: Job, engine: Engine, source: str, api: str, count: int | None = None,
                      out_dir: Path | None = None) -> Path:
    """Generate questions for one indexed document with `rag.evaluate.generate.make_questions`; returns the file."""
    function, why = _function(GENERATE_MODULE, "make_questions")
    if function is None:
        raise RagError(f"cannot make a test set: {why}")
    job.report(message=f"making questions for {source}")
    returned = call_with(
        function,
        {
            "engine": engine,
            "index": engine.index,
            "snapshot": engine.index.snapshot(),
            "source": source,
            "api": api,
            "count": count,
        },
    )
    if isinstance(returned, (str, Path)) and Path(returned).is_file():
        return Path(returned)
    items = list(returned or [])
    if not items:
        raise RagError(f"no questions could be made for {source}")
    out_dir = out_dir or eval_data_dir() / "generated"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', api or source)}.jsonl"
    writer, _ = _function(QUESTIONS_MODULE, "write_questions")
    if writer is not None and all(hasattr(item, "to_dict") for item in items):
        writer(items, path)
    else:
        lines = [json.dumps(item.to_dict() if hasattr(item, "to_dict") else item, ensure_ascii=False) for item in items]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def start_test_set(engine: Engine, source: str, api: str, configs: Sequence[Config], retrieval_only: bool = False,
                   out_root: Path | None = None, generated_dir: Path | None = None) -> Job:
    """Make a test set for one document and evaluate `configs` on it, as one background job."""

    def target(job: Job) -> Path | None:
        path = make_test_set_now(job, engine, source, api, out_dir=generated_dir)
        job.report(done=0, total=0, message=f"test set {path.name} ready; evaluating")
        return run_evaluation_now(job, engine, path, configs, retrieval_only, out_root, default_run_name(f"spec-{api}"))

    return start_job(f"test set for {source}", target, kind="test-set")
