"""A spec by URL (rag/crawl/spec_url.py, rag/index/build.py `ingest_fetched_spec`): fetched from a server on
127.0.0.1 (allowed only with allow_private, as the crawler's tests do), refused before anything is fetched or any
index opened for a private address, a new version when it changed, "unchanged" when it did not; the command line,
the REST API and a crawled site that links to a spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import main
from rag.crawl.crawler import CrawlSettings
from rag.crawl.fetch import PrivateAddressError
from rag.crawl.site_index import crawl_site
from rag.crawl.spec_url import fetch_spec, spec_file_name, url_api_name
from rag.errors import ConfigError, IngestError
from rag.index.build import ingest_fetched_spec
from rag.index.store import Index
from rag.index.versions import versions_of
from rag.versions.compare import diff_sides
from tests.conftest import FIXTURES, Served
from tests.crawl.conftest import Site

PETS = json.loads((FIXTURES / "specs" / "swagger-2.0.json").read_text())




def newer(document: dict) -> dict:
    """The pets spec with one more operation and a new info.version."""
    changed = json.loads(json.dumps(document))
    changed["info"]["version"] = "2"
    changed["paths"]["/pets/{id}"] = {"delete": {"parameters": [{"name": "id", "in": "path", "type": "string"}],
                                                 "responses": {"204": {"description": "gone"}}}}
    return changed


def test_a_private_address_is_refused_before_any_request(served: Served) -> None:
    url = served.write("pets.json", PETS)
    with pytest.raises(PrivateAddressError, match=r"127\.0\.0\.1 resolves to 127\.0\.0\.1, a loopback address"):
        fetch_spec(url)
    with pytest.raises(ConfigError, match="not a web address; allowed: an http:// or https:// URL"):
        fetch_spec("file:///etc/passwd")
    assert served.requested == []


def test_fetched_again_a_spec_is_unchanged_or_a_new_version(served: Served, empty_index: Index) -> None:
    url = served.write("pets.json", PETS)
    first = ingest_fetched_spec(empty_index, fetch_spec(url, allow_private=True))
    assert (first.status, first.source, first.api) == ("added", url, "pets")
    assert "converted from Swagger 2.0 to OpenAPI 3.0" in first.message
    again = ingest_fetched_spec(empty_index, fetch_spec(url, allow_private=True))
    assert again.status == "skipped" and again.message == "unchanged: the content is that of version 1"
    served.write("pets.json", newer(PETS))
    changed = ingest_fetched_spec(empty_index, fetch_spec(url, allow_private=True))
    assert changed.status == "added" and "version 2 kept beside 1 other(s)" in changed.message
    assert [r.api_version for r in versions_of(empty_index.documents(), "pets")] == ["1", "2"]
    diff = diff_sides("pets@1", "pets@2", empty_index)
    assert diff.added_operations == ["DELETE /pets/{id}"]
    same_again = ingest_fetched_spec(empty_index, fetch_spec(url, allow_private=True))
    assert same_again.status == "skipped" and "version 2" in same_again.message
    unchanged_label = served.write("pets.json", {**newer(PETS), "x-note": "same version, new content"})
    dated = ingest_fetched_spec(empty_index, fetch_spec(unchanged_label, allow_private=True))
    assert dated.status == "added" and len(versions_of(empty_index.documents(), "pets")) == 3


def test_a_spec_by_url_can_set_its_naive_chunks_aside(served: Served, empty_index: Index) -> None:
    url = served.write("pets.json", PETS)
    report = ingest_fetched_spec(empty_index, fetch_spec(url, allow_private=True), defer=("naive",))
    assert report.status == "added" and report.pending == ("naive",)
    assert [work.part for work in empty_index.pending()] == ["naive"]
    assert empty_index.complete_pending() == report.chunk_counts["naive"] and empty_index.pending() == []


@pytest.mark.parametrize(("name", "body", "problem"), [
    ("missing.json", None, "cannot fetch the spec: HTTP 404"),
    ("page.html", "<html><body>Docs</body></html>", "returned an HTML page, not a spec"),
    ("config.yaml", "name: service\nport: 8080\n", "not an OpenAPI document: missing 'openapi'"),
])
def test_a_bad_url_says_why_and_adds_nothing(served: Served, empty_index: Index, name: str, body: str | None,
                                             problem: str) -> None:
    url = served.write(name, body) if body is not None else f"{served.url}/{name}"
    try:
        report = ingest_fetched_spec(empty_index, fetch_spec(url, allow_private=True))
    except IngestError as error:
        message = str(error)
    else:
        assert report.status == "error"
        message = report.message
    assert message.startswith(url) and problem in message, message
    assert empty_index.is_empty()


def test_a_spec_over_the_size_limit_is_refused(served: Served) -> None:
    url = served.write("big.json", {**PETS, "x-padding": "x" * 5000})
    with pytest.raises(IngestError, match=r"cannot fetch the spec: too large"):
        fetch_spec(url, allow_private=True, max_bytes=1000)


def test_names_of_specs_by_url() -> None:
    assert spec_file_name("https://h/specs/slack_web.json", "", b"{}") == "slack_web.json"
    assert spec_file_name("https://h/v1/openapi", "application/json", b"{}") == "openapi.json"
    assert spec_file_name("https://h/v1/spec", "text/plain", b"openapi: 3.0.0") == "spec.yaml"
    assert url_api_name("https://api.stripe.com/openapi.json", "openapi.json") == "stripe"
    assert url_api_name("https://h/specs/slack_web.json", "slack_web.json") == "slack_web"


def test_the_command_line_refuses_a_private_address_before_opening_an_index(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "hashing")
    url = served.write("pets.json", PETS)
    index_dir = tmp_path / "index"
    assert main(["ingest", url, "--index-dir", str(index_dir)]) == 2
    error = capsys.readouterr().err
    assert "a loopback address; fetching from private, loopback and link-local addresses is refused unless " \
           "--allow-private is given" in error
    assert not index_dir.exists() and served.requested == []
    assert main(["ingest", url, "--allow-private", "--index-dir", str(index_dir)]) == 0
    out = capsys.readouterr().out
    assert f"added    {url} [pets]" in out and "converted from Swagger 2.0 to OpenAPI 3.0" in out
    assert main(["ingest", url, "--allow-private", "--index-dir", str(index_dir)]) == 0
    assert "unchanged: the content is that of version 1" in capsys.readouterr().out
    assert main(["ingest", f"{served.url}/gone.json", "--allow-private", "--index-dir", str(index_dir)]) == 2
    assert "gone.json: cannot fetch the spec: HTTP 404" in capsys.readouterr().err


def test_a_crawled_site_indexes_the_spec_it_links_to(site: Site, empty_index: Index) -> None:
    (site.folder / "docs" / "openapi.json").write_text(json.dumps(PETS))
    page = site.folder / "docs" / "index.html"
    page.write_text(page.read_text().replace("<li><a", '<li><a href="openapi.json">API reference</a></li><li><a', 1))
    report = crawl_site(empty_index, site.docs, CrawlSettings(delay_s=0, allow_private=True))
    spec = next(r for r in report.reports if r.source == f"{site.url}/docs/openapi.json")
    assert spec.status == "added" and "converted from Swagger 2.0" in spec.message
    record = next(r for r in empty_index.documents() if r.source == spec.source)
    assert record.doc_type == "openapi" and f"{record.api}.paths./pets.get" in empty_index.structural_ids()
