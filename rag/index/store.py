"""The index: one Chroma collection per chunking strategy, BM25 per strategy, a document registry. Writes are
versioned (new chunks under a new version id, the registry switched in one transaction, then the old chunks
deleted); readers work on an immutable snapshot, so a crash mid-ingest leaves the previous version usable."""

from __future__ import annotations

import fcntl
import json
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np

from rag.chunk import STRATEGIES, Chunk
from rag.errors import DuplicateDocumentError, IndexUnavailableError, allowed
from rag.index.chroma_adapter import ChromaEmbeddingAdapter
from rag.index.collections import (
    approximate_search,
    delete_orphans,
    delete_version,
    forget_embedded_client,
    open_collections,
    persistent_client,
    read_chunks,
    read_vectors,
    store_embedded,
    write_chunks,
)
from rag.index.deferred import (
    PendingWork,
    complete_pending,
    deferred_rows,
    part_strategy,
    pending_work,
    searchable_counts,
    searchable_versions,
    set_aside,
)
from rag.index.embedder import Embedder
from rag.index.exact import RowArrays, cosine_scores, sorted_places, top_rows
from rag.index.kept_specs import REGISTRY_FILE, read_spec, spec_path
from rag.index.registry import DocumentRecord, Registry
from rag.index.report import IngestReport, index_stats, unresolved_note
from rag.index.snapshot import Snapshot
from rag.index.versions import (
    check_name_clash,
    registry_key,
    same_version,
    versions_of,
    visible_records,
)
from rag.ingest.pipeline import ParsedDocument

DuplicatePolicy = Literal["reject", "skip", "replace"]
DUPLICATE_POLICIES: tuple[str, ...] = ("reject", "skip", "replace")
SNAPSHOT_ATTEMPTS = 3  # optimistic reads of a changing index before one read under the write lock
# Up to this many live chunks per strategy, vector search is exact (a matrix product over the stored
# embeddings, ties broken by chunk id): approximate HNSW search, above all with an API filter, can miss
# the best match and order equal scores differently from run to run. Above it, Chroma's HNSW index.
EXACT_SEARCH_LIMIT = 50_000


