"""The confidence shown with an answer: the estimated probability that the first operation is the right one.

The learned ranker's scores say which candidate is likeliest, not how likely it is. A logistic model over what
the ranked pool shows about its first place (its score, its margin over the next, its share of the pool's
softmax, how similar the question is to it) turns them into a probability; it is fitted on the tuning sets'
out-of-fold rankings (scripts/train_ranker.py: each corpus ranked by a model that never saw it) and ships in
rag/data/ranker/calibration.json. `rag eval` and the evaluation page report how well it holds (reliability per
confidence band and the expected calibration error, rag.evaluate.metrics).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rag.chunk import described
from rag.errors import RagError
from rag.results import RERANK_SCORE, RetrievedChunk

CALIBRATION_FILE = Path(__file__).resolve().parent.parent / "data" / "ranker" / "calibration.json"
# The learned ranker's score of a candidate and its short-text similarities, as the candidates carry them.
LEARNED_SCORE, LEAD_SCORE, NAME_SCORE = RERANK_SCORE, "lead", "name"

# From this probability on, an answer names one operation; below it, the likeliest ones (the gate's `partial`): the
# first is then more likely wrong than right.
ANSWER_FROM = 0.5

FIRST_PLACE_FEATURES: tuple[str, ...] = (
    "score", "margin", "share", "vector", "lead", "name", "best_vector", "operation", "described", "follow_up",
)


@dataclass(frozen=True)
class FirstPlace:
    """What a ranked pool shows about its first candidate: its learned score, its margin over the best other
    candidate, its share of the pool's softmax, its similarities to the question, the pool's best vector
    similarity, whether it is an operation and whether the spec describes it in words; and whether the question
    follows up an earlier one (a follow-up's search text carries the earlier turn, which its first place
    matches well whether or not it is what the follow-up asks)."""

    score: float
    margin: float
    share: float
    vector: float
    lead: float
    name: float
    best_vector: float
    operation: bool
    described: bool = True
    follow_up: bool = False
    # The stage after the learned ranker that put it ahead of a candidate the model scored higher (its margin is
    # negative): "lookup" (the lookup lift), "subject" (the conversation's subject), "order" (schemas after
    # operations), "apis" (a multi-API question's first API)…; not a model input.
    placed_by: str = ""
    # The question names it exactly (`GET /users/{id}`, its operationId: rag.retrieve.named_operations); not a
    # model input.
    named: bool = False

    @property
    def placed(self) -> bool:
        """Whether a stage after the learned ranker put it first (`placed_by`)."""
        return bool(self.placed_by)

    def values(self) -> tuple[float, ...]:
        """The values in `FIRST_PLACE_FEATURES` order."""
        return (self.score, self.margin, self.share, self.vector, self.lead, self.name, self.best_vector,
                float(self.operation), float(self.described), float(self.follow_up))


# The margin of a first place with no other candidate to compare it with.
LONE_MARGIN = 5.0


def first_place_of(
    scores: Sequence[float], vector: Sequence[float], lead: Sequence[float], name: Sequence[float], operation: bool,
    described: bool = True, follow_up: bool = False,
) -> FirstPlace:
    """The first place of a ranked list given as columns (the first entry is the first place)."""
    top, others = scores[0], scores[1:]
    peak = max(scores)
    share = math.exp(top - peak) / sum(math.exp(s - peak) for s in scores)
    return FirstPlace(
        score=float(top), margin=float(top - max(others)) if len(others) else LONE_MARGIN, share=share,
        vector=float(vector[0]), lead=float(lead[0]), name=float(name[0]), best_vector=float(max(vector)),
        operation=operation, described=described, follow_up=follow_up,
    )


def first_place(pool: Sequence[RetrievedChunk], follow_up: bool = False) -> FirstPlace | None:
    """The first place of a pool the learned ranker scored (None for an empty pool or one without its
    scores); `follow_up`: the question follows up an earlier one."""
    scored = [c for c in pool if LEARNED_SCORE in c.scores]
    if not pool or not scored or scored[0] is not pool[0]:
        return None

    def column(name: str) -> list[float]:
        return [c.scores.get(name, 0.0) for c in scored]

    first = pool[0].chunk
    return first_place_of(column(LEARNED_SCORE), column("vector"), column(LEAD_SCORE), column(NAME_SCORE),
                          first.kind == "operation", described(first), follow_up)


class CalibrationUnavailable(RagError):
    """The calibration file is missing or does not fit the first-place features (the message says how to
    rebuild it)."""


@dataclass(frozen=True)
class Calibrator:
    """A logistic model: P(first is right) = σ(intercept + Σ coefficient · value), fitted on the ranker's own first
    places; for a first place a stage after the ranker chose (`FirstPlace.placed_by`), how often the first places
    that stage chose were right on the tuning sets, each corpus counted alike as the logistic model weighs them
    (`placed_by_stage`: stage, corpus, right, questions; counted by `make ranker`), or of all stages together
    (`placed_right` of `placed_questions`) for a stage not counted apart; for a first place the question names
    exactly (`FirstPlace.named`), how often named ones were right (`named_right` of `named_questions`)."""

    coefficients: tuple[float, ...]
    intercept: float
    placed_right: int = 0
    placed_questions: int = 0
    named_right: int = 0
    named_questions: int = 0
    placed_by_stage: tuple[tuple[str, str, int, int], ...] = ()

    def __post_init__(self) -> None:
        if len(self.coefficients) != len(FIRST_PLACE_FEATURES):
            raise CalibrationUnavailable(
                f"a calibrator needs {len(FIRST_PLACE_FEATURES)} coefficients ({', '.join(FIRST_PLACE_FEATURES)}); "
                f"got {len(self.coefficients)}: rebuild it with `make ranker`"
            )

    def probability(self, place: FirstPlace) -> float:
        """The estimated probability that the first candidate is right."""
        if place.named and self.named_questions:
            return self.named_probability
        if place.placed and self.placed_questions:
            return self.placed_probability_of(place.placed_by)
        return self.probability_of(place.values())

    @property
    def placed_probability(self) -> float:
        """How often a first place a stage after the ranker chose was right on the tuning sets, with one right and
        one wrong added (a few such questions must not make it certain)."""
        return _smoothed(self.placed_right, self.placed_questions)

    def placed_probability_of(self, stage: str) -> float:
        """How often the first places `stage` chose were right on the tuning sets: the mean over the corpora where
        it chose any of each corpus's share right, smoothed as `placed_probability` (18 of 18 on one catalogue and 0
        of 3 on a task tracker say less than 18 of 21 about the next API); `placed_probability` where the stage's
        first places were not counted apart."""
        rates = [_smoothed(right, questions) for name, _, right, questions in self.placed_by_stage
                 if name == stage and questions]
        return sum(rates) / len(rates) if rates else self.placed_probability

    @property
    def named_probability(self) -> float:
        """How often a first place the question names exactly was right on the tuning sets, smoothed as
        `placed_probability`."""
        return _smoothed(self.named_right, self.named_questions)

    def probability_of(self, values: Sequence[float]) -> float:
        """The probability for first-place values in `FIRST_PLACE_FEATURES` order."""
        z = self.intercept + sum(c * v for c, v in zip(self.coefficients, values, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready view (the file `load_calibrator` reads)."""
        return {"features": list(FIRST_PLACE_FEATURES), "coefficients": list(self.coefficients),
                "intercept": self.intercept,
                "placed_first": {"right": self.placed_right, "questions": self.placed_questions,
                                 "by_stage": {stage: {corpus: {"right": right, "questions": questions}
                                                      for name, corpus, right, questions in self.placed_by_stage
                                                      if name == stage}
                                              for stage in dict.fromkeys(row[0] for row in self.placed_by_stage)}},
                "named_first": {"right": self.named_right, "questions": self.named_questions}}


