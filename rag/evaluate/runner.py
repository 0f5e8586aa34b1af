"""Run a question set through configurations and write auditable, resumable results.

`run_evaluation` writes `OUT/<config>.jsonl` (one record per question, flushed and fsync'ed after each,
so a killed run loses at most the line being written) and, at the end, `OUT/metrics.json` with every
metric per configuration and a manifest (question-set hash, index hash, configs, models, git commit,
times). `OUT/run.json` pins what a resumed run must match. `resume` keeps the records already written
(a torn last line is dropped and rewritten); `overwrite` starts over; with neither, existing results are
an error. `dry_run` retrieves with fake (hashing) embeddings over a temporary copy of the index and
writes placeholder answers: no model and no network call.

The pieces live beside this module: the record and its file in records.py, dry runs in dry_run.py, run.json
and the manifest in manifest.py, metrics.json and the text table in report.py, the log in eval_log.py. This
module keeps the run loop: checking the arguments, the question-by-question loop and its retries.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from rag.config import Config, searched_strategies
from rag.errors import ConfigError, EvaluationError
from rag.evaluate.dry_run import DRY_RUN_MODEL, mark_dry_run, temporary_dry_run_engine
from rag.evaluate.eval_log import log, log_file, logging_to
from rag.evaluate.history import HISTORY_MODES, replayed_history
from rag.evaluate.judge import Judge, judge_warnings
from rag.evaluate.manifest import RUN_FILE, build_manifest, index_fingerprint, pin_run, pinned_settings, write_json
from rag.evaluate.questions import Question
from rag.evaluate.records import append_record, build_record, read_records, result_file
from rag.evaluate.report import METRICS_FILE, compute_metrics
from rag.pipeline.features import ablations
from rag.results import AnswerResult
from rag.runner import Engine

TRANSIENT = re.compile(
    r"timed? ?out|timeout|rate.?limit|\b429\b|server error|\b50[0-9]\b|cannot reach|connection|temporar|overloaded|"
    r"unavailable \(5",
    re.IGNORECASE,
)

Progress = Callable[[int, int], None]


@dataclass
class EvaluationResult:
    """What `run_evaluation` did: where, how many records it wrote or kept, and the metrics."""

    out_dir: Path
    files: dict[str, Path]
    metrics: dict[str, Any]
    written: int = 0
    resumed: int = 0
    warnings: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------- configs
def ablation_configs(base: Config) -> list[Config]:
    """`base` plus `base` without each feature switched on in it (rag.pipeline.features)."""
    return [base, *ablations(base)]


def with_k(config: Config, k: int) -> Config:
    """The config retrieving `k` chunks (candidate pool at least k); unchanged when it already does."""
    if config.k == k:
        return config
    return replace(config, k=k, candidate_pool=max(config.candidate_pool, k))


# ---------------------------------------------------------------------- one run
@dataclass(frozen=True)
class _Plan:
    """What one `run_evaluation` call evaluates and how, fixed once its arguments are checked."""

    questions: Sequence[Question]
    configs: Sequence[Config]  # each retrieving k chunks
    out: Path
    k: int
    retrieval_only: bool
    dry_run: bool
    max_text_chars: int | None
    attempts: int
    retry_delay: float
    parallel: bool
    history_mode: str

    @property
    def files(self) -> dict[str, Path]:
        """Config name → its result file."""
        return {config.name: result_file(self.out, config.name) for config in self.configs}


def _pin(plan: _Plan, resume: bool) -> dict[str, Any]:
    """The run's pinned settings (`run.json`): written for a new run, checked against a resumed one."""
    settings = pinned_settings(plan.questions, plan.configs, k=plan.k, retrieval_only=plan.retrieval_only,
                               dry_run=plan.dry_run, history_mode=plan.history_mode)
    return pin_run(plan.out / RUN_FILE, settings, resume)


