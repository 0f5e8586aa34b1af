"""Facts read from smart chunks for the test-set generator: field lines parsed, operation facts from fields."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, RequestBodyFacts
from rag.evaluate.spec_facts import default_of, enum_of, operation_facts, parse_field_line, stated_facts
from tests.fakes import make_chunk


def test_parse_field_lines() -> None:
    line = "- page_size (query, integer (int32), optional): Results per page Default: 25. Minimum: 1. Maximum: 100."
    parsed = parse_field_line(line)
    assert parsed is not None
    assert (parsed.name, parsed.location, parsed.type, parsed.flags) == (
        "page_size", "query", "integer (int32)", ("optional",)
    )
    assert parsed.description == "Results per page"
    assert dict(parsed.facts) == {"Default": "25", "Minimum": "1", "Maximum": "100"}
    assert default_of(parsed) == "25"
    deprecated = parse_field_line("- updated_after (query, string (date-time), optional, nullable, deprecated): x")
    assert deprecated is not None and deprecated.deprecated and not deprecated.required
    enum = parse_field_line("  - status (OrderStatus, required): Where Default: pending. Enum: pending, paid, null.")
    assert enum is not None and enum.location == "" and enum.required
    assert enum_of(enum) == ["pending", "paid"]
    described = parse_field_line("- page_size (query, string, optional): The number of results (default value is 25)")
    assert described is not None and default_of(described) == "25"
    assert parse_field_line("Responses:") is None
    assert parse_field_line("- 200 → Order: One order") is None


def test_operation_facts_read_the_fields_not_the_text() -> None:
    chunk = replace(
        make_chunk("x.paths./orders.get", "GET /orders  [x API]\nno parameter or summary lines", kind="operation"),
        method="get",
        path="/orders",
        summary="List orders",
        parameters=(
            FieldFacts("page_size", "integer", "query", ("optional",), "Per page. Default: 20.",
                       (("Default", "25"), ("Maximum", "100"))),
            FieldFacts("status", "string", "query", ("required",), enum=("a", "b", "null")),
            FieldFacts("odd", "string", "?"),
        ),
        request_body=RequestBodyFacts(
            ("application/json",), True, fields=(FieldFacts("name", "string", flags=("required",)),)
        ),
    )
    facts = operation_facts(chunk)
    assert (facts.summary, facts.label) == ("List orders", "GET /orders")
    assert [p.name for p in facts.parameters] == ["page_size", "status"]  # no known location: left out
    assert default_of(facts.parameters[0]) == "20"  # a fact the description states comes first, as in the text
    assert stated_facts(facts.parameters[0])[1]["Maximum"] == "100"
    assert enum_of(facts.parameters[1]) == ["a", "b"]
    assert [f.name for f in facts.body_fields if f.required] == ["name"]
