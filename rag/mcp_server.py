"""MCP server: the indexed API docs as tools for Claude Desktop, Cursor, VS Code or any MCP client.

Tools (input and output schemas come from the typed signatures below and the models of `rag.mcp_results`;
what each does is a plain function of `rag.mcp_queries`):

* `ask_api(question, config="full")` — a cited answer from the RAG pipeline;
* `search_api(query, k=5, api=None)` — retrieval only: ranked chunks with their scores and text;
* `list_endpoints(api)` — every operation of one spec (method, path, operationId, summary);
* `get_schema(api, name)` — the readable text of one component schema (all parts of a split schema);
* `diff_versions(api, old=None, new=None)` — what changed between two indexed versions of one API.

`ask_api` and `search_api` search the newest version of each API unless `version` names another
(`2025-02`, or `lms@2025-02`).

Errors a caller can fix (unknown API, config or schema, empty question, empty index, a question that
runs past the timeout) are raised as `ToolError`, so the client gets `isError` with a message naming
the allowed values. Every tool runs in a worker thread bounded by `timeout_s`, so a slow model never
blocks the server. `python -m rag mcp` (`rag.mcp_startup`) loads the index and models once, then serves stdio
(default) or streamable HTTP on 127.0.0.1; in stdio mode nothing but protocol messages reaches stdout.
"""

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from rag.config import PRESETS, Config
from rag.errors import ConfigError, RagError
from rag.mcp_queries import MAX_SEARCH_K, ask, diff_versions, endpoints_of, require_config, schema_text, search
from rag.mcp_results import AskResult, EndpointList, SearchResult, VersionDiff
from rag.runner import Engine, clean_question

SERVER_NAME = "specrag"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_HTTP_PORT = 8000
INSTRUCTIONS = (
    "SpecRAG answers questions about the indexed OpenAPI specs (REST APIs). Use list_endpoints to see the "
    "operations of one API, get_schema to read a request/response model, search_api to find the relevant "
    "documentation passages, and ask_api for a cited answer. Cite the structural ids the tools return "
    "(e.g. `hris.paths./unified/hris/employees.get`). When ask_api abstains, the docs do not answer the question."
)

_VERSION_HELP = "search this indexed version ('2025-02', or 'lms@2025-02' for one API); null: the newest"
log = logging.getLogger("rag.mcp")
T = TypeVar("T")


# ---------------------------------------------------------------------- the server
def build_server(
    engine: Engine,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    configs: dict[str, Config] | None = None,
) -> MCPServer:
    """An MCP server exposing `engine` as five tools; each call runs in a worker thread, at most `timeout_s`."""
    if timeout_s <= 0:
        raise ConfigError(f"timeout={timeout_s!r} is not allowed; allowed: a number of seconds above 0")
    server = MCPServer(SERVER_NAME, title="SpecRAG Workbench", instructions=INSTRUCTIONS, version=_version())
    run = tool_runner(timeout_s)
    _add_question_tools(server, engine, dict(configs or PRESETS), run)
    _add_lookup_tools(server, engine, run)
    return server


ToolRunner = Callable[[str, Callable[[], T]], Awaitable[T]]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def tool_runner(timeout_s: float) -> ToolRunner[Any]:
    """A coroutine running one tool's work in a worker thread for at most `timeout_s`: library errors
    become the tool's error message, anything else an `internal error`, and a timeout says what to try."""

    async def run(tool: str, work: Callable[[], T]) -> T:
        started = time.perf_counter()
        with anyio.move_on_after(timeout_s) as scope:
            try:
                return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
            except RagError as error:
                raise ToolError(str(error)) from None
            except ToolError:
                raise
            except Exception as error:
                log.exception("%s failed unexpectedly", tool)
                raise ToolError(f"internal error: {type(error).__name__}: {error}") from None
        if scope.cancelled_caught:
            log.warning("%s timed out after %.1f s", tool, time.perf_counter() - started)
            raise ToolError(
                f"{tool} did not finish within the {timeout_s:g} s timeout; try a shorter question, a faster "
                "config (e.g. C1) or generator (extractive), or start the server with a larger --timeout"
            )
        raise ToolError(f"{tool} was cancelled")  # pragma: no cover - only an outer cancellation lands here

    return run


