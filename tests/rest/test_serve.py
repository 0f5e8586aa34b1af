"""`python -m rag serve` as a user starts it: a subprocess over a small index, the token from RAG_API_TOKEN."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from rag.errors import ConfigError
from rag.rest.serve import is_loopback, main
from tests.conftest import FIXTURES, ROOT
from tests.processes import free_port, rag_cli, stop_process


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("example.com")  # noqa: S104


def test_a_bad_port_names_the_allowed_range() -> None:
    class Args:
        port = 70000
        host = "127.0.0.1"

    with pytest.raises(ConfigError, match="--port=70000 is not allowed; allowed: 1 to 65535"):
        main(Args())


def test_serve_answers_with_the_token_and_caches_across_requests(tmp_path: Path) -> None:
    index = tmp_path / "index"
    assert rag_cli("ingest", str(FIXTURES / "specs" / "people-3.1.json"), index=index).returncode == 0
    port = free_port()
    environment = {**os.environ, "RAG_EMBEDDING_MODEL": "hashing", "RAG_LLM": "extractive", "TQDM_DISABLE": "1",
                   "RAG_API_TOKEN": "t0ken"}
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "rag", "serve", "--port", str(port), "--index-dir", str(index)],
        cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.3)
        assert httpx.get(f"{url}/configs", timeout=30).status_code == 401
        headers = {"Authorization": "Bearer t0ken"}
        body = {"question": "How do I list employees?", "configs": ["full"]}
        first = httpx.post(f"{url}/ask", json=body, headers=headers, timeout=120).json()["results"][0]
        second = httpx.post(f"{url}/ask", json=body, headers=headers, timeout=120).json()["results"][0]
        assert first["answer"] and not first["cached"] and second["cached"] and second["answer"] == first["answer"]
    finally:
        stop_process(process)
        log.close()
    assert "REST API ready" in (tmp_path / "serve.log").read_text()
    assert (index / "query_cache.sqlite3").is_file()  # kept next to the index, across restarts
