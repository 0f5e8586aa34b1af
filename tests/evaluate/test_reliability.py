"""The reliability of the confidence shown (rag/evaluate/reliability.py): bands, ECE, right at ≥ 0.9."""

from __future__ import annotations

import pytest

from rag.evaluate.reliability import band_of, expected_calibration_error, reliability


def record(confidence: float | None, right: bool, **fields: object) -> dict[str, object]:
    first = ["a.x"] if right else ["a.other"]
    return {"answerable": True, "relevant_ids": ["a.x"], "abstained": False, "error": None,
            "confidence_score": confidence, "retrieved_chunks": [{"covers": first}], **fields}


def test_bands_are_tenths_and_one_falls_in_the_last() -> None:
    assert [band_of(c) for c in (0.0, 0.05, 0.1, 0.35, 0.7, 0.99, 1.0)] == [0, 0, 1, 3, 7, 9, 9]


def test_a_calibrated_confidence_has_no_error_and_an_overconfident_one_does() -> None:
    calibrated = [(0.75, True), (0.75, True), (0.75, True), (0.75, False)]
    assert expected_calibration_error(calibrated) == 0.0
    assert expected_calibration_error([(0.95, False), (0.95, True)]) == pytest.approx(0.45)
    assert expected_calibration_error([]) is None


def test_reliability_counts_only_answerable_answers_that_were_shown_a_confidence() -> None:
    records = [
        record(0.95, True), record(0.92, False), record(0.3, False), record(0.35, True),
        record(0.9, True, abstained=True), record(None, True), record(0.9, True, answerable=False),
        record(0.9, True, error="boom"),
    ]
    figures = reliability(records)
    assert figures["n"] == 4 and figures["sure"] == 2 and figures["right_when_sure"] == 0.5
    assert figures["bands"] == [
        {"from": 0.3, "to": 0.4, "n": 2, "confidence": 0.325, "right": 0.5},
        {"from": 0.9, "to": 1.0, "n": 2, "confidence": 0.935, "right": 0.5},
    ]
    assert figures["ece"] == pytest.approx(0.305)
    assert reliability([])["ece"] is None
