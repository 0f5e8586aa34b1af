"""The REST API over HTTP on the real index: `/ask` answered afresh vs the same question from the query cache, and
ten concurrent `/ask` calls (a uvicorn server on a free loopback port, in this process)."""

from __future__ import annotations

import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

QUESTIONS = (
    "How do I authenticate with the StackOne API?",
    "How do I list employees in the HRIS API?",
    "What is the default expiry of a connect session token?",
    "How do I create a course in the LMS API?",
    "How do I list linked accounts of one provider?",
)


@contextmanager
def served(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn on a free port of 127.0.0.1 meanwhile; yields its URL."""
    import uvicorn

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def fresh_and_cached(client: Any, url: str) -> tuple[list[float], list[float]]:
    """Each question asked twice (default configurations): milliseconds afresh, then from the cache."""
    fresh: list[float] = []
    cached: list[float] = []
    for question in QUESTIONS:
        for samples in (fresh, cached):
            started = time.perf_counter()
            response = client.post(f"{url}/ask", json={"question": question})
            samples.append((time.perf_counter() - started) * 1000)
            flags = {r["cached"] for r in response.json()["results"]}
            assert flags == {samples is cached}, (question, flags)
    return fresh, cached


def ten_at_once(client: Any, url: str) -> tuple[float, list[float]]:
    """Ten different questions to `full` at once: the wall time and each call's milliseconds."""

    def ask(number: int) -> float:
        started = time.perf_counter()
        body = {"question": f"{QUESTIONS[number % 5]} (call {number})", "configs": ["full"]}
        assert client.post(f"{url}/ask", json=body).status_code == 200
        return (time.perf_counter() - started) * 1000

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=10) as pool:
        each = list(pool.map(ask, range(10)))
    return (time.perf_counter() - started) * 1000, each


def bench_rest() -> dict[str, Any]:
    """Fresh vs cached `/ask` (default configurations, extractive) and ten concurrent calls; prints and returns
    the figures."""
    import httpx

    from bench import STACKONE
    from rag.cache import CacheSettings, QueryCache
    from rag.config import PRESETS
    from rag.index.build import ingest_paths, open_index
    from rag.rest.app import create_app
    from rag.runner import Engine
    from rag.settings import Settings

    print("\n## REST API: /ask afresh vs from the query cache, and ten concurrent calls")
    index = open_index(Settings.from_env())
    if index.is_empty():
        ingest_paths(index, [STACKONE])
    with tempfile.TemporaryDirectory() as scratch:
        engine = Engine(index, default_llm="extractive", cache=QueryCache(CacheSettings(Path(scratch) / "c.sqlite3")))
        with served(create_app(engine, PRESETS)) as url, httpx.Client(timeout=300) as client:
            client.post(f"{url}/ask", json={"question": "How do I list candidates?"})  # load the models
            fresh, cached = fresh_and_cached(client, url)
            wall, concurrent = ten_at_once(client, url)
    figures = {
        "fresh_p50_ms": statistics.median(fresh),
        "cached_p50_ms": statistics.median(cached),
        "cached_over_fresh": statistics.median(cached) / statistics.median(fresh),
        "ten_concurrent_wall_ms": wall,
        "ten_concurrent_p50_ms": statistics.median(concurrent),
    }
    print(f"/ask with C0, C3, full: afresh p50 {figures['fresh_p50_ms']:.0f} ms, from the cache p50 "
          f"{figures['cached_p50_ms']:.1f} ms ({figures['cached_over_fresh']:.3f}×; target < 0.1×)")
    print(f"ten concurrent /ask (full): all answered in {wall:.0f} ms wall, p50 {figures['ten_concurrent_p50_ms']:.0f} "
          "ms each")
    return figures
