"""MCP server: the indexed API docs as tools for Claude Desktop, Cursor, VS Code or any MCP client.

Tools (input and output schemas come from the typed signatures and models below):

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
blocks the server. `python -m rag mcp` loads the index and models once, then serves stdio (default) or
streamable HTTP on 127.0.0.1; in stdio mode nothing but protocol messages reaches stdout.
"""

import difflib
import functools
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from rag.chunk import Chunk, schema_id
from rag.config import PRESETS, Config
from rag.errors import ConfigError, RagError
from rag.results import RetrievedChunk
from rag.runner import Engine, clean_question

SERVER_NAME = "specrag"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_HTTP_PORT = 8000
MAX_SEARCH_K = 50
MAX_LISTED_NAMES = 40
_METHOD_ORDER = {m: i for i, m in enumerate(("get", "post", "put", "patch", "delete", "head", "options", "trace"))}
_EMPTY_INDEX = (
    "the index is empty; index some specs first: `python -m rag ingest PATH...` (or `make index`), "
    "or point RAG_INDEX_DIR / --index-dir at a built index"
)
INSTRUCTIONS = (
    "SpecRAG answers questions about the indexed OpenAPI specs (REST APIs). Use list_endpoints to see the "
    "operations of one API, get_schema to read a request/response model, search_api to find the relevant "
    "documentation passages, and ask_api for a cited answer. Cite the structural ids the tools return "
    "(e.g. `hris.paths./unified/hris/employees.get`). When ask_api abstains, the docs do not answer the question."
)

_VERSION_HELP = "search this indexed version ('2025-02', or 'lms@2025-02' for one API); null: the newest"
log = logging.getLogger("rag.mcp")
T = TypeVar("T")


# ---------------------------------------------------------------------- output models
class SourceCitation(BaseModel):
    """A source an answer used."""

    structural_id: str = Field(description="what the source is, e.g. `hris.paths./unified/hris/employees.get`")
    json_pointer: str = Field(description="where it is in the spec, e.g. `/paths/~1unified~1hris~1employees/get`")
    api: str = Field(description="the API (spec) it belongs to")


class AskResult(BaseModel):
    """A cited answer."""

    answer: str = Field(description="the answer, with [n] markers pointing at the citations")
    abstained: bool = Field(description="true when the indexed docs do not answer the question")
    confidence: str = Field(description="answer, partial or abstain (the confidence gate's verdict)")
    citations: list[SourceCitation] = Field(description="the sources the answer used, in marker order")
    generator: str = Field(description="what wrote the answer: extractive, openai:MODEL, groq:MODEL or local")
    config: str = Field(description="the pipeline configuration used")
    notes: list[str] = Field(description="what each pipeline stage decided (intent filter, gate, …)")


class SearchHit(BaseModel):
    """One retrieved chunk."""

    rank: int
    structural_id: str = Field(description="the first structural id the chunk covers")
    covers: list[str] = Field(description="every structural id the chunk is about")
    api: str
    kind: str = Field(description="operation, schema, overview or doc")
    title: str
    json_pointer: str
    scores: dict[str, float] = Field(description="vector/bm25/hybrid scores and the rerank score")
    text: str = Field(description="the chunk text, as the answer generator sees it")


class SearchResult(BaseModel):
    """Ranked chunks for a query (no answer is generated)."""

    query: str
    api: str | None = Field(description="the API searched, or null for all")
    results: list[SearchHit]


class VersionDiff(BaseModel):
    """What changed between two indexed versions of one API."""

    api: str
    old: str = Field(description="the old version's label")
    new: str = Field(description="the new version's label")
    summary: dict[str, int] = Field(description="operations added / removed / changed, changes, breaking changes")
    removed_operations: list[str] = Field(description="`METHOD /path` of every operation only the old version has")
    added_operations: list[str] = Field(description="`METHOD /path` of every operation only the new version has")
    changes: list[dict[str, Any]] = Field(description="the changes (kind, action, name, attribute, old, new, "
                                          "breaking, schema, operations, message), breaking ones first")


