"""Cross-encoder reranking with sentence-transformers (a model name or a local path).

No cross-encoder ships inside a PyPI package, so offline this is unavailable unless a local
model folder is given; it then says so clearly and never invents scores.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rag.query import Query
from rag.rerank.base import RerankerUnavailable
from rag.results import RetrievedChunk

_lock = threading.Lock()
_models: dict[str, Any] = {}
_failures: dict[str, str] = {}


def load_cross_encoder(model: str) -> Any:
    """Load (once per process) a CrossEncoder; a failure is remembered and re-raised quickly."""
    with _lock:
        if model in _models:
            return _models[model]
        if model in _failures:
            raise RerankerUnavailable(_failures[model])
        local = Path(model).expanduser()
        try:
            from sentence_transformers import CrossEncoder

            if local.is_dir():
                loaded = CrossEncoder(str(local), device="cpu")
            else:
                loaded = CrossEncoder(model, device="cpu", local_files_only=os.environ.get("HF_HUB_OFFLINE") == "1")
        except Exception as error:
            message = (
                f"cross-encoder {model!r} is unavailable: it is not a local folder and could not be loaded "
                f"({type(error).__name__}); no cross-encoder ships on PyPI, so offline give a local model path "
                "(config reranker_model) — results are shown in first-stage order, without rerank scores"
            )
            _failures[model] = message
            raise RerankerUnavailable(message) from None
        _models[model] = loaded
        return loaded


class CrossEncoderReranker:
    """Scores (query, chunk text) pairs with a cross-encoder."""

    def __init__(self, model: str, max_chars: int = 2000) -> None:
        self.model_name = model
        self.name = f"cross-encoder:{model}"
        self.max_chars = max_chars

    def score(self, query: Query | str, candidates: Sequence[RetrievedChunk]) -> list[float]:
        """Model scores; raises RerankerUnavailable when the model cannot be loaded."""
        model = load_cross_encoder(self.model_name)
        text = Query.of(query).text
        pairs = [(text, candidate.chunk.text[: self.max_chars]) for candidate in candidates]
        with _lock:
            return [float(value) for value in model.predict(pairs)]
