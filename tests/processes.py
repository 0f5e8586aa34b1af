"""Helpers for tests that start real processes: free ports, stopping servers, the `python -m rag` CLI."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def load_allowance() -> float:
    """How many times slower than idle this machine is now: the 1-minute load average per core (at least 1)."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def stop_process(process: subprocess.Popen, timeout: float = 15) -> None:  # type: ignore[type-arg]
    """Terminate a server process, killing it when it does not exit within `timeout` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)


# What `rag_cli` and `rag_in_process` set: the hashing embedder, the extractive generator, no progress bars.
CLI_ENV = {"RAG_EMBEDDING_MODEL": "hashing", "RAG_LLM": "extractive", "TQDM_DISABLE": "1"}


def rag_cli(*args: str, index: Path, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `python -m rag ARGS --index-dir INDEX` with the hashing embedder and no progress bars."""
    environment = {**os.environ, **CLI_ENV, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "rag", *args, "--index-dir", str(index)],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def rag_in_process(*args: str, index: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess[str]:
    """`rag_cli` run by `rag.cli.main` in this process (no interpreter to start, nothing to import again), for
    tests of what a command does rather than of the process: the same environment, exit code and output."""
    from rag.cli import main

    for name, value in CLI_ENV.items():
        monkeypatch.setenv(name, value)
    argv = [*args, "--index-dir", str(index)]
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["rag", *argv], code, out, err)