class Endpoint(BaseModel):
    """One operation of a spec."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    method: str = Field(description="HTTP method, upper case")
    path: str = Field(description="the path template (the webhook name for webhooks)")
    operation_id: str = Field(alias="operationId", description="the operationId ('' when the spec has none)")
    summary: str = Field(description="the operation's summary ('' when the spec has none)")
    structural_id: str
    webhook: bool = False


class EndpointList(BaseModel):
    """Every operation of one spec."""

    api: str
    count: int
    endpoints: list[Endpoint]


# ---------------------------------------------------------------------- plain functions (used by the tools)
def require_index(engine: Engine) -> list[str]:
    """The indexed API names; raises when the index is empty."""
    if engine.index.is_empty():
        raise ConfigError(_EMPTY_INDEX)
    return engine.index.snapshot().apis()


def require_api(engine: Engine, api: str) -> str:
    """`api` if it is indexed (exact, else case-insensitive); raises naming the allowed APIs."""
    apis = require_index(engine)
    if api in apis:
        return api
    folded = [name for name in apis if name.lower() == (api or "").strip().lower()]
    if len(folded) == 1:
        return folded[0]
    raise ConfigError(f"unknown api {api!r}; allowed: {', '.join(apis)}")


def require_config(name: str, configs: dict[str, Config]) -> Config:
    """The config called `name`; raises naming the allowed ones."""
    if name in configs:
        return configs[name]
    raise ConfigError(f"unknown config {name!r}; allowed: {', '.join(configs)}")


def pinned(engine: Engine, config: Config, version: str | None) -> Config:
    """`config` searching `version` of the APIs (`2025-02`, `lms@2025-02`); raises naming the indexed versions."""
    if not version:
        return config
    engine.index.version_view(version)
    return replace(config, api_version=version)


def ask(engine: Engine, question: str, config: Config, version: str | None = None) -> AskResult:
    """Answer with one configuration; an error the pipeline recorded is raised."""
    require_index(engine)
    clean_question(question)
    config = pinned(engine, config, version)
    result = engine.run(question, config)
    if result.errors:
        raise RagError("; ".join(result.errors))
    return AskResult(
        answer=result.answer,
        abstained=result.abstained,
        confidence=result.confidence,
        citations=[SourceCitation(structural_id=c.structural_id, json_pointer=c.json_pointer, api=c.api)
                   for c in result.citations],
        generator=result.generator,
        config=result.config,
        notes=list(result.notes),
    )


def search(engine: Engine, query: str, k: int = 5, api: str | None = None, version: str | None = None) -> SearchResult:
    """The chunks `full` retrieves for the query, exactly as `ask --configs full --retrieval-only` returns
    them (the same Engine and stages), optionally only in one API. No answer is generated."""
    apis: tuple[str, ...] = (require_api(engine, api),) if api else ()
    if not apis:
        require_index(engine)
    if not 1 <= k <= MAX_SEARCH_K:
        raise ConfigError(f"k={k!r} is not allowed; allowed: a whole number from 1 to {MAX_SEARCH_K}")
    cleaned = clean_question(query)
    config = replace(PRESETS["full"], k=k, candidate_pool=max(PRESETS["full"].candidate_pool, k))
    result = engine.run(cleaned, pinned(engine, config, version), retrieval_only=True, scope=apis)
    if result.errors:
        raise RagError("; ".join(result.errors))
    return SearchResult(query=cleaned, api=apis[0] if apis else None, results=[_hit(c) for c in result.chunks[:k]])


def diff_versions(engine: Engine, api: str, old: str | None = None, new: str | None = None,
                  breaking_only: bool = False, limit: int = 100) -> VersionDiff:
    """The diff of two indexed versions of `api` (default: the two newest)."""
    from rag.index.versions import versions_of
    from rag.versions.compare import diff_sides

    api = require_api(engine, api)
    versions = versions_of(engine.index.documents(), api)
    if len(versions) < 2 and not (old and new):
        labels = ", ".join(r.api_version for r in versions) or "none"
        raise ConfigError(f"{api} has one indexed version ({labels}); ingest another with `--version LABEL` first")
    old = old or versions[-2].api_version
    new = new or versions[-1].api_version
    diff = diff_sides(f"{api}@{old}", f"{api}@{new}", engine.index)
    changes = sorted((c for c in diff.changes if c.breaking or not breaking_only), key=lambda c: not c.breaking)
    return VersionDiff(api=api, old=old, new=new, summary=diff.summary(), removed_operations=diff.removed_operations,
                       added_operations=diff.added_operations, changes=[c.to_dict() for c in changes[:limit]])


def _hit(candidate: RetrievedChunk) -> SearchHit:
    chunk = candidate.chunk
    return SearchHit(
        rank=candidate.rank,
        structural_id=chunk.covers[0] if chunk.covers else chunk.chunk_id,
        covers=list(chunk.covers),
        api=chunk.api,
        kind=chunk.kind,
        title=chunk.title,
        json_pointer=chunk.json_pointer,
        scores={name: round(value, 6) for name, value in candidate.scores.items()},
        text=chunk.text,
    )


def endpoints_of(engine: Engine, api: str) -> EndpointList:
    """Every operation (and webhook) of one spec, from its smart operation chunks."""
    api = require_api(engine, api)
    found: dict[str, Chunk] = {}
    for chunk in engine.index.snapshot().chunks.values():
        if chunk.api != api or chunk.strategy != "smart" or chunk.kind != "operation":
            continue
        key = chunk.covers[0] if chunk.covers else chunk.chunk_id
        if key not in found or chunk.part < found[key].part:
            found[key] = chunk
    endpoints = [
        Endpoint(
            method=chunk.method.upper(),
            path=chunk.path,
            operationId=chunk.operation_id,
            summary=chunk.summary,
            structural_id=key,
            webhook=".webhooks." in key,
        )
        for key, chunk in found.items()
    ]
    endpoints.sort(key=lambda e: (e.webhook, e.path, _METHOD_ORDER.get(e.method.lower(), 99), e.method))
    return EndpointList(api=api, count=len(endpoints), endpoints=endpoints)


def schema_names(engine: Engine, api: str) -> list[str]:
    """The component schema names of one API."""
    prefix = schema_id(api, "")
    names = {
        cover.removeprefix(prefix)
        for chunk in engine.index.snapshot().chunks.values()
        if chunk.api == api and chunk.strategy == "smart" and chunk.kind == "schema"
        for cover in chunk.covers
        if cover.startswith(prefix)
    }
    return sorted(names, key=str.lower)


def schema_text(engine: Engine, api: str, name: str) -> str:
    """The readable text of a component schema; the parts of a split schema joined into one text."""
    api = require_api(engine, api)
    wanted = (name or "").strip()
    if not wanted:
        raise ConfigError("the schema name is empty; pass a component schema name such as the ones search_api shows")
    parts = engine.index.chunks_covering(schema_id(api, wanted), "smart")
    if not parts:
        names = schema_names(engine, api)
        folded = [n for n in names if n.lower() == wanted.lower()]
        if len(folded) == 1:
            wanted = folded[0]
            parts = engine.index.chunks_covering(schema_id(api, wanted), "smart")
        else:
            raise ConfigError(_unknown_schema(api, wanted, names))
    return join_schema_parts([c for c in parts if c.kind == "schema"] or parts)


def _unknown_schema(api: str, name: str, names: list[str]) -> str:
    if not names:
        return f"unknown schema {name!r}: api {api!r} has no component schemas"
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
    hint = f"; did you mean: {', '.join(close)}" if close else ""
    shown = ", ".join(names[:MAX_LISTED_NAMES])
    more = f" … and {len(names) - MAX_LISTED_NAMES} more" if len(names) > MAX_LISTED_NAMES else ""
    return f"unknown schema {name!r} in api {api!r}{hint}; allowed ({len(names)}): {shown}{more}"


def join_schema_parts(parts: list[Chunk]) -> str:
    """One text from the parts of a schema: one title, the fields in order, the `Used by:` line once."""
    ordered = sorted(parts, key=lambda c: c.part)
    if len(ordered) == 1:
        return ordered[0].text
    lines: list[str] = []
    footer = ""
    for position, chunk in enumerate(ordered):
        chunk_lines = chunk.text.split("\n")
        if chunk_lines and chunk_lines[-1].startswith("Used by: "):
            footer = chunk_lines.pop()
        if position == 0:
            chunk_lines[0] = chunk_lines[0].replace(f" (part 1 of {len(ordered)})", "")
        else:
            chunk_lines = chunk_lines[1:]
            if chunk_lines and chunk_lines[0] in ("Fields (continued):", "(continued)"):
                chunk_lines = chunk_lines[1:]
        lines.extend(chunk_lines)
    if footer:
        lines.append(footer)
    return "\n".join(lines)


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
            "with structural reranking. Returns the top-k chunks (operations, schemas, API overviews, docs) "
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


# ---------------------------------------------------------------------- start-up (`python -m rag mcp`)
@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout (Python or C level: progress bars, warnings) to stderr meanwhile."""
    sys.stdout.flush()
    saved = os.dup(1)
    saved_stream = sys.stdout
    try:
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        yield
    finally:
        sys.stderr.flush()
        sys.stdout = saved_stream
        os.dup2(saved, 1)
        os.close(saved)


