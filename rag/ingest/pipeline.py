"""From a file's bytes to a parsed document: validation, routing by type, chunking."""

from __future__ import annotations

import hashlib
import json
import posixpath
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rag.chunk import Chunk, described
from rag.errors import IngestError
from rag.ingest.bundle import SpecFiles, bundle, file_refs, is_split
from rag.ingest.docs import chunk_document
from rag.ingest.loader import SPEC_EXTENSIONS, decode_text, openapi_document, parse_structured
from rag.ingest.openapi import chunk_openapi
from rag.ingest.spec import api_name_from_source
from rag.ingest.uploads import find_root, folder_files, zip_files
from rag.ingest.validate import validate_upload

# File names that say only "a spec": a split spec whose root is called so is named after its folder or zip.
GENERIC_ROOT_NAMES = frozenset({"openapi", "swagger", "api", "spec", "index", "main", "root"})

# Bump when chunking changes what chunks contain (their text or their fields, such as the operation facts):
# re-ingesting an unchanged file then replaces its chunks, so a persisted index gets the new fields. It changes every
# chunk id's version prefix, which no ordering reads (`rag.index.exact.order_key`).
CHUNKER_VERSION = "2026.12.02.5"  # an operation's `opening`: its description's first paragraph past its headings


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
    notes: tuple[str, ...] = ()  # what the reader should know about how it was read ("converted from Swagger 2.0")

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


def parse_document(name: str, data: bytes, api: str | None = None, version: str | None = None,
                   files: SpecFiles | None = None, root: str = "") -> ParsedDocument:
    """Validate and chunk one file given by name and bytes; raises IngestError naming the problem.

    `.json`/`.yaml`/`.yml` must be OpenAPI 3.x or Swagger 2.0 (converted to 3.0); one split over files (see
    `rag.ingest.bundle.is_split`) is bundled with them from `files` (its folder, where it is `root`; none for a
    lone upload). A `.zip` holds one spec split over files. `.md .markdown .txt .rst .html .htm .pdf` are docs.
    `version` labels an OpenAPI document (default: its `info.version`, else today's date).
    """
    source = validate_upload(name, data)
    if source.lower().endswith(".zip"):
        return parse_zip(source, data, api, version)
    if source.lower().endswith(SPEC_EXTENSIONS):
        text = decode_text(source, data)
        if not text.strip():
            raise IngestError(source, "the file is empty")
        parsed = parse_structured(source, text)
        upload = files or SpecFiles("", lambda path: data if path == source else None)
        if file_refs(text) and is_split(parsed, text, upload, root or source):
            bundled = bundle(upload, root or source)
            return spec_document(source, bundled.document, data, api, version, len(bundled.files))
        return spec_document(source, parsed, data, api, version)
    chunks = chunk_document(source, data)
    if not chunks:
        raise IngestError(source, "no text found to index")
    return ParsedDocument(
        source=source,
        api=chunks[0].api,
        doc_type="doc",
        content_hash=hashlib.sha256(data).hexdigest(),
        chunks=tuple(chunks),
        size_bytes=len(data),
        title=chunks[0].title or source,
    )


def wordless_note(chunks: Sequence[Chunk]) -> str:
    """What the reader should know of operations the spec says nothing about in words: how many have no summary
    or description (and of those, no operationId either); "" when every operation has one."""
    operations = [c for c in chunks if c.kind == "operation"]
    silent = [c for c in operations if not described(c)]
    if not silent:
        return ""
    unnamed = sum(1 for c in silent if not c.operation_id.strip())
    consequence = "a question in other words than their names, paths and fields finds them less often"
    if len(operations) == 1:
        missing = "summary, description or operationId" if unnamed else "summary or description"
        return (f"its one operation has no {missing}: a question in other words than its name, path and fields "
                "finds it less often")
    if unnamed == len(operations):
        return f"none of its {unnamed} operations has a summary, description or operationId: {consequence}"
    also = f", {unnamed} of them no operationId either" if unnamed else ""
    return f"{len(silent)} of {len(operations)} operations have no summary or description{also}: {consequence}"


