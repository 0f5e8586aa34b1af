"""The ONNX Runtime backend: which models it runs, the setting, the cache per backend, the index's record of
the backend, and (slow) the export of the packaged model: same vectors as torch, exported once, no torch to
load it again, nothing half-written on failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rag.errors import ConfigError, IndexUnavailableError
from rag.index import onnx_embedder
from rag.index.embedder import CachedEmbedder, HashingEmbedder, load_embedder, packaged_minilm_path
from rag.index.store import Index
from rag.settings import Settings
from tests.conftest import ONNX_DIR, ROOT

TEXTS = [
    "How do I list employees in the HRIS API?",
    "GET /unified/hris/employees List employees. Query: page_size (string, default 25), expires_in " * 30,
    "What's the weather in Berlin?",
    "x",
]


def write_model_folder(folder: Path, pooling: str = "pooling_mode_mean_tokens", prompts: bool = False) -> Path:
    """The configuration files of a sentence-transformers folder (no weights: enough to say what it is)."""
    (folder / "1_Pooling").mkdir(parents=True)
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    (folder / "modules.json").write_text(json.dumps(modules))
    modes = ("pooling_mode_mean_tokens", "pooling_mode_cls_token")
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({mode: mode == pooling for mode in modes}))
    config = {"prompts": {"query": "task: search | query: "}} if prompts else {}
    (folder / "config_sentence_transformers.json").write_text(json.dumps(config))
    (folder / "tokenizer.json").write_text("{}")
    return folder


def test_the_packaged_model_runs_on_onnx_and_others_say_why_not(tmp_path: Path) -> None:
    assert onnx_embedder.supports_onnx(packaged_minilm_path()) == ""
    assert onnx_embedder.supports_onnx(write_model_folder(tmp_path / "mean")) == ""
    assert "mean pooling" in onnx_embedder.supports_onnx(write_model_folder(tmp_path / "cls", "pooling_mode_cls_token"))
    assert "prompts" in onnx_embedder.supports_onnx(write_model_folder(tmp_path / "gemma", prompts=True))
    assert "modules" in onnx_embedder.supports_onnx(tmp_path)


def test_the_backend_setting_names_the_allowed_values(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"RAG_EMBEDDING_BACKEND='tensorflow'.*'auto', 'onnx', 'torch'"):
        Settings(embedding_backend="tensorflow")
    with pytest.raises(ConfigError, match="allowed"):
        load_embedder("all-MiniLM-L6-v2", "tensorflow")
    folder = write_model_folder(tmp_path / "gemma", prompts=True)
    with pytest.raises(ConfigError, match=r"cannot run .*prompts; set RAG_EMBEDDING_BACKEND to 'torch'"):
        load_embedder(str(folder), "onnx")


def test_settings_read_the_backend_and_the_onnx_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RAG_EMBEDDING_BACKEND", "Torch")
    monkeypatch.setenv("RAG_ONNX_DIR", str(tmp_path / "onnx"))
    settings = Settings.from_env(index_dir=tmp_path / "index")
    assert settings.embedding_backend == "torch" and settings.onnx_cache == tmp_path / "onnx"
    assert Settings(index_dir=tmp_path / "index").onnx_cache == tmp_path / "index" / "cache" / "onnx"


class BackendEmbedder(HashingEmbedder):
    """The hashing embedder under a model name and backend of our choosing, counting what it embeds."""

    def __init__(self, name: str, backend: str) -> None:
        super().__init__(name=name)
        self.backend = backend
        self.embedded = 0

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.embedded += len(texts)
        return super().embed(texts)


def test_each_backend_caches_its_own_vectors(tmp_path: Path) -> None:
    torch_side, onnx_side = BackendEmbedder("minilm", "torch"), BackendEmbedder("minilm", "onnx")
    CachedEmbedder(torch_side, tmp_path / "cache.sqlite3").embed(["list employees"])
    CachedEmbedder(onnx_side, tmp_path / "cache.sqlite3").embed(["list employees"])
    CachedEmbedder(onnx_side, tmp_path / "cache.sqlite3").embed(["list employees"])
    assert (torch_side.embedded, onnx_side.embedded) == (1, 1)


def test_the_index_records_the_backend_and_refuses_another_model(tmp_path: Path) -> None:
    index = Index(tmp_path / "index", CachedEmbedder(BackendEmbedder("minilm", "onnx"), tmp_path / "c.sqlite3"))
    assert index.registry.get_meta("embedding_backend") == "onnx"
    assert index.stats()["embedding_backend"] == "onnx"
    # The same model on the other backend reads the index (the export is checked to give the same vectors) ...
    reopened = Index(tmp_path / "index", BackendEmbedder("minilm", "torch"))
    assert reopened.stats()["built_with_backend"] == "onnx" and reopened.backend == "torch"
    # ... another model does not.
    with pytest.raises(IndexUnavailableError, match=r"built with embedding model 'minilm', not 'minilm-int8'"):
        Index(tmp_path / "index", BackendEmbedder("minilm-int8", "onnx"))


@pytest.mark.slow
def test_the_exported_model_gives_torchs_vectors_and_is_exported_once(monkeypatch: pytest.MonkeyPatch) -> None:
    onnx_side = load_embedder("all-MiniLM-L6-v2", "onnx", ONNX_DIR)
    torch_side = load_embedder("all-MiniLM-L6-v2", "torch")
    assert onnx_side.name == torch_side.name == "all-MiniLM-L6-v2" and onnx_side.dimension == 384
    got, expected = onnx_side.embed(TEXTS), torch_side.embed(TEXTS)
    assert got.shape == (len(TEXTS), 384)
    assert np.min(np.sum(got * expected, axis=1)) >= onnx_embedder.MIN_AGREEMENT
    assert np.allclose(onnx_side.embed(TEXTS[::-1]), got[::-1], atol=1e-6)  # batching by length keeps the order
    monkeypatch.setattr(onnx_embedder, "export_onnx", lambda *_: pytest.fail("exported again"))
    assert onnx_embedder.exported_model(packaged_minilm_path(), ONNX_DIR) == onnx_side.onnx_path  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_process_loads_the_exported_model_without_torch() -> None:
    load_embedder("all-MiniLM-L6-v2", "onnx", ONNX_DIR)  # exported (once) before the process starts
    script = (
        "import sys; from pathlib import Path; from rag.index.embedder import load_embedder; "
        f"e = load_embedder('all-MiniLM-L6-v2', 'auto', Path({str(ONNX_DIR)!r})); e.embed(['list employees']); "
        "print(type(e).__name__, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["OnnxEmbedder", "False", "False"]


@pytest.mark.slow
def test_a_failed_export_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    def half_written(_model, _sample, path, **_):  # type: ignore[no-untyped-def]
        Path(path).write_bytes(b"not an onnx model")

    monkeypatch.setattr(torch.onnx, "export", half_written)
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime's own error for a broken file
        onnx_embedder.exported_model(packaged_minilm_path(), tmp_path / "onnx")
    assert [p for p in (tmp_path / "onnx").rglob("*") if p.is_file()] == []
