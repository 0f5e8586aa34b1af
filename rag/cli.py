"""`python -m rag …`: a small command line over the library.

Exit codes: 0 success, 1 unexpected failure, 2 bad input or a problem the user must fix.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.errors import RagError
from rag.settings import PROJECT_ROOT, Settings

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
Command = Callable[[argparse.Namespace], int]
_COMMANDS: dict[str, Command] = {}


def command(name: str) -> Callable[[Command], Command]:
    """Register a sub-command handler."""

    def register(handler: Command) -> Command:
        _COMMANDS[name] = handler
        return handler

    return register


def fail(message: str, code: int = EXIT_USAGE) -> int:
    """Print one clear line to stderr and return the exit code."""
    print(f"error: {message}", file=sys.stderr)
    return code


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment with `--index-dir` applied."""
    return Settings.from_env(index_dir=getattr(args, "index_dir", None))


def print_json(data: Any) -> None:
    """Print JSON to stdout."""
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


# ---------------------------------------------------------------------- index commands
@command("ingest")
def cmd_ingest(args: argparse.Namespace) -> int:
    """Index files or folders."""
    from tqdm import tqdm

    from rag.index.build import ingest_paths, open_index

    index = open_index(settings_from(args))
    bars: dict[str, tqdm] = {}

    def progress(name: str, done: int, total: int) -> None:
        if args.json:
            return
        bar = bars.get(name)
        if bar is None:
            bar = bars[name] = tqdm(total=total, desc=name, unit="chunk", file=sys.stderr, leave=False)
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    reports = ingest_paths(index, args.paths, on_duplicate=args.on_duplicate, progress=progress, version=args.version)
    for bar in bars.values():
        bar.close()
    failed = [report for report in reports if report.status in ("error", "rejected")]
    if args.json:
        print_json([report.to_dict() for report in reports])
    else:
        for report in reports:
            if report.status in ("error", "rejected"):
                print(f"error: {report.message}", file=sys.stderr)
            else:
                counts = ", ".join(f"{n} {strategy}" for strategy, n in report.chunk_counts.items())
                extra = f" ({report.message})" if report.message else ""
                print(f"{report.status:8} {report.source} [{report.api}]: {counts} in {report.seconds:.1f}s{extra}")
    return EXIT_USAGE if failed else EXIT_OK


@command("stats")
def cmd_stats(args: argparse.Namespace) -> int:
    """Show what is indexed."""
    from rag.index.build import open_index

    stats = open_index(settings_from(args)).stats()
    if args.json:
        print_json(stats)
        return EXIT_OK
    print(f"index: {stats['index_dir']}  (embedding model: {stats['embedding_model']})")
    print(f"documents: {stats['documents']}; chunks: " + ", ".join(f"{k}={v}" for k, v in stats["chunks"].items()))
    for api, counts in stats["per_api"].items():
        labels = ", ".join(v["label"] + (" (newest)" if v["newest"] else "") for v in stats["versions"].get(api, []))
        print(f"  {api:16} " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
              + (f"  versions: {labels}" if labels else ""))
    return EXIT_OK


@command("delete")
def cmd_delete(args: argparse.Namespace) -> int:
    """Remove an indexed document by its source name."""
    from rag.index.build import open_index

    index = open_index(settings_from(args))
    if not index.delete(args.source):
        sources = ", ".join(record.source for record in index.documents()) or "none"
        return fail(f"{args.source!r} is not indexed; indexed: {sources}")
    print(f"deleted {args.source}")
    return EXIT_OK


@command("fetch-specs")
def cmd_fetch_specs(args: argparse.Namespace) -> int:
    """Download StackOne's 7 specs."""
    from rag.index.build import fetch_specs

    try:
        written = fetch_specs(Path(args.dest))
    except RagError as error:
        return fail(f"{error}. Without internet, point RAG_SPECS_DIR at a folder of specs instead.")
    for path in written:
        print(f"saved {path}")
    return EXIT_OK


