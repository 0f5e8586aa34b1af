"""The evaluation page's tables: saved runs (`rag.evaluate.saved_runs`), the suite table and the blinded sets'
table turned into the DataFrames its tables and charts draw, with the labels and captions they show (pure
functions). What the runs and tables say (numbers, ranks, failure labels) is read by `rag.evaluate`; this module
only lays it out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from rag.evaluate.metrics import metric_label
from rag.evaluate.reliability import reliability
from rag.evaluate.roles import VALIDATION, run_role
from rag.evaluate.saved_runs import SavedRun, SuiteTable, finite_number, hit_metric, record_outcome
from rag.evaluate.suite_results import SUITE_LABELS
from rag.evaluate.verdict import BLIND_METRICS, BlindTable

CHART_METRICS: tuple[str, ...] = (
    "hit@5",
    "mrr",
    "abstention_accuracy",
    "false_abstention_rate",
    "keyword_recall",
    "judge_mean",
)
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
FALLBACK_SUFFIX = " (fallback)"
ANSWER_CHARS = 200  # how much of an answer the questions table shows

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


def config_label(run: SavedRun, config: str, runs: Sequence[SavedRun]) -> str:
    """`config` when one run is shown, else `run / config`; `(fallback)` added when the configuration ran
    without one of its stages (its bars are then those of a simpler configuration)."""
    label = config if len(runs) <= 1 else f"{run.name} / {config}"
    return label + FALLBACK_SUFFIX if config in run.fell_back else label


def metrics_frame(runs: Sequence[SavedRun]) -> pd.DataFrame:
    """Long table: run, config, label, metric, value (each configuration's `SavedRun.headline` numbers)."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for config in run.metrics:
            for metric, number in run.headline(config).items():
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


# What the breakdown heatmap can group a run's questions by.
BREAKDOWNS = ("category", "API")


def _groups(run: SavedRun, config: str, by: str) -> dict[str, dict[str, float]]:
    """A configuration's figures per group of `by` (one of `BREAKDOWNS`)."""
    if by not in BREAKDOWNS:
        raise ValueError(f"by={by!r} is not a breakdown; allowed: {', '.join(BREAKDOWNS)}")
    return run.by_category(config) if by == "category" else run.by_api(config)


def category_frame(runs: Sequence[SavedRun], metric: str, by: str = "category") -> pd.DataFrame:
    """Long table: label, category, value of one metric per group of `by` (one of `BREAKDOWNS`: the question's
    category, or the API it is about) and configuration."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for config in run.configs:
            for category, values in _groups(run, config, by).items():
                if metric in values:
                    rows.append({"label": config_label(run, config, runs), "category": category,
                                 "value": values[metric]})
    return pd.DataFrame(rows, columns=["label", "category", "value"])


def category_metrics(runs: Sequence[SavedRun], by: str = "category") -> list[str]:
    """Metrics that appear in some configuration's breakdown by `by` (headline order first)."""
    found: list[str] = []
    for run in runs:
        for config in run.configs:
            for values in _groups(run, config, by).values():
                found.extend(metric for metric in values if metric != "n")
    ordered = [m for m in SUMMARY_METRICS if m in found] + [m for m in found if m not in SUMMARY_METRICS]
    hit = hit_metric(runs)
    ordered = [hit if m == "hit@5" and hit in found else m for m in ordered]
    return list(dict.fromkeys(ordered))


def breakdowns(runs: Sequence[SavedRun]) -> list[str]:
    """What the runs' figures can be broken down by (of `BREAKDOWNS`): by category always, by API when some
    configuration's questions are about several APIs."""
    several = any(run.by_api(config) for run in runs for config in run.configs)
    return list(BREAKDOWNS) if several else [BREAKDOWNS[0]]


def questions_frame(runs: Sequence[SavedRun]) -> pd.DataFrame:
    """One row per record (its `rag.evaluate.saved_runs.RecordOutcome`): which run/config, the question, its
    category, failure label and outcome."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for config, records in run.records.items():
            for position, record in enumerate(records):
                outcome = record_outcome(record)
                rows.append(
                    {
                        "run": run.name,
                        "config": config,
                        "label": config_label(run, config, runs),
                        "query_id": outcome.query_id,
                        "category": outcome.category,
                        "query": outcome.query,
                        "failure": outcome.failure,
                        "abstained": outcome.abstained,
                        "confidence": outcome.confidence,
                        "relevant rank": outcome.relevant_rank,
                        "top retrieved": ", ".join(outcome.top_retrieved),
                        "answer": outcome.answer[:ANSWER_CHARS],
                        "total ms": outcome.total_ms,
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


def record_summary(record: Mapping[str, Any]) -> str:
    """`retrieval 12 ms · generation 340 ms · total 352 ms · tokens in 812 · out 96 · model …` for one record."""

    def number(key: str) -> float:
        value = finite_number(record.get(key))
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


def run_caption(run: SavedRun) -> str:
    """`heldout-retrieval · validation · 50 questions · retrieval only` for the run picker and captions."""
    parts = [run.name, run_role(run)]
    questions = run.manifest.get("questions")
    if isinstance(questions, int):
        parts.append(f"{questions} questions")
    if run.manifest.get("retrieval_only"):
        parts.append("retrieval only")
    return " · ".join(parts)


def suite_frame(suite: SuiteTable, metric: str = "hit_rate") -> pd.DataFrame:
    """One row per question set (role, size, `metric` per configuration, whether full beats C2), then the macro
    average over the validation sets."""
    if metric not in SUITE_LABELS:
        raise ValueError(f"suite metric {metric!r} is not allowed; allowed: {', '.join(SUITE_LABELS)}")
    rows: list[dict[str, Any]] = []
    for item in suite.sets:
        row: dict[str, Any] = {"set": item.name, "role": item.role, "questions": item.questions,
                               "answerable": item.answerable, "out of scope": item.out_of_scope}
        row.update({config: item.value(config, metric) for config in suite.configs})
        beats = item.full_beats_c2
        row["full beats C2"] = "yes" if beats is True else "no" if beats is False else ""
        rows.append(row)
    if suite.macro_validation:
        row = {"set": "macro average", "role": VALIDATION, "questions": None, "answerable": None,
               "out of scope": None, "full beats C2": ""}
        row.update({config: suite.macro(config, metric) for config in suite.configs})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["set", "role", "questions", "answerable", "out of scope", *suite.configs,
                                        "full beats C2"])
    for column in ("questions", "answerable", "out of scope"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("Int64")
    return frame


def blind_frame(table: BlindTable, metric: str = "hit@5") -> pd.DataFrame:
    """One row per blinded set (its answerable and out-of-scope questions, `metric` per configuration), then the
    mean over the sets."""
    if metric not in BLIND_METRICS:
        raise ValueError(f"blinded-set metric {metric!r} is not allowed; allowed: {', '.join(BLIND_METRICS)}")
    configs = table.all_configs
    rows: list[dict[str, Any]] = []
    for name in table.sets:
        answerable, out_of_scope = table.question_counts(name)
        row: dict[str, Any] = {"set": name, "answerable": answerable, "out of scope": out_of_scope}
        row.update({config: table.value(name, config, metric) for config in configs})
        rows.append(row)
    mean: dict[str, Any] = {"set": "mean over the sets", "answerable": None, "out of scope": None}
    mean.update({config: table.macro(config, metric) for config in configs})
    rows.append(mean)
    frame = pd.DataFrame(rows, columns=["set", "answerable", "out of scope", *configs])
    for column in ("answerable", "out of scope"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("Int64")
    return frame


def reliability_frame(runs: Sequence[SavedRun]) -> pd.DataFrame:
    """One row per confidence band and configuration of each run that shows a confidence: the band, how many
    answers, their mean confidence, how often the first result was right, and the configuration's ECE and how
    often it was right at confidence ≥ 0.9 (`rag.evaluate.reliability`)."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        for config, records in run.records.items():
            figures = reliability(records)
            label = config_label(run, config, runs)
            rows += [{"label": label, "ece": figures["ece"], "right_when_sure": figures["right_when_sure"],
                      "sure": figures["sure"], **band} for band in figures["bands"]]
    return pd.DataFrame(rows, columns=["label", "ece", "right_when_sure", "sure", "from", "to", "n", "confidence",
                                       "right"])
