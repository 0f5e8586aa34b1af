"""The REST API over HTTP, against a real uvicorn server: answers, streaming order, bad input, the token,
concurrency, uploads and deletes, a spec by URL, and the query cache."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from rag.config import DEFAULT_CONFIGS
from rag.index.store import Index
from rag.ingest.validate import MAX_UPLOAD_BYTES
from tests.conftest import FIXTURES, Served
from tests.ingest.test_bundle import SPLIT, zipped
from tests.rest.conftest import Serve

QUESTION = "How do I list employees?"
NOTE = b"# Payroll notes\n\nPayroll runs are listed with GET /payroll-runs and need the x-account-id header.\n"


def events_of(response: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


def test_ask_returns_each_configuration_in_the_shape_of_ask_json(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index)
    response = client.post(f"{server.url}/ask", json={"question": QUESTION, "configs": ["C0", "full"]})
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert [r["config"] for r in results] == ["C0", "full"]
    for result in results:
        assert result["answer"] and result["citations"] and result["chunks"]
        fields = {"abstained", "confidence", "timings_ms", "tokens_in", "tokens_out", "generator", "cached"}
        assert fields <= set(result)
        assert result["chunks"][0]["scores"]
    example = results[1]["request_example"]  # `full`: a request that calls the operation the answer is about
    assert example["method"] == "GET" and example["url"].endswith("/unified/hris/employees")
    assert example["curl"].startswith("curl ") and "httpx.get(" in example["python"]
    assert results[0]["request_example"] is None  # C0 reads raw JSON chunks: no typed facts, no example
    default = client.post(f"{server.url}/ask", json={"question": QUESTION}).json()["results"]
    assert [r["config"] for r in default] == list(DEFAULT_CONFIGS)


def test_stream_yields_text_then_sources_then_done(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index)
    response = client.post(f"{server.url}/ask/stream", json={"question": QUESTION, "configs": ["C0", "full"]})
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
    events = events_of(response)
    kinds = [event["type"] for event in events]
    assert kinds == ["text", "text", "sources", "sources", "done"], kinds
    assert {e["config"] for e in events if e["type"] == "text"} == {"C0", "full"}
    assert [e["config"] for e in events if e["type"] == "sources"] == ["C0", "full"]
    sources = events[2]
    assert sources["citations"] and sources["result"]["chunks"] and sources["cached"] is False
    assert events[-1]["ok"] is True


def test_a_failure_mid_stream_is_an_event(fixture_index: Index, serve: Serve, client, monkeypatch) -> None:
    server = serve(fixture_index)

    def broken(*_: object, **__: object) -> Any:
        yield from ()
        raise RuntimeError("the vector store went away")

    from rag.runner import Engine

    monkeypatch.setattr(Engine, "stream_many", broken)
    events = events_of(client.post(f"{server.url}/ask/stream", json={"question": QUESTION}))
    assert events == [{"type": "error", "message": "RuntimeError: the vector store went away"},
                      {"type": "done", "ok": False, "seconds": events[-1]["seconds"]}]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"question": "   "}, 400, "empty"),
        ({"question": "x" * 4_001}, 400, "4,001 characters long; the limit is 4,000"),
        ({"question": QUESTION, "configs": ["C0", "Z9"]}, 400, "unknown config(s) Z9; allowed: C0, C1"),
        ({"question": QUESTION, "configs": []}, 400, "no configs given; allowed: C0"),
        ({"question": QUESTION, "history": [{"role": "robot", "content": "hi"}]}, 422,
         "history.0.role: Input should be 'user' or 'assistant'"),
        ({"question": QUESTION, "history": "earlier I asked"}, 422, "history: Input should be a valid list"),
        ({"question": QUESTION, "history": [{"role": "user"}]}, 422, "history.0.content: Field required"),
        ({"question": QUESTION, "api_version": "9.9"}, 400, "'9.9' is not an indexed version; indexed: people-3_1@"),
        ({"configs": ["full"]}, 422, "question: Field required"),
        ({"question": QUESTION, "temperature": 2}, 422, "temperature: Extra inputs are not permitted"),
    ],
)
def test_bad_questions_get_a_4xx_naming_the_problem(
    fixture_index: Index, serve: Serve, client, body: dict[str, Any], status: int, message: str
) -> None:
    server = serve(fixture_index)
    for route in ("/ask", "/ask/stream"):
        response = client.post(f"{server.url}{route}", json=body)
        assert response.status_code == status, (route, response.text)
        assert message in response.json()["detail"], response.json()


def test_an_empty_index_is_a_conflict_that_says_what_to_do(empty_index: Index, serve: Serve, client) -> None:
    response = client.post(f"{serve(empty_index).url}/ask", json={"question": QUESTION})
    assert response.status_code == 409 and "POST /documents" in response.json()["detail"]


def test_the_token_is_required_on_every_route_but_health(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index, token="s3cret")
    assert client.get(f"{server.url}/health").status_code == 200
    calls = [("GET", "/configs"), ("GET", "/apis"), ("POST", "/ask"), ("POST", "/ask/stream"), ("GET", "/docs"),
             ("GET", "/openapi.json"), ("DELETE", "/documents/x.md"), ("POST", "/documents")]
    for method, path in calls:
        missing = client.request(method, f"{server.url}{path}", json={"question": QUESTION})
        assert missing.status_code == 401 and "missing bearer token" in missing.json()["detail"], path
        assert missing.headers["www-authenticate"] == "Bearer"
        wrong = client.request(method, f"{server.url}{path}", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and "wrong bearer token" in wrong.json()["detail"], path
    good = {"Authorization": "Bearer s3cret"}
    assert client.get(f"{server.url}/configs", headers=good).status_code == 200
    answered = client.post(f"{server.url}/ask", json={"question": QUESTION, "configs": ["full"]}, headers=good)
    assert answered.status_code == 200 and answered.json()["results"][0]["answer"]


def test_ten_concurrent_asks_all_answer(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index)
    questions = [f"{QUESTION} (request {n})" for n in range(10)]

    def ask(question: str) -> httpx.Response:
        return client.post(f"{server.url}/ask", json={"question": question, "configs": ["C0", "full"]})

    with ThreadPoolExecutor(max_workers=10) as pool:
        responses = list(pool.map(ask, questions))
    assert [r.status_code for r in responses] == [200] * 10
    for question, response in zip(questions, responses, strict=True):
        results = response.json()["results"]
        assert all(r["question"] == question and r["answer"] and not r["errors"] for r in results)


def test_configs_health_and_apis_describe_the_service(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index)
    configs = client.get(f"{server.url}/configs").json()
    assert configs["default"] == list(DEFAULT_CONFIGS)
    assert {c["name"] for c in configs["configs"]} >= {"C0", "C5", "full"}
    assert next(c for c in configs["configs"] if c["name"] == "full")["runs_offline"] is True
    health = client.get(f"{server.url}/health").json()
    assert health == {"status": "ok", "documents": 2, "generator": "extractive", "query_cache": True}
    apis = {entry["api"]: entry for entry in client.get(f"{server.url}/apis").json()["apis"]}
    assert set(apis) == {"people-3_1", "shop-3_0"} and apis["people-3_1"]["versions"][0]["newest"] is True
    schema = client.get(f"{server.url}/openapi.json").json()
    assert {"/ask", "/ask/stream", "/documents", "/documents/{name}", "/health", "/configs", "/apis"} <= set(
        schema["paths"]
    )
    assert "swagger" in client.get(f"{server.url}/docs").text.lower()


def test_upload_then_delete_a_document(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index)
    added = client.post(f"{server.url}/documents", files=[("files", ("payroll.md", NOTE, "text/markdown"))])
    assert added.status_code == 200, added.text
    assert added.json()["reports"][0]["status"] == "added"
    assert "payroll" in {entry["api"] for entry in client.get(f"{server.url}/apis").json()["apis"]}
    again = client.post(f"{server.url}/documents", files=[("files", ("payroll.md", NOTE, "text/markdown"))])
    assert again.status_code == 409 and "on_duplicate='replace' or 'skip'" in again.json()["detail"]
    replaced = client.post(f"{server.url}/documents", data={"on_duplicate": "skip"},
                           files=[("files", ("payroll.md", NOTE + b"More.\n", "text/markdown"))])
    assert replaced.status_code == 200 and replaced.json()["reports"][0]["status"] == "skipped"
    assert client.delete(f"{server.url}/documents/payroll.md").json() == {"deleted": "payroll.md"}
    gone = client.delete(f"{server.url}/documents/payroll.md")
    assert gone.status_code == 404 and "'payroll.md' is not indexed; indexed: people-3.1.json" in gone.json()["detail"]


def test_an_uploaded_spec_answers_at_once_and_its_schema_and_naive_chunks_follow_in_the_background(
    empty_index: Index, serve: Serve, client
) -> None:
    from rag.index.deferred import complete_in_background
    from tests.conftest import FIXTURES

    server = serve(empty_index)
    spec = (FIXTURES / "specs" / "shop-3.0.yaml").read_bytes()
    added = client.post(f"{server.url}/documents", files=[("files", ("shop-3.0.yaml", spec, "application/yaml"))])
    assert added.status_code == 200 and added.json()["reports"][0]["pending"] == ["smart:schema", "naive"]
    asked = client.post(f"{server.url}/ask", json={"question": "How do I list orders?", "configs": ["full"]})
    assert asked.status_code == 200 and asked.json()["results"][0]["chunks"]  # from the operations, if not all yet
    running = complete_in_background(empty_index)  # the thread the upload started, if it has not finished yet
    if running is not None:
        running.join(timeout=60)
    assert empty_index.pending() == [] and empty_index.snapshot().by_strategy["naive"]
    both = client.post(f"{server.url}/ask", json={"question": "How do I list orders?", "configs": ["C0", "full"]})
    assert [(r["pending"], r["fallbacks"]) for r in both.json()["results"]] == [([], []), ([], [])]


@pytest.mark.parametrize(
    ("name", "data", "status", "message"),
    [
        ("big.md", b"# Big\n" + b"x" * MAX_UPLOAD_BYTES, 413,
         "too large (10.0 MB, 10,485,766 bytes); the limit is 10 MB"),
        ("tool.exe", b"MZ\x00", 400, "file type '.exe' is not allowed; allowed: .json"),
        ("empty.md", b"", 400, "the file is empty"),
    ],
)
def test_bad_uploads_get_a_4xx_naming_the_problem(
    fixture_index: Index, serve: Serve, client, name: str, data: bytes, status: int, message: str
) -> None:
    server = serve(fixture_index)
    response = client.post(f"{server.url}/documents", files=[("files", (name, data, "application/octet-stream"))])
    assert response.status_code == status, response.text
    assert message in response.json()["detail"] and response.json()["reports"][0]["status"] == "rejected"
    assert client.get(f"{server.url}/health").json()["documents"] == 2  # nothing half-written


def test_a_bad_duplicate_policy_names_the_allowed_ones(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index)
    response = client.post(f"{server.url}/documents", data={"on_duplicate": "merge"},
                           files=[("files", ("payroll.md", NOTE, "text/markdown"))])
    assert response.status_code == 422 and "on_duplicate: Input should be 'reject', 'skip' or 'replace'" in (
        response.json()["detail"]
    )


def test_a_repeated_question_is_cached_until_an_upload(fixture_index: Index, serve: Serve, client) -> None:
    server = serve(fixture_index)
    body = {"question": QUESTION, "configs": ["C0", "full"]}
    first = client.post(f"{server.url}/ask", json=body).json()["results"]
    second = client.post(f"{server.url}/ask", json=body).json()["results"]
    assert [r["cached"] for r in first] == [False, False] and [r["cached"] for r in second] == [True, True]
    assert [r["answer"] for r in first] == [r["answer"] for r in second]
    streamed = events_of(client.post(f"{server.url}/ask/stream", json=body))
    assert [e["cached"] for e in streamed if e["type"] == "sources"] == [True, True]
    client.post(f"{server.url}/documents", files=[("files", ("payroll.md", NOTE, "text/markdown"))])
    assert [r["cached"] for r in client.post(f"{server.url}/ask", json=body).json()["results"]] == [False, False]


@pytest.mark.slow
def test_the_real_specs_answer_http_basic_and_a_repeat_comes_from_the_cache(
    stackone_index: Index, serve: Serve, client
) -> None:
    """How much faster the cache answers is `bench rest`'s to measure (a timed assertion here failed under the
    suite's load); here, that the repeat is the cached answer and a new document makes it stale."""
    server = serve(stackone_index)
    body = {"question": "How do I authenticate with the StackOne API?", "configs": ["full"]}
    first = client.post(f"{server.url}/ask", json=body)
    assert first.status_code == 200, first.text
    result = first.json()["results"][0]
    assert not result["abstained"] and not result["cached"] and "HTTP Basic" in result["answer"], result["answer"]
    assert any(c["api"] == "stackone" for c in result["citations"])

    second = client.post(f"{server.url}/ask", json=body)
    assert second.json()["results"][0]["cached"] is True
    assert second.json()["results"][0]["answer"] == result["answer"]

    added = client.post(f"{server.url}/documents", files=[("files", ("payroll.md", NOTE, "text/markdown"))])
    assert added.status_code == 200, added.text
    try:
        fresh = client.post(f"{server.url}/ask", json=body).json()["results"][0]
        assert fresh["cached"] is False and "HTTP Basic" in fresh["answer"]
    finally:
        assert client.delete(f"{server.url}/documents/payroll.md").status_code == 200  # the index is shared


