"""A field's typed values and the one place they are put in words (rag/field_facts.py)."""

from __future__ import annotations

import json

from rag.field_facts import FieldFacts, field_line

PAGE_SIZE = FieldFacts("page_size", "integer (int32)", "query", nullable=True, description="Results per page",
                       default="25", minimum=1, maximum=100, example=("10",))


def test_the_field_line_shows_the_typed_values_in_one_order() -> None:
    assert field_line(PAGE_SIZE, parameter=True) == (
        "- page_size (query, integer (int32), optional, nullable): Results per page Default: 25. Minimum: 1. "
        "Maximum: 100. Example: 10.")
    status = FieldFacts("status", "string", required=True, deprecated=True, read_only=True, enum=("a", "b"),
                        examples=("a", "b"), unique_items=True, exclusive_minimum=0.5)
    assert field_line(status) == ("- status (string, required, deprecated, read-only): Exclusive minimum: 0.5. "
                                  "Unique items: true. Enum: a, b. Examples: a; b.")
    assert field_line(FieldFacts("blank", "string", default="")) == "- blank (string, optional): Default: ."


def test_limits_are_the_values_that_bound_a_value_in_words() -> None:
    assert PAGE_SIZE.limits == [("minimum", "1"), ("maximum", "100")]
    sid = FieldFacts("sid", "string", min_length=34, max_length=34, pattern="^SM[0-9a-f]{32}$")
    assert sid.limits == [("min length", "34"), ("max length", "34"), ("pattern", "^SM[0-9a-f]{32}$")]
    assert FieldFacts("name", "string", default="x", enum=("x",)).limits == []
    # A length or count of at least 0 holds for every value: no limit (the field's line still shows it).
    empty_allowed = FieldFacts("results", "array of object", min_items=0, max_items=5)
    assert empty_allowed.limits == [("max items", "5")] and ("min_items", "Min items", "0") in empty_allowed.values()
    assert FieldFacts("name", "string", min_length=0).limits == []
    assert FieldFacts("tags", "array", min_items=1).limits == [("min items", "1")]
    assert FieldFacts("count", "integer", minimum=0).limits == [("minimum", "0")]


def test_stored_values_round_trip_and_only_what_the_spec_gives_is_written() -> None:
    nested = FieldFacts("filter", "object", "query", fields=(PAGE_SIZE,), shared_by=59, operations=74)
    stored = json.loads(json.dumps(nested.to_dict()))
    assert stored["fields"][0] == {"name": "page_size", "type": "integer (int32)", "location": "query",
                                   "nullable": True, "description": "Results per page", "default": "25",
                                   "minimum": 1, "maximum": 100, "example": ["10"]}
    assert FieldFacts.from_dict(stored) == nested


def test_a_field_stored_before_typed_values_reads_the_same() -> None:
    """An index written before kept `flags` words and `facts` label pairs (the conventions' shared header marked by
    an `Operations` pair): read through the table the field line is written with, it is the typed field."""
    old = {"name": "page_size", "type": "integer (int32)", "location": "query", "flags": ["optional", "nullable"],
           "description": "Results per page", "enum": [], "item_enum": [],
           "facts": [["Default", "25"], ["Minimum", "1"], ["Maximum", "100"], ["Example", "10"]], "fields": []}
    assert FieldFacts.from_dict(old) == PAGE_SIZE
    header = {"name": "x-account-id", "type": "string", "location": "header", "flags": ["required"],
              "facts": [["Enum", "a, b"], ["Examples", "a; b"], ["Operations", "59 of 74"]], "enum": ["a", "b"]}
    assert FieldFacts.from_dict(header) == FieldFacts("x-account-id", "string", "header", required=True,
                                                      enum=("a", "b"), examples=("a", "b"), shared_by=59,
                                                      operations=74)
