"""Chunks round-trip through Chroma metadata and a persisted index, operation facts included."""

from __future__ import annotations

from pathlib import Path

from rag.chunk import (
    Chunk,
    FieldFacts,
    ProseStatement,
    RequestBodyFacts,
    RequestExample,
    ResponseFacts,
    SecurityFacts,
)
from rag.index.build import ingest_paths
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.ingest.pipeline import parse_path
from tests.conftest import FIXTURES

OPERATION = Chunk(
    chunk_id="smart/shop.paths./orders.post",
    strategy="smart",
    api="shop",
    kind="operation",
    text="POST /orders  [shop API]",
    embedding_text="POST /orders.",
    covers=("shop.paths./orders.post",),
    source="shop.yaml",
    path="/orders",
    method="post",
    summary="Create an order",
    description="Creates one order.",
    parameters=(
        FieldFacts("x-account-id", "string", "header", required=True, description="The account", enum=()),
        FieldFacts(
            "mode", "string", "query", default="a", enum=("a", "b")
        ),
    ),
    request_body=RequestBodyFacts(
        ("application/json",), True, "OrderCreate", "OrderBody", "The order",
        fields=(FieldFacts("items", "array of Item", required=True, item_enum=("x",)),),
    ),
    responses=(
        ResponseFacts("201", "Order", "Created", success=True, headers=(("Location", "The new order"),),
                      fields=(FieldFacts("id", "string", read_only=True),)),
        ResponseFacts("422", "Error", "Invalid"),
    ),
    request_example=RequestExample(
        "POST", "https://api.shop.test/orders", query=(("dry_run", "true"),), headers=(("x-account-id", "<x>"),),
        media_type="application/json", body='{"items": ["x"]}',
        auth=(SecurityFacts("basic", "http", scheme="basic", location="header", parameter="Authorization"),),
        credential="SHOP",
    ),
)
SCHEMA = Chunk(
    chunk_id="smart/shop.components.Money", strategy="smart", api="shop", kind="schema",
    text="Schema Money  [shop API]", embedding_text="Schema Money.", covers=("shop.components.Money",),
    source="shop.yaml", schema_fields=(FieldFacts("amount", "number", required=True, enum=("1", "2")),),
    used_by=("GET /orders", "POST /orders"),
)


OVERVIEW = Chunk(
    chunk_id="smart/shop.overview", strategy="smart", api="shop", kind="overview", text="API overview: Shop API",
    embedding_text="Shop API overview.", covers=("shop.overview",), source="shop.yaml",
    description="Rate limits. 100 requests per minute.",
    prose=(ProseStatement("Rate limits", "100 requests per minute."),),
)


def test_metadata_round_trips_the_operation_and_schema_facts() -> None:
    for chunk in (OPERATION, SCHEMA, OVERVIEW):
        metadata = chunk.to_metadata()
        assert all(isinstance(value, (str, int, bool)) for value in metadata.values())  # Chroma takes scalars only
        assert Chunk.from_metadata(chunk.chunk_id, chunk.text, metadata) == chunk


def test_metadata_without_facts_reads_as_no_facts() -> None:
    bare = Chunk.from_metadata("c", "text", {"strategy": "smart", "api": "a", "kind": "schema"})
    facts = (bare.summary, bare.description, bare.parameters, bare.request_body, bare.responses)
    assert facts == ("", "", (), None, ())
    assert (bare.schema_fields, bare.used_by) == ((), ())  # an index written before schema facts still loads
    assert bare.request_example is None  # nor before request examples
    assert bare.prose == ()  # nor before an overview's statements
    older = ResponseFacts.from_dict({"code": "200", "schema": "Order", "description": "", "success": True})
    assert (older.headers, older.fields) == ((), ())


def test_to_dict_gives_the_facts_as_json_values() -> None:
    data = OPERATION.to_dict()
    assert data["summary"] == "Create an order"
    assert list(data["parameters"][1]["enum"]) == ["a", "b"]
    assert data["request_body"]["fields"][0]["name"] == "items"
    assert [r["code"] for r in data["responses"]] == ["201", "422"]
    assert [list(pair) for pair in data["responses"][0]["headers"]] == [["Location", "The new order"]]
    assert data["request_example"]["auth"][0]["scheme"] == "basic"
    assert [list(pair) for pair in data["request_example"]["query"]] == [["dry_run", "true"]]
    assert SCHEMA.to_dict()["schema_fields"][0]["name"] == "amount" and SCHEMA.to_dict()["used_by"] == [
        "GET /orders", "POST /orders"
    ]


def test_a_persisted_index_round_trips_the_operation_facts(tmp_path: Path) -> None:
    spec = FIXTURES / "specs" / "shop-3.0.yaml"
    ingest_paths(Index(tmp_path / "index", HashingEmbedder()), [spec])
    reopened = Index(tmp_path / "index", HashingEmbedder())  # a new process reading what the first one wrote
    stored = {c.chunk_id.split("/", 1)[1]: c for c in reopened.snapshot().chunks.values()}
    parsed = parse_path(spec).chunks
    operations = [c for c in parsed if c.kind == "operation" and c.strategy == "smart"]
    assert operations and all(c.parameters or c.responses for c in operations)
    for chunk in parsed:
        again = stored[chunk.chunk_id]
        assert (again.summary, again.description, again.parameters, again.request_body, again.responses) == (
            chunk.summary, chunk.description, chunk.parameters, chunk.request_body, chunk.responses
        )
        assert (again.schema_fields, again.used_by) == (chunk.schema_fields, chunk.used_by)
        assert again.request_example == chunk.request_example
        assert again.text == chunk.text

