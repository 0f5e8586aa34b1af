"""The fixture documentation site (tests/fixtures/docs_site) served by `http.server` on a free loopback port."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

REDIRECTS = {"/docs/loop-a.html": "/docs/loop-b.html", "/docs/loop-b.html": "loop-a.html"}  # a loop


class SiteHandler(SimpleHTTPRequestHandler):
    """Files from the site's folder, plus the redirect loop; every request path is recorded."""

    requested: list[str]

    def do_GET(self) -> None:
        self.requested.append(self.path)
        target = REDIRECTS.get(self.path.split("?", 1)[0])
        if target:
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Site:
    """A served copy of the fixture site: its folder (edit it to change the site), URL and the paths asked for."""

    folder: Path
    url: str
    requested: list[str]

    @property
    def docs(self) -> str:
        """The documentation's start page."""
        return f"{self.url}/docs/"


@contextmanager
def served_site(tmp_path: Path, fixture: Path = FIXTURES / "docs_site") -> Iterator[Site]:
    """A copy of a fixture site (tests/fixtures/docs_site, or one of tests/fixtures/docs_sites) under `tmp_path`,
    served on 127.0.0.1 (a free port) meanwhile."""
    folder = tmp_path / "site"
    shutil.copytree(fixture, folder)
    requested: list[str] = []
    handler = type("Handler", (SiteHandler,), {"requested": requested})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(folder, f"http://127.0.0.1:{server.server_address[1]}", requested)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    """The fixture site served until the test ends (`served_site`)."""
    with served_site(tmp_path) as served:
        yield served

