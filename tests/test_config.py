"""Configs: presets, validation messages, user config files, ablations."""

from pathlib import Path

import pytest

from rag.config import PRESETS, Config, ablation_name, ablation_parts, load_config_file, resolve_configs
from rag.errors import ConfigError
from rag.pipeline.features import features_of, without_feature


def test_presets_have_the_names_of_the_study() -> None:
    assert list(PRESETS) == ["C0", "C1", "C2", "C3", "C4", "C5", "E2", "E3", "E4", "full"]
    assert PRESETS["C0"].chunking == "naive" and PRESETS["C1"].chunking == "smart"
    assert PRESETS["C2"].retriever == "hybrid" and PRESETS["C3"].intent_filter
    assert PRESETS["C4"].reranker == "llm" and PRESETS["C5"].abstention
    assert PRESETS["E3"].reranker == "cross-encoder" and PRESETS["E3"].candidate_pool == 20
    assert PRESETS["E4"].reasoning


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"retriever": "graph"}, "retriever='graph' is not allowed; allowed: 'bm25', 'hybrid', 'vector'"),
        ({"chunking": "pages"}, "allowed: 'naive', 'smart'"),
        ({"reranker": "magic"}, "allowed: 'cross-encoder', 'learned', 'llm', 'none'"),
        ({"alpha": 1.5}, "alpha=1.5 is not allowed"),
        ({"k": 0}, "k=0 is not allowed"),
        ({"k": 10, "candidate_pool": 5}, "candidate_pool=5 must be at least k=10"),
    ],
)
def test_bad_values_name_the_value_and_the_allowed_ones(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        Config("mine", **changes)
    assert message in str(error.value)


def test_user_configs_from_toml_and_yaml(tmp_path: Path) -> None:
    toml = tmp_path / "configs.toml"
    toml.write_text('[configs.fast]\nbase = "C2"\nk = 3\n\n[configs.deep]\nk = 8\ncandidate_pool = 40\n')
    configs = load_config_file(toml)
    assert configs["fast"].retriever == "hybrid" and configs["fast"].k == 3
    assert configs["deep"].reranker == "learned"
    yaml_file = tmp_path / "configs.yaml"
    yaml_file.write_text("configs:\n  lexical:\n    base: C1\n    retriever: bm25\n")
    assert load_config_file(yaml_file)["lexical"].retriever == "bm25"
    bad = tmp_path / "bad.toml"
    bad.write_text("[configs.x]\nspeed = 3\n")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_config_file(bad)


def test_resolve_configs_rejects_unknown_names() -> None:
    assert [c.name for c in resolve_configs("C0, full")] == ["C0", "full"]
    with pytest.raises(ConfigError, match=r"unknown config.*allowed: C0"):
        resolve_configs("C0,C9")


def test_ablation_removes_one_feature() -> None:
    full = PRESETS["full"]
    on = [name for name, enabled in features_of(full).items() if enabled]
    assert "rerank" in on and "abstention" in on
    without = without_feature(full, "rerank")
    assert without.reranker == "none" and without.name == "full-minus-rerank"
    assert features_of(without)["abstention"]


def test_an_ablation_is_named_in_one_place() -> None:
    assert ablation_name("full", "lookup") == "full-minus-lookup"
    assert ablation_parts("full-minus-lookup") == ("full", "lookup")
    assert ablation_parts("full") is None and ablation_parts("full-minus-") is None
