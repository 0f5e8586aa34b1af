"""A crawled documentation site as a first-class source: one API named after the site, each section with its page's
URL and heading path, no navigation as evidence, answers that lead with the sentence stating the fact and cite the
page by URL (the CLI, results, MCP), and a refused address refused before anything is loaded or written.

The sites (tests/fixtures/docs_sites) put navigation on every page (menus, breadcrumbs, "Next:" links, a table of
contents, permalinks): `acme` states its API key header, rate limit and webhook signature header in one set of
words, `globex` and `initech` in others (tokens, throttling, quotas, callbacks; a sibling section titled "Signature
header"), so a lead fitted to one site's words fails on another."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.config import PRESETS, Config
from rag.crawl.crawler import CrawlSettings
from rag.crawl.fetch import PrivateAddressError
from rag.crawl.site_index import crawl_site
from rag.index.store import Index
from rag.results import AnswerResult
from rag.runner import Engine
from tests.conftest import FIXTURES
from tests.crawl.conftest import Site, served_site
from tests.ingest.test_clean_text import MARKUP
from tests.processes import rag_cli

SITES = FIXTURES / "docs_sites"
FAST = CrawlSettings(delay_s=0, timeout_s=10, allow_private=True)
# (site, start page, question, the page and words the first two lines state, words they must not state)
FACTS = [
    ("acme", "docs/", "Which header carries the API key?", "docs/authentication.html", "X-Acme-Key", "Signature"),
    ("acme", "docs/", "What is the rate limit?", "docs/rate-limits.html", "100 requests per minute", "Signature"),
    ("globex", "guide/index.html", "Which header carries the API key?", "guide/auth.html", "Globex-Token", "Hmac"),
    ("globex", "guide/index.html", "What is the rate limit?", "guide/throttling.html", "600 calls per hour", "Hmac"),
    ("initech", "developers/", "Which header carries the API key?", "developers/getting-started.html",
     "Authorization: Bearer", "Signature"),
    ("initech", "developers/", "What is the rate limit?", "developers/limits.html", "5,000 requests per day",
     "Signature"),
]
NAVIGATION = ("Next:", "Privacy", "Terms", "Docs / Guides", "On this page", "» ", "« Previous", "Home", "¶")


def lead_lines(result: AnswerResult) -> list[str]:
    return [line for line in result.answer.splitlines() if line.strip()][:2]


def cited_url(result: AnswerResult, line: str) -> str:
    """The URL of the citation a line's `[n]` names."""
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", line)}
    return next((c.url for c in result.citations if c.number in numbers), "")


@pytest.fixture(params=["acme", "globex", "initech"])
def crawled(request: pytest.FixtureRequest, tmp_path: Path, empty_index: Index) -> Iterator[tuple[Site, Index]]:
    """A fixture site served and crawled into an index with the hashing embedder."""
    with served_site(tmp_path, SITES / request.param) as site:
        start = {"acme": "docs/", "globex": "guide/index.html", "initech": "developers/"}[request.param]
        report = crawl_site(empty_index, f"{site.url}/{start}", FAST)
        assert report.reports and not report.count("error"), report.summary()
        yield site, empty_index


def test_a_site_is_one_api_whose_sections_carry_their_page_and_heading_path(crawled: tuple[Site, Index]) -> None:
    site, index = crawled
    chunks = list(index.snapshot().chunks.values())
    assert {c.api for c in chunks} == {"127-0-0-1"} and {r.api for r in index.documents()} == {"127-0-0-1"}
    assert len(index.documents()) >= 4  # one document per page
    for chunk in chunks:
        assert chunk.source.startswith(f"{site.url}/") and chunk.section_path
        assert chunk.covers[0].startswith("127-0-0-1.doc.") and chunk.text.startswith(chunk.section_path)
        assert not MARKUP.search(chunk.text), chunk.text
        assert not [word for word in NAVIGATION if word in chunk.text], chunk.text


