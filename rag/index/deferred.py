"""Chunks set aside at ingest and embedded afterwards, so that a new spec is searchable sooner.

What is set aside is named by *parts*: a whole strategy (`naive`) or one kind of a strategy's chunks
(`smart:schema`). Ingest embeds first what the default configuration needs at once and may set parts aside
(`Index.add(defer=...)`, `rag.config.set_aside_parts`: the smart strategy's schema chunks, which `full` ranks after
the operations anyway, then the naive JSON windows only the C0 baseline searches — together most of a large spec's
word pieces). The document goes live at once; its set-aside chunks are kept in the registry (`deferred_chunks`) and
its record lists their parts as `pending`, in the order they are embedded. A snapshot leaves out every pending
part's chunks, so a configuration that searches one is told so (the retrieve stage notes it; `Snapshot.pending`)
instead of answering from part of them without saying so.

`complete_pending` embeds them: in the background in the app, the REST and the MCP servers
(`complete_in_background`), after the spec went live in `rag ingest` (the parts `full` searches), or when first
needed (`rag ask`/`rag eval`, an evaluation run: what their configurations search). Each batch is embedded outside
the write lock (the embedding cache keeps its vectors), stored under it while the version is still live, and the
part leaves `pending` in one registry transaction once every chunk is stored. An interrupted run leaves some of
them stored but invisible (the part is still pending); the next run stores them again (the cache makes that
cheap) and finishes.
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from rag.chunk import Chunk
from rag.index.collections import Readiness, embed_then_store, embedding_batches
from rag.index.embedder import Embedder
from rag.index.registry import DeferredRow, DocumentRecord, Registry

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]  # (source, chunks done, chunks to do)


def part_strategy(part: str) -> str:
    """The strategy a part belongs to (`smart:schema` → smart, `naive` → naive)."""
    return part.partition(":")[0]


def part_kind(part: str) -> str:
    """The kind of chunk a part holds ("" for a whole strategy)."""
    return part.partition(":")[2]


def in_part(chunk: Chunk, part: str) -> bool:
    """Whether `chunk` belongs to `part`."""
    return chunk.strategy == part_strategy(part) and (not part_kind(part) or chunk.kind == part_kind(part))


def part_label(part: str) -> str:
    """`schema chunks` (one kind of a strategy's), `naive chunks` (a whole strategy)."""
    return f"{part_kind(part) or part_strategy(part)} chunks"


def asked_for(part: str, asked: Collection[str] | None) -> bool:
    """Whether `asked` (parts or strategies; None: every one) names `part` or its strategy."""
    return asked is None or part in asked or part_strategy(part) in asked


def set_aside(chunks: Iterable[Chunk], parts: Sequence[str]) -> tuple[list[Chunk], dict[str, list[Chunk]]]:
    """The chunks to embed now, and those of `parts` to set aside (each in the first part it belongs to; the parts
    that hold none left out, the others in the order of `parts`)."""
    now: list[Chunk] = []
    later: dict[str, list[Chunk]] = {part: [] for part in parts}
    for chunk in chunks:
        part = next((p for p in parts if in_part(chunk, p)), None)
        (now if part is None else later[part]).append(chunk)
    return now, {part: found for part, found in later.items() if found}


class Index(Protocol):
    """What completing set-aside chunks needs of the index (rag.index.store.Index)."""

    directory: Path
    embedder: Embedder
    registry: Registry

    def documents(self) -> list[DocumentRecord]: ...
    def pending(self, strategies: Collection[str] | None = None) -> list[PendingWork]: ...
    def wait_for_writers(self) -> None: ...
    def store_pending(self, version: str, part: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> bool: ...
    def finish_pending(self, version: str, part: str) -> bool: ...


@dataclass(frozen=True)
class PendingWork:
    """One live document version's chunks of one part, set aside and not embedded yet."""

    source: str
    api: str
    version: str
    part: str
    count: int


def deferred_rows(later: Mapping[str, Sequence[Chunk]]) -> list[DeferredRow]:
    """The registry rows that keep the chunks of each part (`set_aside`'s) until they are embedded."""
    return [(part, c.chunk_id, c.text, json.dumps(c.to_metadata())) for part, chunks in later.items() for c in chunks]


def chunks_of(rows: Sequence[DeferredRow]) -> list[Chunk]:
    """The chunks registry rows kept (`deferred_rows` read back)."""
    return [Chunk.from_metadata(chunk_id, text, json.loads(metadata)) for _, chunk_id, text, metadata in rows]


def pending_work(records: Iterable[DocumentRecord], asked: Collection[str] | None = None) -> list[PendingWork]:
    """What is set aside in the live documents `records` (the parts `asked` names, by part or strategy; None: every
    one), in the order it is embedded: every document's first pending part, then their second ones, …"""
    found = [(position, PendingWork(r.source, r.api, r.version, part, r.pending_count(part)))
             for r in records for position, part in enumerate(r.pending) if asked_for(part, asked)]
    return [work for _, work in sorted(found, key=lambda item: item[0])]


def searchable_versions(records: Iterable[DocumentRecord]) -> Readiness:
    """Strategy → the live versions with stored, searchable chunks of it → the kinds of them still hidden (a pending
    part of that kind, `smart:schema`); a version whose whole strategy is pending is left out."""
    ready: Readiness = {}
    for record in records:
        for strategy, count in record.chunk_counts.items():
            if count and strategy not in record.pending:
                ready.setdefault(strategy, {})[record.version] = frozenset(
                    part_kind(part) for part in record.pending if part_strategy(part) == strategy)
    return ready


def searchable_counts(records: Iterable[DocumentRecord]) -> dict[str, int]:
    """Strategy → how many chunks the vector store must hold for the live documents (pending ones left out)."""
    expected: dict[str, int] = {}
    for record in records:
        for strategy, count in record.chunk_counts.items():
            hidden = sum(record.pending_count(part) for part in record.pending if part_strategy(part) == strategy)
            expected[strategy] = expected.get(strategy, 0) + max(0, count - hidden)
    return expected


def pending_apis(records: Iterable[DocumentRecord]) -> dict[str, tuple[str, ...]]:
    """Part → the APIs with chunks of it that are not embedded yet."""
    found: dict[str, set[str]] = {}
    for record in records:
        for part in record.pending:
            found.setdefault(part, set()).add(record.api)
    return {part: tuple(sorted(apis)) for part, apis in sorted(found.items())}


def complete_pending(index: Index, asked: Collection[str] | None = None, progress: Progress | None = None,
                     stop: threading.Event | None = None) -> int:
    """Embed and store the set-aside chunks of the live documents (of the parts `asked` names, by part or
    strategy; None: all), each part made searchable as soon as all its chunks of one document are stored. Waits for
    a writer that holds the index (an upload goes first). Returns how many chunks were stored; `stop` ends it
    between two batches."""
    stored = 0
    for work in pending_work(index.documents(), asked):
        done, finished = _complete_work(index, work, progress, stop)
        stored += done
        if finished:
            index.finish_pending(work.version, work.part)
        if stop is not None and stop.is_set():
            return stored
    return stored


def _complete_work(index: Index, work: PendingWork, progress: Progress | None,
                   stop: threading.Event | None) -> tuple[int, bool]:
    """Embed and store one document's chunks of one part (`embed_then_store`, after any writer that holds the
    index, an upload, is done): (how many were stored, whether all were). A store refused because the version was
    replaced or deleted meanwhile (or the part finished by another process) ends it."""
    batches = embedding_batches(chunks_of(index.registry.deferred(work.version, work.part)))
    done, total = 0, sum(len(batch) for batch in batches)

    def stored(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(work.source, done, total)

    def store(batch: list[Chunk], vectors: np.ndarray) -> bool:
        return index.store_pending(work.version, work.part, batch, vectors)

    if batches:
        index.wait_for_writers()
    finished = embed_then_store(batches, index.embedder, store, stored,
                                lambda: stop is not None and stop.is_set())
    return done, finished


def describe_pending(work: Sequence[PendingWork]) -> str:
    """`1,619 schema chunks of openai; 1,620 naive chunks of openai` (counted per part, in the order they are
    embedded, the APIs named)."""
    per_part: dict[str, list[PendingWork]] = {}
    for item in work:
        per_part.setdefault(item.part, []).append(item)
    return "; ".join(f"{sum(i.count for i in items):,} {part_label(part)} of "
                     f"{', '.join(sorted({i.api for i in items}))}" for part, items in per_part.items())


_background_lock = threading.Lock()
_background: dict[int, tuple[weakref.ref[Index], threading.Thread]] = {}


def complete_in_background(index: Index) -> threading.Thread | None:
    """Embed the index's set-aside chunks in a background thread (one per index: a call while it runs returns it;
    it picks up what later uploads set aside before it ends). None when nothing is pending."""
    with _background_lock:
        known = _background.get(id(index))
        if known is not None and known[0]() is index and known[1].is_alive():
            return known[1]
        if not index.pending():
            return None
        thread = threading.Thread(target=_complete_until_done, args=(index,), name="specrag-deferred", daemon=True)
        _background[id(index)] = (weakref.ref(index), thread)
        thread.start()
        return thread


def _complete_until_done(index: Index) -> None:
    """The background thread: complete until nothing is pending (or nothing could be done: another process is on
    it, or an error, which is logged and left for the next upload or start to retry)."""
    while True:
        try:
            stored = complete_pending(index)
        except Exception:  # a background thread has no caller to raise to; the work stays pending
            log.exception("embedding the set-aside chunks of %s failed; they stay pending", index.directory)
            stored = 0
        with _background_lock:
            if stored == 0 or not index.pending():
                _background.pop(id(index), None)
                return

