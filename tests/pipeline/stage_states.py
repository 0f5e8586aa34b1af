"""Small typed states for the stage tests, and running stages on them."""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from rag.config import PRESETS, Config
from rag.pipeline.state import Evidence, PipelineState, Ranking, Scope, Stage
from rag.query import Query
from rag.runner import Engine

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class ConfiguredState(PipelineState):
    """A state that keeps the config it is asked under: `run` takes that config's stages from its pipeline."""

    settings: Config = field(default_factory=lambda: PRESETS["full"])


def _names(kind: type) -> set[str]:
    return {f.name for f in fields(kind)}


def state_for(question: Query | str, config: Config | str = "full", **given: Any) -> ConfiguredState:
    """A fresh state for `question` (a typed query or a plain question) under a preset (by name) or a config.
    `given` names fields of the state or of its scope, ranking or evidence (`candidates=`, `k=`, `top=`,
    `intent=`...); a list is taken as the tuple those hold."""
    config = PRESETS[config] if isinstance(config, str) else config
    query = Query.of(question)
    places: dict[str, dict[str, Any]] = {"state": {}, "scope": {}, "ranking": {}, "evidence": {}}
    kinds = {"scope": _names(Scope), "ranking": _names(Ranking), "evidence": _names(Evidence)}
    for name, value in given.items():
        place = "state" if name in _names(ConfiguredState) else next(p for p, n in kinds.items() if name in n)
        places[place][name] = tuple(value) if isinstance(value, list) else value
    return ConfiguredState(
        config.name, query.asked, Scope(query, **places["scope"]), ranking=Ranking(**places["ranking"]),
        evidence=Evidence(**places["evidence"]), settings=config, **places["state"],
    )


def run(state: ConfiguredState, engine: Engine, *stages: type[Stage] | Stage) -> ConfiguredState:
    """The state after each of `stages` in turn: a stage class stands for that stage as `engine` builds it for
    the state's config, an instance runs as it is."""
    pipeline = engine.pipeline(state.settings)
    built = (*pipeline.stages, pipeline.generate)
    for stage in stages:
        made = next(s for s in built if isinstance(s, stage)) if isinstance(stage, type) else stage
        state = state.after(made.run(state))  # type: ignore[assignment]
    return state


def drained(stream: Generator[T, None, R]) -> tuple[list[T], R]:
    """What a generator yields, and what it returns."""
    items: list[T] = []
    while True:
        try:
            items.append(next(stream))
        except StopIteration as stop:
            return items, stop.value


def notes_of(state: PipelineState, stage: str) -> list[str]:
    """The notes a stage recorded."""
    return [event.note for event in state.trace if event.stage == stage and event.note]


def timed(state: PipelineState) -> Mapping[str, float]:
    """The stages that recorded a time, with it."""
    return {event.stage: event.ms for event in state.trace if event.ms is not None}


def history(*turns: str) -> Sequence[Mapping[str, str]]:
    """A conversation: user and assistant turns alternating."""
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(turns)]
