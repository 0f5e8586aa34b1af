"""Run a question set through configurations and write auditable, resumable results.

`run_evaluation` writes `OUT/<config>.jsonl` (one record per question, flushed and fsync'ed after each,
so a killed run loses at most the line being written) and, at the end, `OUT/metrics.json` with every
metric per configuration and a manifest (question-set hash, index hash, configs, models, git commit,
times). `OUT/run.json` pins what a resumed run must match. `resume` keeps the records already written
(a torn last line is dropped and rewritten); `overwrite` starts over; with neither, existing results are
an error. `dry_run` retrieves with fake (hashing) embeddings over a temporary copy of the index and
writes placeholder answers: no model and no network call.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from rag.config import Config
from rag.errors import ConfigError, IndexUnavailableError, RagError
from rag.evaluate.history import HISTORY_MODES, replayed_history
from rag.evaluate.judge import Judge, judge_warnings
from rag.evaluate.metrics import failure_label, first_relevant_rank, keyword_recall, summarize
from rag.evaluate.questions import Question, question_set_hash
from rag.index.store import Index
from rag.rerank.base import Reranker, RerankerUnavailable
from rag.results import AnswerResult, RetrievedChunk
from rag.retrieve.context import QueryContext
from rag.runner import Engine
from rag.settings import PROJECT_ROOT, Settings

DEFAULT_LOG = PROJECT_ROOT / "logs" / "eval.log"
LOG_ENV = "RAG_EVAL_LOG"  # overrides where evaluation logs go
RUN_FILE = "run.json"
METRICS_FILE = "metrics.json"
DRY_RUN_ANSWER = "[dry run] placeholder answer: no model was called."
TRANSIENT = re.compile(
    r"timed? ?out|timeout|rate.?limit|\b429\b|server error|\b50[0-9]\b|cannot reach|connection|temporar|overloaded|"
    r"unavailable \(5",
    re.IGNORECASE,
)
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
log = logging.getLogger("rag.evaluate")

Progress = Callable[[int, int], None]


class EvaluationError(RagError):
    """An evaluation cannot start or continue (existing results, a mismatched resume, bad arguments)."""


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
    """`base` plus `base.without(feature)` for each feature switched on in `base`."""
    return [base, *(base.without(feature) for feature, on in base.features().items() if on)]


def with_k(config: Config, k: int) -> Config:
    """The config retrieving `k` chunks (candidate pool at least k); unchanged when it already does."""
    if config.k == k:
        return config
    return replace(config, k=k, candidate_pool=max(config.candidate_pool, k))


def result_file(out_dir: Path, config_name: str) -> Path:
    """`OUT/<config>.jsonl` (characters unsafe in file names replaced)."""
    return Path(out_dir) / f"{_SAFE_NAME.sub('_', config_name)}.jsonl"


# ---------------------------------------------------------------------- index helpers
class _NameOnlyEmbedder:
    """Carries the index's embedding model name so its chunks can be read without loading the model."""

    def __init__(self, name: str, dimension: int = 0) -> None:
        self.name = name
        self.dimension = dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise IndexUnavailableError(f"the embedding model {self.name!r} is not loaded (read-only use of the index)")


def open_index_without_model(settings: Settings) -> Index:
    """Open an existing index to read its chunks without loading the embedding model (dry runs, generation)."""
    from rag.index.build import make_chroma_client
    from rag.index.registry import Registry

    registry_file = Path(settings.index_dir) / "registry.sqlite3"
    if not registry_file.is_file():
        raise IndexUnavailableError(
            f"no index in {settings.index_dir}; build it with `python -m rag ingest <specs>` or `make index`"
        )
    stored = Registry(registry_file).get_meta("embedding_model")
    if stored is None:
        raise IndexUnavailableError(f"the index in {settings.index_dir} is empty; ingest specs first")
    dimension = int(Registry(registry_file).get_meta("embedding_dimension") or 0)
    return Index(settings.index_dir, _NameOnlyEmbedder(stored, dimension), chroma_client=make_chroma_client(settings))


