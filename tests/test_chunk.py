"""Chunks round-trip through Chroma metadata and a persisted index, operation facts included."""

from __future__ import annotations

from pathlib import Path

from rag.chunk import Chunk, FieldFacts, RequestBodyFacts, ResponseFacts
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
        FieldFacts("x-account-id", "string", "header", ("required",), "The account", enum=()),
        FieldFacts(
            "mode", "string", "query", ("optional",), facts=(("Default", "a"), ("Enum", "a, b")), enum=("a", "b")
        ),
    ),
    request_body=RequestBodyFacts(
        ("application/json",), True, "OrderCreate", "OrderBody", "The order",
        fields=(FieldFacts("items", "array of Item", flags=("required",), item_enum=("x",)),),
    ),
    responses=(ResponseFacts("201", "Order", "Created", success=True), ResponseFacts("422", "Error", "Invalid")),
)


def test_metadata_round_trips_the_operation_facts() -> None:
    metadata = OPERATION.to_metadata()
    assert all(isinstance(value, (str, int, bool)) for value in metadata.values())  # Chroma takes scalars only
    assert Chunk.from_metadata(OPERATION.chunk_id, OPERATION.text, metadata) == OPERATION


def test_metadata_without_facts_reads_as_no_facts() -> None:
    bare = Chunk.from_metadata("c", "text", {"strategy": "smart", "api": "a", "kind": "schema"})
    facts = (bare.summary, bare.description, bare.parameters, bare.request_body, bare.responses)
    assert facts == ("", "", (), None, ())


def test_to_dict_gives_the_facts_as_json_values() -> None:
    data = OPERATION.to_dict()
    assert data["summary"] == "Create an order"
    assert list(data["parameters"][1]["enum"]) == ["a", "b"]
    assert data["request_body"]["fields"][0]["name"] == "items"
    assert [r["code"] for r in data["responses"]] == ["201", "422"]


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
        assert again.text == chunk.text