def warm_up(engine: Engine) -> list[str]:
    """Load the index snapshot, the embedding model and the default generator now; returns warnings."""
    warnings: list[str] = []
    if engine.index.is_empty():
        return [_EMPTY_INDEX]
    engine.index.snapshot()
    result = engine.run("How do I authenticate?", replace(PRESETS["full"], name="warm-up"), retrieval_only=True)
    warnings.extend(f"warm-up retrieval failed: {error}" for error in result.errors)
    try:
        engine.generator(engine.default_llm)
    except Exception as error:
        warnings.append(f"generator {engine.default_llm!r} is not available: {error}")
    return warnings


def main(args: Any) -> int:
    """The `python -m rag mcp` command: load everything once, then serve."""
    from rag.config import known_configs
    from rag.runner import engine_from_settings
    from rag.settings import Settings

    if not 0 < args.port < 65536:
        raise ConfigError(f"--port={args.port} is not allowed; allowed: 1 to 65535")
    if not args.timeout > 0:
        raise ConfigError(f"--timeout={args.timeout:g} is not allowed; allowed: a number of seconds above 0")
    started = time.perf_counter()
    with stdout_to_stderr():
        settings = Settings.from_env(index_dir=getattr(args, "index_dir", None))
        configs = known_configs(getattr(args, "config_file", None))
        engine = engine_from_settings(settings, llm=args.llm)
        warnings = warm_up(engine)
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        documents = len(engine.index.documents())
        print(
            f"specrag MCP server ready in {time.perf_counter() - started:.1f} s: {documents} documents from "
            f"{settings.index_dir}, generator {engine.default_llm}, timeout {args.timeout:g} s",
            file=sys.stderr,
            flush=True,
        )
        server = build_server(engine, timeout_s=args.timeout, configs=configs)
    if args.http:
        print(f"listening on http://127.0.0.1:{args.port}/mcp (streamable HTTP)", file=sys.stderr, flush=True)
        server.run("streamable-http", host="127.0.0.1", port=args.port)
        return 0
    server.run("stdio")
    # The client closed stdin: leave now. Tearing down torch and transformers takes seconds on a small CPU,
    # longer than MCP clients wait before killing the server; nothing is left to flush (reads only).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
