"""The blinded-set comparison of the embedder backends: rows for every set, config and metric both report."""

from __future__ import annotations

import pytest

from bench.embedder_blind import differences


def totals(hit: float, mrr: float) -> dict[str, float]:
    return {"hit@5": hit, "mrr": mrr, "recall@5": 0.5}


def test_differences_pair_each_set_config_and_metric_of_both_backends() -> None:
    tables = {
        "torch": {"tmdb": {"C2": totals(0.78, 0.597), "full": totals(0.84, 0.713)}, "only-torch": {"C2": totals(1, 1)}},
        "onnx": {"tmdb": {"C2": totals(0.78, 0.597), "full": totals(0.83, 0.716)}},
    }
    rows = differences(tables)
    assert [(name, config, metric) for name, config, metric, *_ in rows] == [
        ("tmdb", "C2", "hit@5"), ("tmdb", "C2", "mrr"), ("tmdb", "full", "hit@5"), ("tmdb", "full", "mrr")]
    assert max(abs(onnx - torch) for *_, torch, onnx in rows) == pytest.approx(0.01)
