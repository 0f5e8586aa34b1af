"""The index commands of `python -m rag`: ingest, crawl, stats, delete, fetch-specs, ensure-index and diff."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.cli.common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, fail, print_json, settings_from
from rag.errors import RagError


def _fetch_urls(args: argparse.Namespace) -> tuple[list[Any], list[Any]]:
    """The specs named by URL among the ingest arguments, fetched before any index or model is opened, and an
    error report for each one that could not be fetched. A refused address (private, loopback) stops at once."""
    from rag.crawl.spec_url import check_spec_url, fetch_spec
    from rag.errors import IngestError
    from rag.index.report import IngestReport

    urls = [raw for raw in args.paths if "://" in raw]
    for url in urls:
        check_spec_url(url, args.allow_private)  # ConfigError: refused before anything is fetched or opened
    fetched, failed = [], []
    for url in urls:
        try:
            fetched.append(fetch_spec(url, args.allow_private))
        except IngestError as error:
            failed.append(IngestReport(url, "error", message=str(error)))
    return fetched, failed


def cmd_ingest(args: argparse.Namespace) -> int:
    """Index files, folders, zips and specs by URL: progress with the time left on stderr (a line per file indexed,
    and every few seconds while one is parsed or embedded), the reports on stdout. Unless `--embed-all`, each file
    goes live once its operations and docs are embedded; then the schema chunks are embedded (saying so), and the
    naive chunks are left set aside (embedded when a command that searches them first needs them)."""
    from rag.cli.ingest_progress import ingest_with_progress
    from rag.config import set_aside_parts
    from rag.index.build import ingest_fetched_spec, open_index

    try:
        fetched, reports = _fetch_urls(args)
    except RagError as error:
        return fail(str(error).replace("crawling private", "fetching from private")
                    .replace(" (allow_private=True in Python)", ""))
    paths = [raw for raw in args.paths if "://" not in raw]
    if fetched or paths:
        index = open_index(settings_from(args))
        defer = () if args.embed_all else set_aside_parts()
        if paths:
            reports += ingest_with_progress(index, paths, on_duplicate=args.on_duplicate, version=args.version,
                                            defer=defer, quiet=args.json, announce=False, write=_write_stderr)
        for spec in fetched:
            if not args.json:
                _write_stderr(f"  {spec.url}: parsing, chunking and embedding…")
            reports.append(ingest_fetched_spec(index, spec, args.version, defer=defer))
        reports = _complete_what_full_searches(index, reports, None if args.json else _write_stderr)
    return _print_ingest_reports(reports, args.json)


def _complete_what_full_searches(index: Any, reports: list[Any], write: Callable[[str], None] | None) -> list[Any]:
    """Once the files are live (searchable by `full` from their operations and docs), embed the chunks set aside
    that `full` searches (the schema chunks), saying so with progress through `write` (None: silently); the reports
    then list as pending what is still set aside (the naive chunks)."""
    from rag.cli.ingest_progress import complete_for
    from rag.config import PRESETS, searched_strategies

    complete_for(index, searched_strategies([PRESETS["full"]]), write or (lambda _: None),
                 lambda what: f"searchable now by full, C1-C5 and E2-E4 (they say “still indexing” until the rest is "
                              f"in); embedding the {what}…")
    left = {record.source: record.pending for record in index.documents()}
    return [replace(report, pending=left.get(report.source, ())) if report.pending else report for report in reports]


def _write_stderr(line: str) -> None:
    """Print a progress line on stderr at once."""
    print(line, file=sys.stderr, flush=True)


def _write_stdout(line: str) -> None:
    """Print a progress line on stdout at once."""
    print(line, flush=True)


def _print_ingest_reports(reports: list[Any], as_json: bool) -> int:
    """A line per report (errors on stderr) and one on the chunks set aside, or the JSON list; exit 2 when one
    failed."""
    failed = [report for report in reports if report.status in ("error", "rejected")]
    if as_json:
        print_json([report.to_dict() for report in reports])
    else:
        for report in reports:
            if report.status in ("error", "rejected"):
                print(f"error: {report.message}", file=sys.stderr)
            else:
                extra = f" ({report.message})" if report.message else ""
                print(f"{report.status:8} {report.source} [{report.api}]: {report.counts_text()} in "
                      f"{report.seconds:.1f}s{extra}")
        _say_set_aside(reports, "when a command first asks C0 (the app and `rag serve` do it in the background)")
    return EXIT_USAGE if failed else EXIT_OK


def _say_set_aside(reports: list[Any], when: str) -> None:
    """One line on the chunks set aside, when some were: who searches them and `when` they are embedded."""
    pending = {strategy for report in reports for strategy in report.pending}
    if pending:
        print(f"searchable now by full, C1-C5 and E2-E4; the {', '.join(sorted(pending))} chunks (the C0 baseline's) "
              f"are embedded {when}")


def cmd_crawl(args: argparse.Namespace) -> int:
    """Crawl a documentation site and index its pages, with a progress bar per stage (crawl, then index)."""
    from tqdm import tqdm

    from rag.crawl.crawler import CrawlSettings, check_site
    from rag.crawl.site_index import crawl_site
    from rag.index.build import open_index

    settings = CrawlSettings(max_pages=args.max_pages, max_depth=args.max_depth, delay_s=args.delay,
                             timeout_s=args.timeout, max_bytes=args.max_bytes, allow_private=args.allow_private)
    check_site(args.url, settings)  # a refused address is refused before a model loads or a folder is made
    index = open_index(settings_from(args))
    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, total: int, url: str) -> None:
        if args.json:
            return
        unit = "page fetched" if stage == "crawl" else "page indexed"
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(total=total, desc=stage, unit=unit, file=sys.stderr, leave=True)
        bar.total = max(total, done)
        bar.n = done
        bar.set_postfix_str(url[-60:], refresh=True)

    try:
        report = crawl_site(index, args.url, settings, progress=progress, name=args.name or "")
    finally:
        for bar in bars.values():
            bar.close()
    if args.json:
        print_json(report.to_dict())
        return EXIT_OK if report.reports and not report.count("error") else EXIT_USAGE
    for page in report.reports:
        line = page.message if page.status == "error" else f"{page.status:8} {page.source} [{page.api}]"
        print(line, file=sys.stderr if page.status == "error" else sys.stdout)
    for url in report.removed:
        print(f"removed  {url} (no longer on the site)")
    for url, why in sorted(report.skipped.items()):
        print(f"  skipped {url}: {why}")
    print(report.summary())
    if not report.reports:
        return fail(f"no page of {report.root} could be indexed; see the skipped URLs above")
    return EXIT_USAGE if report.count("error") else EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    """Show what is indexed."""
    from rag.index.build import open_index

    stats = open_index(settings_from(args)).stats()
    if args.json:
        print_json(stats)
        return EXIT_OK
    backend = f", {stats['embedding_backend']} backend" if stats["embedding_backend"] else ""
    print(f"index: {stats['index_dir']}  (embedding model: {stats['embedding_model']}{backend})")
    print(f"documents: {stats['documents']}; chunks: " + ", ".join(f"{k}={v}" for k, v in stats["chunks"].items()))
    if stats["pending"]:
        print("not embedded yet (set aside at ingest; embedded when first needed): "
              + ", ".join(f"{k}={v}" for k, v in stats["pending"].items()))
    for api, counts in stats["per_api"].items():
        labels = ", ".join(v["label"] + (" (newest)" if v["newest"] else "") for v in stats["versions"].get(api, []))
        print(f"  {api:16} " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
              + (f"  versions: {labels}" if labels else ""))
    return EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    """Remove an indexed document by its source name."""
    from rag.index.build import open_index

    index = open_index(settings_from(args))
    if not index.delete(args.source):
        sources = ", ".join(record.source for record in index.documents()) or "none"
        return fail(f"{args.source!r} is not indexed; indexed: {sources}")
    print(f"deleted {args.source}")
    return EXIT_OK


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


def cmd_ensure_index(args: argparse.Namespace) -> int:
    """Build the index of the default corpus if it is empty (used by `make run`), reporting each file's chunk
    counts and an estimate of the time left from the first second; as `rag ingest` does, the schema chunks are
    embedded once the files are live and the naive chunks are set aside (the app embeds them in the background)."""
    import time

    from rag.cli.ingest_progress import duration, ingest_with_progress, megabytes
    from rag.config import set_aside_parts
    from rag.index.build import NO_SPECS_HELP, expand_paths, find_default_specs, open_index

    settings = settings_from(args)
    specs = find_default_specs(settings)
    print(f"opening the index in {settings.index_dir} (loading the embedding model {settings.embedding_model}, "
          f"backend {settings.embedding_backend}; the first ONNX run exports the model once, ~10-40 s)…", flush=True)
    index = open_index(settings)
    started = time.perf_counter()
    if not index.is_empty():
        indexed = {record.source for record in index.documents()}
        refresh = [path for path in expand_paths([specs]) if path.name in indexed] if specs else []
        reports = ingest_with_progress(index, refresh, defer=set_aside_parts()) if refresh else []
        reports = _complete_what_full_searches(index, reports, _write_stdout)
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
          f"{megabytes(sum(path.stat().st_size for path in files))}", flush=True)
    reports = _complete_what_full_searches(index, ingest_with_progress(index, files, defer=set_aside_parts()),
                                           _write_stdout)
    bad = [report for report in reports if report.status in ("error", "rejected")]
    chunks = sum(sum((report.chunk_counts or {}).values()) for report in reports)
    _say_set_aside(reports, "by the app in the background once it has started")
    print(f"index ready: {len(reports) - len(bad)} of {len(reports)} file(s), {chunks} chunks in "
          f"{duration(time.perf_counter() - started)}")
    for report in bad:
        print(f"  {report.status:8} {report.source}: {report.message}", file=sys.stderr)
    return EXIT_USAGE if bad else EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    """Compare two versions of an API: files, folders of specs, or indexed versions (`API@LABEL`, read from
    the index's registry and kept specs: no embedding model is loaded, no index created). Exit 1 when
    `--fail-on` finds a change at that level."""
    from rag.index.kept_specs import KeptSpecs
    from rag.versions.checks import CHECKS
    from rag.versions.compare import diff_inputs
    from rag.versions.report import apply_ignores, failed, read_ignore_file, render

    if args.checks:
        for entry in CHECKS.values():
            print(f"{entry.id:55} {entry.level:8} {entry.description}")
        return EXIT_OK
    if not args.old or not args.new:
        return fail("diff needs OLD and NEW (files, folders, or API@LABEL of indexed versions)")
    ignores = read_ignore_file(args.ignore) if args.ignore else ()
    diffs = [apply_ignores(diff, ignores)
             for diff in diff_inputs(args.old, args.new, indexed=lambda: KeptSpecs(settings_from(args).index_dir))]
    fmt = "json" if args.json else args.format
    print(render(diffs, fmt, "error" if args.breaking_only else args.level, args.limit))
    return EXIT_FAILURE if args.fail_on and failed(diffs, args.fail_on) else EXIT_OK
