"""`python -m bench [SECTION...]`: embedder, index, retrieval, eval, …, rest, embedding-floor, searchable, local-llm,
c4-local (default: all);
prints a report, writes bench/results.json. The local-llm and c4-local sections need `make local-llm` and say so
when skipped."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bench import ROOT, STACKONE, percentile

if TYPE_CHECKING:
    from rag.config import Config
    from rag.index.embedder import Embedder
    from rag.runner import Engine

RESULTS: dict[str, object] = {}


def rss_mb() -> float:
    """Peak resident memory of this process in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_INDEX_SCRIPT = """
import json, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from rag.index.build import ingest_paths, open_index
from rag.settings import Settings
settings = Settings.from_env(index_dir=Path(sys.argv[1]), cache_dir=Path(sys.argv[2]))
index = open_index(settings)
t1 = time.perf_counter()
reports = ingest_paths(index, sys.argv[3:])
t2 = time.perf_counter()
print(json.dumps({"load_s": t1 - t0, "ingest_s": t2 - t1, "total_s": t2 - t0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "reports": [r.to_dict() for r in reports],
                  "hits": index.embedder.hits, "misses": index.embedder.misses, "backend": index.backend}))
"""


def run_index(index_dir: Path, cache_dir: Path, paths: list[str], env: dict[str, str] | None = None) -> dict:
    """Index in a fresh process (cold model load included) and return its timings; `env` adds settings (the
    backend; the ONNX export is read from RAG_ONNX_DIR, else the default index's cache, never made here)."""
    from rag.settings import Settings

    settings = {"RAG_ONNX_DIR": str(Settings.from_env().onnx_cache), **(env or {})}
    output = subprocess.run(
        [sys.executable, "-c", _INDEX_SCRIPT, str(index_dir), str(cache_dir), *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "TQDM_DISABLE": "1", **settings},
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def bench_index() -> None:
    """Chunk counts per spec; cold (empty cache) and warm (cached embeddings) index of the 7 specs."""
    from rag.ingest.pipeline import parse_path

    print("\n## Index: the 7 StackOne specs")
    print(f"{'spec':12} {'operations':>10} {'schemas':>8} {'smart':>6} {'naive':>6}")
    for path in sorted(STACKONE.glob("*.json")):
        parsed = parse_path(path)
        counts = parsed.chunk_counts()
        operations = sum(1 for c in parsed.chunks if c.strategy == "smart" and c.kind == "operation")
        schemas = len({c.covers[0] for c in parsed.chunks if c.strategy == "smart" and c.kind == "schema"})
        print(f"{parsed.api:12} {operations:>10} {schemas:>8} {counts.get('smart', 0):>6} {counts.get('naive', 0):>6}")
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        cold = run_index(base / "cold", base / "cache", [str(STACKONE)])
        warm = run_index(base / "warm", base / "cache", [str(STACKONE)])
        again = run_index(base / "warm", base / "cache", [str(STACKONE)])
    for label, data, target in (
        ("cold", cold, 60),
        ("warm (cached embeddings, new index)", warm, 3),
        ("re-ingest unchanged (skip)", again, 3),
    ):
        print(
            f"{label:38} ingest {data['ingest_s']:6.1f} s  (+ model load {data['load_s']:.1f} s)  "
            f"RSS {data['rss_mb']:.0f} MiB  cache hits {data['hits']} misses {data['misses']}  target ≤ {target} s"
        )
    RESULTS["index"] = {"cold": cold, "warm": warm, "unchanged": again}


def question_ms(embedders: dict[str, Embedder], questions: list[str]) -> dict[str, list[float]]:
    """Milliseconds to embed each question alone, by backend; the backends take turns (the first rotates)."""
    from rag.index.embedder import embed_queries

    samples: dict[str, list[float]] = {name: [] for name in embedders}
    names = list(embedders)
    for number, question in enumerate(questions):
        shift = number % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.perf_counter()
            embed_queries(embedders[name], [question])
            samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def bench_embedder() -> None:
    """torch vs ONNX Runtime in the same run: a question's embedding (p50, target ONNX ≤ 0.5× torch) and a cold index
    of the default corpus in a fresh process each (model load included; target ONNX ≤ 0.6× torch)."""
    from rag.index.embedder import DEFAULT_EMBEDDING_MODEL, load_embedder, packaged_minilm_path
    from rag.index.onnx_embedder import exported_model
    from rag.settings import Settings

    print("\n## Embedder: torch vs ONNX Runtime (same run)")
    onnx_dir = Settings.from_env().onnx_cache
    started = time.perf_counter()
    exported = exported_model(packaged_minilm_path(), onnx_dir)
    print(f"ONNX model {exported} ready in {time.perf_counter() - started:.1f} s (exported once per machine)")
    embedders = {backend: load_embedder(DEFAULT_EMBEDDING_MODEL, backend, onnx_dir) for backend in ("torch", "onnx")}
    questions = [json.loads(line)["question"] for line in (ROOT / "eval_data" / "dev_set.jsonl").open()][:80]
    question_ms(embedders, questions[:10])  # warm up
    samples = question_ms(embedders, questions)
    p50 = {name: percentile(values, 50) for name, values in samples.items()}
    for name, values in samples.items():
        print(f"question embedding {name:5} p50 {p50[name]:5.1f} ms  p95 {percentile(values, 95):5.1f} ms")
    print(f"ONNX / torch question p50: {p50['onnx'] / p50['torch']:.2f}× (target ≤ 0.5×)")
    runs: dict[str, list[dict]] = {"torch": [], "onnx": []}
    with tempfile.TemporaryDirectory() as scratch:
        # torch, ONNX, ONNX, torch: a change of load during the runs falls on both backends alike.
        for number, backend in enumerate(("torch", "onnx", "onnx", "torch")):
            base = Path(scratch) / f"{backend}-{number}"
            setting = {"RAG_EMBEDDING_BACKEND": backend}
            runs[backend].append(run_index(base / "index", base / "cache", [str(STACKONE)], setting))
    cold = {backend: {key: statistics.mean(run[key] for run in done) for key in ("ingest_s", "load_s", "total_s")}
            for backend, done in runs.items()}
    for backend, data in cold.items():
        chunks = runs[backend][0]["misses"]
        print(f"cold index, {backend:5} ingest {data['ingest_s']:6.1f} s + model load {data['load_s']:4.1f} s = "
              f"{data['total_s']:6.1f} s  (mean of 2; backend {runs[backend][0]['backend']}, {chunks} chunks embedded)")
    ratio = cold["onnx"]["total_s"] / cold["torch"]["total_s"]
    print(f"ONNX / torch cold index: {ratio:.2f}× with the model load, "
          f"{cold['onnx']['ingest_s'] / cold['torch']['ingest_s']:.2f}× ingest alone (target ≤ 0.6×)")
    RESULTS["embedder"] = {"question_p50_ms": p50, "question_ratio": p50["onnx"] / p50["torch"],
                           "cold_index": cold, "cold_index_ratio": ratio}


def retrieval_ms(engine: Engine, questions: list[str], configs: list[Config]) -> dict[str, list[float]]:
    """Milliseconds of a retrieval-only run of each config per question, by config name.

    The configs take turns on each question (the first to run rotates), so a burst of load on a busy machine
    falls on all of them alike and their ratios compare like with like. Each run makes its own query context:
    no config reuses another's embedding or pools."""
    samples: dict[str, list[float]] = {config.name: [] for config in configs}
    for number, question in enumerate(questions):
        shift = number % len(configs)
        for config in configs[shift:] + configs[:shift]:
            started = time.perf_counter()
            engine.run(question, config, retrieval_only=True)
            samples[config.name].append((time.perf_counter() - started) * 1000)
    return samples


def bench_retrieval() -> None:
    """Retrieval latency per preset (no LLM) and six presets together vs the slowest alone."""
    from rag.config import PRESETS
    from rag.index.build import ingest_paths, open_index
    from rag.runner import Engine
    from rag.settings import Settings

    print("\n## Retrieval latency (no LLM) on the real index")
    settings = Settings.from_env()
    index = open_index(settings)
    if index.is_empty():
        ingest_paths(index, [STACKONE])
    engine = Engine(index, default_llm="extractive")
    questions = [json.loads(line)["question"] for line in (ROOT / "eval_data" / "dev_set.jsonl").open()][:60]
    for question in questions[:5]:
        engine.run_many(question, list(PRESETS.values()), retrieval_only=True)  # warm up
    engine.prepare(list(PRESETS.values()))  # as the app's, the MCP server's and the REST API's warm-up do
    from dataclasses import replace

    no_rerank = replace(PRESETS["full"], name="full-no-rerank", reranker="none")
    names = ("C0", "C1", "C2", "C3", "C5", "E2", "full")
    measured = retrieval_ms(engine, questions, [PRESETS[name] for name in names] + [no_rerank])
    latencies = {name: measured[name] for name in names}
    for name, samples in latencies.items():
        print(f"{name:6} p50 {percentile(samples, 50):6.1f} ms  p95 {percentile(samples, 95):6.1f} ms")
    samples = measured[no_rerank.name]
    full_p50, c2_p50 = percentile(latencies["full"], 50), percentile(latencies["C2"], 50)
    print(
        f"full without reranker p50 {percentile(samples, 50):.1f} ms; "
        f"full p50 {full_p50:.1f} ms (target ≤ 30 ms) = {full_p50 / c2_p50:.2f}× C2's {c2_p50:.1f} ms "
        "in the same run (target ≤ 1.5×)"
    )
    six = [PRESETS[name] for name in ("C0", "C1", "C2", "C3", "C5", "full")]
    together, slowest = [], []
    for question in questions:
        started = time.perf_counter()
        engine.run_many(question, six, retrieval_only=True)
        together.append((time.perf_counter() - started) * 1000)
        alone = []
        for config in six:  # each run embeds the query and builds its pools anew, as a single config would
            started = time.perf_counter()
            engine.run(question, config, retrieval_only=True)
            alone.append((time.perf_counter() - started) * 1000)
        slowest.append(max(alone))
    ratio = statistics.median(together) / statistics.median(slowest)
    print(
        f"six presets together p50 {statistics.median(together):.1f} ms vs slowest alone p50 "
        f"{statistics.median(slowest):.1f} ms: {ratio:.2f}× (target ≤ 1.5×)"
    )
    RESULTS["retrieval"] = {
        name: {"p50": percentile(v, 50), "p95": percentile(v, 95)} for name, v in latencies.items()
    } | {"full_no_rerank_p50": percentile(samples, 50), "six_together_ratio": ratio,
         "full_over_c2_p50": full_p50 / c2_p50}


def bench_eval() -> None:
    """Dry-run evaluation: 150 questions × 3 configs (target under a minute)."""
    print("\n## Evaluation dry run (150 questions × 3 configs)")
    questions = [json.loads(line) for line in (ROOT / "eval_data" / "dev_set.jsonl").open()]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "q.jsonl"
        with path.open("w") as handle:
            for number in range(150):
                item = dict(questions[number % len(questions)], id=f"q{number}")
                handle.write(json.dumps(item) + "\n")
        started = time.perf_counter()
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "rag",
                "eval",
                "--questions",
                str(path),
                "--configs",
                "C0,C5,full",
                "--dry-run",
                "--out",
                str(Path(scratch) / "out"),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={**os.environ, "TQDM_DISABLE": "1"},
        )
        seconds = time.perf_counter() - started
    status = "ok" if completed.returncode == 0 else f"failed: {completed.stderr.strip()[-300:]}"
    print(f"dry run: {seconds:.1f} s ({status}; target < 60 s)")
    RESULTS["eval_dry_run_s"] = seconds


