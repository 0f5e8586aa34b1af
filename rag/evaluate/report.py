"""A run's report: the metrics of every config from its result file (`OUT/metrics.json`, with the manifest) and
the plain-text table the command line prints."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag.config import Config
from rag.errors import EvaluationError
from rag.evaluate.metrics import BY_API, summarize
from rag.evaluate.questions import Question
from rag.evaluate.records import read_records, result_file

METRICS_FILE = "metrics.json"


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


def _columns(k: int) -> list[tuple[str, str]]:
    """(title, metric key) of each number column of the table."""
    return [
        ("n", "n"),
        ("hit@1", "hit@1"),
        (f"hit@{k}", f"hit@{k}"),
        ("MRR", "mrr"),
        (f"recall@{k}", f"recall@{k}"),
        (f"nDCG@{k}", f"ndcg@{k}"),
        ("abst.acc", "abstention_accuracy"),
        ("false.abst", "false_abstention_rate"),
        ("kw.recall", "keyword_recall"),
        ("judge", "judge_mean"),
        ("ECE", "ece"),
        ("right@.9", "right_when_sure"),
        ("p50 ms", "latency_ms_p50"),
        ("p95 ms", "latency_ms_p95"),
    ]


def format_metrics_table(metrics: dict[str, Any], k: int | None = None) -> str:
    """A plain-text table of the headline metrics per config (failure counts last, unpadded)."""
    k = k or int(metrics.get("manifest", {}).get("k", 5))
    columns = _columns(k)
    rows = [["config", *(title for title, _ in columns), "failures"]]
    for name, values in metrics.get("configs", {}).items():
        values = {**values, **{key: (values.get("calibration") or {}).get(key) for key in ("ece", "right_when_sure")}}
        cells = [_fmt(values.get(key), 1 if key.startswith("latency") else 3) for _, key in columns]
        failures = values.get("failures") or {}
        rows.append([name, *cells, ", ".join(f"{label}={count}" for label, count in failures.items()) or "-"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        numbers = [cell.rjust(width) for cell, width in zip(row[1:-1], widths[1:], strict=True)]
        lines.append("  ".join([row[0].ljust(widths[0]), *numbers]) + "  " + row[-1])
    return "\n".join(lines)


def format_api_table(metrics: dict[str, Any], k: int | None = None) -> str:
    """A plain-text table of each configuration's figures per API its questions are about ("" when every
    question is about one API): where an index of several APIs fails, and how often another API came first."""
    k = k or int(metrics.get("manifest", {}).get("k", 5))
    columns = [("n", "n"), ("hit@1", "hit@1"), (f"hit@{k}", f"hit@{k}"), ("MRR", "mrr"),
               (f"follow-up hit@{k}", f"follow_up_hit@{k}"), ("another API first", "another_api_first")]
    rows = [["config", "API", *(title for title, _ in columns)]]
    for name, values in metrics.get("configs", {}).items():
        for api, figures in (values.get(BY_API) or {}).items():
            rows.append([name, api, *(_fmt(figures.get(key)) for _, key in columns)])
    if len(rows) == 1:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join([row[0].ljust(widths[0]), row[1].ljust(widths[1]),
                                *(cell.rjust(width) for cell, width in zip(row[2:], widths[2:], strict=True))])
                     for row in rows)