def index_fingerprint(index: Index) -> dict[str, Any]:
    """Hash of the indexed documents' content hashes and the embedding model, with the documents listed."""
    import hashlib

    documents = sorted(index.documents(), key=lambda record: record.source)
    model = str(getattr(index.embedder, "name", "unknown"))
    payload = "\n".join([model, *(f"{record.source}\x00{record.content_hash}" for record in documents)])
    return {
        "index_hash": hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16],
        "embedding_model": model,
        "documents": [
            {"source": record.source, "api": record.api, "content_hash": record.content_hash[:16]}
            for record in documents
        ],
    }


class _SkippedReranker:
    """Stands in for model-backed rerankers during a dry run: says it was skipped, calls nothing."""

    def __init__(self, kind: str) -> None:
        self.name = f"dry-run:{kind}"
        self.kind = kind

    def score(self, query: str, candidates: Sequence[RetrievedChunk]) -> list[float]:
        raise RerankerUnavailable(f"dry run: the {self.kind} reranker is not called; first-stage order kept")


class DryRunEngine(Engine):
    """An engine that never calls a model: every LLM stage resolves to the offline path."""

    def llm_spec(self, config: Config) -> str:
        """Always `extractive` (no chat model)."""
        return "extractive"

    def _reranker(self, config: Config, ctx: QueryContext) -> Reranker | None:
        if config.reranker in ("cross-encoder", "llm"):
            return _SkippedReranker(config.reranker)
        return super()._reranker(config, ctx)


def dry_run_engine(index: Index, directory: Path) -> DryRunEngine:
    """An engine over a temporary index in `directory` holding the same chunks, embedded by HashingEmbedder."""
    from rag.index.embedder import HashingEmbedder
    from rag.ingest.pipeline import ParsedDocument

    copy = Index(directory, HashingEmbedder())
    snapshot = index.snapshot()
    by_version: dict[str, list[Any]] = {}
    for chunk in snapshot.chunks.values():
        by_version.setdefault(chunk.doc_version, []).append(chunk)
    for record in snapshot.documents:
        chunks = tuple(
            replace(chunk, chunk_id=chunk.chunk_id.removeprefix(f"{record.version}/"), doc_version="")
            for chunk in sorted(by_version.get(record.version, []), key=lambda c: c.chunk_id)
        )
        document = ParsedDocument(
            source=record.source,
            api=record.api,
            doc_type=record.doc_type,
            content_hash=record.content_hash,
            chunks=chunks,
            size_bytes=record.size_bytes,
            title=record.title,
        )
        copy.add(document)
    return DryRunEngine(copy, default_llm="extractive")


