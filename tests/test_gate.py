"""The confidence gate of an index (rag/gate.py): the signals it gathers, the thresholds it calibrates once
per index generation, a rewritten follow-up judged as asked too, and the LLM's answerability verdict."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from rag.abstain import GateDecision, GateThresholds, out_of_scope_prototypes
from rag.chunk import FieldFacts
from rag.gate import ConfidenceGate, api_statements, best_similarity, operation_gist, set_aside_prototypes
from rag.index.store import Index
from rag.llm.base import LLMError
from rag.query import Query
from rag.results import AnswerResult, RetrievedChunk
from rag.retrieve.context import QueryContext
from tests.conftest import FIXTURES
from tests.fakes import FakeChatModel, make_chunk, retrieved

# Every similarity is above these: only evidence about the index's content decides.
OPEN = GateThresholds(abstain_below=-1.0, partial_below=-1.0, out_of_scope_floor=2.0, no_operation_below=None)


def gated(gate: ConfidenceGate, question: Query | str, asked: str = "", chat_model: object = None) -> AnswerResult:
    """The gate's outcome for `question` (asked as `asked`, else as the question itself), as a result shows it."""
    query = Query.of(question)
    chunks = retrieved(make_chunk("a.components.S", "s"))
    ctx = QueryContext(gate.index, query.standalone)
    outcome = gate.apply("smart", query, ctx, asked or query.asked, set(), chunks, chat_model)
    result = AnswerResult(config="full", question=asked or query.asked, notes=list(outcome.notes))
    result.confidence, result.confidence_score = outcome.decision.tier, outcome.decision.score
    result.tokens_in, result.tokens_out, result.timings_ms["gate"] = outcome.tokens_in, outcome.tokens_out, outcome.ms
    return result


def test_best_similarity_is_higher_for_a_question_the_index_answers(fixture_index: Index) -> None:
    on_topic = best_similarity(QueryContext(fixture_index, "How do I list orders?"), "smart")
    off_topic = best_similarity(QueryContext(fixture_index, "Who won the football match last night?"), "smart")
    assert 0.0 <= off_topic < on_topic <= 1.0


def test_best_similarity_reads_the_unfiltered_pool_when_retrieval_made_it(fixture_index: Index) -> None:
    """Made by retrieval, the pool's first score is read; not made, the best score is found without ranking (the
    same number), and no pool is made for it."""
    ctx = QueryContext(fixture_index, "How do I list orders?")
    found = best_similarity(ctx, "smart")
    assert not any(key[0] == "vector" for key in ctx.computed)
    pooled = QueryContext(fixture_index, "How do I list orders?")
    pools = [pooled.vector_pool(strategy) for strategy in ("smart", "docs")]
    assert best_similarity(pooled, "smart") == found == max(pool[0][1] for pool in pools if pool)
    assert not any(key[0] == "best" for key in pooled.computed)


def test_the_gate_records_tier_score_reasons_and_time(fixture_index: Index) -> None:
    result = gated(ConfidenceGate(fixture_index, OPEN), "How do I list orders?")
    assert result.confidence == "answer" and 0.0 < result.confidence_score <= 1.0
    assert result.notes == [result.notes[0]] and result.notes[0].startswith("confidence gate: answer (best similarity")
    assert result.timings_ms["gate"] >= 0.0
    strict_gate = ConfidenceGate(fixture_index, replace(OPEN, abstain_below=2.0, partial_below=2.0))
    strict = gated(strict_gate, "How do I list orders?")
    assert strict.confidence == "abstain" and "nothing similar enough (below 2.00)" in strict.notes[0]


