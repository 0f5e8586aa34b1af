"""Indexing a crawled site: one document per page under its URL, answers citing the page, re-crawls that touch
only changed pages and remove gone ones, and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.crawl.crawler import CrawlSettings
from rag.crawl.fetch import PrivateAddressError
from rag.crawl.site_index import crawl_site, page_name, site_api
from rag.index.store import Index
from rag.runner import Engine
from tests.crawl.conftest import Site
from tests.crawl.test_crawler import FAST, IN_PREFIX
from tests.processes import rag_cli


def sources(index: Index) -> list[str]:
    return sorted(record.source for record in index.documents())


def test_each_in_prefix_page_is_indexed_once_under_its_url(site: Site, empty_index: Index) -> None:
    report = crawl_site(empty_index, site.docs, FAST)
    assert sources(empty_index) == sorted(f"{site.url}/{path}" for path in IN_PREFIX)
    assert [r.status for r in report.reports] == ["added"] * 4 and not report.removed
    chunks = [c for c in empty_index.snapshot().chunks.values() if c.source.endswith("webhooks.html")]
    assert {c.section_path for c in chunks} >= {"Webhooks > Verifying webhook signatures", "Webhooks > Retries"}
    assert {c.api for c in empty_index.snapshot().chunks.values()} == {"127-0-0-1"}  # the site is one API
    assert "127-0-0-1.doc.guide-webhooks/webhooks/retries" in {c.covers[0] for c in chunks}  # page, then section
    assert {record.api for record in empty_index.documents()} == {"127-0-0-1"}


def test_a_question_answered_on_the_third_page_cites_its_url(site: Site, empty_index: Index) -> None:
    crawl_site(empty_index, site.docs, FAST)
    result = Engine(empty_index, default_llm="extractive").run(
        "How do I verify the X-Acme-Signature header of a webhook delivery?", PRESETS["C2"])
    assert result.ok and not result.abstained, result.errors
    assert result.citations and result.citations[0].source == f"{site.url}/docs/guide/webhooks.html", result.citations
    assert "X-Acme-Signature" in result.answer


def test_a_recrawl_reindexes_only_the_changed_page_and_removes_gone_ones(site: Site, empty_index: Index) -> None:
    crawl_site(empty_index, site.docs, FAST)
    install = site.folder / "docs" / "guide" / "install.html"
    install.write_text(install.read_text().replace("pip install acme-sdk", "pip install acme-sdk==2.0"))
    again = crawl_site(empty_index, site.docs, FAST)
    statuses = {r.source.removeprefix(site.url + "/"): r.status for r in again.reports}
    assert statuses == {"docs/index.html": "skipped", "docs/getting-started.html": "skipped",
                        "docs/guide/install.html": "replaced", "docs/guide/webhooks.html": "skipped"}
    chunks = empty_index.snapshot().chunks.values()
    assert "acme-sdk==2.0" in next(c.text for c in chunks if c.source.endswith("install.html"))

    (site.folder / "docs" / "guide" / "webhooks.html").unlink()
    gone = crawl_site(empty_index, site.docs, FAST)
    assert gone.removed == [f"{site.url}/docs/guide/webhooks.html"]
    assert sources(empty_index) == sorted(f"{site.url}/{path}" for path in IN_PREFIX[:3])
    assert "1 removed" in gone.summary()


def test_a_crawl_cut_short_by_the_page_limit_removes_nothing(site: Site, empty_index: Index) -> None:
    crawl_site(empty_index, site.docs, FAST)
    report = crawl_site(empty_index, site.docs, CrawlSettings(max_pages=1, delay_s=0, allow_private=True))
    assert report.truncated and not report.removed and len(sources(empty_index)) == 4
    assert "stopped at the page limit (1), so no page was removed" in report.summary()


def test_a_loopback_site_is_refused_and_nothing_is_indexed(site: Site, empty_index: Index) -> None:
    with pytest.raises(PrivateAddressError, match="unless --allow-private"):
        crawl_site(empty_index, site.docs, CrawlSettings(delay_s=0))
    assert empty_index.is_empty()


def test_a_site_is_named_after_its_host_or_as_given_and_a_page_by_its_path_below_the_site() -> None:
    root = "https://docs.example.com/api/"
    assert site_api(root) == "docs-example-com" and site_api("https://www.example.com:8443/") == "example-com"
    assert site_api(root, "Acme Docs") == "acme-docs"
    assert page_name("https://docs.example.com/api/auth/tokens.html", root) == "auth-tokens"
    assert page_name("https://www.example.com/api/", "https://www.example.com/api/") == "index"
    long = page_name("https://docs.example.com/api/" + "section/" * 20 + "page.html", root)
    assert len(long) <= 80 and long.startswith("section-section")


def test_a_site_crawled_under_a_name_is_that_api(site: Site, empty_index: Index) -> None:
    crawl_site(empty_index, site.docs, FAST, name="acme")
    assert {record.api for record in empty_index.documents()} == {"acme"}
    assert len(empty_index.documents()) == 4  # one document per page, one API


def test_the_command_line_crawls_with_allow_private_and_refuses_without(site: Site, tmp_path: Path) -> None:
    index = tmp_path / "index"
    refused = rag_cli("crawl", site.docs, index=index, timeout=300)
    assert refused.returncode == 2
    assert "127.0.0.1, a loopback address" in refused.stderr and "--allow-private" in refused.stderr
    done = rag_cli("crawl", site.docs, "--allow-private", "--delay", "0", "--json", index=index, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sorted(p["source"] for p in report["pages"]) == sorted(f"{site.url}/{path}" for path in IN_PREFIX)
    shown = rag_cli("crawl", site.docs, "--allow-private", "--delay", "0", index=index, timeout=300,
                    env={"TQDM_DISABLE": ""})
    assert shown.returncode == 0 and "4 unchanged, 0 removed" in shown.stdout
    assert "crawl: 100%" in shown.stderr and "index: 100%" in shown.stderr  # the progress bars


def test_a_crawl_whose_start_page_fails_removes_nothing(site: Site, empty_index: Index) -> None:
    crawl_site(empty_index, site.docs, FAST)
    (site.folder / "robots.txt").write_text("User-agent: *\nDisallow: /docs/\n")
    report = crawl_site(empty_index, site.docs, FAST)
    assert not report.reports and not report.removed and len(sources(empty_index)) == 4
    assert report.summary().endswith("; no page was found, so no page was removed")
