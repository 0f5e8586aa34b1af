"""Opening the index from settings, ingesting files, and finding the default corpus."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.crawl.spec_url import FetchedSpec, url_api_name
from rag.errors import ConfigError, IndexUnavailableError, IngestError, RagError
from rag.index.collections import embedding_order, embedding_text
from rag.index.deferred import set_aside
from rag.index.embedder import CachedEmbedder, Embedder, load_embedder
from rag.index.progress import IngestTracker
from rag.index.store import DuplicatePolicy, Index, IngestReport
from rag.ingest.loader import SPEC_EXTENSIONS
from rag.ingest.pipeline import ParsedDocument, parse_document, parse_path
from rag.ingest.uploads import folder_files, referenced_files
from rag.ingest.validate import ALLOWED_EXTENSIONS
from rag.settings import PROJECT_ROOT, STACKONE_SPEC_NAMES, Settings

STACKONE_SPEC_URL = "https://api.eu1.stackone.com/oas/{name}.json"
DEFAULT_DOWNLOAD_DIR = PROJECT_ROOT / "data" / "specs"

_open_lock = threading.Lock()
_open_indexes: dict[tuple[str, str, str, str], Index] = {}


def make_chroma_client(settings: Settings) -> Any | None:
    """A Chroma HTTP client when RAG_CHROMA_URL is set, else None (embedded store)."""
    if not settings.chroma_url:
        return None
    from urllib.parse import urlparse

    import chromadb
    from chromadb.config import Settings as ChromaSettings

    url = urlparse(settings.chroma_url)
    try:
        return chromadb.HttpClient(
            host=url.hostname or "127.0.0.1",
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            settings=ChromaSettings(anonymized_telemetry=False),
        )
    except Exception as error:
        raise IndexUnavailableError(
            f"cannot reach the Chroma server at RAG_CHROMA_URL={settings.chroma_url!r} ({error}); start it with "
            "`chroma run --path DIR --host 127.0.0.1 --port N`, or unset RAG_CHROMA_URL to use the embedded store"
        ) from None


def open_index(settings: Settings, embedder: Embedder | None = None) -> Index:
    """Open (once per process and folder) the index described by `settings`."""
    key = (str(Path(settings.index_dir).resolve()), settings.chroma_url, settings.embedding_model,
           settings.embedding_backend)
    with _open_lock:
        if embedder is None and key in _open_indexes:
            return _open_indexes[key]
        inner = embedder or load_embedder(settings.embedding_model, settings.embedding_backend, settings.onnx_cache)
        cached = CachedEmbedder(inner, settings.embedding_cache)
        try:
            index = Index(settings.index_dir, cached, chroma_client=make_chroma_client(settings))
        except RagError:
            raise
        except Exception as error:
            raise IndexUnavailableError(
                f"the index in {settings.index_dir} cannot be opened ({type(error).__name__}: {error}); "
                f"rebuild it: remove that folder and run `python -m rag ingest <specs>` (or `make index`)"
            ) from error
        if embedder is None:
            _open_indexes[key] = index
        return index


def expand_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Files named directly, plus the supported files inside named folders (sorted), except the files of a folder
    that a spec split over files refers to (its parts: they are bundled into it, `rag.ingest.bundle`)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in ALLOWED_EXTENSIONS)
            specs = [p.name for p in files if p.name.lower().endswith(SPEC_EXTENSIONS)]
            parts = referenced_files(folder_files(path), specs)
            found.extend(p for p in files if p.name not in parts)
        else:
            found.append(path)
    return found


def ingest_paths(
    index: Index,
    paths: Sequence[Path | str],
    on_duplicate: DuplicatePolicy = "replace",
    progress: Callable[[str, int, int], None] | None = None,
    on_file: Callable[[int, int, Path, IngestReport | None], None] | None = None,
    version: str | None = None,
    defer: Collection[str] = (),
    tracker: IngestTracker | None = None,
) -> list[IngestReport]:
    """Parse and index each file; a bad file gets an `error`/`rejected` report and is not added.

    `progress(source, chunks_done, chunks_total)` follows the embedding of each file's chunks;
    `on_file(position, count, path, report)` is called before each file (report None) and after it; `tracker`
    (rag.index.progress, made for these files) is told each stage. `version` labels every spec (default: each
    spec's info.version, else today's date); a label an API does not have yet keeps the new version beside the
    indexed ones. The chunks of the parts in `defer` are set aside and embedded later (rag.index.deferred).
    """
    reports: list[IngestReport] = []
    files = expand_paths(paths)
    for position, path in enumerate(files, start=1):
        if tracker is not None:
            tracker.start_file(position)
        if on_file is not None:
            on_file(position, len(files), path, None)
        try:
            parsed = parse_path(path, version=version)
            reports.append(index.add(parsed, on_duplicate=on_duplicate, defer=defer,
                                     progress=_reporter(parsed, defer, progress, tracker)))
        except IngestError as error:
            status = "rejected" if "already" in error.problem else "error"
            reports.append(IngestReport(error.source, status, message=str(error)))  # type: ignore[arg-type]
        except OSError as error:
            reports.append(IngestReport(str(path), "error", message=f"{path}: cannot read the file ({error})"))
        if tracker is not None:
            tracker.finish_file()
        if on_file is not None:
            on_file(position, len(files), path, reports[-1])
    return reports


def _reporter(parsed: ParsedDocument, defer: Collection[str], progress: Callable[[str, int, int], None] | None,
              tracker: IngestTracker | None) -> Callable[[int, int], None] | None:
    """The embedding progress callback of one parsed file: it tells `progress` (by source) and the tracker, which
    learns first what the file embeds now."""
    if tracker is not None:
        tracker.parsed(embedding_texts(parsed, defer))

    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(parsed.source, done, total)
        if tracker is not None:
            tracker.embedded(done)

    return report if progress is not None or tracker is not None else None


def embedding_texts(parsed: ParsedDocument, defer: Collection[str] = ()) -> list[str]:
    """The texts `Index.add` embeds now for a parsed document (the parts in `defer` set aside), in its order."""
    return [embedding_text(chunk) for chunk in embedding_order(set_aside(parsed.chunks, tuple(defer))[0])]


def ingest_fetched_spec(index: Index, fetched: FetchedSpec, version: str | None = None,
                        progress: Callable[[int, int], None] | None = None,
                        defer: Collection[str] = ()) -> IngestReport:
    """Index a spec fetched from a URL under that URL. Fetched again: the same content is `skipped` ("unchanged");
    changed content is a new version kept beside the indexed ones, labelled `version`, else its `info.version`
    when no version of the API has that label yet, else today's date (`rag.index.versions`). The chunks of the
    parts in `defer` are set aside and embedded later (rag.index.deferred)."""
    try:
        api = url_api_name(fetched.url, fetched.name)
        parsed = replace(parse_document(fetched.name, fetched.data, api=api, version=version), source=fetched.url)
    except IngestError as error:
        return IngestReport(fetched.url, "error", message=f"{fetched.url}: {error.problem}")
    records = index.documents()
    earlier = [r for r in records if r.doc_type == "openapi"
               and (r.source == fetched.url or r.source.startswith(fetched.url + "@"))]
    same = [r for r in earlier if r.content_hash == parsed.content_hash]
    if same:
        record = same[-1]
        for labelled in (False, True):
            if replace(parsed, api_version=record.api_version, labelled=labelled).version == record.version:
                return IngestReport(record.source, "skipped", record.api, record.chunk_counts, 0.0,
                                    f"unchanged: the content is that of version {record.api_version}")
        parsed = replace(parsed, api_version=record.api_version, labelled=record.source != fetched.url)
    elif earlier:
        taken = {r.api_version for r in records if r.api == parsed.api}
        label = next((c for c in (version, parsed.spec_version, time.strftime("%Y-%m-%d"),
                                  time.strftime("%Y-%m-%dT%H%M%S")) if c and c not in taken), None)
        parsed = replace(parsed, api_version=label or parsed.api_version, labelled=True)
    try:
        return index.add(parsed, on_duplicate="replace", progress=progress, defer=defer)
    except IngestError as error:
        return IngestReport(fetched.url, "error", message=f"{fetched.url}: {error.problem}")


def find_default_specs(settings: Settings) -> Path | None:
    """The folder of the default corpus: RAG_SPECS_DIR, else `data/specs` if fetch-specs filled it."""
    if settings.specs_dir is not None:
        if not settings.specs_dir.is_dir():
            raise ConfigError(f"RAG_SPECS_DIR={str(settings.specs_dir)!r} is not a folder")
        return settings.specs_dir
    if DEFAULT_DOWNLOAD_DIR.is_dir() and any(DEFAULT_DOWNLOAD_DIR.glob("*.json")):
        return DEFAULT_DOWNLOAD_DIR
    return None


NO_SPECS_HELP = (
    "No specs to index. Do one of:\n"
    "  * point at a folder of OpenAPI specs:  RAG_SPECS_DIR=/path/to/specs make run\n"
    "    (in this workspace: RAG_SPECS_DIR=../shared/specs/stackone)\n"
    "  * download StackOne's 7 specs (needs internet):  .venv/bin/python -m rag fetch-specs --dest data/specs\n"
    "  * or index your own files:  .venv/bin/python -m rag ingest PATH..."
)


def fetch_specs(dest: Path, names: Sequence[str] = STACKONE_SPEC_NAMES, timeout: float = 30.0) -> list[Path]:
    """Download StackOne's specs into `dest` (all or nothing); raises RagError when offline."""
    dest.mkdir(parents=True, exist_ok=True)
    downloaded: dict[str, bytes] = {}
    for name in names:
        url = STACKONE_SPEC_URL.format(name=name)
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - fixed https URL
                data = response.read()
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            raise RagError(f"cannot download {url}: {getattr(error, 'reason', error)} (are you offline?)") from None
        try:
            json.loads(data)
        except json.JSONDecodeError:
            raise RagError(f"{url} did not return JSON") from None
        downloaded[name] = data
    written: list[Path] = []
    for name, data in downloaded.items():
        target = dest / f"{name}.json"
        temporary = target.with_suffix(".json.part")
        temporary.write_bytes(data)
        temporary.replace(target)
        written.append(target)
    return written
