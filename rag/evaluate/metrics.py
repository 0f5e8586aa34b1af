"""Evaluation metrics: pure functions over per-question records (the dicts the runner writes).

A record has at least `retrieved_chunks` (rank order; each with `covers` and `rank_before_rerank`),
`pool` (the ranked candidate pool before the top-k cut, each with `covers`), `relevant_ids`,
`required_keywords`, `answerable`, `abstained`, `llm_answer`, `answered` (an answer was generated),
`category`, `total_time_ms`, `timings_ms`, `tokens_in`, `tokens_out` and `error`.

A retrieved chunk is relevant when its `covers` intersect the question's `relevant_ids`. Retrieval
metrics (hit@k, MRR@k, recall@k, nDCG@k) are averaged over answerable questions that name relevant ids
and ran without error. Metrics with no question to average over are None.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from statistics import mean, pstdev
from typing import Any

from rag.evaluate.reliability import reliability

Record = Mapping[str, Any]
BY_CATEGORY = "by_category"  # the key of `summarize`'s per-category figures
BY_API = "by_api"  # the key of `summarize`'s per-API figures (an index of several APIs)
ERROR_LABEL = "error"  # the failure label of a record whose configuration failed to run
# Why a record failed (`failure_label`), in the order a question meets the stages: how the labels are listed
# and stacked wherever they are shown.
FAILURE_MEANINGS: dict[str, str] = {
    ERROR_LABEL: "the configuration failed to run",
    "retrieval_miss": "no relevant chunk in the candidate pool",
    "ranked_low": "a relevant chunk was in the pool but not among the chunks passed on",
    "generation_miss": "relevant chunks were passed on but the answer misses required facts",
    "wrong_abstention": "abstained on a question the docs answer",
    "false_answer": "answered a question the docs do not answer",
}
FAILURE_LABELS: tuple[str, ...] = tuple(FAILURE_MEANINGS)
# How each metric key is named on screen and in the verdict.
METRIC_LABELS: dict[str, str] = {
    "hit@1": "hit@1",
    "hit@5": "hit@5",
    "mrr": "MRR",
    "recall@5": "recall@5",
    "ndcg@5": "nDCG@5",
    "abstention_accuracy": "abstention accuracy",
    "false_abstention_rate": "false-abstention rate",
    "keyword_recall": "keyword recall",
    "lead_recall": "lead recall (first two lines)",
    "judge_mean": "judge score",
    "latency_ms_p50": "latency p50 (ms)",
    "latency_ms_p95": "latency p95 (ms)",
    "tokens_in": "tokens in (total)",
    "tokens_out": "tokens out (total)",
    "reranker_lift": "reranker lift (ranks gained)",
    "tokens_in_mean": "tokens in per question",
    "tokens_out_mean": "tokens out per question",
    "request_examples": "request examples (answers leading with an operation)",
    "another_api_first": "another API's chunk first",
}


def metric_label(metric: str) -> str:
    """How a metric key is shown (`false-abstention rate` for `false_abstention_rate`)."""
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


# ---------------------------------------------------------------------- one ranked list
def is_relevant(covers: Iterable[str], relevant_ids: Iterable[str]) -> bool:
    """Whether a chunk covering `covers` is relevant to a question with `relevant_ids`."""
    return not set(covers).isdisjoint(relevant_ids)


def _covers(chunks: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    return [list(chunk.get("covers") or ()) for chunk in chunks]


def first_relevant_rank(ranked_covers: Sequence[Iterable[str]], relevant_ids: Iterable[str]) -> int | None:
    """1-based position of the first relevant item in a ranked list of `covers`, or None."""
    relevant = set(relevant_ids)
    for position, covers in enumerate(ranked_covers, start=1):
        if is_relevant(covers, relevant):
            return position
    return None


def hit_at(ranked_covers: Sequence[Iterable[str]], relevant_ids: Iterable[str], k: int) -> float:
    """1.0 when a relevant item is among the first k, else 0.0."""
    rank = first_relevant_rank(ranked_covers[:k], relevant_ids)
    return 1.0 if rank is not None else 0.0


def reciprocal_rank(ranked_covers: Sequence[Iterable[str]], relevant_ids: Iterable[str], k: int) -> float:
    """1 / rank of the first relevant item among the first k, else 0.0."""
    rank = first_relevant_rank(ranked_covers[:k], relevant_ids)
    return 1.0 / rank if rank is not None else 0.0


def recall_at(ranked_covers: Sequence[Iterable[str]], relevant_ids: Iterable[str], k: int) -> float:
    """Share of the relevant ids covered by the first k items."""
    relevant = set(relevant_ids)
    if not relevant:
        return 0.0
    found = {covered for covers in ranked_covers[:k] for covered in covers} & relevant
    return len(found) / len(relevant)


def ndcg_at(ranked_covers: Sequence[Iterable[str]], relevant_ids: Iterable[str], k: int) -> float:
    """nDCG@k with binary gains: an item gains the number of relevant ids it covers that no earlier
    item covered (so parts of one schema are not counted twice); the ideal ranking puts one new
    relevant id at each of the first min(|relevant|, k) positions. Capped at 1.0."""
    relevant = set(relevant_ids)
    if not relevant:
        return 0.0
    credited: set[str] = set()
    dcg = 0.0
    for position, covers in enumerate(ranked_covers[:k], start=1):
        new = (set(covers) & relevant) - credited
        if new:
            credited |= new
            dcg += len(new) / math.log2(position + 1)
    ideal = sum(1.0 / math.log2(position + 1) for position in range(1, min(len(relevant), k) + 1))
    return min(1.0, dcg / ideal) if ideal else 0.0


def keyword_recall(answer: str, keywords: Iterable[str]) -> float | None:
    """Case-insensitive share of `keywords` found in `answer` (None when there are no keywords)."""
    wanted = [keyword for keyword in keywords if keyword.strip()]
    if not wanted:
        return None
    lowered = (answer or "").lower()
    return sum(1 for keyword in wanted if keyword.lower() in lowered) / len(wanted)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0–100) with linear interpolation, or None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return float(ordered[0])
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = math.ceil(position)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (position - low))


# ---------------------------------------------------------------------- one record
def _retrieved(record: Record) -> list[list[str]]:
    return _covers(record.get("retrieved_chunks") or [])


def scorable(record: Record) -> bool:
    """Whether the record counts for retrieval metrics (answerable, names relevant ids, no error)."""
    return bool(record.get("answerable", True)) and bool(record.get("relevant_ids")) and not record.get("error")


def failure_label(record: Record) -> str | None:
    """Why a record failed, or None when it did not.

    `error` (the pipeline failed), `wrong_abstention` (answerable but abstained), `false_answer`
    (unanswerable but answered), `retrieval_miss` (no relevant chunk in the candidate pool nor in the
    chunks passed on), `ranked_low` (relevant in the pool but not among the chunks passed on),
    `generation_miss` (relevant chunk passed on, an answer generated, required keywords missing).
    """
    if record.get("error"):
        return ERROR_LABEL
    answerable = bool(record.get("answerable", True))
    abstained = bool(record.get("abstained"))
    if not answerable:
        return None if abstained else "false_answer"
    if abstained:
        return "wrong_abstention"
    relevant = record.get("relevant_ids") or []
    if relevant:
        retrieved = _retrieved(record)
        if first_relevant_rank(retrieved, relevant) is None:
            pool = _covers(record.get("pool") or [])
            return "ranked_low" if first_relevant_rank(pool, relevant) is not None else "retrieval_miss"
    if record.get("answered"):
        recall = keyword_recall(str(record.get("llm_answer") or ""), record.get("required_keywords") or [])
        if recall is not None and recall < 1.0:
            return "generation_miss"
    return None


def chunk_covers(chunk: Any) -> list[str]:
    """A saved chunk's `covers` as strings (none when the chunk or its `covers` is not what a record holds)."""
    covers = chunk.get("covers") if isinstance(chunk, Mapping) else None
    return [str(c) for c in covers] if isinstance(covers, list) else []