# ---------------------------------------------------------------------- records
def _truncate(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + "…"


def chunk_record(item: RetrievedChunk, max_text_chars: int | None = None) -> dict[str, Any]:
    """One retrieved chunk as stored in a record."""
    return {
        "chunk_id": item.chunk.chunk_id,
        "covers": list(item.chunk.covers),
        "api": item.chunk.api,
        "kind": item.chunk.kind,
        "title": item.chunk.title,
        "rank": item.rank,
        "scores": {name: round(float(value), 6) for name, value in item.scores.items()},
        "rank_before_rerank": item.rank_before_rerank,
        "from_expansion": item.from_expansion,
        "text": _truncate(item.chunk.text, max_text_chars),
    }


def _pool_entry(item: RetrievedChunk) -> dict[str, Any]:
    """A candidate-pool entry (pool order is rank order): its covers, and its rank before reranking if any."""
    entry: dict[str, Any] = {"covers": list(item.chunk.covers)}
    if item.rank_before_rerank is not None:
        entry["rank_before_rerank"] = item.rank_before_rerank
    return entry


def build_record(
    question: Question,
    config: Config,
    result: AnswerResult,
    *,
    retrieval_only: bool,
    dry_run: bool,
    model: str,
    max_text_chars: int | None = None,
) -> dict[str, Any]:
    """The JSON record of one question under one config (with its failure label)."""
    timings = {name: round(float(value), 3) for name, value in result.timings_ms.items()}
    error = "; ".join(result.errors) if result.errors else None
    llm_ms = timings.get("generate", 0.0)
    retrieval_ms = round(sum(v for name, v in timings.items() if name not in ("generate", "total")), 3)
    total_ms = timings.get("total", round(sum(timings.values()), 3))
    answered = not retrieval_only and not dry_run and error is None
    record: dict[str, Any] = {
        "query_id": question.id,
        "experiment": config.name,
        "query": question.question,
        "standalone_query": result.standalone_query,
        "category": question.category,
        "answerable": question.answerable,
        "history": [dict(turn) for turn in question.history],
        "retrieved_chunks": [chunk_record(item, max_text_chars) for item in result.chunks],
        "pool": [_pool_entry(item) for item in result.pool],
        "llm_answer": result.answer,
        "answered": answered,
        "abstained": bool(result.abstained),
        "confidence": result.confidence,
        "confidence_score": round(float(result.confidence_score), 4),
        "reasoning_steps": list(result.reasoning_steps),
        # retrieval-only "citations" would repeat retrieved_chunks: kept only for generated answers
        "citations": [citation.to_dict() for citation in result.citations] if not retrieval_only else [],
        "ground_truth": question.ground_truth,
        "relevant_ids": list(question.relevant_ids),
        "required_keywords": list(question.required_keywords),
        "first_relevant_rank": None,
        "keyword_recall": None,
        "failure": None,
        "retrieval_time_ms": retrieval_ms,
        "llm_time_ms": llm_ms,
        "total_time_ms": total_ms,
        "timings_ms": timings,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "model": model,
        "retrieval_only": retrieval_only,
        "dry_run": dry_run,
        "notes": list(result.notes),
        "fallbacks": list(result.fallbacks),
        "error": error,
    }
    record["first_relevant_rank"] = first_relevant_rank(
        [chunk["covers"] for chunk in record["retrieved_chunks"]], question.relevant_ids
    )
    if answered:
        record["keyword_recall"] = keyword_recall(result.answer, question.required_keywords)
    record["failure"] = failure_label(record)
    return record


def read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The valid records of a result file, repairing it in place; returns (records, lines dropped).

    A torn last line (a run killed mid-write) is cut off; invalid or duplicate lines elsewhere make the
    file be rewritten with only the valid, first-seen records.
    """
    if not path.is_file():
        return [], 0
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    dropped = 0
    good_end = 0  # end of the longest prefix of valid, unique, newline-terminated records
    records_after_problem = 0
    position = 0
    while position < len(data):
        newline = data.find(b"\n", position)
        end = len(data) if newline == -1 else newline + 1
        line = data[position:end]
        position = end
        if not line.strip():
            if not dropped:
                good_end = end
            continue
        record = None
        if line.endswith(b"\n"):  # a line without its newline was torn by a kill: never trust it
            try:
                parsed = json.loads(line)
                record = parsed if isinstance(parsed, dict) and parsed.get("query_id") is not None else None
            except (json.JSONDecodeError, UnicodeDecodeError):
                record = None
        if record is None or str(record["query_id"]) in seen:
            dropped += 1
            continue
        seen.add(str(record["query_id"]))
        records.append(record)
        if dropped:
            records_after_problem += 1
        else:
            good_end = end
    if dropped and not records_after_problem:
        with open(path, "r+b") as handle:  # only a torn or broken tail: cut it off
            handle.truncate(good_end)
            handle.flush()
            os.fsync(handle.fileno())
    elif dropped:
        temporary = path.with_suffix(".jsonl.tmp")
        with open(temporary, "w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    return records, dropped


def _append(handle: Any, record: dict[str, Any]) -> None:
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()
    os.fsync(handle.fileno())


def _write_json(path: Path, data: Any) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, ensure_ascii=False, default=str)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


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


def is_transient(errors: Sequence[str]) -> bool:
    """Whether recorded errors look like passing API trouble (timeouts, 429, 5xx, connection)."""
    return any(TRANSIENT.search(error) for error in errors)


# ---------------------------------------------------------------------- running
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
    history = given
    parallel = parallel and not replay  # each config has its own conversation

    def failed(config: Config, error: Exception) -> AnswerResult:
        return AnswerResult(config=config.name, question=question.question,
                            errors=[f"{type(error).__name__}: {error}"])

    if parallel:
        try:
            results = engine.run_many(question.question, list(configs), history=history,
                                      retrieval_only=retrieval_only)
        except Exception as error:  # run_many records errors itself; this is a last resort
            log.warning("%s: run_many failed (%s)", question.id, error)
            results = [failed(config, error) for config in configs]
    else:
        results = []
        for config in configs:
            try:
                results.append(engine.run(question.question, config, history=histories[config.name],
                                          retrieval_only=retrieval_only))
            except Exception as error:  # Engine.run records errors itself; this is a last resort
                results.append(failed(config, error))
    final: list[AnswerResult] = []
    if replay:
        for config, result in zip(configs, results, strict=True):
            turns = len(histories[config.name] or [])
            result.notes.append(f"history replayed: {turns} earlier turn(s) from this config's own answers")
    for config, result in zip(configs, results, strict=True):
        attempt = 1
        while result.errors and is_transient(result.errors) and attempt < attempts:
            delay = retry_delay * (2 ** (attempt - 1))
            log.warning(
                "%s/%s: attempt %d failed (%s); retrying in %.1f s",
                question.id, config.name, attempt, "; ".join(result.errors), delay,
            )
            time.sleep(delay)
            attempt += 1
            try:
                result = engine.run(question.question, config, history=histories[config.name],
                                    retrieval_only=retrieval_only)
            except Exception as error:
                result = failed(config, error)
        if result.errors:
            log.error("%s/%s: failed after %d attempt(s): %s", question.id, config.name, attempt,
                      "; ".join(result.errors))
        final.append(result)
    return final


def _check_resume(run_file: Path, pinned: dict[str, Any]) -> None:
    """A resumed run must use the same question set, k and modes, and unchanged configs."""
    try:
        previous = json.loads(run_file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise EvaluationError(f"{run_file} is unreadable ({error}); use --overwrite to start over") from None
    defaults = {"history_mode": "given"}  # runs saved before replaying existed used the given history
    for key in ("question_set_hash", "k", "retrieval_only", "dry_run", "history_mode"):
        if previous.get(key, defaults.get(key)) != pinned[key]:
            raise EvaluationError(
                f"cannot resume: {key} was {previous.get(key)!r} and is now {pinned[key]!r}; "
                "use the same settings, another --out folder, or --overwrite"
            )
    for name, settings in pinned["configs"].items():
        before = previous.get("configs", {}).get(name)
        if before is not None and before != settings:
            raise EvaluationError(f"cannot resume: config {name!r} changed since the run started; use --overwrite")


def _setup_log(log_path: Path | None) -> logging.Handler | None:
    if log_path is None:
        return None
    try:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(log_path, encoding="utf-8")
    except OSError:
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    return handler


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
    Logs go to `log_path`, else $RAG_EVAL_LOG, else `logs/eval.log`. A question whose run still fails
    after `attempts` tries (transient API errors are retried with exponential backoff from `retry_delay`
    seconds) is recorded with its error and the run goes on.
    """
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
    configs = [with_k(config, k) for config in configs]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {config.name: result_file(out, config.name) for config in configs}
    run_file, metrics_file = out / RUN_FILE, out / METRICS_FILE
    existing = [path for path in [*files.values(), run_file, metrics_file] if path.exists()]
    if existing and not resume and not overwrite:
        shown = ", ".join(path.name for path in existing[:6])
        raise EvaluationError(
            f"{out} already holds results ({shown}); pass --resume to continue them or --overwrite to start over"
        )
    if overwrite:
        for path in out.glob("*.jsonl"):
            path.unlink()
        for path in (run_file, metrics_file):
            path.unlink(missing_ok=True)
    pinned = {
        "question_set_hash": question_set_hash(questions),
        "k": k,
        "retrieval_only": retrieval_only,
        "dry_run": dry_run,
        "history_mode": history_mode,
        "configs": {config.name: config.to_dict() for config in configs},
    }
    if resume and run_file.exists():
        _check_resume(run_file, pinned)
        previous_configs = json.loads(run_file.read_text(encoding="utf-8")).get("configs", {})
        pinned["configs"] = {**previous_configs, **pinned["configs"]}
    _write_json(run_file, pinned)

    handler = _setup_log(log_path or Path(os.environ.get(LOG_ENV) or DEFAULT_LOG))
    started_at = datetime.now(UTC)
    warnings: list[str] = []
    fingerprint = index_fingerprint(engine.index)
    temp_dir: Path | None = None
    handles: dict[str, Any] = {}
    written = resumed = 0
    try:
        done: dict[str, set[str]] = {}
        for config in configs:
            records, dropped = read_records(files[config.name]) if resume else ([], 0)
            if dropped:
                log.warning("%s: dropped %d torn or invalid line(s) before resuming", files[config.name], dropped)
            known = {str(record["query_id"]) for record in records}
            done[config.name] = known & set(ids)
            resumed += len(done[config.name])
        runner_engine: Engine = engine
        if dry_run:
            temp_dir = Path(tempfile.mkdtemp(prefix="specrag-dry-run-"))
            runner_engine = dry_run_engine(engine.index, temp_dir)
            if judge is not None:
                warnings.append("dry run: the judge is not called")
        elif judge is not None and not retrieval_only:
            warnings.extend(judge_warnings(judge.spec, [engine.llm_spec(config) for config in configs]))
        for warning in warnings:
            log.warning(warning)
        log.info(
            "evaluation start: %d questions x %d configs (%s) -> %s; k=%d retrieval_only=%s dry_run=%s resumed=%d",
            len(questions), len(configs), ", ".join(names), out, k, retrieval_only, dry_run, resumed,
        )
        handles = {name: open(path, "a", encoding="utf-8") for name, path in files.items()}  # noqa: SIM115
        total = len(questions)
        for position, question in enumerate(questions, start=1):
            pending = [config for config in configs if question.id not in done[config.name]]
            if pending:
                results = _run_configs(
                    runner_engine, question, pending, retrieval_only or dry_run, attempts, retry_delay, parallel,
                    history_mode,
                )
                for config, result in zip(pending, results, strict=True):
                    if dry_run and not result.errors:
                        result.answer = "" if retrieval_only else DRY_RUN_ANSWER
                        result.generator = "dry-run"
                    model = "dry-run" if dry_run else (result.generator or engine.llm_spec(config))
                    record = build_record(
                        question,
                        config,
                        result,
                        retrieval_only=retrieval_only,
                        dry_run=dry_run,
                        model=model,
                        max_text_chars=max_text_chars,
                    )
                    if judge is not None and record["answered"]:
                        verdict = judge.score(question.question, record["llm_answer"], question.ground_truth)
                        record.update(
                            judge_score=verdict.mean,
                            judge_spread=verdict.spread,
                            judge_scores=list(verdict.scores),
                            judge_errors=list(verdict.errors),
                        )
                    _append(handles[config.name], record)
                    done[config.name].add(question.id)
                    written += 1
                    if record["failure"]:
                        log.info("%s/%s: %s", question.id, config.name, record["failure"])
            if progress is not None:
                progress(position, total)
        for handle in handles.values():
            handle.close()
        handles = {}
        finished_at = datetime.now(UTC)
        metrics = compute_metrics(
            out, configs, questions, k,
            manifest={
                "question_set_hash": pinned["question_set_hash"],
                "questions": len(questions),
                "questions_source": questions_source,
                **fingerprint,
                "dry_run_embedding_model": "hashing-384" if dry_run else None,
                "configs": {config.name: config.to_dict() for config in configs},
                "models": {
                    config.name: ("dry-run" if dry_run else ("none (retrieval only)" if retrieval_only
                                                             else engine.llm_spec(config)))
                    for config in configs
                },
                "judge": judge.spec if judge is not None else None,
                "judge_runs": judge.runs if judge is not None else None,
                "git_commit": git_commit(),
                "git_dirty": git_dirty(),
                "started_at": started_at.isoformat(timespec="seconds"),
                "finished_at": finished_at.isoformat(timespec="seconds"),
                "k": k,
                "retrieval_only": retrieval_only,
                "dry_run": dry_run,
                "max_text_chars": max_text_chars,
                "resumed_records": resumed,
                "parallel": parallel,
                "warnings": warnings,
            },
        )
        _write_json(metrics_file, metrics)
        log.info("evaluation done: %d records written, %d kept from before; %s", written, resumed, metrics_file)
        return EvaluationResult(out, files, metrics, written, resumed, warnings)
    finally:
        for handle in handles.values():
            handle.close()
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)
        if handler is not None:
            log.removeHandler(handler)
            handler.close()


