"""Training the learned ranker and its calibration, and measuring both leave-one-corpus-out.

Each corpus is held out in turn: a LightGBM lambdarank model trained on the questions of every corpus that shares
no spec with it (`families`: the specs each corpus indexes) ranks its questions. The figures in the report (hit@1,
MRR, hit@5 against the first-stage order) and the first places the calibration is fitted on come only from such
out-of-corpus rankings, so no figure comes from a spec the model trained on. The shipped model is then trained on
every corpus with the same settings; the shipped calibration is fitted on every corpus's out-of-corpus first
places. Deterministic: one thread, and every tree sees every row and every feature (no bagging, no feature
sampling), so the model does not depend on its seed either: a one-question change to the training data moves it by
that question, not by a different draw of rows (docs/ranking.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rag.evaluate.ranker_data import CandidateList
from rag.evaluate.reliability import SURE, expected_calibration_error
from rag.rerank.calibration import Calibrator, first_place_of
from rag.rerank.features import FEATURE_NAMES

LAMBDARANK: dict[str, Any] = {
    "objective": "lambdarank", "learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 20,
    "feature_fraction": 1.0, "bagging_fraction": 1.0, "bagging_freq": 0, "lambda_l2": 1.0,
    "lambdarank_truncation_level": 10, "verbose": -1, "deterministic": True, "force_row_wise": True,
    "num_threads": 1, "seed": 7,
}
ROUNDS = 100
K = 5
_COLUMN = {name: i for i, name in enumerate(FEATURE_NAMES)}


def train_model(lists: Sequence[CandidateList], rounds: int = ROUNDS, params: Mapping[str, Any] = LAMBDARANK) -> Any:
    """A LightGBM ranking model trained on the lists that hold a right candidate."""
    import lightgbm

    useful = [item for item in lists if item.answerable and len(item.labels) > 1]
    data = lightgbm.Dataset(
        np.concatenate([item.features for item in useful]),
        np.concatenate([item.labels for item in useful]),
        group=[len(item.labels) for item in useful],
        feature_name=list(FEATURE_NAMES),
        free_raw_data=False,
    )
    return lightgbm.train(dict(params), data, num_boost_round=rounds)


def rank_of_first_right(scores: np.ndarray, labels: np.ndarray) -> int:
    """The 1-based position of the first right candidate when ordered by `scores` (ties: first-stage order);
    0 when none is right."""
    order = np.argsort(-scores, kind="stable")
    right = np.nonzero(labels[order])[0]
    return int(right[0]) + 1 if len(right) else 0


@dataclass(frozen=True)
class Ranked:
    """One question ranked out of fold: where the first right candidate is in the first-stage order and in the
    learned order, and the learned first place (with whether it is right)."""

    set_name: str
    corpus: str
    first_stage: int
    learned: int
    place: tuple[float, ...]
    right: bool


def ranked_list(item: CandidateList, scores: np.ndarray) -> Ranked:
    """A candidate list ranked by `scores`."""
    order = np.argsort(-scores, kind="stable")

    def column(name: str) -> np.ndarray:
        return item.features[order, _COLUMN[name]]

    place = first_place_of(scores[order], column("vector"), column("lead_similarity"), column("name_similarity"),
                           bool(item.operations[order[0]]), bool(column("described")[0]),
                           bool(item.features[0, _COLUMN["follow_up"]]))
    first_stage = rank_of_first_right(-np.arange(len(item.labels), dtype=float), item.labels)
    return Ranked(item.set_name, item.corpus, first_stage, rank_of_first_right(scores, item.labels),
                  place.values(), bool(item.labels[order[0]]))


def apart(corpus: str, families: Mapping[str, frozenset[str]]) -> set[str]:
    """The corpora that share no spec with `corpus` (`families`: corpus → the specs it indexes)."""
    return {other for other, specs in families.items() if not specs & families[corpus]}


def out_of_corpus(
    lists: Sequence[CandidateList], families: Mapping[str, frozenset[str]], rounds: int = ROUNDS,
    training: Mapping[str, Sequence[CandidateList]] | None = None,
) -> list[Ranked]:
    """Every list ranked by a model trained only on corpora that share no spec with its own: their lists in
    `lists`, or the fold's own training lists in `training` (corpus → lists; made with a query adapter that saw
    neither corpus)."""
    ranked: list[Ranked] = []
    for corpus in sorted({item.corpus for item in lists}):
        others = apart(corpus, families)
        rest = list(training.get(corpus, ())) if training is not None else [
            item for item in lists if item.corpus in others]
        if not rest:
            continue
        model = train_model(rest, rounds)
        ranked += [ranked_list(item, model.predict(item.features, num_threads=1)) for item in lists
                   if item.corpus == corpus]
    return ranked


def fit_calibrator(ranked: Sequence[Ranked]) -> Calibrator:
    """A logistic model of 'the first place is right' over the first-place features, each corpus weighing the
    same (one corpus of many easy questions must not set the confidence for every other)."""
    from sklearn.linear_model import LogisticRegression

    rows = np.array([r.place for r in ranked], dtype=float)
    labels = np.array([r.right for r in ranked], dtype=int)
    counts = Counter(r.corpus for r in ranked)
    weights = np.array([len(ranked) / (len(counts) * counts[r.corpus]) for r in ranked])
    model = LogisticRegression(C=1.0, max_iter=5000).fit(rows, labels, sample_weight=weights)
    return Calibrator(tuple(float(c) for c in model.coef_[0]), float(model.intercept_[0]))


@dataclass
class FoldReport:
    """The out-of-fold figures of one set (or fold): questions, hit@1, MRR and hit@5 of the first-stage and the
    learned order, and the calibration's ECE and how often the first is right at confidence ≥ 0.9."""

    name: str
    figures: dict[str, float | int | None] = field(default_factory=dict)