def relevant_rank(record: Record) -> int | None:
    """Rank (1-based) of the first retrieved chunk that covers one of the record's `relevant_ids`; None when none
    does. Read tolerantly (a hand-edited or older record's odd chunk counts as a chunk that covers nothing)."""
    chunks = record.get("retrieved_chunks") or []
    return first_relevant_rank([chunk_covers(chunk) for chunk in chunks], record.get("relevant_ids") or [])


def rerank_ranks(record: Record) -> tuple[int, int] | None:
    """(rank before, rank after) reranking of the best relevant chunk in the pool; None when not reranked."""
    relevant = set(record.get("relevant_ids") or [])
    pool = record.get("pool") or []
    if not relevant or not pool or all(item.get("rank_before_rerank") is None for item in pool):
        return None
    befores = [
        int(item["rank_before_rerank"])
        for item in pool
        if item.get("rank_before_rerank") is not None and is_relevant(item.get("covers") or (), relevant)
    ]
    after = first_relevant_rank(_covers(pool), relevant)
    if not befores or after is None:
        return None
    return min(befores), after


# ---------------------------------------------------------------------- a set of records
def _mean(values: Sequence[float]) -> float | None:
    return round(mean(values), 4) if values else None


def hit_rate(records: Sequence[Record], k: int) -> float | None:
    """Mean hit@k over scorable records."""
    return _mean([hit_at(_retrieved(r), r["relevant_ids"], k) for r in records if scorable(r)])


