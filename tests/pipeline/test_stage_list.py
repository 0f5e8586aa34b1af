"""The stage list: which stages a config runs, and the features and ablations its stages declare."""

from __future__ import annotations

import pytest

from rag.config import PRESETS
from rag.errors import ConfigError
from rag.pipeline.stage_list import STAGES, all_features, build_stages
from rag.pipeline.state import SwitchedStage
from rag.runner import Engine


def stage_names(config_name: str, engine: Engine) -> list[str]:
    return [stage.name for stage in build_stages(PRESETS[config_name], engine)]


def test_each_config_runs_the_stages_its_settings_switch_on(fixture_index) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    assert stage_names("C0", engine) == ["rewrite", "embed", "retrieve", "order", "top_k"]
    assert stage_names("full", engine) == [
        "rewrite", "embed", "intent", "retrieve", "rerank", "order", "lookup", "subject", "top_k", "write_check",
        "gate",
    ]


def test_features_are_the_stages_declarations_in_stage_order() -> None:
    names = [feature.name for feature in all_features()]
    assert len(names) == len(set(names))
    assert names.index("intent_filter") < names.index("hybrid") < names.index("rerank") < names.index("abstention")
    assert list(PRESETS["full"].features()) == names
    on = {name for name, enabled in PRESETS["full"].features().items() if enabled}
    assert on == {
        "intent_filter", "hybrid", "dynamic_k", "rerank", "schemas_last", "lookup", "write_check", "abstention",
    }


def test_an_ablation_switches_off_one_feature_and_the_stage_that_ran_it() -> None:
    full = PRESETS["full"]
    for name in (name for name, enabled in full.features().items() if enabled):
        ablated = full.without(name)
        assert ablated.name == f"full-minus-{name}" and not ablated.features()[name]
        assert [n for n, on in ablated.features().items() if on] == [
            n for n, on in full.features().items() if on and n != name
        ]
    assert not any(stage.applies(full.without("rerank")) for stage in STAGES if stage.name == "rerank")
    with pytest.raises(ConfigError, match=r"expansion.*allowed:.*rerank"):
        full.without("expansion")


def test_a_switched_stage_runs_exactly_when_its_features_are_on() -> None:
    full = PRESETS["full"]
    switched = [stage for stage in STAGES if issubclass(stage, SwitchedStage)]
    assert {stage.name for stage in switched} == {"rerank", "write_check", "gate", "query_expansion"}
    for stage in switched:
        for feature in stage.features:
            assert stage.applies(full) == all(f.is_on(full) for f in stage.features)
            assert not stage.applies(full.without(feature.name))
