"""A real uvicorn server on a free loopback port, serving the REST API of an engine a test gives it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from rag.cache import CacheSettings, QueryCache
from rag.config import PRESETS
from rag.index.store import Index
from rag.rest.app import create_app
from rag.runner import Engine


class LiveServer:
    """uvicorn serving an app in a thread, on a socket bound to a free port of 127.0.0.1."""

    def __init__(self, app: object) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_keep_alive=5))  # type: ignore[arg-type]
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the uvicorn server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.socket.close()


Serve = Callable[..., LiveServer]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Start a server for an index (with a query cache in tmp_path, and a token when given); stopped after the
    test."""
    started: list[LiveServer] = []

    def start(index: Index, token: str = "", cache: bool = True, allow_private_urls: bool = False) -> LiveServer:
        query_cache = QueryCache(CacheSettings(tmp_path / f"cache-{len(started)}.sqlite3")) if cache else None
        engine = Engine(index, default_llm="extractive", cache=query_cache)
        server = LiveServer(create_app(engine, PRESETS, token, allow_private_urls)).__enter__()
        started.append(server)
        return server

    yield start
    for server in started:
        server.__exit__()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    """An HTTP client with a generous timeout (the machine is shared)."""
    with httpx.Client(timeout=120) as http:
        yield http