def mrr(records: Sequence[Record], k: int) -> float | None:
    """Mean reciprocal rank (within the first k) over scorable records."""
    return _mean([reciprocal_rank(_retrieved(r), r["relevant_ids"], k) for r in records if scorable(r)])


def mean_recall(records: Sequence[Record], k: int) -> float | None:
    """Mean recall@k over scorable records."""
    return _mean([recall_at(_retrieved(r), r["relevant_ids"], k) for r in records if scorable(r)])


def mean_ndcg(records: Sequence[Record], k: int) -> float | None:
    """Mean nDCG@k over scorable records."""
    return _mean([ndcg_at(_retrieved(r), r["relevant_ids"], k) for r in records if scorable(r)])


def abstention_accuracy(records: Sequence[Record]) -> float | None:
    """Share of unanswerable questions (run without error) that were abstained on."""
    chosen = [r for r in records if not r.get("answerable", True) and not r.get("error")]
    return _mean([1.0 if r.get("abstained") else 0.0 for r in chosen])


def false_abstention_rate(records: Sequence[Record]) -> float | None:
    """Share of answerable questions (run without error) that were abstained on."""
    chosen = [r for r in records if r.get("answerable", True) and not r.get("error")]
    return _mean([1.0 if r.get("abstained") else 0.0 for r in chosen])


def mean_keyword_recall(records: Sequence[Record]) -> float | None:
    """Mean keyword recall over answerable records with keywords where an answer was generated."""
    return _mean_recall(records, lambda answer: answer)


def _mean_recall(records: Sequence[Record], read: Callable[[str], str]) -> float | None:
    """Mean keyword recall, over answerable records with keywords where an answer was generated, of what `read`
    takes from each answer."""
    values = [
        keyword_recall(read(str(r.get("llm_answer") or "")), r.get("required_keywords") or [])
        for r in records
        if r.get("answered") and r.get("answerable", True) and not r.get("error")
    ]
    return _mean([v for v in values if v is not None])


def lead_lines(answer: str, count: int = 2) -> str:
    """The answer's first `count` non-empty lines: what a reader takes in before deciding to read on."""
    return "\n".join([line for line in (answer or "").splitlines() if line.strip()][:count])


def mean_lead_recall(records: Sequence[Record]) -> float | None:
    """Mean keyword recall over each answer's first two non-empty lines (is the asked fact stated up front?),
    over the records `mean_keyword_recall` counts."""
    return _mean_recall(records, lead_lines)


def follow_up_hit_rate(records: Sequence[Record], k: int) -> float | None:
    """hit@k over the answerable questions asked with an earlier exchange (None when the set has none)."""
    follow_ups = [r for r in records if r.get("history")]
    return hit_rate(follow_ups, k) if follow_ups else None


