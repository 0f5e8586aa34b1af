"""Every page driven through sequences of widget changes (AppTest, in-process): runs added and removed,
filters that empty a table, picks beyond the new range, stale values left in session state. Any exception
shown on the page fails the test.

Widget state outlives a change of the widget's options; the browser then sends back a label the new options
do not have (Streamlit passes it on as a string). The pages validate every such value before drawing.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Selectbox

from rag.config import PRESETS
from tests.app.conftest import EVAL_RUN_FIXTURE, ROOT

pytestmark = pytest.mark.app

Step = Callable[[AppTest], object]


def start(page: str | None = None) -> AppTest:
    """The app after its first run, optionally on another page."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.run()
    check(at, "first run")
    if page:
        at.switch_page(page).run()
        check(at, f"switch to {page}")
    return at


def check(at: AppTest, step: str) -> None:
    """Fail with the step's name when the page shows an exception."""
    assert not at.exception, f"after {step}: {[e.value for e in at.exception]}"


def drive(at: AppTest, steps: list[tuple[str, Step]]) -> None:
    """Apply each step, rerun, and check the page after every one."""
    for name, step in steps:
        step(at)
        at.run()
        check(at, name)


class _StaleSelectbox(Selectbox):  # type: ignore[type-arg]
    """A selectbox whose next widget state is a label it does not offer, as a browser sends after its options
    changed under it."""

    stale_label: str = ""

    @property
    def _widget_state(self) -> WidgetState:
        state = WidgetState()
        state.id = self.id
        state.string_value = self.stale_label
        return state


def send_label(key: str, label: str) -> Step:
    """A step: the browser sends `label` for the selectbox `key` (a label its options no longer have)."""

    def step(at: AppTest) -> None:
        box = at.selectbox(key=key)
        box.__class__ = _StaleSelectbox
        box.stale_label = label  # type: ignore[attr-defined]

    return step


def ask(question: str) -> Step:
    """A step: type `question` in the box and press Ask."""

    def step(at: AppTest) -> None:
        at.text_area(key="ask_text").input(question)
        at.button(key="ask_submit").click()

    return step


def copy_runs(results: Path, names: list[str]) -> list[Path]:
    """Copies of the tiny saved run under `names`, the first one newest."""
    paths = []
    for offset, name in enumerate(names):
        target = results / name
        shutil.copytree(EVAL_RUN_FIXTURE / "tiny-run", target)
        stamp = time.time() - offset * 60
        for file in target.iterdir():
            os.utime(file, (stamp, stamp))
        paths.append(target)
    return paths


