"""Metric functions against hand-computed cases."""

from __future__ import annotations

import math
from typing import Any

import pytest

from rag.evaluate.metrics import (
    FAILURE_LABELS,
    FAILURE_MEANINGS,
    abstention_accuracy,
    by_api,
    failure_label,
    false_abstention_rate,
    first_relevant_rank,
    hit_at,
    hit_rate,
    keyword_recall,
    latency,
    mean_keyword_recall,
    metric_label,
    mrr,
    ndcg_at,
    percentile,
    recall_at,
    reciprocal_rank,
    relevant_rank,
    reranker_lift,
    summarize,
    summarize_scorable,
)
from rag.evaluate.saved_runs import load_run
from tests.saved_run_fixtures import TINY_RUN

RANKED = [["a"], ["b", "x"], ["c"], ["d"], ["e"], ["f"]]
RELEVANT = ["c", "x"]


def test_rank_metrics_of_one_list() -> None:
    assert first_relevant_rank(RANKED, RELEVANT) == 2
    assert first_relevant_rank(RANKED, ["zzz"]) is None
    assert hit_at(RANKED, RELEVANT, 1) == 0.0
    assert hit_at(RANKED, RELEVANT, 2) == 1.0
    assert reciprocal_rank(RANKED, RELEVANT, 5) == 0.5
    assert reciprocal_rank(RANKED, RELEVANT, 1) == 0.0
    assert recall_at(RANKED, RELEVANT, 2) == 0.5
    assert recall_at(RANKED, RELEVANT, 3) == 1.0
    assert recall_at(RANKED, [], 3) == 0.0


def test_ndcg_hand_computed() -> None:
    # gains at ranks 2 (x) and 3 (c): DCG = 1/log2(3) + 1/log2(4); ideal = 1/log2(2) + 1/log2(3)
    dcg = 1 / math.log2(3) + 1 / math.log2(4)
    ideal = 1 + 1 / math.log2(3)
    assert ndcg_at(RANKED, RELEVANT, 5) == pytest.approx(dcg / ideal)
    assert ndcg_at(RANKED, RELEVANT, 5) == pytest.approx(0.69343, abs=1e-5)
    # only rank 2 inside k=2: DCG = 1/log2(3); ideal for 2 relevant ids within k=2 is the same as above
    assert ndcg_at(RANKED, RELEVANT, 2) == pytest.approx((1 / math.log2(3)) / ideal)
    # a relevant id is credited once, however many chunks (schema parts) cover it
    assert ndcg_at([["s"], ["s"], ["t"]], ["s"], 5) == 1.0
    assert ndcg_at([["t"], ["s"], ["s"]], ["s"], 5) == pytest.approx(1 / math.log2(3))
    # one chunk covering two relevant ids is a perfect ranking (capped at 1)
    assert ndcg_at([["u", "v"]], ["u", "v"], 5) == 1.0
    assert ndcg_at([["q"]], ["u"], 5) == 0.0


def test_keyword_recall_is_case_insensitive() -> None:
    answer = "Use GET /Orders with PAGE_SIZE up to 50"
    assert keyword_recall(answer, ["get /orders", "page_size", "100"]) == pytest.approx(2 / 3)
    assert keyword_recall(answer, []) is None
    assert keyword_recall("", ["x"]) == 0.0


def test_percentiles() -> None:
    assert percentile([4, 1, 3, 2], 50) == 2.5
    assert percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert percentile([10], 95) == 10.0
    assert percentile([], 50) is None


def record(**fields: Any) -> dict[str, Any]:
    """A minimal record: answerable, no error, covers given as lists."""
    base: dict[str, Any] = {
        "answerable": True,
        "abstained": False,
        "relevant_ids": [],
        "required_keywords": [],
        "retrieved_chunks": [],
        "pool": [],
        "llm_answer": "",
        "answered": False,
        "error": None,
        "category": "endpoint",
        "total_time_ms": 10.0,
        "timings_ms": {},
        "tokens_in": 0,
        "tokens_out": 0,
    }
    for key in ("retrieved", "pool_covers"):
        if key in fields:
            target = "retrieved_chunks" if key == "retrieved" else "pool"
            base[target] = [{"covers": covers} for covers in fields.pop(key)]
    base.update(fields)
    return base


