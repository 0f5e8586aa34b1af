"""Questions answered while a document is being re-indexed: no exceptions, no mixed or half-indexed results.

The writer swaps a document between two versions whose every summary differs (so every chunk id and
text changes) and adds and deletes another one, while 8 threads ask questions. Each result may only
hold chunks of document versions that were live together in one snapshot, and every snapshot a reader
sees must hold each live document completely (its chunk counts match the registry record).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from typing import Any

import pytest

from rag.config import Config
from rag.index.build import ingest_paths
from rag.index.snapshot import Snapshot
from rag.index.store import Index
from rag.ingest.pipeline import parse_document
from rag.results import AnswerResult
from rag.runner import Engine
from tests.conftest import FIXTURES

pytestmark = pytest.mark.timeout(120)
READERS = 8
SWAPS = 10
CONFIGS = [
    Config("vector", chunking="smart", retriever="vector", generator="extractive", rewrite=False),
    Config("hybrid", chunking="naive", retriever="hybrid", generator="extractive", rewrite=False),
    Config("bm25", chunking="smart", retriever="bm25", generator="extractive", rewrite=False),
]
QUESTIONS = ["alpha widget 3", "beta gadget 5", "how do I list employees", "create an order", "widget items",
             "gadget details by id", "delete a product"]


def rotating_spec(version: int, operations: int = 15) -> bytes:
    """Version 1 calls everything an alpha widget, version 2 a beta gadget: every chunk changes."""
    word = ("alpha widget", "beta gadget")[version - 1]
    paths = {
        f"/items{number}/{{id}}": {
            "get": {
                "operationId": f"get_item_{number}",
                "summary": f"Get {word} {number}",
                "description": f"Returns the {word} number {number} with all its fields.",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": {"description": f"The {word}", "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}}},
            }
        }
        for number in range(operations)
    }
    spec = {
        "openapi": "3.1.0",
        "info": {"title": f"Rotating {word} API", "version": str(version)},
        "paths": paths,
        "components": {"schemas": {"Item": {"type": "object", "description": f"One {word}",
                                            "properties": {"name": {"type": "string"}}}}},
    }
    return json.dumps(spec).encode()


def assert_complete(snapshot: Snapshot) -> None:
    """Every live document is present with exactly the chunks its registry record lists."""
    counts = Counter((chunk.source, chunk.strategy) for chunk in snapshot.chunks.values())
    live = {record.version for record in snapshot.documents}
    assert {chunk.doc_version for chunk in snapshot.chunks.values()} <= live
    for record in snapshot.documents:
        for strategy, expected in record.chunk_counts.items():
            assert counts[(record.source, strategy)] == expected, (record.source, strategy, counts)


def result_versions(result: AnswerResult) -> set[str]:
    chunks = [c.chunk for c in result.chunks] + [c.chunk for c in result.pool]
    return {chunk.doc_version for chunk in chunks if chunk.source == "rotate.json"}


@pytest.fixture
def busy_index(empty_index: Index) -> Index:
    ingest_paths(empty_index, [FIXTURES / "specs" / "people-3.1.json", FIXTURES / "specs" / "shop-3.0.yaml"])
    empty_index.add(parse_document("rotate.json", rotating_spec(1)))
    return empty_index


def test_eight_readers_and_one_writer(busy_index: Index) -> None:
    index = busy_index
    versions = [parse_document("rotate.json", rotating_spec(v)) for v in (1, 2)]
    rotate_versions = {document.version for document in versions}
    extra = parse_document("extra.json", rotating_spec(2, operations=5))
    engine = Engine(index)
    writing = threading.Event()
    writing.set()
    failures: list[BaseException] = []
    results: list[AnswerResult] = []
    snapshots: list[int] = []
    lock = threading.Lock()

    def writer() -> None:
        try:
            for swap in range(SWAPS):
                report = index.add(versions[(swap + 1) % 2])
                assert report.status == "replaced", report
                if swap == SWAPS // 2:
                    index.add(extra)
                if swap == SWAPS - 2:
                    assert index.delete("extra.json")
        except BaseException as error:
            failures.append(error)
        finally:
            writing.clear()

    def reader(number: int) -> None:
        try:
            rounds = 0
            while (writing.is_set() or rounds < 2) and rounds < 200:
                question = QUESTIONS[(number + rounds) % len(QUESTIONS)]
                if number % 2:
                    answers = engine.run_many(question, CONFIGS, retrieval_only=number % 4 == 1)
                else:
                    answers = [engine.run(question, config) for config in CONFIGS]
                snapshot = index.snapshot()
                assert_complete(snapshot)
                with lock:
                    results.extend(answers)
                    snapshots.append(snapshot.generation)
                rounds += 1
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=reader, args=(n,), name=f"reader-{n}") for n in range(READERS)]
    threads.append(threading.Thread(target=writer, name="writer"))
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=100)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    assert not failures, failures[0]
    assert len(results) >= READERS * 2 * len(CONFIGS)
    assert len(set(snapshots)) > 1, "readers never saw the index change; the test proves nothing"
    for result in results:
        assert not result.errors, result.errors
        seen = result_versions(result)
        assert len(seen) <= 1, f"{result.config} mixed versions {seen} of rotate.json"
        assert seen <= rotate_versions
    assert_complete(index.snapshot())
    assert time.perf_counter() - started < 100


class _Interrupting:
    """A collection whose first `times` reads from the main thread each let a writer replace a document first."""

    def __init__(self, inner: Any, interrupt: Any, times: int = 1) -> None:
        self._inner = inner
        self._interrupt = interrupt
        self.left = times

    def get(self, *args: Any, **kwargs: Any) -> Any:
        if self.left > 0 and threading.current_thread() is threading.main_thread():
            self.left -= 1
            thread = threading.Thread(target=self._interrupt)
            thread.start()
            thread.join(timeout=30)
        return self._inner.get(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_a_snapshot_read_while_a_document_is_replaced_is_never_half_of_it(busy_index: Index) -> None:
    """Deterministic version of the race: the writer switches and deletes between two collection reads."""
    index = busy_index
    new = parse_document("rotate.json", rotating_spec(2))
    index._collections["naive"] = _Interrupting(index._collections["naive"], lambda: index.add(new))
    try:
        snapshot = index.snapshot()
    finally:
        index._collections["naive"] = index._collections["naive"]._inner
    assert_complete(snapshot)
    assert new.version in {record.version for record in snapshot.documents}
    assert_complete(index.snapshot())


def test_a_snapshot_of_an_index_that_keeps_changing_is_read_under_the_write_lock(busy_index: Index) -> None:
    """Every optimistic read is interrupted by a replace; the last read holds the write lock and is whole."""
    from rag.index.store import SNAPSHOT_ATTEMPTS

    index = busy_index
    documents = [parse_document("rotate.json", rotating_spec(v)) for v in (2, 1)]
    swaps: list[str] = []

    def replace() -> None:
        document = documents[len(swaps) % 2]
        index.add(document)
        swaps.append(document.version)

    proxy = _Interrupting(index._collections["naive"], replace, times=SNAPSHOT_ATTEMPTS)
    index._collections["naive"] = proxy
    try:
        snapshot = index.snapshot()
    finally:
        index._collections["naive"] = proxy._inner
    assert len(swaps) == SNAPSHOT_ATTEMPTS
    assert_complete(snapshot)
    assert swaps[-1] in {record.version for record in snapshot.documents}
