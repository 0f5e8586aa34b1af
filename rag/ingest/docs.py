"""Chunk documentation files (Markdown, plain text, reStructuredText, HTML, PDF) into `docs` chunks.

Markdown is chunked by section with a real parser (markdown-it-py), so a `#` inside a code fence
never starts a section. Each section becomes one chunk, or several parts of at most
`MAX_SECTION_TOKENS` estimated tokens with `OVERLAP_TOKENS` of overlap when it is too long; a code
block is never split unless it alone is over the limit. HTML is split at its h1-h6 headings and
each section cut into word windows; plain text, reStructuredText and PDF text are cut into fixed
word windows (~500 words, ~50 words of overlap) that never cut a word.

Structural ids: `{doc}.doc.{slug/of/section/path}` for sections, `{doc}.doc.w{N}` for windows,
where `{doc}` is the file name without extension (`getting-started.md` → `getting-started`).
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bs4 import BeautifulSoup
from bs4.element import CData, NavigableString, PreformattedString, Tag
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pypdf import PdfReader

from rag.chunk import Chunk
from rag.errors import ConfigError, IngestError
from rag.ingest.loader import decode_text
from rag.tokens import estimate_tokens, truncate_to_tokens

# pypdf logs warnings about damaged files ("EOF marker not found") straight to stderr, which would add a
# second, confusing line to the one IngestError the user gets; the error already says what is wrong.
logging.getLogger("pypdf").setLevel(logging.ERROR)

MARKDOWN_EXTENSIONS = (".md", ".markdown")
TEXT_EXTENSIONS = (".txt", ".rst")
HTML_EXTENSIONS = (".html", ".htm")
PDF_EXTENSIONS = (".pdf",)
DOC_EXTENSIONS = (*MARKDOWN_EXTENSIONS, *TEXT_EXTENSIONS, *HTML_EXTENSIONS, *PDF_EXTENSIONS)

MAX_SECTION_TOKENS = 512
OVERLAP_TOKENS = 128
EMBEDDING_TOKENS = 180
WINDOW_WORDS = 500
WINDOW_OVERLAP_WORDS = 50
MAX_PATH_TOKENS = 96  # a breadcrumb longer than this is shortened in the chunk's first line
_MIN_TAIL_TOKENS = 16  # do not bother overlapping with a shorter tail of a paragraph
_PART_SEPARATOR = "\n\n"

_DOC_NAME = re.compile(r"[^a-z0-9_-]+")
_WORD = re.compile(r"\S+")
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
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


def doc_name_from_source(source: str) -> str:
    """Document name from a file name: `getting-started.md` → `getting-started`, `My Notes.v2.txt` → `my-notes-v2`."""
    stem = source.replace("\\", "/").rsplit("/", 1)[-1]
    lowered = stem.lower()
    for suffix in DOC_EXTENSIONS:
        if lowered.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    name = _DOC_NAME.sub("-", ascii_stem.lower()).strip("-_")
    return name or "doc"


def chunk_document(source: str, data: bytes) -> list[Chunk]:
    """Chunk one documentation file, choosing the chunker by its extension.

    Raises IngestError for an unsupported extension (listing the allowed ones), an empty file,
    text that is not UTF-8, an encrypted PDF or a PDF without extractable text.
    """
    name = _base_name(source)
    extension = _extension(name)
    if extension not in DOC_EXTENSIONS:
        shown = f"'{extension}'" if extension else "(none)"
        is_spec = extension in (".json", ".yaml", ".yml")
        hint = "; OpenAPI specs (.json, .yaml, .yml) are ingested as specs" if is_spec else ""
        raise IngestError(
            name, f"unsupported file type {shown} for documentation; allowed: {', '.join(DOC_EXTENSIONS)}{hint}"
        )
    if not data.strip():
        raise IngestError(name, "the file is empty")
    if extension in PDF_EXTENSIONS:
        return chunk_pdf(name, data)
    text = decode_text(name, data)
    if extension in MARKDOWN_EXTENSIONS:
        return chunk_markdown(name, text)
    if extension in HTML_EXTENSIONS:
        return chunk_html(name, text)
    return chunk_text_windows(name, text)


# --------------------------------------------------------------------------------------------
# Shared helpers


def _base_name(source: str) -> str:
    return source.replace("\\", "/").rsplit("/", 1)[-1]


def _extension(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _slug(title: str) -> str:
    """One path component of a structural id: lower-case words joined by `-` (ASCII when possible)."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    if not slug:
        slug = re.sub(r"[\W_]+", "-", title.lower()).strip("-")
    return slug[:60].strip("-") or "section"


