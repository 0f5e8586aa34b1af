"""The MCP server: every tool through the SDK's in-memory client (results and error paths), the timeout,
and real `python -m rag mcp` subprocesses over streamable HTTP (fixture specs) and stdio (the 7 real specs)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

from rag import cli
from rag.errors import ConfigError
from rag.generate.base import Generation, GenerationRequest, StreamEvent
from rag.index.store import Index
from rag.mcp_server import build_server
from rag.runner import Engine
from tests.processes import free_port

ROOT = Path(__file__).resolve().parent.parent
TOOLS = {"ask_api", "search_api", "list_endpoints", "get_schema", "diff_versions"}
AUTH_QUESTION = "How do I authenticate?"


# ---------------------------------------------------------------------- helpers
def with_client(server: Any, body: Callable[[Client], Awaitable[Any]], **options: Any) -> Any:
    """Connect the SDK's client to `server` (in-process, a URL or a transport), run `body`, return its result."""

    async def main() -> Any:
        async with Client(server, **options) as client:
            return await body(client)

    return asyncio.run(main())


def call(server: Any, tool: str, arguments: dict[str, Any], **options: Any) -> CallToolResult:
    """One tool call through a fresh client."""
    return with_client(server, lambda client: client.call_tool(tool, arguments), **options)


def text_of(result: CallToolResult) -> str:
    """The text blocks of a result, joined."""
    return " ".join(getattr(block, "text", "") for block in result.content)


def error_text(result: CallToolResult) -> str:
    """The message of an `isError` result."""
    assert result.is_error, result
    return text_of(result)


def api_named(index: Index, source: str) -> str:
    """The API name the index gave a fixture file."""
    return next(record.api for record in index.documents() if record.source == source)


def cites_http_basic(index: Index, data: dict[str, Any]) -> bool:
    """Whether an ask_api result cites a chunk (an API overview) that documents the HTTP Basic scheme."""
    for citation in data["citations"]:
        chunks = index.chunks_covering(citation["structural_id"], strategy=None)
        covered = {cover for chunk in chunks for cover in chunk.covers}
        if any("HTTP Basic" in chunk.text for chunk in chunks) and any("securitySchemes" in c for c in covered):
            return True
    return False


@pytest.fixture
def engine(fixture_index: Index) -> Engine:
    return Engine(fixture_index, default_llm="extractive")


@pytest.fixture
def server(engine: Engine) -> Any:
    return build_server(engine)


@pytest.fixture
def shop(fixture_index: Index) -> str:
    return api_named(fixture_index, "shop-3.0.yaml")


@pytest.fixture
def people(fixture_index: Index) -> str:
    return api_named(fixture_index, "people-3.1.json")


# ---------------------------------------------------------------------- listing
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_lists_the_four_tools_with_typed_schemas_and_descriptions(server: Any, mode: str) -> None:
    async def body(client: Client) -> Any:
        return client.server_info, (await client.list_tools()).tools

    info, tools = with_client(server, body, mode=mode)
    assert info is not None and info.name == "specrag"
    by_name = {tool.name: tool for tool in tools}
    assert set(by_name) == TOOLS
    for tool in tools:
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
    ask = by_name["ask_api"].input_schema
    assert ask["required"] == ["question"]
    assert ask["properties"]["question"]["type"] == "string"
    assert ask["properties"]["config"]["default"] == "full"
    assert "C0" in by_name["ask_api"].description and "full" in by_name["ask_api"].description
    search = by_name["search_api"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["k"] == {**search["properties"]["k"], "type": "integer", "default": 5, "minimum": 1}
    assert search["properties"]["api"]["default"] is None
    assert by_name["list_endpoints"].input_schema["required"] == ["api"]
    assert sorted(by_name["get_schema"].input_schema["required"]) == ["api", "name"]
    assert by_name["ask_api"].output_schema is not None
    assert set(by_name["ask_api"].output_schema["properties"]) >= {
        "answer", "abstained", "confidence", "citations", "generator", "notes"
    }


# ---------------------------------------------------------------------- ask_api
def test_ask_api_answers_with_citations(server: Any, shop: str) -> None:
    result = call(server, "ask_api", {"question": "How do I list orders?"})
    assert not result.is_error, result
    data = result.structured_content
    assert data is not None
    assert set(data) == {"answer", "abstained", "confidence", "confidence_score", "citations", "generator", "config",
                         "notes", "request_example"}
    assert data["config"] == "full" and data["generator"].startswith("extractive")
    assert data["request_example"]["method"] == "GET" and data["request_example"]["curl"].startswith("curl ")
    assert not data["abstained"] and data["answer"]
    assert data["citations"], data
    assert all(set(c) == {"structural_id", "json_pointer", "api", "url", "section"} for c in data["citations"])
    assert f"{shop}.paths./orders.get" in [c["structural_id"] for c in data["citations"]]
    assert any(note.startswith("confidence gate") for note in data["notes"])
    assert '"answer"' in text_of(result)  # the same result as JSON text for clients without structured output


def test_ask_api_runs_the_named_config(server: Any) -> None:
    result = call(server, "ask_api", {"question": "How do I list orders?", "config": "C1"})
    assert not result.is_error, result
    assert result.structured_content is not None and result.structured_content["config"] == "C1"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"question": "   "}, "the question is empty"),
        ({"question": "x" * 5000}, "limit is 4,000"),
        ({"question": "How do I list orders?", "config": "nope"}, "unknown config 'nope'; allowed: C0, C1,"),
        ({}, "question"),
    ],
)
def test_ask_api_errors_reach_the_client(server: Any, arguments: dict[str, Any], expected: str) -> None:
    assert expected in error_text(call(server, "ask_api", arguments))


