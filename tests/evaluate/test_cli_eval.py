"""`python -m rag eval` and `make-questions`, including a run really killed with SIGKILL and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from rag.cli import main
from rag.evaluate.questions import load_questions, write_questions
from tests.conftest import FIXTURES, ROOT

QUESTIONS_FILE = FIXTURES / "eval" / "fixture_questions.jsonl"
SPECS = [FIXTURES / "specs" / "people-3.1.json", FIXTURES / "specs" / "shop-3.0.yaml"]


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment for in-process and subprocess runs: hashing embeddings, extractive answers, logs in tmp."""
    values = {
        "RAG_EMBEDDING_MODEL": "hashing",
        "RAG_LLM": "extractive",
        "RAG_EVAL_LOG": str(tmp_path / "logs" / "eval.log"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    return {**os.environ, **values}


@pytest.fixture
def index_dir(tmp_path: Path, cli_env: dict[str, str]) -> Path:
    """A tmp index of the fixture specs, built by the CLI in a subprocess with hashing embeddings."""
    directory = tmp_path / "index"
    done = subprocess.run(
        [sys.executable, "-m", "rag", "ingest", *map(str, SPECS), "--index-dir", str(directory)],
        cwd=ROOT, env=cli_env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    return directory


def test_sigkill_then_resume_has_every_question_exactly_once(tmp_path: Path, index_dir: Path,
                                                             cli_env: dict[str, str]) -> None:
    base = load_questions(QUESTIONS_FILE)
    many = [replace(base[n % len(base)], id=f"kill-{n:04d}") for n in range(200)]
    questions_file = write_questions(many, tmp_path / "many.jsonl")
    out = tmp_path / "out"
    command = [sys.executable, "-m", "rag", "eval", "--questions", str(questions_file), "--configs", "C0,C2,full",
               "--dry-run", "--out", str(out), "--index-dir", str(index_dir)]
    with open(tmp_path / "first.log", "w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=cli_env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 240
        target = out / "full.jsonl"
        try:
            while time.monotonic() < deadline and process.poll() is None:
                if target.is_file() and target.read_bytes().count(b"\n") >= 10:
                    break
                time.sleep(0.01)
            assert process.poll() is None, (tmp_path / "first.log").read_text()
            os.kill(process.pid, signal.SIGKILL)
        finally:
            process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL
    assert not (out / "metrics.json").exists()
    counts = {name: (out / f"{name}.jsonl").read_bytes().count(b"\n") for name in ("C0", "C2", "full")}
    assert all(count < 200 for count in counts.values()), counts
    with open(out / "C0.jsonl", "ab") as handle:  # as if the kill had hit in the middle of a write
        handle.write(b'{"query_id": "kill-9999", "experiment": "C0", "retrie')

    refused = subprocess.run(command, cwd=ROOT, env=cli_env, capture_output=True, text=True, timeout=300,
                             check=False)
    assert refused.returncode == 2 and "--resume" in refused.stderr

    resumed = subprocess.run([*command, "--resume"], cwd=ROOT, env=cli_env, capture_output=True, text=True,
                             timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert "hit@5" in resumed.stdout and "kept from before" in resumed.stdout
    expected = {q.id for q in many}
    for name in ("C0", "C2", "full"):
        ids = [json.loads(line)["query_id"] for line in (out / f"{name}.jsonl").read_text().splitlines()]
        counter = Counter(ids)
        assert set(counter) == expected, name
        assert max(counter.values()) == 1, name
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert {name: values["n"] for name, values in metrics["configs"].items()} == {"C0": 200, "C2": 200, "full": 200}
    assert metrics["manifest"]["resumed_records"] >= sum(counts.values())


def test_eval_command_prints_a_table(tmp_path: Path, index_dir: Path, cli_env: dict[str, str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(["eval", "--questions", str(QUESTIONS_FILE), "--configs", "C0,full", "--retrieval-only",
                 "--out", str(out), "--index-dir", str(index_dir), "--max-text-chars", "40"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    header = printed.out.splitlines()[0].split()
    assert header[:5] == ["config", "n", "hit@1", "hit@5", "MRR"]
    assert any(line.startswith("C0 ") for line in printed.out.splitlines())
    assert any(line.startswith("full ") for line in printed.out.splitlines())
    records = [json.loads(line) for line in (out / "full.jsonl").read_text().splitlines()]
    assert len(records) == 8 and all(len(c["text"]) <= 41 for r in records for c in r["retrieved_chunks"])
    assert (tmp_path / "logs" / "eval.log").is_file()


def test_eval_ablation_dry_run_and_bad_arguments(tmp_path: Path, index_dir: Path, cli_env: dict[str, str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ablation"
    code = main(["eval", "--questions", str(QUESTIONS_FILE), "--ablate", "full", "--dry-run", "--out", str(out),
                 "--index-dir", str(index_dir), "--json"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    metrics = json.loads(printed.out)
    assert "full" in metrics["configs"] and "full-minus-rerank" in metrics["configs"]
    assert (out / "full-minus-abstention.jsonl").is_file()
    assert main(["eval", "--questions", str(QUESTIONS_FILE), "--judge-runs", "2", "--index-dir", str(index_dir)]) == 2
    assert "--judge" in capsys.readouterr().err
    assert main(["eval", "--questions", str(QUESTIONS_FILE), "--configs", "C9", "--dry-run",
                 "--index-dir", str(index_dir), "--out", str(tmp_path / "x")]) == 2
    assert "unknown config" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "q", "answerable": true, "relevant_ids": ["nope.overview"]}\n')
    assert main(["eval", "--questions", str(bad), "--dry-run", "--index-dir", str(index_dir),
                 "--out", str(tmp_path / "y")]) == 2
    assert "bad.jsonl:1: unknown structural id(s) nope.overview" in capsys.readouterr().err


def test_make_questions_command(tmp_path: Path, index_dir: Path, cli_env: dict[str, str],
                                capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "generated" / "shop.jsonl"
    code = main(["make-questions", "--api", "shop-3_0", "--out", str(target), "--limit", "10",
                 "--index-dir", str(index_dir)])
    assert code == 0, capsys.readouterr().err
    assert "wrote 10 questions about shop-3_0" in capsys.readouterr().out
    from rag.evaluate.offline_index import open_index_without_model
    from rag.settings import Settings

    index = open_index_without_model(Settings(index_dir=index_dir))
    questions = load_questions(target, index)
    assert len(questions) == 10
    assert main(["make-questions", "--api", "nope", "--out", str(target), "--index-dir", str(index_dir)]) == 2
    assert "not indexed" in capsys.readouterr().err
