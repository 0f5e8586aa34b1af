"""An existing index opened to read its chunks without loading its embedding model (dry runs, question
generation)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag.errors import IndexUnavailableError
from rag.index.store import Index
from rag.settings import Settings


class _NameOnlyEmbedder:
    """Carries the index's embedding model name so its chunks can be read without loading the model."""

    def __init__(self, name: str, dimension: int = 0) -> None:
        self.name = name
        self.dimension = dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise IndexUnavailableError(f"the embedding model {self.name!r} is not loaded (read-only use of the index)")


def open_index_without_model(settings: Settings) -> Index:
    """Open an existing index to read its chunks without loading the embedding model (dry runs, generation)."""
    from rag.index.build import make_chroma_client
    from rag.index.registry import Registry

    registry_file = Path(settings.index_dir) / "registry.sqlite3"
    if not registry_file.is_file():
        raise IndexUnavailableError(
            f"no index in {settings.index_dir}; build it with `python -m rag ingest <specs>` or `make index`"
        )
    stored = Registry(registry_file).get_meta("embedding_model")
    if stored is None:
        raise IndexUnavailableError(f"the index in {settings.index_dir} is empty; ingest specs first")
    dimension = int(Registry(registry_file).get_meta("embedding_dimension") or 0)
    return Index(settings.index_dir, _NameOnlyEmbedder(stored, dimension), chroma_client=make_chroma_client(settings))
