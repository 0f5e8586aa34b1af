"""The pipeline state: the groups a multi-API question ranks apart, the result made from the trace, and each
stage's output in its place."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields, is_dataclass, replace
from typing import Any, get_origin, get_type_hints

import pytest

from rag.chunk import Chunk
from rag.config import PRESETS
from rag.facts import Statement
from rag.generate.base import Generation
from rag.index.store import Index
from rag.pipeline.state import Answer, Evidence, PipelineState, Ranking, Scope, TraceEvent
from rag.query import Query
from rag.retrieve.context import QueryContext
from rag.runner import Engine
from tests.fakes import make_chunk, retrieved


def ranking_of(*apis: str, balanced: tuple[str, ...] = ()) -> Ranking:
    chunks = [make_chunk(f"{api}.paths./x{i}.get", f"{api} {i}", api=api) for i, api in enumerate(apis)]
    return Ranking(tuple(retrieved(*chunks)), balanced=balanced)


def test_a_multi_api_question_ranks_each_api_apart_in_the_order_of_its_best_candidate() -> None:
    ranking = ranking_of("docs", "ats", "hris", "ats", "hris", balanced=("hris", "ats"))
    groups, others = ranking.rank_groups()
    assert [[c.chunk.api for c in group] for group in groups] == [["ats", "ats"], ["hris", "hris"]]
    assert [c.chunk.api for c in others] == ["docs"]
    regrouped = ranking.reordered([c for group in groups for c in group] + others)
    assert regrouped.rank_groups() == (groups, others)  # grouping the grouped order changes nothing
    single = ranking_of("ats", "hris")
    assert single.rank_groups() == ([list(single.candidates)], [])


def test_the_result_takes_notes_fallbacks_and_summed_timings_from_the_trace_in_order() -> None:
    trace = (
        TraceEvent("intent", ms=1.0, note="intent: none"),
        TraceEvent("rerank", ms=2.0),
        TraceEvent("rerank", note="cross-encoder unavailable", fallback="cross-encoder reranker unavailable"),
        TraceEvent("rerank", ms=3.5),
    )
    evidence = Evidence(facts=(Statement("Courses are read-only."),))
    state = PipelineState("full", "q", Scope(Query("q")), evidence=evidence, trace=trace)
    result = state.to_result()
    assert result.notes == ["intent: none", "cross-encoder unavailable"]
    assert result.fallbacks == ["cross-encoder reranker unavailable"] and result.fell_back
    assert result.timings_ms == {"intent": 1.0, "rerank": 5.5}
    assert result.facts == ["Courses are read-only."] and result.query == Query("q")
    assert result.standalone_query == "q" and result.config == "full"


def test_the_result_sums_the_tokens_of_the_reranker_the_gate_and_generation() -> None:
    chunks = retrieved(make_chunk("a.components.S", "s"), make_chunk("a.components.T", "t"))
    state = PipelineState(
        "full", "q", Scope(Query("q")), ranking=Ranking(apis=("a",), tokens=(1, 2)),
        evidence=Evidence(pool=tuple(chunks), top=tuple(chunks[:1]), added=tuple(chunks[1:]), confidence="partial",
                          tokens=(10, 20)),
        answer=Answer(Generation("Use S. [1]", tokens_in=100, tokens_out=200, generator="scripted")),
    )
    result = state.to_result()
    assert (result.tokens_in, result.tokens_out) == (111, 222) and result.generator == "scripted"
    assert result.chunks == chunks and result.pool == chunks and result.detected_apis == ["a"]
    assert result.confidence == "partial" and result.answer == "Use S. [1]" and not result.errors


def test_a_stage_output_goes_to_its_place_and_its_events_to_the_end_of_the_trace() -> None:
    state = PipelineState("full", "q", Scope(Query("q")), trace=(TraceEvent("embed", ms=1.0),))
    ranking = ranking_of("ats")
    after = state.after((ranking, (TraceEvent("retrieve", note="n"),)))
    assert after.ranking is ranking and after.scope is state.scope and after.evidence is state.evidence
    assert [e.stage for e in after.trace] == ["embed", "retrieve"] and state.ranking == Ranking()
    with pytest.raises(FrozenInstanceError):
        after.ranking = Ranking()  # type: ignore[misc]


# Who writes each field of the stages' outputs: one stage, or (the query, the candidates) the stages that
# refine it in turn, each returning a new frozen value.
WRITERS = {
    "scope.query": {"rewrite", "embed", "query_expansion", "initialisms"},
    "scope.ctx": {"embed"},
    "scope.intent": {"intent"},
    "scope.asked_apis": {"intent"},
    "ranking.candidates": {"retrieve", "rerank", "order", "lookup", "subject"},
    "ranking.apis": {"retrieve"},
    "ranking.k": {"retrieve"},
    "ranking.balanced": {"retrieve"},
    "ranking.tokens": {"rerank"},
    "ranking.ranker": {"rerank"},
    "evidence.pool": {"top_k"},
    "evidence.top": {"top_k"},
    "evidence.added": {"write_check"},
    "evidence.facts": {"write_check"},
    "evidence.confidence": {"gate"},
    "evidence.confidence_score": {"gate"},
    "evidence.tokens": {"gate"},
    "answer.generation": {"generate"},
    "answer.errors": {"generate"},
}
OUTPUTS = {"scope": Scope, "ranking": Ranking, "evidence": Evidence, "answer": Answer}


def test_every_output_is_frozen_holds_no_mutable_collection_and_names_its_writers() -> None:
    for place, kind in OUTPUTS.items():
        assert kind.__dataclass_params__.frozen, kind  # type: ignore[attr-defined]
        for name, hint in get_type_hints(kind).items():
            assert f"{place}.{name}" in WRITERS, f"{kind.__name__}.{name} has no writer in WRITERS"
            assert get_origin(hint) not in (list, dict, set), f"{kind.__name__}.{name} is a {hint}"
    assert set(WRITERS) == {f"{place}.{f.name}" for place, kind in OUTPUTS.items() for f in fields(kind)}


def snapshot(value: Any) -> Any:
    """Every value a state holds, nested (a chunk by its id, the query context by its identity)."""
    if isinstance(value, QueryContext):
        return ("context", id(value))
    if isinstance(value, Chunk):
        return value.chunk_id
    if is_dataclass(value) and not isinstance(value, type):
        return type(value).__name__, tuple((f.name, snapshot(getattr(value, f.name))) for f in fields(value))
    if isinstance(value, (list, tuple)):
        return tuple(snapshot(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((str(key), snapshot(item)) for key, item in value.items()))
    return value


def changed(before: Any, after: Any, place: str) -> set[str]:
    """The fields (`place.name`) whose values differ between two outputs of one kind."""
    return {f"{place}.{f.name}" for f in fields(after)
            if snapshot(getattr(before, f.name)) != snapshot(getattr(after, f.name))}


ONE_WRITER_QUESTIONS: list[tuple[str, tuple[dict[str, str], ...]]] = [
    ("How do I delete an employee?", ()),
    ("How do I see all staff?", ()),
    ("How do I list employees in people-3_1 and orders in shop-3_0?", ()),
    ("and how do I page through them?", ({"role": "user", "content": "How do I list employees?"},
                                         {"role": "assistant", "content": "Use GET /unified/hris/employees."})),
]


@pytest.mark.parametrize(("question", "turns"), ONE_WRITER_QUESTIONS)
def test_each_stage_changes_nothing_it_is_given_and_writes_only_its_own_fields(
    people_shop_index: Index, question: str, turns: tuple[dict[str, str], ...]
) -> None:
    config = replace(PRESETS["full"], query_expansion=True)
    pipeline = Engine(people_shop_index, default_llm="extractive").pipeline(config)
    state = PipelineState(config.name, question, Scope(Query(question)), turns, contexts={})
    written: dict[str, set[str]] = {}
    for stage in (*pipeline.stages, pipeline.generate):
        before = snapshot(replace(state, contexts=None))
        output, events = stage.run(state)
        assert snapshot(replace(state, contexts=None)) == before, f"{stage.name} changed the state it was given"
        assert all(event.stage == stage.name for event in events)
        place = next(p for p, kind in OUTPUTS.items() if isinstance(output, kind))
        for name in changed(getattr(state, place), output, place):
            assert stage.name in WRITERS[name], f"{stage.name} wrote {name}"
            written.setdefault(name, set()).add(stage.name)
        state = state.after((output, events))
    assert {"scope.ctx", "ranking.candidates", "evidence.top", "evidence.confidence_score", "answer.generation"} \
        <= set(written)
    assert state.to_result().answer
