"""A string a schema's `pattern` matches, for a request example (rag.ingest.request_example): the shortest
readable one within the schema's length limits, the same every time. rstr writes strings of a regular expression;
drawn at random, each `*` or `+` runs up to 100 times over any whitespace character, which no server accepts
where a length limit applies and nobody can read."""

from __future__ import annotations

import random
import re
import string
from functools import lru_cache
from itertools import chain
from typing import Any

from rstr import Rstr

# How many repeats beyond each repeat's least (`*` none, `+` one, `{3,}` three) a pattern sample tries at most.
MAX_EXTRA_REPEATS = 64
# The characters a pattern sample prefers where its pattern allows any of several (`.`, `\S`, `[^/]`).
_READABLE = string.ascii_letters + string.digits


@lru_cache(maxsize=4096)
def pattern_sample(pattern: str, low: int = 0, high: int | None = None) -> str | None:
    r"""The shortest readable string that `pattern` matches and whose length lies within `low`..`high`
    (`^arn:aws:[a-z0-9-]+:.*$` → "arn:aws:y:"; `\s*` writes nothing, `.` a letter or digit): each repeat at its
    least, then every repeat once more at a time, then one repeat alone (`^[0-9]+$` of length 12; `^\d+-\d+$` of
    length 12 as well); the shortest match found when no length fits; None when Python cannot read the pattern
    (`\p{L}`) or nothing made matches it."""
    matched: list[str] = []
    try:
        counted = _ShortestSample(0)
        counted.xeger(pattern)
        repeats = counted.repeats
        for grown in (None, *range(repeats)) if repeats else (None,):
            for extra in range(MAX_EXTRA_REPEATS + 1) if repeats else (0,):
                sample = _ShortestSample(extra, grown).xeger(pattern)
                if re.search(pattern, sample) is None:
                    continue
                if len(sample) >= low and (high is None or len(sample) <= high):
                    return sample
                matched.append(sample)
                if high is not None and len(sample) > high:
                    break
    except (re.error, ValueError, IndexError, OverflowError, KeyError, RecursionError):
        return None
    return min(matched, key=len) if matched else None


class _ShortestSample(Rstr):  # type: ignore[misc]
    """rstr's string of a regular expression, written as short and as readable as the expression allows: each
    repeat at its least plus `extra` (only the repeat numbered `grown`, in the order they are written, when one is
    given), a space for whitespace, letters and digits where any character will do; the same string every time.
    `repeats` counts the repeats met."""

    def __init__(self, extra: int, grown: int | None = None) -> None:
        super().__init__(random.Random(0), printable=_READABLE, whitespace=" ", nonwhitespace=_READABLE,
                         nondigits=string.ascii_letters, nonword="-")
        self._extra, self._grown, self.repeats = extra, grown, 0

    def _handle_repeat(self, start_range: int, end_range: int, value: Any) -> str:
        number, self.repeats = self.repeats, self.repeats + 1
        extra = self._extra if self._grown is None or self._grown == number else 0
        times = min(end_range, start_range + extra)
        return "".join("".join(self._handle_state(state) for state in value) for _ in range(times))

    def _handle_in(self, value: Any) -> Any:
        candidates = list(chain.from_iterable(self._handle_state(state) for state in value))
        if candidates and candidates[0] is False:
            excluded = set(candidates[1:])
            candidates = [c for c in _READABLE if c not in excluded] or sorted(set(string.printable) - excluded)
        readable = [c for c in candidates if c in _READABLE]
        return self._random.choice(readable or candidates)