def test_unknown_config_lists_every_allowed_one(server: Any) -> None:
    message = error_text(call(server, "ask_api", {"question": "How do I list orders?", "config": "C9"}))
    assert message.endswith("allowed: C0, C1, C2, C3, C4, C5, E2, E3, E4, full")


# ---------------------------------------------------------------------- search_api
def test_search_api_returns_ranked_chunks_without_an_answer(server: Any, shop: str) -> None:
    result = call(server, "search_api", {"query": "list orders", "k": 3})
    assert not result.is_error, result
    data = result.structured_content
    assert data is not None and set(data) == {"query", "api", "results"} and data["api"] is None
    hits = data["results"]
    assert [hit["rank"] for hit in hits] == [1, 2, 3]
    assert hits[0]["structural_id"] == f"{shop}.paths./orders.get"
    for hit in hits:
        assert hit["covers"] and hit["text"] and hit["json_pointer"] is not None
        assert {"fused", "rerank"} <= set(hit["scores"])


@pytest.mark.parametrize("query", ["list orders", "How do I create an employee?", "What is the default page_size?"])
def test_search_api_returns_exactly_what_ask_retrieval_only_returns(server: Any, engine: Engine, query: str) -> None:
    from rag.config import PRESETS

    asked = engine.run(query, PRESETS["full"], retrieval_only=True)
    result = call(server, "search_api", {"query": query, "k": 5})
    found = [hit["structural_id"] for hit in result.structured_content["results"]]
    assert found == [c.chunk.covers[0] for c in asked.chunks[:5]]


def test_search_api_filters_to_one_api(server: Any, people: str) -> None:
    result = call(server, "search_api", {"query": "list orders", "k": 10, "api": people})
    assert not result.is_error, result
    hits = result.structured_content["results"]  # type: ignore[index]
    assert hits and {hit["api"] for hit in hits} == {people}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "orders", "api": "foo"}, "unknown api 'foo'; allowed: "),
        ({"query": "orders", "k": 0}, "greater than or equal to 1"),
        ({"query": "orders", "k": 51}, "less than or equal to 50"),
        ({"query": " "}, "the query is empty"),
    ],
)
def test_search_api_errors_reach_the_client(server: Any, arguments: dict[str, Any], expected: str) -> None:
    assert expected in error_text(call(server, "search_api", arguments))


def test_unknown_api_names_the_indexed_ones(server: Any, shop: str, people: str) -> None:
    message = error_text(call(server, "list_endpoints", {"api": "foo"}))
    assert f"unknown api 'foo'; allowed: {', '.join(sorted([shop, people]))}" in message


