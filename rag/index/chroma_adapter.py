"""Lets Chroma call the workbench's embedder (Chroma's default function would download a model)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rag.errors import IndexUnavailableError
from rag.index.embedder import Embedder


class ChromaEmbeddingAdapter:
    """Lets Chroma call our embedder (Chroma's default function would download a model)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def __call__(self, input: Sequence[str]) -> list[np.ndarray]:
        return list(self.embedder.embed(list(input)))

    def embed_query(self, input: Sequence[str]) -> list[np.ndarray]:
        return self(input)

    @staticmethod
    def name() -> str:
        return "specrag"

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]

    def get_config(self) -> dict[str, Any]:
        return {"model": self.embedder.name}

    def is_legacy(self) -> bool:
        return False

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> ChromaEmbeddingAdapter:
        """Chroma rebuilds functions from stored config; ours is always passed in, so bind a placeholder."""
        return ChromaEmbeddingAdapter(_UnboundEmbedder(str(config.get("model", "unknown"))))

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        return None

    def validate_config_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        return None


class _UnboundEmbedder:
    """Stands in where Chroma reconstructs an embedding function; every vector we store is passed in."""

    dimension = 0

    def __init__(self, name: str) -> None:
        self.name = name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise IndexUnavailableError(f"embedding model {self.name!r} is not bound to this collection")
