"""Finding a documentation site's pages: scope, robots.txt, sitemap, canonical links, rel=next, the traps."""

from __future__ import annotations

import pytest

from rag.crawl.crawler import CrawlSettings, Scope, crawl, page_links
from rag.crawl.fetch import PrivateAddressError, address_problem
from rag.errors import ConfigError
from tests.crawl.conftest import Site

FAST = CrawlSettings(delay_s=0, timeout_s=10, allow_private=True)
IN_PREFIX = ("docs/index.html", "docs/getting-started.html", "docs/guide/install.html", "docs/guide/webhooks.html")


def test_exactly_the_in_prefix_pages_are_found_once_each(site: Site) -> None:
    result = crawl(site.docs, FAST)
    urls = [page.url for page in result.pages]
    assert sorted(urls) == sorted(f"{site.url}/{path}" for path in IN_PREFIX)
    assert len(urls) == len(set(urls)) and not result.truncated and not result.used_sitemap
    skipped = result.skipped
    assert skipped[f"{site.url}/docs/getting-started-print.html"] == (
        f"the same page as {site.url}/docs/getting-started.html (canonical)")
    assert skipped[f"{site.url}/blog/news.html"] == "outside the site (another host or path prefix)"
    assert skipped["https://example.org/docs/elsewhere.html"] == "outside the site (another host or path prefix)"
    assert skipped[f"{site.url}/docs/missing.html"] == "HTTP 404"
    assert skipped[f"{site.url}/docs/loop-a.html"].startswith("redirect loop: ")
    assert skipped[f"{site.url}/docs/files/sdk.zip"] == "not HTML (application/zip)"
    assert skipped[f"{site.url}/docs/private/secret.html"] == "disallowed by robots.txt"
    assert not any(path.startswith(("/blog", "/docs/private")) for path in site.requested)
    assert skipped[f"{site.url}/docs/index.html?ref=nav"] == f"the same page as {site.url}/docs/index.html (canonical)"
    assert "/docs/index.html" not in site.requested  # the start page /docs/ named it as its canonical URL


def test_the_third_page_is_reached_by_rel_next_alone(site: Site) -> None:
    pages = {page.url: page for page in crawl(site.docs, FAST).pages}
    assert pages[f"{site.url}/docs/guide/webhooks.html"].depth == 3
    assert b"guide/" not in (site.folder / "docs/index.html").read_bytes()  # no <a> leads there


def test_a_sitemap_lists_the_pages_when_present(site: Site) -> None:
    (site.folder / "docs" / "sitemap.xml").write_text(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{site.url}/docs/guide/webhooks.html</loc></url>"
        f"<url><loc>{site.url}/docs/getting-started.html</loc></url>"
        f"<url><loc>{site.url}/blog/news.html</loc></url></urlset>"
    )
    result = crawl(site.docs, FAST)
    assert result.used_sitemap == f"{site.url}/docs/sitemap.xml"
    assert [p.url for p in result.pages] == [f"{site.url}/docs/guide/webhooks.html",
                                             f"{site.url}/docs/getting-started.html"]


def test_page_and_depth_limits_and_the_polite_delay(site: Site) -> None:
    limited = crawl(site.docs, CrawlSettings(max_pages=2, delay_s=0, allow_private=True))
    assert len(limited.pages) == 2 and limited.truncated == "the page limit (2)"
    shallow = crawl(site.docs, CrawlSettings(max_depth=1, delay_s=0, allow_private=True))
    assert {p.url for p in shallow.pages} == {f"{site.url}/docs/index.html", f"{site.url}/docs/getting-started.html"}
    waits: list[float] = []
    crawl(site.docs, CrawlSettings(delay_s=0.25, allow_private=True), sleep=waits.append)
    assert waits and set(waits) == {0.25}


def test_a_page_above_the_size_limit_is_skipped(site: Site) -> None:
    result = crawl(site.docs, CrawlSettings(max_bytes=500, delay_s=0, allow_private=True))
    assert result.skipped[f"{site.url}/docs/"] == "too large (744 bytes; the limit is 500)" and not result.pages


def test_a_loopback_site_is_refused_without_allow_private(site: Site) -> None:
    with pytest.raises(PrivateAddressError, match=r"127\.0\.0\.1, a loopback address; .* unless --allow-private"):
        crawl(site.docs, CrawlSettings(delay_s=0))
    assert site.requested == []  # refused before any request
    assert "link-local" in address_problem("169.254.169.254") and "private" in address_problem("10.0.0.1")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"max_pages": 0}, "max_pages=0 is not allowed; allowed: a whole number ≥ 1"),
        ({"delay_s": -1}, "delay_s=-1 is not allowed; allowed: seconds ≥ 0"),
        ({"timeout_s": 0}, "timeout_s=0 is not allowed; allowed: seconds > 0"),
    ],
)
def test_bad_settings_name_what_is_allowed(settings: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CrawlSettings(**settings)  # type: ignore[arg-type]


def test_scope_is_the_start_pages_folder() -> None:
    scope = Scope.of("https://Docs.Example.com/api/guide/intro.html")
    assert scope.root == "https://docs.example.com/api/guide/"
    assert scope.contains("https://docs.example.com/api/guide/auth.html")
    assert not scope.contains("https://docs.example.com/api/other.html")
    with pytest.raises(ConfigError, match="not a web address; allowed: an http:// or https:// URL"):
        Scope.of("ftp://docs.example.com/")


def test_page_links_reads_canonical_next_and_links() -> None:
    html = (b'<link rel="canonical" href="/a.html#top"><link rel="next" href="b.html">'
            b'<a href="c.html#x">c</a><a rel="next" href="d.html">d</a>')
    assert page_links(html, "http://h/docs/x.html") == (
        "http://h/a.html", ["http://h/docs/b.html", "http://h/docs/d.html"], ["http://h/docs/c.html"])


def test_the_fetcher_reports_a_private_hop_instead_of_fetching_it(site: Site) -> None:
    from rag.crawl.fetch import HttpFetcher

    fetcher = HttpFetcher(timeout_s=5, max_bytes=1000, allow_private=False)
    try:
        fetched = fetcher.get(site.docs)
    finally:
        fetcher.close()
    assert fetched.status == 0 and not fetched.body and "a loopback address" in fetched.problem
    assert site.requested == []