def order_figures(ranks: Sequence[int], k: int = K) -> dict[str, float]:
    """hit@1, MRR@k and hit@k of 1-based ranks (0: none right)."""
    inside = [r if 0 < r <= k else 0 for r in ranks]
    n = len(inside) or 1
    return {
        "hit@1": round(sum(r == 1 for r in inside) / n, 3),
        "mrr": round(sum(1.0 / r for r in inside if r) / n, 3),
        f"hit@{k}": round(sum(r > 0 for r in inside) / n, 3),
    }


def calibration_figures(pairs: Sequence[tuple[float, bool]]) -> dict[str, float | int | None]:
    """ECE, and how often the first is right among pairs with confidence ≥ 0.9 (and how many)."""
    sure = [ok for c, ok in pairs if c >= SURE]
    ece = expected_calibration_error(pairs)
    return {
        "ece": round(ece, 3) if ece is not None else None,
        "right_at_0.9": round(sum(sure) / len(sure), 3) if sure else None,
        "at_0.9": len(sure),
    }


def loco_report(ranked: Sequence[Ranked], families: Mapping[str, frozenset[str]], by: str = "set_name"
                ) -> list[FoldReport]:
    """Per set (or per corpus: `by="corpus"`), the ordering figures and the calibration's, each corpus's
    calibrator fitted on the first places of the corpora that share no spec with it."""
    reports: list[FoldReport] = []
    calibrators = {
        corpus: fit_calibrator([r for r in ranked if r.corpus in apart(corpus, families)])
        for corpus in sorted({r.corpus for r in ranked})
    }
    keys = sorted({getattr(r, by) for r in ranked})
    for key in keys:
        mine = [r for r in ranked if getattr(r, by) == key]
        pairs = [(calibrators[r.corpus].probability_of(r.place), r.right) for r in mine]
        figures: dict[str, float | int | None] = {"questions": len(mine)}
        figures.update({f"first-stage {k}": v for k, v in order_figures([r.first_stage for r in mine]).items()})
        figures.update({f"learned {k}": v for k, v in order_figures([r.learned for r in mine]).items()})
        figures.update(calibration_figures(pairs))
        reports.append(FoldReport(key, figures))
    return reports


def feature_importance(model: Any) -> list[tuple[str, float]]:
    """Each feature's share of the model's total gain, largest first."""
    gains = np.asarray(model.feature_importance(importance_type="gain"), dtype=float)
    total = gains.sum() or 1.0
    return sorted(((name, float(g / total)) for name, g in zip(FEATURE_NAMES, gains, strict=True)),
                  key=lambda item: -item[1])