def run_evaluation(
    engine: Engine,
    questions: Sequence[Question],
    configs: Sequence[Config],
    out_dir: Path | str,
    k: int = 5,
    retrieval_only: bool = False,
    resume: bool = False,
    overwrite: bool = False,
    dry_run: bool = False,
    judge: Judge | None = None,
    progress: Progress | None = None,
    *,
    max_text_chars: int | None = None,
    attempts: int = 3,
    retry_delay: float = 1.0,
    log_path: Path | None = None,
    questions_source: str = "",
    parallel: bool = False,
    history_mode: str = "replay",
) -> EvaluationResult:
    """Evaluate `configs` on `questions`, writing `OUT/<config>.jsonl` and `OUT/metrics.json` (see module doc).

    `k` is the number of chunks retrieved and the cut-off of hit@k, MRR, recall@k and nDCG@k.
    Configs run one after another per question so that each one's latency is its own; `parallel` runs
    them concurrently, sharing embeddings and candidate pools (faster with hosted LLMs, but then a
    config's timings omit work another config did for it). `max_text_chars` truncates stored chunk texts.
    Logs go to `log_path`, else $RAG_EVAL_LOG, else `OUT/eval.log` beside the records. A question whose run still fails
    after `attempts` tries (transient API errors are retried with exponential backoff from `retry_delay`
    seconds) is recorded with its error and the run goes on.
    """
    _check_arguments(questions, configs, k, resume, overwrite, history_mode, max_text_chars)
    plan = _Plan(
        questions, [with_k(config, k) for config in configs], Path(out_dir), k, retrieval_only, dry_run,
        max_text_chars, attempts, retry_delay, parallel, history_mode,
    )  # fmt: skip
    _prepare_out_dir(plan, resume, overwrite)
    pinned = _pin(plan, resume)
    with ExitStack() as stack:
        stack.enter_context(logging_to(log_file(plan.out, log_path)))
        started_at = datetime.now(UTC)
        fingerprint = index_fingerprint(engine.index)
        done, resumed = _done_before(plan, resume)
        answering = stack.enter_context(temporary_dry_run_engine(engine.index)) if dry_run else engine
        warnings = _judge_warnings(engine, plan, judge)
        _log_start(plan, resumed, warnings)
        _embed_set_aside(engine, plan)
        written = _evaluate_all(answering, engine, plan, done, judge, progress)
        manifest = build_manifest(
            pinned, questions=len(questions), questions_source=questions_source, fingerprint=fingerprint,
            configs=plan.configs, models=_models(engine, plan), judge=judge, started_at=started_at,
            finished_at=datetime.now(UTC), max_text_chars=max_text_chars, resumed=resumed, parallel=parallel,
            warnings=warnings,
        )  # fmt: skip
        metrics = compute_metrics(plan.out, plan.configs, questions, k, manifest=manifest)
        write_json(plan.out / METRICS_FILE, metrics)
        log.info("evaluation done: %d records written, %d kept from before; %s", written, resumed,
                 plan.out / METRICS_FILE)
        return EvaluationResult(plan.out, plan.files, metrics, written, resumed, warnings)


def _embed_set_aside(engine: Engine, plan: _Plan) -> None:
    """Embed the chunks set aside at ingest that a config searches (the schema chunks, C0's naive ones) before the
    first question, so that no configuration is scored without them (a dry run copies them into its own index)."""
    if not plan.dry_run:
        embedded = engine.index.complete_pending(searched_strategies(plan.configs))
        if embedded:
            log.info("embedded %d chunks set aside at ingest that the configs search", embedded)


def _check_arguments(
    questions: Sequence[Question],
    configs: Sequence[Config],
    k: int,
    resume: bool,
    overwrite: bool,
    history_mode: str,
    max_text_chars: int | None,
) -> None:
    """EvaluationError or ConfigError for arguments `run_evaluation` cannot run with."""
    if resume and overwrite:
        raise EvaluationError("choose one of --resume and --overwrite")
    if not questions:
        raise EvaluationError("the question set is empty")
    if not configs:
        raise EvaluationError("no configs to evaluate")
    if not isinstance(k, int) or not 1 <= k <= 50:
        raise ConfigError(f"k={k!r} is not allowed; allowed: a whole number from 1 to 50")
    if history_mode not in HISTORY_MODES:
        raise ConfigError(f"history_mode={history_mode!r} is not allowed; allowed: {', '.join(HISTORY_MODES)}")
    if max_text_chars is not None and max_text_chars < 0:
        raise ConfigError(f"max_text_chars={max_text_chars!r} is not allowed; allowed: 0 or more")
    names = [config.name for config in configs]
    if len(set(names)) != len(names):
        raise EvaluationError(f"config names repeat: {', '.join(names)}")
    ids = [question.id for question in questions]
    if len(set(ids)) != len(ids):
        raise EvaluationError("question ids repeat; load questions with load_questions to see which")