def _size(path: Path) -> int:
    """A file's size in bytes (0 when it cannot be read)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _duration(seconds: float) -> str:
    """`under 1 s`, `42 s` or `2.5 min`."""
    if seconds < 1:
        return "under 1 s"
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def _megabytes(count: float) -> str:
    """`1.2 MB` or `640 KB`."""
    return f"{count / 1e6:.1f} MB" if count >= 100_000 else f"{count / 1e3:.0f} KB"


def _ingest_with_progress(index: Any, files: list[Path], started: float) -> list[Any]:
    """Ingest `files`, printing a line per file (its chunk counts) and embedding progress at most every 5 s,
    with the time left estimated from the seconds per byte measured so far."""
    import time

    from rag.index.build import ingest_paths

    state: dict[str, float] = {"bytes_done": 0.0, "file_started": started, "last_line": 0.0}
    total_bytes = float(sum(_size(path) for path in files)) or 1.0
    current: dict[str, Any] = {}

    def left(fraction_of_file: float) -> str:
        """Time left overall, from the seconds per byte measured so far (None before any is measured)."""
        elapsed = time.perf_counter() - started
        done = state["bytes_done"] + fraction_of_file * current.get("bytes", 0)
        if done <= 0:
            return "estimating…"
        remaining = elapsed / done * (total_bytes - done)
        return "under 1 s left" if remaining < 1 else f"about {_duration(remaining)} left"

    def on_file(position: int, count: int, path: Path, report: Any) -> None:
        current.update(name=path.name, position=position, count=count, bytes=_size(path))
        if report is None:
            state["file_started"] = time.perf_counter()
            print(f"  [{position}/{count}] {path.name} ({_megabytes(_size(path))}): parsing and chunking…",
                  flush=True)
            return
        state["bytes_done"] += _size(path)
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted((report.chunk_counts or {}).items()))
        took = time.perf_counter() - state["file_started"]
        what = counts or report.message or ""
        print(f"  [{position}/{count}] {path.name}: {report.status} — {what} in {_duration(took)} · "
              f"{left(0.0) if position < count else 'done'}", flush=True)

    def progress(source: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if done < total and now - state["last_line"] < 5:
            return
        state["last_line"] = now
        print(f"  [{current.get('position')}/{current.get('count')}] {current.get('name', source)}: "
              f"embedded {done}/{total} chunks · {left(done / total if total else 0.0)}", flush=True)

    return ingest_paths(index, files, progress=progress, on_file=on_file)


@command("ensure-index")
def cmd_ensure_index(args: argparse.Namespace) -> int:
    """Build the index of the default corpus if it is empty (used by `make run`), reporting each file's chunk
    counts and an estimate of the time left, measured on the files already indexed."""
    import time

    from rag.index.build import NO_SPECS_HELP, expand_paths, find_default_specs, open_index

    settings = settings_from(args)
    specs = find_default_specs(settings)
    print(f"opening the index in {settings.index_dir} (loading the embedding model {settings.embedding_model})…",
          flush=True)
    index = open_index(settings)
    started = time.perf_counter()
    if not index.is_empty():
        indexed = {record.source for record in index.documents()}
        refresh = [path for path in expand_paths([specs]) if path.name in indexed] if specs else []
        reports = _ingest_with_progress(index, refresh, started) if refresh else []
        updated = [r for r in reports if r.status == "replaced"]
        for report in updated:
            print(f"  re-indexed {report.source} (new chunker version or changed content)")
        print(f"index ready: {len(index.documents())} documents in {settings.index_dir}")
        return EXIT_OK
    if specs is None:
        print(NO_SPECS_HELP, file=sys.stderr)
        return EXIT_USAGE
    files = expand_paths([specs])
    print(f"building the index from {specs}: {len(files)} file(s), "
          f"{_megabytes(sum(_size(path) for path in files))}; the time left is estimated from the first chunks",
          flush=True)
    reports = _ingest_with_progress(index, files, started)
    bad = [report for report in reports if report.status in ("error", "rejected")]
    chunks = sum(sum((report.chunk_counts or {}).values()) for report in reports)
    print(f"index ready: {len(reports) - len(bad)} of {len(reports)} file(s), {chunks} chunks in "
          f"{_duration(time.perf_counter() - started)}")
    for report in bad:
        print(f"  {report.status:8} {report.source}: {report.message}", file=sys.stderr)
    return EXIT_USAGE if bad else EXIT_OK


@command("diff")
def cmd_diff(args: argparse.Namespace) -> int:
    """Compare two versions of an API: files, folders of specs, or indexed versions (`API@LABEL`)."""
    from rag.index.build import open_index
    from rag.versions.compare import diff_report

    print(diff_report(args.old, args.new, args.json, args.breaking_only, args.limit,
                      indexed=lambda: open_index(settings_from(args))))
    return EXIT_OK


# ---------------------------------------------------------------------- query commands
def known_configs(args: argparse.Namespace) -> dict[str, Any]:
    """Presets plus the user's configs from `--config-file` (TOML or YAML)."""
    from rag.config import known_configs as configs_from_file

    return configs_from_file(getattr(args, "config_file", None))


