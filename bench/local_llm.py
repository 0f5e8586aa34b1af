"""Local LLM benchmarks: llama.cpp settings, the five assignment questions per model, C4 via the local server.

- `bench_settings`: prefill and decode tokens/s of the local GGUF model for n_threads × n_batch (× flash
  attention when this llama-cpp-python has it), on a ~300-token prompt.
- `bench_answers`: the five assignment questions through `full` with each local model (1.5B, 0.5B when
  assembled), streamed as the app streams them: time to the first token and to the whole answer, prompt and
  answer tokens, and whether the answer holds the fact the specs give (the check is printed beside it).
- `bench_c4_local`: C4 (LLM reranking of 15 candidates) against `make llm-server`'s model over real HTTP on
  the first N questions of the StackOne benchmark's validation split, retrieval only: rerank time and
  hit@5/MRR from the evaluation's metrics.json (totals only), beside C3 (the same without the reranker).

Every section says why it is skipped when the model or runtime is missing (`make local-llm`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import ROOT, SHARED, STACKONE

MODELS_DIR = ROOT / "models"
MODEL_FILES = {
    "1.5B": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "0.5B": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
}
PREFILL_TOKENS = 300
DECODE_TOKENS = 32


@dataclass(frozen=True)
class AssignmentQuestion:
    """One of the assignment's five questions, the fact the specs give, and a check that an answer holds it."""

    topic: str
    question: str
    truth: str
    check: Callable[[str], bool]


def _says_no(answer: str) -> bool:
    return bool(re.search(r"\b(no|not|cannot|can't|doesn't|does not|isn't|only)\b", answer, re.I))


ASSIGNMENT_QUESTIONS: tuple[AssignmentQuestion, ...] = (
    AssignmentQuestion("authentication", "How do I authenticate with the StackOne API?",
                       "HTTP Basic", lambda a: "basic" in a.lower()),
    AssignmentQuestion("Workday accounts", "Can I get all linked accounts for one provider, such as Workday?",
                       "yes: GET /accounts with the provider query parameter",
                       lambda a: "/accounts" in a and "provider" in a.lower() and not a.lower().startswith("no")),
    AssignmentQuestion("session expiry", "What is the default expiry of a connect session token?",
                       "expires_in defaults to 1800 seconds (30 minutes)", lambda a: "1800" in a.replace(",", "")),
    AssignmentQuestion("LMS course creation", "How do I create a new course in the LMS API?",
                       "no endpoint creates a course (GET only)",
                       lambda a: _says_no(a) and "POST /unified/lms/courses" not in a.replace("`", "")),
    AssignmentQuestion("employee list response", "What does the response look like when I list employees in HRIS?",
                       "EmployeesPaginated: next_page, next, data, raw",
                       lambda a: "EmployeesPaginated" in a or ("next" in a and "data" in a)),
)
WARM_UP = "How do I list employees?"


def runtime_skip_reason() -> str | None:
    """Why the local model cannot run here, or None."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (run `make local-llm`)"
    if not (MODELS_DIR / MODEL_FILES["1.5B"]).is_file():
        return f"{MODELS_DIR / MODEL_FILES['1.5B']} is absent (run `make local-llm`)"
    return None


def _prompt_tokens(llm: Any, count: int) -> list[int]:
    """About `count` tokens of spec-like text, tokenized by the model."""
    text = " ".join(
        f"- field_{n} (string, optional): The value of field number {n} of the employee record. Default: {n}."
        for n in range(count)
    )
    return llm.tokenize(text.encode("utf-8"), add_bos=False)[:count]


def measure(model: Path, n_threads: int, n_batch: int, flash_attn: bool | None = None) -> dict[str, float]:
    """Load `model` with these settings; prefill PREFILL_TOKENS and decode DECODE_TOKENS one by one."""
    import llama_cpp

    options: dict[str, Any] = {"n_ctx": 2048, "n_threads": n_threads, "n_threads_batch": n_threads,
                               "n_batch": n_batch, "n_ubatch": n_batch, "verbose": False}
    if flash_attn is not None:
        options["flash_attn"] = flash_attn
    started = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(model), **options)
    load_s = time.perf_counter() - started
    tokens = _prompt_tokens(llm, PREFILL_TOKENS)
    llm.eval(tokens[:8])  # warm the threads and caches
    llm.reset()
    started = time.perf_counter()
    llm.eval(tokens)
    prefill_s = time.perf_counter() - started
    started = time.perf_counter()
    for token in tokens[:DECODE_TOKENS]:
        llm.eval([token])
    decode_s = time.perf_counter() - started
    llm.close()
    return {"load_s": load_s, "prefill_tok_s": len(tokens) / prefill_s, "decode_tok_s": DECODE_TOKENS / decode_s}


def flash_attention_supported() -> bool:
    """Whether this llama-cpp-python's `Llama` takes `flash_attn`."""
    import inspect

    import llama_cpp

    return "flash_attn" in inspect.signature(llama_cpp.Llama.__init__).parameters


