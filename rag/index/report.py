"""What ingesting one file did (the report the CLI, the app and the MCP server show), and what an index holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rag.index.deferred import Index, part_label, part_strategy
from rag.index.snapshot import Snapshot
from rag.index.versions import versions_by_api


@dataclass(frozen=True)
class IngestReport:
    """What happened to one file."""

    source: str
    status: Literal["added", "replaced", "skipped", "rejected", "error"]
    api: str = ""
    chunk_counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    message: str = ""
    # Parts (`naive`, `smart:schema`) whose chunks were set aside, to be embedded afterwards (rag.index.deferred):
    # not searchable yet.
    pending: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {
            "source": self.source,
            "status": self.status,
            "api": self.api,
            "chunks": self.chunk_counts,
            "seconds": round(self.seconds, 3),
            "message": self.message,
            "pending": list(self.pending),
        }

    def counts_text(self) -> str:
        """`1925 smart (schema chunks not embedded yet), 1620 naive (not embedded yet)`: the chunks per strategy,
        those set aside said so."""
        return ", ".join(f"{n} {strategy}" + _set_aside_note(strategy, self.pending)
                         for strategy, n in self.chunk_counts.items())


def _set_aside_note(strategy: str, pending: Sequence[str]) -> str:
    """` (not embedded yet)` for a strategy set aside whole, ` (schema chunks not embedded yet)` for a part of it."""
    if strategy in pending:
        return " (not embedded yet)"
    parts = [part_label(part) for part in pending if part_strategy(part) == strategy]
    return f" ({', '.join(parts)} not embedded yet)" if parts else ""


def unresolved_note(refs: Sequence[str], shown: int = 5) -> str:
    """The report's note on `$ref`s that were not followed (external ones are never fetched or read)."""
    if not refs:
        return ""
    listed = ", ".join(refs[:shown]) + (", …" if len(refs) > shown else "")
    note = f"{len(refs)} $ref(s) left unresolved (external refs are never fetched or read): {listed}"
    if any(not ref.startswith("#") and "://" not in ref for ref in refs):
        note += "; a spec split over files is ingested as its folder or a .zip of it"
    return note


def index_stats(index: Index, snapshot: Snapshot) -> dict[str, Any]:
    """Counts per strategy, API and kind of the searchable chunks, the documents and their versions, the embedding
    model, and the chunks set aside that are not embedded yet (`pending`: part → count)."""
    per_api, per_kind = snapshot.counts()
    records = index.registry.documents()
    pending: dict[str, int] = {}
    for work in index.pending():
        pending[work.part] = pending.get(work.part, 0) + work.count
    return {
        "index_dir": str(index.directory),
        "embedding_model": index.embedder.name,
        "embedding_backend": str(getattr(getattr(index.embedder, "inner", index.embedder), "backend", "")),
        "built_with_backend": index.registry.get_meta("embedding_backend") or "",
        "documents": len(records),
        "chunks": {strategy: len(ids) for strategy, ids in snapshot.by_strategy.items()},
        "pending": pending,
        "per_api": dict(sorted(per_api.items())),
        "per_kind": dict(sorted(per_kind.items())),
        "sources": [record.to_dict() for record in records],
        "versions": {api: [{"label": r.api_version, "source": r.source, "newest": r is versions[-1],
                            "chunks": sum(r.chunk_counts.values())} for r in versions]
                     for api, versions in versions_by_api(records).items()},
    }
