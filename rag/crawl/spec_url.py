"""A spec by URL (`https://…/openapi.json`): fetched with the crawler's address check, timeout and size limit
(`rag.crawl.fetch`), before any index or model is opened, and named so that ingest reads it as it reads a file."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from rag.crawl.fetch import Fetcher, HttpFetcher, check_address
from rag.errors import ConfigError, IngestError
from rag.ingest.loader import SPEC_EXTENSIONS
from rag.ingest.pipeline import GENERIC_ROOT_NAMES
from rag.ingest.spec import api_name_from_source
from rag.ingest.validate import MAX_UPLOAD_BYTES

DEFAULT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class FetchedSpec:
    """A spec fetched from a URL: the URL asked for, a file name that says its format, and its bytes."""

    url: str
    name: str
    data: bytes


def check_spec_url(url: str, allow_private: bool = False) -> str:
    """The URL stripped, once it is an http(s) address of a host that may be fetched: ConfigError for another
    scheme, no host, or (unless `allow_private`) a private, loopback or link-local address."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{url!r} is not a web address; allowed: an http:// or https:// URL of a spec "
                          "(.json, .yaml or .yml) or of a .zip of a spec split over files")
    check_address(parts.hostname, allow_private)
    return url


def spec_file_name(url: str, content_type: str, data: bytes) -> str:
    """A file name for a fetched spec: the URL's last path segment when it names a spec or a zip, else one
    whose extension says what the content is (`openapi.json` for JSON, `openapi.yaml` for YAML)."""
    name = unquote(posixpath.basename(urlsplit(url).path)).strip()
    if name.lower().endswith((*SPEC_EXTENSIONS, ".zip")):
        return name
    stem = name.rsplit(".", 1)[0] if "." in name else name
    stem = stem or (urlsplit(url).hostname or "spec")
    if data.startswith(b"PK\x03\x04"):
        return f"{stem}.zip"
    if "json" in content_type or data.lstrip()[:1] in (b"{", b"["):
        return f"{stem}.json"
    return f"{stem}.yaml"


def fetch_spec(url: str, allow_private: bool = False, timeout_s: float = DEFAULT_TIMEOUT_S,
               max_bytes: int = MAX_UPLOAD_BYTES, fetcher: Fetcher | None = None) -> FetchedSpec:
    """Fetch a spec (redirects followed one hop at a time, each host checked; at most `max_bytes`, the upload
    limit); IngestError naming the URL and the problem (an HTTP status, a timeout, too large)."""
    url = check_spec_url(url, allow_private)
    own = fetcher is None
    client = fetcher or HttpFetcher(timeout_s, max_bytes, allow_private)
    try:
        fetched = client.get(url)
    finally:
        if own:
            client.close()  # type: ignore[attr-defined]
    if fetched.problem or fetched.status != 200:
        raise IngestError(url, f"cannot fetch the spec: {fetched.problem or f'HTTP {fetched.status}'}")
    if not fetched.body:
        raise IngestError(url, "the URL returned an empty body")
    if fetched.content_type.startswith("text/html") and fetched.body.lstrip()[:1] == b"<":
        raise IngestError(url, "the URL returned an HTML page, not a spec; give the URL of the spec itself (.json, "
                               ".yaml or .yml), or add a documentation site with `rag crawl`")
    return FetchedSpec(url, spec_file_name(fetched.url, fetched.content_type, fetched.body), fetched.body)


def url_api_name(url: str, name: str) -> str:
    """The API name of a spec by URL: its file's (`…/slack_web.json` → `slack_web`), or, when the file's name says
    only "a spec" (`…/openapi.json`), the host's (`api.example.com` → `example`)."""
    api = api_name_from_source(name.removesuffix(".zip"))
    if api not in GENERIC_ROOT_NAMES:
        return api
    labels = [part for part in (urlsplit(url).hostname or "").split(".") if part not in ("www", "api")]
    return api_name_from_source(labels[-2] if len(labels) >= 2 else (labels or [api])[0])
