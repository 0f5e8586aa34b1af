"""The evaluation commands of `python -m rag`: eval, suite and make-questions."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rag.cli.common import EXIT_OK, fail, known_configs, print_json, settings_from
from rag.settings import PROJECT_ROOT

if TYPE_CHECKING:
    from rag.config import Config
    from rag.evaluate.judge import Judge
    from rag.evaluate.questions import Question
    from rag.evaluate.runner import EvaluationResult
    from rag.runner import Engine


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate configurations on a question set; writes OUT/<config>.jsonl and OUT/metrics.json."""
    import time

    from rag.cli.ingest_progress import complete_for
    from rag.config import DEFAULT_CONFIGS, resolve_configs, searched_strategies
    from rag.errors import ConfigError
    from rag.evaluate.judge import Judge
    from rag.evaluate.questions import load_questions
    from rag.evaluate.report import format_api_table, format_metrics_table
    from rag.evaluate.runner import ablation_configs

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
    engine = _evaluation_engine(args)
    if engine.index.is_empty():
        return fail("the index is empty; run `python -m rag ingest PATH...` or `make index` first")
    if not args.dry_run:
        complete_for(engine.index, searched_strategies(configs))  # chunks set aside at ingest that they search
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
    result = _evaluate_with_progress(args, engine, questions, configs, out, judge)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(result.metrics)
    else:
        print(format_metrics_table(result.metrics, args.k))
        per_api = format_api_table(result.metrics, args.k)
        if per_api:
            print(f"\nby the API each question is about:\n{per_api}")
        print(f"\n{result.written} records written, {result.resumed} kept from before; results in {out}")
    return EXIT_OK


def _evaluation_engine(args: argparse.Namespace) -> Engine:
    """The engine `eval` runs: over the index without the embedding model for `--dry-run`, else the real one."""
    from rag.evaluate.offline_index import open_index_without_model
    from rag.runner import Engine, engine_from_settings

    settings = settings_from(args)
    if args.dry_run:
        return Engine(open_index_without_model(settings))
    return engine_from_settings(settings, llm=args.llm)


def _evaluate_with_progress(args: argparse.Namespace, engine: Engine, questions: list[Question],
                            configs: list[Config], out: Path, judge: Judge | None) -> EvaluationResult:
    """`run_evaluation` with the options of `eval`, a progress bar on stderr while it runs."""
    from tqdm import tqdm

    from rag.evaluate.runner import run_evaluation

    bar = tqdm(total=len(questions), desc="eval", unit="question", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.n = done
        bar.refresh()

    try:
        return run_evaluation(
            engine, questions, configs, out, k=args.k, retrieval_only=args.retrieval_only, resume=args.resume,
            overwrite=args.overwrite, dry_run=args.dry_run, judge=judge, progress=progress,
            max_text_chars=args.max_text_chars, questions_source=str(args.questions), parallel=args.parallel,
            history_mode=args.history,
        )
    finally:
        bar.close()


def cmd_suite(args: argparse.Namespace) -> int:
    """Run every question set of an evaluation suite; prints and saves one table (latest.json, latest.md)."""
    from rag.config import resolve_configs
    from rag.evaluate.runner import ablation_configs
    from rag.evaluate.suite import Corpus, corpus_index, corpus_key, load_suite, run_suite
    from rag.evaluate.suite_results import suite_markdown
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
        return Engine(index)

    out = Path(args.out) if args.out else PROJECT_ROOT / "eval_data" / "results" / "suite"
    log(f"suite {suite.path.name}: {len(suite.sets)} set(s) x {len(configs)} config(s) "
        f"({', '.join(c.name for c in configs)}), " + ("extractive answers" if args.answers else "retrieval only"))
    report = run_suite(suite, configs, engine_for, out, log, retrieval_only=not args.answers)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print_json(report.to_dict())
    else:
        print(suite_markdown(report))
        print(f"\nsaved {out / 'latest.json'} and {out / 'latest.md'} ({report.seconds:.0f} s)")
    return EXIT_OK


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
