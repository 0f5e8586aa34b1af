"""Saved evaluation runs: `eval_data/results/<run>/<config>.jsonl` plus `metrics.json`, turned into the tables
and captions of the Evaluation page (pure functions; tolerant of partly written runs).

A record holds one question's outcome for one configuration (query_id, query, category, retrieved_chunks,
llm_answer, abstained, confidence, citations, ground_truth, relevant_ids, failure, timings, tokens, model);
`metrics.json` holds `{"configs": {name: {metric: value, ..., "by_category": {...}}}, "manifest": {...}}`.
When `metrics.json` is missing (a run still in progress), the headline metrics are computed from the records.
Records are read and scored by the evaluation package (`rag.evaluate.records.load_records`,
`rag.evaluate.metrics`), so the page shows the numbers `python -m rag eval` computes.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rag.evaluate.metrics import first_relevant_rank, summarize
from rag.evaluate.records import load_records
from rag.settings import PROJECT_ROOT

RESULTS_DIR = PROJECT_ROOT / "eval_data" / "results"
EVAL_DATA_DIR = PROJECT_ROOT / "eval_data"
RESULTS_DIR_ENV = "RAG_EVAL_RESULTS_DIR"
EVAL_DATA_DIR_ENV = "RAG_EVAL_DATA_DIR"
FAILURE_LABELS: tuple[str, ...] = (
    "error",
    "retrieval_miss",
    "ranked_low",
    "generation_miss",
    "wrong_abstention",
    "false_answer",
)
OK_LABEL = "ok"
CHART_METRICS: tuple[str, ...] = (
    "hit@5",
    "mrr",
    "abstention_accuracy",
    "false_abstention_rate",
    "keyword_recall",
    "judge_mean",
)
METRIC_LABELS: dict[str, str] = {
    "hit@5": "hit@5",
    "mrr": "MRR",
    "recall@5": "recall@5",
    "ndcg@5": "nDCG@5",
    "abstention_accuracy": "abstention accuracy",
    "false_abstention_rate": "false-abstention rate",
    "keyword_recall": "keyword recall",
    "judge_mean": "judge score",
    "latency_ms_p50": "latency p50 (ms)",
    "latency_ms_p95": "latency p95 (ms)",
    "tokens_in": "tokens in (total)",
    "tokens_out": "tokens out (total)",
    "reranker_lift": "reranker lift (ranks gained)",
    "tokens_in_mean": "tokens in per question",
    "tokens_out_mean": "tokens out per question",
}
SUMMARY_METRICS: tuple[str, ...] = (
    "n",
    "hit@5",
    "mrr",
    "recall@5",
    "ndcg@5",
    "abstention_accuracy",
    "false_abstention_rate",
    "keyword_recall",
    "judge_mean",
    "latency_ms_p50",
    "latency_ms_p95",
    "tokens_in",
    "tokens_out",
    "reranker_lift",
)
_HIT = re.compile(r"^hit@(\d+)$")


@dataclass
class SavedRun:
    """One saved evaluation run."""

    name: str
    path: Path
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    computed: bool = False  # metrics were computed here (no metrics.json yet)
    fell_back: dict[str, str] = field(default_factory=dict)  # config → why it ran without one of its stages
    suite_role: str = ""  # the role the evaluation suite gives this run's question set, when it names it

    @property
    def configs(self) -> list[str]:
        """Configuration names, in the order of metrics.json, then any only found as record files."""
        return list(dict.fromkeys([*self.metrics, *self.records]))

    @property
    def n_records(self) -> int:
        """Records over every configuration."""
        return sum(len(items) for items in self.records.values())


# ---------------------------------------------------------------------- finding and loading
def results_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where saved runs live: RAG_EVAL_RESULTS_DIR, else eval_data/results."""
    value = ((os.environ if env is None else env).get(RESULTS_DIR_ENV) or "").strip()
    return Path(value) if value else RESULTS_DIR


