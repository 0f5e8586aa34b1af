"""Fetching one page of a documentation site: the address check, timeouts, a size limit and redirects followed
one hop at a time (so each hop is checked against the crawl's scope and a loop is caught)."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urljoin, urlsplit

import httpx

from rag.errors import ConfigError

MAX_REDIRECTS = 5
USER_AGENT = "SpecRAG-Workbench-crawler/1.0 (+https://github.com/; documentation indexing)"


class PrivateAddressError(ConfigError):
    """A host that resolves to a private, loopback or link-local address (refused without allow_private)."""


@dataclass(frozen=True)
class Fetched:
    """What one request gave: the final URL (after redirects), the status, the content type and the body
    (empty when the page was refused: an error, a redirect loop, too large, not HTML)."""

    url: str
    status: int
    content_type: str = ""
    body: bytes = b""
    problem: str = ""  # why nothing usable came back ("redirect loop", "404", "too large (…)")
    location: str = ""  # where a redirect points


class Fetcher(Protocol):
    """Gets one URL (following redirects); never raises for an HTTP or network problem, it reports it."""

    def get(self, url: str) -> Fetched: ...


def address_problem(host: str) -> str:
    """Why a host may not be crawled without allow_private ("" when it is public): a private, loopback,
    link-local, reserved or unspecified address, named with what it resolves to."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror as error:
        raise ConfigError(f"cannot resolve the host {host!r} ({error.strerror})") from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        kinds = [name for name, flag in (("loopback", address.is_loopback), ("link-local", address.is_link_local),
                                         ("private", address.is_private), ("reserved", address.is_reserved),
                                         ("unspecified", address.is_unspecified)) if flag]
        if kinds:
            return f"{host} resolves to {address}, a {kinds[0]} address"
    return ""


def check_address(host: str, allow_private: bool) -> None:
    """Raise PrivateAddressError for a private, loopback or link-local host unless `allow_private`."""
    if allow_private:
        return
    problem = address_problem(host)
    if problem:
        raise PrivateAddressError(
            f"{problem}; crawling private, loopback and link-local addresses is refused unless --allow-private "
            "is given (allow_private=True in Python)"
        )


class HttpFetcher:
    """`Fetcher` over httpx: a timeout per request, at most `max_bytes` read per page, redirects followed by hand
    (at most MAX_REDIRECTS; a URL seen twice is a loop), each hop's host checked unless `allow_private`."""

    def __init__(self, timeout_s: float, max_bytes: int, allow_private: bool, user_agent: str = USER_AGENT) -> None:
        self.max_bytes = max_bytes
        self.allow_private = allow_private
        self.client = httpx.Client(timeout=timeout_s, follow_redirects=False, headers={"User-Agent": user_agent})
        self._checked: set[str] = set()

    def close(self) -> None:
        """Close the connection pool."""
        self.client.close()

    def get(self, url: str) -> Fetched:
        """Fetch `url`; see the class docstring."""
        seen = [url]
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            host = urlsplit(current).hostname or ""
            if host not in self._checked:
                try:
                    check_address(host, self.allow_private)
                except ConfigError as error:  # e.g. a public page redirecting to a private address
                    return Fetched(current, 0, problem=str(error))
                self._checked.add(host)
            try:
                fetched = self._one(current)
            except httpx.HTTPError as error:
                return Fetched(current, 0, problem=f"{type(error).__name__}: {error}")
            if fetched.status not in (301, 302, 303, 307, 308):
                return fetched
            target = urljoin(current, fetched.location)
            if target in seen:
                return Fetched(current, fetched.status, problem="redirect loop: " + " → ".join([*seen, target]))
            seen.append(target)
            current = target
        return Fetched(current, 0, problem=f"more than {MAX_REDIRECTS} redirects")

    def _one(self, url: str) -> Fetched:
        """One request (a redirect is returned with its Location, not followed)."""
        with self.client.stream("GET", url) as response:
            if response.is_redirect:
                return Fetched(url, response.status_code, location=response.headers.get("location", ""))
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if response.status_code != 200:
                return Fetched(url, response.status_code, content_type, problem=f"HTTP {response.status_code}")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                return Fetched(url, 200, content_type, problem=f"too large ({int(declared):,} bytes; the limit is "
                                                               f"{self.max_bytes:,})")
            body = bytearray()
            for piece in response.iter_bytes():
                body.extend(piece)
                if len(body) > self.max_bytes:
                    return Fetched(url, 200, content_type,
                                   problem=f"too large (over {self.max_bytes:,} bytes, the limit)")
            return Fetched(url, 200, content_type, bytes(body))
