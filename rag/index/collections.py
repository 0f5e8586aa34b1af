"""The index's vector store: one Chroma collection per chunking strategy, opened, read and written in batches.

Every stored chunk carries its document version (`doc_version`); what the registry does not point to is an
orphan. `rag.index.store.Index` decides what to read and write; this module only talks to Chroma.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from rag.chunk import STRATEGIES, Chunk
from rag.index.chroma_adapter import ChromaEmbeddingAdapter
from rag.index.embedder import Embedder, unit_rows

COLLECTION_PREFIX = "specrag_"
BATCH_SIZE = 256
# Chunks embedded and written per step of `write_chunks`: small enough that progress (and the time left it gives)
# moves every few seconds on a large spec; each write is overlapped with the next step's embedding.
EMBED_BATCH_SIZE = 64
VECTOR_BATCH_SIZE = 5000  # embeddings read per `get` when the live vectors of a strategy are loaded

# A read that meets a write half applied (Chroma's record and vector segments are updated one after the other;
# "Error finding id") is tried again this many times, waiting READ_RETRY_WAIT_S, twice as long each time.
READ_ATTEMPTS = 5
READ_RETRY_WAIT_S = 0.01
T = TypeVar("T")

Collections = dict[str, Any]  # strategy → Chroma collection
# Strategy → the versions whose chunks of it are searchable → the kinds of them still hidden (set aside, not
# embedded yet: rag.index.deferred.searchable_versions).
Readiness = Mapping[str, Mapping[str, frozenset[str]]]


def persistent_client(directory: Path) -> Any:
    """The embedded Chroma store in `directory/chroma`."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    return chromadb.PersistentClient(
        path=str(directory / "chroma"),
        settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
    )


def forget_embedded_client(client: Any) -> None:
    """Drop the process's cached system of an embedded store, so the next client reads what another process
    wrote (readers still holding the old system keep working)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    identifier = getattr(client, "_identifier", None)
    if identifier is not None:
        SharedSystemClient._identifier_to_system.pop(identifier, None)


def open_collections(client: Any, adapter: ChromaEmbeddingAdapter) -> Collections:
    """One cosine HNSW collection per strategy, created when missing."""
    return {
        strategy: client.get_or_create_collection(
            name=f"{COLLECTION_PREFIX}{strategy}",
            configuration={"hnsw": {"space": "cosine", "ef_construction": 200, "ef_search": 200}},
            embedding_function=adapter,  # type: ignore[arg-type]
        )
        for strategy in STRATEGIES
    }


def read_retrying(read: Callable[[], T]) -> T:
    """`read()`, tried again while Chroma reports an internal error: a reader that meets another thread's or
    process's write half applied sees it whole a few milliseconds later. The last error is raised."""
    from chromadb.errors import InternalError

    for attempt in range(READ_ATTEMPTS - 1):
        try:
            return read()
        except InternalError:
            time.sleep(READ_RETRY_WAIT_S * 2**attempt)
    return read()


def delete_ids(collection: Any, ids: Sequence[str]) -> None:
    """Delete chunks by id, BATCH_SIZE at a time."""
    for start in range(0, len(ids), BATCH_SIZE):
        collection.delete(ids=list(ids[start : start + BATCH_SIZE]))


def delete_orphans(collections: Collections, live: set[str]) -> int:
    """Delete every chunk whose document version is not in `live`; returns how many were deleted."""
    removed = 0
    for collection in collections.values():
        stored = read_retrying(partial(collection.get, include=["metadatas"]))
        orphan_ids = [
            chunk_id
            for chunk_id, metadata in zip(stored["ids"], stored["metadatas"] or [], strict=False)
            if (metadata or {}).get("doc_version") not in live
        ]
        delete_ids(collection, orphan_ids)
        removed += len(orphan_ids)
    return removed


def delete_version(collections: Collections, version: str) -> None:
    """Delete every chunk of one document version."""
    for collection in collections.values():
        stored = read_retrying(partial(collection.get, where={"doc_version": version}, include=[]))
        delete_ids(collection, list(stored["ids"]))


def read_chunks(collections: Collections, ready: Readiness, known: Sequence[Chunk] = (),
                known_ready: Readiness | None = None) -> list[Chunk]:
    """Every stored chunk that is searchable: of a version `ready` lists for its strategy, and not of a kind still
    hidden there (each strategy in the store's order). What a version shows changes only when its hidden kinds do
    (its id names its content), so the chunks in `known` (an earlier read, when its versions were `known_ready`) are
    kept where they did not and only the rest is read: after an upload, the new document's chunks alone; after
    set-aside chunks were embedded, that version's."""
    chunks: list[Chunk] = []
    for strategy, collection in collections.items():
        versions = ready.get(strategy, {})
        before = (known_ready or {}).get(strategy, {})
        kept = [chunk for chunk in known if chunk.strategy == strategy and chunk.doc_version in versions
                and before.get(chunk.doc_version) == versions[chunk.doc_version]]
        wanted = sorted(set(versions) - {chunk.doc_version for chunk in kept})
        chunks.extend(kept)
        if not wanted:
            continue
        where: dict[str, Any] | None = None
        if kept:
            where = {"doc_version": wanted[0]} if len(wanted) == 1 else {"doc_version": {"$in": wanted}}
        stored = read_retrying(partial(collection.get, where=where, include=["documents", "metadatas"]))
        for chunk_id, text, metadata in zip(
            stored["ids"], stored["documents"] or [], stored["metadatas"] or [], strict=False
        ):
            version = (metadata or {}).get("doc_version")
            if version in wanted and metadata["kind"] not in versions[version]:
                chunks.append(Chunk.from_metadata(chunk_id, text or "", dict(metadata)))
    return chunks


