"""The question commands of `python -m rag`: configs, ask, serve and mcp."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from rag.cli.common import EXIT_OK, EXIT_USAGE, fail, known_configs, print_json, settings_from
from rag.pipeline.features import features_of


def cmd_configs(args: argparse.Namespace) -> int:
    """List the presets (and user configs)."""
    configs = known_configs(args)
    if args.json:
        print_json({name: config.to_dict() for name, config in configs.items()})
        return EXIT_OK
    for name, config in configs.items():
        features = ", ".join(key for key, on in features_of(config).items() if on) or "-"
        print(f"{name:6} {config.chunking:5} {config.retriever:6} k={config.k:<2} [{features}]")
        if config.description:
            print(f"       {config.description}")
    return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer one question with several configurations side by side."""
    from rag.cli.ingest_progress import complete_for
    from rag.config import resolve_configs, searched_strategies
    from rag.runner import engine_from_settings

    configs = resolve_configs(args.configs, known_configs(args))
    if args.api_version:
        configs = [replace(config, api_version=args.api_version) for config in configs]
    history = None
    if args.history:
        try:
            history = json.loads(Path(args.history).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            return fail(f"--history {args.history}: expected a JSON list of {{role, content}} messages ({error})")
        if not isinstance(history, list):
            return fail(f"--history {args.history}: expected a JSON list of {{role, content}} messages")
    engine = engine_from_settings(settings_from(args), llm=args.llm, query_cache=not args.no_cache)
    if engine.index.is_empty():
        return fail("the index is empty; run `python -m rag ingest PATH...` or `make index` first")
    if args.api_version:
        engine.index.version_view(args.api_version)  # a version that is not indexed: one line, exit code 2
    complete_for(engine.index, searched_strategies(configs))  # chunks set aside at ingest that they search
    results = engine.run_many(args.question, configs, history=history, retrieval_only=args.retrieval_only)
    if args.json:
        print_json([result.to_dict() for result in results])
    else:
        from rag.results import render_result

        for result in results:
            print(render_result(result, args.k_show))
    return EXIT_USAGE if all(result.errors for result in results) else EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the index to MCP clients (stdio, or streamable HTTP with --http)."""
    from rag.mcp_startup import main as mcp_main

    return mcp_main(args)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the REST API (FastAPI + uvicorn) on --host/--port."""
    from rag.rest.serve import main as serve_main

    return serve_main(args)
