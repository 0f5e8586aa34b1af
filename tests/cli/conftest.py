"""The command line as a user runs it: a subprocess over a temporary index with the hashing embedder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.processes import rag_cli


def rag(*args: str, index: Path) -> subprocess.CompletedProcess[str]:
    """`python -m rag ARGS --index-dir INDEX` (5 minutes at most)."""
    return rag_cli(*args, index=index, timeout=300)


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the people spec and the fixture docs."""
    directory = tmp_path_factory.mktemp("cli") / "index"
    done = rag("ingest", str(FIXTURES / "specs" / "people-3.1.json"), str(FIXTURES / "docs"), "--json", index=directory)
    assert done.returncode == 0, done.stderr
    reports = json.loads(done.stdout)
    assert {r["status"] for r in reports} == {"added"}
    return directory
