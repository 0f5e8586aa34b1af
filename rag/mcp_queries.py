"""What the MCP tools do, as plain functions of an `Engine`: answer, search, list an API's operations, read a
schema, diff two versions; each checks its arguments and raises `ConfigError` naming the allowed values."""

import difflib
from dataclasses import replace

from rag.chunk import Chunk, schema_id
from rag.config import PRESETS, Config
from rag.errors import ConfigError, RagError
from rag.ingest.schema_chunks import join_schema_parts
from rag.mcp_results import AskResult, Endpoint, EndpointList, SearchResult, VersionDiff, ask_result, search_hit
from rag.results import order_labels
from rag.runner import Engine, clean_question

MAX_SEARCH_K = 50
MAX_LISTED_NAMES = 40
_METHOD_ORDER = {m: i for i, m in enumerate(("get", "post", "put", "patch", "delete", "head", "options", "trace"))}
EMPTY_INDEX = (
    "the index is empty; index some specs first: `python -m rag ingest PATH...` (or `make index`), "
    "or point RAG_INDEX_DIR / --index-dir at a built index"
)


def require_index(engine: Engine) -> list[str]:
    """The indexed API names; raises when the index is empty."""
    if engine.index.is_empty():
        raise ConfigError(EMPTY_INDEX)
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
    result = engine.run_many(question, [config])[0]  # through the query cache when the engine has one
    if result.errors:
        raise RagError("; ".join(result.errors))
    return ask_result(result)


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
    shown = result.chunks[:k]
    hits = [search_hit(c, decided) for c, decided in zip(shown, order_labels(shown), strict=True)]
    return SearchResult(query=cleaned, api=apis[0] if apis else None, results=hits)


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
