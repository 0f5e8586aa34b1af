"""Widget choices across reruns and pages (`webapp.widget_state`): kept values come back, stale ones are replaced
before the widget is drawn."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script() -> None:
    from webapp import widget_state

    widget_state.restore_choices({"kept": "default", "fresh": "default"})
    widget_state.valid_choices("runs", ["a", "b"])
    widget_state.valid_choice("one", ["a", "b"], "a")
    widget_state.valid_choice("other", ["a", "b"], "z")
    widget_state.valid_number("k", 1, 20, 5)
    widget_state.valid_number("flag", 1, 20, 50)
    widget_state.keep_choices(["runs"])


def test_stale_values_are_replaced_and_kept_ones_restored() -> None:
    at = AppTest.from_function(_script)
    at.session_state["_kept_kept"] = "kept before"
    at.session_state["runs"] = ["a", "gone", "b"]
    at.session_state["one"] = "gone"
    at.session_state["other"] = "gone"
    at.session_state["k"] = 99
    at.session_state["flag"] = True
    at.run()
    assert not at.exception
    assert at.session_state["kept"] == "kept before" and at.session_state["fresh"] == "default"
    assert at.session_state["runs"] == ["a", "b"] and at.session_state["_kept_runs"] == ["a", "b"]
    assert at.session_state["one"] == "a"
    assert at.session_state["other"] is None  # a default that is no option either
    assert at.session_state["k"] == 5  # out of range: the default
    assert at.session_state["flag"] == 20  # not a number: the default (50) clamped into [1, 20]
