"""Faults: a failing LLM backend, ingestion killed with SIGKILL, a damaged index, API keys kept secret.

* An LLM backend that times out, rate-limits (429) or fails (5xx) is retried a bounded number of times
  (the SDK's `max_retries`, 3 attempts in all), then that configuration's result carries one clear error
  while the other configurations of the same question still answer.
* `kill -9` during ingestion leaves the previous version of every document live and searchable, and
  the next ingestion completes (the killed run's half-written chunks are collected as orphans).
* A damaged or half-missing index folder is detected when it is opened, with instructions to rebuild it;
  the command line prints that one line and exits with code 2.
* API keys never reach stdout, stderr, logs or result files, even when the server echoes them back.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from rag.config import Config
from rag.errors import ConfigError, IndexUnavailableError
from rag.index.build import ingest_paths, open_index
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.llm.factory import MAX_RETRIES, make_chat_model
from rag.runner import Engine
from rag.settings import Settings
from tests.conftest import FIXTURES, ROOT, SHARED
from tests.llm.fake_openai_server import FakeOpenAIServer, FakeReply
from tests.processes import load_allowance, rag_in_process
from tests.reliability.cases import rag_cli, stable_stats

pytestmark = pytest.mark.timeout(300)
PEOPLE = FIXTURES / "specs" / "people-3.1.json"
SHOP = FIXTURES / "specs" / "shop-3.0.yaml"
OPENAI_SPEC = SHARED / "specs" / "external" / "openai-openapi.yaml"
SECRET = "sk-test-SECRET-7d41c9e0b2a84f6f"
LLM = Config("llm", chunking="smart", retriever="vector", generator="openai:fake-model", rewrite=False)
EXTRACTIVE = Config("extractive", chunking="smart", retriever="hybrid", generator="extractive", rewrite=False)


# ---------------------------------------------------------------------- LLM backend faults
@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    index = Index(tmp_path_factory.mktemp("faults") / "index", HashingEmbedder())
    assert {r.status for r in ingest_paths(index, [PEOPLE, SHOP])} == {"added"}
    return index


def engine_for(index: Index, server: FakeOpenAIServer, timeout: float = 5.0) -> Engine:
    env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url}
    return Engine(index, default_llm="extractive",
                  chat_model_factory=lambda spec: make_chat_model(spec, timeout=timeout, env=env))


@pytest.mark.parametrize(
    ("reply", "timeout", "expected"),
    [
        (FakeReply(delay=30), 0.3, "timed out after 0.3 s per attempt, 3 attempts"),
        (FakeReply(status=429, error_message="slow down"), 5.0, "rate limited (429) after 3 attempts: slow down"),
        (FakeReply(status=503, error_message="overloaded"), 5.0, "server error (503) after 3 attempts: overloaded"),
        (FakeReply(status=500), 5.0, "server error (500) after 3 attempts"),
    ],
    ids=["timeout", "429", "503", "500"],
)
def test_llm_failure_is_retried_a_bounded_number_of_times_and_stays_in_its_config(
    small_index: Index, reply: FakeReply, timeout: float, expected: str
) -> None:
    with FakeOpenAIServer(default=reply) as server:
        engine = engine_for(small_index, server, timeout)
        started = time.perf_counter()
        llm, extractive = engine.run_many("How do I list employees?", [LLM, EXTRACTIVE])
        elapsed = time.perf_counter() - started
        attempts = len(server.requests)
    assert attempts == MAX_RETRIES + 1 == 3
    assert elapsed < 15 * load_allowance(), f"{elapsed:.1f} s: retries are not bounded"
    assert len(llm.errors) == 1, llm.errors
    assert llm.errors[0].startswith("generation with openai:fake-model failed: openai:fake-model: ")
    assert expected in llm.errors[0]
    assert not llm.answer and llm.chunks, "retrieval still ran; only generation failed"
    assert not extractive.errors and extractive.answer and extractive.citations


def test_llm_recovers_when_a_retry_succeeds(small_index: Index) -> None:
    answer = {"abstained": False, "answer": "Use `GET /unified/hris/employees` [1].", "citations": [1]}
    with FakeOpenAIServer([FakeReply(status=503), FakeReply(text=json.dumps(answer))]) as server:
        llm, extractive = engine_for(small_index, server).run_many("How do I list employees?", [LLM, EXTRACTIVE])
        assert len(server.requests) == 2
    assert not llm.errors and llm.answer == answer["answer"]
    assert not extractive.errors


# ---------------------------------------------------------------------- damaged index folders
@pytest.fixture(scope="module")
def built_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index written by another process (so this one never holds its files open)."""
    index = tmp_path_factory.mktemp("built") / "index"
    done = rag_cli("ingest", str(PEOPLE), str(SHOP), index=index)
    assert done.returncode == 0, done.stderr
    return index