def test_failure_labels() -> None:
    assert failure_label(record(error="boom")) == "error"
    assert failure_label(record(answerable=False, abstained=True)) is None
    assert failure_label(record(answerable=False)) == "false_answer"
    assert failure_label(record(relevant_ids=["a"], abstained=True, retrieved=[["a"]])) == "wrong_abstention"
    assert failure_label(record(relevant_ids=["a"], retrieved=[["x"]], pool_covers=[["x"], ["y"]])) == "retrieval_miss"
    assert failure_label(record(relevant_ids=["a"], retrieved=[["x"]], pool_covers=[["x"], ["a"]])) == "ranked_low"
    found = {"relevant_ids": ["a"], "retrieved": [["a"]], "required_keywords": ["GET /a"]}
    assert failure_label(record(**found, answered=True, llm_answer="call POST /a")) == "generation_miss"
    assert failure_label(record(**found, answered=True, llm_answer="call get /a")) is None
    assert failure_label(record(**found)) is None  # retrieval only: no answer to judge
    # an answerable question without relevant ids is judged by its keywords only
    assert failure_label(record(required_keywords=["x"], answered=True, llm_answer="y")) == "generation_miss"



def test_failure_labels_are_listed_in_the_order_a_question_meets_the_stages() -> None:
    assert FAILURE_LABELS == ("error", "retrieval_miss", "ranked_low", "generation_miss", "wrong_abstention",
                              "false_answer")
    assert all(FAILURE_MEANINGS[label] for label in FAILURE_LABELS)
    labels = {failure_label(record(error="boom")), failure_label(record(answerable=False)),
              failure_label(record(relevant_ids=["a"], abstained=True)),
              failure_label(record(relevant_ids=["a"], retrieved=[["x"]])),
              failure_label(record(relevant_ids=["a"], retrieved=[["x"]], pool_covers=[["a"]])),
              failure_label(record(required_keywords=["x"], answered=True, llm_answer="y"))}
    assert labels == set(FAILURE_LABELS)  # every label failure_label gives is listed, and only those


def test_relevant_rank_reads_a_saved_record_tolerantly() -> None:
    assert relevant_rank(record(relevant_ids=["a"], retrieved=[["x"], ["y", "a"]])) == 2
    assert relevant_rank(record(relevant_ids=["a"], retrieved=[["x"]])) is None
    assert relevant_rank(record(relevant_ids=[], retrieved=[["a"]])) is None
    odd = {"relevant_ids": ["a", "1"], "retrieved_chunks": ["junk", {"covers": "a"}, {}, {"covers": [1]}]}
    assert relevant_rank(odd) == 4  # odd chunks still take their place; covers are read as text
    assert relevant_rank({}) is None


RECORDS = [
    record(relevant_ids=["a"], retrieved=[["x"], ["a"]]),  # hit, rank 2
    record(relevant_ids=["b"], retrieved=[["b"]], category="schema"),  # hit, rank 1
    record(relevant_ids=["c"], retrieved=[["x"]], pool_covers=[["x"], ["c"]]),  # ranked low
    record(answerable=False, abstained=True, category="out_of_scope"),
    record(answerable=False, category="out_of_scope"),
    record(relevant_ids=["d"], error="timeout"),  # not scored
]


def test_aggregates_hand_computed() -> None:
    assert hit_rate(RECORDS, 5) == pytest.approx(0.6667)
    assert mrr(RECORDS, 5) == pytest.approx(0.5)  # (1/2 + 1 + 0) / 3
    assert mrr(RECORDS, 1) == pytest.approx(0.3333)  # (0 + 1 + 0) / 3
    assert abstention_accuracy(RECORDS) == 0.5
    assert false_abstention_rate(RECORDS) == 0.0
    assert false_abstention_rate([record(abstained=True), record(), record(), record()]) == 0.25
    assert abstention_accuracy(RECORDS[:3]) is None
    assert hit_rate(RECORDS[3:5], 5) is None


def test_keyword_recall_only_where_an_answer_was_generated() -> None:
    records = [
        record(required_keywords=["a", "b"], answered=True, llm_answer="A only"),
        record(required_keywords=["a"], answered=True, llm_answer="a"),
        record(required_keywords=["a"], answered=False, llm_answer=""),
        record(answerable=False, required_keywords=["a"], answered=True, llm_answer=""),
    ]
    assert mean_keyword_recall(records) == 0.75
    assert mean_keyword_recall(records[2:]) is None