def bench_scale() -> None:
    """Concurrent retrieval throughput at 1, 4 and 8 threads (see bench/scale.py)."""
    from bench.scale import bench_throughput

    RESULTS["throughput"] = bench_throughput()


def bench_all_specs() -> None:
    """Index size and time of every spec in ../shared/specs together (slow: ~5 minutes)."""
    from bench.scale import bench_all_specs as run_all_specs

    RESULTS["all_specs"] = run_all_specs()


def bench_app() -> None:
    """Submit → all columns filled for three configs with the extractive generator, and the app's RSS."""
    try:
        from bench.app import bench_app as run_app
    except ImportError:
        print("\n## App: bench/app.py not present")
        return
    RESULTS["app"] = run_app()


def bench_embedder_blind() -> None:
    """The blinded sets with each embedder backend (bench/embedder_blind.py; asked for by name only)."""
    from bench.embedder_blind import bench_embedder_blind as run_embedder_blind

    RESULTS["embedder_blind"] = run_embedder_blind()


def bench_local_llm() -> None:
    """llama.cpp settings, then the five assignment questions with each local model (bench/local_llm.py)."""
    from bench.local_llm import bench_answers, bench_settings

    RESULTS["local_llm"] = {"settings": bench_settings(), "answers": bench_answers()}