def test_the_summary_similarity_compares_with_operation_summaries(fixture_index: Index) -> None:
    gate = ConfidenceGate(fixture_index, OPEN)
    on_topic, off_topic = "How do I list orders?", "Who won the football match last night?"
    near = gate.summary_similarity(QueryContext(fixture_index, on_topic), "smart", on_topic)
    far = gate.summary_similarity(QueryContext(fixture_index, off_topic), "smart", off_topic)
    assert near is not None and far is not None and far < near
    summaries = [c.summary for c in fixture_index.snapshot().chunks.values() if c.kind == "operation" and c.summary]
    exact = gate.summary_similarity(QueryContext(fixture_index, summaries[0]), "smart", summaries[0])
    assert exact == pytest.approx(1.0, abs=1e-4)  # a summary asked as the question is its own best match
    note = gated(gate, on_topic).notes[0]
    assert f"best operation summary {near:.2f}" in note and "out-of-scope similarity" in note


def test_an_operation_summary_written_as_an_identifier_is_compared_in_words() -> None:
    terse = make_chunk("covid.paths./country.get", "GET /country", api="covid", kind="operation",
                       summary="getLatestCountryDataByName", title="GET /country")
    plain = make_chunk("covid.paths./totals.get", "GET /totals", api="covid", kind="operation",
                       summary="Latest totals", title="GET /totals")
    named = make_chunk("discord.paths./guilds/{guild_id}/members/{user_id}.delete", "DELETE …", kind="operation",
                       operation_id="delete_guild_member", method="delete", path="/guilds/{guild_id}/members/{user_id}")
    bare = make_chunk("covid.paths./help/topics.get", "GET /help/topics", api="covid", kind="operation",
                      method="get", path="/v1/help/{lang}/topics")
    assert operation_gist(terse) == "get latest country data by name"
    assert operation_gist(plain) == "Latest totals"
    assert operation_gist(named) == "delete guild member"  # no summary: its operationId in words
    assert operation_gist(bare) == "get v1 help topics"  # neither: its method and the path's fixed segments


def test_a_question_in_words_meets_an_identifier_summary_spelled_out(empty_index: Index, tmp_path: Path) -> None:
    """A spec whose summaries are operationIds (`getLatestCountryDataByName`): the question "latest figures for
    a country by its name" is compared with the words, which a model reads, not with the run-together name."""
    import json

    from rag.index.build import ingest_paths

    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Figures", "version": "1"},
        "paths": {"/country": {"get": {"summary": "getLatestCountryDataByName", "responses": {"200": {
            "description": "ok"}}}}},
    }
    path = tmp_path / "figures.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    ingest_paths(empty_index, [path])
    gate = ConfidenceGate(empty_index, OPEN)
    question = "get latest country data by name"
    similarity = gate.summary_similarity(QueryContext(empty_index, question), "smart", question)
    assert similarity == pytest.approx(1.0, abs=1e-4)


def test_no_summaries_without_operations(empty_index: Index) -> None:
    from rag.index.build import ingest_paths

    gate = ConfidenceGate(empty_index, OPEN)
    assert gate.summary_similarity(QueryContext(empty_index, "How do I list orders?"), "smart", "orders") is None
    # Docs alone: their section titles are no operation summaries, and the check was measured on those.
    ingest_paths(empty_index, [FIXTURES / "docs" / "getting-started.md"])
    assert gate.summary_similarity(QueryContext(empty_index, "Tokens"), "smart", "Tokens") is None


def test_docs_section_titles_count_beside_operation_summaries(fixture_index: Index) -> None:
    from rag.index.build import ingest_paths

    gate = ConfidenceGate(fixture_index, OPEN)
    before = gate.summary_similarity(QueryContext(fixture_index, "Scopes"), "smart", "Scopes")
    ingest_paths(fixture_index, [FIXTURES / "docs" / "getting-started.md"])
    after = gate.summary_similarity(QueryContext(fixture_index, "Scopes"), "smart", "Scopes")
    assert before is not None and before < 0.9 and after == pytest.approx(1.0, abs=1e-4)


