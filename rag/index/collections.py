"""The index's vector store: one Chroma collection per chunking strategy, opened, read and written in batches.

Every stored chunk carries its document version (`doc_version`); what the registry does not point to is an
orphan. `rag.index.store.Index` decides what to read and write; this module only talks to Chroma.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.chunk import STRATEGIES, Chunk
from rag.index.chroma_adapter import ChromaEmbeddingAdapter
from rag.index.embedder import Embedder, unit_rows

COLLECTION_PREFIX = "specrag_"
BATCH_SIZE = 256
VECTOR_BATCH_SIZE = 5000  # embeddings read per `get` when the live vectors of a strategy are loaded

Collections = dict[str, Any]  # strategy → Chroma collection


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


def delete_ids(collection: Any, ids: Sequence[str]) -> None:
    """Delete chunks by id, BATCH_SIZE at a time."""
    for start in range(0, len(ids), BATCH_SIZE):
        collection.delete(ids=list(ids[start : start + BATCH_SIZE]))


def delete_orphans(collections: Collections, live: set[str]) -> int:
    """Delete every chunk whose document version is not in `live`; returns how many were deleted."""
    removed = 0
    for collection in collections.values():
        stored = collection.get(include=["metadatas"])
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
        stored = collection.get(where={"doc_version": version}, include=[])
        delete_ids(collection, list(stored["ids"]))


def read_chunks(collections: Collections, live: set[str], known: Sequence[Chunk] = ()) -> list[Chunk]:
    """Every stored chunk whose document version is in `live` (all strategies, each in the store's order). A
    version's chunks never change (its id names its content), so those in `known` (an earlier read) are kept
    and only the other live versions are read: after an upload, the new document's chunks alone."""
    kept: dict[str, list[Chunk]] = {}
    for chunk in known:
        if chunk.doc_version in live:
            kept.setdefault(chunk.strategy, []).append(chunk)
    wanted = sorted(live - {chunk.doc_version for group in kept.values() for chunk in group})
    where: dict[str, Any] | None = None
    if kept:
        where = {"doc_version": wanted[0]} if len(wanted) == 1 else {"doc_version": {"$in": wanted}}
    chunks: list[Chunk] = []
    for strategy, collection in collections.items():
        chunks.extend(kept.get(strategy, ()))
        if kept and not wanted:
            continue
        stored = collection.get(where=where, include=["documents", "metadatas"])
        for chunk_id, text, metadata in zip(
            stored["ids"], stored["documents"] or [], stored["metadatas"] or [], strict=False
        ):
            if metadata and metadata.get("doc_version") in live:
                chunks.append(Chunk.from_metadata(chunk_id, text or "", dict(metadata)))
    return chunks


def write_chunks(collections: Collections, embedder: Embedder, chunks: Sequence[Chunk],
                 progress: Callable[[int, int], None] | None) -> None:
    """Embed and upsert `chunks` strategy by strategy, BATCH_SIZE at a time, reporting (done, total)."""
    done = 0
    for strategy in STRATEGIES:
        group = [chunk for chunk in chunks if chunk.strategy == strategy]
        collection = collections[strategy]
        for start in range(0, len(group), BATCH_SIZE):
            batch = group[start : start + BATCH_SIZE]
            vectors = embedder.embed([chunk.embedding_text or chunk.text[:1000] for chunk in batch])
            collection.upsert(
                ids=[chunk.chunk_id for chunk in batch],
                embeddings=[np.asarray(v, dtype=np.float32) for v in vectors],
                documents=[chunk.text for chunk in batch],
                metadatas=[chunk.to_metadata() for chunk in batch],  # type: ignore[misc]
            )
            done += len(batch)
            if progress is not None:
                progress(done, len(chunks))


def read_vectors(collection: Any, ids: Sequence[str], chunks: dict[str, Chunk]
                 ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The ids of `ids` the collection holds (in order), their unit-length stored embeddings as rows of a
    matrix, and each one's API (from `chunks`)."""
    vectors: dict[str, np.ndarray] = {}
    for start in range(0, len(ids), VECTOR_BATCH_SIZE):
        stored = collection.get(ids=list(ids[start:start + VECTOR_BATCH_SIZE]), include=["embeddings"])
        embeddings = stored["embeddings"] if stored["embeddings"] is not None else []
        vectors.update(zip(stored["ids"], (np.asarray(e, dtype=np.float32) for e in embeddings), strict=False))
    found = tuple(i for i in ids if i in vectors)
    dimension = len(next(iter(vectors.values()))) if vectors else 0
    matrix = np.vstack([vectors[i] for i in found]) if found else np.zeros((0, dimension), dtype=np.float32)
    matrix = unit_rows(matrix)
    chunk_apis = np.array([chunks[i].api for i in found], dtype=str)
    return found, matrix, chunk_apis

