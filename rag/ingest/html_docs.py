"""Chunk HTML documentation: sections at h1-h6 headings, each cut into word windows."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bs4 import BeautifulSoup
from bs4.element import CData, NavigableString, PreformattedString, Tag

from rag.chunk import Chunk
from rag.errors import IngestError
from rag.ingest.clean_text import code_span, drop_navigation
from rag.ingest.doc_parts import (
    WINDOW_OVERLAP_WORDS,
    WINDOW_WORDS,
    DocPart,
    DocSection,
    base_name,
    doc_name_from_source,
    section_chunks,
    word_windows,
)

_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
CODE_TAGS = ("code", "kbd", "samp", "tt")
CELL_SEPARATOR = " | "  # between a table row's cells
_DROPPED_TAGS = ("script", "style", "noscript", "template", "head")
_PARAGRAPH_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "details", "dialog", "dl", "fieldset", "figure", "footer",
        "form", "header", "hr", "main", "nav", "ol", "p", "pre", "section", "table", "ul",
    }
)  # fmt: skip
_LINE_TAGS = frozenset({"body", "caption", "dd", "div", "dt", "figcaption", "html", "li", "summary", "tr"})
_CELL_TAGS = frozenset({"td", "th"})
_TAG_BREAKS: dict[str, str] = {
    **dict.fromkeys(_PARAGRAPH_TAGS, "paragraph"),
    **dict.fromkeys(_LINE_TAGS, "line"),
    **dict.fromkeys(_CELL_TAGS, "cell"),
}



@dataclass
class _HtmlSection:
    title: str
    path: tuple[str, ...]
    depth: int
    pieces: list[str] = field(default_factory=list)
    has_text: bool = False
    has_code: bool = False  # the section holds a <pre> block (set for the whole section, not per window)

    def add(self, piece: str, preformatted: bool) -> None:
        """Append text; outside <pre>, whitespace runs collapse as a browser would show them."""
        if not preformatted:
            piece = re.sub(r"\s+", " ", piece)
            if not self.pieces or self.pieces[-1][-1:] in ("\n", " "):
                piece = piece.lstrip(" ")
        if piece:
            self.pieces.append(piece)

    def newlines(self, count: int) -> None:
        """End the current line, leaving `count` line breaks (2: a blank line) unless already there."""
        if not self.pieces:
            return
        tail = "".join(self.pieces[-4:]).rstrip(" ")
        have = len(tail) - len(tail.rstrip("\n"))
        if have < count:
            self.pieces.append("\n" * (count - have))

    def text(self) -> str:
        lines = [line.rstrip().removesuffix(CELL_SEPARATOR.rstrip()).rstrip()
                 for line in "".join(self.pieces).split("\n")]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _is_text_node(node: object) -> bool:
    """Visible text: plain strings and CDATA, not comments, doctypes, declarations or processing instructions."""
    return isinstance(node, NavigableString) and (not isinstance(node, PreformattedString) or isinstance(node, CData))


def _html_sections(text: str, fallback_title: str) -> list[_HtmlSection]:
    soup = BeautifulSoup(text, "html.parser")
    title_tag = soup.find("title")
    doc_title = " ".join(title_tag.get_text(" ").split()) if isinstance(title_tag, Tag) else ""
    for tag in soup.find_all(_DROPPED_TAGS):
        if not tag.decomposed:
            tag.decompose()
    drop_navigation(soup)  # menus, breadcrumbs, "Next: …" links: no evidence of anything

    sections = [_HtmlSection(title=doc_title or fallback_title, path=(), depth=0)]
    trail: list[tuple[int, str]] = []

    # An explicit stack instead of recursion: deeply nested HTML must not hit the recursion limit.
    stack: list[tuple[object, str, bool]] = [(soup, "", False)]  # (node, "" or the end-tag action, inside <pre>)
    while stack:
        node, closing, preformatted = stack.pop()
        if closing == "cell":
            sections[-1].add(CELL_SEPARATOR, False)
            continue
        if closing:
            sections[-1].newlines(2 if closing == "paragraph" else 1)
            continue
        if _is_text_node(node):
            piece = str(node)
            if piece.strip():
                sections[-1].has_text = True
            sections[-1].add(piece, preformatted)
            continue
        if not isinstance(node, Tag):
            continue
        if node.name in _HEADING_TAGS:
            heading = " ".join(node.get_text(" ").split())
            if heading:
                level = int(node.name[1])
                while trail and trail[-1][0] >= level:
                    trail.pop()
                trail.append((level, heading))
                sections.append(_HtmlSection(heading, tuple(t for _, t in trail), level, [heading, "\n\n"]))
                continue
        if node.name == "br":
            sections[-1].add("\n", True)
            continue
        if node.name in CODE_TAGS and not preformatted:
            sections[-1].add(code_span(node.get_text()), True)  # inline code stays code: in backticks
            continue
        if node.name == "pre":
            sections[-1].has_code = True
        action = _TAG_BREAKS.get(node.name, "")
        if action in ("paragraph", "line"):
            sections[-1].newlines(2 if action == "paragraph" else 1)
        if node.name == "li":
            sections[-1].add("- ", True)
        if action:
            stack.append((node, action, preformatted))
        inside_pre = preformatted or node.name == "pre"
        stack.extend((child, "", inside_pre) for child in reversed(node.contents))
    return sections


def _windowed(section: _HtmlSection) -> DocSection:
    """A section cut into ~500-word windows (each marked as holding code when the section has a <pre>)."""
    body = section.text()
    windows = word_windows(body, WINDOW_WORDS, WINDOW_OVERLAP_WORDS)
    parts = tuple(DocPart(body[first:end], section.has_code) for first, end, _, _ in windows)
    return DocSection(section.title, section.path, section.depth, parts, section.has_text)


def chunk_html(source: str, text: str, api: str | None = None, page: str = "") -> list[Chunk]:
    """Chunk HTML (stdlib `html.parser`) into sections at h1-h6, each cut into ~500-word windows.

    `<script>`, `<style>`, `<noscript>`, `<template>` and `<head>` content is dropped; headings stay
    in the text and give each section its breadcrumb. Text before the first heading forms an `intro`
    section named after the page `<title>` (or the file name). Navigation (menus, breadcrumbs, "Next: …" links) is
    left out (`rag.ingest.clean_text.drop_navigation`), inline code kept in backticks, table cells apart (`a | b`).
    A file's chunks carry its base name as source and its name as API; a crawled page passes its URL as `source`,
    the site's API name as `api` and its own name as `page` (the first part of its sections' ids).
    """
    name = source if api is not None else base_name(source)
    if not text.strip():
        raise IngestError(name, "the file is empty")
    api = api if api is not None else doc_name_from_source(name)
    sections = _html_sections(text, base_name(name.split("?", 1)[0].rstrip("/")) or name)
    chunks = section_chunks(api, name, [_windowed(section) for section in sections], page=page)
    if not chunks:
        raise IngestError(name, "has no visible text (only markup, scripts or styles)")
    return chunks