def garbage_registry(index: Path) -> None:
    (index / "registry.sqlite3").write_bytes(os.urandom(20_480))


def garbage_chroma(index: Path) -> None:
    with (index / "chroma" / "chroma.sqlite3").open("r+b") as handle:
        handle.write(os.urandom(8192))


def truncated_chroma(index: Path) -> None:
    path = index / "chroma" / "chroma.sqlite3"
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 3)


def missing_chroma(index: Path) -> None:
    shutil.rmtree(index / "chroma")


DAMAGE = {
    "garbage-registry": garbage_registry,
    "garbage-chroma-sqlite": garbage_chroma,
    "truncated-chroma-sqlite": truncated_chroma,
    "missing-chroma-folder": missing_chroma,
}


def damaged_copy(built: Path, tmp_path: Path, damage: str) -> Path:
    copy = tmp_path / f"index-{damage}"
    shutil.copytree(built, copy)
    DAMAGE[damage](copy)
    return copy


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_index_is_detected_at_open_with_rebuild_instructions(
    built_index: Path, tmp_path: Path, damage: str
) -> None:
    copy = damaged_copy(built_index, tmp_path, damage)
    with pytest.raises(IndexUnavailableError) as caught:
        open_index(Settings(index_dir=copy, embedding_model="hashing"), embedder=HashingEmbedder())
    message = str(caught.value)
    assert str(copy) in message and "rebuild" in message and "python -m rag ingest" in message


def test_missing_index_folder_is_created_empty_and_ask_says_how_to_build_it(tmp_path: Path) -> None:
    index = open_index(Settings(index_dir=tmp_path / "new", embedding_model="hashing"), embedder=HashingEmbedder())
    assert index.is_empty()
    done = rag_cli("ask", "list employees", index=tmp_path / "missing")
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: the index is empty; run `python -m rag ingest PATH...` or "
                                   "`make index` first")


def test_index_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index_store"
    path.write_text("not a folder")
    with pytest.raises(ConfigError, match="is a file; it must be a folder"):
        Settings(index_dir=path)
    done = rag_cli("stats", index=path)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "is a file; it must be a folder" in lines[0] and "python -m rag ingest" in lines[0]


def test_cli_reports_a_damaged_index_in_one_line_with_exit_code_2(built_index: Path, tmp_path: Path) -> None:
    copy = damaged_copy(built_index, tmp_path, "missing-chroma-folder")
    done = rag_cli("stats", index=copy)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "rebuild" in lines[0], done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("command", ["stats", "ask"])
def test_cli_reports_each_damaged_index(built_index: Path, tmp_path: Path, damage: str, command: str,
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                        caplog: pytest.LogCaptureFixture) -> None:
    """The commands' handling of each damage (in process: the process's one line is tested above); nothing is
    logged that a process would add to its error line."""
    copy = damaged_copy(built_index, tmp_path, damage)
    command_line = ["ask", "list employees", "--configs", "C1"] if command == "ask" else ["stats"]
    with caplog.at_level(logging.WARNING):
        done = rag_in_process(*command_line, index=copy, monkeypatch=monkeypatch, capsys=capsys)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "rebuild" in lines[0], done.stderr
    assert not caplog.records, caplog.text


# ---------------------------------------------------------------------- API keys stay secret
def assert_secret_absent(*texts: str, folder: Path | None = None) -> None:
    for text in texts:
        assert SECRET not in text and SECRET[3:] not in text
    if folder is not None:
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert SECRET.encode() not in data and SECRET[3:].encode() not in data, path


def secret_env(tmp_path: Path, server: FakeOpenAIServer) -> dict[str, str]:
    return {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url, "RAG_LLM": "",
            "RAG_EVAL_LOG": str(tmp_path / "out" / "eval.log")}