def test_reranker_lift_and_latency() -> None:
    reranked = record(relevant_ids=["a"], retrieved=[["a"]])
    reranked["pool"] = [
        {"covers": ["x"], "rank_before_rerank": 1},
        {"covers": ["a"], "rank_before_rerank": 3},
        {"covers": ["y"], "rank_before_rerank": 2},
    ]
    worse = record(relevant_ids=["b"], retrieved=[["x"]])
    worse["pool"] = [{"covers": ["x"], "rank_before_rerank": 2}, {"covers": ["b"], "rank_before_rerank": 1}]
    lift = reranker_lift([reranked, worse, record(relevant_ids=["a"], retrieved=[["a"]], pool_covers=[["a"]])])
    assert lift == {
        "n": 2,
        "mean_rank_before": 2.0,
        "mean_rank_after": 2.0,
        "mean_gain": 0.0,
        "improved": 1,
        "worsened": 1,
        "unchanged": 0,
    }
    assert reranker_lift([record(relevant_ids=["a"], pool_covers=[["a"]])]) is None
    times = latency(
        [
            record(total_time_ms=10.0, timings_ms={"retrieve": 4.0, "generate": 6.0}),
            record(total_time_ms=30.0, timings_ms={"retrieve": 8.0}),
            record(total_time_ms=999.0, error="x"),
        ]
    )
    assert times["p50"] == 20.0 and times["p95"] == 29.0
    assert times["by_stage"] == {"generate": {"p50": 6.0, "p95": 6.0}, "retrieve": {"p50": 6.0, "p95": 7.8}}


def test_summarize_names_keys_after_k_and_breaks_down_by_category() -> None:
    summary = summarize(RECORDS, k=3)
    assert summary["n"] == 6
    assert summary["hit@3"] == pytest.approx(0.6667) and "hit@5" not in summary
    assert {"recall@3", "ndcg@3", "mrr", "latency_ms_p50", "latency_ms_p95", "latency_by_stage"} <= set(summary)
    assert summary["failures"] == {"error": 1, "false_answer": 1, "ranked_low": 1}
    assert summary["errors"] == 1
    assert summary["keyword_recall"] is None and summary["judge_mean"] is None
    by_category = summary["by_category"]
    assert set(by_category) == {"endpoint", "schema", "out_of_scope"}
    assert by_category["schema"]["hit@3"] == 1.0
    assert by_category["out_of_scope"]["abstention_accuracy"] == 0.5
    assert by_category["endpoint"]["n"] == 3


def test_summarize_scorable_leaves_out_the_records_it_cannot_score() -> None:
    records = load_run(TINY_RUN).records["full"]
    assert summarize_scorable(records) == summarize(records, 5)
    broken = [*records, {**records[0], "query_id": "bad", "retrieved_chunks": ["not a chunk"]}]
    warnings: list[str] = []
    assert summarize_scorable(broken, warnings=warnings, source="full.jsonl") == summarize(records, 5)
    assert warnings == ["full.jsonl: 1 record(s) could not be scored; the computed metrics leave them out"]
    mixed = [{**records[0], "failure": 1}, {**records[1], "failure": "ranked_low"}]  # fail only together
    assert summarize_scorable(mixed, warnings=warnings)["n"] == 0
    assert warnings[-1].startswith("records: 2 record(s)")


def test_metric_labels() -> None:
    assert metric_label("false_abstention_rate") == "false-abstention rate"
    assert metric_label("mrr") == "MRR"
    assert metric_label("some_new_metric") == "some new metric"


def test_by_api_says_where_an_index_of_several_apis_fails_and_how_often_another_api_came_first() -> None:
    def chunk(api: str, cover: str) -> dict[str, Any]:
        return {"api": api, "covers": [cover]}

    records = [
        record(relevant_ids=["bare.paths./documents.post"], retrieved_chunks=[
            chunk("prose", "prose.paths./files.post"), chunk("bare", "bare.paths./documents.post")]),
        record(relevant_ids=["bare.paths./models.get"], retrieved_chunks=[chunk("bare", "bare.paths./models.get")],
               history=[{"role": "user", "content": "and the models?"}]),
        record(relevant_ids=["prose.paths./files.get"], retrieved_chunks=[chunk("prose", "prose.paths./files.get")]),
        record(relevant_ids=["prose.paths./files.get"], retrieved_chunks=[], error="boom"),  # not scorable
        record(answerable=False, relevant_ids=[], retrieved_chunks=[chunk("bare", "bare.paths./models.get")]),
    ]
    found = by_api(records, 5)
    assert set(found) == {"bare", "prose"}
    assert found["bare"] == {"n": 2, "hit@1": 0.5, "hit@5": 1.0, "mrr": 0.75, "follow_up_hit@5": 1.0,
                             "another_api_first": 0.5}
    assert found["prose"]["n"] == 1 and found["prose"]["another_api_first"] == 0.0
    assert found["prose"]["follow_up_hit@5"] is None
    assert by_api(records[2:], 5) == {}  # one API: nothing to break down
    assert summarize(records, 5)["by_api"] == found
