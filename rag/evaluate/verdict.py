"""The evaluation page's verdict: which configuration generalises best, read only from what can show it — the
saved runs on validation questions and the blinded sets' latest totals — and naming both sources.

The blinded sets are question sets nobody on the team has read; `make eval-blind` writes their latest totals to
`<results>/blind/latest.json`:

    {"generated": "<ISO timestamp>", "configs": ["C2", "full", ...],
     "sets": {"tmdb": {"C2": {"answerable": 100, "out_of_scope": 8, "missing": 0, "hit@5": 0.78, "mrr": 0.6,
                              "recall@5": 0.7, "false_abstention": 0.0, "oos_abstained": 0.0}, ...}, ...}}

Ablations (`full-minus-lookup`: `full` without one stage) measure a stage; they are never contenders, so the
verdict reports them apart and never calls one a winner or "tied" with one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.config import ablation_parts
from rag.evaluate.metrics import metric_label
from rag.evaluate.roles import VALIDATION, run_role
from rag.evaluate.saved_runs import (
    OK_LABEL,
    SavedRun,
    failure_of,
    hit_metric,
    read_table,
    results_dir,
    whole_number,
)
from rag.evaluate.suite_results import SUITE_LABELS

BLIND_COMMAND = "make eval-blind"
BLIND_METRICS: tuple[str, ...] = ("hit@5", "mrr", "recall@5", "false_abstention", "oos_abstained")
# The suite's and the runs' own words for the same measures.
BLIND_LABELS: dict[str, str] = {
    **{metric: metric_label(metric) for metric in ("hit@5", "mrr", "recall@5")},
    "false_abstention": SUITE_LABELS["false_abstention_rate"],
    "oos_abstained": SUITE_LABELS["out_of_scope_abstention"],
}
TIE = 0.005  # scores closer than this are tied


def is_ablation(config: str) -> bool:
    """Whether a configuration is an ablation (`full-minus-lookup`), not a contender."""
    return ablation_parts(config) is not None


@dataclass(frozen=True)
class BlindTable:
    """The blinded sets' latest totals: set → configuration → metric (see the module docstring)."""

    path: Path
    generated: str
    configs: tuple[str, ...]
    sets: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.sets:
            raise ValueError(f"{self.path}: 'sets' is empty; allowed: an object of set name → configuration → totals")
        for name, per_config in self.sets.items():
            if not isinstance(per_config, Mapping):
                raise ValueError(f"{self.path}: set {name!r} is {type(per_config).__name__}; allowed: an object of "
                                 "configuration → totals")
            for config, totals in per_config.items():
                if not isinstance(totals, Mapping):
                    raise ValueError(f"{self.path}: {name}/{config} is {type(totals).__name__}; allowed: an object "
                                     f"with {', '.join(BLIND_METRICS)}")

    def value(self, name: str, config: str, metric: str) -> float | None:
        """One set's `metric` for `config` (None when absent or not a number)."""
        raw = (self.sets.get(name) or {}).get(config, {}).get(metric)
        return float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None

    def question_counts(self, name: str) -> tuple[int | None, int | None]:
        """(answerable, out-of-scope) questions of one set, as its first configuration reports them."""
        first = next(iter((self.sets.get(name) or {}).values()), {})
        return whole_number(first.get("answerable")), whole_number(first.get("out_of_scope"))

    def macro(self, config: str, metric: str) -> float | None:
        """The mean of `metric` over the sets that report it for `config`."""
        values = [v for name in self.sets if (v := self.value(name, config, metric)) is not None]
        return sum(values) / len(values) if values else None

    @property
    def all_configs(self) -> list[str]:
        """The configurations named in `configs`, then any only found in the sets."""
        found = [config for per_config in self.sets.values() for config in per_config]
        return list(dict.fromkeys([*self.configs, *found]))


def blind_path(root: Path | str | None = None) -> Path:
    """Where the blinded sets' latest totals are: <results>/blind/latest.json."""
    return Path(root if root is not None else results_dir()) / "blind" / "latest.json"


def load_blind_table(path: Path | str) -> tuple[BlindTable | None, str | None]:
    """The blinded sets' table (None when the file is absent) and a warning when it cannot be read."""
    path = Path(path)
    data, warning = read_table(path, "blinded sets' table", dict)
    if data is None:
        return None, warning
    try:
        table = BlindTable(path, str(data.get("generated") or "?"), tuple(str(c) for c in data.get("configs") or []),
                           data["sets"])
    except ValueError as error:
        return None, str(error)
    return table, None


@dataclass(frozen=True)
class Verdict:
    """The verdict's sentences, the sources they were read from, and what is missing (with how to make it)."""

    text: str
    sources: tuple[str, ...]
    missing: tuple[str, ...] = ()


def _ranking(means: Mapping[str, float]) -> tuple[str, str]:
    """The best contender and `**0.95**, +0.10 over the runner-up C3 (0.85) and +0.50 over the naive baseline C0
    (0.45)`; ablations are left out (`_ablations` reports them)."""
    contenders = {name: value for name, value in means.items() if not is_ablation(name)}
    ranked = sorted(contenders.items(), key=lambda item: (-item[1], item[0]))
    best, score = ranked[0]
    tied = [name for name, value in ranked[1:] if abs(value - score) < TIE]
    text = f"**{score:.2f}**"
    if tied:
        text += f", tied with {', '.join(tied)}"
    elif len(ranked) > 1:
        second, second_score = ranked[1]
        text += f", {score - second_score:+.2f} over the runner-up {second} ({second_score:.2f})"
    if "C0" in contenders and best != "C0" and "C0" not in tied:
        text += f" and {score - contenders['C0']:+.2f} over the naive baseline C0 ({contenders['C0']:.2f})"
    return best, text


