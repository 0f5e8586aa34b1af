"""Scale benchmarks: concurrent retrieval throughput, and one index of every spec in the shared folder.

    .venv/bin/python -m bench throughput all-specs

`bench_throughput()` answers retrieval-only questions from `eval_data/dev_set.jsonl` on 1, 4 and 8
threads against the real index (`open_index(Settings.from_env())`) and reports questions per second.
Every question text differs between rounds (one extra space inside it per round), so no round can
reuse another's query embeddings or memoised work: each question pays for its own embedding, as a
user's question would.

`bench_all_specs()` indexes every spec under `<shared>/specs/` into a fresh temporary index: StackOne
(current), StackOne 2025-02 (the same file names, so those are indexed as `<name>-2025-02.json` under
their own API names) and the external vendors' specs; it reports the time per group, the chunks and
the size of the index on disk.

Both return a JSON-ready dict and print a short report.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench import ROOT, SHARED, percentile

SPECS = SHARED / "specs"
SPEC_SUFFIXES = (".json", ".yaml", ".yml")


def _questions(limit: int | None = None) -> list[str]:
    with (ROOT / "eval_data" / "dev_set.jsonl").open(encoding="utf-8") as handle:
        questions = [json.loads(line)["question"] for line in handle if line.strip()]
    return questions[:limit] if limit else questions


def _variant(question: str, round_number: int) -> str:
    """The same question with `round_number` extra spaces after its first word: new to the embedding cache,
    the same to the tokenizer."""
    head, _, tail = question.partition(" ")
    return f"{head}{' ' * (round_number + 1)} {tail}" if tail else question + " ." * (round_number + 1)


def _timed_run(engine: Any, config: Any, text: str) -> tuple[float, int]:
    """(milliseconds, number of errors) of one retrieval-only question."""
    started = time.perf_counter()
    result = engine.run(text, config, retrieval_only=True)
    return (time.perf_counter() - started) * 1000, len(result.errors)


def bench_throughput(
    threads: tuple[int, ...] = (1, 4, 8), config_name: str = "full", questions: int = 80
) -> dict[str, Any]:
    """Questions per second of concurrent retrieval-only questions on the real index, per thread count."""
    from rag.config import PRESETS
    from rag.index.build import ingest_paths, open_index
    from rag.runner import Engine
    from rag.settings import Settings

    settings = Settings.from_env()
    index = open_index(settings)
    if index.is_empty():
        ingest_paths(index, [SPECS / "stackone"])
    engine = Engine(index, default_llm="extractive")
    config = PRESETS[config_name]
    texts = _questions(questions)
    for text in texts[:5]:
        engine.run(text, config, retrieval_only=True)  # load the model, build the snapshot and BM25
    print(f"\n## Throughput: retrieval-only questions ({config_name}) on {settings.index_dir}, "
          f"{len(index.documents())} documents, {os.cpu_count()} CPU cores")
    report: dict[str, Any] = {"config": config_name, "questions": len(texts), "cpu_count": os.cpu_count(),
                              "index_dir": str(settings.index_dir), "embedding_model": settings.embedding_model,
                              "threads": {}}
    for round_number, count in enumerate(threads):
        batch = [_variant(text, round_number + 1) for text in texts]
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=count) as pool:
            timed = list(pool.map(lambda text: _timed_run(engine, config, text), batch))
        wall = time.perf_counter() - started
        latencies = [ms for ms, _ in timed]
        errors = sum(failed for _, failed in timed)
        row = {"questions_per_s": len(batch) / wall, "wall_s": wall, "p50_ms": statistics.median(latencies),
               "p95_ms": percentile(latencies, 95), "errors": errors}
        report["threads"][str(count)] = row
        print(f"{count} thread(s): {row['questions_per_s']:6.1f} questions/s  p50 {row['p50_ms']:6.1f} ms  "
              f"p95 {row['p95_ms']:6.1f} ms  ({len(batch)} questions in {wall:.1f} s, {errors} errors)")
    return report


def _folder_size(path: Path) -> int:
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


def spec_groups(specs: Path = SPECS) -> dict[str, list[tuple[Path, str]]]:
    """(file, document name) per group: the older StackOne version gets `-<folder suffix>` names."""
    groups: dict[str, list[tuple[Path, str]]] = {}
    for folder in sorted(p for p in specs.iterdir() if p.is_dir()):
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SPEC_SUFFIXES)
        if not files:
            continue
        suffix = folder.name.removeprefix("stackone-") if folder.name.startswith("stackone-") else ""
        groups[folder.name] = [(path, f"{path.stem}-{suffix}{path.suffix}" if suffix else path.name) for path in files]
    return groups


def bench_all_specs(specs: Path = SPECS, embedding_model: str | None = None) -> dict[str, Any]:
    """Time and disk size of one fresh index of every spec under `specs` (all groups together)."""
    from rag.index.build import open_index
    from rag.index.store import Index
    from rag.ingest.pipeline import parse_document
    from rag.settings import Settings

    groups = spec_groups(specs)
    print(f"\n## All specs in one index: {sum(len(files) for files in groups.values())} specs in "
          f"{', '.join(groups)}")
    report: dict[str, Any] = {"groups": {}, "specs": sum(len(files) for files in groups.values())}
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        overrides: dict[str, Any] = {"index_dir": base / "index", "cache_dir": base / "cache"}
        if embedding_model:
            overrides["embedding_model"] = embedding_model
        settings = Settings.from_env(**overrides)
        started = time.perf_counter()
        index = open_index(settings)
        index.embedder.embed(["warm up the embedding model"])
        load_s = time.perf_counter() - started
        total_started = time.perf_counter()
        for group, files in groups.items():
            group_started = time.perf_counter()
            parse_s = 0.0
            chunks = 0
            for path, name in files:
                parse_started = time.perf_counter()
                parsed = parse_document(name, path.read_bytes())
                parse_s += time.perf_counter() - parse_started
                added = index.add(parsed, on_duplicate="reject")
                chunks += sum(added.chunk_counts.values())
            seconds = time.perf_counter() - group_started
            report["groups"][group] = {"specs": len(files), "chunks": chunks, "seconds": seconds, "parse_s": parse_s}
            print(f"{group:18} {len(files):2} specs {chunks:6} chunks  {seconds:7.1f} s (parse {parse_s:.1f} s)")
        total_s = time.perf_counter() - total_started
        stats = index.stats()
        index_bytes = _folder_size(base / "index")
        cache_bytes = _folder_size(base / "cache")
        started = time.perf_counter()  # what a new process pays before its first question (model aside)
        reopened = Index(base / "index", index.embedder, chroma_client=index.client)
        reopened_chunks = len(reopened.snapshot().chunks)
        report.update({
            "embedding_model": stats["embedding_model"],
            "documents": stats["documents"],
            "chunks": stats["chunks"],
            "model_load_s": load_s,
            "ingest_s": total_s,
            "index_mb": index_bytes / 2**20,
            "embedding_cache_mb": cache_bytes / 2**20,
            "snapshot_chunks": reopened_chunks,
            "reopen_s": time.perf_counter() - started,
        })
    print(f"total: {report['documents']} documents, {sum(report['chunks'].values())} chunks "
          f"({', '.join(f'{k}={v}' for k, v in report['chunks'].items())}) in {total_s:.1f} s "
          f"(+ model load {load_s:.1f} s); index {report['index_mb']:.0f} MiB on disk "
          f"(+ embedding cache {report['embedding_cache_mb']:.0f} MiB); reopening it takes {report['reopen_s']:.1f} s")
    return report
