"""The ONNX Runtime backend of a sentence-transformers model: exported offline once, then run without torch.

sentence-transformers' own `backend="onnx"` needs optimum, whose exporter does not import with the installed
transformers (5.x: `cannot import name 'get_parameter_dtype'`), and loading an exported model goes through that
exporter too. So the model's transformer is exported here with `torch.onnx.export` (offline, from the local
folder), checked against the torch model on probe sentences, and kept in a cache folder beside the index. At
run time only `onnxruntime`, `tokenizers` and numpy are needed: mean pooling and normalising as the model's
`1_Pooling` / `2_Normalize` modules do, so the vectors are the torch backend's (cosine >= 0.9999, checked).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ConfigError

ONNX_FILE = "model.onnx"
OPSET = 17
BATCH_SIZE = 8  # on 2 cores, batches of 4-8 texts ran 64 long texts ~10 % faster than 32 or 64
MIN_AGREEMENT = 0.9999  # cosine between an exported model's vectors and torch's, below which it is refused
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_PROBES = (
    "How do I list employees in the HRIS API?",
    "GET /unified/ats/candidates/{id} returns one candidate with its applications and the expires_in default "
    * 12,  # long enough to be cut at the model's limit
)
_export_lock = threading.Lock()


def supports_onnx(model_dir: Path) -> str:
    """Why the model in `model_dir` cannot run on the ONNX backend ("" when it can): a transformer, mean pooling
    and normalisation, and no query/document prompts (which this backend does not apply)."""
    modules = _read_json(model_dir / "modules.json") or []
    kinds = [str(module.get("type", "")).rsplit(".", 1)[-1] for module in modules]
    if kinds[:2] != ["Transformer", "Pooling"] or any(k not in ("Transformer", "Pooling", "Normalize") for k in kinds):
        return f"its modules are {kinds or 'unknown'}, not Transformer, Pooling (and Normalize)"
    pooling_folder = next((m.get("path", "") for m in modules if str(m.get("type", "")).endswith("Pooling")), "")
    pooling = _read_json(model_dir / pooling_folder / "config.json") or {}
    chosen = [key for key, on in pooling.items() if key.startswith("pooling_mode") and on]
    if chosen != ["pooling_mode_mean_tokens"]:
        return f"it pools with {chosen or 'nothing'}, not mean pooling"
    if (_read_json(model_dir / "config_sentence_transformers.json") or {}).get("prompts"):
        return "it has query/document prompts"
    if not (model_dir / "tokenizer.json").is_file():
        return "it has no tokenizer.json"
    return ""


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def model_fingerprint(model_dir: Path) -> str:
    """A short hash of the model's weights and configuration: the exported file's cache key."""
    digest = hashlib.sha256()
    for path in sorted(model_dir.iterdir()):
        if path.is_file() and path.suffix in (".safetensors", ".bin", ".json"):
            digest.update(path.name.encode())
            with path.open("rb") as handle:
                for block in iter(lambda handle=handle: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:12]


def max_tokens(model_dir: Path) -> int:
    """The model's input limit in word pieces (`max_seq_length`; longer input is cut, as sentence-transformers
    does)."""
    config = _read_json(model_dir / "sentence_bert_config.json") or {}
    return int(config.get("max_seq_length") or 256)


def load_tokenizer(model_dir: Path) -> Any:
    """The model's fast tokenizer, cutting at its limit (`padded` pads a batch to its longest text)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_tokens(model_dir))
    tokenizer.no_padding()
    return tokenizer


