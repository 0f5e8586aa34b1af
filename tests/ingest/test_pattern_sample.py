"""The string a request example sends for a field with a `pattern` (rag.ingest.pattern_sample): matched by the
pattern, within the length limits, readable, the same every time."""

from __future__ import annotations

import re

import pytest

from rag.ingest.pattern_sample import pattern_sample


@pytest.mark.parametrize(("pattern", "low", "high", "expected"), [
    (r"^arn:aws:[a-z0-9-]+:.*$", 0, None, "arn:aws:y:"),  # each repeat at its least: `.*` writes nothing
    (r"^[0-9]+$", 12, 12, None),  # an AWS account id: a length the least repeats do not reach
    (r"^\d+-\d+$", 12, 12, None),  # two repeats: one grows alone where growing both skips the length
    (r"^[\s]*[\w+=.#!&-]+@[\w.-]+\.[\w]+[\s]*$", 0, 64, None),  # whitespace allowed, none written
])
def test_the_shortest_readable_match_within_the_limits(pattern: str, low: int, high: int | None,
                                                       expected: str | None) -> None:
    sample = pattern_sample(pattern, low, high)
    assert sample is not None and re.search(pattern, sample)
    assert low <= len(sample) <= (high if high is not None else len(sample))
    assert not any(c.isspace() for c in sample)
    if expected is not None:
        assert sample == expected
    pattern_sample.cache_clear()
    assert pattern_sample(pattern, low, high) == sample  # the same string every time


def test_no_length_fits_gives_the_shortest_match_and_an_unreadable_pattern_none() -> None:
    assert pattern_sample(r"^AC[0-9a-f]{32}$", 0, 10) is not None  # 34 characters: no string of 10 matches
    assert len(pattern_sample(r"^AC[0-9a-f]{32}$", 0, 10) or "") == 34
    assert pattern_sample(r"^\p{L}+$") is None  # Python's re cannot read it
    assert pattern_sample(r"^a$b") is None  # nothing made matches it