def compute_metrics(
    out_dir: Path, configs: Sequence[Config], questions: Sequence[Question], k: int, manifest: dict[str, Any]
) -> dict[str, Any]:
    """Metrics of every config from its result file (records in question order) plus the manifest."""
    order = {question.id: position for position, question in enumerate(questions)}
    result: dict[str, Any] = {"configs": {}, "manifest": manifest}
    for config in configs:
        records, _ = read_records(result_file(out_dir, config.name))
        chosen = sorted((r for r in records if r["query_id"] in order), key=lambda r: order[r["query_id"]])
        result["configs"][config.name] = summarize(chosen, k)
    return result


def load_metrics(out_dir: Path | str) -> dict[str, Any]:
    """Read `OUT/metrics.json`."""
    path = Path(out_dir) / METRICS_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise EvaluationError(f"cannot read {path} ({error})") from None


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def format_metrics_table(metrics: dict[str, Any], k: int | None = None) -> str:
    """A plain-text table of the headline metrics per config."""
    k = k or int(metrics.get("manifest", {}).get("k", 5))
    columns = [
        ("config", None),
        ("n", "n"),
        (f"hit@{k}", f"hit@{k}"),
        ("MRR", "mrr"),
        (f"recall@{k}", f"recall@{k}"),
        (f"nDCG@{k}", f"ndcg@{k}"),
        ("abst.acc", "abstention_accuracy"),
        ("false.abst", "false_abstention_rate"),
        ("kw.recall", "keyword_recall"),
        ("judge", "judge_mean"),
        ("p50 ms", "latency_ms_p50"),
        ("p95 ms", "latency_ms_p95"),
    ]
    rows = [[title for title, _ in columns] + ["failures"]]
    for name, values in metrics.get("configs", {}).items():
        row = [name]
        for _, key in columns[1:]:
            digits = 1 if key and key.startswith("latency") else 3
            row.append(_fmt(values.get(key), digits))
        failures = values.get("failures") or {}
        row.append(", ".join(f"{label}={count}" for label, count in failures.items()) or "-")
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths,
                                                                                                          strict=False))]
        lines.append("  ".join(cells) + "  " + row[-1])
    return "\n".join(lines)
