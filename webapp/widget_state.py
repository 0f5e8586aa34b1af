"""Widget choices that survive Streamlit's reruns and page changes: kept values brought back, and values that are
no longer among a widget's options replaced before the widget is drawn (session state only; no drawing)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st


def restore_choices(defaults: Mapping[str, Any]) -> None:
    """Before drawing widgets: give each keyed widget its kept value (or its default) through session state.

    Streamlit drops a widget's state when a page that does not draw it runs; `keep_choices` saves a copy.
    """
    for key, default in defaults.items():
        if key not in st.session_state:
            st.session_state[key] = st.session_state.get(f"_kept_{key}", default)


def keep_choices(keys: Sequence[str]) -> None:
    """After drawing widgets: save their values so `restore_choices` can bring them back on a later visit."""
    for key in keys:
        if key in st.session_state:
            st.session_state[f"_kept_{key}"] = st.session_state[key]


def _current(key: str) -> Any:
    """A widget's value in session state, or None when it has none (or it cannot be read)."""
    try:
        return st.session_state.get(key)
    except Exception:  # a stale widget value Streamlit cannot deserialize any more
        return None


def valid_choice(key: str, options: Sequence[Any], default: Any = None) -> None:
    """Before drawing a keyed single-choice widget: a kept value no longer among `options` becomes `default`.

    A widget's state outlives a change of its options (other runs chosen, a filter that shrinks a table);
    the browser then sends back a label the new options do not have, which Streamlit passes on as a string.
    """
    value = _current(key)
    if key in st.session_state and not _member(value, options):
        st.session_state[key] = default if default is None or _member(default, options) else None


def valid_choices(key: str, options: Sequence[Any]) -> None:
    """Before drawing a keyed multiselect: keep only the chosen values that are still among `options`."""
    value = _current(key)
    if key not in st.session_state:
        return
    chosen = list(value) if isinstance(value, (list, tuple)) else []
    kept = [item for item in chosen if _member(item, options)]
    if kept != chosen or not isinstance(value, list):
        st.session_state[key] = kept


def valid_number(key: str, low: int, high: int, default: int) -> None:
    """Before drawing a keyed number input: a kept value that is not a whole number in [low, high] becomes
    `default` clamped to the range."""
    value = _current(key)
    if key not in st.session_state:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        st.session_state[key] = min(max(int(default), low), high)


def _member(value: Any, options: Sequence[Any]) -> bool:
    """`value in options` without raising on values that cannot be compared (or hashed)."""
    try:
        return any(type(value) is type(option) and value == option for option in options)
    except Exception:
        return False
