"""The confidence as a probability (rag/rerank/calibration.py): the first place a pool shows, and the logistic
model over it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rag.rerank.calibration import (
    FIRST_PLACE_FEATURES,
    CalibrationUnavailable,
    Calibrator,
    first_place,
    load_calibrator,
)
from rag.results import RetrievedChunk
from tests.fakes import make_chunk


def pool(*scores: float) -> list[RetrievedChunk]:
    return [
        RetrievedChunk(make_chunk(f"a.paths./x{i}.get", "x", kind="operation"),
                       {"rerank": s, "vector": 0.5 - i / 10, "lead": 0.6, "name": 0.3})
        for i, s in enumerate(scores)
    ]


def test_the_first_place_is_read_from_the_pools_scores() -> None:
    place = first_place(pool(2.0, 1.0, 0.0))
    assert place is not None
    assert (place.score, place.margin, place.vector, place.best_vector, place.operation) == (2.0, 1.0, 0.5, 0.5, True)
    assert round(place.share, 3) == 0.665
    moved = pool(0.0, 2.0)  # another stage put a lower-scored candidate first: a negative margin
    assert first_place(moved).margin == -2.0  # type: ignore[union-attr]
    assert first_place([]) is None
    assert first_place([RetrievedChunk(make_chunk("a.paths./y.get", "y"), {"fused": 0.1})]) is None


def test_the_probability_grows_with_the_margin() -> None:
    calibrator = Calibrator(tuple(1.0 if name == "margin" else 0.0 for name in FIRST_PLACE_FEATURES), -1.0)
    sure, unsure = first_place(pool(5.0, 0.0)), first_place(pool(1.0, 1.0))
    assert calibrator.probability(sure) > 0.95 > 0.3 > calibrator.probability(unsure)  # type: ignore[arg-type]


def test_a_calibration_file_round_trips_and_a_wrong_one_says_how_to_rebuild_it(tmp_path: Path) -> None:
    calibrator = Calibrator(tuple(float(i) for i in range(len(FIRST_PLACE_FEATURES))), 0.5, 3, 5, 4, 6)
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(calibrator.to_dict()))
    assert load_calibrator(path) == calibrator
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**calibrator.to_dict(), "features": ["score"]}))
    with pytest.raises(CalibrationUnavailable, match="fitted on other features; rebuild it with `make ranker`"):
        load_calibrator(other)
    with pytest.raises(CalibrationUnavailable, match="cannot read the calibration"):
        load_calibrator(tmp_path / "missing.json")
    with pytest.raises(CalibrationUnavailable, match="needs 10 coefficients"):
        Calibrator((1.0,), 0.0)


def test_the_shipped_calibration_fits_the_first_place_features() -> None:
    assert len(load_calibrator().coefficients) == len(FIRST_PLACE_FEATURES)


def test_a_first_place_another_stage_chose_gets_how_often_such_places_were_right() -> None:
    """The logistic model never saw a negative margin (it is fitted on the ranker's own first places): a first place
    the lookup lift or the subject put there is as likely right as such places were on the tuning sets."""
    counted = Calibrator(tuple(1.0 if name == "margin" else 0.0 for name in FIRST_PLACE_FEATURES), -1.0, 7, 8)
    found, own = first_place(pool(0.0, 3.0)), first_place(pool(3.0, 0.0))
    assert found is not None and own is not None and not found.placed and not own.placed
    moved = replace(found, placed_by="lookup")  # as rag.pipeline.learned_rank marks it behind the learned ranker
    assert moved.placed and counted.probability(moved) == counted.placed_probability == 0.8  # (7 + 1) / (8 + 2)
    assert counted.probability(own) == counted.probability_of(own.values()) > 0.8
    uncounted = Calibrator(counted.coefficients, -1.0)  # a calibration without the counts: the logistic model
    assert uncounted.probability(moved) == uncounted.probability_of(moved.values()) < 0.02


def test_each_stage_that_places_a_first_gets_how_often_its_own_first_places_were_right(tmp_path: Path) -> None:
    """The lookup lift and the conversation's subject are right at different rates: each is counted apart, and each
    corpus alike (eight of eight on one catalogue and none of two on a task tracker say less than eight of ten about
    the next API); a stage not counted apart gets the rate of all together."""
    counted = Calibrator(tuple(0.0 for _ in FIRST_PLACE_FEATURES), 0.0, 11, 18,
                         placed_by_stage=(("lookup", "music", 8, 8), ("lookup", "tasks", 0, 2),
                                          ("subject", "music", 3, 8)))
    found = first_place(pool(0.0, 3.0))
    assert found is not None
    assert counted.probability(replace(found, placed_by="lookup")) == (0.9 + 0.25) / 2  # (8+1)/(8+2), (0+1)/(2+2)
    assert counted.probability(replace(found, placed_by="subject")) == 0.4  # (3 + 1) / (8 + 2)
    assert counted.probability(replace(found, placed_by="paging")) == counted.placed_probability == 12 / 20
    assert counted.to_dict()["placed_first"]["by_stage"] == {
        "lookup": {"music": {"right": 8, "questions": 8}, "tasks": {"right": 0, "questions": 2}},
        "subject": {"music": {"right": 3, "questions": 8}}}
    stored = tmp_path / "calibration.json"
    stored.write_text(json.dumps(counted.to_dict()), encoding="utf-8")
    assert load_calibrator(stored) == counted
    older = counted.to_dict()
    older["placed_first"]["by_stage"] = {"lookup": {"right": 8, "questions": 10}}  # no corpora: an older layout
    (tmp_path / "older.json").write_text(json.dumps(older), encoding="utf-8")
    with pytest.raises(CalibrationUnavailable, match=r"without their corpora.*make ranker"):
        load_calibrator(tmp_path / "older.json")


def test_a_first_place_the_question_names_gets_how_often_named_operations_were_right() -> None:
    counted = Calibrator(tuple(1.0 if name == "margin" else 0.0 for name in FIRST_PLACE_FEATURES), -1.0, 7, 8, 18, 18)
    own = first_place(pool(3.0, 0.0))
    assert own is not None
    # Named wins over placed: a named operation is often put ahead of the model's first.
    for place in (replace(own, named=True), replace(own, named=True, placed_by="subject")):
        assert counted.probability(place) == counted.named_probability == 0.95  # (18 + 1) / (18 + 2)
    uncounted = Calibrator(counted.coefficients, -1.0, 7, 8)  # no named first places counted: the logistic model
    assert uncounted.probability(replace(own, named=True)) == counted.probability(own)


def test_the_shipped_calibration_counts_first_places_other_stages_chose() -> None:
    shipped = load_calibrator()
    assert 0 < shipped.placed_right <= shipped.placed_questions
    assert {stage for stage, _, _, _ in shipped.placed_by_stage} >= {"lookup", "subject"}
    assert sum(right for _, _, right, _ in shipped.placed_by_stage) == shipped.placed_right
    assert sum(questions for _, _, _, questions in shipped.placed_by_stage) == shipped.placed_questions
    assert 0 < shipped.named_right <= shipped.named_questions
