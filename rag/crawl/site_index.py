"""Index a crawled documentation site as one API (named after the site, or as the user names it): each page a
document under its URL (sections with their heading path, by the HTML docs chunker), re-indexed only when its
content changed; pages the site no longer has are removed."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from rag.crawl.crawler import CrawledPage, CrawlResult, CrawlSettings, Progress, crawl
from rag.crawl.fetch import Fetcher
from rag.crawl.spec_url import spec_file_name, url_api_name
from rag.errors import IngestError, RagError
from rag.index.report import IngestReport
from rag.index.store import Index
from rag.ingest.doc_parts import slug
from rag.ingest.html_docs import chunk_html
from rag.ingest.pipeline import ParsedDocument, parse_document

MAX_NAME = 80


@dataclass
class SiteReport:
    """What indexing a site did: one report per page, the pages removed, what the crawl skipped and why."""

    root: str
    reports: list[IngestReport] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    truncated: str = ""
    sitemap: str = ""
    kept_all: str = ""  # why no indexed page of the site was removed ("" when gone pages were)

    def count(self, status: str) -> int:
        """How many pages got a status (added, replaced, skipped, error)."""
        return sum(1 for report in self.reports if report.status == status)

    def summary(self) -> str:
        """One line: pages added, re-indexed, unchanged, removed, failed, and a limit that cut the crawl short."""
        line = (f"{self.root}: {len(self.reports)} page(s) — {self.count('added')} added, {self.count('replaced')} "
                f"re-indexed, {self.count('skipped')} unchanged, {len(self.removed)} removed, "
                f"{self.count('error')} failed; {len(self.skipped)} URL(s) skipped")
        if self.kept_all:
            line += f"; {self.kept_all}, so no page was removed"
        return line

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        return {"root": self.root, "pages": [r.to_dict() for r in self.reports], "removed": self.removed,
                "skipped": self.skipped, "truncated": self.truncated, "sitemap": self.sitemap,
                "kept_all": self.kept_all, "summary": self.summary()}


def site_api(root: str, name: str = "") -> str:
    """The one API a crawled site is indexed under: the name the user gave, else the site's host
    (`https://docs.x.com/api/` → `docs-x-com`), as a slug."""
    chosen = name.strip() or (urlsplit(root).hostname or "site").removeprefix("www.")
    return slug(chosen)[:MAX_NAME].strip("-") or "site"


def page_name(url: str, root: str) -> str:
    """A page's name within its site, the first part of its sections' structural ids: its path below the site's
    folder as one slug (`https://docs.x.com/api/` + `auth/tokens.html` → `auth-tokens`; the folder itself `index`)."""
    below = url[len(root):] if url.startswith(root) else urlsplit(url).path
    below = re.sub(r"\.(html?|php|aspx?)$", "", below.split("?", 1)[0].strip("/")) or "index"
    name = slug(below)
    if len(name) > MAX_NAME:  # long paths keep their start and a hash of the whole URL
        name = name[: MAX_NAME - 9].rstrip("-") + "-" + hashlib.sha256(url.encode()).hexdigest()[:8]
    return name


def parse_page(page: CrawledPage, root: str, api: str) -> ParsedDocument:
    """One crawled page as a parsed document of the site's API `api`: its URL as source, its sections as chunks
    (each with the page's URL and its heading path). A spec the site links to is read as an uploaded spec is
    (Swagger 2.0 converted), an API of its own."""
    if page.spec:
        name = spec_file_name(page.url, "", page.html)
        return replace(parse_document(name, page.html, api=url_api_name(page.url, name)), source=page.url)
    text = page.html.decode("utf-8", "replace")
    chunks = chunk_html(page.url, text, api=api, page=page_name(page.url, root))
    return ParsedDocument(
        source=page.url,
        api=api,
        doc_type="doc",
        content_hash=hashlib.sha256(page.html).hexdigest(),
        chunks=tuple(chunks),
        size_bytes=len(page.html),
        title=chunks[0].title or page.url,
    )


def index_pages(index: Index, result: CrawlResult, progress: Progress | None = None, name: str = "") -> SiteReport:
    """Index a crawl's pages as one API (`site_api`: `name`, else the site's host; an unchanged page is left as it
    is) and remove the site's indexed pages the crawl no longer found, unless the crawl cannot tell: a limit cut it
    short, a page failed for a passing reason (a timeout, a 5xx: its links were not read), or it found no page."""
    root = result.scope.root
    api = site_api(root, name)
    report = SiteReport(root, skipped=dict(result.skipped), truncated=result.truncated, sitemap=result.used_sitemap)
    for number, page in enumerate(result.pages, 1):
        if progress is not None:
            progress(number, len(result.pages), page.url)
        try:
            report.reports.append(index.add(parse_page(page, root, api), on_duplicate="replace"))
        except IngestError as error:
            report.reports.append(IngestReport(page.url, "error", message=f"{page.url}: {error.problem}"))
        except RagError as error:
            report.reports.append(IngestReport(page.url, "error", message=f"{page.url}: {error}"))
    report.kept_all = (f"stopped at {result.truncated}" if result.truncated
                       else f"{len(result.kept)} page(s) failed for a passing reason" if result.kept
                       else "no page was found" if not result.pages else "")
    if not report.kept_all:
        seen = {page.url for page in result.pages}
        for record in index.documents():
            if record.source.startswith(root) and record.source not in seen and index.delete(record.source):
                report.removed.append(record.source)
    return report


def crawl_site(
    index: Index,
    start_url: str,
    settings: CrawlSettings | None = None,
    fetcher: Fetcher | None = None,
    progress: Callable[[str, int, int, str], None] | None = None,
    name: str = "",
) -> SiteReport:
    """Crawl a documentation site and index it as one API (`crawl`, then `index_pages`; `name` the API's name,
    else the site's host). `progress(stage, done, total, url)` follows both stages (`crawl`, then `index`)."""

    def stage(name: str) -> Progress | None:
        return None if progress is None else lambda done, total, url: progress(name, done, total, url)

    result = crawl(start_url, settings, fetcher, stage("crawl"))
    return index_pages(index, result, stage("index"), name)
