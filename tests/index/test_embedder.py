"""Embedders: the hashing fake, the cache, and the real packaged model."""

from pathlib import Path

import numpy as np
import pytest

from rag.errors import ConfigError
from rag.index.embedder import CachedEmbedder, HashingEmbedder, load_embedder


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        return super().embed(texts)


def test_hashing_embedder_is_deterministic_and_normalised() -> None:
    embedder = HashingEmbedder()
    first, second = embedder.embed(["list employees", "list employees"])
    assert np.allclose(first, second)
    assert np.isclose(np.linalg.norm(first), 1.0)
    similar = float(first @ embedder.embed(["list all employees"])[0])
    different = float(first @ embedder.embed(["weather in Berlin"])[0])
    assert similar > different


def test_cache_embeds_each_text_once(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "cache.sqlite3")
    first = cached.embed(["a b", "c d"])
    again = CachedEmbedder(inner, tmp_path / "cache.sqlite3").embed(["c d", "a b", "e f"])
    assert inner.calls == [2, 1]
    assert np.allclose(first[1], again[0])


def test_unknown_model_name_lists_the_allowed_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="allowed"):
        load_embedder("no-such-model")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        load_embedder("text-embedding-3-small")


@pytest.mark.slow
def test_packaged_minilm_loads_offline_and_embeds() -> None:
    embedder = load_embedder("all-MiniLM-L6-v2")
    vectors = embedder.embed(["How do I authenticate?", "HTTP Basic authentication", "weather in Berlin"])
    assert vectors.shape == (3, 384)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])
