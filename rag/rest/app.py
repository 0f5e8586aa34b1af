"""The REST API (FastAPI) over the one engine the app, the CLI and the MCP server use.

Routes: `POST /ask` (every configuration's result, the shape of `rag ask --json` plus `cached`), `POST /ask/stream`
(NDJSON: text events as answers are written, then each configuration's sources, then `done`), `GET /health`,
`GET /configs`, `GET /apis`, `POST /documents` (multipart upload, the app's validation), `POST /documents/url`
(a spec by URL), `DELETE /documents/{name}`, and FastAPI's own `/openapi.json` and `/docs`. Bad input gets a 4xx
whose `detail` names the problem and what is allowed. With a token, every route but `/health` needs
`Authorization: Bearer <token>`.
Requests run on FastAPI's thread pool against the shared engine (never rebuilt per request).
"""

from __future__ import annotations

import hmac
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Annotated, Any, Literal

from fastapi import FastAPI, File, Form, HTTPException, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse

from rag.config import DEFAULT_CONFIGS, Config, resolve_configs, set_aside_parts
from rag.crawl.spec_url import fetch_spec
from rag.errors import ConfigError, DuplicateDocumentError, IngestError, RagError
from rag.index.build import ingest_fetched_spec
from rag.index.deferred import complete_in_background
from rag.index.versions import versions_by_api
from rag.ingest.pipeline import parse_document
from rag.ingest.validate import MAX_UPLOAD_BYTES, too_large
from rag.pipeline.features import features_of
from rag.query import clean_question
from rag.rest.schemas import AskRequest, SpecUrlRequest
from rag.results import AnswerResult
from rag.runner import Engine

OPEN_PATHS = frozenset({"/health"})  # the only route answered without the token
NDJSON = "application/x-ndjson"


def create_app(engine: Engine, known: Mapping[str, Config], token: str = "",
               allow_private_urls: bool = False) -> FastAPI:
    """The REST application over `engine` (shared by every request), offering the configurations in `known`;
    a non-empty `token` is required as a bearer token on every route but /health. `allow_private_urls` lets
    POST /documents/url fetch from private, loopback and link-local addresses (refused by default)."""
    app = FastAPI(
        title="SpecRAG Workbench API",
        description="Ask questions about the indexed API documentation with several RAG configurations side by "
        "side; upload and delete documents. With RAG_API_TOKEN set, send `Authorization: Bearer <token>`.",
        version="1.0",
    )
    defaults = [name for name in DEFAULT_CONFIGS if name in known] or list(known)[:1]
    add_token_check(app, token)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_message(error.errors())}, status_code=422)

    add_service_routes(app, engine, known, defaults)
    add_ask_routes(app, engine, known, defaults)
    add_document_routes(app, engine)
    add_url_route(app, engine, allow_private_urls)
    return app


def add_token_check(app: FastAPI, token: str) -> None:
    """With a token, answer 401 on every route but /health unless `Authorization: Bearer <token>` is sent."""

    @app.middleware("http")
    async def require_token(request: Request, call_next: Any) -> Any:
        if token and request.url.path not in OPEN_PATHS:
            scheme, _, given = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
                problem = "missing" if not request.headers.get("authorization") else "wrong"
                return JSONResponse(
                    {"detail": f"{problem} bearer token: send `Authorization: Bearer <token>` with the token in "
                               "RAG_API_TOKEN (only /health is open)"},
                    status_code=401, headers={"WWW-Authenticate": "Bearer"},
                )
        return await call_next(request)


def add_service_routes(app: FastAPI, engine: Engine, known: Mapping[str, Config], defaults: Sequence[str]) -> None:
    """GET /health, /configs and /apis."""

    @app.get("/health", summary="Whether the service is up, with the number of indexed documents")
    def health() -> dict[str, Any]:
        return {
            "status": "ok",
            "documents": len(engine.index.documents()),
            "generator": engine.default_llm,
            "query_cache": engine.cache is not None and engine.cache.settings.enabled,
        }

    @app.get("/configs", summary="The configurations that can be asked, and the default ones")
    def configs() -> dict[str, Any]:
        return {
            "default": list(defaults),
            "configs": [
                {**config.to_dict(), "features": features_of(config), "runs_offline": engine.runs_offline(config)}
                for config in known.values()
            ],
        }

    @app.get("/apis", summary="The indexed APIs (and documents) with their versions")
    def apis() -> dict[str, Any]:
        return {"apis": indexed_apis(engine)}