def names_an_operation(record: Record, lead: bool = False) -> bool:
    """Whether a generated answer names one of the operations retrieved for it (`GET /users`); with `lead`, in its
    first two lines, as the operation to use (an answer stating an established fact, such as "there is no endpoint
    to delete candidates", names the operations that do exist instead)."""
    answer = str(record.get("llm_answer") or "")
    if lead:
        if record.get("facts"):
            return False
        answer = lead_lines(answer)
    return any(chunk.get("kind") == "operation" and chunk.get("title") and str(chunk["title"]) in answer
               for chunk in record.get("retrieved_chunks") or [])


def request_example_rate(records: Sequence[Record], lead: bool = True) -> float | None:
    """Share of the answers (generated, not abstained, without error) that name a retrieved operation (with `lead`,
    as the operation to use: `names_an_operation`) and carry a request example; None when none names one, or the
    records predate request examples."""
    if not any("request_example" in record for record in records):
        return None
    naming = [r for r in records if r.get("answered") and not r.get("abstained") and not r.get("error")
              and names_an_operation(r, lead)]
    return _mean([1.0 if r.get("request_example") else 0.0 for r in naming])


def latency(records: Sequence[Record]) -> dict[str, Any]:
    """p50/p95 of the total time and of each stage (ms)."""
    totals = [float(r.get("total_time_ms") or 0.0) for r in records if not r.get("error")]
    stages: dict[str, list[float]] = {}
    for record in records:
        if record.get("error"):
            continue
        for stage, value in (record.get("timings_ms") or {}).items():
            stages.setdefault(stage, []).append(float(value))
    by_stage = {
        stage: {"p50": _round(percentile(values, 50)), "p95": _round(percentile(values, 95))}
        for stage, values in sorted(stages.items())
    }
    return {"p50": _round(percentile(totals, 50)), "p95": _round(percentile(totals, 95)), "by_stage": by_stage}


