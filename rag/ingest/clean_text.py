"""Clean text from the markup of descriptions and documentation: the one place that turns CommonMark (what the
OpenAPI specification says descriptions are), the HTML many real specs write in them instead (`<p>`, `<a href>`,
`<code>`, lists, tables, `<!-- theme: info -->` callouts) and the Markdown of documentation files into the text a
reader is shown.

Code spans stay code (in backticks) and code blocks stay fenced; links become their text, images their alt text;
tags, comments, emphasis marks and escape sequences (a literal `\\n` in a doubly escaped spec) go; entities are
decoded. A placeholder written like a tag (`<your API key>`, `/users/<id>`) is no HTML element and is kept; a name
that is no HTML element but is closed in the same text (AWS's `<note>…</note>`, `<important>`, `<replaceable>`,
Stripe's `<currency>100</currency>`) is markup all the same, and goes as an unknown element does. Two
renderings: `clean_prose` (one line: a field's description must stay on its line) and `clean_text` (lines:
paragraphs, `- ` list items, `a | b` table rows, fenced code). Documentation also loses its navigation: a block
of links with at most one word of its own that says anything (`navigation_only`: "Next: Limits", "Authentication |
Webhooks | Limits", a breadcrumb trail), in Markdown (`clean_text(documentation=True)`) and in an HTML page
(`drop_navigation`, which the HTML docs chunker runs, with `<nav>` elements and headings' permalinks).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bs4 import BeautifulSoup
from bs4.element import CData, NavigableString, PreformattedString, Tag
from markdown_it import MarkdownIt
from markdown_it.token import Token

from rag.corpus.vocabulary import function_words

# Every element name of HTML (WHATWG), and the few obsolete ones specs still write: a `<name …>` that is none of
# these is text (a placeholder such as `<your API key>`), not a tag.
HTML_ELEMENTS = frozenset(
    """a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption center cite
    code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure font
    footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main
    map mark menu meta meter nav noscript object ol optgroup option output p param picture pre progress q rp rt
    ruby s samp script search section select slot small source span strike strong style sub summary sup table
    tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr""".split()
)
_CODE_ELEMENTS = frozenset({"code", "kbd", "samp", "tt"})
_DROPPED_ELEMENTS = frozenset({"script", "style", "noscript", "template", "head", "nav"})
_BLOCK_ELEMENTS = frozenset(
    {"address", "article", "aside", "blockquote", "center", "details", "dialog", "div", "dl", "dd", "dt",
     "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
     "main", "ol", "p", "section", "summary", "table", "ul", "caption"}
)  # fmt: skip
_TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][A-Za-z0-9-]*)")
_CLOSING_TAG = re.compile(r"</\s*([A-Za-z][A-Za-z0-9-]*)\s*>")
_ESCAPES = re.compile(r"\\[nrt]")
_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_WORD = re.compile(r"\w")
_WORDS = re.compile(r"[^\W_]+")
# What markup looks like: without any of these a text is only collapsed (the common case, and the fast one).
_MARKUP_HINT = re.compile(r"[<&*_`\[\]#>|~!\\]|^\s*(?:[-+]|\d+[.)])\s|^\s*[=-]{3,}\s*$", re.MULTILINE)
_CLOSING_MARKS = (".", ":", ";", "!", "?", ",")
NAVIGATION_OWN_WORDS = 1  # a block of links with at most this many words of its own is navigation


@dataclass(frozen=True)
class _Block:
    """One rendered block: a paragraph (`text`), a heading, a list item (with its nesting), a table row or code."""

    kind: str
    text: str
    depth: int = 0
    ordinal: int = 0  # an ordered list item's number (0: a bullet)


def clean_prose(value: Any) -> str:
    """A description or summary as one line of clean text ("" for None): markup gone, facts kept."""
    if value is None:
        return ""
    return _clean_prose(str(value))


def clean_description(value: Any) -> tuple[str, str]:
    """A description as one line of clean text (`clean_prose`) and its opening: the first paragraph or list item past
    the headings and code it opens with (Trakt's "#### 📄 Pagination ✨ Extended Info" above "Returns all shows being
    watched right now."), "" for a text of headings and code alone; the text is parsed once for both."""
    if value is None:
        return "", ""
    text = str(value)
    if not _MARKUP_HINT.search(text):
        line = one_line(text)
        return line, line
    text = _unescaped(text)
    blocks = list(_blocks(text, html=True, documentation=False, elements=_elements_of(text)))
    return _joined(blocks), next((block.text for block in blocks if block.kind not in ("heading", "code")), "")


def clean_text(text: str, documentation: bool = False) -> str:
    """Text (Markdown, HTML or plain) as clean lines: paragraphs apart, `- ` list items, `a | b` table rows, fenced
    code kept as it is; with `documentation`, navigation blocks left out (`navigation_only`)."""
    return _clean_text(text, documentation)


def statements_under_headings(text: str) -> list[tuple[str, str, bool]]:
    """The statements of a text (Markdown, HTML or plain: its paragraphs, list items, table rows and blocks of code,
    as `clean_text` renders them) each with the heading it sits under ("" before any) and whether it is code."""
    return list(_statements_under_headings(text))


def navigation_only(own_text: str, link_words: int, page_words: frozenset[str] = frozenset()) -> bool:
    """Whether a block is navigation rather than content: it holds links, and of its own words (those outside the
    links) at most `NAVIGATION_OWN_WORDS` say anything — English function words and the page's own title words (a
    breadcrumb trail ends with the page's name) say nothing: "Next: Limits", "Authentication | Webhooks | Limits",
    "On this page: API keys, Key rotation", "Docs / Guides / Rate limits"."""
    if not link_words:
        return False
    said = [word for word in _WORDS.findall(own_text.lower()) if word not in function_words() | page_words]
    return len(said) <= NAVIGATION_OWN_WORDS


def word_count(text: str) -> int:
    """The words of a text that hold a letter or digit (separators such as `|`, `>` or `→` are none)."""
    return sum(1 for word in text.split() if _WORD.search(word))


def code_span(code: str) -> str:
    """Inline code as a reader writes it: in backticks (more of them when the code holds one)."""
    code = " ".join(code.split())
    if not code:
        return ""
    fence = "``" if "`" in code else "`"
    return f"{fence}{code}{fence}"


def one_line(text: str) -> str:
    """Whitespace runs (line breaks, non-breaking spaces) as one space, trimmed."""
    return _SPACES.sub(" ", text.replace("\r", " ").replace("\n", " ")).strip()


def page_words(soup: Tag) -> frozenset[str]:
    """The lower-case words of an HTML page's `<title>` and first `<h1>`: what names the page itself."""
    named = " ".join(tag.get_text(" ") for tag in (soup.find("title"), soup.find("h1")) if isinstance(tag, Tag))
    return frozenset(_WORDS.findall(named.lower()))


def drop_navigation(soup: Tag) -> None:
    """Remove an HTML page's navigation in place: `<nav>` and `role="navigation"` elements, blocks that are links
    and hardly a word of their own (`navigation_only`), and headings' permalinks (a `#` or `¶` link). A block
    holding a heading or code stays (a heading's permalink is a link too)."""
    for heading in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        for link in heading.find_all("a") if isinstance(heading, Tag) else []:
            if isinstance(link, Tag) and not _WORD.search(link.get_text()):
                link.decompose()
    for element in soup.find_all(attrs={"role": "navigation"}):
        if isinstance(element, Tag) and not element.decomposed:
            element.decompose()
    named = page_words(soup)
    candidates = [tag for tag in soup.find_all(["nav", "p", "li", "ul", "ol", "div", "header", "footer", "aside",
                                                "section", "span", "td", "tr", "table"]) if isinstance(tag, Tag)]
    for tag in candidates:  # outermost first: a menu goes whole, not item by item leaving its unlinked words
        if tag.decomposed:
            continue
        if tag.name == "nav":
            tag.decompose()
            continue
        if tag.find("a") is None or tag.find(["h1", "h2", "h3", "h4", "h5", "h6", "pre", "code"]) is not None:
            continue
        links = [link for link in tag.find_all("a") if isinstance(link, Tag)]
        inside = sum(word_count(link.get_text(" ")) for link in links)
        if inside and navigation_only(_own_text(tag), inside, named):
            tag.decompose()


def _own_text(tag: Tag) -> str:
    """An element's text outside its links."""
    return " ".join(str(text) for text in tag.find_all(string=True) if text.find_parent("a") is None)


# --- Markdown -------------------------------------------------------------------------------------------------


def _elements_of(text: str) -> frozenset[str]:
    """The element names markup in a text may use: HTML's, and any other name the text closes (`</note>`): a
    placeholder (`<id>`, `<your API key>`) is never closed."""
    closed = {name.lower() for name in _CLOSING_TAG.findall(text)} - HTML_ELEMENTS
    return HTML_ELEMENTS | closed if closed else HTML_ELEMENTS


@lru_cache(maxsize=64)
def _not_a_tag(elements: frozenset[str]) -> re.Pattern[str]:
    """A `<` that opens no comment, CDATA or tag of `elements` (it is text: escaped before HTML is parsed)."""
    names = "|".join(re.escape(name) for name in sorted(elements, key=len, reverse=True))
    return re.compile(r"<(?!!--|!\[CDATA\[|/?\s*(?:" + names + r")(?![A-Za-z0-9-]))", re.IGNORECASE)


@lru_cache(maxsize=2)
def _parser(html: bool) -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": html}).enable(["table", "strikethrough"])


@lru_cache(maxsize=65536)
def _clean_prose(text: str) -> str:
    if not _MARKUP_HINT.search(text):
        return one_line(text)
    text = _unescaped(text)
    return _joined(list(_blocks(text, html=True, documentation=False, elements=_elements_of(text))))


@lru_cache(maxsize=4096)
def _clean_text(text: str, documentation: bool) -> str:
    text = _unescaped(text)
    blocks = list(_blocks(text, html=True, documentation=documentation, elements=_elements_of(text)))
    lines: list[str] = []
    previous = ""
    for block in blocks:
        if lines and (block.kind not in ("item", "row") or block.kind != previous):
            lines.append("")
        if block.kind == "code":
            lines.extend(["```", block.text, "```"])
        elif block.kind == "item":
            lines.append("  " * block.depth + (f"{block.ordinal}. " if block.ordinal else "- ") + block.text)
        else:
            lines.append(block.text)
        previous = block.kind
    return "\n".join(lines).strip("\n")


@lru_cache(maxsize=256)
def _statements_under_headings(text: str) -> tuple[tuple[str, str, bool], ...]:
    found: list[tuple[str, str, bool]] = []
    heading = ""
    text = _unescaped(text)
    for block in _blocks(text, html=True, documentation=False, elements=_elements_of(text)):
        if block.kind == "heading":
            heading = block.text
        else:
            found.append((heading, block.text, block.kind == "code"))
    return tuple(found)


def _unescaped(text: str) -> str:
    """A doubly escaped text (literal `\\n` and no real line break) with its line breaks back."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" not in text and "\\n" in text:
        text = text.replace("\\n", "\n").replace("\\t", " ")
    return text


def _joined(blocks: list[_Block]) -> str:
    """Blocks as one line: list items and table rows joined by `; `, a block that ends without a mark closed by one
    when another follows, code blocks as code spans."""
    parts: list[str] = []
    for index, block in enumerate(blocks):
        text = code_span(block.text) if block.kind == "code" else block.text
        if block.kind == "heading":  # a heading is a sentence of its own: "### Description:" reads "Description."
            text = text.rstrip(":").rstrip()
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if following is None:  # a list or table that ends the text is closed, so what follows reads apart
            parts.append(text + ("." if block.kind in ("item", "row") and not text.endswith(_CLOSING_MARKS) else ""))
        elif block.kind in ("item", "row") and following.kind == block.kind:
            parts.append(text + ("" if text.endswith(_CLOSING_MARKS) else ";"))
        else:
            parts.append(text if text.endswith(_CLOSING_MARKS) else text + ("." if block.kind != "code" else ""))
    return one_line(" ".join(part for part in parts if part))


def _blocks(text: str, html: bool, documentation: bool, elements: frozenset[str]) -> Iterator[_Block]:
    """The blocks of a Markdown text (HTML blocks converted and read as Markdown again); a tag names one of
    `elements` or is text."""
    lists: list[list[int]] = []  # per open list: [ordered, next number]
    item_opened = heading = False
    row: list[str] | None = None
    for token in _parser(html).parse(text):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists.append([kind == "ordered_list_open", int(token.attrGet("start") or 1)])
        elif kind in ("bullet_list_close", "ordered_list_close") and lists:
            lists.pop()
        elif kind == "list_item_open":
            item_opened = True
        elif kind in ("heading_open", "heading_close"):
            heading = kind == "heading_open"
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close" and row is not None:
            if any(row):
                yield _Block("row", " | ".join(row))
            row = None
        elif kind in ("fence", "code_block"):
            if token.content.strip():
                yield _Block("code", token.content.rstrip("\n"))
        elif kind == "html_block":
            yield from _blocks(_html_as_markdown(token.content, elements), html=False, documentation=documentation,
                               elements=elements)
        elif kind == "inline":
            if row is not None:
                row.append(one_line(_inline(token, elements)[0]))
                continue
            rendered = list(_inline_blocks(token, lists, item_opened, heading, documentation, elements))
            item_opened = item_opened and not rendered
            yield from rendered


def _inline_blocks(token: Token, lists: list[list[int]], item_opened: bool, heading: bool,
                   documentation: bool, elements: frozenset[str]) -> Iterator[_Block]:
    """The blocks of one inline token: its text's lines (an inline `<li>` or `<br>` breaks it), the first a list
    item when the token opens one."""
    text, own, linked = _inline(token, elements)
    if documentation and navigation_only(own, linked):
        return
    for number, line in enumerate(text.split("\n")):
        stripped = one_line(line)
        if not stripped:
            continue
        if number == 0 and item_opened and lists:
            ordered = lists[-1]
            ordinal = ordered[1] if ordered[0] else 0
            ordered[1] += 1 if ordered[0] else 0
            yield _Block("item", stripped, depth=len(lists) - 1, ordinal=ordinal)
        elif stripped.startswith("- "):
            yield _Block("item", stripped[2:].strip(), depth=len(lists))
        else:
            yield _Block("heading" if heading else "text", stripped, depth=len(lists))


def _inline(token: Token, elements: frozenset[str]) -> tuple[str, str, int]:
    """An inline token's text (code spans in backticks, links as their text, tags and comments gone; `\\n` where an
    inline `<br>` or `<li>` breaks it), its text outside links and the words inside its links."""
    parts: list[str] = []
    own: list[str] = []
    linked = 0
    in_link = 0
    for child in token.children or []:
        kind = child.type
        piece = ""
        if kind == "text":
            piece = _ESCAPES.sub(" ", child.content)
        elif kind == "code_inline":
            piece = code_span(child.content)
        elif kind in ("softbreak", "hardbreak"):
            piece = " " if kind == "softbreak" else "\n"
        elif kind == "image":
            piece = child.content
        elif kind == "html_inline":
            piece = _inline_tag(child.content, elements)
        elif kind in ("link_open", "link_close"):
            in_link += 1 if kind == "link_open" else -1
        if in_link:
            linked += word_count(piece)
        else:
            own.append(piece)
        parts.append(piece)
    return "".join(parts), " ".join(own), linked


def _inline_tag(markup: str, elements: frozenset[str]) -> str:
    """What an inline HTML tag leaves in the text: a backtick for code, a line break for `<br>`, `<p>` and `<li>`
    (`- ` starts an item), nothing for other elements and comments; a placeholder that is no element stays."""
    if markup.startswith("<!--") or markup.startswith("<!["):
        return ""
    match = _TAG.match(markup)
    name = match.group(2).lower() if match else ""
    if name not in elements:
        return markup
    closing = bool(match and match.group(1))
    if name in _CODE_ELEMENTS:
        return "`"
    if name == "li":
        return "\n" if closing else "\n- "
    if name == "br" or name in _BLOCK_ELEMENTS:
        return "\n"
    return ""


# --- HTML -----------------------------------------------------------------------------------------------------


def _html_as_markdown(html: str, elements: frozenset[str]) -> str:
    """An HTML fragment as Markdown-like text to read again: blocks as paragraphs, `- ` items, `a | b` rows, code
    in backticks or fences, links as their text; comments, scripts and styles gone."""
    soup = BeautifulSoup(_not_a_tag(elements).sub("&lt;", html), "html.parser")
    pieces: list[str] = []
    stack: list[tuple[Any, str]] = [(soup, "")]
    while stack:
        node, after = stack.pop()
        if after:
            pieces.append(after)
            continue
        if isinstance(node, NavigableString):
            if not isinstance(node, PreformattedString) or isinstance(node, CData):
                pieces.append(re.sub(r"\s+", " ", str(node)))  # as a browser shows it (no indented code)
            continue
        if not isinstance(node, Tag) or node.name in _DROPPED_ELEMENTS:
            continue
        if node.name == "table":
            pieces.append(_table_as_markdown(node, elements))
            continue
        opening, closing = _element_marks(node)
        if node.name == "pre" or node.name in _CODE_ELEMENTS:
            pieces.append(opening + node.get_text() + closing)
            continue
        pieces.append(opening)
        stack.append((node, closing or "\x00"))
        stack.extend((child, "") for child in reversed(node.contents))
    return "".join(pieces).replace("\x00", "")


def _table_as_markdown(table: Tag, elements: frozenset[str]) -> str:
    """An HTML table as a Markdown table (its cells' markup read as for any fragment)."""
    rows = []
    for row in table.find_all("tr"):
        cells = [one_line(_html_as_markdown(cell.decode_contents(), elements)).replace("|", "\\|")
                 for cell in row.find_all(["td", "th"], recursive=False)]
        if any(cells):
            rows.append("| " + " | ".join(cells) + " |")
    if not rows:
        return ""
    width = rows[0].count(" | ") + 1
    return "\n\n" + "\n".join([rows[0], "|" + "---|" * width, *rows[1:]]) + "\n\n"


def _element_marks(node: Tag) -> tuple[str, str]:
    """The Markdown-like text an HTML element opens and closes with."""
    name = node.name
    if name == "pre":
        return "\n\n```\n", "\n```\n\n"
    if name in _CODE_ELEMENTS:
        return "`", "`"
    if name == "br":
        return "  \n", ""
    if name == "li":
        return "\n- ", "\n"
    if name == "img":
        return str(node.get("alt") or ""), ""
    if name in _BLOCK_ELEMENTS:
        return "\n\n", "\n\n"
    return "", ""
