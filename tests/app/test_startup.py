"""Start-up: Streamlit does not watch the checkout, the package metadata uses an SPDX license, and the app's
engine is warmed up before the first question."""

from __future__ import annotations

import tomllib

import pytest

from rag.config import DEFAULT_CONFIGS
from rag.runner import Engine
from tests.app.conftest import ROOT
from webapp import engine as engine_module

pytestmark = pytest.mark.app


def test_streamlit_does_not_watch_the_checkout() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["fileWatcherType"] == "none"
    assert config["server"]["runOnSave"] is False


def test_license_is_an_spdx_expression() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"


def test_warm_up_asks_every_default_configuration(fixture_index, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    asked: list[tuple[str, str, bool]] = []
    original = Engine.run

    def run(self, question, config, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append((question, config.name, config.generator))
        return original(self, question, config, *args, **kwargs)

    monkeypatch.setattr(Engine, "run", run)
    seconds = engine_module.warm_up(engine)
    assert seconds >= 0
    assert {name for _, name, _ in asked} == set(DEFAULT_CONFIGS)
    assert {question for question, _, _ in asked} == set(engine_module.WARM_UP_QUESTIONS)
    assert {generator for _, _, generator in asked} == {"extractive"}  # warming never calls a hosted LLM


def test_warm_up_never_breaks_the_app(fixture_index, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("model files missing")

    monkeypatch.setattr(Engine, "run", broken)
    assert engine_module.warm_up(engine) >= 0


def test_the_app_engine_is_warmed_when_loaded(app_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from webapp import ui

    warmed: list[Engine] = []
    monkeypatch.setattr(ui, "warm_up", lambda engine: warmed.append(engine) or 0.0)
    ui._engine.clear()
    assert ui.get_engine() is app_engine
    assert warmed == [app_engine]
