"""The index on a real Chroma server (RAG_CHROMA_URL) answers like the embedded store.

Starts `chroma run` on a free loopback port, waits for its heartbeat, indexes the fixture specs and
docs through `Settings(chroma_url=...)` with the hashing embedder, and compares searches with an
embedded index of the same files. The server is always stopped.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.config import Config
from rag.errors import IndexUnavailableError
from rag.index.build import ingest_paths, open_index
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.runner import Engine
from rag.settings import Settings
from tests.conftest import FIXTURES
from tests.processes import free_port, stop_process

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]
FILES = [FIXTURES / "specs" / "people-3.1.json", FIXTURES / "specs" / "shop-3.0.yaml", FIXTURES / "docs"]
QUERIES = ["list employees", "create an order", "delete a product by id", "getting started authentication",
           "employment status values"]
CHROMA = Path(sys.executable).parent / "chroma"


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not CHROMA.is_file():
        pytest.fail(f"{CHROMA} is missing; install chromadb into the virtualenv")
    folder = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        [str(CHROMA), "run", "--path", str(folder / "data"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                output = (folder / "server.log").read_text()[-2000:]
                pytest.fail(f"chroma run exited with {process.returncode}: {output}")
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail("the Chroma server did not answer its heartbeat within 90 s")
            time.sleep(0.3)
        yield url
    finally:
        stop_process(process)
        log.close()


def ranked(pairs: list[tuple[str, float]]) -> tuple[list[tuple[float, str]], float]:
    """(score, id) best first with ties in id order (two stores may order equal scores either way), and the
    lowest score: which of several chunks tied at the cut-off make the top n is arbitrary, so they are left out."""
    ordered = sorted(((round(score, 4), chunk_id) for chunk_id, score in pairs), key=lambda p: (-p[0], p[1]))
    cutoff = ordered[-1][0] if ordered else 0.0
    return [pair for pair in ordered if pair[0] > cutoff], cutoff


@pytest.fixture(scope="module")
def both(chroma_url: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Index, Index]:
    folder = tmp_path_factory.mktemp("indexes")
    server = open_index(Settings(index_dir=folder / "server", chroma_url=chroma_url, embedding_model="hashing"),
                        embedder=HashingEmbedder())
    embedded = open_index(Settings(index_dir=folder / "embedded", embedding_model="hashing"),
                          embedder=HashingEmbedder())
    for index in (server, embedded):
        reports = ingest_paths(index, FILES)
        assert {report.status for report in reports} == {"added"}, reports
    return server, embedded


def test_server_index_holds_the_same_chunks(both: tuple[Index, Index]) -> None:
    server, embedded = both
    assert server.stats()["chunks"] == embedded.stats()["chunks"]
    assert set(server.snapshot().chunks) == set(embedded.snapshot().chunks)


def test_vector_search_on_the_server_matches_the_embedded_store(both: tuple[Index, Index]) -> None:
    server, embedded = both
    compared = 0
    for query in QUERIES:
        vector = embedded.embedder.embed([query])[0]
        for strategy in ("smart", "naive", "docs"):
            on_server = server.vector_search(strategy, vector, 8)
            local = embedded.vector_search(strategy, vector, 8)
            assert on_server and len(on_server) == len(local), (query, strategy)
            above, cutoff = ranked(on_server)
            assert (above, cutoff) == ranked(local), (query, strategy)
            compared += len(above)
        filtered = server.vector_search("smart", vector, 5, apis=["shop-3_0"])
        assert filtered and {server.get_chunk(i).api for i, _ in filtered} == {"shop-3_0"}  # type: ignore[union-attr]
    assert compared >= 40, "too many ties to compare the orders"


def test_engine_answers_alike_on_both_stores(both: tuple[Index, Index]) -> None:
    server, embedded = both
    config = Config("bm25", chunking="smart", retriever="bm25", generator="extractive", rewrite=False)
    vector = Config("vector", chunking="smart", retriever="vector", generator="extractive", rewrite=False)
    for query in QUERIES:
        a, b = Engine(server).run(query, config), Engine(embedded).run(query, config)
        assert not a.errors and [c.chunk.chunk_id for c in a.chunks] == [c.chunk.chunk_id for c in b.chunks]
        assert a.answer == b.answer
        c, d = Engine(server).run(query, vector), Engine(embedded).run(query, vector)
        assert not c.errors and {x.chunk.chunk_id for x in c.chunks} == {x.chunk.chunk_id for x in d.chunks}


def test_replace_and_reopen_through_the_server(both: tuple[Index, Index], chroma_url: str) -> None:
    server, _ = both
    people = FIXTURES / "specs" / "people-3.1.json"
    changed = people.read_text().replace("List Employees", "List All Employees")
    from rag.ingest.pipeline import parse_document

    report = server.add(parse_document(people.name, changed.encode()))
    assert report.status == "replaced"
    assert any("List All Employees" in chunk.text for chunk in server.snapshot().chunks.values())
    again = Index(server.directory, HashingEmbedder(), chroma_client=server.client)
    assert set(again.snapshot().chunks) == set(server.snapshot().chunks)


def test_a_registry_pointing_at_an_empty_server_is_refused(both: tuple[Index, Index], chroma_url: str,
                                                             tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    server, _ = both
    client = chromadb.HttpClient(host="127.0.0.1", port=int(chroma_url.rsplit(":", 1)[1]),
                                 settings=ChromaSettings(anonymized_telemetry=False))
    tenant = f"empty_{int(time.time() * 1000)}"
    chromadb.AdminClient(ChromaSettings(chroma_api_impl="chromadb.api.fastapi.FastAPI",
                                        chroma_server_host="127.0.0.1",
                                        chroma_server_http_port=int(chroma_url.rsplit(":", 1)[1]),
                                        anonymized_telemetry=False)).create_database(tenant)
    client.set_database(tenant)
    with pytest.raises(IndexUnavailableError, match=r"incomplete.*rebuild"):
        Index(server.directory, HashingEmbedder(), chroma_client=client)