def _prepare_out_dir(plan: _Plan, resume: bool, overwrite: bool) -> None:
    """Create OUT; results already there are an error unless resumed, and are deleted when overwritten."""
    plan.out.mkdir(parents=True, exist_ok=True)
    run_file, metrics_file = plan.out / RUN_FILE, plan.out / METRICS_FILE
    existing = [path for path in [*plan.files.values(), run_file, metrics_file] if path.exists()]
    if existing and not resume and not overwrite:
        shown = ", ".join(path.name for path in existing[:6])
        raise EvaluationError(
            f"{plan.out} already holds results ({shown}); pass --resume to continue them or --overwrite to start over"
        )
    if overwrite:
        for path in plan.out.glob("*.jsonl"):
            path.unlink()
        for path in (run_file, metrics_file):
            path.unlink(missing_ok=True)


def _done_before(plan: _Plan, resume: bool) -> tuple[dict[str, set[str]], int]:
    """Config name → ids of the questions it already has records for (none unless resumed), and their count."""
    ids = {question.id for question in plan.questions}
    done: dict[str, set[str]] = {}
    for name, path in plan.files.items():
        records, dropped = read_records(path) if resume else ([], 0)
        if dropped:
            log.warning("%s: dropped %d torn or invalid line(s) before resuming", path, dropped)
        done[name] = {str(record["query_id"]) for record in records} & ids
    return done, sum(len(known) for known in done.values())


def _judge_warnings(engine: Engine, plan: _Plan, judge: Judge | None) -> list[str]:
    """What to say about the judge before the run: not called in a dry run, or judging its own model."""
    if judge is None:
        return []
    if plan.dry_run:
        return ["dry run: the judge is not called"]
    if plan.retrieval_only:
        return []
    return judge_warnings(judge.spec, [engine.llm_spec(config) for config in plan.configs])


def _log_start(plan: _Plan, resumed: int, warnings: Sequence[str]) -> None:
    """Log the warnings and what the run is about to do."""
    for warning in warnings:
        log.warning(warning)
    log.info(
        "evaluation start: %d questions x %d configs (%s) -> %s; k=%d retrieval_only=%s dry_run=%s resumed=%d",
        len(plan.questions), len(plan.configs), ", ".join(config.name for config in plan.configs), plan.out,
        plan.k, plan.retrieval_only, plan.dry_run, resumed,
    )  # fmt: skip


def _models(engine: Engine, plan: _Plan) -> dict[str, str]:
    """Config name → the model that answered (as the manifest names it)."""
    if plan.dry_run:
        return {config.name: DRY_RUN_MODEL for config in plan.configs}
    if plan.retrieval_only:
        return {config.name: "none (retrieval only)" for config in plan.configs}
    return {config.name: engine.llm_spec(config) for config in plan.configs}


# ---------------------------------------------------------------------- the question loop
def _evaluate_all(
    answering: Engine,
    engine: Engine,
    plan: _Plan,
    done: Mapping[str, set[str]],
    judge: Judge | None,
    progress: Progress | None,
) -> int:
    """Run every question through the configs that have no record of it yet, appending each record to the
    config's file as soon as it is made; returns how many records were written."""
    written = 0
    with ExitStack() as files:
        handles = {name: files.enter_context(open(path, "a", encoding="utf-8")) for name, path in plan.files.items()}
        for position, question in enumerate(plan.questions, start=1):
            pending = [config for config in plan.configs if question.id not in done[config.name]]
            if pending:
                results = _run_configs(
                    answering, question, pending, plan.retrieval_only or plan.dry_run, plan.attempts,
                    plan.retry_delay, plan.parallel, plan.history_mode,
                )
                for config, result in zip(pending, results, strict=True):
                    _write(handles[config.name], _record(engine, plan, question, config, result, judge))
                    done[config.name].add(question.id)
                    written += 1
            if progress is not None:
                progress(position, len(plan.questions))
    return written


def _record(
    engine: Engine, plan: _Plan, question: Question, config: Config, result: AnswerResult, judge: Judge | None
) -> dict[str, Any]:
    """The record of one result (a dry run's with its placeholder answer), judged when it has an answer."""
    if plan.dry_run:
        mark_dry_run(result, plan.retrieval_only)
    model = DRY_RUN_MODEL if plan.dry_run else (result.generator or engine.llm_spec(config))
    record = build_record(
        question, config, result, retrieval_only=plan.retrieval_only, dry_run=plan.dry_run, model=model,
        max_text_chars=plan.max_text_chars,
    )  # fmt: skip
    if judge is not None and record["answered"]:
        verdict = judge.score(question.question, record["llm_answer"], question.ground_truth)
        record.update(
            judge_score=verdict.mean,
            judge_spread=verdict.spread,
            judge_scores=list(verdict.scores),
            judge_errors=list(verdict.errors),
        )
    return record