def test_a_rewritten_follow_up_is_abstained_when_the_question_as_asked_is_out_of_scope(fixture_index: Index) -> None:
    gate = ConfidenceGate(fixture_index, OPEN)
    asked = "and what does the `blood_type` field hold?"
    # An LLM's standalone version may drop what the user asked; the question as asked names a field the index
    # lacks, and that is positive evidence.
    result = gated(gate, Query(asked, rewritten="What does the employee record hold?"), asked=asked)
    assert result.confidence == "abstain" and "judged on the question as asked" in result.notes[0]
    kept = gated(gate, Query("and the orders?", rewritten="How do I list orders?"), asked="and the orders?")
    assert kept.confidence == "answer"  # being elliptical is no evidence


def test_a_follow_up_spelling_a_field_of_what_was_found_is_not_judged_again_as_asked(fixture_index: Index) -> None:
    """Spoonacular: "what's the default time frame?" after "generate a meal plan" was abstained as asked, nearer an
    off-topic request than the index, though `timeFrame` is a parameter of the operation found; answered now. A
    follow-up spelling no field of what was found is judged as asked, as before."""
    gate = ConfidenceGate(fixture_index, OPEN)
    asked = "and what's the default `time_frame`?"
    query = Query(asked, rewritten="What is the default time frame when generating a meal plan?")
    plan = make_chunk("a.paths./plans.get", "GET /plans", kind="operation", method="get", path="/plans",
                      parameters=(FieldFacts("time_frame", "string", "query"),))

    def tier(chunks: list[RetrievedChunk]) -> str:
        ctx = QueryContext(gate.index, query.standalone)
        return gate.apply("smart", query, ctx, asked, set(), chunks, None).decision.tier

    assert tier(retrieved(make_chunk("a.components.S", "s"))) == "abstain"
    assert tier(retrieved(plan)) != "abstain"


@pytest.mark.parametrize(("verdict", "tier"), [("no", "abstain"), ("partly", "partial"), ("yes", "answer")])
def test_the_llms_verdict_abstains_makes_partial_or_keeps_the_tier(
    fixture_index: Index, verdict: str, tier: str
) -> None:
    model = FakeChatModel([{"answerable": verdict, "reason": "because"}])
    result = gated(ConfidenceGate(fixture_index, OPEN), "How do I list orders?", chat_model=model)
    assert result.confidence == tier and f"LLM: {verdict} (because)" in result.notes[0]
    assert result.tokens_in > 0 and result.tokens_out > 0 and len(model.calls) == 1


def test_a_failing_judge_leaves_the_decision_as_it_was() -> None:
    decision = GateDecision("partial", 0.5, 0.3, reasons=("weak",))
    model = FakeChatModel([LLMError("fake", "down")])
    outcome = ConfidenceGate.judged(decision, "q", retrieved(make_chunk("a.x", "x")), model)
    assert outcome.decision == decision and outcome.tokens_in == 0
    assert outcome.notes and outcome.notes[0].startswith("answerability judge failed")


def test_an_abstained_question_is_never_sent_to_the_judge(fixture_index: Index) -> None:
    model = FakeChatModel([])
    strict = ConfidenceGate(fixture_index, replace(OPEN, abstain_below=2.0))
    assert gated(strict, "How do I list orders?", chat_model=model).confidence == "abstain" and not model.calls


def test_thresholds_are_given_or_calibrated_once_per_index_generation(fixture_index: Index) -> None:
    assert ConfidenceGate(fixture_index, OPEN).thresholds_for(QueryContext(fixture_index, "q"), "smart") is OPEN
    gate = ConfidenceGate(fixture_index)
    ctx = QueryContext(fixture_index, "q")
    calibrated = gate.thresholds_for(ctx, "smart")
    assert gate.thresholds_for(ctx, "smart") is calibrated
    base = GateThresholds(abstain_below=0.08, partial_below=0.15, out_of_scope_floor=0.3, out_of_scope_margin=0.2)
    assert calibrated.abstain_below <= base.abstain_below and calibrated.partial_below <= base.partial_below