# ---------------------------------------------------------------------- list_endpoints
def test_list_endpoints_lists_every_operation(server: Any, people: str, shop: str) -> None:
    result = call(server, "list_endpoints", {"api": people})
    assert not result.is_error, result
    data = result.structured_content
    assert data is not None and data["api"] == people and data["count"] == len(data["endpoints"]) == 5
    endpoints = data["endpoints"]
    assert {
        "method": "GET",
        "path": "/unified/hris/employees",
        "operationId": "hris_list_employees",
        "summary": "List Employees",
    }.items() <= endpoints[0].items()
    assert [(e["method"], e["path"]) for e in endpoints[:4]] == [
        ("GET", "/unified/hris/employees"),
        ("POST", "/unified/hris/employees"),
        ("GET", "/unified/hris/employees/{id}"),
        ("PATCH", "/unified/hris/employees/{id}"),
    ]
    assert endpoints[-1]["webhook"] is True and endpoints[-1]["operationId"] == "on_employee_created"
    shop_endpoints = call(server, "list_endpoints", {"api": shop}).structured_content["endpoints"]  # type: ignore[index]
    ping = next(e for e in shop_endpoints if e["path"] == "/ping")
    assert ping["operationId"] == "" and ping["summary"] == ""
    assert {"method": "DELETE", "path": "/orders/{id}", "summary": "Delete an order"}.items() <= next(
        e for e in shop_endpoints if e["method"] == "DELETE"
    ).items()


def test_list_endpoints_accepts_another_case(server: Any, people: str) -> None:
    result = call(server, "list_endpoints", {"api": people.upper()})
    assert not result.is_error and result.structured_content["api"] == people  # type: ignore[index]


# ---------------------------------------------------------------------- get_schema
def test_get_schema_returns_readable_text(server: Any, shop: str) -> None:
    result = call(server, "get_schema", {"api": shop, "name": "Money"})
    assert not result.is_error, result
    text = text_of(result)
    assert text.startswith("Schema Money")
    assert "Required fields: amount, currency" in text
    assert "- currency (string, required): Default: EUR." in text
    order = text_of(call(server, "get_schema", {"api": shop, "name": "OrderStatus"}))
    assert "Enum: pending, paid, shipped, cancelled" in order


def test_get_schema_tolerates_case(server: Any, shop: str) -> None:
    assert text_of(call(server, "get_schema", {"api": shop, "name": "money"})).startswith("Schema Money")


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Mony", "did you mean: Money; allowed (17): A, AliasA"), ("", "the schema name is empty")],
)
def test_get_schema_errors_reach_the_client(server: Any, shop: str, name: str, expected: str) -> None:
    message = error_text(call(server, "get_schema", {"api": shop, "name": name}))
    assert expected in message
    if name:
        assert f"unknown schema {name!r} in api {shop!r}" in message


def test_get_schema_unknown_api(server: Any) -> None:
    assert "unknown api 'nope'; allowed: " in error_text(call(server, "get_schema", {"api": "nope", "name": "Money"}))


# ---------------------------------------------------------------------- empty index, timeout, arguments
def test_every_tool_reports_an_empty_index(empty_index: Index) -> None:
    server = build_server(Engine(empty_index, default_llm="extractive"))
    for tool, arguments in [
        ("ask_api", {"question": "How do I list orders?"}),
        ("search_api", {"query": "orders"}),
        ("list_endpoints", {"api": "shop"}),
        ("get_schema", {"api": "shop", "name": "Money"}),
    ]:
        assert "the index is empty" in error_text(call(server, tool, arguments)), tool


class BlockedGenerator:
    """A generator that waits until released: stands in for a model that hangs."""

    name = "blocked"

    def __init__(self) -> None:
        self.release = threading.Event()

    def generate(self, request: GenerationRequest) -> Generation:
        self.release.wait(30)
        return Generation(answer="too late", generator=self.name)

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:  # pragma: no cover - unused
        raise NotImplementedError


def test_a_question_never_runs_past_the_timeout(fixture_index: Index) -> None:
    blocked = BlockedGenerator()
    engine = Engine(fixture_index, default_llm="blocked", generator_factory=lambda spec: blocked)
    server = build_server(engine, timeout_s=0.5)
    started = time.perf_counter()
    try:
        result = call(server, "ask_api", {"question": "How do I list orders?"})
    finally:
        blocked.release.set()
    elapsed = time.perf_counter() - started
    assert "did not finish within the 0.5 s timeout" in error_text(result)
    assert elapsed < 5, elapsed
    # the server keeps answering after a timeout
    assert not call(server, "list_endpoints", {"api": api_named(fixture_index, "shop-3.0.yaml")}).is_error