def echoing_server() -> FakeOpenAIServer:
    """Answers 401 once, then 500; every error message echoes the key (as some proxies do)."""
    failing = FakeReply(status=500, error_message=f"upstream failed for key {SECRET}", echo_auth=True)
    return FakeOpenAIServer([FakeReply(status=401, echo_auth=True)], default=failing)


def assert_key_was_sent(server: FakeOpenAIServer) -> None:
    sent = [request.headers.get("authorization", "") for request in server.requests]
    assert sent and all(header == f"Bearer {SECRET}" for header in sent), "the key was not even used"


def test_api_key_never_appears_in_ask_output(built_index: Path, tmp_path: Path) -> None:
    with echoing_server() as server:
        ask = rag_cli("ask", "How do I list employees?", "--configs", "C1,C2", "--llm", "openai:fake-model",
                      "--json", index=built_index, env=secret_env(tmp_path, server))
        assert_key_was_sent(server)
    assert ask.returncode == 2, ask.stderr
    results = json.loads(ask.stdout)
    errors = [error for result in results for error in result["errors"]]
    assert any("authentication failed (401)" in error for error in errors), errors
    assert any("server error (500)" in error and "***" in error for error in errors), errors
    assert_secret_absent(ask.stdout, ask.stderr, folder=tmp_path)


@pytest.mark.slow
def test_api_key_never_appears_in_eval_records_or_logs(built_index: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "How do I list employees?", "answerable": True,
                                     "relevant_ids": ["people-3_1.paths./unified/hris/employees.get"]}) + "\n")
    with echoing_server() as server:
        evaluation = rag_cli("eval", "--questions", str(questions), "--configs", "C1", "--llm", "openai:fake-model",
                             "--out", str(tmp_path / "out"), index=built_index, env=secret_env(tmp_path, server))
        assert_key_was_sent(server)
    assert evaluation.returncode == 0, evaluation.stderr
    records = [json.loads(line) for line in (tmp_path / "out" / "C1.jsonl").read_text().splitlines()]
    assert records and all("failed" in record.get("error", "") for record in records), records
    assert (tmp_path / "out" / "eval.log").is_file() and (tmp_path / "out" / "metrics.json").is_file()
    assert_secret_absent(evaluation.stdout, evaluation.stderr, folder=tmp_path)


