"""The chunk: the unit that is indexed, retrieved, cited and evaluated."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

Strategy = Literal["smart", "naive", "docs"]
Kind = Literal["operation", "schema", "overview", "doc"]
STRATEGIES: tuple[str, ...] = ("smart", "naive", "docs")
KINDS: tuple[str, ...] = ("operation", "schema", "overview", "doc")


def operation_id(api: str, path: str, method: str) -> str:
    """Structural id of an operation: `{api}.paths.{path}.{method}` (method lower-case)."""
    return f"{api}.paths.{path}.{method.lower()}"


_PATH_PARAMETER = re.compile(r"^\{.*\}$")


def resource_segments(path: str) -> list[str]:
    """The segments of an API path that are not parameters (`/accounts/{id}/meta` → accounts, meta)."""
    return [s for s in path.strip("/").split("/") if s and not _PATH_PARAMETER.match(s)]


def is_item_path(path: str) -> bool:
    """Whether a path addresses one item (`/accounts/{id}`) rather than a collection (`/accounts`)."""
    return path.rstrip("/").endswith("}")


def schema_id(api: str, name: str) -> str:
    """Structural id of a component schema: `{api}.components.{name}`."""
    return f"{api}.components.{name}"


def overview_id(api: str) -> str:
    """Structural id of a spec's overview (info, servers, security schemes)."""
    return f"{api}.overview"


def conventions_id(api: str) -> str:
    """Structural id of what a spec's operations share (common headers, paging, error responses, retries)."""
    return f"{api}.conventions"


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a document.

    `embedding_text` is compact (the packaged embedder reads at most 256 word pieces);
    `text` is the full context given to the generator and shown to people.
    `covers` lists the structural ids this chunk is about; quality is measured on them.
    `payload_of` (schema chunks) lists the operations whose whole request body or success response
    is this schema.
    """

    chunk_id: str
    strategy: Strategy
    api: str
    kind: Kind
    text: str
    embedding_text: str
    covers: tuple[str, ...]
    source: str
    json_pointer: str = ""
    path: str = ""
    method: str = ""
    operation_id: str = ""
    tags: tuple[str, ...] = ()
    ref_ids: tuple[str, ...] = ()
    payload_of: tuple[str, ...] = ()
    tokens: int = 0
    title: str = ""
    section_path: str = ""
    depth: int = 0
    has_code: bool = False
    part: int = 1
    parts: int = 1
    doc_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def with_version(self, doc_version: str) -> Chunk:
        """Return this chunk tagged with the document version it belongs to (id prefixed)."""
        return replace(self, chunk_id=f"{doc_version}/{self.chunk_id}", doc_version=doc_version)

    def to_metadata(self) -> dict[str, str | int | bool]:
        """Flatten to Chroma metadata (scalar values only; tuples are JSON-encoded)."""
        return {
            "strategy": self.strategy,
            "api": self.api,
            "kind": self.kind,
            "covers": json.dumps(list(self.covers)),
            "source": self.source,
            "json_pointer": self.json_pointer,
            "path": self.path,
            "method": self.method,
            "operation_id": self.operation_id,
            "tags": json.dumps(list(self.tags)),
            "ref_ids": json.dumps(list(self.ref_ids)),
            "payload_of": json.dumps(list(self.payload_of)),
            "tokens": self.tokens,
            "title": self.title,
            "section_path": self.section_path,
            "depth": self.depth,
            "has_code": self.has_code,
            "part": self.part,
            "parts": self.parts,
            "doc_version": self.doc_version,
            "embedding_text": self.embedding_text,
        }

    @classmethod
    def from_metadata(cls, chunk_id: str, text: str, metadata: dict[str, Any]) -> Chunk:
        """Rebuild a chunk from what `to_metadata` stored."""
        return cls(
            chunk_id=chunk_id,
            strategy=metadata["strategy"],
            api=metadata["api"],
            kind=metadata["kind"],
            text=text,
            embedding_text=str(metadata.get("embedding_text", "")),
            covers=tuple(json.loads(metadata.get("covers", "[]"))),
            source=str(metadata.get("source", "")),
            json_pointer=str(metadata.get("json_pointer", "")),
            path=str(metadata.get("path", "")),
            method=str(metadata.get("method", "")),
            operation_id=str(metadata.get("operation_id", "")),
            tags=tuple(json.loads(metadata.get("tags", "[]"))),
            ref_ids=tuple(json.loads(metadata.get("ref_ids", "[]"))),
            payload_of=tuple(json.loads(metadata.get("payload_of", "[]"))),
            tokens=int(metadata.get("tokens", 0)),
            title=str(metadata.get("title", "")),
            section_path=str(metadata.get("section_path", "")),
            depth=int(metadata.get("depth", 0)),
            has_code=bool(metadata.get("has_code", False)),
            part=int(metadata.get("part", 1)),
            parts=int(metadata.get("parts", 1)),
            doc_version=str(metadata.get("doc_version", "")),
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view with every field (for `--json`, results and the UI)."""
        data = self.to_metadata()
        data.update(
            chunk_id=self.chunk_id,
            text=self.text,
            covers=list(self.covers),
            tags=list(self.tags),
            ref_ids=list(self.ref_ids),
            payload_of=list(self.payload_of),
        )
        return data
