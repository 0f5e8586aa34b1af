"""Small typed states for the stage tests, and running stages on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rag.config import PRESETS, Config
from rag.pipeline.state import PipelineState, Services, Stage
from rag.query import Query


def state_for(question: Query | str, config: Config | str = "full", **fields: Any) -> PipelineState:
    """A fresh state for `question` (a typed query or a plain question) under a preset (by name) or a config."""
    config = PRESETS[config] if isinstance(config, str) else config
    query = Query.of(question)
    return PipelineState(config, query.asked, query, **fields)


def run(state: PipelineState, services: Services, *stages: type[Stage]) -> PipelineState:
    """The state after each of `stages` (made for the state's config) in turn."""
    for stage in stages:
        state = stage(state.config, services).run(state)
    return state


def notes_of(state: PipelineState, stage: str) -> list[str]:
    """The notes a stage recorded."""
    return [event.note for event in state.trace if event.stage == stage and event.note]


def timed(state: PipelineState) -> Mapping[str, float]:
    """The stages that recorded a time, with it."""
    return {event.stage: event.ms for event in state.trace if event.ms is not None}


def history(*turns: str) -> Sequence[Mapping[str, str]]:
    """A conversation: user and assistant turns alternating."""
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(turns)]
