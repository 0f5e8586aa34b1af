"""Saved evaluation runs: `<results>/<run>/<config>.jsonl` plus `metrics.json`, read back tolerantly (a run may
still be written, a file hand-edited) for the evaluation page and anything else that compares runs.

A record holds one question's outcome for one configuration (see `rag.evaluate.records.build_record`);
`metrics.json` holds `{"configs": {name: {metric: value, ..., "by_category": {...}}}, "manifest": {...}}`. When
`metrics.json` is missing (a run still in progress), the metrics are computed from the records by
`rag.evaluate.metrics.summarize_scorable`, so a run shows the numbers `python -m rag eval` computes.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rag.evaluate.metrics import (
    BY_API,
    BY_CATEGORY,
    ERROR_LABEL,
    FAILURE_LABELS,
    chunk_covers,
    relevant_rank,
    summarize_scorable,
)
from rag.evaluate.metrics import by_api as api_figures
from rag.evaluate.records import load_records
from rag.evaluate.report import METRICS_FILE
from rag.settings import PROJECT_ROOT

RESULTS_DIR = PROJECT_ROOT / "eval_data" / "results"
EVAL_DATA_DIR = PROJECT_ROOT / "eval_data"
RESULTS_DIR_ENV = "RAG_EVAL_RESULTS_DIR"
EVAL_DATA_DIR_ENV = "RAG_EVAL_DATA_DIR"
OK_LABEL = "ok"  # the failure label of a record that did not fail
# Every label a saved record gets, in the order they are listed and stacked.
FAILURE_ORDER: tuple[str, ...] = (OK_LABEL, *FAILURE_LABELS)
TOP_RETRIEVED = 3  # how many of a record's retrieved chunks `RecordOutcome.top_retrieved` names
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

    def headline(self, config: str) -> dict[str, float]:
        """A configuration's metrics that are numbers, in saved order (`metric_number`: the reranker lift is its
        mean gain); the per-category and per-API figures are left out (`by_category`, `by_api`)."""
        metrics = self.metrics.get(config) or {}
        return {metric: number for metric, value in metrics.items()
                if metric not in (BY_CATEGORY, BY_API) and (number := metric_number(metric, value)) is not None}

    def by_category(self, config: str) -> dict[str, dict[str, float]]:
        """A configuration's figures per question category (numbers only; none when the metrics have no
        per-category block)."""
        return self.breakdown(config, BY_CATEGORY)

    def by_api(self, config: str) -> dict[str, dict[str, float]]:
        """A configuration's figures per API its questions are about (numbers only; none when they are all about
        one API); a run whose metrics predate the per-API block has them computed from its records."""
        if BY_API in (self.metrics.get(config) or {}):
            return self.breakdown(config, BY_API)
        try:
            computed = api_figures(self.records.get(config) or [], int(self.manifest.get("k") or 5))
        except (TypeError, ValueError, KeyError, AttributeError):  # a hand-edited record: no breakdown
            return {}
        return _numbers(computed)

    def breakdown(self, config: str, block: str) -> dict[str, dict[str, float]]:
        """A configuration's figures per group of one breakdown block (`by_category`, `by_api`), numbers only."""
        return _numbers((self.metrics.get(config) or {}).get(block))


def _numbers(groups: Any) -> dict[str, dict[str, float]]:
    """Each group's figures that are finite numbers (groups or figures that are not objects left out)."""
    if not isinstance(groups, dict):
        return {}
    return {str(group): {metric: number for metric, value in values.items()
                         if (number := finite_number(value)) is not None}
            for group, values in groups.items() if isinstance(values, dict)}


# ---------------------------------------------------------------------- where runs live
def results_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where saved runs live: RAG_EVAL_RESULTS_DIR, else eval_data/results."""
    value = ((os.environ if env is None else env).get(RESULTS_DIR_ENV) or "").strip()
    return Path(value) if value else RESULTS_DIR


def eval_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where question sets live: RAG_EVAL_DATA_DIR, else eval_data/."""
    value = ((os.environ if env is None else env).get(EVAL_DATA_DIR_ENV) or "").strip()
    return Path(value) if value else EVAL_DATA_DIR


def question_sets(root: Path | str = EVAL_DATA_DIR) -> list[Path]:
    """Question set files (`*.jsonl`) directly in eval_data/ and in eval_data/generated/."""
    root = Path(root)
    found = sorted(root.glob("*.jsonl")) + sorted((root / "generated").glob("*.jsonl"))
    return [path for path in found if path.is_file()]


def _record_files(path: Path) -> list[Path]:
    return sorted(
        p
        for p in path.glob("*.jsonl")
        if p.is_file() and not p.name.startswith(("tmp", ".")) and not p.name.endswith(".part")
    )