def embedding_text(chunk: Chunk) -> str:
    """What is embedded of a chunk: its compact embedding text, else the start of its text."""
    return chunk.embedding_text or chunk.text[:1000]


def store_embedded(collection: Any, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
    """Upsert chunks with their vectors (already embedded) into one strategy's collection."""
    collection.upsert(
        ids=[chunk.chunk_id for chunk in chunks],
        embeddings=[np.asarray(v, dtype=np.float32) for v in vectors],
        documents=[chunk.text for chunk in chunks],
        metadatas=[chunk.to_metadata() for chunk in chunks],  # type: ignore[misc]
    )


def embedding_batches(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """How `write_chunks` embeds chunks: batches of EMBED_BATCH_SIZE of one strategy, strategy by strategy
    (STRATEGIES), each strategy's longest embedding text first, so a batch holds texts of about one length (the
    embedder pads its own small batches to their longest text)."""
    batches: list[list[Chunk]] = []
    for strategy in STRATEGIES:
        group = sorted((c for c in chunks if c.strategy == strategy), key=lambda c: len(embedding_text(c)),
                       reverse=True)
        batches.extend(group[start:start + EMBED_BATCH_SIZE] for start in range(0, len(group), EMBED_BATCH_SIZE))
    return batches


def embedding_order(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks in the order `write_chunks` embeds them."""
    return [chunk for batch in embedding_batches(chunks) for chunk in batch]


def write_chunks(collections: Collections, embedder: Embedder, chunks: Sequence[Chunk],
                 progress: Callable[[int, int], None] | None) -> None:
    """Embed and upsert `chunks` in `embedding_batches`, reporting (embedded, total) after each batch
    (`embed_then_store`: every write is done when this returns, and a failed one raises here all the same)."""
    done, total = 0, len(chunks)

    def stored(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    def store(batch: list[Chunk], vectors: np.ndarray) -> bool:
        store_embedded(collections[batch[0].strategy], batch, vectors)
        return True

    embed_then_store(embedding_batches(chunks), embedder, store, stored)


def embed_then_store(batches: Sequence[list[Chunk]], embedder: Embedder,
                     store: Callable[[list[Chunk], np.ndarray], bool], stored: Callable[[int], None],
                     stop: Callable[[], bool] = lambda: False) -> bool:
    """Embed the batches in order, each stored by a second thread while the next one is embedded (Chroma's write
    waits on the disk more than it computes; one store in flight at most, its error raised here); `stored(n)` after
    each store with its chunk count. Ends early when a store returns False or `stop()` says so between two batches;
    returns whether every batch was stored."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="chunk-store") as writer:
        writing: tuple[Future[bool], int] | None = None
        for batch in [*batches, None]:
            vectors = None
            if batch is not None and not stop():
                vectors = embedder.embed([embedding_text(chunk) for chunk in batch])
            if writing is not None:
                if not writing[0].result():
                    return False
                stored(writing[1])
            if batch is None or vectors is None or stop():
                return batch is None
            writing = writer.submit(store, batch, vectors), len(batch)
    return True


def approximate_search(collection: Any, query_vector: np.ndarray, n: int, apis: Sequence[str] | None,
                       live: Mapping[str, Chunk]) -> list[tuple[str, float]]:
    """Top `n` (chunk id, cosine similarity) by the collection's HNSW index, of `apis` (all when empty), among the
    `live` chunks (the collection may hold others: orphans, set-aside chunks not searchable yet)."""
    where: dict[str, Any] | None = None
    if apis:
        where = {"api": apis[0]} if len(apis) == 1 else {"api": {"$in": list(apis)}}
    result = read_retrying(partial(collection.query, query_embeddings=[np.asarray(query_vector, dtype=np.float32)],
                                   n_results=min(read_retrying(collection.count), n + 10), where=where,
                                   include=["distances"]))
    pairs = [(chunk_id, 1.0 - float(distance))
             for chunk_id, distance in zip(result["ids"][0], (result["distances"] or [[]])[0], strict=False)
             if chunk_id in live]
    return pairs[:n]


def read_vectors(collection: Any, ids: Sequence[str], chunks: dict[str, Chunk]
                 ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The ids of `ids` the collection holds (in order), their unit-length stored embeddings as rows of a
    matrix, and each one's API (from `chunks`)."""
    vectors: dict[str, np.ndarray] = {}
    for start in range(0, len(ids), VECTOR_BATCH_SIZE):
        stored = read_retrying(partial(collection.get, ids=list(ids[start:start + VECTOR_BATCH_SIZE]),
                                       include=["embeddings"]))
        embeddings = stored["embeddings"] if stored["embeddings"] is not None else []
        vectors.update(zip(stored["ids"], (np.asarray(e, dtype=np.float32) for e in embeddings), strict=False))
    found = tuple(i for i in ids if i in vectors)
    dimension = len(next(iter(vectors.values()))) if vectors else 0
    matrix = np.vstack([vectors[i] for i in found]) if found else np.zeros((0, dimension), dtype=np.float32)
    matrix = unit_rows(matrix)
    chunk_apis = np.array([chunks[i].api for i in found], dtype=str)
    return found, matrix, chunk_apis

