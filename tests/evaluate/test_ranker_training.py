"""Training the learned ranker (rag/evaluate/ranker_training.py) on synthetic candidate lists: deterministic,
evaluated only out of corpus, its calibration a probability."""

from __future__ import annotations

import numpy as np
import pytest

from rag.evaluate import ranker_training
from rag.evaluate.ranker_data import CandidateList, load_lists, save_lists
from rag.evaluate.ranker_training import (
    apart,
    fit_calibrator,
    loco_report,
    order_figures,
    out_of_corpus,
    rank_of_first_right,
    train_model,
)
from rag.rerank.calibration import FIRST_PLACE_FEATURES
from rag.rerank.features import FEATURE_NAMES

FAMILIES = {"a": frozenset({"x"}), "b": frozenset({"y"}), "ab": frozenset({"x", "y"}), "c": frozenset({"z"})}
SIGNAL = FEATURE_NAMES.index("lead_similarity")


def lists(corpus: str, count: int, seed: int) -> list[CandidateList]:
    """Lists of 8 candidates where the right one has the highest `lead_similarity` (plus noise), placed anywhere
    in the first-stage order."""
    random = np.random.default_rng(seed)
    made = []
    for n in range(count):
        features = random.normal(0.0, 1.0, (8, len(FEATURE_NAMES))).astype(np.float32)
        right = int(random.integers(0, 8))
        features[right, SIGNAL] += 3.0
        labels = np.zeros(8, dtype=np.int8)
        labels[right] = 1
        made.append(CandidateList(f"{corpus}-set", corpus, f"{corpus}-{n}", features, labels, np.ones(8, bool)))
    return made


@pytest.fixture(scope="module")
def data() -> list[CandidateList]:
    return lists("a", 60, 1) + lists("b", 60, 2) + lists("ab", 20, 3) + lists("c", 60, 4)


def test_a_corpus_is_ranked_only_by_corpora_sharing_no_spec_with_it() -> None:
    assert apart("a", FAMILIES) == {"b", "c"}
    assert apart("ab", FAMILIES) == {"c"}
    assert apart("c", FAMILIES) == {"a", "b", "ab"}


def test_training_is_deterministic_and_learns_the_signal(data: list[CandidateList],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranker_training, "ROUNDS", 40)
    first, second = train_model(data, rounds=40), train_model(data, rounds=40)
    assert first.model_to_string() == second.model_to_string()
    ranked = out_of_corpus(data, FAMILIES, rounds=40)
    assert len(ranked) == len(data)
    learned = order_figures([r.learned for r in ranked])
    first_stage = order_figures([r.first_stage for r in ranked])
    assert learned["hit@1"] > 0.8 > first_stage["hit@1"]


def test_the_model_does_not_depend_on_its_seed(data: list[CandidateList]) -> None:
    """Every tree sees every row and feature: another seed gives the same scores, so a retrain moves only by what
    its data changed."""
    other_seed = {**ranker_training.LAMBDARANK, "seed": ranker_training.LAMBDARANK["seed"] + 1}
    features = np.concatenate([item.features for item in data[:10]])
    shipped, reseeded = train_model(data, rounds=40), train_model(data, rounds=40, params=other_seed)
    assert np.array_equal(shipped.predict(features), reseeded.predict(features))


def test_the_calibration_turns_the_margin_into_a_probability(data: list[CandidateList]) -> None:
    ranked = out_of_corpus(data, FAMILIES, rounds=40)
    calibrator = fit_calibrator(ranked)
    margin = list(FIRST_PLACE_FEATURES).index("margin")
    low, high = list(ranked[0].place), list(ranked[0].place)
    low[margin], high[margin] = 0.0, 6.0
    assert calibrator.probability_of(high) > calibrator.probability_of(low)
    reports = loco_report(ranked, FAMILIES, by="corpus")
    assert [r.name for r in reports] == ["a", "ab", "b", "c"]
    assert all(0.0 <= r.figures["ece"] <= 1.0 for r in reports)  # type: ignore[operator]
    assert {"questions", "learned hit@1", "first-stage mrr", "right_at_0.9", "at_0.9"} <= set(reports[0].figures)


def test_ranks_of_the_first_right_candidate() -> None:
    labels = np.array([0, 0, 1, 1], dtype=np.int8)
    assert rank_of_first_right(np.array([0.1, 0.9, 0.5, 0.2]), labels) == 2
    assert rank_of_first_right(np.array([1.0, 1.0, 1.0, 1.0]), labels) == 3  # ties keep the first-stage order
    assert rank_of_first_right(np.zeros(4), np.zeros(4, dtype=np.int8)) == 0
    assert order_figures([1, 2, 0, 6]) == {"hit@1": 0.25, "mrr": 0.375, "hit@5": 0.5}


def test_candidate_lists_round_trip_and_lists_of_other_features_are_not_read(tmp_path, data) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "lists.npz"
    save_lists(data[:3], str(path))
    read = load_lists(str(path))
    assert read is not None and [r.question_id for r in read] == [d.question_id for d in data[:3]]
    assert np.array_equal(read[1].features, data[1].features) and np.array_equal(read[1].labels, data[1].labels)
    old = tmp_path / "old.npz"
    np.savez(old, features=np.zeros((1, 3)), labels=np.zeros(1), operations=np.zeros(1, bool),
             sizes=np.array([1]), meta=np.array([["s", "c", "q"]]))
    assert load_lists(str(old)) is None
