"""Crawl a documentation website: the pages under one host and path prefix, found from its sitemap.xml when it
has one, else (DocStructRAG's way) from each page's canonical link, `rel=next` and in-prefix links; robots.txt
obeyed; one page per canonical URL; page and depth limits, a polite delay, a timeout and a size limit per page."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

from bs4 import BeautifulSoup
from bs4.element import Tag

from rag.crawl.fetch import USER_AGENT, Fetcher, HttpFetcher, check_address
from rag.errors import ConfigError
from rag.ingest.loader import SPEC_EXTENSIONS, looks_like_openapi

HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True)
class CrawlSettings:
    """Limits of one crawl, checked at construction."""

    max_pages: int = 200
    max_depth: int = 5
    delay_s: float = 0.5
    timeout_s: float = 15.0
    max_bytes: int = 2 * 1024 * 1024
    allow_private: bool = False
    user_agent: str = USER_AGENT

    def __post_init__(self) -> None:
        for name, low in (("max_pages", 1), ("max_depth", 0), ("max_bytes", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{name}={value!r} is not allowed; allowed: a whole number ≥ {low}")
        if not self.delay_s >= 0:
            raise ConfigError(f"delay_s={self.delay_s!r} is not allowed; allowed: seconds ≥ 0")
        if not self.timeout_s > 0:
            raise ConfigError(f"timeout_s={self.timeout_s!r} is not allowed; allowed: seconds > 0")


@dataclass(frozen=True)
class Scope:
    """Which URLs belong to the site: the start URL's scheme, host and port, under its folder."""

    origin: str  # scheme://host[:port]
    prefix: str  # the path every page's path starts with, ending in "/"

    @classmethod
    def of(cls, start_url: str) -> Scope:
        """The scope of a start URL: `https://h/docs/guide/intro.html` → `https://h` under `/docs/guide/`."""
        parts = urlsplit(start_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"{start_url!r} is not a web address; allowed: an http:// or https:// URL")
        path = parts.path or "/"
        prefix = path if path.endswith("/") else path.rsplit("/", 1)[0] + "/"
        return cls(f"{parts.scheme}://{parts.netloc.lower()}", prefix)

    @property
    def root(self) -> str:
        """The URL every page of the site starts with."""
        return self.origin + self.prefix

    def contains(self, url: str) -> bool:
        """Whether a (normalised) URL is a page of the site."""
        return url.startswith(self.root) or url + "/" == self.root


def normalise(url: str, base: str = "") -> str:
    """An absolute URL without its fragment, with a lower-case scheme and host."""
    absolute, _ = urldefrag(urljoin(base, url.strip()) if base else url.strip())
    parts = urlsplit(absolute)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


@dataclass(frozen=True)
class CrawledPage:
    """One page of the site, under its canonical URL."""

    url: str
    html: bytes
    depth: int
    fetched_from: str = ""  # the URL it was fetched from when the canonical differs
    spec: bool = False  # an OpenAPI or Swagger document (JSON or YAML) rather than an HTML page


@dataclass
class CrawlResult:
    """What a crawl found: the pages, every URL it skipped and why, and whether a limit cut it short."""

    scope: Scope
    pages: list[CrawledPage] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # URL → why it was not indexed
    kept: set[str] = field(default_factory=set)  # pages that failed for a passing reason (timeouts, 5xx)
    truncated: str = ""  # which limit stopped the crawl ("" when it saw every page it found)
    used_sitemap: str = ""


Progress = Callable[[int, int, str], None]  # (pages done, pages known, URL)


def robots_for(fetcher: Fetcher, scope: Scope, user_agent: str) -> tuple[RobotFileParser, list[str]]:
    """The site's robots.txt rules (allow everything when it has none) and the sitemaps it names."""
    robots = RobotFileParser()
    fetched = fetcher.get(scope.origin + "/robots.txt")
    lines = fetched.body.decode("utf-8", "replace").splitlines() if fetched.body else []
    robots.parse(lines)
    return robots, list(robots.site_maps() or [])


def sitemap_urls(fetcher: Fetcher, locations: Iterable[str], scope: Scope, limit: int = 20) -> tuple[str, list[str]]:
    """The in-scope page URLs of the first sitemap found (sitemap indexes followed, at most `limit` files)."""
    queue = deque(dict.fromkeys(locations))
    found: list[str] = []
    first = ""
    read = 0
    while queue and read < limit:
        location = queue.popleft()
        fetched = fetcher.get(location)
        read += 1
        if not fetched.body:
            continue
        try:
            root = ET.fromstring(fetched.body)  # noqa: S314 (a size-limited document; no entity expansion in expat)
        except ET.ParseError:
            continue
        for element in root.iter():
            if not element.tag.endswith("loc") or not (element.text or "").strip():
                continue
            url = normalise(element.text or "")
            if root.tag.endswith("sitemapindex"):
                queue.append(url)
            elif scope.contains(url):
                found.append(url)
        if found and not first:
            first = location
    return first, list(dict.fromkeys(found))


