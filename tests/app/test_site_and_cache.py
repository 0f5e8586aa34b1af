"""The app's "Add a documentation site" and "Add a spec by URL" (Documents page) and the `cached` badge of a
repeated question (home)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.cache import CacheSettings, QueryCache
from tests.app.test_app import ask, assert_ok, badges, open_app
from tests.conftest import FIXTURES, Served
from tests.crawl.conftest import served_site

pytestmark = pytest.mark.app


def test_a_documentation_site_is_crawled_and_listed(app_engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with served_site(tmp_path) as site:
        at = open_app("pages/1_Documents.py")
        at.text_input(key="crawl_url").input(site.docs).run()
        at.button(key="crawl_button").click().run()
        assert_ok(at)
        assert any("“Allow private, loopback and link-local addresses” is ticked" in e.value for e in at.error)
        assert app_engine.index.documents()[0].source == "people-3.1.json" and len(app_engine.index.documents()) == 2

        at.checkbox(key="crawl_allow_private").check().run()
        at.button(key="crawl_button").click().run()
        assert_ok(at)
    sources = {record.source for record in app_engine.index.documents()}
    assert f"{site.url}/docs/guide/webhooks.html" in sources and len(sources) == 6
    captions = [c.value for c in at.caption]
    assert any("4 page(s) — 4 added, 0 re-indexed, 0 unchanged, 0 removed, 0 failed" in c for c in captions), captions
    assert any("guide/webhooks.html" in s.value and "added" in s.value for s in at.success)
    assert not at.error


def test_a_site_crawled_under_a_name_is_cited_by_page_url_and_section(app_engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with served_site(tmp_path, FIXTURES / "docs_sites" / "acme") as site:
        at = open_app("pages/1_Documents.py")
        at.text_input(key="crawl_url").input(f"{site.url}/docs/")
        at.text_input(key="crawl_name").input("acme")
        at.checkbox(key="crawl_allow_private").check().run()
        at.button(key="crawl_button").click().run()
        assert_ok(at)
    assert {r.api for r in app_engine.index.documents() if r.source.startswith(site.url)} == {"acme"}
    home = ask(open_app(), "What is the rate limit?", ["C2"])
    page = f"{site.url}/docs/rate-limits.html"
    assert any(e.label.replace("\\", "") == f"[1] Rate limits — {page}" for e in home.expander), [
        e.label for e in home.expander]
    assert any(f"Rate limits — {page}" in m.value.replace("\\", "") and "**1**" in m.value for m in home.markdown)
    assert any(m.value.startswith("Each API key may make 100 requests per minute") for m in home.markdown)


def test_a_spec_by_url_is_fetched_from_the_documents_page(app_engine, served: Served) -> None:  # type: ignore[no-untyped-def]
    url = served.write("pets.json", (FIXTURES / "specs" / "swagger-2.0.json").read_text())
    at = open_app("pages/1_Documents.py")
    at.text_input(key="spec_url").input(url).run()
    at.button(key="spec_url_button").click().run()
    assert_ok(at)
    assert any("a loopback address" in e.value and "“Allow private, loopback and link-local addresses” is ticked"
               in e.value for e in at.error), [e.value for e in at.error]
    assert served.requested == [] and len(app_engine.index.documents()) == 2
    at.checkbox(key="spec_url_allow_private").check().run()
    at.button(key="spec_url_button").click().run()
    assert_ok(at)
    assert any(f"{url} → pets: added" in s.value and "converted from Swagger 2.0 to OpenAPI 3.0" in s.value
               for s in at.success), [s.value for s in at.success]
    at.button(key="spec_url_button").click().run()
    assert any("unchanged: the content is that of version 1" in i.value for i in at.info), [i.value for i in at.info]
    assert url in {record.source for record in app_engine.index.documents()}


def test_a_repeated_question_shows_the_cached_badge(app_engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app_engine.cache = QueryCache(CacheSettings(tmp_path / "cache.sqlite3"))
    at = open_app()
    question = "What is the page_size parameter of list orders?"
    ask(at, question, ["C0", "full"])
    assert not any("cached" in badge for badge in badges(at))
    next(b for b in at.button if b.label == "New conversation").click().run()  # the same question, no history
    ask(at, question, ["C0", "full"])
    assert sum("cached" in badge for badge in badges(at)) == 2, badges(at)
