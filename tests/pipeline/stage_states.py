"""Small typed states for the stage tests, and running stages on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag.config import PRESETS, Config
from rag.pipeline.state import PipelineState, Stage
from rag.query import Query
from rag.runner import Engine


@dataclass
class ConfiguredState(PipelineState):
    """A state that keeps the config it is asked under: `run` takes that config's stages from its pipeline."""

    settings: Config = field(default_factory=lambda: PRESETS["full"])


def state_for(question: Query | str, config: Config | str = "full", **fields: Any) -> ConfiguredState:
    """A fresh state for `question` (a typed query or a plain question) under a preset (by name) or a config."""
    config = PRESETS[config] if isinstance(config, str) else config
    query = Query.of(question)
    return ConfiguredState(config.name, query.asked, query, settings=config, **fields)


def run(state: ConfiguredState, engine: Engine, *stages: type[Stage] | Stage) -> ConfiguredState:
    """The state after each of `stages` in turn: a stage class stands for that stage as `engine` builds it for
    the state's config, an instance runs as it is."""
    pipeline = engine.pipeline(state.settings)
    built = (*pipeline.stages, pipeline.generate)
    for stage in stages:
        made = next(s for s in built if isinstance(s, stage)) if isinstance(stage, type) else stage
        state = made.run(state)  # type: ignore[assignment]
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
