"""Start-up of the MCP server (`python -m rag mcp`): load the index and models once, keep stdout for protocol
messages only, then serve stdio or streamable HTTP on 127.0.0.1."""

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from rag.config import PRESETS
from rag.errors import ConfigError
from rag.mcp_queries import EMPTY_INDEX
from rag.mcp_server import build_server
from rag.runner import Engine


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
        return [EMPTY_INDEX]
    engine.index.snapshot()
    result = engine.run("How do I authenticate?", replace(PRESETS["full"], name="warm-up"), retrieval_only=True)
    warnings.extend(f"warm-up retrieval failed: {error}" for error in result.errors)
    try:
        engine.generator(engine.default_llm)
    except Exception as error:
        warnings.append(f"generator {engine.default_llm!r} is not available: {error}")
    return warnings


def prepare_in_background(engine: Engine) -> threading.Thread:
    """Make the learned ranker's inputs of every chunk `full` searches (`Engine.prepare`) in a background thread
    while the server answers: after an ingest the schemas' short texts are embedded then (seconds on a large spec),
    which the start-up does not wait for; a question asked meanwhile makes its candidates' own."""

    def run() -> None:
        try:
            engine.prepare([PRESETS["full"]])
        except Exception as error:  # an optimisation: questions make the inputs they need themselves
            print(f"warning: preparing the ranker's inputs failed: {error}", file=sys.stderr)

    thread = threading.Thread(target=run, name="specrag-prepare", daemon=True)
    thread.start()
    return thread


def main(args: Any) -> int:
    """The `python -m rag mcp` command: load everything once, then serve."""
    from rag.config import known_configs
    from rag.index.deferred import complete_in_background
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
        engine = engine_from_settings(settings, llm=args.llm, query_cache=True)
        warnings = warm_up(engine)
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        complete_in_background(engine.index)  # set aside at ingest (schemas, then C0's naive chunks)
        prepare_in_background(engine)
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
