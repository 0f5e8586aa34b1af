"""Chunk documentation files (Markdown, plain text, reStructuredText, HTML, PDF) into `docs` chunks.

Markdown is chunked by section with a real parser (markdown-it-py), so a `#` inside a code fence
never starts a section. Each section becomes one chunk, or several parts of at most
`MAX_SECTION_TOKENS` estimated tokens with `OVERLAP_TOKENS` of overlap when it is too long; a code
block is never split unless it alone is over the limit. HTML is split at its h1-h6 headings and
each section cut into word windows; plain text, reStructuredText and PDF text are cut into fixed
word windows (~500 words, ~50 words of overlap) that never cut a word.

Structural ids: `{doc}.doc.{slug/of/section/path}` for sections, `{doc}.doc.w{N}` for windows,
where `{doc}` is the file name without extension (`getting-started.md` → `getting-started`).

This module picks the chunker and chunks Markdown; HTML is `rag.ingest.html_docs`, PDF
`rag.ingest.pdf_docs`, and what they share (names, ids, word windows) `rag.ingest.doc_parts`.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from rag.chunk import Chunk
from rag.errors import IngestError
from rag.ingest.clean_text import clean_text
from rag.ingest.doc_parts import (
    DOC_EXTENSIONS,
    HTML_EXTENSIONS,
    MARKDOWN_EXTENSIONS,
    PART_SEPARATOR,
    PDF_EXTENSIONS,
    WORD,
    DocPart,
    DocSection,
    base_name,
    breadcrumb,
    chunk_text_windows,
    doc_name_from_source,
    extension_of,
    section_chunks,
    shown_path,
)
from rag.ingest.html_docs import chunk_html
from rag.ingest.loader import decode_text
from rag.ingest.pdf_docs import chunk_pdf
from rag.tokens import estimate_tokens

MAX_SECTION_TOKENS = 512
OVERLAP_TOKENS = 128
_MIN_TAIL_TOKENS = 16  # do not bother overlapping with a shorter tail of a paragraph


def chunk_document(source: str, data: bytes) -> list[Chunk]:
    """Chunk one documentation file, choosing the chunker by its extension.

    Raises IngestError for an unsupported extension (listing the allowed ones), an empty file,
    text that is not UTF-8, an encrypted PDF or a PDF without extractable text.
    """
    name = base_name(source)
    extension = extension_of(name)
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


def _split_words(text: str, max_tokens: int) -> list[str]:
    """Cut `text` into pieces within `max_tokens`, only between words (a single huge word is sliced)."""
    text = text.strip()
    spans = [match.span() for match in WORD.finditer(text)]
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
    spans = [match.span() for match in WORD.finditer(text)]
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
            units.extend(_prose_unit("\n".join(prose).strip("\n")))
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
            units.extend(unit for piece in _split_words(text, max_tokens) for unit in _prose_unit(piece))
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
        code_alone = bool(inside) and inside[0][0] == first and inside[0][1] >= first + len(block)
        if estimate_tokens(text) <= budget:  # a code block is kept exactly as written, other blocks cleaned
            units.extend([_Unit(text, True)] if code_alone else _prose_unit(text, bool(inside)))
        else:
            units.extend(_split_block(block, first, inside, budget, piece_limit))
    return units


def _prose_unit(text: str, code: bool = False) -> list[_Unit]:
    """A block of Markdown as clean text (`clean_text`: no markup, no navigation), or nothing when nothing is left."""
    cleaned = clean_text(text, documentation=True)
    return [_Unit(cleaned, code)] if cleaned else []


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
        if current and fresh and estimate_tokens(PART_SEPARATOR.join(u.text for u in [*current, unit])) > budget:
            parts.append(current)
            current = _overlap_units(current, min(overlap, budget - size))
            fresh = False
        current.append(unit)
        fresh = True
    if current and fresh:
        parts.append(current)
    return parts


def _markdown_sections(name: str, tokens: list[Token], lines: list[str]) -> list[_Section]:
    """The intro (text before the first heading, titled `name`) and one section per top-level heading with
    text, each with its breadcrumb of enclosing headings and its lines (the heading's own lines excluded)."""
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
    return sections


def chunk_markdown(source: str, text: str) -> list[Chunk]:
    """Chunk Markdown by section: breadcrumbs from headings, ≤512-token parts with 128-token overlap.

    Headings are found with markdown-it-py, so `#` lines inside code blocks are not headings. Text
    before the first heading forms an `intro` section. A heading with nothing under it but
    subsections gets no chunk of its own (its title is in every subsection's breadcrumb).
    """
    name = base_name(source)
    if not text.strip():
        raise IngestError(name, "the file is empty")
    api = doc_name_from_source(name)
    text = _strip_front_matter(text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = text.split("\n")
    tokens = _markdown_parser().parse(text)
    codes = _code_ranges(tokens)
    block_starts = [t.map[0] for t in tokens if t.level == 0 and t.nesting >= 0 and t.map and t.type != "inline"]
    sections = _markdown_sections(name, tokens, lines)
    parted: list[DocSection] = []
    for section in sections:
        path_tokens = estimate_tokens(shown_path(breadcrumb(section.title, section.path)))
        budget = max(64, MAX_SECTION_TOKENS - path_tokens - 2)
        units = _section_units(lines, *section.lines, block_starts, codes, budget)
        has_text = bool(units)
        if section.heading:
            units[:0] = _prose_unit(section.heading)
        parts = tuple(DocPart(PART_SEPARATOR.join(u.text for u in part), any(u.code for u in part))
                      for part in _pack(units, budget, OVERLAP_TOKENS))
        parted.append(DocSection(section.title, section.path, section.depth, parts, has_text))
    chunks = section_chunks(api, name, parted)
    if not chunks:
        raise IngestError(name, "the file is empty")
    return chunks
