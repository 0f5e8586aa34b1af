"""Start-up: Streamlit does not watch the checkout, the package metadata uses an SPDX license, and the app's
engine is loaded at server start and warmed up in the background: the first page does not wait for it."""

from __future__ import annotations

import threading
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


def test_the_app_engine_is_warmed_in_the_background_once(app_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from webapp import ui

    warmed: list[Engine] = []
    monkeypatch.setattr(engine_module, "warm_up", lambda engine: warmed.append(engine) or 0.0)
    ui._engine.clear()
    assert ui.get_engine() is app_engine
    engine_module.warm_up_once(app_engine).join(30)
    assert engine_module.warm_up_once(app_engine) is engine_module.warm_up_once(app_engine)
    assert warmed == [app_engine]


def test_an_engine_given_an_earlier_ones_id_is_warmed_anew(app_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Python reuses the id of a collected object: an engine made after another is gone may get its id, and must not
    be handed the old engine's finished warm-up (the full suite once did that, under load)."""
    import weakref

    warmed: list[Engine] = []
    monkeypatch.setattr(engine_module, "warm_up", lambda engine: warmed.append(engine) or 0.0)
    gone = threading.Thread(target=lambda: None)
    gone.start()
    gone.join()
    monkeypatch.setitem(engine_module._warming, id(app_engine), (weakref.ref(threading.Event()), gone))
    thread = engine_module.warm_up_once(app_engine)
    thread.join(30)
    assert thread is not gone and warmed == [app_engine]


def test_the_first_page_renders_while_the_warm_up_runs(app_engine, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The examples are on the page, clickable, while the warm-up is still running (it waits for the page here)."""
    from streamlit.testing.v1 import AppTest

    from webapp import ui

    page_done = threading.Event()
    finished: list[bool] = []

    def slow_warm_up(engine: Engine) -> float:
        finished.append(page_done.wait(60))
        return 0.0

    monkeypatch.setattr(engine_module, "warm_up", slow_warm_up)
    ui._engine.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception and not finished  # rendered; the warm-up still waits
    assert [b for b in at.button if b.key and b.key.startswith("example-")]
    page_done.set()
    engine_module.warm_up_once(app_engine).join(30)
    assert finished == [True]


def test_preload_builds_the_engine_at_server_start_and_pages_reuse_it(fixture_index, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    built: list[Engine] = []
    warmed = threading.Event()

    def from_settings(query_cache: bool = False) -> Engine:
        built.append(Engine(fixture_index, default_llm="extractive"))
        return built[-1]

    monkeypatch.setattr(engine_module, "engine_from_settings", from_settings)
    monkeypatch.setattr(engine_module, "warm_up", lambda engine: warmed.set() or 0.0)
    monkeypatch.setattr(engine_module, "_preloaded", {})
    monkeypatch.setenv("RAG_INDEX_DIR", str(fixture_index.directory))
    loading = engine_module.preload()
    assert engine_module.preload() is loading  # once per settings
    assert engine_module.build_engine() is loading.result(30) is built[0]
    assert warmed.wait(30) and len(built) == 1


def test_a_failed_preload_is_shown_once_then_tried_again(fixture_index, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    attempts: list[int] = []

    def from_settings(query_cache: bool = False) -> Engine:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("the index is being rebuilt")
        return Engine(fixture_index, default_llm="extractive")

    monkeypatch.setattr(engine_module, "engine_from_settings", from_settings)
    monkeypatch.setattr(engine_module, "warm_up", lambda engine: 0.0)
    monkeypatch.setattr(engine_module, "_preloaded", {})
    loading = engine_module.preload()
    with pytest.raises(RuntimeError, match="being rebuilt"):
        engine_module.build_engine()
    assert loading.done() and isinstance(engine_module.build_engine(), Engine) and len(attempts) == 2


def test_make_run_starts_the_server_that_preloads() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-m webapp.serve --server.port $(PORT)" in makefile
