"""An immutable view of the index's live chunks: lookups by id, strategy and structural id, and BM25 per strategy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rag.chunk import STRATEGIES, Chunk
from rag.index.bm25 import BM25Index
from rag.index.deferred import pending_apis
from rag.index.registry import DocumentRecord


@dataclass(frozen=True)
class Snapshot:
    """An immutable view of every live chunk, with lookups and BM25 per strategy."""

    generation: int
    chunks: dict[str, Chunk]
    by_strategy: dict[str, tuple[str, ...]]
    by_cover: dict[str, tuple[str, ...]]
    bm25: dict[str, BM25Index]
    documents: tuple[DocumentRecord, ...]
    # Part (`naive`, `smart:schema`) → the APIs whose chunks of it are set aside and not embedded yet
    # (rag.index.deferred): a search of that part's strategy does not see them.
    pending: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def build(cls, generation: int, chunks: Sequence[Chunk], documents: Sequence[DocumentRecord]) -> Snapshot:
        """Index `chunks` for lookup by id, by strategy and by structural id."""
        by_id = {chunk.chunk_id: chunk for chunk in chunks}
        by_strategy: dict[str, list[str]] = {strategy: [] for strategy in STRATEGIES}
        by_cover: dict[str, list[str]] = {}
        for chunk in sorted(chunks, key=lambda c: (c.strategy, c.source, c.chunk_id)):
            by_strategy.setdefault(chunk.strategy, []).append(chunk.chunk_id)
            for covered in chunk.covers:
                by_cover.setdefault(covered, []).append(chunk.chunk_id)
        bm25 = {
            strategy: BM25Index(ids, [by_id[i].title + "\n" + by_id[i].text for i in ids])
            for strategy, ids in by_strategy.items()
        }
        return cls(
            generation=generation,
            chunks=by_id,
            by_strategy={k: tuple(v) for k, v in by_strategy.items()},
            by_cover={k: tuple(v) for k, v in by_cover.items()},
            bm25=bm25,
            documents=tuple(documents),
            pending=pending_apis(documents),
        )

    def apis(self) -> list[str]:
        """Names of the indexed APIs / documents."""
        return sorted({record.api for record in self.documents})

    def counts(self) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
        """Chunks per API and strategy (`{api: {strategy: n}}`) and per `strategy:kind`."""
        per_api: dict[str, dict[str, int]] = {}
        per_kind: dict[str, int] = {}
        for chunk in self.chunks.values():
            per_api.setdefault(chunk.api, {}).setdefault(chunk.strategy, 0)
            per_api[chunk.api][chunk.strategy] += 1
            per_kind[f"{chunk.strategy}:{chunk.kind}"] = per_kind.get(f"{chunk.strategy}:{chunk.kind}", 0) + 1
        return per_api, per_kind
