"""The learned ranker's model (rag/rerank/learned.py): what each feature added to a candidate's score."""

from __future__ import annotations

import numpy as np

from rag.rerank.features import FEATURE_NAMES
from rag.rerank.learned import load_model, tree_leaves


def test_path_credits_sum_to_the_score_and_credit_only_the_features_split_on() -> None:
    # One tree: split on feature 0 at 0.5 (value 0.0), then its right child on feature 2 at 1.0 (value 2.0).
    model = {"max_feature_idx": 2, "tree_info": [{"num_leaves": 3, "tree_structure": {
        "split_feature": 0, "internal_value": 0.0,
        "left_child": {"leaf_index": 0, "leaf_value": -1.0},
        "right_child": {"split_feature": 2, "internal_value": 2.0,
                        "left_child": {"leaf_index": 1, "leaf_value": 1.5},
                        "right_child": {"leaf_index": 2, "leaf_value": 3.0}},
    }}, {"num_leaves": 1, "tree_structure": {"leaf_value": 0.25}}]}
    values, credits = tree_leaves(model)
    assert values.tolist() == [[-1.0, 1.5, 3.0], [0.25, 0.0, 0.0]]
    assert credits.shape == (2, 3, 4)
    assert credits[0, 0].tolist() == [-1.0, 0.0, 0.0, 0.0]
    assert credits[0, 2].tolist() == [2.0, 0.0, 1.0, 0.0]  # feature 0 took it to 2.0, feature 2 on to 3.0
    assert credits[1, 0].tolist() == [0.0, 0.0, 0.0, 0.25]  # a tree of one leaf: its value, explained by nothing
    assert credits[0, 2].sum() + credits[1, 0].sum() == 3.25


def test_the_shipped_models_scores_are_lightgbms_and_its_contributions_sum_to_them() -> None:
    model = load_model()
    rng = np.random.default_rng(7)
    rows = rng.random((200, len(FEATURE_NAMES))).astype(np.float32)
    rows[rng.random(rows.shape) < 0.3] = 0.0
    scored = model.score(rows)
    assert np.array_equal(scored.scores, model.booster.predict(rows, raw_score=True, num_threads=1))  # to the bit
    summed = np.array([scored.contributions(row).sum() for row in range(len(rows))])
    assert np.allclose(summed, scored.scores, rtol=0, atol=1e-9)
    assert len(scored.contributions(0)) == len(FEATURE_NAMES) + 1
    assert model.score(rows[:0]).scores.shape == (0,)


def test_leaf_values_are_read_by_each_trees_leaf_index() -> None:
    model = {"max_feature_idx": 0, "tree_info": [{"num_leaves": 2, "tree_structure": {
        "split_feature": 0, "internal_value": 0.5, "left_child": {"leaf_index": 1, "leaf_value": -1.0},
        "right_child": {"leaf_index": 0, "leaf_value": 2.0}}},
        {"num_leaves": 1, "tree_structure": {"leaf_value": 0.25}}]}
    assert tree_leaves(model)[0].tolist() == [[2.0, -1.0], [0.25, 0.0]]
