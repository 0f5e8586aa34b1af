"""Embedders: the hashing fake, the cache, and the real packaged model."""

from pathlib import Path

import numpy as np
import pytest

from rag.errors import ConfigError
from rag.index.embedder import (
    CachedEmbedder,
    HashingEmbedder,
    SentenceTransformerEmbedder,
    embed_queries,
    load_embedder,
)


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


class PromptedModel:
    """A stand-in for a sentence-transformers model with (or without) query/document prompts: it hashes the
    prompt name into the vector, so the test sees which side a text was embedded as."""

    def __init__(self, prompts: dict[str, str]) -> None:
        self.prompts = prompts
        self.used: list[str | None] = []
        self._hashing = HashingEmbedder(dimension=8)

    def get_sentence_embedding_dimension(self) -> int:
        return 8

    def encode(self, texts, prompt_name=None, **_):  # type: ignore[no-untyped-def]
        self.used.append(prompt_name)
        return self._hashing.embed([f"{self.prompts.get(prompt_name or '', '')}{t}" for t in texts])


def test_a_model_with_prompts_embeds_questions_and_passages_each_with_its_own(tmp_path: Path) -> None:
    model = PromptedModel({"query": "task: search | query: ", "document": "title: none | text: "})
    embedder = SentenceTransformerEmbedder(model, name="prompted")
    passage = embedder.embed(["list employees"])[0]
    question = embed_queries(CachedEmbedder(embedder, tmp_path / "cache.sqlite3"), ["list employees"])[0]
    assert model.used == ["document", "query"]
    assert not np.allclose(passage, question)


def test_a_model_without_prompts_embeds_questions_like_passages() -> None:
    model = PromptedModel({})
    embedder = SentenceTransformerEmbedder(model, name="plain")
    assert np.allclose(embedder.embed(["list employees"]), embed_queries(embedder, ["list employees"]))
    assert model.used == [None, None]
    hashing = HashingEmbedder()
    assert np.allclose(embed_queries(hashing, ["a b"]), hashing.embed(["a b"]))


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
