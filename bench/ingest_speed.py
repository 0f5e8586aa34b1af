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
a new process, the model loaded, nothing cached but the ONNX export) and times it until it exits, when `full` can
answer (target ≤ 30 s); it then asks one question with `full` in a new process to check. The same with every
strategy embedded before the spec goes live (`--embed-all`, as before chunks were set aside) is the comparison. The
children's CPU seconds are reported beside the wall time: on a shared machine the wall time follows the load.
"""

from __future__ import annotations

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


def _run(arguments: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of `python -m rag ARGUMENTS` in a new process."""
    cpu, started = _child_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "rag", *arguments], cwd=ROOT, capture_output=True, text=True,
                          env=env, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"rag {' '.join(arguments)} failed: {done.stderr.strip()[-400:]}")
    return wall, _child_cpu() - cpu, done.stdout


def bench_time_to_searchable(runs: int = 2, runs_embedding_all: int = 1) -> dict[str, Any]:
    """Seconds from `python -m rag ingest` of OpenAI's spec (fresh index, new process) until `full` can answer,
    with the naive chunks set aside (the default) and with every strategy embedded first (`--embed-all`)."""
    from rag.settings import Settings

    print(f"\n## Time to searchable: `python -m rag ingest {OPENAI_SPEC.name}` into a fresh index")
    env = {**os.environ, "TQDM_DISABLE": "1", "RAG_ONNX_DIR": str(Settings.from_env().onnx_cache)}
    found: dict[str, Any] = {}
    for label, extra in (("naive set aside (default)", []), ("every strategy first (--embed-all)", ["--embed-all"])):
        walls, cpus = [], []
        for _ in range(runs_embedding_all if extra else runs):
            with tempfile.TemporaryDirectory() as folder:
                wall, cpu, _ = _run(["ingest", str(OPENAI_SPEC), "--index-dir", folder, *extra], env)
                walls.append(wall)
                cpus.append(cpu)
                if not extra:
                    asked, _, out = _run(["ask", QUESTION, "--configs", "full", "--retrieval-only", "--no-cache",
                                          "--json", "--index-dir", folder], env)
                    found.setdefault("first_question_s", []).append(asked)
                    found["answered"] = '"chunk_id"' in out
        found[label] = {"wall_s": walls, "cpu_s": cpus}
        verdict = "" if extra else f"; target ≤ {TARGET_SEARCHABLE_S:.0f} s"
        print(f"{label:38} {statistics.median(walls):6.1f} s wall (runs {', '.join(f'{w:.1f}' for w in walls)}), "
              f"{statistics.median(cpus):6.1f} s CPU{verdict}")
    print(f"then `rag ask` with full in a new process: {', '.join(f'{s:.1f}' for s in found['first_question_s'])} s "
          f"({'answered' if found['answered'] else 'NO ANSWER'}) · load average {os.getloadavg()[0]:.1f}")
    found["load_average"] = os.getloadavg()[0]
    return found
