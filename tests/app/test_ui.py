"""The app's drawing helpers (`webapp.ui`) that decide something before drawing: box heights, the selected row,
the configurations' caption. The drawing itself is checked page by page in test_app.py."""

from __future__ import annotations

from types import SimpleNamespace

from rag.config import PRESETS
from webapp import ui


def test_long_code_scrolls_and_short_code_takes_its_height() -> None:
    assert ui.code_height("one line") == "content"
    assert ui.code_height("\n".join(["line"] * 20)) == ui.CODE_HEIGHT
    assert ui.code_height("x" * 2000) == ui.CODE_HEIGHT


def test_the_selected_row_of_a_dataframe_event() -> None:
    assert ui.selected_row(SimpleNamespace(selection=SimpleNamespace(rows=[3, 5]))) == 3
    assert ui.selected_row(SimpleNamespace(selection=SimpleNamespace(rows=[]))) is None
    assert ui.selected_row(None) is None


def test_the_configurations_caption_names_each_chosen_one() -> None:
    caption = ui.config_caption(PRESETS, ["C0", "nope", "full"])
    assert caption.startswith("**C0**: ") and " · **full**: " in caption and "nope" not in caption