class _IdAllocator:
    """Hands out unique local ids: the second `auth/tokens` becomes `auth/tokens-2`."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, local_id: str) -> str:
        candidate, number = local_id, 1
        while candidate in self.used:
            number += 1
            candidate = f"{local_id}-{number}"
        self.used.add(candidate)
        return candidate


def _path_line(section_path: str) -> str:
    if estimate_tokens(section_path) <= MAX_PATH_TOKENS:
        return section_path
    return truncate_to_tokens(section_path, MAX_PATH_TOKENS).rstrip() + " …"


def _embedding_text(section_path: str, body: str) -> str:
    compact = " ".join(f"{section_path}\n{body}".split())
    return truncate_to_tokens(compact, EMBEDDING_TOKENS) or compact[: EMBEDDING_TOKENS * 4]


def _make_chunk(
    *,
    api: str,
    source: str,
    local_id: str,
    title: str,
    section_path: str,
    depth: int,
    body: str,
    part: int = 1,
    parts: int = 1,
    has_code: bool = False,
) -> Chunk:
    covers = (f"{api}.doc.{local_id}",)
    chunk_id = f"docs/{covers[0]}" + (f"#part{part}" if parts > 1 else "")
    path_line = _path_line(section_path)
    text = f"{path_line}{_PART_SEPARATOR}{body}" if body.strip() else path_line
    return Chunk(
        chunk_id=chunk_id,
        strategy="docs",
        api=api,
        kind="doc",
        text=text,
        embedding_text=_embedding_text(path_line, body),
        covers=covers,
        source=source,
        json_pointer="",
        tokens=estimate_tokens(text),
        title=title,
        section_path=section_path,
        depth=depth,
        has_code=has_code,
        part=part,
        parts=parts,
    )


def _split_words(text: str, max_tokens: int) -> list[str]:
    """Cut `text` into pieces within `max_tokens`, only between words (a single huge word is sliced)."""
    text = text.strip()
    spans = [match.span() for match in _WORD.finditer(text)]
    pieces: list[str] = []
    index = 0
    while index < len(spans):
        # Every word counts at least one token, so at most `max_tokens` words can fit.
        low, high = 0, min(max_tokens, len(spans) - index)
        while low < high:
            middle = (low + high + 1) // 2
            if estimate_tokens(text[spans[index][0] : spans[index + middle - 1][1]]) <= max_tokens:
                low = middle
            else:
                high = middle - 1
        if low == 0:  # one word longer than the limit (a minified line, a data blob): no choice but to cut it
            word = text[spans[index][0] : spans[index][1]]
            while word:
                size = len(word)
                while size > 1 and estimate_tokens(word[:size]) > max_tokens:
                    size = size * 3 // 4
                pieces.append(word[:size])
                word = word[size:]
            index += 1
            continue
        pieces.append(text[spans[index][0] : spans[index + low - 1][1]])
        index += low
    return pieces


def _tail_words(text: str, max_tokens: int) -> str:
    """The longest run of whole words at the end of `text` whose estimate is within `max_tokens`."""
    spans = [match.span() for match in _WORD.finditer(text)]
    low, high = 0, len(spans)  # the largest number of trailing words that fits
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[spans[len(spans) - middle][0] :]) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return text[spans[len(spans) - low][0] :] if low else ""


# --------------------------------------------------------------------------------------------
# Markdown


@dataclass(frozen=True)
class _Unit:
    """A piece of a section that is kept whole when packing parts (a block, a code block, a line run)."""

    text: str
    code: bool


@dataclass
class _Section:
    title: str
    path: tuple[str, ...]
    depth: int
    lines: tuple[int, int]  # body lines [start, end) in the source
    heading: str = ""  # the heading's source line(s), kept at the top of the first part


def _markdown_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def _inline_text(token: Token) -> str:
    """Plain text of an inline token (emphasis, links and code spans flattened)."""
    parts: list[str] = []
    stack = list(reversed(token.children or []))
    while stack:
        child = stack.pop()
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.children:
            stack.extend(reversed(child.children))
    text = " ".join("".join(parts).split())
    return text or " ".join(token.content.split())


def _strip_front_matter(text: str) -> str:
    """Blank out a leading YAML front matter block (`---` … `---`), keeping line numbers."""
    if not text.startswith("---\n"):
        return text
    lines = text.split("\n")
    for index in range(1, min(len(lines), 200)):
        if lines[index].strip() in ("---", "..."):
            return "\n" * index + "\n" + "\n".join(lines[index + 1 :])
    return text


def _code_ranges(tokens: list[Token]) -> list[tuple[int, int, Token]]:
    """Line ranges of every fenced or indented code block, at any nesting level."""
    return [(t.map[0], t.map[1], t) for t in tokens if t.type in ("fence", "code_block") and t.map]


def _split_code(lines: list[str], token: Token, max_tokens: int) -> list[_Unit]:
    """Split one over-long code block by lines, re-opening and closing a fence around each piece."""
    opener = closer = ""
    inner = lines
    if token.type == "fence" and lines:
        opener, inner = lines[0], lines[1:]
        markup = token.markup or "```"
        if inner and inner[-1].strip().startswith(markup) and not inner[-1].strip().strip(markup[0]):
            closer, inner = inner[-1], inner[:-1]
        else:
            closer = opener[: len(opener) - len(opener.lstrip())] + markup
    room = max(8, max_tokens - estimate_tokens(opener) - estimate_tokens(closer))
    pieces: list[list[str]] = [[]]
    for line in inner:
        fragments = [line] if estimate_tokens(line) <= room else _split_words(line, room)
        for fragment in fragments:
            candidate = [*pieces[-1], fragment]
            if pieces[-1] and estimate_tokens("\n".join(candidate)) > room:
                pieces.append([fragment])
            else:
                pieces[-1] = candidate
    head, tail = ([opener] if opener else []), ([closer] if closer else [])
    wrapped = ["\n".join([*head, *piece, *tail]) for piece in pieces if piece]
    return [_Unit(text, True) for text in wrapped]


def _split_block(
    lines: list[str], start: int, codes: list[tuple[int, int, Token]], budget: int, max_tokens: int
) -> list[_Unit]:
    """Split one over-long block into units of at most `max_tokens` (prose lines packed, long lines cut
    between words); a code block inside it stays whole when it fits `budget`, else is split by lines."""
    groups: list[tuple[list[str], Token | None]] = []
    index = 0
    while index < len(lines):
        line_no = start + index
        code = next(((a, b, t) for a, b, t in codes if a == line_no), None)
        if code is not None:
            end = min(code[1], start + len(lines))
            groups.append((lines[index : end - start], code[2]))
            index = end - start
        else:
            groups.append(([lines[index]], None))
            index += 1
    units: list[_Unit] = []
    prose: list[str] = []

    def flush() -> None:
        if prose and "\n".join(prose).strip():
            units.append(_Unit("\n".join(prose).strip("\n"), False))
        prose.clear()

    for group_lines, token in groups:
        text = "\n".join(group_lines)
        if token is not None:
            flush()
            if estimate_tokens(text) <= budget:
                units.append(_Unit(text, True))
            else:
                units.extend(_split_code(group_lines, token, max_tokens))
            continue
        if estimate_tokens(text) > max_tokens:
            flush()
            units.extend(_Unit(piece, False) for piece in _split_words(text, max_tokens))
            continue
        if prose and estimate_tokens("\n".join([*prose, text])) > max_tokens:
            flush()
        prose.append(text)
    flush()
    return units


def _section_units(
    lines: list[str], start: int, end: int, block_starts: list[int], codes: list[tuple[int, int, Token]], budget: int
) -> list[_Unit]:
    """Units of the body lines [start, end): one per top-level block (nothing between blocks is lost)."""
    bounds = sorted({start, *(b for b in block_starts if start < b < end)})
    units: list[_Unit] = []
    piece_limit = max(32, budget - OVERLAP_TOKENS)
    for index, first in enumerate(bounds):
        last = bounds[index + 1] if index + 1 < len(bounds) else end
        block = lines[first:last]
        while block and not block[-1].strip():
            block.pop()
        while block and not block[0].strip():
            block.pop(0)
            first += 1
        if not block:
            continue
        text = "\n".join(block)
        inside = [(a, b, t) for a, b, t in codes if first <= a < first + len(block)]
        if estimate_tokens(text) <= budget:
            units.append(_Unit(text, bool(inside)))
        else:
            units.extend(_split_block(block, first, inside, budget, piece_limit))
    return units


def _overlap_units(units: list[_Unit], limit: int) -> list[_Unit]:
    """Whole trailing units within `limit` tokens, topped up with the tail words of a paragraph (never of code)."""
    taken: list[_Unit] = []
    total = 0
    for unit in reversed(units):
        size = estimate_tokens(unit.text)
        if total + size <= limit:
            taken.insert(0, unit)
            total += size
            continue
        if not unit.code and limit - total >= _MIN_TAIL_TOKENS:
            tail = _tail_words(unit.text, limit - total)
            if tail:
                taken.insert(0, _Unit(tail, False))
        break
    return taken


def _pack(units: list[_Unit], budget: int, overlap: int) -> list[list[_Unit]]:
    """Greedily pack units into parts within `budget` tokens; each new part repeats ~`overlap` tokens."""
    parts: list[list[_Unit]] = []
    current: list[_Unit] = []
    fresh = False  # whether `current` holds anything that is not overlap
    for unit in units:
        size = estimate_tokens(unit.text)
        if current and fresh and estimate_tokens(_PART_SEPARATOR.join(u.text for u in [*current, unit])) > budget:
            parts.append(current)
            current = _overlap_units(current, min(overlap, budget - size))
            fresh = False
        current.append(unit)
        fresh = True
    if current and fresh:
        parts.append(current)
    return parts


def chunk_markdown(source: str, text: str) -> list[Chunk]:
    """Chunk Markdown by section: breadcrumbs from headings, ≤512-token parts with 128-token overlap.

    Headings are found with markdown-it-py, so `#` lines inside code blocks are not headings. Text
    before the first heading forms an `intro` section. A heading with nothing under it but
    subsections gets no chunk of its own (its title is in every subsection's breadcrumb).
    """
    name = _base_name(source)
    if not text.strip():
        raise IngestError(name, "the file is empty")
    api = doc_name_from_source(name)
    text = _strip_front_matter(text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    tokens = _markdown_parser().parse(text)
    codes = _code_ranges(tokens)
    block_starts = [t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map and t.type != "inline"]

    # Top-level headings with text, as (first line, line after the heading, level, title).
    headings: list[tuple[int, int, int, str]] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map:
            title = _inline_text(tokens[index + 1])
            if title:
                headings.append((token.map[0], token.map[1], int(token.tag[1]), title))
    sections = [_Section(title=name, path=(), depth=0, lines=(0, headings[0][0] if headings else len(lines)))]
    trail: list[tuple[int, str]] = []
    for number, (first, after, level, title) in enumerate(headings):
        while trail and trail[-1][0] >= level:
            trail.pop()
        trail.append((level, title))
        end = headings[number + 1][0] if number + 1 < len(headings) else len(lines)
        heading = "\n".join(lines[first:after]).strip()
        sections.append(_Section(title, tuple(t for _, t in trail), level, (after, end), heading=heading))

    ids = _IdAllocator()
    chunks: list[Chunk] = []
    for index, section in enumerate(sections):
        section_path = " > ".join(section.path) if section.path else name
        path_tokens = estimate_tokens(_path_line(section_path))
        budget = max(64, MAX_SECTION_TOKENS - path_tokens - 2)
        units = _section_units(lines, *section.lines, block_starts, codes, budget)
        # Ids are taken for every section, emitted or not, so that adding text under a heading
        # does not renumber the ids of later sections with the same path.
        local_id = ids.take("/".join(_slug(t) for t in section.path) if section.path else "intro")
        if not units:
            following = sections[index + 1] if index + 1 < len(sections) else None
            if not section.path or (following is not None and following.depth > section.depth):
                continue  # an empty intro, or a heading that only introduces subsections
        if section.heading:
            units.insert(0, _Unit(section.heading, False))
        parts = _pack(units, budget, OVERLAP_TOKENS)
        for number, part in enumerate(parts, 1):
            chunks.append(
                _make_chunk(
                    api=api,
                    source=name,
                    local_id=local_id,
                    title=section.title,
                    section_path=section_path,
                    depth=section.depth,
                    body=_PART_SEPARATOR.join(u.text for u in part),
                    part=number,
                    parts=len(parts),
                    has_code=any(u.code for u in part),
                )
            )
    if not chunks:
        raise IngestError(name, "the file is empty")
    return chunks


# --------------------------------------------------------------------------------------------
# Word windows (plain text, reStructuredText, PDF, HTML sections)


def _word_windows(text: str, words: int, overlap: int) -> Iterator[tuple[int, int, int, int]]:
    """Yield (first_char, end_char, first_word, end_word) of each window; windows start and end on word edges."""
    if words < 1:
        raise ConfigError(f"words={words!r} is not allowed; allowed: an integer >= 1")
    if not 0 <= overlap < words:
        raise ConfigError(f"overlap={overlap!r} is not allowed; allowed: 0 <= overlap < words ({words})")
    spans = [match.span() for match in _WORD.finditer(text)]
    start = 0
    while start < len(spans):
        end = min(start + words, len(spans))
        yield spans[start][0], spans[end - 1][1], start, end
        if end == len(spans):
            break
        start = end - overlap


def _window_chunks(
    source: str, text: str, words: int, overlap: int, locate: Callable[[int, int, int, int], str]
) -> list[Chunk]:
    name = _base_name(source)
    api = doc_name_from_source(name)
    windows = list(_word_windows(text, words, overlap))
    chunks: list[Chunk] = []
    for number, (first_char, end_char, first_word, end_word) in enumerate(windows, 1):
        where = locate(first_char, end_char, first_word, end_word)
        chunks.append(
            _make_chunk(
                api=api,
                source=name,
                local_id=f"w{number}",
                title=f"{name} ({where})",
                section_path=f"{name} > {where}",
                depth=0,
                body=text[first_char:end_char],
            )
        )
    return chunks


def _word_range(first_char: int, end_char: int, first_word: int, end_word: int) -> str:
    return f"words {first_word + 1}-{end_word}"


def chunk_text_windows(
    source: str, text: str, words: int = WINDOW_WORDS, overlap: int = WINDOW_OVERLAP_WORDS
) -> list[Chunk]:
    """Cut text into windows of `words` words, each repeating the last `overlap` words of the one before.

    Windows start and end on word boundaries and keep the original line breaks. Each window is its
    own structural id `{doc}.doc.w{N}` (N from 1); its section path says which words it holds.
    """
    name = _base_name(source)
    if not text.strip():
        raise IngestError(name, "the file is empty")
    return _window_chunks(name, text, words, overlap, _word_range)


# --------------------------------------------------------------------------------------------
# HTML


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
        lines = [line.rstrip() for line in "".join(self.pieces).split("\n")]
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

    sections = [_HtmlSection(title=doc_title or fallback_title, path=(), depth=0)]
    trail: list[tuple[int, str]] = []

    # An explicit stack instead of recursion: deeply nested HTML must not hit the recursion limit.
    stack: list[tuple[object, str, bool]] = [(soup, "", False)]  # (node, "" or the end-tag action, inside <pre>)
    while stack:
        node, closing, preformatted = stack.pop()
        if closing == "cell":
            sections[-1].add(" ", False)
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
        if node.name == "pre":
            sections[-1].has_code = True
        action = _TAG_BREAKS.get(node.name, "")
        if action in ("paragraph", "line"):
            sections[-1].newlines(2 if action == "paragraph" else 1)
        if action:
            stack.append((node, action, preformatted))
        inside_pre = preformatted or node.name == "pre"
        stack.extend((child, "", inside_pre) for child in reversed(node.contents))
    return sections


def chunk_html(source: str, text: str) -> list[Chunk]:
    """Chunk HTML (stdlib `html.parser`) into sections at h1-h6, each cut into ~500-word windows.

    `<script>`, `<style>`, `<noscript>`, `<template>` and `<head>` content is dropped; headings stay
    in the text and give each section its breadcrumb. Text before the first heading forms an `intro`
    section named after the page `<title>` (or the file name).
    """
    name = _base_name(source)
    if not text.strip():
        raise IngestError(name, "the file is empty")
    api = doc_name_from_source(name)
    sections = _html_sections(text, name)
    ids = _IdAllocator()
    chunks: list[Chunk] = []
    for index, section in enumerate(sections):
        body = section.text()
        local_id = ids.take("/".join(_slug(t) for t in section.path) if section.path else "intro")
        if not section.has_text:
            following = sections[index + 1] if index + 1 < len(sections) else None
            if not section.path or (following is not None and following.depth > section.depth):
                continue  # an empty intro, or a heading that only introduces subsections
        section_path = " > ".join(section.path) if section.path else section.title
        windows = list(_word_windows(body, WINDOW_WORDS, WINDOW_OVERLAP_WORDS))
        for number, (first_char, end_char, _, _) in enumerate(windows, 1):
            chunks.append(
                _make_chunk(
                    api=api,
                    source=name,
                    local_id=local_id,
                    title=section.title,
                    section_path=section_path,
                    depth=section.depth,
                    body=body[first_char:end_char],
                    part=number,
                    parts=len(windows),
                    has_code=section.has_code,
                )
            )
    if not chunks:
        raise IngestError(name, "has no visible text (only markup, scripts or styles)")
    return chunks


# --------------------------------------------------------------------------------------------
# PDF


def _pdf_pages(name: str, data: bytes) -> list[str]:
    try:
        reader = PdfReader(io.BytesIO(data))
    except Exception as error:  # pypdf raises many types on a damaged file
        raise IngestError(name, f"not a readable PDF ({error})") from None
    if reader.is_encrypted:
        # Files that only restrict permissions open with the empty password; anything else is refused.
        try:
            opened = bool(reader.decrypt(""))
        except Exception:
            opened = False
        if not opened:
            raise IngestError(
                name, "the PDF is encrypted (password-protected); remove the password and upload it again"
            )
    pages: list[str] = []
    try:
        for page in reader.pages:
            pages.append((page.extract_text() or "").replace("\x00", ""))
    except Exception as error:
        raise IngestError(name, f"could not extract text from page {len(pages) + 1} ({error})") from None
    return pages


def chunk_pdf(source: str, data: bytes) -> list[Chunk]:
    """Extract PDF text with pypdf and cut it into ~500-word windows with ~50 words of overlap.

    Raises IngestError when the PDF is encrypted, unreadable, or has no extractable text (a scan).
    Each window's section path names the page(s) it comes from.
    """
    name = _base_name(source)
    if not data.strip():
        raise IngestError(name, "the file is empty")
    pages = _pdf_pages(name, data)
    starts: list[int] = []
    text = ""
    for page_text in pages:
        text += "\n\n" if text else ""
        starts.append(len(text))
        text += page_text.strip()
    if not text.strip():
        raise IngestError(name, "no extractable text (scanned?); run OCR on it or upload a text version")

    def page_of(offset: int) -> int:
        low, high = 0, len(starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1

    def pages_range(first_char: int, end_char: int, first_word: int, end_word: int) -> str:
        first, last = page_of(first_char), page_of(end_char - 1)
        return f"page {first}" if first == last else f"pages {first}-{last}"

    return _window_chunks(name, text, WINDOW_WORDS, WINDOW_OVERLAP_WORDS, pages_range)
