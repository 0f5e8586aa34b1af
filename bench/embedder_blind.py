"""The blinded sets under both embedder backends (`python -m bench embedder-blind`; not in the default run: about
10-20 minutes per backend). `../shared/blind/run --json` prints totals only; each backend gets its own cache of
indexes (BLIND_CACHE), so torch's vectors and ONNX's never mix."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench import ROOT, SHARED

BLIND = SHARED / "blind" / "run"
BACKENDS = ("torch", "onnx")
METRICS = ("hit@5", "mrr")
TOLERANCE = 0.005  # the most ONNX may differ from torch on a blinded set's hit@5 or MRR


def run_blind(backend: str) -> dict[str, dict[str, dict[str, Any]]]:
    """`{set: {config: totals}}` of C2 and full with the embedder on `backend`."""
    env = {**os.environ, "RAG_EMBEDDING_BACKEND": backend,
           "BLIND_CACHE": str(Path(tempfile.gettempdir()) / f"specrag-blind-bench-{backend}")}
    done = subprocess.run([str(BLIND), "--configs", "C2,full", "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout[done.stdout.index("{"):])


def differences(tables: dict[str, dict[str, dict[str, dict[str, Any]]]]) -> list[tuple[str, str, str, float, float]]:
    """(set, config, metric, torch, onnx) for every set, config and metric both backends report."""
    rows = []
    torch_side, onnx_side = tables["torch"], tables["onnx"]
    for name in sorted(set(torch_side) & set(onnx_side)):
        for config in sorted(set(torch_side[name]) & set(onnx_side[name])):
            for metric in METRICS:
                rows.append((name, config, metric, float(torch_side[name][config][metric]),
                             float(onnx_side[name][config][metric])))
    return rows


def bench_embedder_blind() -> dict[str, Any]:
    """Both backends' blinded totals side by side; says whether every difference is within TOLERANCE."""
    print("\n## Blinded sets: torch vs ONNX embedder (C2 and full, retrieval only; totals only)")
    if not BLIND.is_file():
        print(f"skipped: {BLIND} is absent")
        return {}
    tables = {backend: run_blind(backend) for backend in BACKENDS}
    rows = differences(tables)
    for name, config, metric, torch_value, onnx_value in rows:
        print(f"{name:16} {config:5} {metric:6} torch {torch_value:.3f}  onnx {onnx_value:.3f}  "
              f"Δ {onnx_value - torch_value:+.3f}")
    worst = max((abs(b - a) for *_, a, b in rows), default=0.0)
    print(f"largest difference {worst:.3f} (target ≤ {TOLERANCE})")
    return {"tables": tables, "largest_difference": worst}
