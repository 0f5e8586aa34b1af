"""The document registry: which document version is live, its hash, chunk counts and ingest time.

Switching a document to a new version is one SQLite transaction, so a crash leaves either the
old version or the new one live, never a mix. A document may go live with some parts of its chunks set aside
(`pending`, embedded later: rag.index.deferred; a part is a whole strategy, `naive`, or one kind of a strategy's
chunks, `smart:schema`); those chunks are kept here, in `deferred_chunks`, until they are embedded, and a part
leaves `pending` in the same transaction that drops its kept chunks.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Sequence
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
    # Parts (rag.index.deferred: `naive`, `smart:schema`) whose chunks are kept in the registry but not embedded
    # yet (not searchable), in the order they are embedded; counted in `chunk_counts` all the same.
    pending: tuple[str, ...] = ()
    pending_counts: dict[str, int] = field(default_factory=dict)  # part → its chunks (a registry from before: none)

    def pending_count(self, part: str) -> int:
        """How many chunks a pending part holds (a whole strategy set aside by an older registry: its count)."""
        return self.pending_counts.get(part, self.chunk_counts.get(part, 0))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return asdict(self)


_COLUMNS = ("source", "api", "doc_type", "content_hash", "version", "chunk_counts", "size_bytes", "ingested_at",
            "ingest_seconds", "title", "api_version", "spec_version", "pending", "pending_counts")
# A chunk set aside for later embedding: (part, chunk id, text, Chunk.to_metadata() as JSON).
DeferredRow = tuple[str, str, str, str]


def _records(connection: sqlite3.Connection) -> list[DocumentRecord]:
    """Every row of `documents` (a column an older registry lacks read as "")."""
    present = {row[1] for row in connection.execute("PRAGMA table_info(documents)")}
    columns = ", ".join(c if c in present else "''" for c in _COLUMNS)
    rows = connection.execute(f"SELECT {columns} FROM documents ORDER BY source").fetchall()
    return [DocumentRecord(*r[:5], json.loads(r[5]), *r[6:12], _parts(r[12]), json.loads(r[13] or "{}"))
            for r in rows]


def _parts(text: str) -> tuple[str, ...]:
    """The parts of a `pending` column ("smart:schema,naive" → ("smart:schema", "naive"))."""
    return tuple(part for part in str(text or "").split(",") if part)


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
            if "pending" not in columns:  # a registry written before chunks could be set aside
                connection.execute("ALTER TABLE documents ADD COLUMN pending TEXT NOT NULL DEFAULT ''")
            if "pending_counts" not in columns:  # a registry written before parts of a strategy could be set aside
                connection.execute("ALTER TABLE documents ADD COLUMN pending_counts TEXT NOT NULL DEFAULT '{}'")
            connection.execute(
                """CREATE TABLE IF NOT EXISTS deferred_chunks (
                    version TEXT NOT NULL, strategy TEXT NOT NULL, position INTEGER NOT NULL, chunk_id TEXT NOT NULL,
                    text TEXT NOT NULL, metadata TEXT NOT NULL, PRIMARY KEY (version, strategy, position))"""
            )
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

    def put(self, record: DocumentRecord, deferred: Sequence[DeferredRow] = ()) -> None:
        """Make `record` the live version of its source, with the chunks it sets aside for later embedding
        (`deferred`, of the parts in `record.pending`), in one transaction; the kept chunks of versions no
        longer live go with it."""
        with self._lock, self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "INSERT OR REPLACE INTO documents (source, api, doc_type, content_hash, version, chunk_counts, "
                "size_bytes, ingested_at, ingest_seconds, title, api_version, spec_version, pending, pending_counts) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    ",".join(record.pending),
                    json.dumps(record.pending_counts),
                ),
            )
            connection.execute("DELETE FROM deferred_chunks WHERE version = ?", (record.version,))
            connection.executemany(
                "INSERT INTO deferred_chunks (version, strategy, position, chunk_id, text, metadata) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(record.version, row[0], position, *row[1:]) for position, row in enumerate(deferred)],
            )
            self._switched(connection)

    @staticmethod
    def _switched(connection: sqlite3.Connection) -> None:
        """End a transaction that changed what is live: drop the kept chunks of versions no longer live, bump the
        generation, commit."""
        connection.execute("DELETE FROM deferred_chunks WHERE version NOT IN (SELECT version FROM documents)")
        connection.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'")
        connection.execute("COMMIT")

    def remove(self, source: str) -> bool:
        """Forget `source` (and the chunks it kept for later embedding); returns whether it was there."""
        with self._lock, self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            cursor = connection.execute("DELETE FROM documents WHERE source = ?", (source,))
            self._switched(connection)
            return cursor.rowcount > 0

    def deferred(self, version: str, part: str) -> list[DeferredRow]:
        """The chunks of one live version and part kept for later embedding, in their ingest order (the table's
        `strategy` column names the part)."""
        with self._connect() as connection:
            rows = connection.execute(
                "SELECT strategy, chunk_id, text, metadata FROM deferred_chunks WHERE version = ? AND strategy = ? "
                "ORDER BY position", (version, part)).fetchall()
        return [(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]

    def finish_deferred(self, version: str, part: str) -> bool:
        """Make one version's set-aside part searchable (its chunks are embedded and stored): it leaves the
        record's `pending` and its kept chunks are dropped, in one transaction. False when that version is no
        longer live or the part is no longer pending (another process finished it)."""
        with self._lock, self._connect() as connection:
            connection.execute("BEGIN IMMEDIATE")
            row = connection.execute("SELECT pending, pending_counts FROM documents WHERE version = ?",
                                     (version,)).fetchone()
            pending = _parts(row[0]) if row else ()
            if part not in pending:
                connection.execute("COMMIT")
                return False
            counts = {p: n for p, n in json.loads(row[1] or "{}").items() if p != part}
            connection.execute("UPDATE documents SET pending = ?, pending_counts = ? WHERE version = ?",
                               (",".join(p for p in pending if p != part), json.dumps(counts), version))
            connection.execute("DELETE FROM deferred_chunks WHERE version = ? AND strategy = ?", (version, part))
            self._switched(connection)
            return True

    def get_meta(self, key: str) -> str | None:
        """Read an index-level setting (e.g. the embedding model)."""
        with self._connect() as connection:
            row = connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        """Write an index-level setting."""
        with self._lock, self._connect() as connection:
            connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