def _write(handle: IO[str], record: dict[str, Any]) -> None:
    """Append the record and log its failure label, if any."""
    append_record(handle, record)
    if record["failure"]:
        log.info("%s/%s: %s", record["query_id"], record["experiment"], record["failure"])


# ---------------------------------------------------------------------- running one question, with retries
def is_transient(errors: Sequence[str]) -> bool:
    """Whether recorded errors look like passing API trouble (timeouts, 429, 5xx, connection)."""
    return any(TRANSIENT.search(error) for error in errors)


def _failed(config: Config, question: Question, error: Exception) -> AnswerResult:
    """The result of a run that raised instead of recording its error."""
    return AnswerResult.failed(config.name, question.question, error)


def _run_configs(
    engine: Engine,
    question: Question,
    configs: Sequence[Config],
    retrieval_only: bool,
    attempts: int,
    retry_delay: float,
    parallel: bool = False,
    history_mode: str = "replay",
) -> list[AnswerResult]:
    """Run `configs` on one question, retrying results with transient errors (exponential backoff).

    By default each config runs alone (its own embedding and candidate pool), so its timings are its own;
    `parallel` runs them concurrently through `Engine.run_many`, sharing embeddings and pools. With
    `history_mode="replay"` a follow-up comes after each config's own earlier answers (rag/evaluate/history.py).
    """
    given = list(question.history) or None
    replay = history_mode == "replay" and bool(question.history)
    histories = {
        config.name: (replayed_history(engine, question.history, config, retrieval_only) if replay else given)
        for config in configs
    }
    if parallel and not replay:  # replayed, each config has its own conversation
        results = _run_together(engine, question, configs, given, retrieval_only)
    else:
        results = [_run_one(engine, question, config, histories[config.name], retrieval_only) for config in configs]
    if replay:
        for config, result in zip(configs, results, strict=True):
            turns = len(histories[config.name] or [])
            result.notes.append(f"history replayed: {turns} earlier turn(s) from this config's own answers")
    return [
        _retried(engine, question, config, result, histories[config.name], retrieval_only, attempts, retry_delay)
        for config, result in zip(configs, results, strict=True)
    ]


def _run_one(
    engine: Engine, question: Question, config: Config, history: list[dict[str, str]] | None, retrieval_only: bool
) -> AnswerResult:
    """One config on one question; an exception becomes a result with its error."""
    try:
        return engine.run(question.question, config, history=history, retrieval_only=retrieval_only)
    except Exception as error:  # Engine.run records errors itself; this is a last resort
        return _failed(config, question, error)


def _run_together(
    engine: Engine,
    question: Question,
    configs: Sequence[Config],
    history: list[dict[str, str]] | None,
    retrieval_only: bool,
) -> list[AnswerResult]:
    """Every config on one question through `Engine.run_many`; an exception fails them all."""
    try:
        return engine.run_many(question.question, list(configs), history=history, retrieval_only=retrieval_only)
    except Exception as error:  # run_many records errors itself; this is a last resort
        log.warning("%s: run_many failed (%s)", question.id, error)
        return [_failed(config, question, error) for config in configs]


def _retried(
    engine: Engine,
    question: Question,
    config: Config,
    result: AnswerResult,
    history: list[dict[str, str]] | None,
    retrieval_only: bool,
    attempts: int,
    retry_delay: float,
) -> AnswerResult:
    """`result`, or while its errors look transient and attempts are left, a new run after a growing delay."""
    attempt = 1
    while result.errors and is_transient(result.errors) and attempt < attempts:
        delay = retry_delay * (2 ** (attempt - 1))
        log.warning(
            "%s/%s: attempt %d failed (%s); retrying in %.1f s",
            question.id, config.name, attempt, "; ".join(result.errors), delay,
        )  # fmt: skip
        time.sleep(delay)
        attempt += 1
        result = _run_one(engine, question, config, history, retrieval_only)
    if result.errors:
        log.error("%s/%s: failed after %d attempt(s): %s", question.id, config.name, attempt,
                  "; ".join(result.errors))
    return result
