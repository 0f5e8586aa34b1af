"""What every documentation chunker shares: file types, document names, structural ids, the chunk
itself, the chunks of a document's sections (Markdown, HTML), and word windows (plain text,
reStructuredText, PDF, HTML sections)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from rag.chunk import Chunk
from rag.errors import ConfigError, IngestError
from rag.tokens import estimate_tokens, truncate_to_tokens

MARKDOWN_EXTENSIONS = (".md", ".markdown")
TEXT_EXTENSIONS = (".txt", ".rst")
HTML_EXTENSIONS = (".html", ".htm")
PDF_EXTENSIONS = (".pdf",)
DOC_EXTENSIONS = (*MARKDOWN_EXTENSIONS, *TEXT_EXTENSIONS, *HTML_EXTENSIONS, *PDF_EXTENSIONS)

EMBEDDING_TOKENS = 180
WINDOW_WORDS = 500
WINDOW_OVERLAP_WORDS = 50
MAX_PATH_TOKENS = 96  # a breadcrumb longer than this is shortened in the chunk's first line
PART_SEPARATOR = "\n\n"

_DOC_NAME = re.compile(r"[^a-z0-9_-]+")
WORD = re.compile(r"\S+")


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


def base_name(source: str) -> str:
    """The file name of a source path (either slash)."""
    return source.replace("\\", "/").rsplit("/", 1)[-1]


def extension_of(name: str) -> str:
    """The lower-case extension with its dot (`.md`), or "" when the name has none."""
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def slug(title: str) -> str:
    """One path component of a structural id: lower-case words joined by `-` (ASCII when possible)."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    if not slug:
        slug = re.sub(r"[\W_]+", "-", title.lower()).strip("-")
    return slug[:60].strip("-") or "section"


class IdAllocator:
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


def shown_path(section_path: str) -> str:
    """The breadcrumb as a chunk's first line shows it (shortened past MAX_PATH_TOKENS)."""
    if estimate_tokens(section_path) <= MAX_PATH_TOKENS:
        return section_path
    return truncate_to_tokens(section_path, MAX_PATH_TOKENS).rstrip() + " …"


def compact_embedding(section_path: str, body: str) -> str:
    """The embedding text of a doc chunk: breadcrumb and body on one line, within EMBEDDING_TOKENS."""
    compact = " ".join(f"{section_path}\n{body}".split())
    return truncate_to_tokens(compact, EMBEDDING_TOKENS) or compact[: EMBEDDING_TOKENS * 4]


def make_doc_chunk(
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
    path_line = shown_path(section_path)
    text = f"{path_line}{PART_SEPARATOR}{body}" if body.strip() else path_line
    return Chunk(
        chunk_id=chunk_id,
        strategy="docs",
        api=api,
        kind="doc",
        text=text,
        embedding_text=compact_embedding(path_line, body),
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


def breadcrumb(title: str, path: tuple[str, ...]) -> str:
    """A section's breadcrumb: its enclosing headings joined by ` > `, or its title for the intro (no path)."""
    return " > ".join(path) if path else title


@dataclass(frozen=True)
class DocPart:
    """One part of a section's text (a section too long for one chunk has several) and whether it holds code."""

    body: str
    has_code: bool = False


@dataclass(frozen=True)
class DocSection:
    """A section of a document, cut into parts: its title, the headings down to it (empty for the intro, the text
    before the first heading), its heading level (0 for the intro), and whether it has text besides its heading."""

    title: str
    path: tuple[str, ...]
    depth: int
    parts: tuple[DocPart, ...]
    has_text: bool

    @property
    def section_path(self) -> str:
        """The section's breadcrumb (see `breadcrumb`)."""
        return breadcrumb(self.title, self.path)


def _introduces_only(sections: Sequence[DocSection], index: int) -> bool:
    """Whether a section without text of its own is left out: the intro, or a heading whose next section is one of
    its subsections (its title is in every subsection's breadcrumb)."""
    section = sections[index]
    following = sections[index + 1] if index + 1 < len(sections) else None
    return not section.path or (following is not None and following.depth > section.depth)


def section_chunks(api: str, source: str, sections: Sequence[DocSection], page: str = "") -> list[Chunk]:
    """The chunks of a document's sections: one per part, with the structural id of the section's headings
    (`auth/tokens`, `intro` for the intro; a repeated path gets `-2`, `-3`, …), under `page/` when the document is
    one page of a site indexed as one API (`guide-webhooks/webhooks/retries`).

    Ids are taken for every section, emitted or not, so that adding text under a heading does not renumber
    the ids of later sections with the same path.
    """
    ids = IdAllocator()
    chunks: list[Chunk] = []
    for index, section in enumerate(sections):
        local_id = ids.take("/".join([*([page] if page else []), *(slug(t) for t in section.path or ("intro",))]))
        if not section.has_text and _introduces_only(sections, index):
            continue
        chunks.extend(
            make_doc_chunk(api=api, source=source, local_id=local_id, title=section.title,
                           section_path=section.section_path, depth=section.depth, body=part.body, part=number,
                           parts=len(section.parts), has_code=part.has_code)
            for number, part in enumerate(section.parts, 1)
        )
    return chunks


def word_windows(text: str, words: int, overlap: int) -> Iterator[tuple[int, int, int, int]]:
    """Yield (first_char, end_char, first_word, end_word) of each window; windows start and end on word edges."""
    if words < 1:
        raise ConfigError(f"words={words!r} is not allowed; allowed: an integer >= 1")
    if not 0 <= overlap < words:
        raise ConfigError(f"overlap={overlap!r} is not allowed; allowed: 0 <= overlap < words ({words})")
    spans = [match.span() for match in WORD.finditer(text)]
    start = 0
    while start < len(spans):
        end = min(start + words, len(spans))
        yield spans[start][0], spans[end - 1][1], start, end
        if end == len(spans):
            break
        start = end - overlap


def window_chunks(
    source: str, text: str, words: int, overlap: int, locate: Callable[[int, int, int, int], str]
) -> list[Chunk]:
    name = base_name(source)
    api = doc_name_from_source(name)
    windows = list(word_windows(text, words, overlap))
    chunks: list[Chunk] = []
    for number, (first_char, end_char, first_word, end_word) in enumerate(windows, 1):
        where = locate(first_char, end_char, first_word, end_word)
        chunks.append(
            make_doc_chunk(
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


def word_range(first_char: int, end_char: int, first_word: int, end_word: int) -> str:
    return f"words {first_word + 1}-{end_word}"


def chunk_text_windows(
    source: str, text: str, words: int = WINDOW_WORDS, overlap: int = WINDOW_OVERLAP_WORDS
) -> list[Chunk]:
    """Cut text into windows of `words` words, each repeating the last `overlap` words of the one before.

    Windows start and end on word boundaries and keep the original line breaks. Each window is its
    own structural id `{doc}.doc.w{N}` (N from 1); its section path says which words it holds.
    """
    name = base_name(source)
    if not text.strip():
        raise IngestError(name, "the file is empty")
    return window_chunks(name, text, words, overlap, word_range)