def add_ask_routes(app: FastAPI, engine: Engine, known: Mapping[str, Config], defaults: Sequence[str]) -> None:
    """POST /ask and POST /ask/stream."""

    @app.post("/ask", summary="Answer a question with each configuration (the shape of `rag ask --json`)")
    def ask(body: AskRequest) -> dict[str, Any]:
        question, chosen, history = checked_request(engine, body, known, defaults)
        started = time.perf_counter()
        results = engine.run_many(question, chosen, history=history, retrieval_only=body.retrieval_only)
        return {"results": [result.to_dict() for result in results],
                "seconds": round(time.perf_counter() - started, 4)}

    @app.post("/ask/stream", summary="Answer as NDJSON: text events, then each configuration's sources, then done",
              response_class=StreamingResponse)
    def ask_stream(body: AskRequest) -> StreamingResponse:
        question, chosen, history = checked_request(engine, body, known, defaults)
        events = stream_events(engine, question, chosen, history, body.retrieval_only)
        return StreamingResponse((json.dumps(event, default=str) + "\n" for event in events), media_type=NDJSON)


def add_document_routes(app: FastAPI, engine: Engine) -> None:
    """POST /documents and DELETE /documents/{name}."""

    @app.post("/documents", summary="Upload specs or docs (multipart), validated as the app validates uploads")
    def upload(
        files: Annotated[list[UploadFile], File(description="OpenAPI 3.x or Swagger 2.0 specs (.json .yaml .yml), "
                                                            "a .zip of a spec split over files, or docs (.md .txt "
                                                            ".rst .html .pdf), up to 10 MB each")],
        on_duplicate: Annotated[Literal["reject", "skip", "replace"], Form(
            description="when a document of the same name is indexed")] = "reject",
        version: Annotated[str | None, Form(description="version label for specs (default: info.version)")] = None,
    ) -> JSONResponse:
        return ingest_files(engine, [(f.filename or "", f.file, f.size) for f in files], on_duplicate, version)

    @app.delete("/documents/{name:path}", summary="Remove an indexed document by its source name (GET /apis)")
    def delete(name: str) -> dict[str, Any]:
        if not engine.index.delete(name):
            indexed = ", ".join(record.source for record in engine.index.documents()) or "none"
            raise HTTPException(404, f"{name!r} is not indexed; indexed: {indexed}")
        return {"deleted": name}


def add_url_route(app: FastAPI, engine: Engine, allow_private: bool) -> None:
    """POST /documents/url: a spec fetched from its URL with the crawler's address check, timeout and size limit."""

    @app.post("/documents/url", summary="Index a spec by its URL (fetched again: a new version when it changed, "
              "else unchanged)")
    def add_url(body: SpecUrlRequest) -> JSONResponse:
        try:
            fetched = fetch_spec(body.url, allow_private)
        except ConfigError as error:  # not a web address, or a private one: nothing was fetched
            raise HTTPException(400, str(error).replace(" (allow_private=True in Python)", "")) from None
        except IngestError as error:
            raise HTTPException(413 if "too large" in error.problem else 400, str(error)) from None
        report = ingest_fetched_spec(engine.index, fetched, body.version, defer=set_aside_parts())
        complete_in_background(engine.index)  # the chunks set aside (schemas, then C0's naive ones): in the background
        if report.status == "error":
            return JSONResponse({"detail": report.message, "reports": [report.to_dict()]}, status_code=400)
        return JSONResponse({"reports": [report.to_dict()]})


def validation_message(errors: Sequence[Any]) -> str:
    """FastAPI's validation errors as one line: where each problem is and what is allowed
    (`history.0.role: Input should be 'user' or 'assistant'`)."""
    parts = []
    for error in errors:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)


def checked_request(
    engine: Engine, body: AskRequest, known: Mapping[str, Config], defaults: Sequence[str]
) -> tuple[str, list[Config], list[dict[str, str]] | None]:
    """The cleaned question, the chosen configurations (the pinned version applied) and the history; HTTP 400
    naming the problem, or 409 when nothing is indexed."""
    try:
        question = clean_question(body.question)
        chosen = resolve_configs(body.configs if body.configs is not None else list(defaults), dict(known))
        if body.api_version:
            engine.index.version_view(body.api_version)
            chosen = [replace(config, api_version=body.api_version) for config in chosen]
    except ConfigError as error:
        raise HTTPException(400, str(error)) from None
    if engine.index.is_empty():
        raise HTTPException(409, "the index is empty; upload specs or docs with POST /documents first")
    history = [message.model_dump() for message in body.history] if body.history else None
    return question, chosen, history


