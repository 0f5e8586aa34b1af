"""Shared fixtures: no network in ordinary tests, paths to real data, deterministic fakes."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
STACKONE_SPECS = SHARED / "specs" / "stackone"

_LOOPBACK = ("127.", "::1", "localhost")
# The embedding model exported to ONNX once (a function of the model alone): kept between test sessions in the
# git-ignored tests/artifacts/, or beside RAG_TEST_CACHE_DIR's embeddings, so no test (nor the app and CLI
# processes tests start, which inherit RAG_ONNX_DIR) exports it again.
_KEPT = Path(os.environ["RAG_TEST_CACHE_DIR"]) if os.environ.get("RAG_TEST_CACHE_DIR") else ROOT / "tests" / "artifacts"
ONNX_DIR = _KEPT / "onnx"
os.environ.setdefault("RAG_ONNX_DIR", str(ONNX_DIR))


# How heavy a test file is, by the heaviest marker of its tests: a browser test starts a server and Chromium, a slow
# one loads the real model or indexes every spec. `make test` hands whole files to its workers in collection order
# (--no-loadscope-reorder), so the heaviest go first and no long file is left to run alone at the end.
_HEAVINESS = {"browser": 3, "slow": 2, "app": 1, "corpus": 1}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the files with the heaviest tests first, keeping each file's tests together and in their order."""
    weight: dict[str, int] = {}
    for item in items:
        heaviest = max((_HEAVINESS.get(mark.name, 0) for mark in item.iter_markers()), default=0)
        weight[item.location[0]] = max(weight.get(item.location[0], 0), heaviest)
    position = {path: index for index, path in reversed(list(enumerate(item.location[0] for item in items)))}
    items.sort(key=lambda item: (-weight[item.location[0]], position[item.location[0]]))


def _is_loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    return isinstance(host, str) and (host.startswith(_LOOPBACK) or host == "")


@pytest.fixture(autouse=True)
def block_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any test that opens a connection to a non-loopback address."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: object) -> object:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise RuntimeError(f"network access blocked in tests: {address!r}")
        return real_connect(self, address)  # type: ignore[arg-type]

    def guarded_connect_ex(self: socket.socket, address: object) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise RuntimeError(f"network access blocked in tests: {address!r}")
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setenv("RAG_LLM", os.environ.get("RAG_TEST_LLM", "extractive"))
    # Fake OpenAI servers on 127.0.0.1 stand for hosted APIs: full prompts, not the local models' compact ones.
    monkeypatch.setenv("RAG_LLM_PROMPT", "full")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    yield


@pytest.fixture
def stackone_specs() -> Path:
    """The 7 real StackOne specs in ../shared (CI has them)."""
    if not STACKONE_SPECS.is_dir():
        pytest.fail(f"real specs not found at {STACKONE_SPECS}; set RAG_SHARED_DIR")
    return STACKONE_SPECS


# ---------------------------------------------------------------------- index fixtures
@pytest.fixture
def hashing_embedder():  # type: ignore[no-untyped-def]
    """A deterministic, model-free embedder."""
    from rag.index.embedder import HashingEmbedder

    return HashingEmbedder()


@pytest.fixture
def empty_index(tmp_path: Path, hashing_embedder):  # type: ignore[no-untyped-def]
    """An empty index in a temporary folder, with the hashing embedder."""
    from rag.index.store import Index

    return Index(tmp_path / "index", hashing_embedder)


@pytest.fixture
def fixture_index(empty_index):  # type: ignore[no-untyped-def]
    """The small fixture specs indexed with the hashing embedder."""
    from rag.index.build import ingest_paths

    reports = ingest_paths(empty_index, [FIXTURES / "specs" / "people-3.1.json", FIXTURES / "specs" / "shop-3.0.yaml"])
    assert all(r.status == "added" for r in reports), reports
    return empty_index


@pytest.fixture(scope="session")
def stackone_index(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The 7 real StackOne specs indexed with the real packaged embedder (built once per test session).

    The embedding cache lives in RAG_TEST_CACHE_DIR when set, else in the git-ignored tests/artifacts/embeddings:
    vectors are keyed by model, backend and text, so a rerun on one machine embeds nothing it embedded before
    (the cold path is timed by `make bench`).
    """
    from rag.index.build import ingest_paths, open_index
    from rag.settings import Settings

    if not STACKONE_SPECS.is_dir():
        pytest.fail(f"real specs not found at {STACKONE_SPECS}; set RAG_SHARED_DIR")
    directory = tmp_path_factory.mktemp("stackone-index")
    cache = Path(os.environ["RAG_TEST_CACHE_DIR"]) if os.environ.get("RAG_TEST_CACHE_DIR") else _KEPT / "embeddings"
    settings = Settings(index_dir=directory / "index", cache_dir=cache, onnx_dir=ONNX_DIR)
    with exclusive(cache / "stackone-index.lock"):  # test workers (pytest -n) take turns: one embeds, the rest reuse
        index = open_index(settings)
        reports = ingest_paths(index, [STACKONE_SPECS])
    assert [r.status for r in reports] == ["added"] * 7, reports
    return index


@contextmanager
def exclusive(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file `lock` (made if missing) against other processes until the block ends."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class Recorder(SimpleHTTPRequestHandler):
    """Files of a folder; every request path recorded."""

    requested: list[str]

    def do_GET(self) -> None:
        self.requested.append(self.path)
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Served:
    """A folder served on 127.0.0.1 (a free port): put files there with `write`; the paths asked for."""

    folder: Path
    url: str
    requested: list[str]

    def write(self, name: str, document: dict | str) -> str:
        """Put a file on the server (a dict as JSON); its URL."""
        (self.folder / name).write_text(document if isinstance(document, str) else json.dumps(document))
        return f"{self.url}/{name}"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """An empty folder served until the test ends (specs by URL are fetched from it)."""
    folder = tmp_path / "www"
    folder.mkdir()
    requested: list[str] = []
    handler = type("Handler", (Recorder,), {"requested": requested})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Served(folder, f"http://127.0.0.1:{server.server_address[1]}", requested)
    finally:
        server.shutdown()
        server.server_close()
