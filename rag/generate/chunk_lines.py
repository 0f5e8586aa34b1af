"""Reading the lines of a smart chunk: field lines (`- name (type, flags): description`) and the fields
nested under one (a response's top-level fields, an object's properties)."""

from __future__ import annotations

import re
from collections.abc import Sequence

FIELD_LINE = re.compile(r"^\s*(?:[-*]\s+)?([A-Za-z_$@][\w.$@\-\[\]]*) \(")


def child_fields(lines: Sequence[str], position: int) -> list[str]:
    """Names of the fields nested directly under the field line at `position` (`compensations` → rate, currency…)."""
    line = lines[position]
    indent = len(line) - len(line.lstrip())
    names: list[str] = []
    child_indent: int | None = None
    for following in lines[position + 1 :]:
        if not following.strip():
            break
        depth = len(following) - len(following.lstrip())
        if depth <= indent:
            break
        child_indent = depth if child_indent is None else child_indent
        if depth == child_indent and (match := FIELD_LINE.match(following)):
            names.append(match.group(1))
    return names
