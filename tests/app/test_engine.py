"""The app's engine and configurations (`webapp.engine`): the settings' engine, the user's choices, reruns."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.errors import ConfigError
from webapp.asking import rerun_request
from webapp.engine import (
    apply_choices,
    build_engine,
    engine_key,
    generator_options,
    known_configs,
    plan_rerun,
    question_and_configs,
    resolve_config_name,
)


def test_the_engine_key_names_the_settings_the_engine_is_built_from() -> None:
    first = engine_key({"RAG_INDEX_DIR": "/a", "RAG_LLM": "extractive"})
    assert first == engine_key({"RAG_INDEX_DIR": "/a", "RAG_LLM": "extractive", "UNRELATED": "x"})
    assert first != engine_key({"RAG_INDEX_DIR": "/b", "RAG_LLM": "extractive"})
    assert first != engine_key({"RAG_INDEX_DIR": "/a", "RAG_LLM": "groq:x"})


def test_build_engine_follows_the_settings(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RAG_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "hashing")
    monkeypatch.setenv("RAG_LLM", "extractive")
    engine = build_engine()
    assert engine.default_llm == "extractive"
    assert engine.index.directory == tmp_path / "index"


def test_apply_choices_sets_k_and_the_auto_generator() -> None:
    own = PRESETS["C0"].__class__(name="own", generator="groq:x")
    chosen = apply_choices([PRESETS["C0"], PRESETS["full"], own], k=12, generator="extractive")
    assert [c.k for c in chosen] == [12, 12, 12]
    assert chosen[0].candidate_pool == 20 and chosen[1].candidate_pool == PRESETS["full"].candidate_pool
    assert [c.generator for c in chosen] == ["extractive", "extractive", "groq:x"]
    assert apply_choices([PRESETS["C0"]])[0] is PRESETS["C0"]
    with pytest.raises(ConfigError, match="k=99"):
        apply_choices([PRESETS["C0"]], k=99)


def test_known_configs_with_a_user_file_and_resolution(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('[configs.mine]\nbase = "C2"\nk = 7\n')
    known = known_configs({"RAG_CONFIG_FILE": str(path)})
    assert known["mine"].k == 7 and known["mine"].retriever == "hybrid"
    assert resolve_config_name("full-minus-rerank", known).reranker == "none"
    defined = resolve_config_name("saved", known, {"saved": {"name": "saved", "chunking": "naive", "k": 3}})
    assert defined.chunking == "naive" and defined.k == 3
    with pytest.raises(ConfigError, match="unknown config"):
        resolve_config_name("nope", known)


def test_generator_options_always_offer_extractive() -> None:
    assert generator_options("extractive", {"RAG_LOCAL_MODEL": "/nonexistent/model.gguf"}) == ["extractive"]
    options = generator_options("openai:gpt-4o-mini", {"OPENAI_API_KEY": "k", "GROQ_API_KEY": "g",
                                                       "RAG_LOCAL_MODEL": "/nonexistent/model.gguf"})
    assert options[0] == "openai:gpt-4o-mini" and options[-1] == "extractive" and "groq:llama-3.1-8b-instant" in options


def test_a_rerun_request_resolves_its_configurations_and_says_which_cannot_be_used() -> None:
    known = dict(PRESETS)
    request = rerun_request("How do I list employees?", ["C0", "full-minus-rerank", "saved", "nope"],
                            {"saved": {"name": "saved", "chunking": "naive", "k": 3}},
                            [{"role": "user", "content": "earlier"}])
    plan = plan_rerun(request, known)
    assert plan is not None and plan.question == "How do I list employees?"
    assert plan.configs == ["C0", "full-minus-rerank", "saved"]
    assert known["saved"].k == 3 and known["full-minus-rerank"].reranker == "none"  # now offered on the page
    assert len(plan.problems) == 1 and plan.problems[0].startswith("Configuration 'nope' is not available here")
    assert plan.history == [{"role": "user", "content": "earlier"}]
    assert plan_rerun(None, known) is None and plan_rerun({"question": ""}, known) is None
    assert plan_rerun(rerun_request("q", ["C0"]), known).history is None  # type: ignore[union-attr]


def test_a_question_and_its_configurations_are_checked_before_asking() -> None:
    question, configs = question_and_configs("  How do I list employees?  ", ["C0", "full"], PRESETS,
                                             (7, "extractive", ""))
    assert question == "How do I list employees?"
    assert [(c.name, c.k, c.generator) for c in configs] == [("C0", 7, "extractive"), ("full", 7, "extractive")]
    with pytest.raises(ConfigError, match="choose at least one configuration"):
        question_and_configs("How do I list employees?", [], PRESETS, (5, "extractive", ""))
    with pytest.raises(ConfigError):
        question_and_configs("   ", ["C0"], PRESETS, (5, "extractive", ""))


def test_a_once_request_sets_the_configurations_for_its_own_question_only() -> None:
    from webapp.engine import ONCE_KEY, RerunPlan, choose_rerun_configs

    state: dict[str, object] = {"ask_configs": ["C0", "full"]}
    choose_rerun_configs(state, RerunPlan("What changed?", ["full"], None, [], once=True), ["C0", "C3", "full"])
    assert state["ask_configs"] == ["full"] and state[ONCE_KEY] == ["C0", "full"]
    choose_rerun_configs(state, None, ["C0", "C3", "full"])  # the next run: the choice it replaced comes back
    assert state["ask_configs"] == ["C0", "full"] and ONCE_KEY not in state
    choose_rerun_configs(state, RerunPlan("Again", ["C3"], None, []), ["C0"])  # not once: the choice stays
    assert state["ask_configs"] == ["C3"] and ONCE_KEY not in state
