"""The query result cache: a question asked again with the same conversation, configuration, generator and index
returns the stored result at once, marked `cached`.

The key covers the question, the history, every field of the configuration, the generator it resolves to, whether
the run was retrieval only, the index's fingerprint (its embedding model and the version of every live document)
and the library's own source, so any ingest, delete or new version, and any upgrade of the code that answers, makes
earlier entries unreachable; they are purged at the next write. Entries live in one SQLite file next to the index
(kept across restarts), at most `max_entries` of them, the least recently used evicted first. Evaluation engines are
built without a cache: their timings must be real.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from rag.config import Config
from rag.errors import ConfigError

CACHE_FILE = "query_cache.sqlite3"
DEFAULT_MAX_ENTRIES = 1000


@dataclass(frozen=True)
class CacheSettings:
    """Where the cache lives and how many results it keeps (0 turns it off)."""

    path: Path
    max_entries: int = DEFAULT_MAX_ENTRIES

    def __post_init__(self) -> None:
        if not isinstance(self.max_entries, int) or isinstance(self.max_entries, bool) or self.max_entries < 0:
            raise ConfigError(
                f"query cache size {self.max_entries!r} is not allowed; allowed: a whole number ≥ 0 "
                "(0 turns the cache off)"
            )

    @property
    def enabled(self) -> bool:
        """Whether results are cached at all."""
        return self.max_entries > 0


class IndexLike(Protocol):
    """What the fingerprint reads from an index."""

    embedder: Any
    registry: Any


SOURCE_SUFFIXES = frozenset({".py", ".toml", ".txt", ".json", ".yaml", ".yml"})


def source_digest(root: Path, skip: tuple[str, ...] = ()) -> str:
    """A short hash of the source and data files under `root` (their paths and contents), those under the
    folders `skip` names (relative to `root`) left out."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if any(relative.startswith(folder.rstrip("/") + "/") for folder in skip):
            continue
        if path.is_file() and path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@cache
def code_version() -> str:
    """The hash of this library's source (`rag/`), read once per process: results stored by other code are not
    served after an upgrade."""
    return source_digest(Path(__file__).resolve().parent)


def index_fingerprint(index: IndexLike) -> str:
    """A short hash of what the index holds — its embedding model and each live document's version — and of the
    code that answers from it (`code_version`). Any ingest that changes content, any delete, any new version and any
    upgrade changes it; re-ingesting identical content does not."""
    documents = sorted((record.source, record.version) for record in index.registry.documents())
    payload = json.dumps([getattr(index.embedder, "name", ""), documents, code_version()])
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def cache_key(
    question: str,
    config: Config,
    generator: str,
    history: Sequence[Mapping[str, str]] | None,
    retrieval_only: bool,
    fingerprint: str,
) -> str:
    """The key of one configuration's answer to one question (see the module docstring for what it covers)."""
    messages = [{"role": str(m.get("role", "")), "content": str(m.get("content", ""))} for m in history or ()]
    payload = json.dumps(
        {
            "question": question.strip(),
            "history": messages,
            "config": config.to_dict(),
            "generator": generator,
            "retrieval_only": bool(retrieval_only),
            "index": fingerprint,
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class QueryCache:
    """Stored results keyed by `cache_key`, in SQLite (safe across threads and processes), least recently used
    evicted past `max_entries`."""

    def __init__(self, settings: CacheSettings) -> None:
        self.settings = settings
        self.path = Path(settings.path)
        self._lock = threading.Lock()
        self._ready = False
        self._connection: sqlite3.Connection | None = None

    def _usable(self, create: bool) -> bool:
        """Whether the database can be read (`create`: made on the first write, so a command that stores nothing
        leaves no file behind)."""
        if not self.settings.enabled:
            return False
        if self._ready:
            return True
        if not create and not self.path.is_file():
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as connection:
            connection.execute(
                "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, "
                "created REAL NOT NULL, used REAL NOT NULL, result TEXT NOT NULL)"
            )
            connection.execute("CREATE INDEX IF NOT EXISTS results_used ON results (used)")
            connection.execute("PRAGMA journal_mode=WAL")
        self._ready = True
        return True

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """The cache's one connection (made on first use; callers hold `_lock`), committing when the block succeeds.
        It stays open: closing the last connection checkpoints the write-ahead log, which costs more than a lookup."""
        if self._connection is None:
            self._connection = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            self._connection.execute("PRAGMA synchronous=NORMAL")  # a cache: no fsync per commit in WAL mode
        with self._connection:
            yield self._connection

    def close(self) -> None:
        """Close the connection (a later use opens it again)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result of a key (a `AnswerResult.to_dict`), or None; a hit counts as a use."""
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The stored results of several keys at once (one connection); the keys found count as used."""
        with self._lock:
            if not keys or not self._usable(create=False):
                return {}
            marks = ", ".join("?" * len(keys))
            with self._connect() as connection:
                rows = connection.execute(f"SELECT key, result FROM results WHERE key IN ({marks})", list(keys))
                found = dict(rows.fetchall())
                if found:
                    connection.execute(f"UPDATE results SET used = ? WHERE key IN ({', '.join('?' * len(found))})",
                                       [time.time(), *found])
        stored: dict[str, dict[str, Any]] = {}
        for key, text in found.items():
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                stored[key] = value
        return stored

    def put(self, key: str, fingerprint: str, result: Mapping[str, Any]) -> None:
        """Store a result; entries of another index fingerprint are dropped and the least recently used beyond
        `max_entries` evicted."""
        now = time.time()
        text = json.dumps(dict(result), default=str)
        with self._lock:
            if not self._usable(create=True):
                return
        with self._lock, self._connect() as connection:
            connection.execute("DELETE FROM results WHERE fingerprint != ?", (fingerprint,))
            connection.execute(
                "INSERT OR REPLACE INTO results (key, fingerprint, created, used, result) VALUES (?, ?, ?, ?, ?)",
                (key, fingerprint, now, now, text),
            )
            connection.execute(
                "DELETE FROM results WHERE key IN (SELECT key FROM results ORDER BY used DESC LIMIT -1 OFFSET ?)",
                (self.settings.max_entries,),
            )

    def __len__(self) -> int:
        with self._lock:
            if not self._usable(create=False):
                return 0
        with self._lock, self._connect() as connection:
            return int(connection.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def clear(self) -> None:
        """Forget every stored result."""
        with self._lock:
            if not self._usable(create=False):
                return
        with self._lock, self._connect() as connection:
            connection.execute("DELETE FROM results")
