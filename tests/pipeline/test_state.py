"""The pipeline state: the groups a multi-API question ranks apart, and the result made from the trace."""

from __future__ import annotations

from rag.facts import Statement
from rag.pipeline.state import PipelineState, TraceEvent
from rag.query import Query
from tests.fakes import make_chunk, retrieved


def state_with(*apis: str, balanced: tuple[str, ...] = ()) -> PipelineState:
    chunks = [make_chunk(f"{api}.paths./x{i}.get", f"{api} {i}", api=api) for i, api in enumerate(apis)]
    return PipelineState("full", "q", Query("q"), candidates=retrieved(*chunks), balanced=balanced)


def test_a_multi_api_question_ranks_each_api_apart_in_the_order_of_its_best_candidate() -> None:
    state = state_with("docs", "ats", "hris", "ats", "hris", balanced=("hris", "ats"))
    groups, others = state.rank_groups()
    assert [[c.chunk.api for c in group] for group in groups] == [["ats", "ats"], ["hris", "hris"]]
    assert [c.chunk.api for c in others] == ["docs"]
    state.candidates = [c for group in groups for c in group] + others
    assert state.rank_groups() == (groups, others)  # grouping the grouped order changes nothing
    single = state_with("ats", "hris")
    assert single.rank_groups() == ([single.candidates], [])


def test_the_result_takes_notes_fallbacks_and_summed_timings_from_the_trace_in_order() -> None:
    state = state_with("ats")
    state.trace += [
        TraceEvent("intent", ms=1.0, note="intent: none"),
        TraceEvent("rerank", ms=2.0),
        TraceEvent("rerank", note="cross-encoder unavailable", fallback="cross-encoder reranker unavailable"),
        TraceEvent("rerank", ms=3.5),
    ]
    state.facts.append(Statement("Courses are read-only."))
    result = state.to_result()
    assert result.notes == ["intent: none", "cross-encoder unavailable"]
    assert result.fallbacks == ["cross-encoder reranker unavailable"] and result.fell_back
    assert result.timings_ms == {"intent": 1.0, "rerank": 5.5}
    assert result.facts == ["Courses are read-only."] and result.query == Query("q")
    assert result.standalone_query == "q" and result.config == "full"
