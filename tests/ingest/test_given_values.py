"""Whether a value a spec gives fits its schema (rag.ingest.given_values): type, allowed values, length limits,
pattern and the shape of a date or a date-time."""

from __future__ import annotations

from typing import Any

import pytest

from rag.ingest.given_values import fits


@pytest.mark.parametrize(("value", "schema", "expected"), [
    (10, {"type": "integer"}, True),
    ("ten", {"type": "integer"}, False),
    (True, {"type": "integer"}, False),
    (1.5, {"type": "integer"}, False),
    (None, {"type": "string", "nullable": True}, True),
    ("b", {"type": "string", "enum": ["a"]}, False),
    ("Alexander", {"type": "string", "maxLength": 4}, False),
    ("ab", {"type": "string", "minLength": 3}, False),
    ("abcd", {"type": "string", "pattern": "^[A-Z]{3}$"}, False),
    ("ABC", {"type": "string", "pattern": "^[A-Z]{3}$"}, True),
    ("Ab", {"type": "string", "pattern": r"^\p{Lu}"}, True),  # a pattern Python cannot read is taken as kept
    ("2025-10-15T13:51:36.638Z", {"type": "string", "format": "date"}, False),
    ("2025-10-15", {"type": "string", "format": "date"}, True),
    ("2024-02-01T10:00:00+01:00", {"type": "string", "format": "date-time"}, True),
    ("yesterday", {"type": "string", "format": "date-time"}, False),
])
def test_a_given_value_fits_its_schema(value: Any, schema: dict[str, Any], expected: bool) -> None:
    assert fits(value, schema) is expected
