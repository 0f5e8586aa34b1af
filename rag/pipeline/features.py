"""The features of the pipeline an ablation switches off, in stage order: whether a config has each, and the
settings that switch it off (`build_pipeline` leaves out the stage a switched-off feature ran)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from rag.config import Config, ablation_name
from rag.errors import allowed


@dataclass(frozen=True)
class Feature:
    """A part of the pipeline an ablation switches off: whether a config has it, and the settings that switch
    it off."""

    name: str
    is_on: Callable[[Config], bool]
    switched_off: Mapping[str, Any]


FEATURES: tuple[Feature, ...] = (
    Feature("query_expansion", lambda config: config.query_expansion, {"query_expansion": False}),
    Feature("initialisms", lambda config: config.initialisms, {"initialisms": False}),
    Feature("intent_filter", lambda config: config.intent_filter, {"intent_filter": False}),
    Feature("hybrid", lambda config: config.retriever == "hybrid", {"retriever": "vector"}),
    Feature("query_adapter", lambda config: config.query_adapter, {"query_adapter": False}),
    Feature("dynamic_k", lambda config: config.dynamic_k, {"dynamic_k": False}),
    Feature("operation_search", lambda config: config.operation_search > 0, {"operation_search": 0}),
    Feature("rerank", lambda config: config.reranker != "none", {"reranker": "none"}),
    Feature("schemas_last", lambda config: config.schemas_last, {"schemas_last": False}),
    Feature("lookup", lambda config: config.lookup, {"lookup": False}),
    Feature("named_operations", lambda config: config.named_operations, {"named_operations": False}),
    Feature("write_check", lambda config: config.write_check, {"write_check": False}),
    Feature("abstention", lambda config: config.abstention, {"abstention": False}),
    Feature("reasoning", lambda config: config.reasoning, {"reasoning": False}),
)


def features_of(config: Config) -> dict[str, bool]:
    """Which features `config` has switched on, in stage order."""
    return {feature.name: feature.is_on(config) for feature in FEATURES}


def without_feature(config: Config, name: str) -> Config:
    """A copy of `config` with one feature switched off, named as an ablation (`full-minus-lookup`)."""
    by_name = {feature.name: feature for feature in FEATURES}
    if name not in by_name:
        raise allowed("feature", name, tuple(by_name))
    return replace(config, name=ablation_name(config.name, name), **dict(by_name[name].switched_off))


def ablations(base: Config) -> list[Config]:
    """`base` without each feature it has switched on, one at a time."""
    return [without_feature(base, name) for name, on in features_of(base).items() if on]
