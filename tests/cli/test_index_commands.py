"""`python -m rag` ingest, stats, fetch-specs and ensure-index as a user runs them (`rag.cli.index_commands`)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import rag
from tests.conftest import FIXTURES, ROOT, SHARED
from tests.processes import rag_cli


def test_stats_json_lists_documents_and_chunks(index_dir: Path) -> None:
    stats = json.loads(rag("stats", "--json", index=index_dir).stdout)
    assert stats["documents"] == 5
    assert stats["chunks"]["smart"] > 0 and stats["chunks"]["docs"] > 0


def test_reingest_is_skipped_and_reject_policy_fails_with_code_2(index_dir: Path) -> None:
    again = rag("ingest", str(FIXTURES / "specs" / "people-3.1.json"), index=index_dir)
    assert again.returncode == 0 and "skipped" in again.stdout
    rejected = rag("ingest", str(FIXTURES / "specs" / "people-3.1.json"), "--on-duplicate", "reject", index=index_dir)
    assert rejected.returncode == 2
    assert "people-3.1.json: already indexed" in rejected.stderr


def test_bad_file_exits_2_with_one_clear_line(index_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "hris.yaml"
    bad.write_text("title: not a spec\n")
    result = rag("ingest", str(bad), index=index_dir)
    assert result.returncode == 2
    assert result.stderr.strip() == "error: hris.yaml: not an OpenAPI document: missing 'openapi' and 'paths'"


def test_fetch_specs_offline_fails_with_code_2(tmp_path: Path) -> None:
    env = {**os.environ, "HTTPS_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    result = subprocess.run(
        [sys.executable, "-m", "rag", "fetch-specs", "--dest", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "cannot download https://api.eu1.stackone.com/oas/stackone.json" in result.stderr
    assert not list(tmp_path.glob("*.json"))


def test_ensure_index_reports_each_file_with_chunk_counts_and_time_left(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("people-3.1.json", "shop-3.0.yaml"):
        (specs / name).write_bytes((FIXTURES / "specs" / name).read_bytes())
    index = tmp_path / "index"
    built = rag_cli("ensure-index", index=index, env={"RAG_SPECS_DIR": str(specs)}, timeout=300)
    assert built.returncode == 0, built.stderr
    lines = built.stdout.splitlines()
    assert "2 file(s)" in lines[1] and "about a minute" not in built.stdout
    assert any(line.startswith("  [1/2] people-3.1.json") and "parsing" in line for line in lines)
    finished = [line for line in lines if "[1/2] people-3.1.json: added" in line]
    assert finished and "smart" in finished[0] and "naive" in finished[0] and " left" in finished[0]
    assert any(line.startswith("  [2/2] shop-3.0.yaml: added") and line.endswith("done") for line in lines)
    assert lines[-1].startswith("index ready: 2 of 2 file(s)")
    again = rag_cli("ensure-index", index=index, env={"RAG_SPECS_DIR": str(specs)}, timeout=300)
    assert again.returncode == 0 and "index ready: 2 documents" in again.stdout


def test_ingest_sets_the_naive_chunks_aside_until_a_command_asks_c0(tmp_path: Path) -> None:
    """The spec goes live once its operations are embedded ("searchable now by full"); `rag ingest` then embeds its
    schema chunks, saying so, before it exits; C0's naive chunks are embedded when `ask` first needs them."""
    index = tmp_path / "index"
    done = rag("ingest", str(FIXTURES / "specs" / "people-3.1.json"), index=index)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("  [1/1] people-3.1.json: added — 10 smart (schema chunks not embedded yet), 7 naive")
    assert lines[1] == ("searchable now by full, C1-C5 and E2-E4 (they say “still indexing” until the rest is in); "
                        "embedding the 4 schema chunks of people-3_1…")
    assert lines[2:] == ["  people-3.1.json: embedded 4/4 · done"]
    assert done.stdout.startswith("added    people-3.1.json [people-3_1]: 10 smart, 7 naive (not embedded yet)")
    assert "when a command first asks C0" in done.stdout
    stats = json.loads(rag("stats", "--json", index=index).stdout)
    assert stats["chunks"]["smart"] == 10 and stats["pending"] == {"naive": 7}
    assert stats["chunks"]["naive"] == 0 and stats["pending"]["naive"] > 0
    assert "not embedded yet (set aside at ingest" in rag("stats", index=index).stdout
    full = rag("ask", "How do I list employees?", "--configs", "full", "--json", index=index)
    assert full.returncode == 0 and "set aside" not in full.stderr and json.loads(full.stdout)[0]["chunks"]
    c0 = rag("ask", "How do I list employees?", "--configs", "C0", "--json", index=index)
    assert c0.returncode == 0 and "embedding the 7 naive chunks of people-3_1 set aside at ingest" in c0.stderr
    result = json.loads(c0.stdout)[0]
    assert result["fallbacks"] == [] and result["pending"] == [] and result["chunks"]
    after = json.loads(rag("stats", "--json", index=index).stdout)
    assert after["pending"] == {} and after["chunks"]["naive"] == stats["pending"]["naive"]