def _round(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def tokens(records: Sequence[Record]) -> dict[str, Any]:
    """Total and mean tokens in and out."""
    ins = [int(r.get("tokens_in") or 0) for r in records]
    outs = [int(r.get("tokens_out") or 0) for r in records]
    return {
        "tokens_in": sum(ins),
        "tokens_out": sum(outs),
        "tokens_in_mean": _round(mean(ins), 1) if ins else None,
        "tokens_out_mean": _round(mean(outs), 1) if outs else None,
    }


def reranker_lift(records: Sequence[Record]) -> dict[str, Any] | None:
    """How reranking moved the first relevant chunk in the pool (None when no record was reranked).

    `mean_gain` is the mean of (rank before − rank after): positive means reranking helped.
    """
    pairs = [pair for r in records if scorable(r) and (pair := rerank_ranks(r)) is not None]
    if not pairs:
        return None
    return {
        "n": len(pairs),
        "mean_rank_before": round(mean(b for b, _ in pairs), 3),
        "mean_rank_after": round(mean(a for _, a in pairs), 3),
        "mean_gain": round(mean(b - a for b, a in pairs), 3),
        "improved": sum(1 for b, a in pairs if a < b),
        "worsened": sum(1 for b, a in pairs if a > b),
        "unchanged": sum(1 for b, a in pairs if a == b),
    }


def failure_counts(records: Sequence[Record]) -> dict[str, int]:
    """How many records got each failure label (labels stored in `failure`, else computed)."""
    counts: dict[str, int] = {}
    for record in records:
        label = record["failure"] if "failure" in record else failure_label(record)
        if label:
            counts[label] = counts.get(label, 0) + 1
    return dict(sorted(counts.items()))


def judge_summary(records: Sequence[Record]) -> tuple[float | None, float | None]:
    """(mean judge score, mean per-question spread) over records the judge scored."""
    scores = [float(r["judge_score"]) for r in records if r.get("judge_score") is not None]
    spreads = [float(r.get("judge_spread") or 0.0) for r in records if r.get("judge_score") is not None]
    return _mean(scores), _mean(spreads)


def core_metrics(records: Sequence[Record], k: int) -> dict[str, Any]:
    """The headline numbers of a set of records (also used per category)."""
    return {
        "n": len(records),
        "hit@1": hit_rate(records, 1),
        f"hit@{k}": hit_rate(records, k),
        "mrr": mrr(records, k),
        f"recall@{k}": mean_recall(records, k),
        f"ndcg@{k}": mean_ndcg(records, k),
        "abstention_accuracy": abstention_accuracy(records),
        "false_abstention_rate": false_abstention_rate(records),
        "keyword_recall": mean_keyword_recall(records),
        "lead_recall": mean_lead_recall(records),
        f"follow_up_hit@{k}": follow_up_hit_rate(records, k),
        "errors": sum(1 for r in records if r.get("error")),
        "failures": failure_counts(records),
    }


def asked_api(record: Record) -> str:
    """The API a scorable record's question is about: that of its first relevant structural id (`hris` of
    `hris.paths./unified/hris/employees.get`)."""
    return str((record.get("relevant_ids") or [""])[0]).split(".", 1)[0]


def another_api_first(records: Sequence[Record], api: str) -> float | None:
    """The share of scorable records about `api` whose first retrieved chunk is another API's (None when none
    retrieved anything): an index of several APIs where one drowns another shows it here."""
    firsts = [chunks[0] for r in records if scorable(r) and (chunks := r.get("retrieved_chunks"))
              and isinstance(chunks[0], Mapping)]
    return _mean([0.0 if str(chunk.get("api", api)) == api else 1.0 for chunk in firsts])


def by_api(records: Sequence[Record], k: int) -> dict[str, dict[str, Any]]:
    """Per API the scorable records are about: n, hit@1, hit@k, MRR, follow-up hit@k and how often another API's
    chunk came first; empty when they are all about one API."""
    groups: dict[str, list[Record]] = {}
    for record in records:
        if scorable(record):
            groups.setdefault(asked_api(record), []).append(record)
    if len(groups) < 2:
        return {}
    return {
        api: {"n": len(items), "hit@1": hit_rate(items, 1), f"hit@{k}": hit_rate(items, k), "mrr": mrr(items, k),
              f"follow_up_hit@{k}": follow_up_hit_rate(items, k), "another_api_first": another_api_first(items, api)}
        for api, items in sorted(groups.items())
    }


def summarize(records: Sequence[Record], k: int = 5) -> dict[str, Any]:
    """Every metric of one configuration's records, with a per-category breakdown and, for questions about
    several APIs, a per-API one."""
    summary = core_metrics(records, k)
    judge_mean, judge_spread = judge_summary(records)
    times = latency(records)
    counted = tokens(records)
    summary.update(
        judge_mean=judge_mean,
        judge_spread=judge_spread,
        latency_ms_p50=times["p50"],
        latency_ms_p95=times["p95"],
        latency_by_stage=times["by_stage"],
        tokens_in=counted["tokens_in"],
        tokens_out=counted["tokens_out"],
        tokens_in_mean=counted["tokens_in_mean"],
        tokens_out_mean=counted["tokens_out_mean"],
        reranker_lift=reranker_lift(records),
        calibration=reliability(records),
        request_examples=request_example_rate(records),
    )
    categories: dict[str, list[Record]] = {}
    for record in records:
        categories.setdefault(str(record.get("category") or "general"), []).append(record)
    summary[BY_CATEGORY] = {name: core_metrics(items, k) for name, items in sorted(categories.items())}
    summary[BY_API] = by_api(records, k)
    return summary


def _summarizes(records: Sequence[Record], k: int) -> bool:
    """Whether `summarize` can score these records."""
    try:
        summarize(records, k)
    except Exception:
        return False
    return True


def summarize_scorable(
    records: Sequence[Record], k: int = 5, warnings: list[str] | None = None, source: str = "records"
) -> dict[str, Any]:
    """`summarize` of the records it can score: records of an older or hand-edited file with a field of the wrong
    type are left out, and `warnings` says how many (`source` names where they came from)."""
    if _summarizes(records, k):
        return summarize(records, k)
    usable = [record for record in records if _summarizes([record], k)]
    if not _summarizes(usable, k):  # records that fail only together (failure labels of mixed types)
        usable = []
    if warnings is not None:
        warnings.append(
            f"{source}: {len(records) - len(usable)} record(s) could not be scored; the computed metrics leave them out"
        )
    return summarize(usable, k)


def spread(values: Sequence[float]) -> float:
    """Population standard deviation (0 for fewer than two values)."""
    return round(pstdev(values), 4) if len(values) > 1 else 0.0
