"""The evaluation run loop on the fixture index: records, metrics, resume, retries and the judge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag.config import PRESETS, resolve_configs
from rag.errors import EvaluationError, RagError
from rag.evaluate.judge import Judge, JudgeScore, judge_warnings, parse_score
from rag.evaluate.questions import load_questions
from rag.evaluate.report import format_metrics_table
from rag.evaluate.runner import ablation_configs, run_evaluation
from rag.generate.base import Generation, GenerationRequest, StreamEvent
from rag.llm.base import LLMError
from rag.pipeline.features import features_of
from rag.runner import Engine
from tests.evaluate.conftest import lines_of
from tests.fakes import FakeChatModel

RECORD_FIELDS = {
    "query_id", "experiment", "query", "category", "retrieved_chunks", "llm_answer", "abstained", "confidence",
    "reasoning_steps", "citations", "ground_truth", "relevant_ids", "failure", "retrieval_time_ms", "llm_time_ms",
    "total_time_ms", "tokens_in", "tokens_out", "model", "dry_run", "error", "pool",
}
CHUNK_FIELDS = {"chunk_id", "covers", "api", "kind", "scores", "rank_before_rerank", "text"}


def test_retrieval_only_run(fixture_index, questions, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    configs = resolve_configs("C0,C2,full")
    seen: list[tuple[int, int]] = []
    result = run_evaluation(engine, questions, configs, tmp_path / "out", retrieval_only=True,
                            progress=lambda done, total: seen.append((done, total)), max_text_chars=50)
    assert seen[-1] == (8, 8) and len(seen) == 8
    assert result.written == 24 and result.resumed == 0
    for config in configs:
        records = lines_of(tmp_path / "out" / f"{config.name}.jsonl")
        assert [r["query_id"] for r in records] == [q.id for q in questions]
        for record in records:
            assert set(record) >= RECORD_FIELDS
            assert record["experiment"] == config.name
            assert record["llm_answer"] == "" and record["answered"] is False and record["error"] is None
            assert record["model"] == "none (retrieval only)"
            for chunk in record["retrieved_chunks"]:
                assert set(chunk) >= CHUNK_FIELDS
                assert len(chunk["text"]) <= 51
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))
    assert set(metrics["configs"]) == {"C0", "C2", "full"}
    full = metrics["configs"]["full"]
    for key in ("n", "hit@5", "mrr", "recall@5", "ndcg@5", "abstention_accuracy", "false_abstention_rate",
                "keyword_recall", "judge_mean", "judge_spread", "latency_ms_p50", "latency_ms_p95",
                "latency_by_stage", "tokens_in", "tokens_out", "reranker_lift", "failures", "by_category"):
        assert key in full, key
    assert full["n"] == 8 and full["keyword_recall"] is None
    assert 0.0 <= full["hit@5"] <= 1.0 and full["hit@5"] >= metrics["configs"]["C0"]["hit@5"]
    assert metrics["configs"]["C0"]["abstention_accuracy"] == 0.0  # C0 cannot abstain
    assert metrics["configs"]["C0"]["failures"]["false_answer"] == 2
    manifest = metrics["manifest"]
    assert manifest["questions"] == 8 and len(manifest["question_set_hash"]) == 16
    assert len(manifest["index_hash"]) == 16 and manifest["embedding_model"] == "hashing-384"
    assert manifest["configs"]["full"] == PRESETS["full"].to_dict()
    assert manifest["k"] == 5 and manifest["retrieval_only"] is True and manifest["dry_run"] is False
    assert "git_commit" in manifest and manifest["started_at"] <= manifest["finished_at"]
    assert "evaluation done" in log_file.read_text(encoding="utf-8")
    table = format_metrics_table(metrics)
    assert table.splitlines()[0].split()[:5] == ["config", "n", "hit@1", "hit@5", "MRR"]
    assert len(table.splitlines()) == 4


def test_the_log_stays_beside_the_records(  # type: ignore[no-untyped-def]
    fixture_index, questions, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without $RAG_EVAL_LOG the log goes into the run's folder: a run in a private folder leaves no trace."""
    monkeypatch.delenv("RAG_EVAL_LOG", raising=False)
    monkeypatch.chdir(tmp_path)
    run_evaluation(Engine(fixture_index, default_llm="extractive"), questions[:2], resolve_configs("C2"),
                   tmp_path / "private", retrieval_only=True)
    log_text = (tmp_path / "private" / "eval.log").read_text(encoding="utf-8")
    assert "evaluation start" in log_text and "evaluation done" in log_text
    assert not (tmp_path / "logs").exists()


