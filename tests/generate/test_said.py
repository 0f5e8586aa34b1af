"""How an extractive answer says a field's description (rag/generate/said.py)."""

from __future__ import annotations

from rag.chunk import FieldFacts
from rag.generate.said import ABOUT_CHARS, cut_at_word, field_facts_text

COUNT = ("The number of results to return. The default is 20 if this parameter is omitted, with a minimum of 1 and a "
         "maximum of 100. Larger values are rejected.")


def test_a_cut_description_never_ends_inside_a_number_or_a_word() -> None:
    cut = cut_at_word(COUNT, COUNT.index("100") + 1)  # the limit falls inside "100"
    assert cut.endswith("a maximum of 100.") and "10…" not in cut
    text = "The ID of an existing invoice to add this item to; when left blank it goes on the next upcoming invoice"
    assert cut_at_word(text, text.index("upcoming") + 2).endswith("the next upcoming…")
    assert cut_at_word("short enough", 120) == "short enough"


def test_a_word_that_runs_on_is_cut_before() -> None:
    text = "see " * 28 + "https://example.com/" + "x" * 80
    cut = cut_at_word(text, 120)
    assert cut.endswith("see…") and "https" not in cut


def test_the_answer_quotes_the_descriptions_limit_whole() -> None:
    said = field_facts_text(FieldFacts("count", "integer", location="query", description=COUNT), about=True)
    assert "a maximum of 100" in said and len(COUNT) > ABOUT_CHARS