def export_onnx(model_dir: Path, target: Path) -> Path:
    """Export the model's transformer to `target` (torch, offline; written under a temporary name and renamed, so
    a crash never leaves half a file), after checking its vectors agree with torch's on probe sentences."""
    try:
        import torch
        from transformers import AutoModel
    except ImportError as error:  # pragma: no cover - torch is a required dependency
        raise ConfigError(f"exporting the ONNX model needs torch and transformers ({error})") from None
    try:
        import onnx  # noqa: F401  (torch.onnx.export writes through it)
    except ImportError:
        raise ConfigError(
            "RAG_EMBEDDING_BACKEND='onnx' needs the `onnx` package to export the model once: run `make install` "
            "(pip install onnx==1.23.2), or set RAG_EMBEDDING_BACKEND='torch'"
        ) from None

    class LastHiddenState(torch.nn.Module):
        """The transformer with keyword inputs (positional ones would collide with `use_cache`)."""

        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager").eval()
    tokenizer = load_tokenizer(model_dir)
    encoded = _encode_batch(tokenizer, list(_PROBES))
    sample = tuple(torch.from_numpy(encoded[name]) for name in _INPUTS)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on shape arithmetic that is constant for an encoder
        expected = _mean_pool(model(**dict(zip(_INPUTS, sample, strict=True))).last_hidden_state.numpy(),
                              encoded["attention_mask"])
        torch.onnx.export(
            LastHiddenState(model), sample, str(partial), dynamo=False, opset_version=OPSET,
            input_names=list(_INPUTS), output_names=["last_hidden_state"],
            dynamic_axes={name: {0: "batch", 1: "sequence"} for name in (*_INPUTS, "last_hidden_state")},
        )
    try:
        got = _mean_pool(_session(partial).run(None, encoded)[0], encoded["attention_mask"])
        agreement = float(np.min(np.sum(got * expected, axis=1)))
        if agreement < MIN_AGREEMENT:
            raise ConfigError(
                f"the ONNX export of {model_dir} gives other vectors than torch (cosine {agreement:.5f} < "
                f"{MIN_AGREEMENT}); set RAG_EMBEDDING_BACKEND='torch'"
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def exported_model(model_dir: Path, cache_dir: Path) -> Path:
    """The ONNX file of the model in `model_dir`, exported on first use into `cache_dir/<fingerprint>/`."""
    target = Path(cache_dir) / f"{model_dir.name}-{model_fingerprint(model_dir)}" / ONNX_FILE
    with _export_lock:
        if not target.is_file():
            export_onnx(model_dir, target)
    return target


def session_options(spinning: bool = False) -> Any:
    """ONNX Runtime's options for the embedder: quiet, and its worker threads not spinning while they wait for work
    (on 2 cores shared with other processes a spinning thread takes a core the other thread needs: a batch then
    waits for a core instead of finishing; measured in `python -m bench embedding-floor`)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # its warnings about unused initialisers are noise here
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    return options


def _session(path: Path, options: Any | None = None) -> Any:
    import onnxruntime

    return onnxruntime.InferenceSession(str(path), options or session_options(), providers=["CPUExecutionProvider"])


def _encode_batch(tokenizer: Any, texts: list[str]) -> dict[str, np.ndarray]:
    return padded(tokenizer.encode_batch(texts))


def padded(encodings: Sequence[Any]) -> dict[str, np.ndarray]:
    """The model's inputs for tokenized texts, padded to the longest of them (id 0, BERT's [PAD]; mask 0, so the
    padding changes no vector)."""
    width = max((len(e.ids) for e in encodings), default=0)
    inputs = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in _INPUTS}
    for row, encoding in enumerate(encodings):
        size = len(encoding.ids)
        inputs["input_ids"][row, :size] = encoding.ids
        inputs["attention_mask"][row, :size] = encoding.attention_mask
        inputs["token_type_ids"][row, :size] = encoding.type_ids
    return inputs


def _mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the token vectors the mask keeps, scaled to unit length (sentence-transformers' Pooling + Normalize)."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


class OnnxEmbedder:
    """A mean-pooled sentence-transformers model run by ONNX Runtime (no torch at run time; thread-safe).

    `name` is the model's, as with the torch backend: the vectors are the same model's (checked at export), so an
    index built with one backend is read with the other. `backend` says which one runs."""

    backend = "onnx"

    def __init__(self, onnx_path: Path, model_dir: Path, name: str, batch_size: int = BATCH_SIZE) -> None:
        self.name = name
        self.onnx_path = Path(onnx_path)
        self.batch_size = batch_size
        self.tokenizer = load_tokenizer(model_dir)
        self.session = _session(self.onnx_path)
        self.dimension = int(self.embed(["dimension"]).shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts` in batches of similar length (little padding), rows unit-length, in the given order."""
        return self._encode(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed questions: as passages (a model with query/document prompts is not run on this backend)."""
        return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        """Tokenize every text at once (cut at the model's limit), run them in batches of about one length in word
        pieces (a batch is padded to its longest text, and padding is most of the work of a mixed batch), and
        put each row back in the given order."""
        if not texts:
            return np.zeros((0, getattr(self, "dimension", 0)), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids), reverse=True)
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        pooled: list[np.ndarray] = []
        for batch in batches:
            encoded = padded([encodings[i] for i in batch])
            pooled.append(_mean_pool(self.session.run(None, encoded)[0], encoded["attention_mask"]))
        rows = np.zeros((len(texts), pooled[0].shape[1]), dtype=np.float32)
        for batch, vectors in zip(batches, pooled, strict=True):
            rows[batch] = vectors
        return rows