def test_generator_failures_are_reported(fixture_index: Index) -> None:
    def broken(spec: str) -> Any:
        raise ConfigError(f"'{spec}' needs OPENAI_API_KEY; set it in the environment or .env")

    server = build_server(Engine(fixture_index, default_llm="openai:gpt-4o-mini", generator_factory=broken))
    message = error_text(call(server, "ask_api", {"question": "How do I list orders?"}))
    assert "needs OPENAI_API_KEY" in message


def test_bad_timeouts_and_ports_are_refused(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="timeout"):
        build_server(engine, timeout_s=0)
    assert cli.main(["mcp", "--timeout", "0"]) == cli.EXIT_USAGE
    assert "--timeout=0 is not allowed" in capsys.readouterr().err
    assert cli.main(["mcp", "--http", "--port", "70000"]) == cli.EXIT_USAGE
    assert "--port=70000 is not allowed" in capsys.readouterr().err


# ---------------------------------------------------------------------- real subprocesses
def server_env(**extra: str) -> dict[str, str]:
    """A clean environment for a server subprocess: offline, extractive, no API keys."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "RAG_SHARED_DIR")
    env = {key: os.environ[key] for key in keep if key in os.environ}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False", RAG_LLM="extractive")
    env.update(extra)
    return env


def test_streamable_http_subprocess(fixture_index: Index, tmp_path: Path) -> None:
    port = free_port()
    log = (tmp_path / "server.log").open("w+")
    command = ["-m", "rag", "mcp", "--http", "--port", str(port), "--index-dir", str(fixture_index.directory)]
    process = subprocess.Popen(
        [sys.executable, *command],
        cwd=ROOT,
        env=server_env(RAG_EMBEDDING_MODEL="hashing"),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, log.seek(0) or log.read()
            assert time.monotonic() < deadline, "the HTTP server did not start"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)

        async def body(client: Client) -> tuple[set[str], CallToolResult]:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            return tools, await client.call_tool("list_endpoints", {"api": api_named(fixture_index, "shop-3.0.yaml")})

        tools, result = with_client(f"http://127.0.0.1:{port}/mcp", body)
        assert tools == TOOLS
        assert not result.is_error and result.structured_content["count"] == 7  # type: ignore[index]
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.mark.slow
def test_ask_api_on_the_real_specs_cites_http_basic(stackone_index: Index) -> None:
    server = build_server(Engine(stackone_index, default_llm="extractive"))
    result = call(server, "ask_api", {"question": AUTH_QUESTION})
    assert not result.is_error, result
    data = result.structured_content
    assert data is not None and not data["abstained"], data
    assert "HTTP Basic" in data["answer"], data["answer"]
    assert cites_http_basic(stackone_index, data), data["citations"]


@pytest.mark.slow
def test_stdio_subprocess_on_the_real_specs(stackone_index: Index, tmp_path: Path) -> None:
    """`python -m rag mcp` as a real subprocess, as Claude Desktop starts it: initialize, list tools, ask."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rag", "mcp", "--index-dir", str(stackone_index.directory)],
        env=server_env(),
        cwd=ROOT,
    )
    stray: list[Exception] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a line on stdout that is not a protocol message
            stray.append(message)

    timings: dict[str, float] = {}

    async def main() -> tuple[Any, set[str], CallToolResult]:
        started = time.perf_counter()
        with (tmp_path / "stderr.log").open("w") as errlog:
            transport = stdio_client(params, errlog=errlog)
            async with Client(transport, mode="legacy", message_handler=on_message, read_timeout_seconds=300) as client:
                timings["initialize"] = time.perf_counter() - started
                tools = {tool.name for tool in (await client.list_tools()).tools}
                asked = time.perf_counter()
                result = await client.call_tool("ask_api", {"question": AUTH_QUESTION})
                timings["ask_api"] = time.perf_counter() - asked
                info = client.server_info
        timings["total"] = time.perf_counter() - started
        return info, tools, result

    info, tools, result = asyncio.run(main())
    log = (tmp_path / "stderr.log").read_text()
    print(f"stdio subprocess timings (s): {timings}\n{log[-400:]}")
    assert info is not None and info.name == "specrag"
    assert tools == TOOLS
    assert not stray, stray
    assert "specrag MCP server ready" in log
    assert not result.is_error, (result, log[-2000:])
    data = result.structured_content
    assert data is not None and "HTTP Basic" in data["answer"], data
    assert cites_http_basic(stackone_index, data), data["citations"]
