"""Settings from the environment (and `.env`), checked at construction."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import ConfigError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
STACKONE_SPEC_NAMES: tuple[str, ...] = ("stackone", "hris", "ats", "lms", "iam", "crm", "marketing")
# How a local sentence-transformers model runs: `onnx` (ONNX Runtime, exported once; rag.index.onnx_embedder),
# `torch`, or `auto` (onnx where the model allows it: a mean-pooled model without prompts, else torch).
EMBEDDING_BACKENDS: tuple[str, ...] = ("auto", "onnx", "torch")


def load_dotenv_file(path: Path | None = None) -> None:
    """Load `.env` from the project root (never overriding variables already set)."""
    from dotenv import load_dotenv

    load_dotenv(path or PROJECT_ROOT / ".env", override=False)


@dataclass(frozen=True)
class Settings:
    """Where the index lives, which specs are the default corpus, which models to use."""

    index_dir: Path = field(default_factory=lambda: PROJECT_ROOT / "index_store")
    specs_dir: Path | None = None
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_backend: str = "auto"
    llm: str = ""
    chroma_url: str = ""
    local_model: Path | None = None
    cache_dir: Path | None = None
    query_cache_size: int = 1000  # results kept by the query cache (rag.cache); 0 turns it off
    onnx_dir: Path | None = None

    def __post_init__(self) -> None:
        if isinstance(self.query_cache_size, bool) or not isinstance(self.query_cache_size, int) \
                or self.query_cache_size < 0:
            raise ConfigError(
                f"RAG_QUERY_CACHE_SIZE={self.query_cache_size!r} is not allowed; allowed: a whole number ≥ 0 "
                "(0 turns the query cache off)"
            )
        if not self.embedding_model.strip():
            raise ConfigError(
                "RAG_EMBEDDING_MODEL is empty; allowed: 'all-MiniLM-L6-v2' (default), a local "
                "model folder, 'hashing', or an OpenAI embedding model name"
            )
        if self.embedding_backend not in EMBEDDING_BACKENDS:
            raise ConfigError(
                f"RAG_EMBEDDING_BACKEND={self.embedding_backend!r} is not allowed; allowed: "
                + ", ".join(repr(b) for b in EMBEDDING_BACKENDS)
                + " ('auto': ONNX Runtime where the model allows it, else torch)"
            )
        if self.index_dir.exists() and not self.index_dir.is_dir():
            raise ConfigError(
                f"RAG_INDEX_DIR={str(self.index_dir)!r} is a file; it must be a folder: point RAG_INDEX_DIR (or "
                "--index-dir) at a folder and build the index there with `python -m rag ingest <specs>`"
            )
        if self.chroma_url and not self.chroma_url.startswith(("http://", "https://")):
            raise ConfigError(f"RAG_CHROMA_URL={self.chroma_url!r} must start with http:// or https://")

    @property
    def embedding_cache(self) -> Path:
        """SQLite file of cached embeddings (shared by re-ingests of the same index)."""
        return (self.cache_dir or self.index_dir / "cache") / "embeddings.sqlite3"

    @property
    def onnx_cache(self) -> Path:
        """Folder of the embedding model exported to ONNX (once, on first use with the ONNX backend): RAG_ONNX_DIR,
        else beside the embedding cache."""
        return self.onnx_dir or (self.cache_dir or self.index_dir / "cache") / "onnx"

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Read RAG_INDEX_DIR, RAG_SPECS_DIR, RAG_EMBEDDING_MODEL, RAG_EMBEDDING_BACKEND, RAG_LLM, RAG_CHROMA_URL,
        RAG_LOCAL_MODEL, RAG_CACHE_DIR, RAG_ONNX_DIR and RAG_QUERY_CACHE_SIZE (after loading `.env`); keyword
        overrides win."""
        load_dotenv_file()
        env = os.environ
        values: dict[str, object] = {
            "index_dir": Path(env.get("RAG_INDEX_DIR") or PROJECT_ROOT / "index_store"),
            "specs_dir": Path(env["RAG_SPECS_DIR"]) if env.get("RAG_SPECS_DIR") else None,
            "embedding_model": env.get("RAG_EMBEDDING_MODEL") or "all-MiniLM-L6-v2",
            "embedding_backend": (env.get("RAG_EMBEDDING_BACKEND") or "auto").strip().lower(),
            "llm": env.get("RAG_LLM", ""),
            "chroma_url": env.get("RAG_CHROMA_URL", ""),
            "local_model": Path(env["RAG_LOCAL_MODEL"]) if env.get("RAG_LOCAL_MODEL") else None,
            "cache_dir": Path(env["RAG_CACHE_DIR"]) if env.get("RAG_CACHE_DIR") else None,
            "query_cache_size": _whole_number("RAG_QUERY_CACHE_SIZE", env.get("RAG_QUERY_CACHE_SIZE"), 1000),
            "onnx_dir": Path(env["RAG_ONNX_DIR"]) if env.get("RAG_ONNX_DIR") else None,
        }
        values.update({key: value for key, value in overrides.items() if value is not None})
        if isinstance(values["index_dir"], str):
            values["index_dir"] = Path(values["index_dir"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


def _whole_number(name: str, value: str | None, default: int) -> int:
    """An environment variable that holds a whole number (unset or empty: `default`)."""
    if value is None or not value.strip():
        return default
    try:
        return int(value.strip())
    except ValueError:
        raise ConfigError(f"{name}={value!r} is not a whole number; allowed: a whole number ≥ 0") from None
