"""The pipeline of a config (rag/pipeline/build.py): which stages it runs, the features and ablations, and that
it is built once per index generation."""

from __future__ import annotations

from typing import Any

import pytest

from rag.config import PRESETS, Config
from rag.errors import ConfigError
from rag.index.store import Index
from rag.pipeline import answer_stages
from rag.pipeline.features import FEATURES, features_of, without_feature
from rag.runner import Engine
from tests.conftest import FIXTURES


def stage_names(config: Config | str, engine: Engine) -> list[str]:
    return [stage.name for stage in engine.pipeline(PRESETS[config] if isinstance(config, str) else config).stages]


def test_each_config_runs_the_stages_its_settings_switch_on(fixture_index: Index) -> None:
    engine = Engine(fixture_index, default_llm="extractive")
    assert stage_names("C0", engine) == ["rewrite", "embed", "retrieve", "order", "top_k"]
    assert stage_names("full", engine) == [
        "rewrite", "embed", "initialisms", "intent", "retrieve", "rerank", "order", "lookup", "paging", "subject",
        "named", "top_k", "write_check", "gate",
    ]
    assert engine.pipeline(PRESETS["full"]).generate.name == "generate"


def test_features_are_in_stage_order() -> None:
    names = [feature.name for feature in FEATURES]
    assert len(names) == len(set(names))
    assert names.index("intent_filter") < names.index("hybrid") < names.index("rerank") < names.index("abstention")
    assert list(features_of(PRESETS["full"])) == names
    on = {name for name, enabled in features_of(PRESETS["full"]).items() if enabled}
    assert on == {
        "initialisms", "intent_filter", "hybrid", "query_adapter", "dynamic_k", "operation_search", "rerank",
        "schemas_last", "lookup", "named_operations", "write_check", "abstention",
    }


def test_an_ablation_switches_off_one_feature_and_the_stage_that_ran_it(fixture_index: Index) -> None:
    full, engine = PRESETS["full"], Engine(fixture_index, default_llm="extractive")
    for name in (name for name, enabled in features_of(full).items() if enabled):
        ablated = without_feature(full, name)
        assert ablated.name == f"full-minus-{name}" and not features_of(ablated)[name]
        assert [n for n, on in features_of(ablated).items() if on] == [
            n for n, on in features_of(full).items() if on and n != name
        ]
    # A feature of its own stage leaves the stage out; the others change a setting of a stage that stays.
    switched = {"rerank": "rerank", "write_check": "write_check", "abstention": "gate", "lookup": "lookup"}
    for feature, stage in switched.items():
        assert stage in stage_names(full, engine) and stage not in stage_names(without_feature(full, feature), engine)
    with pytest.raises(ConfigError, match=r"expansion.*allowed:.*rerank"):
        without_feature(full, "expansion")


def test_the_pipeline_is_built_once_per_index_generation(fixture_index: Index, monkeypatch: Any) -> None:
    made: list[str] = []
    original = answer_stages.Generate.__init__

    def counting(self: answer_stages.Generate, *args: Any, **kwargs: Any) -> None:
        made.append("generate")
        original(self, *args, **kwargs)

    monkeypatch.setattr(answer_stages.Generate, "__init__", counting)
    engine = Engine(fixture_index, default_llm="extractive")
    configs = [PRESETS["C0"], PRESETS["full"]]
    for number in range(10):
        engine.run_many(f"How do I list employees? ({number})", configs, use_cache=False)
    assert made == ["generate", "generate"]  # one pipeline per config for ten questions
    full = engine.pipeline(PRESETS["full"])
    assert engine.pipeline(PRESETS["full"]) is full
    from rag.index.build import ingest_paths

    ingest_paths(fixture_index, [FIXTURES / "specs" / "notes-3.1.yaml"])  # a new index generation
    assert engine.pipeline(PRESETS["full"]) is not full and len(made) == 3
    engine.run("How do I list employees?", PRESETS["full"])
    assert len(made) == 3


def test_a_pipeline_whose_model_could_not_be_made_is_built_again(fixture_index: Index) -> None:
    asked: list[str] = []

    def no_model(spec: str) -> Any:
        asked.append(spec)
        raise ConfigError(f"{spec}: no key")

    engine = Engine(fixture_index, default_llm="openai:gpt-x", chat_model_factory=no_model)
    first = engine.pipeline(PRESETS["C0"])
    assert not first.complete and engine.pipeline(PRESETS["C0"]) is not first and len(asked) >= 2
    result = engine.run("How do I list employees?", PRESETS["C0"])
    assert result.chunks and result.errors == ["generation with openai:gpt-x failed: openai:gpt-x: no key"]


def test_full_searches_chunks_with_the_adapted_question_vector_and_its_ablation_does_not(fixture_index: Index) -> None:
    engine = Engine(fixture_index, default_llm="extractive")
    for config, adapts in ((PRESETS["full"], True), (without_feature(PRESETS["full"], "query_adapter"), False),
                           (PRESETS["C2"], False)):
        stages = {stage.name: stage for stage in engine.pipeline(config).stages}
        assert stages["retrieve"].retriever.adapt is adapts  # type: ignore[attr-defined]
        for name in ("rerank", "lookup"):
            if name in stages:
                assert stages[name].adapt is adapts  # type: ignore[attr-defined]
