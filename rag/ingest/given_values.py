"""Whether a value a spec gives for a schema (an `example`, a `default`) fits it: a request example sends a spec's
own value only then (rag.ingest.request_example), else one made from the schema."""

from __future__ import annotations

import re
from typing import Any

from rag.request_example import matches_pattern

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "array": (list,),
    "object": (dict,), "null": (type(None),),
}


def fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether a value the spec gives (an example, a default) has the schema's type and is one of its enum values:
    a spec's own example is used only then."""
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else [k for k in kinds if isinstance(k, str)] if isinstance(
        kinds, list) else []
    if kinds and schema.get("nullable") is True:
        kinds.append("null")
    if isinstance(value, bool) and "boolean" not in kinds and kinds:
        return False
    if kinds and not any(isinstance(value, _TYPES.get(kind, ())) for kind in kinds):
        return False
    if "integer" in kinds and not {"number", "string"} & set(kinds) and isinstance(value, float):
        return False
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return False
    return not isinstance(value, str) or fits_text(value, schema)


# What a date or a date-time a spec gives as an example must look like (RFC 3339, as JSON Schema's formats say).
_FORMAT_SHAPES = {
    "date": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
    "date-time": re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$"),
}


def fits_text(value: str, schema: dict[str, Any]) -> bool:
    """Whether a string the spec gives keeps the schema's length limits, its pattern (one Python cannot read is
    taken as kept) and, for a date or a date-time, its format (Apideck's `birthday` example is a date-time)."""
    low, high = schema.get("minLength"), schema.get("maxLength")
    if (isinstance(low, int) and len(value) < low) or (isinstance(high, int) and len(value) > high):
        return False
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not matches_pattern(pattern, value, unreadable=True):
        return False
    shape = _FORMAT_SHAPES.get(str(schema.get("format", "")))
    return shape is None or shape.match(value) is not None