def eval_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where question sets live: RAG_EVAL_DATA_DIR, else eval_data/."""
    value = ((os.environ if env is None else env).get(EVAL_DATA_DIR_ENV) or "").strip()
    return Path(value) if value else EVAL_DATA_DIR


def _is_run_dir(path: Path) -> bool:
    return path.is_dir() and ((path / "metrics.json").is_file() or any(_record_files(path)))


def _record_files(path: Path) -> list[Path]:
    return sorted(
        p
        for p in path.glob("*.jsonl")
        if p.is_file() and not p.name.startswith(("tmp", ".")) and not p.name.endswith(".part")
    )


def find_runs(root: Path | str = RESULTS_DIR, extra: Iterable[Path | str] = ()) -> list[Path]:
    """Run folders under `root` (and `extra` ones), newest first."""
    root = Path(root)
    found: list[Path] = []
    if root.is_dir():
        found.extend(p for p in root.iterdir() if not p.name.startswith((".", "tmp")) and _is_run_dir(p))
    for item in extra:
        path = Path(item)
        if _is_run_dir(path) and path.resolve() not in {p.resolve() for p in found}:
            found.append(path)

    def modified(path: Path) -> float:
        files = [path / "metrics.json", *_record_files(path)]
        return max((f.stat().st_mtime for f in files if f.exists()), default=path.stat().st_mtime)

    return sorted(found, key=lambda p: (-modified(p), p.name))


def load_run(path: Path | str) -> SavedRun:
    """Read one run folder: its records per configuration and its metrics (computed if missing)."""
    path = Path(path)
    run = SavedRun(name=path.name, path=path)
    metrics_path = path / "metrics.json"
    if metrics_path.is_file():
        try:
            data = json.loads(metrics_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            run.warnings.append(f"metrics.json: cannot read ({error}); metrics computed from the records")
            data = {}
        if isinstance(data, dict):
            configs = data.get("configs")
            if isinstance(configs, dict):
                run.metrics = {str(k): v for k, v in configs.items() if isinstance(v, dict)}
            manifest = data.get("manifest")
            if isinstance(manifest, dict):
                run.manifest = manifest
    for file in _record_files(path):
        run.records[file.stem] = load_records(file, run.warnings)
    missing = [name for name, items in run.records.items() if name not in run.metrics and items]
    for name in missing:
        run.metrics[name] = compute_metrics(run.records[name], warnings=run.warnings, source=f"{name}.jsonl")
        run.computed = True
    run.fell_back = {name: reason for name, items in run.records.items() if (reason := fallback_reason(items))}
    return run


def load_runs(paths: Iterable[Path | str]) -> list[SavedRun]:
    """Load several runs (names made unique when two folders share one)."""
    runs: list[SavedRun] = []
    seen: dict[str, int] = {}
    for path in paths:
        run = load_run(path)
        if run.name in seen:
            seen[run.name] += 1
            run.name = f"{run.name} ({seen[run.name]})"
        else:
            seen[run.name] = 1
        runs.append(run)
    return runs


def question_sets(root: Path | str = EVAL_DATA_DIR) -> list[Path]:
    """Question set files (`*.jsonl`) directly in eval_data/ and in eval_data/generated/."""
    root = Path(root)
    found = sorted(root.glob("*.jsonl")) + sorted((root / "generated").glob("*.jsonl"))
    return [path for path in found if path.is_file()]


# ---------------------------------------------------------------------- metrics from records
def _covers(chunk: Mapping[str, Any]) -> list[str]:
    covers = chunk.get("covers") or []
    return [str(c) for c in covers] if isinstance(covers, list) else []


def _relevant_rank(record: Mapping[str, Any]) -> int | None:
    """Rank (1-based) of the first retrieved chunk covering a relevant id; None when none does."""
    chunks = record.get("retrieved_chunks") or []
    covers = [_covers(chunk) if isinstance(chunk, Mapping) else [] for chunk in chunks]
    return first_relevant_rank(covers, record.get("relevant_ids") or [])


def compute_metrics(
    records: Sequence[Mapping[str, Any]], k: int = 5, warnings: list[str] | None = None, source: str = "records"
) -> dict[str, Any]:
    """Headline metrics from records alone (while a run has no metrics.json), by `rag.evaluate.metrics.summarize`.

    Records it cannot score (a field of the wrong type, in an older or hand-edited file) are left out, and
    `warnings` says how many (`source` names where they came from).
    """
    try:
        return summarize(list(records), k)
    except Exception:  # a malformed record: score the others rather than fail the page
        pass
    usable = [record for record in records if _summarizes([record], k)]
    if not _summarizes(usable, k):  # records that fail only together (failure labels of mixed types)
        usable = []
    if warnings is not None:
        warnings.append(f"{source}: {len(records) - len(usable)} record(s) could not be scored; "
                        "the computed metrics leave them out")
    return summarize(usable, k)


def _summarizes(records: Sequence[Mapping[str, Any]], k: int) -> bool:
    """Whether `summarize` can score these records."""
    try:
        summarize(records, k)
    except Exception:
        return False
    return True


# ---------------------------------------------------------------------- frames for tables and charts
def hit_metric(runs: Sequence[SavedRun]) -> str:
    """The hit@k key the runs use (hit@5 unless they report another k)."""
    for run in runs:
        for metrics in run.metrics.values():
            for key in metrics:
                if _HIT.match(key):
                    return key
    return "hit@5"


METRIC_UNITS: dict[str, str] = {
    "mrr": "0–1, 1 = first",
    "abstention_accuracy": "share of out-of-scope",
    "false_abstention_rate": "share of answerable, lower is better",
    "keyword_recall": "share of required keywords",
    "judge_mean": "LLM judge, 1–5",
}


def metric_unit(metric: str) -> str:
    """What a chart metric counts, e.g. `share of answerable` for hit@k (shown with the panel's title)."""
    if _HIT.match(metric) or metric.startswith("recall@"):
        return "share of answerable"
    return METRIC_UNITS.get(metric, "")


def metric_label(metric: str) -> str:
    """How a metric key is shown."""
    if metric in METRIC_LABELS:
        return METRIC_LABELS[metric]
    return metric.replace("_", " ")


def config_label(run: SavedRun, config: str, runs: Sequence[SavedRun]) -> str:
    """`config` when one run is shown, else `run / config`; `(fallback)` added when the configuration ran
    without one of its stages (its bars are then those of a simpler configuration)."""
    label = config if len(runs) <= 1 else f"{run.name} / {config}"
    return label + FALLBACK_SUFFIX if config in run.fell_back else label


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number


def _metric_value(metric: str, value: Any) -> float | None:
    """A metric as a number; the reranker lift may be a summary dict (its `mean_gain` is the lift)."""
    if metric == "reranker_lift" and isinstance(value, Mapping):
        return _number(value.get("mean_gain", value.get("lift")))
    return _number(value)


def metrics_frame(runs: Sequence[SavedRun]) -> pd.DataFrame:
    """Long table: run, config, label, metric, value (numbers only; by_category left out)."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for config, metrics in run.metrics.items():
            for metric, value in metrics.items():
                number = _metric_value(metric, value)
                if metric == "by_category" or number is None:
                    continue
                rows.append(
                    {
                        "run": run.name,
                        "config": config,
                        "label": config_label(run, config, runs),
                        "metric": metric,
                        "value": number,
                    }
                )
    return pd.DataFrame(rows, columns=["run", "config", "label", "metric", "value"])


def summary_frame(runs: Sequence[SavedRun], metrics: Sequence[str] = SUMMARY_METRICS) -> pd.DataFrame:
    """Wide table: one row per run/config, one column per headline metric (present ones only)."""
    long = metrics_frame(runs)
    hit = hit_metric(runs)
    wanted = [hit if m == "hit@5" else m for m in metrics]
    if long.empty:
        return pd.DataFrame(columns=["label", *wanted])
    wide = long.pivot_table(index="label", columns="metric", values="value", aggfunc="first", sort=False)
    present = [m for m in wanted if m in wide.columns]
    frame = wide[present].reset_index()
    order = list(dict.fromkeys(long["label"]))
    frame["_order"] = frame["label"].map({label: i for i, label in enumerate(order)})
    frame = frame.sort_values("_order").drop(columns="_order").reset_index(drop=True)
    frame.columns.name = None
    owners = {config_label(run, config, runs): (run, config) for run in runs for config in run.configs}
    frame.insert(1, "role", [run_role(owners[label][0]) if label in owners else "" for label in frame["label"]])
    frame["fallback"] = [owners[label][0].fell_back.get(owners[label][1], "") if label in owners else ""
                         for label in frame["label"]]
    return frame.rename(columns={m: metric_label(m) for m in present})


def category_frame(runs: Sequence[SavedRun], metric: str) -> pd.DataFrame:
    """Long table: label, category, value of one metric per category and configuration."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for config, metrics in run.metrics.items():
            by_category = metrics.get("by_category")
            if not isinstance(by_category, dict):
                continue
            for category, values in by_category.items():
                number = _number(values.get(metric)) if isinstance(values, dict) else None
                if number is not None:
                    rows.append({"label": config_label(run, config, runs), "category": str(category), "value": number})
    return pd.DataFrame(rows, columns=["label", "category", "value"])


def category_metrics(runs: Sequence[SavedRun]) -> list[str]:
    """Metrics that appear in some configuration's by_category block (headline order first)."""
    found: list[str] = []
    for run in runs:
        for metrics in run.metrics.values():
            for values in (metrics.get("by_category") or {}).values():
                if isinstance(values, dict):
                    found.extend(k for k, v in values.items() if _number(v) is not None and k != "n")
    ordered = [m for m in SUMMARY_METRICS if m in found] + [m for m in found if m not in SUMMARY_METRICS]
    hit = hit_metric(runs)
    ordered = [hit if m == "hit@5" and hit in found else m for m in ordered]
    return list(dict.fromkeys(ordered))


def _answer(record: Mapping[str, Any]) -> str:
    return str(record.get("llm_answer") or record.get("answer") or "")


def questions_frame(runs: Sequence[SavedRun]) -> pd.DataFrame:
    """One row per record: which run/config, the question, its category, failure label and outcome."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for config, records in run.records.items():
            for position, record in enumerate(records):
                retrieved = [c for c in record.get("retrieved_chunks") or [] if isinstance(c, Mapping)]
                top = [(_covers(c) or [str(c.get("chunk_id", ""))])[0] for c in retrieved[:3]]
                rows.append(
                    {
                        "run": run.name,
                        "config": config,
                        "label": config_label(run, config, runs),
                        "query_id": str(record.get("query_id", "")),
                        "category": str(record.get("category") or "unknown"),
                        "query": str(record.get("query", "")),
                        "failure": failure_of(record),
                        "abstained": bool(record.get("abstained")),
                        "confidence": str(record.get("confidence") or ""),
                        "relevant rank": _relevant_rank(record),
                        "top retrieved": ", ".join(top),
                        "answer": _answer(record)[:200],
                        "total ms": _number(record.get("total_time_ms")),
                        "_position": position,
                    }
                )
    columns = [
        "run",
        "config",
        "label",
        "query_id",
        "category",
        "query",
        "failure",
        "abstained",
        "confidence",
        "relevant rank",
        "top retrieved",
        "answer",
        "total ms",
        "_position",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    frame["relevant rank"] = pd.to_numeric(frame["relevant rank"], errors="coerce").astype("Int64")
    return frame


def filter_questions(
    frame: pd.DataFrame,
    configs: Sequence[str] | None = None,
    categories: Sequence[str] | None = None,
    failures: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Rows whose label (config), category and failure label are among those chosen (None or empty: all)."""
    mask = pd.Series(True, index=frame.index)
    if configs:
        mask &= frame["label"].isin(list(configs)) | frame["config"].isin(list(configs))
    if categories:
        mask &= frame["category"].isin(list(categories))
    if failures:
        mask &= frame["failure"].isin(list(failures))
    return frame[mask].reset_index(drop=True)


def failure_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """How many records per configuration carry each failure label (ok included)."""
    if frame.empty:
        return pd.DataFrame(columns=["label", "failure", "count"])
    counts = frame.groupby(["label", "failure"], sort=False).size().reset_index(name="count")
    return counts


def record_at(runs: Sequence[SavedRun], run_name: str, config: str, position: int) -> dict[str, Any] | None:
    """The record behind a questions_frame row."""
    for run in runs:
        if run.name == run_name:
            items = run.records.get(config) or []
            return items[position] if 0 <= position < len(items) else None
    return None


def config_definitions(runs: Sequence[SavedRun]) -> dict[str, Any]:
    """Config definitions saved in the runs' manifests (`manifest.configs`: {name: settings}), if any."""
    found: dict[str, Any] = {}
    for run in runs:
        configs = run.manifest.get("configs")
        if isinstance(configs, dict):
            found.update({str(k): v for k, v in configs.items() if isinstance(v, dict)})
        elif isinstance(configs, list):
            for item in configs:
                if isinstance(item, dict) and item.get("name"):
                    found[str(item["name"])] = item
    return found


def record_summary(record: Mapping[str, Any]) -> str:
    """`retrieval 12 ms · generation 340 ms · total 352 ms · tokens in 812 · out 96 · model …` for one record."""

    def number(key: str) -> float:
        value = _number(record.get(key))
        return value if value is not None else 0.0

    return (
        f"retrieval {number('retrieval_time_ms'):,.0f} ms · generation {number('llm_time_ms'):,.0f} ms · "
        f"total {number('total_time_ms'):,.0f} ms · tokens in {number('tokens_in'):,.0f} · "
        f"out {number('tokens_out'):,.0f} · model {record.get('model') or 'n/a'}"
        + (" · dry run" if record.get("dry_run") else "")
    )


def pick_label(frame: pd.DataFrame, row: int | None, width: int = 90) -> str:
    """`held-001 · C0 · How do I list …` for a row of a questions frame (a dash when the row is gone)."""
    if row is None or not 0 <= row < len(frame):
        return "–"
    item = frame.iloc[row]
    return f"{item['query_id']} · {item['label']} · {str(item['query'])[:width]}"


# ---------------------------------------------------------------------- roles, fallbacks, verdict, suite
TUNING = "tuning"
VALIDATION = "validation"
_TUNING_WORDS = ("dev", "train", "tuning")
_VALIDATION_WORDS = ("heldout", "held-out", "held_out", "test", "validation", "benchmark")
FALLBACK_SUFFIX = " (fallback)"
RELATIVE = "relative:"  # suite_roles' key prefix for a set's path relative to the suite's folder
SUITE_METRICS: tuple[str, ...] = ("hit_rate", "mrr", "recall", "false_abstention_rate", "out_of_scope_abstention")
SUITE_LABELS: dict[str, str] = {
    "hit_rate": "hit rate@k",
    "mrr": "MRR",
    "recall": "recall@k",
    "false_abstention_rate": "false-abstention rate",
    "out_of_scope_abstention": "out-of-scope abstention",
}


def run_role(run: SavedRun) -> str:
    """`tuning` when the run's questions were used to tune the pipeline (dev set, a train split), `validation`
    when they were held out (held-out set, a benchmark's test split), else `unmarked`. Read from the manifest's
    question source (the run's name when the manifest has none)."""
    if run.suite_role:
        return run.suite_role
    source = str(run.manifest.get("questions_source") or run.manifest.get("questions_file") or "")
    name = Path(source).stem.lower() if source else run.name.lower()
    for words, role in ((("train",), TUNING), (_VALIDATION_WORDS, VALIDATION), (_TUNING_WORDS, TUNING)):
        if any(word in name for word in words):
            return role
    return "unmarked"


def suite_roles(suite: Mapping[str, Any] | None, default: Path | str | None = None) -> dict[str, str]:
    """Question file (resolved path) → role, from the suite definition (TOML) the latest suite table names, else
    `default` (eval_data/suite.toml). Empty when there is none or it cannot be read."""
    import tomllib

    named = str((suite or {}).get("suite") or "")
    path = Path(named) if named and Path(named).is_file() else Path(default or eval_data_dir() / "suite.toml")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    roles: dict[str, str] = {}
    for item in data.get("sets") or []:
        if isinstance(item, dict) and item.get("questions") and item.get("role") in (TUNING, VALIDATION):
            roles[str((path.parent / str(item["questions"])).resolve())] = str(item["role"])
            # The same set in another checkout (a suite table written from /work/main, read here): by its path
            # relative to the suite's folder.
            roles[RELATIVE + os.path.normpath(str(item["questions"]))] = str(item["role"])
    return roles


def with_suite_roles(runs: Sequence[SavedRun], roles: Mapping[str, str]) -> list[SavedRun]:
    """Copies of `runs` carrying the suite's role for their question set (the suite decides: a held-out set
    read question by question becomes tuning there); runs whose set the suite does not name keep theirs."""
    from dataclasses import replace

    marked: list[SavedRun] = []
    for run in runs:
        source = str(run.manifest.get("questions_source") or "")
        role = roles.get(str((PROJECT_ROOT / source).resolve())) if source else None
        if role is None and source and not Path(source).is_absolute():
            relative = os.path.relpath(PROJECT_ROOT / source, EVAL_DATA_DIR)
            role = roles.get(RELATIVE + os.path.normpath(relative))
        marked.append(replace(run, suite_role=role) if role else run)
    return marked


def fallback_reason(records: Sequence[Mapping[str, Any]]) -> str | None:
    """Why a configuration ran without one of its stages, from its records' notes (e.g. C4 without an LLM, E3/E4
    without a cross-encoder); None when every stage ran. Its scores are then those of the configuration
    without that stage."""
    for record in records:
        for note in record.get("notes") or []:
            text = str(note)
            if "unavailable" not in text:
                continue
            if "LLM reranker" in text:
                return "LLM rerank skipped: no LLM configured"
            if "cross-encoder" in text:
                return "cross-encoder rerank skipped: no cross-encoder model available"
            return text.split(";")[0][:120]
    return None


def fallbacks(runs: Sequence[SavedRun]) -> dict[tuple[str, str], str]:
    """(run, config) → why that configuration fell back, for every configuration that did."""
    return {(run.name, config): reason for run in runs for config, reason in run.fell_back.items()}


def run_stamp(path: Path | str) -> float:
    """When a run folder last changed (its newest metrics or record file)."""
    path = Path(path)
    files = [path / "metrics.json", *_record_files(path)]
    return max((f.stat().st_mtime for f in files if f.exists()), default=path.stat().st_mtime if path.exists() else 0.0)


def run_caption(run: SavedRun) -> str:
    """`heldout-retrieval · validation · 50 questions · retrieval only` for the run picker and captions."""
    parts = [run.name, run_role(run)]
    questions = run.manifest.get("questions")
    if isinstance(questions, int):
        parts.append(f"{questions} questions")
    if run.manifest.get("retrieval_only"):
        parts.append("retrieval only")
    return " · ".join(parts)


def failure_of(record: Mapping[str, Any]) -> str:
    """A record's failure label (`ok` when it did not fail; `error` for a record that failed to run)."""
    failure = record.get("failure") if "failure" in record else ("error" if record.get("error") else None)
    return str(failure) if failure else OK_LABEL


def suite_path(root: Path | str | None = None) -> Path:
    """Where the latest evaluation-suite table is saved: <results>/suite/latest.json."""
    return Path(root if root is not None else results_dir()) / "suite" / "latest.json"


def read_table(path: Path | str, what: str, sets: type) -> tuple[dict[str, Any] | None, str | None]:
    """A saved JSON table whose `sets` is a `sets` (list or dict): None when the file is absent, and a warning
    naming the file and `what` it should be when it cannot be read."""
    path = Path(path)
    if not path.is_file():
        return None, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"{path}: cannot read the {what} ({error})"
    shape = "list" if sets is list else "object"
    if not isinstance(data, dict) or not isinstance(data.get("sets"), sets):
        return None, f"{path}: not a {what} (expected an object with a 'sets' {shape})"
    return data, None


def load_suite_table(path: Path | str) -> tuple[dict[str, Any] | None, str | None]:
    """The latest suite table (None when there is none) and a warning when the file cannot be read."""
    return read_table(path, "suite table", list)


def suite_frame(suite: Mapping[str, Any], metric: str = "hit_rate") -> pd.DataFrame:
    """One row per question set (role, size, `metric` per configuration, whether full beats C2), then the macro
    average over the validation sets."""
    if metric not in SUITE_METRICS:
        raise ValueError(f"suite metric {metric!r} is not allowed; allowed: {', '.join(SUITE_METRICS)}")
    configs = [str(c) for c in suite.get("configs") or []]
    rows: list[dict[str, Any]] = []
    for item in suite.get("sets") or []:
        if not isinstance(item, Mapping):
            continue
        metrics = item.get("metrics") if isinstance(item.get("metrics"), Mapping) else {}
        row: dict[str, Any] = {
            "set": str(item.get("name", "")),
            "role": str(item.get("role", "")),
            "questions": item.get("questions"),
            "answerable": item.get("answerable"),
            "out of scope": item.get("out_of_scope"),
        }
        for config in configs:
            values = metrics.get(config) if isinstance(metrics.get(config), Mapping) else {}
            row[config] = _number(values.get(metric))
        beats = item.get("full_beats_c2")
        row["full beats C2"] = "yes" if beats is True else "no" if beats is False else ""
        rows.append(row)
    macro = suite.get("macro_validation") if isinstance(suite.get("macro_validation"), Mapping) else {}
    if macro:
        row = {"set": "macro average", "role": VALIDATION, "questions": None, "answerable": None,
               "out of scope": None, "full beats C2": ""}
        for config in configs:
            values = macro.get(config) if isinstance(macro.get(config), Mapping) else {}
            row[config] = _number(values.get(metric))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["set", "role", "questions", "answerable", "out of scope", *configs,
                                        "full beats C2"])
    for column in ("questions", "answerable", "out of scope"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("Int64")
    return frame


def with_unique_names(runs: Sequence[SavedRun]) -> list[SavedRun]:
    """Shallow copies of `runs` whose names are unique (`name (2)` for a second folder of the same name); the
    originals, which may be cached, are left untouched."""
    from dataclasses import replace

    seen: dict[str, int] = {}
    unique: list[SavedRun] = []
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
        unique.append(replace(run, name=run.name if seen[run.name] == 1 else f"{run.name} ({seen[run.name]})"))
    return unique