def _smoothed(right: int, questions: int) -> float:
    """How often `right` of `questions` were right, with one right and one wrong added."""
    return (right + 1) / (questions + 2)


@cache
def load_calibrator(path: Path = CALIBRATION_FILE) -> Calibrator:
    """The calibrator stored at `path` (read once)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CalibrationUnavailable(
            f"cannot read the calibration at {path} ({error}); build it with `make ranker`"
        ) from None
    if tuple(data.get("features", ())) != FIRST_PLACE_FEATURES:
        raise CalibrationUnavailable(f"the calibration at {path} was fitted on other features; rebuild it with "
                                     "`make ranker`")
    placed, named = data.get("placed_first", {}), data.get("named_first", {})
    stages = placed.get("by_stage") or {}
    if not all(isinstance(corpora, dict) and all(isinstance(counts, dict) for counts in corpora.values())
               for corpora in stages.values()):
        raise CalibrationUnavailable(f"the calibration at {path} counts first places by stage without their corpora "
                                     "(an older layout); rebuild it with `make ranker`")
    by_stage = tuple((str(stage), str(corpus), int(counts.get("right", 0)), int(counts.get("questions", 0)))
                     for stage, corpora in sorted(stages.items()) for corpus, counts in sorted(corpora.items()))
    return Calibrator(tuple(float(c) for c in data["coefficients"]), float(data["intercept"]),
                      int(placed.get("right", 0)), int(placed.get("questions", 0)),
                      int(named.get("right", 0)), int(named.get("questions", 0)), by_stage)