# ---------------------------------------------------------------------- SIGKILL during ingestion
def raw_counts(index_dir: Path) -> dict[str, int]:
    """Chunks per collection as stored, orphans included, read in a fresh process."""
    script = (
        "import json, sys, chromadb\n"
        "from chromadb.config import Settings\n"
        "client = chromadb.PersistentClient(path=sys.argv[1], settings=Settings(anonymized_telemetry=False))\n"
        "print(json.dumps({c.name: c.count() for c in client.list_collections()}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(index_dir / "chroma")], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return {name.removeprefix("specrag_"): count for name, count in json.loads(done.stdout).items()}


def expected_counts(stats: dict[str, Any]) -> dict[str, int]:
    return {strategy: count for strategy, count in stats["chunks"].items()}


def ingest_and_kill(index_dir: Path, spec: Path, after_chunks: int) -> tuple[int, int]:
    """Start `ingest spec --embed-all` (every chunk before the spec goes live), SIGKILL it once its progress line says
    `after_chunks` embedded; (done, total). (A kill after it went live: tests/cli/test_index_commands.py.)"""
    env = {**os.environ, "RAG_EMBEDDING_MODEL": "hashing", "RAG_LLM": "extractive"}
    env.pop("TQDM_DISABLE", None)
    process = subprocess.Popen([sys.executable, "-m", "rag", "ingest", str(spec), "--index-dir", str(index_dir),
                                "--embed-all"],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    progress = re.compile(rb"embedded (\d+)/(\d+) chunks")
    seen = b""
    killed: tuple[int, int] | None = None
    timer = threading.Timer(240, process.kill)
    timer.start()
    try:
        assert process.stderr is not None
        while killed is None:
            piece = os.read(process.stderr.fileno(), 4096)
            if not piece:
                break
            seen = (seen + piece)[-4096:]
            for match in progress.finditer(seen):
                done, total = int(match.group(1)), int(match.group(2))
                if after_chunks <= done < total:
                    os.kill(process.pid, signal.SIGKILL)
                    killed = (done, total)
                    break
        process.wait(timeout=60)
    finally:
        timer.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    assert killed is not None, f"ingestion ended before it could be killed: {seen[-500:]!r}"
    assert process.returncode == -signal.SIGKILL
    return killed


def component_refs(node: Any) -> set[tuple[str, str]]:
    """The components (kind, name) that `node` refers to by a local `$ref`."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        own = {tuple(ref.split("/")[2:4])} if isinstance(ref, str) and ref.startswith("#/components/") else set()
        return own.union(*(component_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(component_refs(value) for value in node))
    return set()


def with_used_components(spec: dict[str, Any], paths: dict[str, Any]) -> dict[str, Any]:
    """`spec` with only `paths` and the components they use, directly or through other components (a smaller
    previous version to ingest: a quarter of OpenAI's schemas instead of all 1,422)."""
    used: set[tuple[str, str]] = set()
    waiting = component_refs(paths)
    while waiting:
        kind, name = waiting.pop()
        used.add((kind, name))
        waiting |= component_refs(spec["components"][kind][name]) - used
    components = {kind: ({name: value for name, value in entries.items() if (kind, name) in used}
                         if kind in ("schemas", "responses", "parameters") else entries)
                  for kind, entries in spec["components"].items()}
    return dict(spec, paths=paths, components=components)


@pytest.mark.slow
def test_sigkill_mid_ingest_leaves_the_previous_version_live(tmp_path: Path) -> None:
    if not OPENAI_SPEC.is_file():
        pytest.fail(f"{OPENAI_SPEC} is missing; set RAG_SHARED_DIR")
    full = yaml.load(OPENAI_SPEC.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    previous = with_used_components(full, dict(list(full["paths"].items())[:25]))
    previous["info"] = dict(full["info"], title="OpenAI API (previous version)")
    (tmp_path / "v1").mkdir()
    old_spec = tmp_path / "v1" / OPENAI_SPEC.name
    old_spec.write_text(json.dumps(previous, default=str))
    index_dir = tmp_path / "index"
    first = rag_cli("ingest", str(old_spec), str(PEOPLE), index=index_dir, timeout=240)
    assert first.returncode == 0, first.stderr
    before = json.loads(rag_cli("stats", "--json", index=index_dir).stdout)
    old_version = next(s["version"] for s in before["sources"] if s["source"] == OPENAI_SPEC.name)

    done, total = ingest_and_kill(index_dir, OPENAI_SPEC, after_chunks=512)
    assert 512 <= done < total
    stored = raw_counts(index_dir)
    assert sum(stored.values()) > sum(expected_counts(before).values()), "no half-written chunks to survive"

    after = json.loads(rag_cli("stats", "--json", index=index_dir).stdout)
    assert stable_stats(after) == stable_stats(before), "the previous version is no longer the live one"
    assert raw_counts(index_dir) == {k: v for k, v in expected_counts(before).items() if k in stored}, "orphans"
    ask = rag_cli("ask", "How do I create a chat completion?", "--configs", "C1,C2", "--retrieval-only", "--json",
                  index=index_dir)
    assert ask.returncode == 0, ask.stderr
    results = json.loads(ask.stdout)
    for result in results:
        assert not result["errors"] and result["chunks"], result
        versions = {chunk["chunk_id"].split("/", 1)[0] for chunk in result["chunks"]}
        assert versions <= {source["version"] for source in before["sources"]}
    assert any(chunk["chunk_id"].startswith(old_version + "/") for r in results for chunk in r["chunks"])

    again = rag_cli("ingest", str(OPENAI_SPEC), "--json", index=index_dir, timeout=240)
    assert again.returncode == 0, again.stderr
    (report,) = json.loads(again.stdout)
    embedded_now = {strategy: n for strategy, n in report["chunks"].items() if strategy not in report["pending"]}
    assert report["status"] == "replaced" and sum(report["chunks"].values()) == total
    assert report["pending"] == ["naive"]  # the naive chunks set aside, the schema chunks embedded before it exited
    final = json.loads(rag_cli("stats", "--json", index=index_dir).stdout)
    assert final["documents"] == before["documents"]
    assert final["per_api"]["openai-openapi"] == embedded_now
    assert raw_counts(index_dir) == {k: v for k, v in expected_counts(final).items() if k in stored}