@pytest.mark.parametrize(("name", "start", "question", "page", "fact", "not_this"), FACTS,
                         ids=[f"{row[0]}: {row[2]}" for row in FACTS])
def test_the_first_two_lines_state_the_fact_cited_by_the_pages_url(
        tmp_path: Path, empty_index: Index, name: str, start: str, question: str, page: str, fact: str,
        not_this: str) -> None:
    with served_site(tmp_path, SITES / name) as site:
        crawl_site(empty_index, f"{site.url}/{start}", FAST)
        result = Engine(empty_index, default_llm="extractive").run(question, PRESETS["C2"])
    assert_states(result, f"{site.url}/{page}", fact, not_this)


def assert_states(result: AnswerResult, url: str, fact: str, not_this: str) -> None:
    """The first two lines state `fact` (and not `not_this`), cite the page `url`, and say its URL."""
    first, second = lead_lines(result)
    assert fact in first and not_this not in "\n".join([first, second]), result.answer
    assert cited_url(result, first) == url and url in second, result.answer
    assert not MARKUP.search(result.answer)


def test_the_command_line_cites_a_page_by_its_url_and_section(tmp_path: Path) -> None:
    with served_site(tmp_path, SITES / "acme") as site:
        index = tmp_path / "index"
        crawled = rag_cli("crawl", f"{site.url}/docs/", "--allow-private", "--delay", "0", "--name", "acme",
                          index=index, timeout=300)
        assert crawled.returncode == 0, crawled.stderr
        assert f"added    {site.url}/docs/rate-limits.html [acme]" in crawled.stdout
        asked = rag_cli("ask", "What is the rate limit?", "--configs", "C2", index=index, timeout=300)
    assert asked.returncode == 0, asked.stderr
    assert f"  [1] Rate limits — {site.url}/docs/rate-limits.html" in asked.stdout, asked.stdout
    assert f"1. Rate limits — {site.url}/docs/rate-limits.html" in asked.stdout  # the chunk list too
    assert "acme.doc." not in asked.stdout  # no chunk id stands for a page


def test_a_private_address_is_refused_before_a_model_loads_or_a_folder_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import rag.index.build
    from rag.cli import main

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the refusal must come before this")

    monkeypatch.setattr(rag.index.build, "load_embedder", never)
    monkeypatch.setattr(rag.index.build, "Index", never)
    folder = tmp_path / "new-index"
    assert main(["crawl", "http://127.0.0.1:9/docs/", "--index-dir", str(folder)]) == 2
    assert "127.0.0.1, a loopback address" in capsys.readouterr().err
    assert not folder.exists()
    assert rag_cli("crawl", "http://localhost:9/docs/", index=folder).returncode == 2 and not folder.exists()


def test_crawl_site_refuses_a_private_address_before_fetching(empty_index: Index) -> None:
    with pytest.raises(PrivateAddressError, match="unless --allow-private"):
        crawl_site(empty_index, "http://10.0.0.7/docs/", CrawlSettings(delay_s=0))
    assert empty_index.is_empty()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "start", "question", "page", "fact", "not_this"), FACTS,
                         ids=[f"{row[0]}: {row[2]}" for row in FACTS])
def test_full_with_the_real_model_states_the_fact_first(
        tmp_path: Path, name: str, start: str, question: str, page: str, fact: str, not_this: str) -> None:
    """The issue's done-when, with `full` (its gate and reranker) on the packaged embedder."""
    from rag.index.build import open_index
    from rag.settings import Settings
    from tests.conftest import ONNX_DIR

    index = open_index(Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", onnx_dir=ONNX_DIR))
    config: Config = PRESETS["full"]
    with served_site(tmp_path, SITES / name) as site:
        crawl_site(index, f"{site.url}/{start}", FAST)
        result = Engine(index, default_llm="extractive").run(question, config)
    assert not result.abstained, result.answer
    assert_states(result, f"{site.url}/{page}", fact, not_this)
