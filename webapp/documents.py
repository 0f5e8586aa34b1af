"""Indexing uploaded files from the app, one report per file (a bad file never stops the others)."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import pandas as pd

from rag.crawl.crawler import CrawlSettings
from rag.crawl.site_index import SiteReport, crawl_site
from rag.crawl.spec_url import fetch_spec
from rag.errors import DuplicateDocumentError, IngestError, RagError
from rag.index.build import embedding_texts, ingest_fetched_spec
from rag.index.progress import IngestTracker
from rag.index.store import DuplicatePolicy, Index, IngestReport
from rag.ingest.pipeline import parse_document

Progress = Callable[[float, str], None]
POLL_S = 0.25  # how often the upload's progress bar is redrawn
# The words on screen: the question above the duplicate choice and each choice's label (messages quote them).
DUPLICATE_QUESTION = "When a document with the same file name is already indexed"
POLICY_LABELS: dict[str, str] = {
    "reject": "reject (report it)",
    "skip": "skip (keep the indexed one)",
    "replace": "replace (index the new content)",
}
UPLOAD_LABEL = ("OpenAPI 3.x or Swagger 2.0 specs (.json .yaml .yml), a spec split over files as a .zip of its folder, "
                "or docs (.md .txt .rst .html .pdf), up to 10 MB each")


def upload_problem(error: IngestError) -> str:
    """Why a file was not indexed, in the words the page shows (never a command-line option)."""
    if isinstance(error, DuplicateDocumentError):
        return (f"{error.source}: already indexed, so it was not added. To index the new content, choose "
                f"“{POLICY_LABELS['replace']}” under “{DUPLICATE_QUESTION}” and upload it again, or delete the "
                "indexed one below.")
    if error.problem.startswith("file type"):
        kind = error.source.rsplit(".", 1)[-1] if "." in error.source else "this kind of"
        return f"{error.source}: not indexed — .{kind.lstrip('.')} files cannot be indexed. Upload {UPLOAD_LABEL}."
    return f"{error.source}: not indexed — {error.problem}"


def ingest_uploads(
    index: Index,
    files: Sequence[tuple[str, bytes]],
    on_duplicate: DuplicatePolicy = "reject",
    progress: Progress | None = None,
    defer: Collection[str] = (),
) -> list[IngestReport]:
    """Validate, parse and index each (name, bytes); `progress(fraction, text)` follows the files' stages with the
    time left (rag.index.progress), every POLL_S seconds from the first, in the caller's thread (a Streamlit bar
    can only be drawn from there): the files are indexed in a worker thread meanwhile. The chunks of the parts
    in `defer` are set aside, to be embedded afterwards (rag.index.deferred)."""
    tracker = IngestTracker([(name, len(data)) for name, data in files])
    if progress is None:
        return _ingest_all(index, files, on_duplicate, tracker, defer)
    now = tracker.current()  # the first file's parsing, with its estimate, before anything runs
    progress(now.fraction, now.text())
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="upload") as worker:
        running = worker.submit(_ingest_all, index, files, on_duplicate, tracker, defer)
        while True:
            try:
                reports = running.result(timeout=POLL_S)
                break
            except FutureTimeout:
                now = tracker.current()
                progress(now.fraction, now.text())
    progress(1.0, f"done: {len(files)} file(s)")
    return reports


def _ingest_all(index: Index, files: Sequence[tuple[str, bytes]], on_duplicate: DuplicatePolicy,
                tracker: IngestTracker, defer: Collection[str]) -> list[IngestReport]:
    """Index each file in turn, telling `tracker` each stage; one report per file (a bad file never stops the
    others)."""
    reports: list[IngestReport] = []
    for number, (name, data) in enumerate(files, start=1):
        started = time.perf_counter()
        tracker.start_file(number)
        try:
            parsed = parse_document(name, data)
            tracker.parsed(embedding_texts(parsed, defer))
            reports.append(index.add(parsed, on_duplicate=on_duplicate, defer=defer,
                                     progress=lambda done, _total: tracker.embedded(done)))
        except IngestError as error:
            status = "rejected" if "already" in error.problem or "already used" in error.problem else "error"
            reports.append(IngestReport(error.source, status, message=upload_problem(error),  # type: ignore[arg-type]
                                        seconds=time.perf_counter() - started))
        except RagError as error:
            reports.append(IngestReport(name, "error", message=f"{name}: {error}",
                                        seconds=time.perf_counter() - started))
        except Exception as error:  # a parser bug must not hide the other files' results
            reports.append(IngestReport(name, "error", message=f"{name}: {type(error).__name__}: {error}",
                                        seconds=time.perf_counter() - started))
        tracker.finish_file()
    return reports


def report_frame(reports: Sequence[IngestReport]) -> pd.DataFrame:
    """One row per file: status, API, chunks created per strategy, seconds, message (the error, if any)."""
    rows: list[dict[str, Any]] = []
    for report in reports:
        counts = report.chunk_counts or {}
        rows.append(
            {
                "file": report.source,
                "status": report.status,
                "api": report.api,
                "chunks": sum(counts.values()),
                "per strategy": report.counts_text(),
                "seconds": round(report.seconds, 2),
                "message": report.message,
            }
        )
    return pd.DataFrame(rows, columns=["file", "status", "api", "chunks", "per strategy", "seconds", "message"])


def report_line(report: IngestReport) -> str:
    """One sentence per file for the result list."""
    if report.status in ("error", "rejected"):
        return report.message or f"{report.source}: {report.status}"
    counts = report.chunk_counts or {}
    total = sum(counts.values())
    detail = report.counts_text()
    extra = f" ({report.message})" if report.message else ""
    return (
        f"{report.source} → {report.api}: {report.status}, {total} chunks ({detail}) "
        f"in {report.seconds:.1f} s{extra}"
    )


CRAWL_STAGES = {"crawl": (0.0, 0.6, "fetched"), "index": (0.6, 1.0, "indexed")}  # each stage's share of the bar
ALLOW_PRIVATE_LABEL = "Allow private, loopback and link-local addresses"


def crawl_into(index: Index, url: str, max_pages: int, allow_private: bool,
               progress: Progress | None = None, name: str = "") -> SiteReport:
    """Crawl a documentation site into the index as one API (`rag.crawl.site_index.crawl_site`; `name`, else the
    site's host) with the app's progress bar: `progress(fraction, text)`, the crawl first, then the indexing. A
    refused address says which box allows it."""
    settings = CrawlSettings(max_pages=int(max_pages), allow_private=allow_private)

    def step(stage: str, done: int, total: int, page: str) -> None:
        if progress is not None:
            low, high, verb = CRAWL_STAGES[stage]
            progress(low + (high - low) * done / max(total, 1), f"{verb} {done}/{total}: {page}")

    try:
        return crawl_site(index, url.strip(), settings, progress=step, name=name.strip())
    except RagError as error:
        raise RagError(str(error).replace("--allow-private is given (allow_private=True in Python)",
                                          f"“{ALLOW_PRIVATE_LABEL}” is ticked")) from None


def ingest_spec_url(index: Index, url: str, allow_private: bool, progress: Progress | None = None,
                    defer: Collection[str] = ()) -> IngestReport:
    """Fetch a spec from its URL and index it under that URL (`rag.index.build.ingest_fetched_spec`: fetched again,
    a new version when it changed, else unchanged); a problem is an error report in the page's words. The chunks of
    the parts in `defer` are set aside, to be embedded afterwards (rag.index.deferred)."""
    def step(done: int, total: int) -> None:
        if progress is not None and total:
            progress(0.2 + 0.8 * done / total, f"embedded {done}/{total} chunks")

    if progress is not None:
        progress(0.0, f"fetching {url.strip()}")
    try:
        fetched = fetch_spec(url, allow_private)
    except RagError as error:
        message = str(error).replace("crawling private", "fetching from private").replace(
            "--allow-private is given (allow_private=True in Python)", f"“{ALLOW_PRIVATE_LABEL}” is ticked")
        return IngestReport(url.strip(), "error", message=message)
    if progress is not None:
        progress(0.1, f"parsing {fetched.name}")
    return ingest_fetched_spec(index, fetched, progress=step, defer=defer)


def crawl_lines(report: SiteReport) -> list[tuple[str, str]]:
    """(level, line) per page that changed or failed and per removed page: `success`, `error` or `info`."""
    lines: list[tuple[str, str]] = []
    for page in report.reports:
        if page.status in ("added", "replaced"):
            lines.append(("success", f"{page.source} → {page.api}: {page.status}, "
                                     f"{sum(page.chunk_counts.values())} chunks"))
        elif page.status == "error":
            lines.append(("error", page.message))
    lines.extend(("info", f"{url}: removed (no longer on the site)") for url in report.removed)
    return lines


def pending_note(index: Index) -> str:
    """What the Documents page says while chunks set aside at ingest are embedded ("" when none are): how many, of
    which APIs, and which configurations search them (they say “still indexing” meanwhile)."""
    from rag.config import PRESETS
    from rag.index.deferred import describe_pending, part_label, part_strategy

    work = index.pending()
    if not work:
        return ""
    searched = "; ".join(
        f"the {part_label(part)} by {', '.join(n for n, c in PRESETS.items() if c.chunking == part_strategy(part))}"
        for part in dict.fromkeys(item.part for item in work))
    return (f"Embedding in the background: {describe_pending(work)}. Until they are in, the configurations that "
            f"search them ({searched}) answer from what is embedded and say “still indexing”.")