def test_out_of_scope_similarity_is_the_nearest_prototype(fixture_index: Index) -> None:
    gate = ConfidenceGate(fixture_index)
    prototype = out_of_scope_prototypes()[2]
    ctx = QueryContext(fixture_index, prototype)
    assert gate.out_of_scope_similarity(ctx, prototype) == pytest.approx(1.0, abs=1e-5)
    assert gate.out_of_scope_similarity(ctx, "How do I list orders?") < 0.9


def test_a_prototype_is_set_aside_when_an_index_text_is_near_it_and_nearer_than_any_other_prototype() -> None:
    prototypes = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.8, 0.6]], dtype=np.float32)
    texts = np.array([[0.8, 0.0, 0.6], [0.0, 0.6, 0.8]], dtype=np.float32)
    # Prototype 0 is 0.8 like text 0 and unlike every other prototype: set aside. Prototype 2 is 0.96 like text 1
    # and 0.8 like prototype 1: its nearest neighbour is the text, set aside. Prototype 1 is 0.6 like text 1 and
    # 0.8 like prototype 2: its nearest neighbour is another off-topic request, so it stays.
    assert set_aside_prototypes(prototypes, texts, 0.5) == [(0, 0, pytest.approx(0.8)), (2, 1, pytest.approx(0.96))]
    assert set_aside_prototypes(prototypes, texts, 0.9) == [(2, 1, pytest.approx(0.96))]  # the cut-off holds
    assert set_aside_prototypes(prototypes, np.zeros((0, 3)), 0.5) == []


def test_an_overview_says_what_its_api_does_in_its_summary_and_opening_sentence() -> None:
    overview = make_chunk("calc.overview", "API overview: Calc", kind="overview", summary="Maths as a service",
                          description='Evaluates <b>maths</b> expressions with [its engine](/g)! Limits apply.')
    assert api_statements(overview) == ["Maths as a service", "Evaluates maths expressions with its engine!"]
    assert api_statements(make_chunk("calc.paths./x.get", "GET /x", kind="operation", description="Does x.")) == []


def _ingest_spec(index: Index, tmp_path: Path, name: str, description: str) -> None:
    from rag.index.build import ingest_paths

    spec = {"openapi": "3.0.0", "info": {"title": name, "version": "1", "description": description},
            "paths": {"/things": {"get": {"operationId": "listThings", "responses": {"200": {"description": "ok"}}}}}}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    ingest_paths(index, [path])


def test_an_off_topic_prototype_an_indexed_api_says_it_does_is_set_aside_and_noted(
    empty_index: Index, tmp_path: Path
) -> None:
    """Derived per index generation from what the index's APIs say they do: the same request is off-topic for
    an index without such an API and not for one with it; the notes say which prototype was set aside and why."""
    prototype = out_of_scope_prototypes()[2]  # a request no API here does, until one says it does
    _ingest_spec(empty_index, tmp_path, "things", "Keeps a list of things.")
    # The cut-off is the floor at which a question counts as asking a prototype's request.
    gate = ConfidenceGate(empty_index, replace(OPEN, out_of_scope_floor=0.3))
    before = QueryContext(empty_index, prototype)
    assert gate.scope(before, "smart").set_aside == ()
    assert gate.out_of_scope_similarity(before, prototype) == pytest.approx(1.0, abs=1e-5)
    assert not any("set aside" in note for note in gated(gate, prototype).notes)

    _ingest_spec(empty_index, tmp_path, "forecasts", f"{prototype} Ask this API.")  # a new index generation
    after = QueryContext(empty_index, prototype)
    scope = gate.scope(after, "smart")
    assert [entry.prototype for entry in scope.set_aside] == [prototype] and prototype not in scope.prototypes
    assert scope.set_aside[0].api == "forecasts" and scope.set_aside[0].text == prototype
    assert len(scope.prototypes) == len(out_of_scope_prototypes()) - 1
    assert gate.out_of_scope_similarity(after, prototype) < 0.9
    note = gated(gate, prototype).notes[-1]
    assert note.startswith("off-topic prototypes set aside, an indexed API says it does them (1): ")
    assert f'"{prototype[:20]}' in note and "to forecasts:" in note
