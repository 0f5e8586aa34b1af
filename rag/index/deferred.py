"""Chunks set aside at ingest and embedded afterwards, so that a new spec is searchable sooner.

Ingest embeds first the strategies the default configuration searches (`full`, and C1–C3 alike: smart chunks and
docs) and may set the others aside (`Index.add(defer=...)`: the naive JSON windows only the C0 baseline searches,
about half of a large spec's chunks and most of its word pieces). The document goes live at once; its set-aside
chunks are kept in the registry (`deferred_chunks`) and its record lists their strategy as `pending`. A snapshot
leaves out every pending strategy's chunks, so a configuration that searches one is told so (the retrieve stage
notes it; `Snapshot.pending`) instead of answering from part of them.

`complete_pending` embeds them: in the background in the app, the REST and the MCP servers
(`complete_in_background`), or when first needed (`rag ask`/`rag eval` with C0, an evaluation run). Each batch is
embedded outside the write lock (the embedding cache keeps its vectors), stored under it while the version is still
live, and the strategy leaves `pending` in one registry transaction once every chunk is stored. An interrupted run
leaves some of them stored but invisible (the strategy is still pending); the next run stores them again (the cache
makes that cheap) and finishes.
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
from rag.index.collections import embedding_batches, embedding_text
from rag.index.embedder import Embedder
from rag.index.registry import DeferredRow, DocumentRecord, Registry

log = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]  # (source, chunks done, chunks to do)


class Index(Protocol):
    """What completing set-aside chunks needs of the index (rag.index.store.Index)."""

    directory: Path
    embedder: Embedder
    registry: Registry

    def documents(self) -> list[DocumentRecord]: ...
    def pending(self, strategies: Collection[str] | None = None) -> list[PendingWork]: ...
    def wait_for_writers(self) -> None: ...
    def store_pending(self, version: str, strategy: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> bool: ...
    def finish_pending(self, version: str, strategy: str) -> bool: ...


@dataclass(frozen=True)
class PendingWork:
    """One live document version's chunks of one strategy, set aside and not embedded yet."""

    source: str
    api: str
    version: str
    strategy: str
    count: int


def deferred_rows(chunks: Iterable[Chunk]) -> list[DeferredRow]:
    """The registry rows that keep `chunks` until they are embedded."""
    return [(c.strategy, c.chunk_id, c.text, json.dumps(c.to_metadata())) for c in chunks]


def chunks_of(rows: Sequence[DeferredRow]) -> list[Chunk]:
    """The chunks registry rows kept (`deferred_rows` read back)."""
    return [Chunk.from_metadata(chunk_id, text, json.loads(metadata)) for _, chunk_id, text, metadata in rows]


def pending_work(records: Iterable[DocumentRecord], strategies: Collection[str] | None = None) -> list[PendingWork]:
    """What is set aside in the live documents `records` (of `strategies`; None: every strategy)."""
    return [PendingWork(r.source, r.api, r.version, strategy, r.chunk_counts.get(strategy, 0))
            for r in records for strategy in r.pending if strategies is None or strategy in strategies]


def searchable_versions(records: Iterable[DocumentRecord]) -> dict[str, set[str]]:
    """Strategy → the live versions whose chunks of it are stored and searchable (not pending)."""
    ready: dict[str, set[str]] = {}
    for record in records:
        for strategy, count in record.chunk_counts.items():
            if count and strategy not in record.pending:
                ready.setdefault(strategy, set()).add(record.version)
    return ready


def searchable_counts(records: Iterable[DocumentRecord]) -> dict[str, int]:
    """Strategy → how many chunks the vector store must hold for the live documents (pending ones left out)."""
    expected: dict[str, int] = {}
    for record in records:
        for strategy, count in record.chunk_counts.items():
            if strategy not in record.pending:
                expected[strategy] = expected.get(strategy, 0) + count
    return expected


def pending_apis(records: Iterable[DocumentRecord]) -> dict[str, tuple[str, ...]]:
    """Strategy → the APIs with chunks of it that are not embedded yet."""
    found: dict[str, set[str]] = {}
    for record in records:
        for strategy in record.pending:
            found.setdefault(strategy, set()).add(record.api)
    return {strategy: tuple(sorted(apis)) for strategy, apis in sorted(found.items())}


def complete_pending(index: Index, strategies: Collection[str] | None = None, progress: Progress | None = None,
                     stop: threading.Event | None = None) -> int:
    """Embed and store the set-aside chunks of the live documents (of `strategies`; None: all), each strategy made
    searchable as soon as all its chunks of one document are stored. Waits for a writer that holds the index (an
    upload goes first). Returns how many chunks were stored; `stop` ends it between two batches."""
    stored = 0
    for work in pending_work(index.documents(), strategies):
        batches = embedding_batches(chunks_of(index.registry.deferred(work.version, work.strategy)))
        done, total = 0, sum(len(batch) for batch in batches)
        for batch in batches:
            if stop is not None and stop.is_set():
                return stored
            index.wait_for_writers()
            vectors = index.embedder.embed([embedding_text(chunk) for chunk in batch])
            if not index.store_pending(work.version, work.strategy, batch, vectors):
                break  # replaced or deleted meanwhile, or finished by another process
            done += len(batch)
            stored += len(batch)
            if progress is not None:
                progress(work.source, done, total)
        else:
            index.finish_pending(work.version, work.strategy)
    return stored


def describe_pending(work: Sequence[PendingWork]) -> str:
    """`1,620 naive chunks of openai` (several: counted per strategy, the APIs named)."""
    per_strategy: dict[str, list[PendingWork]] = {}
    for item in work:
        per_strategy.setdefault(item.strategy, []).append(item)
    return "; ".join(f"{sum(i.count for i in items):,} {strategy} chunks of {', '.join(sorted({i.api for i in items}))}"
                     for strategy, items in sorted(per_strategy.items()))


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


def pending_summary(pending: Mapping[str, Sequence[str]]) -> str:
    """`naive chunks of openai, stripe` for a snapshot's pending strategies ("" when none)."""
    return "; ".join(f"{strategy} chunks of {', '.join(apis)}" for strategy, apis in pending.items() if apis)