def stream_events(
    engine: Engine,
    question: str,
    configs: Sequence[Config],
    history: list[dict[str, str]] | None,
    retrieval_only: bool,
) -> Iterator[dict[str, Any]]:
    """The NDJSON events: `text` as each answer is written (an answer that is not streamed comes as one text
    event when ready), then every configuration's `sources` (its whole result, in configuration order), then
    `done`. A failure mid-stream is an `error` event followed by `done`."""
    started = time.perf_counter()
    results: dict[str, AnswerResult] = {}
    streamed: set[str] = set()
    try:
        for event in engine.stream_many(question, configs, history, retrieval_only):
            if event.kind == "token" and event.text:
                streamed.add(event.config)
                yield {"type": "text", "config": event.config, "text": event.text}
            elif event.result is not None:
                result = results[event.config] = event.result
                if result.errors:
                    yield {"type": "error", "config": event.config, "message": "; ".join(result.errors)}
                elif result.answer and event.config not in streamed:
                    yield {"type": "text", "config": event.config, "text": result.answer}
        for config in configs:
            if config.name in results:
                result = results[config.name]
                yield {"type": "sources", "config": config.name, "cached": result.cached,
                       "citations": [c.to_dict() for c in result.citations], "result": result.to_dict()}
    except Exception as error:  # the client gets the error as an event, never a dropped connection
        message = str(error) if isinstance(error, RagError) else f"{type(error).__name__}: {error}"
        yield {"type": "error", "message": message}
        yield {"type": "done", "ok": False, "seconds": round(time.perf_counter() - started, 4)}
        return
    yield {"type": "done", "ok": all(r.ok for r in results.values()),
           "seconds": round(time.perf_counter() - started, 4)}


def indexed_apis(engine: Engine) -> list[dict[str, Any]]:
    """Every indexed API or document: its name, type, sources and (specs) versions, oldest first."""
    records = engine.index.documents()
    versions = versions_by_api(records)
    listed: dict[str, dict[str, Any]] = {}
    for record in sorted(records, key=lambda r: (r.api, r.source)):
        entry = listed.setdefault(record.api, {"api": record.api, "type": record.doc_type, "sources": []})
        entry["sources"].append(record.source)
        if record.api in versions:
            entry["versions"] = [{"label": r.api_version, "source": r.source, "newest": r is versions[record.api][-1]}
                                 for r in versions[record.api]]
    return list(listed.values())


def ingest_files(
    engine: Engine, files: Sequence[tuple[str, Any, int | None]], on_duplicate: str, version: str | None
) -> JSONResponse:
    """Validate and index each uploaded (name, file object, size); one report per file. 200 when every file was
    indexed or skipped, else 413 (a file above the size limit), 409 (already indexed) or 400, with each problem."""
    reports: list[dict[str, Any]] = []
    problems: list[tuple[int, str]] = []
    for name, handle, size in files:
        try:
            if size is not None and size > MAX_UPLOAD_BYTES:
                raise too_large(name, size)
            data = handle.read(MAX_UPLOAD_BYTES + 1)
            if len(data) > MAX_UPLOAD_BYTES:
                raise too_large(name, size or len(data))
            report = engine.index.add(parse_document(name, data, version=version), defer=set_aside_parts(),
                                      on_duplicate=on_duplicate)  # type: ignore[arg-type]
            reports.append(report.to_dict())
        except IngestError as error:
            status = 409 if isinstance(error, DuplicateDocumentError) else 413 if "too large" in error.problem else 400
            problems.append((status, str(error)))
            reports.append({"source": error.source, "status": "rejected", "message": str(error)})
        except RagError as error:
            problems.append((400, f"{name}: {error}"))
            reports.append({"source": name, "status": "error", "message": str(error)})
    complete_in_background(engine.index)  # the chunks set aside (schemas, then C0's naive ones): in the background
    if problems:
        status = max(code for code, _ in problems) if len({c for c, _ in problems}) == 1 else 400
        return JSONResponse({"detail": "; ".join(p for _, p in problems), "reports": reports}, status_code=status)
    return JSONResponse({"reports": reports})