class Index:
    """Persistent index under one folder (or a Chroma server), shared by every reader in a process."""

    def __init__(
        self,
        directory: Path | str,
        embedder: Embedder,
        chroma_client: Any | None = None,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.embedder = embedder
        self.registry = Registry(self.directory / REGISTRY_FILE)
        self._check_embedder()
        self._embedded_store = chroma_client is None
        self.client = chroma_client if chroma_client is not None else persistent_client(self.directory)
        self._adapter = ChromaEmbeddingAdapter(embedder)
        self._collections = open_collections(self.client, self._adapter)
        self._own_generation = -1
        self._write_lock = threading.Lock()
        self._snapshot_lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        self._every_chunk: tuple[int, list[Chunk], list[DocumentRecord]] = (-1, [], [])
        self._views: dict[tuple[int, frozenset[str]], Snapshot] = {}
        self._view_count = 0
        self._vectors: dict[tuple[int, str], tuple[tuple[str, ...], np.ndarray, np.ndarray]] = {}
        self._vectors_lock = threading.Lock()
        self._positions: dict[tuple[int, str], dict[str, int]] = {}
        self._rows = RowArrays()
        self.collect_orphans()
        self._check_complete()

    # ------------------------------------------------------------------ setup
    @property
    def backend(self) -> str:
        """How the embedding model runs in this process: `onnx`, `torch`, or "" (no local model)."""
        return str(getattr(getattr(self.embedder, "inner", self.embedder), "backend", ""))

    def _reopen_embedded_store(self) -> None:
        """Load what another process wrote: the embedded store caches its vector index per process."""
        forget_embedded_client(self.client)
        self.client = persistent_client(self.directory)
        self._collections = open_collections(self.client, self._adapter)

    def _check_embedder(self) -> None:
        """Record the model and backend in a new index; refuse another model (torch and ONNX runs of one model
        give the same vectors, checked at export, so either reads the index)."""
        stored = self.registry.get_meta("embedding_model")
        if stored is None:
            self.registry.set_meta("embedding_model", self.embedder.name)
            self.registry.set_meta("embedding_dimension", str(self.embedder.dimension))
            self.registry.set_meta("embedding_backend", self.backend)
        elif stored != self.embedder.name:
            raise IndexUnavailableError(
                f"the index in {self.directory} was built with embedding model {stored!r}, not "
                f"{self.embedder.name!r}; set RAG_EMBEDDING_MODEL={stored!r}, or choose another RAG_INDEX_DIR "
                "and re-ingest the specs there"
            )

    def _check_complete(self) -> None:
        """Refuse an index whose registry lists more chunks than the vector store holds (a deleted or
        replaced `chroma/` folder, or a Chroma server that lost its data): it would answer from nothing. Chunks set
        aside for later embedding are not counted (some of them may be stored already, by an interrupted run)."""
        for _ in range(3):
            generation = self.registry.generation()
            documents = self.registry.documents()
            expected = searchable_counts(documents)
            stored = {s: self._collections[s].count() for s in expected if s in self._collections}
            if self.registry.generation() != generation:
                continue  # another process switched a document meanwhile; look again
            missing = {s: (n, stored.get(s, 0)) for s, n in expected.items() if stored.get(s, 0) < n}
            if missing:
                strategy, (want, have) = next(iter(sorted(missing.items())))
                raise IndexUnavailableError(
                    f"the index in {self.directory} is incomplete: its registry lists {len(documents)} document(s) "
                    f"with {want} {strategy} chunks, but the vector store (its chroma/ folder or the Chroma "
                    f"server) holds {have}; rebuild it: remove that folder and run `python -m rag ingest <specs>` "
                    "(or `make index`)"
                )
            return

    @contextmanager
    def _exclusive(self, blocking: bool = True) -> Iterator[bool]:
        """Serialise writers across threads and processes (a lock file in the index folder)."""
        with self._write_lock, open(self.directory / ".write.lock", "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def collect_orphans(self) -> int:
        """Delete chunks of versions the registry does not point to (left by a crash); returns count."""
        with self._exclusive(blocking=False) as acquired:
            if not acquired:
                return 0
            return delete_orphans(self._collections, {record.version for record in self.registry.documents()})

    # ------------------------------------------------------------------ reading
    def snapshot(self) -> Snapshot:
        """The current immutable view, rebuilt when this or another process changed the index (a generation that
        changed while the chunks were read means reading again; the last try holds the write lock)."""
        generation = self.registry.generation()
        current = self._snapshot
        if current is not None and current.generation == generation:
            return current
        with self._snapshot_lock:
            foreign_write = generation != self._own_generation and not self._write_lock.locked()
            if self._snapshot is not None and self._embedded_store and foreign_write:
                self._reopen_embedded_store()
            for _ in range(SNAPSHOT_ATTEMPTS):
                generation = self.registry.generation()
                if self._snapshot is not None and self._snapshot.generation == generation:
                    return self._snapshot
                snapshot = self._read_snapshot(generation)
                if self.registry.generation() == generation:
                    self._snapshot = snapshot
                    return snapshot
            with self._exclusive():  # writers kept switching documents: read while they wait
                self._snapshot = self._read_snapshot(self.registry.generation())
                return self._snapshot

    def version_view(self, api_version: str, since: str = "") -> Snapshot:
        """The snapshot of a pinned version (`2025-02` for every API that has it, `lms@2025-02` for one); "" is
        the default view, the newest version of each API. `since` (a version label) shows the changes from that
        version to the newest rather than from the one before the newest. ConfigError when no such version is
        indexed."""
        snapshot = self.snapshot()
        if not api_version and not since:
            return snapshot
        every = self._every_chunk
        with self._snapshot_lock:
            if every[0] != snapshot.generation:  # another process wrote meanwhile: read again
                documents = self.registry.documents()
                every = self._every_chunk = (snapshot.generation, self._read_chunks(documents), documents)
        visible = visible_records(every[2], api_version, since)
        if {record.version for record in visible} == {record.version for record in snapshot.documents}:
            return snapshot  # the default view after all (`since` the version before the newest)
        key = (snapshot.generation, frozenset(record.version for record in visible))
        view = self._views.get(key)
        if view is None:
            live = {record.version for record in visible}
            # A view has its own generation (negative, unique) so that what is cached per generation
            # (vectors, profiles, calibrations) is never shared with another view.
            self._view_count += 1
            view = Snapshot.build(-self._view_count, [c for c in every[1] if c.doc_version in live], visible)
            self._views = {k: v for k, v in self._views.items() if k[0] == snapshot.generation}
            self._views[key] = view
        return view

    def _read_chunks(self, documents: list[DocumentRecord]) -> list[Chunk]:
        """Every searchable chunk of the live `documents` (all versions; those read before are kept): chunks set
        aside for later embedding are not, until they are embedded."""
        _, known, known_documents = self._every_chunk
        return read_chunks(self._collections, searchable_versions(documents), known,
                           searchable_versions(known_documents))

    def _read_snapshot(self, generation: int) -> Snapshot:
        """The default view: docs and the newest version of each API (on an index with one version of each,
        every live chunk)."""
        documents = self.registry.documents()
        every = self._read_chunks(documents)
        self._every_chunk = (generation, every, documents)
        live = {record.version for record in visible_records(documents)}
        return Snapshot.build(generation, [c for c in every if c.doc_version in live],
                              [r for r in documents if r.version in live])

    def is_empty(self) -> bool:
        """Whether no document is indexed."""
        return not self.registry.documents()

    def documents(self) -> list[DocumentRecord]:
        """The live documents, every version of each API and their changes included."""
        return self.registry.documents()

    def get_chunk(self, chunk_id: str) -> Chunk | None:
        """A live chunk by id."""
        return self.snapshot().chunks.get(chunk_id)

    def chunks_covering(self, structural_id: str, strategy: str | None = "smart") -> list[Chunk]:
        """Live chunks whose `covers` include `structural_id` (optionally of one strategy)."""
        snapshot = self.snapshot()
        found = [snapshot.chunks[i] for i in snapshot.by_cover.get(structural_id, ())]
        return [chunk for chunk in found if strategy is None or chunk.strategy == strategy]

    def structural_ids(self) -> set[str]:
        """Every structural id some live chunk covers."""
        return set(self.snapshot().by_cover)

    def vector_search(
        self, strategy: str, query_vector: np.ndarray, n: int, apis: Sequence[str] | None = None,
        snapshot: Snapshot | None = None, scores: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """Top `n` (chunk id, cosine similarity) from one strategy's collection, live chunks only; `scores`: this
        query's `exact_scores` when the caller has them (an exact search reuses them)."""
        snapshot = snapshot or self.snapshot()
        if strategy not in self._collections:
            raise allowed("strategy", strategy, STRATEGIES)
        if n <= 0 or not snapshot.by_strategy.get(strategy):
            return []
        if scores is None:
            scores = self.exact_scores(strategy, query_vector, snapshot)
        if scores is None:
            return approximate_search(self._collections[strategy], query_vector, n, apis, snapshot.chunks)
        ids, _, chunk_apis = self.stored_vectors(strategy, snapshot)
        scope = tuple(sorted(apis or ()))
        in_scope = self._rows.get((snapshot.generation, strategy, scope), chunk_apis,
                                  lambda: np.isin(chunk_apis, list(scope))) if scope else None
        return top_rows(ids, scores, n, in_scope, lambda: self._rows.get(
            ("id-places", snapshot.generation, strategy), ids, lambda: sorted_places(ids)))

    def exact_scores(self, strategy: str, query_vector: np.ndarray, snapshot: Snapshot) -> np.ndarray | None:
        """The cosine similarity of the query with every live chunk of one strategy, in `stored_vectors`' order
        (`cosine_scores`); None when the collection is too large to search exactly."""
        if strategy not in self._collections:
            raise allowed("strategy", strategy, STRATEGIES)
        total = len(snapshot.by_strategy.get(strategy, ()))
        if total > EXACT_SEARCH_LIMIT:
            return None
        if not total:
            return np.zeros(0, dtype=np.float32)
        return cosine_scores(self.stored_vectors(strategy, snapshot)[1], query_vector)

    def similarity(self, strategy: str, chunk_id: str, query_vector: np.ndarray, snapshot: Snapshot) -> float:
        """Cosine similarity between a query vector and one live chunk's stored embedding (0 when absent)."""
        return self.similarities(strategy, [chunk_id], query_vector, snapshot)[0]

    def similarities(
        self, strategy: str, chunk_ids: Sequence[str], query_vector: np.ndarray, snapshot: Snapshot
    ) -> list[float]:
        """`similarity` of each of several live chunks of one strategy, in their order."""
        ids, matrix, _ = self.stored_vectors(strategy, snapshot)
        key = (snapshot.generation, strategy)
        with self._vectors_lock:
            positions = self._positions.get(key)
            if positions is None:
                positions = {chunk_id: row for row, chunk_id in enumerate(ids)}
                self._positions = {key: positions}
        rows = [positions.get(chunk_id) for chunk_id in chunk_ids]
        norm = float(np.linalg.norm(query_vector))
        if norm == 0.0:
            return [0.0] * len(rows)
        query = np.asarray(query_vector, dtype=np.float32).ravel() / norm
        # Row by row, as the learned ranker's `vector` feature was trained on (a matrix product differs in the
        # last bits of float32).
        return [0.0 if row is None else float(matrix[row] @ query) for row in rows]

    def stored_vectors(self, strategy: str, snapshot: Snapshot) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
        """The live chunks' ids, unit-length stored embeddings and APIs of one strategy (read once per
        generation from the vector store, so they are exactly what the collection holds)."""
        key = (snapshot.generation, strategy)
        with self._vectors_lock:
            cached = self._vectors.get(key)
            if cached is not None:
                return cached
            ids = snapshot.by_strategy.get(strategy, ())
            found = read_vectors(self._collections[strategy], ids, snapshot.chunks)
            self._vectors = {k: v for k, v in self._vectors.items() if k[0] == snapshot.generation}
            self._vectors[key] = found
            return self._vectors[key]

    def bm25_search(
        self, strategy: str, query: str, n: int, apis: Sequence[str] | None = None, snapshot: Snapshot | None = None,
        scores: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """Top `n` (chunk id, BM25 score) from one strategy, optionally only some APIs; `scores`: the query's score
        of every chunk of the strategy when the caller has them (`BM25Index.query_scores`)."""
        snapshot = snapshot or self.snapshot()
        index = snapshot.bm25.get(strategy)
        if index is None:
            raise allowed("strategy", strategy, STRATEGIES)
        scope, ids = tuple(sorted(apis or ())), snapshot.by_strategy[strategy]
        in_scope = self._rows.get(("bm25", snapshot.generation, strategy, scope), ids,
                                  lambda: np.array([snapshot.chunks[i].api in scope for i in ids])) if scope else None
        return index.search(query, n, in_scope, scores)

    def stats(self) -> dict[str, Any]:
        """Counts per strategy, API and kind, plus the documents, the embedding model and what is not embedded yet."""
        return index_stats(self, self.snapshot())

    # ------------------------------------------------------------------ writing
    def add(
        self,
        document: ParsedDocument,
        on_duplicate: DuplicatePolicy = "replace",
        progress: Callable[[int, int], None] | None = None,
        defer: Collection[str] = (),
    ) -> IngestReport:
        """Add or replace one parsed document according to the duplicate policy.

        `reject`: error if the source is indexed; `skip`: keep the indexed one; `replace`
        (default): swap in the new content, or skip when the content is identical. The chunks of the parts in
        `defer` (`naive`, `smart:schema`: rag.index.deferred) are set aside, not embedded: the document is
        searchable without them at once, and they are embedded by `complete_pending`, in the order of `defer`.
        `progress(done, total)` follows the chunks embedded now.
        """
        if on_duplicate not in DUPLICATE_POLICIES:
            raise allowed("on_duplicate", on_duplicate, DUPLICATE_POLICIES)
        started = time.perf_counter()
        with self._exclusive():
            report = self._add_locked(document, on_duplicate, progress, started, tuple(defer))
        if document.doc_type == "openapi":
            from rag.versions.changes import refresh_changes

            refresh_changes(self, document.api)  # the changes of its two newest versions (made again if stale)
        return report

    def _add_locked(self, document: ParsedDocument, on_duplicate: DuplicatePolicy,
                    progress: Callable[[int, int], None] | None, started: float,
                    defer: tuple[str, ...]) -> IngestReport:
        """`add` under the write lock: the duplicate policy, the clash checks, the chunks and the registry switch."""
        records = self.registry.documents()
        existing = same_version(records, document.source, document.api, document.doc_type, document.api_version,
                                document.labelled)
        if existing is not None:
            if on_duplicate == "reject":
                raise DuplicateDocumentError(
                    document.source, "already indexed; choose on_duplicate='replace' or 'skip', or delete it first"
                )
            if on_duplicate == "skip" or existing.version == document.version:
                why = "identical content" if existing.version == document.version else "already indexed"
                return IngestReport(
                    document.source, "skipped", existing.api, existing.chunk_counts, 0.0, f"skipped: {why}"
                )
        check_name_clash(records, document, existing)
        key = existing.source if existing else registry_key(records, document.source, document.api_version)
        label = document.api_version if document.doc_type != "doc" else ""
        chunks = [chunk.with_version(document.version, label) for chunk in document.chunks]
        now, later = set_aside(chunks, defer)
        self._write_chunks(now, progress)
        if document.spec is not None:
            self._spec_path(document.version).write_text(json.dumps(document.spec), encoding="utf-8")
        record = DocumentRecord(
            source=key,
            api=document.api,
            doc_type=document.doc_type,
            content_hash=document.content_hash,
            version=document.version,
            chunk_counts=document.chunk_counts(),
            size_bytes=document.size_bytes,
            ingested_at=time.time(),
            ingest_seconds=time.perf_counter() - started,
            title=document.title,
            api_version=label,
            spec_version=document.spec_version,
            pending=tuple(later),
            pending_counts={part: len(found) for part, found in later.items()},
        )
        self.registry.put(record, deferred_rows(later))
        self._own_generation = self.registry.generation()
        if existing is not None and existing.version != document.version:
            self._delete_version(existing.version)
        versions = len(versions_of(self.registry.documents(), document.api))
        kept = f"version {label} kept beside {versions - 1} other(s)" if versions > 1 and existing is None else ""
        return IngestReport(
            key,
            "replaced" if existing is not None else "added",
            document.api,
            document.chunk_counts(),
            time.perf_counter() - started,
            "; ".join(n for n in (*document.notes, kept, unresolved_note(document.unresolved_refs)) if n),
            record.pending,
        )

    def _spec_path(self, version: str) -> Path:
        """Where the parsed OpenAPI document of one stored version is kept (for diffs of indexed versions)."""
        path = spec_path(self.directory, version)
        path.parent.mkdir(exist_ok=True)
        return path

    def spec_of(self, record: DocumentRecord) -> dict[str, Any] | None:
        """The OpenAPI document of an indexed version (None when it was indexed before specs were kept)."""
        return read_spec(self.directory, record.version)

    def _write_chunks(self, chunks: Sequence[Chunk], progress: Callable[[int, int], None] | None) -> None:
        """Embed and store chunks in their strategies' collections."""
        write_chunks(self._collections, self.embedder, chunks, progress)

    # ------------------------------------------------------------------ set-aside chunks (rag.index.deferred)
    def pending(self, asked: Collection[str] | None = None) -> list[PendingWork]:
        """The live documents' chunks that were set aside and are not embedded yet (of the parts `asked` names, by
        part or strategy: None, all)."""
        return pending_work(self.registry.documents(), asked)

    def complete_pending(self, asked: Collection[str] | None = None,
                         progress: Callable[[str, int, int], None] | None = None) -> int:
        """Embed the set-aside chunks (of the parts `asked` names) now: `rag.index.deferred.complete_pending`."""
        return complete_pending(self, asked, progress)

    def wait_for_writers(self) -> None:
        """Return once no writer (of this process or another) holds the index."""
        with self._exclusive():
            pass

    def store_pending(self, version: str, part: str, chunks: Sequence[Chunk], vectors: np.ndarray) -> bool:
        """Store embedded set-aside chunks while their version is live and their part pending (else False)."""
        with self._exclusive():
            if not any(r.version == version and part in r.pending for r in self.registry.documents()):
                return False
            store_embedded(self._collections[part_strategy(part)], chunks, vectors)
            return True

    def finish_pending(self, version: str, part: str) -> bool:
        """Make a version's set-aside part searchable (all its chunks are stored): one registry transaction."""
        with self._exclusive():
            finished = self.registry.finish_deferred(version, part)
            if finished:
                self._own_generation = self.registry.generation()
            return finished

    def _delete_version(self, version: str) -> None:
        """Delete the stored chunks of one document version."""
        delete_version(self._collections, version)

    def delete(self, source: str) -> bool:
        """Remove a document and its chunks; returns whether it was indexed."""
        with self._exclusive():
            existing = self.registry.get(source)
            if existing is None:
                return False
            self.registry.remove(source)
            self._own_generation = self.registry.generation()
            self._delete_version(existing.version)
            self._spec_path(existing.version).unlink(missing_ok=True)
        if existing.doc_type == "openapi":
            from rag.versions.changes import refresh_changes

            refresh_changes(self, existing.api)
        return True

