"""Check an uploaded file before anything parses it: a safe name, an allowed type, a sane size and content."""

from __future__ import annotations

import unicodedata

from rag.errors import IngestError

ALLOWED_EXTENSIONS: tuple[str, ...] = (
    ".json",
    ".yaml",
    ".yml",
    ".md",
    ".markdown",
    ".txt",
    ".rst",
    ".html",
    ".htm",
    ".pdf",
    ".zip",
)
MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MAX_NAME_LENGTH = 255
PDF_MAGIC = b"%PDF-"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_MIB = 1024 * 1024


def safe_file_name(name: str) -> str:
    """Reduce an uploaded name to a safe base name, or raise IngestError saying what is wrong with it.

    Directory parts are dropped (`/tmp/x/notes.md` and `C:\\docs\\notes.md` → `notes.md`); a `..`
    part, control characters and names that are empty or only an extension are refused.
    """
    shown = repr(name)
    if any(unicodedata.category(char) == "Cc" for char in name):
        raise IngestError(shown, "the file name contains control characters; rename the file")
    parts = name.replace("\\", "/").split("/")
    if any(part.strip() == ".." for part in parts):
        raise IngestError(name, "the file name must not contain '..' (a path outside the upload folder)")
    base = parts[-1].strip()
    if not base or base == ".":
        raise IngestError(shown, "the file name is empty")
    dot = base.rfind(".")
    if dot == 0 or not base[:dot].strip(" ."):
        raise IngestError(base, "the file name has nothing before its extension")
    if len(base) > MAX_NAME_LENGTH:
        raise IngestError(base[:40] + "…", f"the file name is longer than {MAX_NAME_LENGTH} characters")
    return base


def too_large(name: str, size: int) -> IngestError:
    """The error of a file above MAX_UPLOAD_BYTES (its size and the limit)."""
    return IngestError(
        name,
        f"the file is too large ({size / _MIB:.1f} MB, {size:,} bytes); the limit is {MAX_UPLOAD_BYTES // _MIB} MB",
    )


def validate_upload(name: str, data: bytes) -> str:
    """Check an upload and return its safe base file name; raise IngestError naming the file otherwise.

    Refused: a bad name (see `safe_file_name`), an extension outside `ALLOWED_EXTENSIONS`, an empty
    file, more than `MAX_UPLOAD_BYTES` (10 MB), a `.pdf` that does not start with `%PDF-`, a `.zip` that does
    not start with `PK`, and any other file that is binary (NUL bytes) or not UTF-8 text.
    """
    base = safe_file_name(name)
    dot = base.rfind(".")
    extension = base[dot:].lower() if dot > 0 else ""
    if extension not in ALLOWED_EXTENSIONS:
        shown = f"'{extension}'" if extension else "(no extension)"
        raise IngestError(base, f"file type {shown} is not allowed; allowed: {', '.join(ALLOWED_EXTENSIONS)}")
    if not data:
        raise IngestError(base, "the file is empty")
    if len(data) > MAX_UPLOAD_BYTES:
        raise too_large(base, len(data))
    if extension == ".pdf":
        if not data.startswith(PDF_MAGIC):
            raise IngestError(base, "not a PDF: the file does not start with '%PDF-' (renamed from another type?)")
        return base
    if extension == ".zip":
        if not data.startswith(ZIP_MAGIC):
            raise IngestError(base, "not a zip archive: the file does not start with 'PK' (renamed from another type?)")
        return base
    if b"\x00" in data:
        raise IngestError(base, "looks like a binary file (it contains NUL bytes); expected UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise IngestError(
            base,
            f"looks like a binary file or is not UTF-8 text (invalid byte at offset {error.start}); "
            "save it as UTF-8 text",
        ) from None
    if not text.strip():
        raise IngestError(base, "the file is empty (only whitespace)")
    return base