def page_links(html: bytes, url: str) -> tuple[str, list[str], list[str]]:
    """A page's canonical URL ("" when none), its `rel=next` targets and every other link, absolute."""
    soup = BeautifulSoup(html, "html.parser")
    canonical = ""
    following: list[str] = []
    links: list[str] = []
    for tag in soup.find_all(["link", "a"], href=True):
        if not isinstance(tag, Tag):
            continue
        rel = {str(value).lower() for value in (tag.get("rel") or [])}
        target = normalise(str(tag["href"]), url)
        if "canonical" in rel and tag.name == "link":
            canonical = canonical or target
        elif "next" in rel:
            following.append(target)
        elif tag.name == "a":
            links.append(target)
    return canonical, following, links


def check_site(start_url: str, settings: CrawlSettings) -> Scope:
    """The scope of the site `start_url` belongs to, once it is known that it may be crawled: ConfigError for
    what is no web address, PrivateAddressError for a private, loopback or link-local host unless
    `settings.allow_private`. Nothing is fetched, so a caller checks this before it loads a model or opens an index."""
    scope = Scope.of(normalise(start_url))
    check_address(urlsplit(scope.origin).hostname or "", settings.allow_private)
    return scope


def crawl(
    start_url: str,
    settings: CrawlSettings | None = None,
    fetcher: Fetcher | None = None,
    progress: Progress | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> CrawlResult:
    """Crawl the site `start_url` belongs to (see the module docstring); PrivateAddressError for a private,
    loopback or link-local host unless `settings.allow_private`."""
    settings = settings or CrawlSettings()
    scope = check_site(start_url, settings)
    own = fetcher is None
    fetcher = fetcher or HttpFetcher(settings.timeout_s, settings.max_bytes, settings.allow_private,
                                     settings.user_agent)
    try:
        return _crawl(normalise(start_url), scope, settings, fetcher, progress, sleep)
    finally:
        if own and isinstance(fetcher, HttpFetcher):
            fetcher.close()


def _crawl(start: str, scope: Scope, settings: CrawlSettings, fetcher: Fetcher, progress: Progress | None,
           sleep: Callable[[float], None]) -> CrawlResult:
    result = CrawlResult(scope)
    robots, named = robots_for(fetcher, scope, settings.user_agent)
    locations = [*named, scope.root + "sitemap.xml", scope.origin + "/sitemap.xml"]
    result.used_sitemap, listed = sitemap_urls(fetcher, locations, scope)
    queue: deque[tuple[str, int]] = deque((url, 0) for url in listed) if listed else deque([(start, 0)])
    queued = {url for url, _ in queue}
    indexed: set[str] = set()  # canonical URLs already taken
    requests = 0
    for url, depth in _drain(queue):
        if len(result.pages) >= settings.max_pages:
            result.truncated = f"the page limit ({settings.max_pages})"
            break
        if not robots.can_fetch(settings.user_agent, url):
            result.skipped[url] = "disallowed by robots.txt"
            continue
        if url in indexed:
            continue
        if requests and settings.delay_s:
            sleep(settings.delay_s)
        requests += 1
        fetched = fetcher.get(url)
        if progress is not None:
            progress(len(result.pages) + 1, len(result.pages) + len(queue) + 1, url)
        if fetched.problem or not fetched.body:
            result.skipped[url] = fetched.problem or "empty page"
            if fetched.status == 0 or fetched.status >= 500:
                result.kept.add(url)  # a passing failure: keep what the index has
            continue
        final = normalise(fetched.url)
        if fetched.content_type not in HTML_TYPES:
            if is_spec(fetched.url, fetched.body) and scope.contains(final) and final not in indexed:
                indexed.update({url, final})
                result.pages.append(CrawledPage(final, fetched.body, depth, spec=True))
            else:
                result.skipped[url] = f"not HTML ({fetched.content_type or 'no content type'})"
            continue
        if not scope.contains(final):
            result.skipped[url] = f"redirected outside the site to {final}"
            continue
        canonical, following, links = page_links(fetched.body, final)
        identity = canonical if canonical and scope.contains(canonical) else final
        if identity in indexed:
            result.skipped[url] = f"the same page as {identity} (canonical)"
            continue
        indexed.update({identity, url, final})
        result.pages.append(CrawledPage(identity, fetched.body, depth, url if url != identity else ""))
        if listed or depth >= settings.max_depth:
            continue  # a sitemap lists every page; the depth limit stops following links
        for target in [*([canonical] if canonical else []), *following, *links]:
            if target in queued:
                continue
            if not scope.contains(target):
                result.skipped.setdefault(target, "outside the site (another host or path prefix)")
                continue
            queued.add(target)
            queue.append((target, depth + 1))
    return result


def is_spec(url: str, body: bytes) -> bool:
    """Whether a fetched non-HTML file is an API spec: named .json, .yaml or .yml, and saying `openapi:` or
    `swagger:` near its start."""
    name = urlsplit(url).path.lower()
    return name.endswith(SPEC_EXTENSIONS) and looks_like_openapi(name, body[:4096].decode("utf-8", "replace"))


def _drain(queue: deque[tuple[str, int]]) -> Iterator[tuple[str, int]]:
    """Pop from the queue until it is empty (it grows while it is read)."""
    while queue:
        yield queue.popleft()