def _is_run_dir(path: Path) -> bool:
    return path.is_dir() and ((path / METRICS_FILE).is_file() or any(_record_files(path)))


def run_stamp(path: Path | str) -> float:
    """When a run folder last changed (its newest metrics or record file)."""
    path = Path(path)
    files = [path / METRICS_FILE, *_record_files(path)]
    fallback = path.stat().st_mtime if path.exists() else 0.0
    return max((f.stat().st_mtime for f in files if f.exists()), default=fallback)


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
    return sorted(found, key=lambda p: (-run_stamp(p), p.name))


# ---------------------------------------------------------------------- reading one run
def _read_metrics_file(run: SavedRun) -> None:
    """Fill `run.metrics` and `run.manifest` from its metrics.json (a warning when it cannot be read)."""
    metrics_path = run.path / METRICS_FILE
    if not metrics_path.is_file():
        return
    try:
        data = json.loads(metrics_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        run.warnings.append(f"{METRICS_FILE}: cannot read ({error}); metrics computed from the records")
        return
    if not isinstance(data, dict):
        return
    configs = data.get("configs")
    if isinstance(configs, dict):
        run.metrics = {str(k): v for k, v in configs.items() if isinstance(v, dict)}
    manifest = data.get("manifest")
    if isinstance(manifest, dict):
        run.manifest = manifest


def load_run(path: Path | str) -> SavedRun:
    """Read one run folder: its records per configuration and its metrics (computed if missing)."""
    path = Path(path)
    run = SavedRun(name=path.name, path=path)
    _read_metrics_file(run)
    for file in _record_files(path):
        run.records[file.stem] = load_records(file, run.warnings)
    missing = [name for name, items in run.records.items() if name not in run.metrics and items]
    for name in missing:
        run.metrics[name] = summarize_scorable(run.records[name], warnings=run.warnings, source=f"{name}.jsonl")
        run.computed = True
    run.fell_back = {name: reason for name, items in run.records.items() if (reason := fallback_reason(items))}
    return run


def with_unique_names(runs: Sequence[SavedRun]) -> list[SavedRun]:
    """Shallow copies of `runs` whose names are unique (`name (2)` for a second folder of the same name); the
    originals, which may be cached, are left untouched."""
    seen: dict[str, int] = {}
    unique: list[SavedRun] = []
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
        unique.append(replace(run, name=run.name if seen[run.name] == 1 else f"{run.name} ({seen[run.name]})"))
    return unique


# ---------------------------------------------------------------------- what the records say
def fallback_reason(records: Sequence[Mapping[str, Any]]) -> str | None:
    """Why a configuration ran without one of its stages (e.g. C4 without an LLM, E3/E4 without a cross-encoder):
    the typed `fallbacks` of its first record that has any; None when every stage ran. Its scores are then those
    of the configuration without that stage."""
    for record in records:
        reasons = record.get("fallbacks")
        if isinstance(reasons, list) and reasons:
            return "; ".join(str(reason) for reason in reasons)
    return None


def fallbacks(runs: Sequence[SavedRun]) -> dict[tuple[str, str], str]:
    """(run, config) → why that configuration fell back, for every configuration that did."""
    return {(run.name, config): reason for run in runs for config, reason in run.fell_back.items()}


def failure_of(record: Mapping[str, Any]) -> str:
    """A record's saved failure label (`ok` when it did not fail; `error` for a record that failed to run)."""
    failure = record.get("failure") if "failure" in record else (ERROR_LABEL if record.get("error") else None)
    return str(failure) if failure else OK_LABEL


def failure_order(labels: Iterable[str]) -> list[str]:
    """`FAILURE_ORDER`, then any other label among `labels` (an older or hand-edited record's), alphabetically."""
    return [*FAILURE_ORDER, *sorted(set(labels) - set(FAILURE_ORDER))]


def finite_number(value: Any) -> float | None:
    """A saved value as a finite float; None for anything else (a flag, text, NaN, an infinity, nothing)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number


def whole_number(value: Any) -> int | None:
    """A saved count as an int; None when it is not a whole number."""
    number = finite_number(value)
    return int(number) if number is not None and number.is_integer() else None


def metric_number(metric: str, value: Any) -> float | None:
    """A saved metric as one number: the reranker lift's summary (`rag.evaluate.metrics.reranker_lift`) counts as
    its mean gain; None for a value that is not a finite number."""
    if metric == "reranker_lift" and isinstance(value, Mapping):
        return finite_number(value.get("mean_gain", value.get("lift")))
    return finite_number(value)


@dataclass(frozen=True)
class RecordOutcome:
    """What one saved record says about its question, read tolerantly (a run may still be written, a record be
    older or hand-edited): the failure label, the rank of the first relevant chunk (None: none retrieved), the ids
    of the first `TOP_RETRIEVED` retrieved chunks, the answer and the total time in ms."""

    query_id: str
    category: str
    query: str
    failure: str
    abstained: bool
    confidence: str
    relevant_rank: int | None
    top_retrieved: tuple[str, ...]
    answer: str
    total_ms: float | None


def record_outcome(record: Mapping[str, Any]) -> RecordOutcome:
    """The `RecordOutcome` of a saved record (category `unknown` when it has none; a retrieved chunk that covers
    nothing is named by its chunk id)."""
    retrieved = [chunk for chunk in record.get("retrieved_chunks") or [] if isinstance(chunk, Mapping)]
    return RecordOutcome(
        query_id=str(record.get("query_id", "")),
        category=str(record.get("category") or "unknown"),
        query=str(record.get("query", "")),
        failure=failure_of(record),
        abstained=bool(record.get("abstained")),
        confidence=str(record.get("confidence") or ""),
        relevant_rank=relevant_rank(record),
        top_retrieved=tuple((chunk_covers(c) or [str(c.get("chunk_id", ""))])[0] for c in retrieved[:TOP_RETRIEVED]),
        answer=str(record.get("llm_answer") or record.get("answer") or ""),
        total_ms=finite_number(record.get("total_time_ms")),
    )


def hit_metric(runs: Sequence[SavedRun]) -> str:
    """The hit@k key the runs use (hit@5 unless they report another k)."""
    for run in runs:
        for metrics in run.metrics.values():
            for key in metrics:
                if _HIT.match(key):
                    return key
    return "hit@5"


def record_at(runs: Sequence[SavedRun], run_name: str, config: str, position: int) -> dict[str, Any] | None:
    """The `position`-th record of `config` in the run named `run_name` (None when there is none)."""
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


# ---------------------------------------------------------------------- saved tables beside the runs
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


def suite_path(root: Path | str | None = None) -> Path:
    """Where the latest evaluation-suite table is saved: <results>/suite/latest.json."""
    return Path(root if root is not None else results_dir()) / "suite" / "latest.json"


Figures = Mapping[str, Mapping[str, float | None]]  # configuration → metric → value


def _figures(raw: Any) -> dict[str, dict[str, float | None]]:
    """Saved `{configuration: {metric: value}}` with each value a finite number or None (odd entries: no figures)."""
    if not isinstance(raw, Mapping):
        return {}
    return {str(config): ({str(metric): finite_number(value) for metric, value in values.items()}
                          if isinstance(values, Mapping) else {})
            for config, values in raw.items()}


@dataclass(frozen=True)
class SuiteSet:
    """One question set of a saved suite table: its role, how many questions (answerable, out of scope), the
    suite's figures per configuration, and whether `full` beat C2 on it (None: not compared)."""

    name: str
    role: str
    questions: int | None
    answerable: int | None
    out_of_scope: int | None
    metrics: Figures
    full_beats_c2: bool | None

    def value(self, config: str, metric: str) -> float | None:
        """One figure (a key of `rag.evaluate.suite_results.SUITE_LABELS`) of one configuration; None when absent."""
        return (self.metrics.get(config) or {}).get(metric)


@dataclass(frozen=True)
class SuiteTable:
    """The latest evaluation-suite table (`<results>/suite/latest.json`, written by
    `rag.evaluate.suite_results.SuiteReport.to_dict`), read back tolerantly: sets that are not objects are skipped,
    figures that are not numbers are None."""

    suite: str
    created: str
    k: int | None
    configs: tuple[str, ...]
    sets: tuple[SuiteSet, ...]
    macro_validation: Figures  # the mean over the validation sets, per configuration; empty when not saved

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SuiteTable:
        """The table from its saved JSON object."""
        sets = tuple(
            SuiteSet(str(item.get("name", "")), str(item.get("role", "")), whole_number(item.get("questions")),
                     whole_number(item.get("answerable")), whole_number(item.get("out_of_scope")),
                     _figures(item.get("metrics")),
                     item.get("full_beats_c2") if isinstance(item.get("full_beats_c2"), bool) else None)
            for item in data.get("sets") or [] if isinstance(item, Mapping)
        )
        return cls(str(data.get("suite") or ""), str(data.get("created", "")), whole_number(data.get("k")),
                   tuple(str(config) for config in data.get("configs") or []), sets,
                   _figures(data.get("macro_validation")))

    def macro(self, config: str, metric: str) -> float | None:
        """One figure of the validation sets' mean for one configuration; None when absent."""
        return (self.macro_validation.get(config) or {}).get(metric)


def load_suite_table(path: Path | str) -> tuple[SuiteTable | None, str | None]:
    """The latest suite table (None when there is none) and a warning when the file cannot be read."""
    data, warning = read_table(path, "suite table", list)
    return (SuiteTable.from_dict(data) if data is not None else None), warning
