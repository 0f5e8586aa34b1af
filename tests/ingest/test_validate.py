"""Upload validation: safe names, allowed types, size and content checks, each error naming the file."""

from __future__ import annotations

import pytest

from rag.errors import IngestError
from rag.ingest.validate import ALLOWED_EXTENSIONS, MAX_UPLOAD_BYTES, safe_file_name, validate_upload
from tests.conftest import FIXTURES

MINIMAL_PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n"


def refused(name: str, data: bytes) -> IngestError:
    with pytest.raises(IngestError) as caught:
        validate_upload(name, data)
    return caught.value


def test_constants() -> None:
    assert ALLOWED_EXTENSIONS == (
        ".json", ".yaml", ".yml", ".md", ".markdown", ".txt", ".rst", ".html", ".htm", ".pdf", ".zip",
    )  # fmt: skip
    assert MAX_UPLOAD_BYTES == 10 * 1024 * 1024


@pytest.mark.parametrize("extension", ALLOWED_EXTENSIONS)
def test_every_allowed_extension_passes(extension: str) -> None:
    data = MINIMAL_PDF if extension == ".pdf" else b"PK\x05\x06" + bytes(18) if extension == ".zip" else \
        b"openapi: 3.1.0\n"
    assert validate_upload(f"file{extension}", data) == f"file{extension}"


def test_a_zip_must_be_one() -> None:
    assert "not a zip archive" in str(refused("specs.zip", b"openapi: 3.1.0\n"))


def test_real_fixtures_pass() -> None:
    for path in sorted((FIXTURES / "docs").iterdir()):
        assert validate_upload(path.name, path.read_bytes()) == path.name


def test_upper_case_extension_and_utf8_bom_pass() -> None:
    assert validate_upload("README.MD", b"\xef\xbb\xbf# Title\n") == "README.MD"
    assert validate_upload("Notes.Txt", "Grüße, 世界\n".encode()) == "Notes.Txt"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("docs/guide.md", "guide.md"),
        ("/etc/passwd.txt", "passwd.txt"),
        ("C:\\Users\\me\\Desktop\\spec.yaml", "spec.yaml"),
        ("./notes.md", "notes.md"),
        ("  spaced name.md  ", "spaced name.md"),
        ("a.b.c.json", "a.b.c.json"),
    ],
)
def test_directory_parts_are_stripped(name: str, expected: str) -> None:
    assert safe_file_name(name) == expected
    assert validate_upload(name, b"text") == expected


@pytest.mark.parametrize("name", ["../secret.md", "docs/../../etc/passwd.txt", "..\\..\\boot.ini.txt", "a/ .. /b.md"])
def test_parent_directory_is_refused(name: str) -> None:
    error = refused(name, b"text")
    assert error.source == name
    assert "must not contain '..'" in error.problem


@pytest.mark.parametrize("name", ["", "   ", "docs/", "/", "."])
def test_empty_name_is_refused(name: str) -> None:
    error = refused(name, b"text")
    assert error.problem == "the file name is empty"
    assert error.source == repr(name)


@pytest.mark.parametrize("name", [".md", "dir/.pdf", " .txt", "...md"])
def test_name_that_is_only_an_extension_is_refused(name: str) -> None:
    error = refused(name, b"text")
    assert "nothing before its extension" in error.problem


@pytest.mark.parametrize(
    "name", ["evil\x00.md", "line\nbreak.md", "tab\there.txt", "bell\x07.md", "del\x7f.md", "c1\x85.md"]
)
def test_control_characters_are_refused(name: str) -> None:
    error = refused(name, b"text")
    assert "control characters" in error.problem
    assert error.source == repr(name)  # shown escaped, so the message itself stays on one line
    assert "\n" not in str(error) and "\x00" not in str(error)


def test_very_long_name_is_refused() -> None:
    error = refused("x" * 300 + ".md", b"text")
    assert "longer than 255 characters" in error.problem


@pytest.mark.parametrize("name", ["tool.exe", "archive.tar.gz", "notes.docx", "image.png", "Makefile", "spec.json.bak"])
def test_extension_not_allowed_lists_allowed(name: str) -> None:
    error = refused(name, b"text")
    assert error.source == name
    assert "is not allowed; allowed: " in error.problem
    for extension in ALLOWED_EXTENSIONS:
        assert extension in error.problem
    assert str(error).startswith(f"{name}: file type ")


def test_no_extension_is_named_in_the_message() -> None:
    assert "file type (no extension) is not allowed" in refused("Makefile", b"all:").problem


def test_too_large_shows_size_and_limit() -> None:
    data = b"a" * (MAX_UPLOAD_BYTES + 6 * 1024 * 1024 // 10)  # 10.6 MB
    error = refused("huge.txt", data)
    assert error.source == "huge.txt"
    assert "too large (10.6 MB, 11,114,905 bytes)" in error.problem
    assert "the limit is 10 MB" in error.problem


def test_exactly_the_limit_passes() -> None:
    assert validate_upload("edge.txt", b"a" * MAX_UPLOAD_BYTES) == "edge.txt"
    assert "too large" in refused("edge.txt", b"a" * (MAX_UPLOAD_BYTES + 1)).problem


@pytest.mark.parametrize("name", ["empty.md", "empty.pdf", "empty.json"])
def test_empty_file_is_refused(name: str) -> None:
    error = refused(name, b"")
    assert str(error) == f"{name}: the file is empty"


def test_whitespace_only_text_is_refused() -> None:
    assert refused("blank.md", b" \n\t\r\n").problem == "the file is empty (only whitespace)"


@pytest.mark.parametrize("data", [b"hello, not a pdf", b"\x89PNG\r\n\x1a\n....", b" %PDF-1.4 late header"])
def test_pdf_without_magic_is_refused(data: bytes) -> None:
    error = refused("report.pdf", data)
    assert error.source == "report.pdf"
    assert "does not start with '%PDF-'" in error.problem


def test_pdf_with_binary_content_passes() -> None:
    assert validate_upload("scan.PDF", MINIMAL_PDF + bytes(range(256))) == "scan.PDF"


def test_nul_bytes_mean_binary() -> None:
    error = refused("notes.md", b"# Title\n" + b"x" * 20_000 + b"\x00")  # even far past the first 8 KB
    assert error.source == "notes.md"
    assert "binary" in error.problem and "NUL" in error.problem


@pytest.mark.parametrize("data", [b"caf\xe9 latin-1 text", b"\xff\xfe# utf-16\x00"[:-1], b"\x89PNG\r\n\x1a\n"])
def test_non_utf8_is_refused_as_binary(data: bytes) -> None:
    error = refused("doc.txt", data)
    assert error.source == "doc.txt"
    assert "binary" in error.problem and "not UTF-8" in error.problem
    assert "invalid byte at offset" in error.problem


def test_checks_run_on_the_safe_name() -> None:
    error = refused("uploads/tmp/huge.md", b"a" * (MAX_UPLOAD_BYTES + 1))
    assert error.source == "huge.md"