def ingest_killed_while_the_schemas_are_embedded(spec: Path, index: Path) -> tuple[int, int]:
    """Start `rag ingest SPEC` and SIGKILL it at its first progress line of the schema chunks, after the spec went
    live; (schema chunks embedded, schema chunks in all) as that line said."""
    env = {**os.environ, "RAG_EMBEDDING_MODEL": "hashing", "RAG_LLM": "extractive"}
    process = subprocess.Popen([sys.executable, "-m", "rag", "ingest", str(spec), "--index-dir", str(index)],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        seen = []
        for line in process.stderr:
            seen.append(line)
            found = re.match(r"  \S+: embedded (\d+)/(\d+) · about", line)
            if found and any(earlier.startswith("searchable now by full") for earlier in seen):
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=60)
                return int(found.group(1)), int(found.group(2))
        raise AssertionError(f"ingest ended before its schema chunks were embedded: {''.join(seen)[-600:]}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow
def test_a_kill_while_the_schemas_are_embedded_leaves_the_spec_live_and_the_next_command_finishes_them(
    tmp_path: Path,
) -> None:
    spec = SHARED / "specs" / "external" / "openai-openapi.yaml"
    if not spec.is_file():
        pytest.fail(f"{spec} is missing; set RAG_SHARED_DIR")
    index = tmp_path / "index"
    done, total = ingest_killed_while_the_schemas_are_embedded(spec, index)
    assert 0 < done < total
    stats = json.loads(rag("stats", "--json", index=index).stdout)
    (record,) = stats["sources"]
    assert stats["pending"] == {"smart:schema": total, "naive": record["chunk_counts"]["naive"]}
    assert stats["chunks"]["smart"] == record["chunk_counts"]["smart"] - total > 0  # live: its operations
    asked = rag("ask", "How do I create a chat completion?", "--configs", "full", "--retrieval-only", "--json",
                index=index)
    assert asked.returncode == 0, asked.stderr
    assert f"embedding the {total:,} schema chunks of openai-openapi set aside at ingest" in asked.stderr
    (result,) = json.loads(asked.stdout)
    assert result["pending"] == [] and result["chunks"] and not result["errors"]
    after = json.loads(rag("stats", "--json", index=index).stdout)
    assert after["pending"] == {"naive": record["chunk_counts"]["naive"]}
    assert after["chunks"]["smart"] == record["chunk_counts"]["smart"]


def test_ingest_json_reports_what_is_still_set_aside_once_the_schemas_are_in(tmp_path: Path) -> None:
    done = rag("ingest", str(FIXTURES / "specs" / "people-3.1.json"), "--json", index=tmp_path / "index")
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)[0]["pending"] == ["naive"]


def test_ingest_embed_all_embeds_every_chunk_before_the_spec_goes_live(tmp_path: Path) -> None:
    index = tmp_path / "index"
    done = rag("ingest", str(FIXTURES / "specs" / "people-3.1.json"), "--embed-all", "--json", index=index)
    assert done.returncode == 0 and json.loads(done.stdout)[0]["pending"] == []
    stats = json.loads(rag("stats", "--json", index=index).stdout)
    assert stats["pending"] == {} and stats["chunks"]["naive"] > 0