def test_run_with_the_extractive_generator(fixture_index, questions, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    result = run_evaluation(engine, questions, resolve_configs("C0,full"), tmp_path / "gen", k=3, parallel=True)
    records = lines_of(tmp_path / "gen" / "full.jsonl")
    assert all(r["answered"] and r["model"].startswith("extractive") for r in records)
    assert all(r["llm_answer"] for r in records)
    assert all(len(r["retrieved_chunks"]) >= 3 for r in records)
    assert all(r["keyword_recall"] is not None for r in records if r["answerable"] and r["required_keywords"])
    metrics = result.metrics["configs"]
    assert "hit@3" in metrics["full"] and "hit@5" not in metrics["full"]
    assert metrics["full"]["keyword_recall"] is not None
    assert result.metrics["manifest"]["models"] == {"C0": "extractive", "full": "extractive"}
    labels = {r["failure"] for r in records}
    assert labels <= {None, "retrieval_miss", "ranked_low", "generation_miss", "wrong_abstention", "false_answer"}


def test_existing_results_need_resume_or_overwrite(fixture_index, questions, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    configs = resolve_configs("C1")
    out = tmp_path / "out"
    run_evaluation(engine, questions, configs, out, retrieval_only=True)
    with pytest.raises(EvaluationError, match=r"--resume .* --overwrite"):
        run_evaluation(engine, questions, configs, out, retrieval_only=True)
    with pytest.raises(EvaluationError, match="choose one"):
        run_evaluation(engine, questions, configs, out, retrieval_only=True, resume=True, overwrite=True)
    again = run_evaluation(engine, questions, configs, out, retrieval_only=True, resume=True)
    assert again.written == 0 and again.resumed == 8
    fresh = run_evaluation(engine, questions[:2], configs, out, retrieval_only=True, overwrite=True)
    assert fresh.written == 2 and len(lines_of(out / "C1.jsonl")) == 2
    with pytest.raises(EvaluationError, match="question_set_hash"):  # a different question set cannot resume
        run_evaluation(engine, questions, configs, out, retrieval_only=True, resume=True)
    with pytest.raises(EvaluationError, match="retrieval_only"):
        run_evaluation(engine, questions[:2], configs, out, resume=True)


def test_resume_after_a_torn_and_partial_file(fixture_index, questions, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    configs = resolve_configs("C0,C2")
    out = tmp_path / "out"
    run_evaluation(engine, questions, configs, out, retrieval_only=True)
    complete = lines_of(out / "C2.jsonl")
    c0 = (out / "C0.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    # C0: three whole records, then half of the fourth (a kill mid-write)
    (out / "C0.jsonl").write_text("".join(c0[:3]) + c0[3][: len(c0[3]) // 2], encoding="utf-8")
    (out / "metrics.json").unlink()
    result = run_evaluation(engine, questions, configs, out, retrieval_only=True, resume=True)
    assert result.resumed == 8 + 3 and result.written == 5
    for name in ("C0", "C2"):
        ids = [r["query_id"] for r in lines_of(out / f"{name}.jsonl")]
        assert ids == [q.id for q in questions]
    assert [r["query_id"] for r in lines_of(out / "C2.jsonl")] == [r["query_id"] for r in complete]
    assert (out / "metrics.json").is_file()
    assert "dropped 1 torn or invalid line" in log_file.read_text(encoding="utf-8")


class FlakyGenerator:
    """Fails with a rate limit `failures` times, then answers."""

    name = "flaky"

    def __init__(self, failures: int, kind: str = "rate_limit") -> None:
        self.failures = failures
        self.kind = kind
        self.calls = 0

    def generate(self, request: GenerationRequest) -> Generation:
        self.calls += 1
        if self.calls <= self.failures:
            if self.kind == "auth":
                raise LLMError("fake:model", "authentication failed (401); check the key", status=401, kind="auth")
            raise LLMError("fake:model", "rate limited (429) after 1 attempts", status=429, kind="rate_limit")
        return Generation(answer=f"answer to {request.question}", generator="flaky")

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        generation = self.generate(request)
        yield StreamEvent("done", generation=generation)


def test_transient_errors_are_retried_then_recorded(fixture_index, questions, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    flaky = FlakyGenerator(failures=2)
    engine = Engine(fixture_index, default_llm="flaky", generator_factory=lambda spec: flaky)
    run_evaluation(engine, questions[:1], resolve_configs("C1"), tmp_path / "a", retry_delay=0.001)
    record = lines_of(tmp_path / "a" / "C1.jsonl")[0]
    assert record["error"] is None and record["llm_answer"].startswith("answer to")
    assert flaky.calls == 3
    assert "retrying" in log_file.read_text(encoding="utf-8")

    broken = FlakyGenerator(failures=10**6)
    engine = Engine(fixture_index, default_llm="flaky", generator_factory=lambda spec: broken)
    result = run_evaluation(engine, questions[:2], resolve_configs("C1"), tmp_path / "b", retry_delay=0.001)
    records = lines_of(tmp_path / "b" / "C1.jsonl")
    assert len(records) == 2 and broken.calls == 6  # 3 attempts per question, and the run went on
    assert all("rate limited" in r["error"] and r["failure"] == "error" for r in records)
    assert result.metrics["configs"]["C1"]["errors"] == 2
    assert "failed after 3 attempt(s)" in log_file.read_text(encoding="utf-8")

    permanent = FlakyGenerator(failures=1, kind="auth")  # not transient: no retry
    engine = Engine(fixture_index, default_llm="flaky", generator_factory=lambda spec: permanent)
    run_evaluation(engine, questions[:1], resolve_configs("C1"), tmp_path / "c", retry_delay=0.001)
    assert permanent.calls == 1


def test_judge_scores_answers(fixture_index, questions, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    replies = iter([{"score": 4, "reason": "ok"}, {"score": 2, "reason": "meh"}] * 100)
    model = FakeChatModel(lambda messages: next(replies))
    judge = Judge("openai:judge", runs=2, chat_model=model)
    engine = Engine(fixture_index, default_llm="extractive")
    result = run_evaluation(engine, questions[:3], resolve_configs("C1"), tmp_path / "j", judge=judge)
    records = lines_of(tmp_path / "j" / "C1.jsonl")
    assert [r["judge_scores"] for r in records] == [[4, 2]] * 3
    assert all(r["judge_score"] == 3.0 and r["judge_spread"] == 1.0 for r in records)
    assert result.metrics["configs"]["C1"]["judge_mean"] == 3.0
    assert result.metrics["configs"]["C1"]["judge_spread"] == 1.0
    assert len(model.calls) == 6 and model.calls[0].json_mode and model.calls[0].temperature == 0.7
    assert "Reference answer:" in model.calls[0].messages[1].content
    same = Judge("extractive-judge", chat_model=model)
    assert judge_warnings("openai:gpt-4o-mini", ["openai:gpt-4o-mini", "extractive"])
    assert judge_warnings(same.spec, ["extractive"]) == []


def test_judge_parsing_and_failures() -> None:
    assert parse_score('{"score": 5, "reason": "right"}') == (5, "right")
    assert parse_score("Score: 3/5") == (3, "")
    with pytest.raises(ValueError):
        parse_score("no idea")
    failing = Judge("openai:x", chat_model=FakeChatModel([LLMError("openai:x", "down", kind="server")]))
    verdict = failing.score("q", "a", "t")
    assert verdict == JudgeScore(errors=("LLMError: openai:x: down",)) and verdict.mean is None
    with pytest.raises(Exception, match="not 'extractive'"):
        Judge("extractive")
    with pytest.raises(Exception, match="runs"):
        Judge("openai:x", runs=0)


def test_ablation_configs() -> None:
    full = PRESETS["full"]
    configs = ablation_configs(full)
    assert configs[0] == full
    on = [feature for feature, enabled in features_of(full).items() if enabled]
    assert [c.name for c in configs[1:]] == [f"full-minus-{feature}" for feature in on]
    assert all(not features_of(c)[feature] for c, feature in zip(configs[1:], on, strict=True))
    assert ablation_configs(PRESETS["C1"]) == [PRESETS["C1"]]


@pytest.mark.slow
def test_benchmark_test_split_on_the_real_index(stackone_index, tmp_path: Path, log_file: Path) -> None:  # type: ignore[no-untyped-def]
    """The StackOne benchmark's test split, retrieval only: `full` finds the expected operation in its top 5."""
    from tests.conftest import SHARED

    questions = load_questions(SHARED / "eval" / "stackone-benchmark" / "benchmark-dataset-test.json", stackone_index)
    engine = Engine(stackone_index, default_llm="extractive")
    result = run_evaluation(engine, questions, resolve_configs("C1,full"), tmp_path / "bench", retrieval_only=True)
    metrics = result.metrics["configs"]
    assert metrics["full"]["n"] == 30
    assert metrics["full"]["hit@5"] >= 0.9
    assert metrics["full"]["hit@5"] >= metrics["C1"]["hit@5"]


def test_arguments_are_checked_before_anything_is_written(fixture_index, questions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    configs = resolve_configs("C0")
    out = tmp_path / "never"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"questions": []}, "question set is empty"),
        ({"configs": []}, "no configs"),
        ({"k": 0}, "k=0 is not allowed"),
        ({"k": 51}, "k=51 is not allowed"),
        ({"history_mode": "invent"}, "history_mode='invent' is not allowed"),
        ({"max_text_chars": -1}, "max_text_chars=-1 is not allowed"),
        ({"configs": [*configs, *configs]}, "config names repeat: C0, C0"),
        ({"questions": [questions[0], questions[0]]}, "question ids repeat"),
    ]
    for arguments, error in cases:
        call: dict[str, Any] = {"questions": questions, "configs": configs, **arguments}
        with pytest.raises(RagError, match=error):
            run_evaluation(engine, call.pop("questions"), call.pop("configs"), out, retrieval_only=True, **call)
    assert not out.exists()