def _add_question_tools(server: MCPServer, engine: Engine, known: dict[str, Config], run: ToolRunner[Any]) -> None:
    """`ask_api` (an answer with citations) and `search_api` (ranked chunks, no answer)."""

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Answer a question about the indexed REST APIs (OpenAPI specs) with citations. Runs the RAG "
            "pipeline: retrieval, reranking, a confidence gate and answer generation. Returns the answer, "
            "whether it abstained (the docs do not answer it), the confidence, and the cited sources "
            "(structural id, JSON pointer, API). `config` picks the pipeline; allowed: "
            + ", ".join(known) + " (default full, the best one)."
        ),
    )
    async def ask_api(
        question: Annotated[str, Field(description="the question, e.g. 'How do I list employees in HRIS?'")],
        config: Annotated[str, Field(description="pipeline configuration: " + ", ".join(known))] = "full",
        version: Annotated[str | None, Field(description=_VERSION_HELP)] = None,
    ) -> AskResult:
        chosen = require_config_or_tool_error(config, known)
        _question_or_tool_error(question)
        return await run("ask_api", functools.partial(ask, engine, question, chosen, version))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Search the indexed API docs without generating an answer: hybrid (vector + BM25) retrieval "
            "with the learned ranker. Returns the top-k chunks (operations, schemas, API overviews, docs) "
            "with the structural ids they cover, their scores and full text. Pass `api` to search one spec "
            "only (list_endpoints and ask_api errors name the allowed APIs)."
        ),
    )
    async def search_api(
        query: Annotated[str, Field(description="what to look for, e.g. 'create a candidate'")],
        k: Annotated[int, Field(ge=1, le=MAX_SEARCH_K, description="how many chunks to return")] = 5,
        api: Annotated[str | None, Field(description="only this API (spec), e.g. 'hris'; null: all")] = None,
        version: Annotated[str | None, Field(description=_VERSION_HELP)] = None,
    ) -> SearchResult:
        _question_or_tool_error(query, what="query")
        return await run("search_api", functools.partial(search, engine, query, k, api, version))

    @server.tool(
        name="diff_versions",
        annotations=READ_ONLY,
        description=(
            "What changed between two indexed versions of one API: operations removed and added, and per "
            "operation the parameters and request/response fields added, removed or changed (type, required, "
            "enum, default, limits, deprecated), schemas and security schemes; each change breaking or not. "
            "Defaults to the two newest versions."
        ),
    )
    async def diff_versions_tool(
        api: Annotated[str, Field(description="the API (spec) name, e.g. 'lms'")],
        old: Annotated[str | None, Field(description="the old version's label; null: the second newest")] = None,
        new: Annotated[str | None, Field(description="the new version's label; null: the newest")] = None,
        breaking_only: Annotated[bool, Field(description="only the breaking changes")] = False,
        limit: Annotated[int, Field(ge=1, le=1000, description="changes returned at most")] = 100,
    ) -> VersionDiff:
        return await run("diff_versions", functools.partial(diff_versions, engine, api, old, new, breaking_only,
                                                              limit))


def _add_lookup_tools(server: MCPServer, engine: Engine, run: ToolRunner[Any]) -> None:
    """`list_endpoints` (every operation of one API) and `get_schema` (one component schema as text)."""

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "List every operation of one indexed API spec: HTTP method, path, operationId and summary "
            "(webhooks are listed last, flagged webhook=true). Use it to discover what an API can do."
        ),
    )
    async def list_endpoints(
        api: Annotated[str, Field(description="the API (spec) name, e.g. 'hris'")],
    ) -> EndpointList:
        return await run("list_endpoints", functools.partial(endpoints_of, engine, api))

    @server.tool(
        annotations=READ_ONLY,
        structured_output=False,
        description=(
            "Read one component schema (request/response model) of an indexed API as readable text: its "
            "description, required fields, and every field with its type, default, enum values, limits and "
            "nested fields, plus the operations that use it. Large schemas are returned whole."
        ),
    )
    async def get_schema(
        api: Annotated[str, Field(description="the API (spec) name, e.g. 'hris'")],
        name: Annotated[str, Field(description="the component schema name, e.g. 'Employee'")],
    ) -> str:
        return await run("get_schema", functools.partial(schema_text, engine, api, name))


def require_config_or_tool_error(name: str, configs: dict[str, Config]) -> Config:
    """`require_config`, raised as a ToolError."""
    try:
        return require_config(name, configs)
    except ConfigError as error:
        raise ToolError(str(error)) from None


def _question_or_tool_error(text: str, what: str = "question") -> None:
    try:
        clean_question(text)
    except ConfigError as error:
        raise ToolError(str(error).replace("the question", f"the {what}")) from None


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("specrag-workbench")
    except Exception:
        return "0.1.0"