def test_a_spec_by_url_and_a_zipped_split_spec_are_indexed(served: Served, empty_index: Index, serve: Serve,
                                                         client) -> None:
    url = served.write("pets.json", (FIXTURES / "specs" / "swagger-2.0.json").read_text())
    refusing = serve(empty_index)
    refused = client.post(f"{refusing.url}/documents/url", json={"url": url})
    assert refused.status_code == 400 and "a loopback address" in refused.json()["detail"]
    assert served.requested == []
    server = serve(empty_index, allow_private_urls=True)
    added = client.post(f"{server.url}/documents/url", json={"url": url})
    assert added.status_code == 200, added.text
    assert added.json()["reports"][0]["status"] == "added"
    again = client.post(f"{server.url}/documents/url", json={"url": url})
    assert again.json()["reports"][0]["status"] == "skipped"
    missing = client.post(f"{server.url}/documents/url", json={"url": f"{served.url}/nothing.json"})
    assert missing.status_code == 400 and "HTTP 404" in missing.json()["detail"]
    extra = client.post(f"{server.url}/documents/url", json={"url": url, "depth": 3})
    assert extra.status_code == 422
    split = client.post(f"{server.url}/documents", files=[("files", ("digitalocean.zip", zipped(SPLIT),
                                                                     "application/zip"))])
    assert split.status_code == 200 and "bundled from 20 files" in split.json()["reports"][0]["message"]
