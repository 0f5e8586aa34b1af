"""The stage list: every stage in the order it runs, the stages a `Config` runs, and the features an
ablation switches off (each declared by its stage, so there is no table to keep in step).

Adding a stage is one class (see `rag.pipeline.state.Stage`) and one line in `STAGES`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rag.errors import allowed
from rag.pipeline.answer_stages import Gate, Generate
from rag.pipeline.query_stages import Embed, GlossaryExpansion, IntentFilter, Rewrite
from rag.pipeline.ranking_stages import KeepSubject, LookupLift, Order, Rerank, Retrieve, TopK, WriteCheck
from rag.pipeline.state import Feature, Services, Stage

if TYPE_CHECKING:
    from rag.config import Config

# The evidence stages, in order; generation (`ANSWER_STAGE`) follows them.
STAGES: tuple[type[Stage], ...] = (
    Rewrite,
    Embed,
    GlossaryExpansion,
    IntentFilter,
    Retrieve,
    Rerank,
    Order,
    LookupLift,
    KeepSubject,
    TopK,
    WriteCheck,
    Gate,
)
ANSWER_STAGE: type[Generate] = Generate


def build_stages(config: Config, services: Services) -> list[Stage]:
    """The evidence stages `config` runs, made with the engine's services."""
    return [stage(config, services) for stage in STAGES if stage.applies(config)]


def all_features() -> tuple[Feature, ...]:
    """Every feature of the pipeline, in stage order."""
    return tuple(feature for stage in (*STAGES, ANSWER_STAGE) for feature in stage.features)


def features_of(config: Config) -> dict[str, bool]:
    """Which features `config` has switched on."""
    return {feature.name: feature.is_on(config) for feature in all_features()}


def without_feature(config: Config, name: str) -> Config:
    """A copy of `config` with one feature switched off, named `NAME-minus-FEATURE`."""
    by_name = {feature.name: feature for feature in all_features()}
    if name not in by_name:
        raise allowed("feature", name, tuple(by_name))
    return replace(config, name=f"{config.name}-minus-{name}", **dict(by_name[name].switched_off))
