"""The OpenAPI documents an index keeps of each version, read without opening the vector store: `rag diff
API@A API@B` and other readers that only need the registry and the kept specs load no embedding model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rag.errors import IndexUnavailableError
from rag.index.registry import DocumentRecord, read_documents

REGISTRY_FILE = "registry.sqlite3"


def spec_path(directory: Path | str, version: str) -> Path:
    """Where the parsed OpenAPI document of one stored version is kept in an index folder."""
    return Path(directory) / "specs" / f"{version}.json"


def read_spec(directory: Path | str, version: str) -> dict[str, Any] | None:
    """The OpenAPI document kept for one indexed version (None when it was indexed before specs were kept)."""
    path = spec_path(directory, version)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


class KeptSpecs:
    """An existing index folder's registry and kept specs; IndexUnavailableError (naming the folder) when there
    is no index there: nothing is created."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        if not (self.directory / REGISTRY_FILE).is_file():
            raise IndexUnavailableError(
                f"no index in {self.directory}: give the --index-dir of an index (or set RAG_INDEX_DIR), or index "
                "the versions first with `python -m rag ingest SPEC --version LABEL`")

    def documents(self) -> list[DocumentRecord]:
        """The live documents, every version of each API included."""
        return read_documents(self.directory / REGISTRY_FILE)

    def spec_of(self, record: DocumentRecord) -> dict[str, Any] | None:
        """The OpenAPI document of an indexed version (None when it was indexed before specs were kept)."""
        return read_spec(self.directory, record.version)