def _ablations(means: Mapping[str, float], label: str) -> str:
    """`Ablations of full (each without one stage; measured, not contenders): without lookup −0.02, …`."""
    changes = []
    for name, value in sorted(means.items()):
        parts = ablation_parts(name)
        if parts is not None and parts[0] in means:
            base, stage = parts
            changes.append((stage, value - means[base], base))
    if not changes:
        return ""
    base = changes[0][2]
    moved = [f"without {stage} {delta:+.2f}" for stage, delta, _ in changes if abs(delta) >= TIE]
    same = [stage for stage, delta, _ in changes if abs(delta) < TIE]
    text = f"Ablations of {base} ({label}; each drops one stage, a measurement, not a contender): "
    text += "; ".join(moved) if moved else "no single stage changes it"
    if moved and same:
        text += f"; no change without {', '.join(same)}"
    return text + "."


def _validation_part(runs: Sequence[SavedRun]) -> tuple[list[str], list[str]]:
    """The sentences about the validation runs and their names as sources."""
    validation = [run for run in runs if run_role(run) == VALIDATION]
    if not validation:
        return [], []
    hit = hit_metric(validation)
    scores: dict[str, list[float]] = {}
    latency: dict[str, list[float]] = {}
    failures: dict[str, dict[str, int]] = {}
    for run in validation:
        for config, metrics in run.metrics.items():
            if config in run.fell_back:
                continue
            value = metrics.get(hit)
            if isinstance(value, (int, float)):
                scores.setdefault(config, []).append(float(value))
            ms = metrics.get("latency_ms_p50")
            if isinstance(ms, (int, float)):
                latency.setdefault(config, []).append(float(ms))
            for record in run.records.get(config, []):
                label = failure_of(record)
                if label != OK_LABEL:
                    failures.setdefault(config, {}).setdefault(label, 0)
                    failures[config][label] += 1
    means = {config: sum(values) / len(values) for config, values in scores.items() if values}
    names = [run.name for run in validation]
    if not any(not is_ablation(name) for name in means):
        return [], names
    best, ranking = _ranking(means)
    over = (f"{metric_label(hit)} on the validation run {names[0]}" if len(names) == 1
            else f"mean {metric_label(hit)} over the {len(names)} validation runs ({', '.join(names)})")
    parts = [f"**Best on the validation runs: {best}** — {over}: {ranking}."]
    if latency.get(best):
        line = f"Its median latency is {sum(latency[best]) / len(latency[best]):,.0f} ms per question"
        if latency.get("C0") and best != "C0":
            line += f" (C0: {sum(latency['C0']) / len(latency['C0']):,.0f} ms)"
        parts.append(line + ".")
    labels = failures.get(best) or {}
    total = sum(len(run.records.get(best, [])) for run in validation)
    if labels:
        label, count = max(labels.items(), key=lambda item: (item[1], item[0]))
        parts.append(f"Its main failure is `{label}` ({count} of {total} validation records).")
    elif total:
        parts.append("None of its validation records failed.")
    ablations = _ablations(means, metric_label(hit))
    if ablations:
        parts.append(ablations)
    return parts, names


def _blind_part(table: BlindTable) -> list[str]:
    """The sentences about the blinded sets."""
    means = {c: v for c in table.all_configs if (v := table.macro(c, "hit@5")) is not None}
    if not any(not is_ablation(name) for name in means):
        return []
    best, ranking = _ranking(means)
    sets = ", ".join(table.sets)
    parts = [f"**Best on the blinded sets ({sets}): {best}** — mean hit@5 {ranking}."]
    extra = []
    for metric in ("oos_abstained", "false_abstention"):
        value = table.macro(best, metric)
        if value is not None:
            extra.append(f"{BLIND_LABELS[metric]} {value:.2f}")
    if extra:
        parts.append(f"Its {' and '.join(extra)}.")
    ablations = _ablations(means, "mean hit@5 on the blinded sets")
    if ablations:
        parts.append(ablations)
    return parts


def verdict(runs: Sequence[SavedRun], blind: BlindTable | None, blind_file: Path | None = None) -> Verdict:
    """The verdict from the validation runs among `runs` (tuning runs and configurations that fell back left out)
    and the blinded sets' table; nothing else (the team's own tuning sets say nothing about generalisation)."""
    validation_parts, names = _validation_part(runs)
    sources: list[str] = []
    missing: list[str] = []
    if names:
        sources.append(f"validation runs: {', '.join(names)}")
    else:
        missing.append("No validation run is saved: evaluate on held-out questions (a benchmark's test split, or a "
                       "set the evaluation suite marks validation).")
    blind_parts: list[str] = []
    if blind is not None:
        blind_parts = _blind_part(blind)
        sources.append(f"blinded sets' table {blind.path} (generated {blind.generated})")
    else:
        where = blind_file or blind_path()
        missing.append(f"The blinded sets' table is absent ({where}): run `{BLIND_COMMAND}` to make it.")
    return Verdict(" ".join([*validation_parts, *blind_parts]), tuple(sources), tuple(missing))