# ---------------------------------------------------------------------- home
def test_home_survives_config_k_and_generator_sequences(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = start()
    everything = list(PRESETS)
    drive(at, [
        ("all configurations", lambda a: a.multiselect(key="ask_configs").set_value(everything)),
        ("ask with all", ask("How do I list orders?")),
        ("one configuration", lambda a: a.multiselect(key="ask_configs").set_value(["C0"])),
        ("none", lambda a: a.multiselect(key="ask_configs").set_value([])),
        ("ask with none", ask("How do I list orders?")),
        ("k at its maximum", lambda a: a.number_input(key="ask_k").set_value(20)),
        ("three configurations", lambda a: a.multiselect(key="ask_configs").set_value(["C0", "C5", "full"])),
        ("retrieval only", lambda a: a.toggle(key="ask_retrieval_only").set_value(True)),
        ("ask again", ask("What is the page_size parameter?")),
        ("a configuration that no longer exists", lambda a: a.session_state.__setitem__(
            "ask_configs", ["C0", "gone-config"])),
        ("k beyond the range", lambda a: a.session_state.__setitem__("ask_k", 99)),
        ("a generator that no longer exists", send_label("ask_generator", "openai:gone")),
    ])
    assert at.multiselect(key="ask_configs").value == ["C0"]
    assert 1 <= at.number_input(key="ask_k").value <= 20
    assert at.selectbox(key="ask_generator").value == "extractive"


# ---------------------------------------------------------------------- documents
def test_documents_page_survives_browsing_and_deleting(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = start("pages/1_Documents.py")
    sources = list(at.selectbox(key="browse_source").options)
    assert len(sources) >= 2
    last = sources[-1]
    drive(at, [
        ("browse the last document", lambda a: a.selectbox(key="browse_source").set_value(last)),
        ("naive chunks only", lambda a: a.get("button_group")[0].set_value(["naive"])
         if a.get("button_group") else None),
        ("pick it for deletion", lambda a: a.selectbox(key="delete_source").set_value(last)),
        ("delete it", lambda a: a.button(key="delete_button").click()),
        ("a deleted document still picked", send_label("browse_source", last)),
        ("a strategy the document lacks", lambda a: a.session_state.__setitem__("browse_strategy", "docs")),
        ("a configuration that no longer exists", lambda a: a.session_state.__setitem__(
            "testset_configs", ["gone-config", "C0"])),
    ])
    assert last not in at.selectbox(key="browse_source").options
    assert at.selectbox(key="browse_source").value in at.selectbox(key="browse_source").options


# ---------------------------------------------------------------------- evaluation
def test_evaluation_page_survives_run_filter_and_pick_sequences(app_engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    newest, middle, oldest = (str(p) for p in copy_runs(tmp_path / "results", ["run-new", "run-mid", "run-old"]))
    at = start("pages/2_Evaluation.py")
    assert at.multiselect(key="eval_runs").value == [newest]

    def pick_last(a: AppTest) -> None:
        """Choose the last question, as the browser does: by sending its label."""
        send_label("question_pick", a.selectbox(key="question_pick").options[-1])(a)

    drive(at, [
        ("pick the last question", pick_last),
        ("add a second run", lambda a: a.multiselect(key="eval_runs").set_value([newest, middle])),
        ("pick the last question of two runs", pick_last),
        ("remove the first run", lambda a: a.multiselect(key="eval_runs").set_value([middle])),
        ("the label the browser sends for a vanished option", send_label(
            "question_pick", "q4 · run-new / full · What's the weather in Berlin?")),
        ("three runs", lambda a: a.multiselect(key="eval_runs").set_value([oldest, middle, newest])),
        ("filter on one configuration", lambda a: a.multiselect(key="filter_configs").set_value(
            ["run-old / C0"])),
        ("pick the last of those", pick_last),
        ("a filter that empties the table", lambda a: a.multiselect(key="filter_failures").set_value(
            ["retrieval_miss", "false_answer"]) and a.multiselect(key="filter_categories").set_value(
            ["out_of_scope"])),
        ("clear the failure filter", lambda a: a.multiselect(key="filter_failures").set_value([])),
        ("one run again: the filter's label is gone", lambda a: a.multiselect(key="eval_runs").set_value([newest])),
        ("a heatmap metric that no longer exists", send_label("heatmap_metric", "gone")),
        ("a quality metric that no longer exists", send_label("scatter_metric", "gone")),
        ("no run", lambda a: a.multiselect(key="eval_runs").set_value([])),
        ("a run deleted on disk", lambda a: (shutil.rmtree(oldest), a.session_state.__setitem__(
            "eval_runs", [oldest, newest]))),
    ])
    assert at.multiselect(key="eval_runs").value == [newest]
    assert isinstance(at.selectbox(key="question_pick").value, str)


@pytest.mark.parametrize("order", [("add", "remove"), ("remove", "add")])
def test_evaluation_page_add_and_remove_in_either_order(app_engine, tmp_path, order) -> None:  # type: ignore[no-untyped-def]
    first, second = (str(p) for p in copy_runs(tmp_path / "results", ["held", "dev"]))
    at = start("pages/2_Evaluation.py")
    steps: dict[str, tuple[str, Step]] = {
        "add": ("add dev", lambda a: a.multiselect(key="eval_runs").set_value([first, second])),
        "remove": ("remove held", lambda a: a.multiselect(key="eval_runs").set_value([second])),
    }
    drive(at, [steps[name] for name in order])
    assert at.selectbox(key="question_pick").value.startswith("dev / ")
