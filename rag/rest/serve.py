"""`python -m rag serve`: load the engine once, warm it, and serve the REST API with uvicorn."""

from __future__ import annotations

import ipaddress
import os
import sys
import time
from typing import Any

from rag.errors import ConfigError

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8010
TOKEN_ENV = "RAG_API_TOKEN"  # noqa: S105 (the variable's name, not a token)


def is_loopback(host: str) -> bool:
    """Whether a bind address only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(args: Any) -> int:
    """Build the engine from the settings (with the query cache), warm it, then serve until interrupted."""
    import uvicorn

    from rag.config import known_configs
    from rag.index.deferred import complete_in_background
    from rag.mcp_startup import prepare_in_background, warm_up
    from rag.rest.app import create_app
    from rag.runner import engine_from_settings
    from rag.settings import Settings

    if not 0 < args.port < 65536:
        raise ConfigError(f"--port={args.port} is not allowed; allowed: 1 to 65535")
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token and not is_loopback(args.host):
        print(f"warning: serving on {args.host} without {TOKEN_ENV}: anyone who can reach it may ask, upload and "
              f"delete; set {TOKEN_ENV} to require a bearer token", file=sys.stderr)
    started = time.perf_counter()
    settings = Settings.from_env(index_dir=getattr(args, "index_dir", None))
    engine = engine_from_settings(settings, llm=args.llm, query_cache=True)
    for warning in warm_up(engine):
        print(f"warning: {warning}", file=sys.stderr)
    complete_in_background(engine.index)  # set aside at ingest (schemas, then C0's naive chunks), while it serves
    prepare_in_background(engine)
    app = create_app(engine, known_configs(getattr(args, "config_file", None)), token)
    print(f"REST API ready in {time.perf_counter() - started:.1f} s: http://{args.host}:{args.port} "
          f"({len(engine.index.documents())} documents; docs at /docs"
          + (f"; bearer token from {TOKEN_ENV})" if token else ")"), file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
