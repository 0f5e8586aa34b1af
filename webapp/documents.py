"""Indexing uploaded files from the app, one report per file (a bad file never stops the others)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from rag.crawl.crawler import CrawlSettings
from rag.crawl.site_index import SiteReport, crawl_site
from rag.crawl.spec_url import fetch_spec
from rag.errors import DuplicateDocumentError, IngestError, RagError
from rag.index.build import ingest_fetched_spec
from rag.index.store import DuplicatePolicy, Index, IngestReport
from rag.ingest.pipeline import parse_document

Progress = Callable[[float, str], None]
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
) -> list[IngestReport]:
    """Validate, parse and index each (name, bytes); `progress(fraction, text)` follows files and chunks."""
    reports: list[IngestReport] = []
    count = len(files)
    for number, (name, data) in enumerate(files):
        started = time.perf_counter()

        def step(done: int, total: int, name: str = name, number: int = number) -> None:
            if progress is not None and total:
                progress((number + done / total) / count, f"{name}: embedded {done}/{total} chunks")

        if progress is not None:
            progress(number / count, f"{name}: parsing")
        try:
            parsed = parse_document(name, data)
            reports.append(index.add(parsed, on_duplicate=on_duplicate, progress=step))
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
    if progress is not None:
        progress(1.0, f"done: {count} file(s)")
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
                "per strategy": ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
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
    detail = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
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


def ingest_spec_url(index: Index, url: str, allow_private: bool, progress: Progress | None = None) -> IngestReport:
    """Fetch a spec from its URL and index it under that URL (`rag.index.build.ingest_fetched_spec`: fetched again,
    a new version when it changed, else unchanged); a problem is an error report in the page's words."""
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
    return ingest_fetched_spec(index, fetched, progress=step)


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
