"""What ingesting one file did: the report the CLI, the app and the MCP server show."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class IngestReport:
    """What happened to one file."""

    source: str
    status: Literal["added", "replaced", "skipped", "rejected", "error"]
    api: str = ""
    chunk_counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {
            "source": self.source,
            "status": self.status,
            "api": self.api,
            "chunks": self.chunk_counts,
            "seconds": round(self.seconds, 3),
            "message": self.message,
        }


def unresolved_note(refs: Sequence[str], shown: int = 5) -> str:
    """The report's note on `$ref`s that were not followed (external ones are never fetched or read)."""
    if not refs:
        return ""
    listed = ", ".join(refs[:shown]) + (", …" if len(refs) > shown else "")
    note = f"{len(refs)} $ref(s) left unresolved (external refs are never fetched or read): {listed}"
    if any(not ref.startswith("#") and "://" not in ref for ref in refs):
        note += "; a spec split over files is ingested as its folder or a .zip of it"
    return note