@command("configs")
def cmd_configs(args: argparse.Namespace) -> int:
    """List the presets (and user configs)."""
    configs = known_configs(args)
    if args.json:
        print_json({name: config.to_dict() for name, config in configs.items()})
        return EXIT_OK
    for name, config in configs.items():
        features = ", ".join(key for key, on in config.features().items() if on) or "-"
        print(f"{name:6} {config.chunking:5} {config.retriever:6} k={config.k:<2} [{features}]")
        if config.description:
            print(f"       {config.description}")
    return EXIT_OK


@command("ask")
def cmd_ask(args: argparse.Namespace) -> int:
    """Answer one question with several configurations side by side."""
    from rag.config import resolve_configs
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
    engine = engine_from_settings(settings_from(args), llm=args.llm)
    if engine.index.is_empty():
        return fail("the index is empty; run `python -m rag ingest PATH...` or `make index` first")
    if args.api_version:
        engine.index.version_view(args.api_version)  # a version that is not indexed: one line, exit code 2
    results = engine.run_many(args.question, configs, history=history, retrieval_only=args.retrieval_only)
    if args.json:
        print_json([result.to_dict() for result in results])
    else:
        from rag.results import render_result

        for result in results:
            print(render_result(result, args.k_show))
    return EXIT_USAGE if all(result.errors for result in results) else EXIT_OK


