"""From a file's bytes to a parsed document: validation, routing by type, chunking."""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.chunk import Chunk
from rag.errors import IngestError
from rag.ingest.docs import chunk_document
from rag.ingest.loader import SPEC_EXTENSIONS, decode_text, parse_structured, validate_openapi
from rag.ingest.openapi import chunk_openapi
from rag.ingest.spec import api_name_from_source
from rag.ingest.validate import validate_upload

# Bump when chunking changes what chunks contain (their text or their fields, such as the operation facts):
# re-ingesting an unchanged file then replaces its chunks, so a persisted index gets the new fields.
CHUNKER_VERSION = "2026.11.28b"  # descriptions and pages as clean text; a crawled site one API; request examples


@dataclass(frozen=True)
class ParsedDocument:
    """A validated, chunked document, not yet in any index."""

    source: str
    api: str
    doc_type: str  # "openapi" | "doc"
    content_hash: str
    chunks: tuple[Chunk, ...]
    size_bytes: int
    title: str = ""
    unresolved_refs: tuple[str, ...] = field(default_factory=tuple)
    api_version: str = ""  # an OpenAPI document's version label (`--version`, else info.version, else the date)
    labelled: bool = False  # whether the label was given (`--version`) rather than read from the spec
    spec_version: str = ""  # the spec's own `info.version`
    spec: dict[str, Any] | None = field(default=None, compare=False, repr=False)  # the parsed OpenAPI document

    @property
    def version(self) -> str:
        """Short hash of source name, content and chunker version identifying this version of the chunks (and
        of the label, when one was given: one file may be kept under two labels)."""
        key = f"{self.source}\x00{self.content_hash}\x00{CHUNKER_VERSION}"
        if self.labelled:
            key += f"\x00{self.api_version}"
        return hashlib.sha256(key.encode()).hexdigest()[:12]

    def chunk_counts(self) -> dict[str, int]:
        """Number of chunks per strategy."""
        counts: dict[str, int] = {}
        for chunk in self.chunks:
            counts[chunk.strategy] = counts.get(chunk.strategy, 0) + 1
        return counts


def parse_document(name: str, data: bytes, api: str | None = None, version: str | None = None) -> ParsedDocument:
    """Validate and chunk one file given by name and bytes; raises IngestError naming the problem.

    `.json`/`.yaml`/`.yml` must be OpenAPI 3.x; `.md .markdown .txt .rst .html .htm .pdf` are docs. `version`
    labels an OpenAPI document (default: its `info.version`, else today's date).
    """
    source = validate_upload(name, data)
    content_hash = hashlib.sha256(data).hexdigest()
    if source.lower().endswith(SPEC_EXTENSIONS):
        text = decode_text(source, data)
        if not text.strip():
            raise IngestError(source, "the file is empty")
        document = validate_openapi(source, parse_structured(source, text))
        api_name = api or api_name_from_source(source)
        result = chunk_openapi(document, api_name, source)
        info = document.get("info") if isinstance(document.get("info"), dict) else {}
        label = (version or "").strip() or str(info.get("version") or "").strip() or time.strftime("%Y-%m-%d")
        return ParsedDocument(
            source=source,
            api=api_name,
            doc_type="openapi",
            content_hash=content_hash,
            chunks=tuple(result.smart + result.naive),
            size_bytes=len(data),
            title=str(info.get("title", api_name)),
            unresolved_refs=tuple(result.unresolved_refs),
            api_version=label,
            labelled=bool((version or "").strip()),
            spec_version=str(info.get("version") or "").strip(),
            spec=document,
        )
    chunks = chunk_document(source, data)
    if not chunks:
        raise IngestError(source, "no text found to index")
    return ParsedDocument(
        source=source,
        api=chunks[0].api,
        doc_type="doc",
        content_hash=content_hash,
        chunks=tuple(chunks),
        size_bytes=len(data),
        title=chunks[0].title or source,
    )


def parse_path(path: Path | str, version: str | None = None) -> ParsedDocument:
    """Read a file from disk and parse it (see `parse_document`)."""
    path = Path(path)
    if not path.is_file():
        raise IngestError(str(path), "no such file")
    return parse_document(path.name, path.read_bytes(), version=version)

