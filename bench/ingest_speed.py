"""Ingest speed: the project's embedding path against the model's floor, and how soon a large spec is searchable.

    .venv/bin/python -m bench embedding-floor searchable

`bench_embedding_floor()` embeds the smart chunks of OpenAI's spec (what `full` searches: the texts ingest embeds
first) with the project's path — `write_chunks` with the cached ONNX embedder into fresh Chroma collections, so the
embedding cache, the batching and Chroma's upsert are counted — and with a plain loop over the same ONNX model and
texts: the model's tokenizer (cut at 256 word pieces), texts sorted by length, batches of 8, `session.run`, mean
pooling. The two take turns, a few rounds, so that the load of a shared machine falls on both alike; the ratio of
their times per round is the figure (target ≤ 1.3×). The plain loop also runs with ONNX Runtime's default options
(its threads spin while they wait) and unsorted, to show what those cost here.

`bench_time_to_searchable()` runs `python -m rag ingest` on OpenAI's spec into a fresh index folder (a cold start:
a new process, the model loaded, nothing cached but the ONNX export) and reads its progress lines as they come. It
times two moments: when the spec became searchable by `full` — the "searchable now by full" line, printed once the
registry made the spec live with its operations and docs embedded (target ≤ 30 s) — and when the command exits,
its schema chunks embedded too (the naive chunks stay set aside). A check run then asks `full` from a second process
the moment that line is printed, while ingest still embeds the schemas: it must answer from the operations and say
the schemas are pending. The same ingest with every chunk embedded before the spec goes live (`--embed-all`, as
before anything was set aside) is the comparison. The children's CPU seconds are reported beside the wall times:
on a shared machine the wall time follows the load.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import ROOT, SHARED

OPENAI_SPEC = SHARED / "specs" / "external" / "openai-openapi.yaml"
TARGET_RATIO = 1.3
TARGET_SEARCHABLE_S = 30.0
QUESTION = "How do I create a chat completion?"


def _smart_texts_and_chunks(limit: int) -> tuple[list[str], list[Any]]:
    """The embedding texts and chunks of OpenAI's smart chunks (every n-th, `limit` of them: the same mix of
    lengths as the whole spec)."""
    from rag.index.collections import embedding_text
    from rag.ingest.pipeline import parse_path

    chunks = [c for c in parse_path(OPENAI_SPEC).chunks if c.strategy == "smart"]
    step = max(1, len(chunks) // limit)
    chosen = chunks[::step][:limit]
    return [embedding_text(c) for c in chosen], chosen


def plain_loop(session: Any, tokenizer: Any, texts: Sequence[str], batch_size: int = 8, by_length: bool = True) -> None:
    """Embed `texts` the plain way: tokenize a batch, run it, mean-pool (the vectors are dropped)."""
    import numpy as np

    from rag.index.onnx_embedder import _mean_pool, padded

    order = sorted(texts, key=len) if by_length else list(texts)
    for start in range(0, len(order), batch_size):
        encoded = padded(tokenizer.encode_batch(order[start:start + batch_size]))
        np.asarray(_mean_pool(session.run(None, encoded)[0], encoded["attention_mask"]))


def _project_path(embedder: Any, chunks: Sequence[Any], scratch: Path) -> None:
    """Embed and store `chunks` as ingest does: the cached embedder (a fresh cache) and fresh Chroma collections."""
    from rag.index.chroma_adapter import ChromaEmbeddingAdapter
    from rag.index.collections import open_collections, persistent_client, write_chunks
    from rag.index.embedder import CachedEmbedder

    folder = Path(tempfile.mkdtemp(dir=scratch))
    cached = CachedEmbedder(embedder, folder / "embeddings.sqlite3")
    collections = open_collections(persistent_client(folder), ChromaEmbeddingAdapter(cached))
    write_chunks(collections, cached, chunks, None)


def _timed(run: Callable[[], None]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, every thread) of one run."""
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_embedding_floor(limit: int = 320, rounds: int = 6) -> dict[str, Any]:
    """Chunks per second of the project's embedding path and of the plain loop over the same model and texts, the
    two taking turns (ABBA) so that a shared machine's load falls on both alike."""
    from rag.index.embedder import packaged_minilm_path
    from rag.index.onnx_embedder import OnnxEmbedder, _session, exported_model, load_tokenizer, session_options
    from rag.settings import Settings

    print(f"\n## Embedding floor: {limit} smart chunks of {OPENAI_SPEC.name}, {rounds} rounds taking turns")
    model_dir = packaged_minilm_path()
    onnx_path = exported_model(model_dir, Settings.from_env().onnx_cache)
    texts, chunks = _smart_texts_and_chunks(limit)
    embedder = OnnxEmbedder(onnx_path, model_dir, "all-MiniLM-L6-v2")
    tokenizer, tuned = load_tokenizer(model_dir), _session(onnx_path)
    spinning = _session(onnx_path, session_options(spinning=True))
    plain, ours = "plain loop (sorted, batches of 8)", "project path (embedder + cache + Chroma)"
    ways: dict[str, Callable[[], None]] = {
        plain: lambda: plain_loop(tuned, tokenizer, texts),
        ours: lambda: _project_path(embedder, chunks, scratch),
        "plain loop, ONNX Runtime defaults (spinning)": lambda: plain_loop(spinning, tokenizer, texts),
        "plain loop, unsorted": lambda: plain_loop(tuned, tokenizer, texts, by_length=False),
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        for round_number in range(rounds):
            order = list(ways) if round_number % 2 == 0 else [ours, plain, *list(ways)[2:]]
            for name in order:
                times[name].append(_timed(ways[name]))
    for name in ways:
        rates = [len(texts) / wall for wall, _ in times[name]]
        cpu = statistics.median(len(texts) / c for _, c in times[name])
        print(f"{name:46} {statistics.median(rates):6.1f} chunks/s wall, {cpu:6.1f} per CPU-second "
              f"(rounds: {', '.join(f'{r:.1f}' for r in rates)})")
    walls = [o[0] / p[0] for o, p in zip(times[ours], times[plain], strict=True)]
    cpus = [o[1] / p[1] for o, p in zip(times[ours], times[plain], strict=True)]
    ratio = statistics.median(walls)
    verdict = "meets" if ratio <= TARGET_RATIO else "misses"
    print(f"project path / plain loop: {ratio:.2f}× wall (rounds {min(walls):.2f}–{max(walls):.2f}×; {verdict} the "
          f"target ≤ {TARGET_RATIO}×), {statistics.median(cpus):.2f}× CPU (rounds {min(cpus):.2f}–{max(cpus):.2f}×) "
          f"· load average {os.getloadavg()[0]:.1f}")
    return {"texts": len(texts), "times": times, "ratio_median": ratio, "ratios": walls, "cpu_ratios": cpus,
            "load_average": os.getloadavg()[0]}


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu_of(pid: int) -> float | None:
    """CPU seconds a running process has used so far, all its threads (Linux's /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


SEARCHABLE_LINE = "searchable now by full"
# What the check run asks from a second process the moment the spec is searchable (RAG_INDEX_DIR: the fresh folder).
ASK_FULL = f"""
import json, time
started = time.perf_counter()
from rag.config import PRESETS
from rag.runner import engine_from_settings
result = engine_from_settings(llm="extractive").run({QUESTION!r}, PRESETS["full"], retrieval_only=True)
print(json.dumps({{"seconds": time.perf_counter() - started, "chunks": len(result.chunks), "pending": result.pending,
                  "first": result.chunks[0].chunk.title if result.chunks else "", "errors": result.errors}}))
"""


def _ingest(folder: str, extra: Sequence[str], env: dict[str, str], check: bool = False) -> dict[str, Any]:
    """One `python -m rag ingest` of OpenAI's spec into `folder`, its stderr read as it comes: the seconds until the
    "searchable now" line (None with --embed-all: live when it exits), until it exits, its CPU seconds, and with
    `check` what `full` answered from a second process started at that line."""
    cpu, started = _child_cpu(), time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "rag", "ingest", str(OPENAI_SPEC), "--index-dir", folder,
                                *extra], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    live, live_cpu, asking, lines = None, None, None, []
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line)
        if live is None and line.startswith(SEARCHABLE_LINE):
            live, live_cpu = time.perf_counter() - started, _cpu_of(process.pid)
            if check:
                asking = subprocess.Popen([sys.executable, "-c", ASK_FULL], cwd=ROOT, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, env={**env, "RAG_INDEX_DIR": folder})
    if process.wait() != 0:
        raise RuntimeError(f"rag ingest failed: {''.join(lines)[-400:]}")
    found: dict[str, Any] = {"live_s": live, "live_cpu_s": live_cpu, "exit_s": time.perf_counter() - started,
                             "cpu_s": _child_cpu() - cpu}
    if asking is not None:
        out, err = asking.communicate(timeout=600)
        found["asked"] = json.loads(out) if asking.returncode == 0 else {"errors": [err.strip()[-400:]]}
    return found


def bench_time_to_searchable(runs: int = 3, runs_embedding_all: int = 1) -> dict[str, Any]:
    """Seconds from `python -m rag ingest` of OpenAI's spec (fresh index, new process) until `full` can search it and
    until the command exits, by default (schema and naive chunks set aside) and with every chunk embedded first
    (`--embed-all`); then one check run in which a second process asks `full` the moment the spec is live."""
    from rag.settings import Settings

    print(f"\n## Time to searchable: `python -m rag ingest {OPENAI_SPEC.name}` into a fresh index")
    env = {**os.environ, "TQDM_DISABLE": "1", "RAG_ONNX_DIR": str(Settings.from_env().onnx_cache)}
    found: dict[str, Any] = {"load_average_before": os.getloadavg()[0]}
    for label, extra, count in (("default (schemas, naive set aside)", [], runs),
                                ("every chunk first (--embed-all)", ["--embed-all"], runs_embedding_all)):
        if not count:
            continue
        timed = []
        for _ in range(count):
            with tempfile.TemporaryDirectory() as folder:
                timed.append(_ingest(folder, extra, env))
        found[label] = timed
        lives = [t["live_s"] if t["live_s"] is not None else t["exit_s"] for t in timed]
        exits, cpus = [t["exit_s"] for t in timed], [t["cpu_s"] for t in timed]
        live_cpus = [t["live_cpu_s"] if t["live_s"] is not None else t["cpu_s"] for t in timed]
        print(f"{label:36} searchable by full after {', '.join(f'{s:.1f}' for s in lives)} s "
              f"(median {statistics.median(lives):.1f}; target ≤ {TARGET_SEARCHABLE_S:.0f} s; CPU "
              f"{', '.join(f'{s:.1f}' for s in live_cpus if s is not None)} s) · exits after "
              f"{', '.join(f'{s:.1f}' for s in exits)} s (CPU {', '.join(f'{s:.0f}' for s in cpus)} s)")
    with tempfile.TemporaryDirectory() as folder:
        checked = found["check"] = _ingest(folder, [], env, check=True)
    asked = checked.get("asked", {})
    print(f"check: `full` asked from a second process at the searchable line ({checked['live_s']:.1f} s) answered "
          f"with {asked.get('chunks', 0)} chunks in {asked.get('seconds', 0):.1f} s (first: {asked.get('first')!r}; "
          f"pending: {asked.get('pending')}; errors: {asked.get('errors')}) while ingest went on to exit at "
          f"{checked['exit_s']:.1f} s")
    found["load_average"] = os.getloadavg()[0]
    print(f"load average: {found['load_average_before']:.1f} before, {found['load_average']:.1f} after")
    return found