def bench_settings(model: Path | None = None) -> list[dict[str, Any]]:
    """Prefill/decode tokens/s for n_threads 1, 2 × n_batch 64, 256, 512 (× flash attention when available)."""
    print("\n## Local LLM: llama.cpp settings (prefill ~300 tokens, decode 32 tokens, 1.5B)")
    reason = runtime_skip_reason()
    if reason:
        print(f"skipped: {reason}")
        return []
    model = model or MODELS_DIR / MODEL_FILES["1.5B"]
    flash = [False, True] if flash_attention_supported() else [None]
    rows = []
    print(f"{'threads':>7} {'batch':>5} {'flash':>5} {'prefill tok/s':>13} {'decode tok/s':>12}"
          f"  (load avg {_load():.1f})")
    for threads in (1, 2):
        for batch in (64, 256, 512):
            for flash_attn in flash:
                figures = measure(model, threads, batch, flash_attn)
                rows.append({"n_threads": threads, "n_batch": batch, "flash_attn": flash_attn, **figures})
                print(f"{threads:>7} {batch:>5} {flash_attn!s:>5} {figures['prefill_tok_s']:>13.1f} "
                      f"{figures['decode_tok_s']:>12.1f}")
    return rows


def _load() -> float:
    """The 1-minute load average: other work on a 2-core machine slows every figure here."""
    return os.getloadavg()[0]


def answer_one(engine: Any, question: str, config: Any) -> dict[str, Any]:
    """Stream one answer as the app does; time to the first shown token and to the finished result."""
    from rag.results import AnswerResult

    started = time.perf_counter()
    first: float | None = None
    result: AnswerResult | None = None
    for item in engine.stream(question, config):
        if isinstance(item, AnswerResult):
            result = item
        elif getattr(item, "kind", "") == "token" and item.text.strip() and first is None:
            first = time.perf_counter() - started
    total = time.perf_counter() - started
    assert result is not None
    return {
        "first_token_s": first if first is not None else total,
        "total_s": total,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "answer": result.answer,
        "abstained": result.abstained,
        "errors": list(result.errors),
    }


