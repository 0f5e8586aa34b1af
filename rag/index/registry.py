"""The document registry: which document version is live, its hash, chunk counts and ingest time.

Switching a document to a new version is one SQLite transaction, so a crash leaves either the
old version or the new one live, never a mix.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class DocumentRecord:
    """One indexed document."""

    source: str
    api: str
    doc_type: str  # "openapi" | "doc"
    content_hash: str
    version: str
    chunk_counts: dict[str, int] = field(default_factory=dict)
    size_bytes: int = 0
    ingested_at: float = 0.0
    ingest_seconds: float = 0.0
    title: str = ""
    api_version: str = ""  # the version label of an API spec (`2025-02`, `1.0.0`); "" for docs
    spec_version: str = ""  # the spec's own `info.version` (orders versions whose labels do not)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return asdict(self)


_COLUMNS = ("source", "api", "doc_type", "content_hash", "version", "chunk_counts", "size_bytes", "ingested_at",
            "ingest_seconds", "title", "api_version", "spec_version")


def _records(connection: sqlite3.Connection) -> list[DocumentRecord]:
    """Every row of `documents` (a column an older registry lacks read as "")."""
    present = {row[1] for row in connection.execute("PRAGMA table_info(documents)")}
    columns = ", ".join(c if c in present else "''" for c in _COLUMNS)
    rows = connection.execute(f"SELECT {columns} FROM documents ORDER BY source").fetchall()
    return [DocumentRecord(*r[:5], json.loads(r[5]), *r[6:]) for r in rows]


def read_documents(path: Path) -> list[DocumentRecord]:
    """The documents of an existing registry, read only: nothing is created or migrated."""
    connection = sqlite3.connect(f"file:{Path(path).resolve().as_posix()}?mode=ro", uri=True, timeout=30)
    try:
        return _records(connection)
    finally:
        connection.close()


class Registry:
    """SQLite-backed registry in the index folder; safe across threads and processes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._readers = threading.local()  # each thread's connection for reading the generation
        with self._connect() as connection:
            connection.execute(
                """CREATE TABLE IF NOT EXISTS documents (
                    source TEXT PRIMARY KEY, api TEXT NOT NULL, doc_type TEXT NOT NULL,
                    content_hash TEXT NOT NULL, version TEXT NOT NULL, chunk_counts TEXT NOT NULL,
                    size_bytes INTEGER NOT NULL, ingested_at REAL NOT NULL, ingest_seconds REAL NOT NULL,
                    title TEXT NOT NULL DEFAULT '')"""
            )
            columns = {row[1] for row in connection.execute("PRAGMA table_info(documents)")}
            if "api_version" not in columns:  # a registry written before versions were kept
                connection.execute("ALTER TABLE documents ADD COLUMN api_version TEXT NOT NULL DEFAULT ''")
            if "spec_version" not in columns:  # a registry written before info.version was kept
                connection.execute("ALTER TABLE documents ADD COLUMN spec_version TEXT NOT NULL DEFAULT ''")
            connection.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            connection.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('generation', '0')")

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        return connection

    def documents(self) -> list[DocumentRecord]:
        """All live documents, sorted by source."""
        with self._connect() as connection:
            return _records(connection)

    def get(self, source: str) -> DocumentRecord | None:
        """The live record for `source`, if any."""
        return next((record for record in self.documents() if record.source == source), None)

    def generation(self) -> int:
        """A counter bumped on every change; readers compare it to notice other processes' writes. Read on every
        question (several times), so each thread keeps its connection: in autocommit each read sees the last
        commit of any process."""
        connection = getattr(self._readers, "connection", None)
        if connection is None:
            connection = self._readers.connection = self._connect()
        row = connection.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        return int(row[0]) if row else 0

    def put(self, record: DocumentRecord) -> None:
        """Make `record` the live version of its source (atomic)."""
        with self._lock, self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "INSERT OR REPLACE INTO documents (source, api, doc_type, content_hash, version, chunk_counts, "
                "size_bytes, ingested_at, ingest_seconds, title, api_version, spec_version) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.source,
                    record.api,
                    record.doc_type,
                    record.content_hash,
                    record.version,
                    json.dumps(record.chunk_counts),
                    record.size_bytes,
                    record.ingested_at or time.time(),
                    record.ingest_seconds,
                    record.title,
                    record.api_version,
                    record.spec_version,
                ),
            )
            connection.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
            connection.execute("COMMIT")

    def remove(self, source: str) -> bool:
        """Forget `source`; returns whether it was there."""
        with self._lock, self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            cursor = connection.execute("DELETE FROM documents WHERE source = ?", (source,))
            connection.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
            connection.execute("COMMIT")
            return cursor.rowcount > 0

    def get_meta(self, key: str) -> str | None:
        """Read an index-level setting (e.g. the embedding model)."""
        with self._connect() as connection:
            row = connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Write an index-level setting."""
        with self._lock, self._connect() as connection:
            connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
