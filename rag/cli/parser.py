"""The argument parser of `python -m rag`: every sub-command with its options and help."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rag.config import DEFAULT_CONFIGS
from rag.settings import PROJECT_ROOT
from rag.versions.checks import FAIL_ON, LEVELS
from rag.versions.report import FORMATS

DEFAULT_NAMES = ",".join(DEFAULT_CONFIGS)  # the one definition the app, MCP and the REST API use too


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(prog="python -m rag", description="SpecRAG Workbench command line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.add_argument("--index-dir", help="index folder (default: RAG_INDEX_DIR or index_store/)")
        return sub_parser

    _add_index_commands(sub, add)
    _add_question_commands(add)
    _add_evaluation_commands(add)
    return parser


AddCommand = Callable[[str, str], argparse.ArgumentParser]  # a sub-command that takes --index-dir


def _add_ingest_command(add: AddCommand) -> None:
    """ingest: files, folders, zips and specs by URL."""
    ingest = add("ingest", "index OpenAPI 3.x and Swagger 2.0 specs (JSON/YAML; a spec split over files as its "
                 "folder or a .zip; a spec by URL) and docs (.md .txt .rst .html .pdf)")
    ingest.add_argument("paths", nargs="+", help="files, folders, .zip files or http(s) URLs of specs")
    ingest.add_argument("--on-duplicate", choices=["reject", "skip", "replace"], default="replace")
    ingest.add_argument("--version", help="label of this version of the APIs (default: each spec's info.version, "
                        "else today's date); a new label keeps the version beside the indexed ones")
    ingest.add_argument("--allow-private", action="store_true",
                        help="fetch specs from private, loopback and link-local addresses (refused by default)")
    ingest.add_argument("--json", action="store_true", help="print a JSON report")
    ingest.add_argument("--embed-all", action="store_true",
                        help="embed every chunk before the files go live; by default they go live once their "
                        "operations are embedded, the schema chunks are embedded next (before the command exits) and "
                        "the naive chunks (searched by the C0 baseline only) when a command first needs them")


def _add_diff_command(add: AddCommand) -> None:
    """diff: two versions of an API compared."""
    diff = add("diff", "compare two versions of an API: each change with a check id and a level (error: breaks "
               "clients, warning: may break them, info), as oasdiff classes them; --fail-on for CI")
    diff.add_argument("old", nargs="?", help="the old version: a spec file, a folder of specs, or API@LABEL of an "
                      "indexed one")
    diff.add_argument("new", nargs="?", help="the new version (same kinds as OLD)")
    diff.add_argument("--format", choices=FORMATS, default="text",
                      help="text (default), markdown (a changelog for release notes) or json")
    diff.add_argument("--json", action="store_true", help="same as --format json")
    diff.add_argument("--fail-on", choices=FAIL_ON, default=None,
                      help="exit 1 when a change is at this level or worse (error; warning: warnings and errors)")
    diff.add_argument("--ignore", metavar="FILE",
                      help="changes to leave out: one per line, CHECK-ID [METHOD /path]; # starts a comment")
    diff.add_argument("--level", choices=LEVELS, default="info",
                      help="list changes at this level or worse (error, warning, info: all)")
    diff.add_argument("--breaking-only", action="store_true", help="same as --level error")
    diff.add_argument("--limit", type=int, default=40, help="changes listed per API in text (0: all)")
    diff.add_argument("--checks", action="store_true", help="list every check id with its level and exit")


def _add_index_commands(sub: Any, add: AddCommand) -> None:
    """ingest, crawl, stats, delete, fetch-specs, ensure-index, diff and configs."""
    _add_ingest_command(add)

    stats = add("stats", "show what is indexed")
    stats.add_argument("--json", action="store_true")

    delete = add("delete", "remove an indexed document")
    delete.add_argument("source", help="the document's source name, as `stats` lists it")

    fetch = sub.add_parser("fetch-specs", help="download StackOne's 7 OpenAPI specs (needs internet)")
    fetch.add_argument("--dest", required=True, help="folder to save them in")

    add("ensure-index", "build the index of the default corpus if it is empty")

    _add_diff_command(add)

    crawl = add("crawl", "index a documentation website: the pages under the URL's host and folder (sitemap.xml, "
                "else canonical, rel=next and in-folder links; robots.txt obeyed); a re-crawl re-indexes changed "
                "pages and removes gone ones")
    crawl.add_argument("url", help="the site's start page, e.g. https://docs.example.com/api/")
    crawl.add_argument("--max-pages", type=int, default=200, help="pages at most (default: 200)")
    crawl.add_argument("--max-depth", type=int, default=5, help="links followed from the start page (default: 5)")
    crawl.add_argument("--delay", type=float, default=0.5, help="seconds between requests (default: 0.5)")
    crawl.add_argument("--timeout", type=float, default=15.0, help="seconds per request (default: 15)")
    crawl.add_argument("--max-bytes", type=int, default=2 * 1024 * 1024, help="bytes per page (default: 2 MiB)")
    crawl.add_argument("--name", help="the API the site is indexed as (default: its host, e.g. docs-example-com)")
    crawl.add_argument("--allow-private", action="store_true",
                       help="allow private, loopback and link-local addresses (refused by default)")
    crawl.add_argument("--json", action="store_true", help="print a JSON report")

    configs = sub.add_parser("configs", help="list the pipeline configurations (presets and your own)")
    configs.add_argument("--config-file", help="TOML or YAML file with more configs")
    configs.add_argument("--json", action="store_true")


def _add_question_commands(add: AddCommand) -> None:
    """ask, serve and mcp."""
    ask = add("ask", "answer a question with several configurations side by side")
    ask.add_argument("question")
    ask.add_argument("--configs", default=DEFAULT_NAMES, help=f"comma-separated names (default: {DEFAULT_NAMES})")
    ask.add_argument("--config-file", help="TOML or YAML file with more configs")
    ask.add_argument("--retrieval-only", action="store_true", help="retrieve and rank only; no answer generation")
    ask.add_argument("--history", help="JSON file: a list of prior {role, content} messages")
    ask.add_argument("--llm", help="generator for `auto` configs: extractive, openai:MODEL, groq:MODEL, local")
    ask.add_argument("--k-show", type=int, default=5, help="chunks to show per config")
    ask.add_argument("--api-version", help="search this indexed version (LABEL, or API@LABEL) instead of the newest")
    ask.add_argument("--no-cache", action="store_true", help="run every configuration even when the same question "
                     "was answered before on this index (the stored result is otherwise returned, marked cached)")
    ask.add_argument("--json", action="store_true")

    serve = add("serve", "serve the REST API (FastAPI + uvicorn): /ask, /ask/stream, /documents, /docs")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=8010, help="port (default: 8010)")
    serve.add_argument("--llm", help="generator for `auto` configs: extractive, openai:MODEL, groq:MODEL, local")
    serve.add_argument("--config-file", help="TOML or YAML file with more configs")

    mcp = add("mcp", "serve the index as MCP tools (Claude Desktop, Cursor, VS Code); stdio unless --http")
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP on 127.0.0.1 (path /mcp)")
    mcp.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    mcp.add_argument("--timeout", type=float, default=60.0, help="seconds one tool call may take (default: 60)")
    mcp.add_argument("--llm", help="generator for `auto` configs: extractive, openai:MODEL, groq:MODEL, local")
    mcp.add_argument("--config-file", help="TOML or YAML file with more configs")


def _add_evaluation_commands(add: AddCommand) -> None:
    """eval, suite and make-questions."""
    evaluate = add("eval", "evaluate configurations on a question set (metrics per config, resumable)")
    evaluate.add_argument("--questions", required=True, help="question file: native JSONL, {questions: [...]}, "
                          "experiment queries.jsonl or the StackOne benchmark JSON")
    evaluate.add_argument("--configs", help=f"comma-separated names (default: {DEFAULT_NAMES})")
    evaluate.add_argument("--config-file", help="TOML or YAML file with more configs")
    evaluate.add_argument("--ablate", help="also run this config with each of its features switched off")
    evaluate.add_argument("--retrieval-only", action="store_true", help="retrieve and rank only; no answers")
    evaluate.add_argument("--k", type=int, default=5, help="chunks retrieved and the metrics cut-off (default: 5)")
    evaluate.add_argument("--out", help="results folder (default: eval_data/results/<timestamp>)")
    again = evaluate.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="continue a run in --out, skipping finished records")
    again.add_argument("--overwrite", action="store_true", help="delete the results in --out and start over")
    evaluate.add_argument("--dry-run", action="store_true",
                          help="fake embeddings and placeholder answers: no model or network call")
    evaluate.add_argument("--llm", help="generator for `auto` configs: extractive, openai:MODEL, groq:MODEL, local")
    evaluate.add_argument("--judge", help="LLM judge grading answers 1-5 against the ground truth, e.g. openai:gpt-4o")
    evaluate.add_argument("--judge-runs", type=int, default=1, help="judge each answer N times (mean and spread)")
    evaluate.add_argument("--max-text-chars", type=int, help="truncate stored chunk texts to N characters")
    evaluate.add_argument("--parallel", action="store_true", help="run a question's configs concurrently, sharing "
                          "embeddings and candidate pools (faster; per-config latencies then not comparable)")
    evaluate.add_argument("--json", action="store_true", help="print metrics.json instead of the table")
    evaluate.add_argument("--history", choices=["replay", "given"], default="replay",
                          help="follow-ups: after each config's own earlier answers (replay, default) or after the "
                          "hand-written history of the question set (given)")
    evaluate.add_argument("--unknown-ids", choices=["error", "warn"], default="error",
                          help="relevant ids the index does not know: fail (default) or name each and score it "
                          "as unmatched")

    suite = add("suite", "run an evaluation suite: many question sets, each with its own specs and a role")
    suite.add_argument("--suite", default=str(PROJECT_ROOT / "eval_data" / "suite.toml"),
                       help="suite file (default: eval_data/suite.toml)")
    suite.add_argument("--configs", help="comma-separated names (default: the suite's, e.g. C2,full)")
    suite.add_argument("--config-file", help="TOML or YAML file with more configs")
    suite.add_argument("--sets", help="comma-separated set names to run (default: all)")
    suite.add_argument("--answers", action="store_true",
                       help="also generate extractive answers and report their keyword recall (slower)")
    suite.add_argument("--ablate", help="also run this config with each of its features switched off")
    suite.add_argument("--out", help="folder for latest.json, latest.md and records (default: eval_data/results/suite)")
    suite.add_argument("--json", action="store_true", help="print the report as JSON instead of the table")

    make_questions = add("make-questions", "generate a template test set (no LLM) about one indexed API")
    make_questions.add_argument("--api", required=True, help="the indexed API, as `stats` lists it (e.g. hris)")
    make_questions.add_argument("--out", required=True, help="JSONL file to write")
    make_questions.add_argument("--limit", type=int, default=50, help="number of questions (default: 50)")
    make_questions.add_argument("--seed", type=int, default=0, help="random seed (same seed, same questions)")
    make_questions.add_argument("--distractors", choices=["tuning", "tuning-2", "tuning-3", "tuning-4", "fresh"],
                                default="tuning",
                                help="pool of out-of-scope templates (default: tuning; the suite's validation sets "
                                "use fresh)")