def bench_answers(models: dict[str, str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The five assignment questions through `full` with each assembled local model (streamed, warm)."""
    print("\n## Local LLM: the five assignment questions (`full`, streamed; after one warm-up question)")
    reason = runtime_skip_reason()
    if reason:
        print(f"skipped: {reason}")
        return {}
    from rag.config import PRESETS
    from rag.index.build import ingest_paths, open_index
    from rag.runner import Engine
    from rag.settings import Settings

    index = open_index(Settings.from_env())
    if index.is_empty():
        ingest_paths(index, [STACKONE])
    report: dict[str, list[dict[str, Any]]] = {}
    for label, filename in (models or MODEL_FILES).items():
        path = MODELS_DIR / filename
        if not path.is_file():
            print(f"{label}: skipped ({path} is absent: `python scripts/assemble_local_model.py --model "
                  f"{label.lower()}`)")
            continue
        engine = Engine(index, default_llm=f"local:{path}")
        answer_one(engine, WARM_UP, PRESETS["full"])  # loads the weights, caches the system prompt
        rows = []
        print(f"\n### {label} ({filename}; load avg {_load():.1f})")
        for item in ASSIGNMENT_QUESTIONS:
            row = answer_one(engine, item.question, PRESETS["full"])
            row["correct"] = not row["errors"] and not row["abstained"] and item.check(row["answer"])
            row["topic"] = item.topic
            rows.append(row)
            flat = " ".join(row["answer"].split())
            print(f"{item.topic:24} first token {row['first_token_s']:5.1f} s  whole {row['total_s']:5.1f} s  "
                  f"tokens {row['tokens_in']:>4} in {row['tokens_out']:>3} out  "
                  f"{'correct' if row['correct'] else 'WRONG'} (truth: {item.truth})\n    {flat[:300]}")
        correct = sum(row["correct"] for row in rows)
        print(f"{label}: {correct}/5 correct; first token max {max(r['first_token_s'] for r in rows):.1f} s "
              f"(target ≤ 10 s); whole answer max {max(r['total_s'] for r in rows):.1f} s (target ≤ 20 s), "
              f"median {statistics.median(r['total_s'] for r in rows):.1f} s")
        report[label] = rows
    return report


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bench_c4_local(questions: int = 20) -> dict[str, Any]:
    """C3 and C4 (retrieval only) on the first `questions` validation questions, the reranker on the local server."""
    print(f"\n## C4 with the local LLM server: LLM reranking on {questions} StackOne-benchmark validation questions")
    reason = runtime_skip_reason()
    if reason:
        print(f"skipped: {reason}")
        return {}
    from rag.llm.server import base_url, missing_server_modules, start_server, stop_server

    missing = missing_server_modules()
    if missing:
        print(f"skipped: the server extras {', '.join(missing)} are missing (`make local-llm`)")
        return {}
    source = SHARED / "eval" / "stackone-benchmark" / "benchmark-dataset-validation.json"
    model = MODELS_DIR / MODEL_FILES["1.5B"]
    port = free_port()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        subset = folder / "validation-subset.json"
        subset.write_text(json.dumps(json.loads(source.read_text(encoding="utf-8"))[:questions]), encoding="utf-8")
        server = start_server(model, port, log=folder / "server.log")
        try:
            env = {**os.environ, "OPENAI_BASE_URL": base_url(port), "OPENAI_API_KEY": "local",
                   "RAG_LLM": f"openai:{model.stem}", "TQDM_DISABLE": "1"}
            started = time.perf_counter()
            completed = subprocess.run(
                [sys.executable, "-m", "rag", "eval", "--questions", str(subset), "--configs", "C3,C4",
                 "--retrieval-only", "--out", str(folder / "out"), "--json"],
                cwd=ROOT, capture_output=True, text=True, env=env, check=False,
            )
            seconds = time.perf_counter() - started
        finally:
            stop_server(server)
        if completed.returncode != 0:
            print(f"failed: {completed.stderr.strip()[-400:]}")
            return {"error": completed.stderr.strip()[-400:]}
        metrics = json.loads((folder / "out" / "metrics.json").read_text(encoding="utf-8"))["configs"]
    report: dict[str, Any] = {"questions": questions, "seconds": seconds}
    for name in ("C3", "C4"):
        row = metrics[name]
        rerank = row.get("latency_by_stage", {}).get("rerank", {})
        report[name] = {key: row.get(key) for key in ("n", "hit@5", "mrr", "errors", "latency_ms_p50",
                                                       "latency_ms_p95", "tokens_in", "tokens_out")}
        report[name]["rerank_ms"] = rerank
        print(f"{name}: hit@5 {row['hit@5']:.3f}  MRR {row['mrr']:.3f}  errors {row['errors']}  "
              f"latency p50 {row['latency_ms_p50'] / 1000:.1f} s  p95 {row['latency_ms_p95'] / 1000:.1f} s"
              + (f"  rerank p50 {rerank['p50'] / 1000:.1f} s p95 {rerank['p95'] / 1000:.1f} s" if rerank else "")
              + f"  tokens in {row.get('tokens_in', 0)}")
    print(f"whole run {seconds:.0f} s (load avg {_load():.1f})")
    return report
