"""The query adapter: a linear map that moves a question's vector towards the chunks that answer it.

People ask in their own words ("kick someone from my server"); a spec says `DELETE /guilds/{guild_id}/members/
{user_id}`. The packaged embedder puts a question and the chunk that answers it less close than it could. A 384 × 384
matrix, learned from the team's tuning questions in people's words against the chunks they are keyed to (in-batch
softmax over each corpus's chunks, starting from the identity and held near it; scripts/train_ranker.py), is applied
to the question's vector before it is compared with chunk vectors. The index stays as it is: only the question moves.
Measured leave-one-corpus-out (each corpus searched with a map learned without it) it lifts the vector search on every
corpus (docs/ranking.md).

It belongs to one embedder: the file records the model it was learned for, and any other embedder searches with the
question's own vector. The question's own vector still serves everything that is not a chunk search (short texts,
the confidence gate's evidence). Stored as float16 (rag/data/ranker/query_adapter.npy, about 0.3 MB) beside the name
of the model it was learned for (query_adapter.json).
"""

from __future__ import annotations

import json
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from rag.errors import RagError

ADAPTER_FILE = Path(__file__).resolve().parent.parent / "data" / "ranker" / "query_adapter.npy"

_override_lock = threading.Lock()
_override: dict[str, np.ndarray | None] = {}


class AdapterUnreadable(RagError):
    """The shipped query adapter is missing or malformed (the message says how to rebuild it)."""


def _model_file(path: Path) -> Path:
    return path.with_suffix(".json")


@lru_cache(maxsize=4)
def load_adapter(path: Path = ADAPTER_FILE) -> tuple[str, np.ndarray]:
    """The embedder name the adapter at `path` was learned for, and its matrix (float32)."""
    try:
        matrix = np.asarray(np.load(path, allow_pickle=False), dtype=np.float32)
        model = str(json.loads(_model_file(path).read_text(encoding="utf-8"))["model"])
    except (OSError, KeyError, ValueError, TypeError) as error:
        raise AdapterUnreadable(f"the query adapter at {path} cannot be read ({error}); rebuild it with `make ranker`"
                                ) from error
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise AdapterUnreadable(f"the query adapter at {path} is {matrix.shape}, not a square matrix; rebuild it "
                                "with `make ranker`")
    return model, matrix


def save_adapter(matrix: np.ndarray, model: str, path: Path = ADAPTER_FILE) -> None:
    """Write `matrix` (learned for the embedder `model`) as the adapter at `path`, in float16 (byte for byte the
    same for the same matrix)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, np.asarray(matrix, dtype=np.float16), allow_pickle=False)
    _model_file(path).write_text(json.dumps({"model": model, "dimension": int(matrix.shape[0])}) + "\n",
                                 encoding="utf-8")
    load_adapter.cache_clear()
    _shipped_adapter.cache_clear()


@lru_cache(maxsize=1)
def _shipped_adapter() -> tuple[str, np.ndarray] | None:
    """The shipped adapter, read once per process (None where none is shipped)."""
    return load_adapter() if ADAPTER_FILE.is_file() else None


def adapter_for(model: str, dimension: int) -> np.ndarray | None:
    """The matrix to apply to questions embedded by `model` (None: search with the question's own vector): the
    override `set_adapter_override` set, else the shipped adapter when it was learned for this model and fits its
    dimension."""
    with _override_lock:
        if "matrix" in _override:
            return _override["matrix"]
    shipped = _shipped_adapter()
    if shipped is None:
        return None
    learned_for, matrix = shipped
    return matrix if learned_for == model and matrix.shape[0] == dimension else None


def set_adapter_override(matrix: np.ndarray | None, active: bool = True) -> None:
    """Make every query context made from now on search with `matrix` (None: with the question's own vector), or,
    with `active` False, with the shipped adapter again. For training the ranker on a map learned without the
    corpus it ranks (scripts/train_ranker.py)."""
    with _override_lock:
        if active:
            _override["matrix"] = None if matrix is None else np.asarray(matrix, dtype=np.float32)
        else:
            _override.pop("matrix", None)


def adapted(vector: np.ndarray, matrix: np.ndarray | None) -> np.ndarray:
    """`vector` through `matrix`, unit length (the vector itself without a matrix)."""
    if matrix is None:
        return vector
    moved = np.asarray(vector, dtype=np.float32).ravel() @ matrix
    return (moved / (float(np.linalg.norm(moved)) or 1.0)).astype(np.float32)
