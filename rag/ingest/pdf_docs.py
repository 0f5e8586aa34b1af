"""Chunk PDF documentation: the text pypdf extracts, cut into word windows that name their pages."""

from __future__ import annotations

import io
import logging

from pypdf import PdfReader

from rag.chunk import Chunk
from rag.errors import IngestError
from rag.ingest.doc_parts import WINDOW_OVERLAP_WORDS, WINDOW_WORDS, base_name, window_chunks

# pypdf logs warnings about damaged files ("EOF marker not found") straight to stderr, which would add a
# second, confusing line to the one IngestError the user gets; the error already says what is wrong.
logging.getLogger("pypdf").setLevel(logging.ERROR)


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
    name = base_name(source)
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

    return window_chunks(name, text, WINDOW_WORDS, WINDOW_OVERLAP_WORDS, pages_range)
