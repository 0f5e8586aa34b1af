"""Facts read from smart chunks for the test-set generator: a field's typed values, operation facts from fields."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, RequestBodyFacts
from rag.evaluate.spec_facts import default_of, enum_of, operation_facts, stated_facts
from tests.fakes import make_chunk


def test_stated_facts_are_the_typed_values_and_what_the_description_states() -> None:
    """A description that states a fact in `Label: value.` form wins (specs write them in prose); the typed values
    follow; a description's "(default value is X)" counts when neither gives a default."""
    page_size = FieldFacts("page_size", "integer", "query", description="Results per page Maximum: 50.",
                           default="25", minimum=1, maximum=100)
    assert stated_facts(page_size) == ("Results per page", {"maximum": "50", "default": "25", "minimum": "1"})
    assert default_of(page_size) == "25"
    status = FieldFacts("status", "OrderStatus", description="Where Enum: pending, paid, null.", enum=("x", "y"))
    assert enum_of(status) == ["pending", "paid"]
    assert enum_of(FieldFacts("kind", "string", item_enum=("a", "null", "b"))) == ["a", "b"]
    described = FieldFacts("page_size", "string", description="The number of results (default value is 25)")
    assert default_of(described) == "25"
    assert default_of(FieldFacts("x", "string")) is None


def test_operation_facts_read_the_fields_not_the_text() -> None:
    chunk = replace(
        make_chunk("x.paths./orders.get", "GET /orders  [x API]\nno parameter or summary lines", kind="operation"),
        method="get",
        path="/orders",
        summary="List orders",
        parameters=(
            FieldFacts("page_size", "integer", "query", description="Per page. Default: 20.", default="25",
                       maximum=100),
            FieldFacts("status", "string", "query", required=True, enum=("a", "b", "null")),
            FieldFacts("odd", "string", "?"),
        ),
        request_body=RequestBodyFacts(
            ("application/json",), True, fields=(FieldFacts("name", "string", required=True),)
        ),
    )
    facts = operation_facts(chunk)
    assert (facts.summary, facts.label) == ("List orders", "GET /orders")
    assert [p.name for p in facts.parameters] == ["page_size", "status"]  # no known location: left out
    assert default_of(facts.parameters[0]) == "20"  # a fact the description states comes first, as in the text
    assert stated_facts(facts.parameters[0])[1]["maximum"] == "100"
    assert enum_of(facts.parameters[1]) == ["a", "b"]
    assert [f.name for f in facts.body_fields if f.required] == ["name"]