@command("mcp")
def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the index to MCP clients (stdio, or streamable HTTP with --http)."""
    from rag.mcp_server import main as mcp_main

    return mcp_main(args)


# ---------------------------------------------------------------------- evaluation commands
@command("eval")
def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate configurations on a question set; writes OUT/<config>.jsonl and OUT/metrics.json."""
    import time

    from tqdm import tqdm

    from rag.config import DEFAULT_CONFIGS, resolve_configs
    from rag.errors import ConfigError
    from rag.evaluate.judge import Judge
    from rag.evaluate.offline_index import open_index_without_model
    from rag.evaluate.questions import load_questions
    from rag.evaluate.report import format_metrics_table
    from rag.evaluate.runner import ablation_configs, run_evaluation
    from rag.runner import Engine, engine_from_settings

    if args.judge_runs != 1 and not args.judge:
        return fail("--judge-runs needs --judge openai:MODEL (or groq:MODEL, local)")
    known = known_configs(args)
    configs = resolve_configs(args.configs, known) if args.configs else []
    if args.ablate:
        if args.ablate not in known:
            return fail(f"--ablate {args.ablate!r} is not a config; allowed: {', '.join(known)}")
        configs += ablation_configs(known[args.ablate])
    configs = list({config.name: config for config in configs or resolve_configs(list(DEFAULT_CONFIGS), known)}
                   .values())
    settings = settings_from(args)
    if args.dry_run:
        engine = Engine(open_index_without_model(settings), default_llm="extractive")
    else:
        engine = engine_from_settings(settings, llm=args.llm)
    if engine.index.is_empty():
        return fail("the index is empty; run `python -m rag ingest PATH...` or `make index` first")
    found: list[str] = []
    questions = load_questions(args.questions, engine.index, unknown_ids=args.unknown_ids, warnings=found)
    for warning in found:
        print(f"warning: {warning}", file=sys.stderr)
    judge = Judge(args.judge, runs=args.judge_runs) if args.judge else None
    if judge is not None and args.retrieval_only:
        raise ConfigError("--judge grades answers; it cannot be used with --retrieval-only")
    out = Path(args.out) if args.out else PROJECT_ROOT / "eval_data" / "results" / time.strftime("%Y%m%d-%H%M%S")
    print(f"evaluating {len(questions)} questions x {len(configs)} configs ({', '.join(c.name for c in configs)})"
          f" -> {out}", file=sys.stderr)
    bar = tqdm(total=len(questions), desc="eval", unit="question", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.n = done
        bar.refresh()

    try:
        result = run_evaluation(
            engine, questions, configs, out, k=args.k, retrieval_only=args.retrieval_only, resume=args.resume,
            overwrite=args.overwrite, dry_run=args.dry_run, judge=judge, progress=progress,
            max_text_chars=args.max_text_chars, questions_source=str(args.questions), parallel=args.parallel,
            history_mode=args.history,
        )
    finally:
        bar.close()
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(result.metrics)
    else:
        print(format_metrics_table(result.metrics, args.k))
        print(f"\n{result.written} records written, {result.resumed} kept from before; results in {out}")
    return EXIT_OK


@command("suite")
def cmd_suite(args: argparse.Namespace) -> int:
    """Run every question set of an evaluation suite; prints and saves one table (latest.json, latest.md)."""
    from rag.config import resolve_configs
    from rag.evaluate.runner import ablation_configs
    from rag.evaluate.suite import Corpus, corpus_index, corpus_key, format_suite_table, load_suite, run_suite
    from rag.index.build import open_index
    from rag.runner import Engine

    suite = load_suite(args.suite)
    if args.sets:
        suite = suite.select([name.strip() for name in args.sets.split(",") if name.strip()])
    known = known_configs(args)
    configs = resolve_configs(args.configs or list(suite.configs), known)
    if args.ablate:
        if args.ablate not in known:
            return fail(f"--ablate {args.ablate!r} is not a config; allowed: {', '.join(known)}")
        configs += [c for c in ablation_configs(known[args.ablate]) if c.name not in {x.name for x in configs}]
    base = settings_from(args)
    root = Path(base.index_dir) / "suite"
    cache = base.cache_dir or Path(base.index_dir) / "cache"

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def engine_for(corpus: Corpus) -> Engine:
        folder = root / corpus_key(corpus, base.embedding_model)
        settings = replace(base, index_dir=folder, cache_dir=cache, chroma_url="")
        index = corpus_index(corpus, folder, lambda _: open_index(settings), log)
        return Engine(index, default_llm="extractive")

    out = Path(args.out) if args.out else PROJECT_ROOT / "eval_data" / "results" / "suite"
    log(f"suite {suite.path.name}: {len(suite.sets)} set(s) x {len(configs)} config(s) "
        f"({', '.join(c.name for c in configs)}), " + ("extractive answers" if args.answers else "retrieval only"))
    report = run_suite(suite, configs, engine_for, out, log, retrieval_only=not args.answers)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(report.to_dict())
    else:
        print(format_suite_table(report))
        print(f"\nsaved {out / 'latest.json'} and {out / 'latest.md'} ({report.seconds:.0f} s)")
    return EXIT_OK


@command("make-questions")
def cmd_make_questions(args: argparse.Namespace) -> int:
    """Generate a template test set (no LLM) about one indexed API."""
    from collections import Counter

    from rag.evaluate.generate import make_questions
    from rag.evaluate.offline_index import open_index_without_model
    from rag.evaluate.questions import write_questions

    index = open_index_without_model(settings_from(args))
    questions = make_questions(index, args.api, limit=args.limit, seed=args.seed, distractors=args.distractors)
    path = write_questions(questions, args.out)
    counts = ", ".join(f"{kind}={n}" for kind, n in sorted(Counter(q.category for q in questions).items()))
    print(f"wrote {len(questions)} questions about {args.api} to {path} ({counts})")
    return EXIT_OK


# ---------------------------------------------------------------------- parser
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


def _add_index_commands(sub: Any, add: AddCommand) -> None:
    """ingest, stats, delete, fetch-specs, ensure-index and configs."""
    ingest = add("ingest", "index OpenAPI specs (JSON/YAML) and docs (.md .txt .rst .html .pdf)")
    ingest.add_argument("paths", nargs="+", help="files or folders")
    ingest.add_argument("--on-duplicate", choices=["reject", "skip", "replace"], default="replace")
    ingest.add_argument("--version", help="label of this version of the APIs (default: each spec's info.version, "
                        "else today's date); a new label keeps the version beside the indexed ones")
    ingest.add_argument("--json", action="store_true", help="print a JSON report")

    stats = add("stats", "show what is indexed")
    stats.add_argument("--json", action="store_true")

    delete = add("delete", "remove an indexed document")
    delete.add_argument("source", help="the document's source name, as `stats` lists it")

    fetch = sub.add_parser("fetch-specs", help="download StackOne's 7 OpenAPI specs (needs internet)")
    fetch.add_argument("--dest", required=True, help="folder to save them in")

    add("ensure-index", "build the index of the default corpus if it is empty")

    diff = add("diff", "compare two versions of an API: operations, parameters, fields, schemas, security; "
               "each change breaking or not")
    diff.add_argument("old", help="the old version: a spec file, a folder of specs, or API@LABEL of an indexed one")
    diff.add_argument("new", help="the new version (same kinds as OLD)")
    diff.add_argument("--breaking-only", action="store_true", help="list only the breaking changes")
    diff.add_argument("--limit", type=int, default=40, help="changes listed per API (0: all; --json lists all)")
    diff.add_argument("--json", action="store_true", help="print the diff as JSON")

    configs = sub.add_parser("configs", help="list the pipeline configurations (presets and your own)")
    configs.add_argument("--config-file", help="TOML or YAML file with more configs")
    configs.add_argument("--json", action="store_true")


def _add_question_commands(add: AddCommand) -> None:
    """ask and mcp."""
    ask = add("ask", "answer a question with several configurations side by side")
    ask.add_argument("question")
    ask.add_argument("--configs", default="C0,C5,full", help="comma-separated names (default: C0,C5,full)")
    ask.add_argument("--config-file", help="TOML or YAML file with more configs")
    ask.add_argument("--retrieval-only", action="store_true", help="retrieve and rank only; no answer generation")
    ask.add_argument("--history", help="JSON file: a list of prior {role, content} messages")
    ask.add_argument("--llm", help="generator for `auto` configs: extractive, openai:MODEL, groq:MODEL, local")
    ask.add_argument("--k-show", type=int, default=5, help="chunks to show per config")
    ask.add_argument("--api-version", help="search this indexed version (LABEL, or API@LABEL) instead of the newest")
    ask.add_argument("--json", action="store_true")

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
    evaluate.add_argument("--configs", help="comma-separated names (default: C0,C5,full)")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except RagError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_FAILURE)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