def nameless_note(parameters: Sequence[str]) -> str:
    """What ingest left out of a spec for having no name (OpenAPI requires one): "" when nothing."""
    if not parameters:
        return ""
    shown = ", ".join(parameters[:3]) + (f" and {len(parameters) - 3} more" if len(parameters) > 3 else "")
    return f"{len(parameters)} parameter{'s' if len(parameters) > 1 else ''} without a name left out: {shown}"


def spec_document(source: str, parsed: Any, data: bytes, api: str | None, version: str | None,
                  bundled_files: int = 0) -> ParsedDocument:
    """A parsed OpenAPI (or Swagger 2.0) document validated, converted and chunked. A bundle's content hash is
    that of the bundled document, so a change in any of its files is a change."""
    document, converted_from = openapi_document(source, parsed)
    api_name = api or api_name_from_source(source)
    result = chunk_openapi(document, api_name, source)
    info = document.get("info") if isinstance(document.get("info"), dict) else {}
    label = (version or "").strip() or str(info.get("version") or "").strip() or time.strftime("%Y-%m-%d")
    notes = ([f"bundled from {bundled_files} files"] if bundled_files > 1 else []) + \
        ([f"converted from Swagger {converted_from} to OpenAPI 3.0"] if converted_from else []) + \
        [note for note in (wordless_note(result.smart), nameless_note(result.nameless_parameters)) if note]
    content = json.dumps(parsed, sort_keys=True).encode() if bundled_files else data
    return ParsedDocument(
        source=source,
        api=api_name,
        doc_type="openapi",
        content_hash=hashlib.sha256(content).hexdigest(),
        chunks=tuple(result.smart + result.naive),
        size_bytes=len(data),
        title=str(info.get("title", api_name)),
        unresolved_refs=tuple(result.unresolved_refs),
        api_version=label,
        labelled=bool((version or "").strip()),
        spec_version=str(info.get("version") or "").strip(),
        spec=document,
        notes=tuple(notes),
    )


def split_spec_name(root: str, container: str) -> str:
    """The API name of a split spec: its root file's (`DigitalOcean-public.v2.yaml` → `digitalocean-public_v2`),
    or its folder's or zip's when the root's name says only "a spec" (`openapi.yaml`)."""
    name = api_name_from_source(posixpath.basename(root))
    if name in GENERIC_ROOT_NAMES:
        return api_name_from_source(container.removesuffix(".zip").removesuffix(".ZIP"))
    return name


def parse_zip(source: str, data: bytes, api: str | None = None, version: str | None = None) -> ParsedDocument:
    """A zip holding one spec split over files: its root found (`rag.ingest.uploads.find_root`), bundled and
    chunked under the zip's name."""
    files = zip_files(source, data)
    root, why = find_root(files)
    root_data = files.read(root) or b""
    parsed = parse_document(posixpath.basename(root), root_data, api or split_spec_name(root, source), version,
                            files, root)
    notes = (*parsed.notes, why) if why else parsed.notes
    return replace(parsed, source=source, size_bytes=len(data), notes=notes)


def parse_path(path: Path | str, version: str | None = None) -> ParsedDocument:
    """Read a file from disk and parse it (see `parse_document`); a spec that refers to other files is bundled
    with the files of its folder and named `folder/file`."""
    path = Path(path)
    if not path.is_file():
        raise IngestError(str(path), "no such file")
    data = path.read_bytes()
    if not (path.name.lower().endswith(SPEC_EXTENSIONS) and file_refs(data.decode("utf-8", "replace"))):
        return parse_document(path.name, data, version=version)
    folder = path.resolve().parent
    parsed = parse_document(path.name, data, split_spec_name(path.name, folder.name), version, folder_files(folder))
    if not any(note.startswith("bundled") for note in parsed.notes):  # its refs named only itself
        return parse_document(path.name, data, version=version)
    return replace(parsed, source=f"{folder.name}/{path.name}")