def bench_c4_local() -> None:
    """C4's LLM reranker against the local model's server on 20 validation questions (bench/local_llm.py)."""
    from bench.local_llm import bench_c4_local as run_c4_local

    RESULTS["c4_local_server"] = run_c4_local()


def bench_embedding_floor() -> None:
    """The project's embedding path against a plain loop over the same ONNX model and texts (bench/ingest_speed.py)."""
    from bench.ingest_speed import bench_embedding_floor as run_floor

    RESULTS["embedding_floor"] = run_floor()


def bench_time_to_searchable() -> None:
    """`rag ingest` of OpenAI's spec into a fresh index until `full` can answer (bench/ingest_speed.py)."""
    from bench.ingest_speed import bench_time_to_searchable as run_searchable

    RESULTS["time_to_searchable"] = run_searchable()


def bench_rest_api() -> None:
    """/ask afresh vs from the query cache, and ten concurrent calls (see bench/rest.py)."""
    from bench.rest import bench_rest

    RESULTS["rest"] = bench_rest()


SECTIONS = {
    "embedder": bench_embedder,
    "index": bench_index,
    "retrieval": bench_retrieval,
    "eval": bench_eval,
    "throughput": bench_scale,
    "all-specs": bench_all_specs,
    "app": bench_app,
    "rest": bench_rest_api,
    "embedding-floor": bench_embedding_floor,
    "searchable": bench_time_to_searchable,
    "local-llm": bench_local_llm,
    "c4-local": bench_c4_local,
}
# Sections run only when named: the blinded sets take 10-20 minutes per embedder backend.
ON_REQUEST = {"embedder-blind": bench_embedder_blind}


def main(argv: list[str]) -> int:
    """Run the chosen sections (all by default)."""
    chosen = argv or list(SECTIONS)
    sections = SECTIONS | ON_REQUEST
    unknown = [name for name in chosen if name not in sections]
    if unknown:
        print(f"unknown section(s) {', '.join(unknown)}; allowed: {', '.join(sections)}", file=sys.stderr)
        return 2
    if not STACKONE.is_dir():
        print(f"the StackOne specs are needed at {STACKONE} (set RAG_SHARED_DIR)", file=sys.stderr)
        return 2
    for name in chosen:
        sections[name]()
    print(f"\npeak RSS of the benchmark process: {rss_mb():.0f} MiB")
    RESULTS["bench_rss_mb"] = rss_mb()
    (ROOT / "bench" / "results.json").write_text(json.dumps(RESULTS, indent=2, default=str))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(main(sys.argv[1:]))
