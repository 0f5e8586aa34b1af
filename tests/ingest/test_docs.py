"""Documentation chunking: Markdown sections, word windows, HTML and PDF."""

from __future__ import annotations

import io
import itertools
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pypdf import PdfReader, PdfWriter

from rag.chunk import Chunk
from rag.errors import ConfigError, IngestError
from rag.ingest.doc_parts import (
    DOC_EXTENSIONS,
    EMBEDDING_TOKENS,
    DocPart,
    DocSection,
    chunk_text_windows,
    doc_name_from_source,
    section_chunks,
)
from rag.ingest.docs import MAX_SECTION_TOKENS, chunk_document, chunk_markdown
from rag.ingest.html_docs import chunk_html
from rag.ingest.pdf_docs import chunk_pdf
from rag.tokens import estimate_tokens
from tests.conftest import FIXTURES

DOCS = FIXTURES / "docs"
_VOCABULARY = (
    "token", "scope", "widget", "request", "response", "header", "cursor", "page", "limit", "retry", "error",
    "field", "value", "client", "server", "endpoint", "version", "schema", "record", "account", "webhook", "event",
    "payload", "signature", "timeout", "region",
)  # fmt: skip


def words(count: int, seed: int = 0) -> str:
    """Deterministic filler prose of `count` words, a sentence every 12 words."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_VOCABULARY) + ("." if index % 12 == 11 else "") for index in range(count))


def numbered_words(count: int, prefix: str = "w") -> str:
    """`w1 w2 … wN` with a line break every 15 words, so each word is identifiable."""
    lines = [
        " ".join(f"{prefix}{i}" for i in range(start, min(start + 15, count + 1))) for start in range(1, count + 1, 15)
    ]
    return "\n".join(lines)


def make_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one Helvetica text stream per page (one PDF text line per input line)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for index, page in enumerate(pages):
        escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in page.split("\n")]
        operations = ["BT", "/F1 10 Tf", "12 TL", "40 800 Td", *(f"({line}) Tj T*" for line in escaped if line), "ET"]
        stream = "\n".join(operations).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {5 + 2 * index} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def encrypt_pdf(data: bytes, user_password: str) -> bytes:
    """Re-write a PDF encrypted with RC4-128 (needs no extra crypto package)."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def body_of(chunk: Chunk) -> str:
    """The chunk's text without its first line (the section path) and the blank line after it."""
    first, _, rest = chunk.text.partition("\n\n")
    assert first == chunk.section_path or chunk.section_path.startswith(first.rstrip(" …"))
    return rest


def by_path(chunks: list[Chunk]) -> dict[str, list[Chunk]]:
    grouped: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        grouped.setdefault(chunk.section_path, []).append(chunk)
    return grouped


def assert_common_fields(chunks: list[Chunk], source: str, api: str) -> None:
    assert chunks
    for chunk in chunks:
        assert chunk.strategy == "docs"
        assert chunk.kind == "doc"
        assert chunk.api == api
        assert chunk.source == source
        assert chunk.json_pointer == ""
        assert len(chunk.covers) == 1
        assert chunk.covers[0].startswith(f"{api}.doc.")
        expected_id = f"docs/{chunk.covers[0]}" + (f"#part{chunk.part}" if chunk.parts > 1 else "")
        assert chunk.chunk_id == expected_id
        assert 1 <= chunk.part <= chunk.parts
        assert chunk.text.split("\n", 1)[0] == chunk.section_path
        assert chunk.tokens == estimate_tokens(chunk.text)
        assert 0 < estimate_tokens(chunk.embedding_text) <= EMBEDDING_TOKENS
        assert chunk.embedding_text.startswith(" ".join(chunk.section_path.split()))
        assert Chunk.from_metadata(chunk.chunk_id, chunk.text, chunk.to_metadata()) == chunk
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def shared_edge(previous: str, following: str) -> list[str]:
    """The longest run of words that ends `previous` and starts `following`."""
    before, after = previous.split(), following.split()
    for size in range(min(len(before), len(after)), 0, -1):
        if before[-size:] == after[:size]:
            return after[:size]
    return []


# ----------------------------------------------------------------------------------------------
# Names and dispatch


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("getting-started.md", "getting-started"),
        ("Admin_Guide.rst", "admin_guide"),
        ("My Notes.v2.txt", "my-notes-v2"),
        ("docs/sub/page.HTML", "page"),
        ("C:\\docs\\Manual.pdf", "manual"),
        ("Über Café.markdown", "uber-cafe"),
        ("!!!.txt", "doc"),
    ],
)
def test_doc_name_from_source(source: str, expected: str) -> None:
    assert doc_name_from_source(source) == expected


@pytest.mark.parametrize("name", ["spec.json", "notes.docx", "archive.tar.gz", "README"])
def test_unsupported_extension_lists_allowed(name: str) -> None:
    with pytest.raises(IngestError) as caught:
        chunk_document(name, b"some text")
    message = str(caught.value)
    assert message.startswith(f"{name}: unsupported file type")
    for extension in DOC_EXTENSIONS:
        assert extension in message


def test_json_gets_a_hint_about_specs() -> None:
    with pytest.raises(IngestError, match=r"OpenAPI specs \(.json, .yaml, .yml\) are ingested as specs"):
        chunk_document("openapi.json", b"{}")


@pytest.mark.parametrize("name", ["a.md", "a.markdown", "a.txt", "a.rst", "a.html", "a.htm", "a.pdf"])
@pytest.mark.parametrize("data", [b"", b"  \n\t\r\n "])
def test_empty_file_is_refused(name: str, data: bytes) -> None:
    with pytest.raises(IngestError) as caught:
        chunk_document(name, data)
    assert str(caught.value) == f"{name}: the file is empty"


def test_building_blocks_refuse_empty_text() -> None:
    for function in (chunk_markdown, chunk_html, chunk_text_windows):
        with pytest.raises(IngestError, match="the file is empty"):
            function("x.md", "\n  \n")
    with pytest.raises(IngestError, match="the file is empty"):
        chunk_pdf("x.pdf", b"")


def test_non_utf8_text_is_refused() -> None:
    with pytest.raises(IngestError, match=r"notes\.md: not UTF-8 text \(invalid byte at offset 6\)"):
        chunk_document("notes.md", b"hello \xff\xfe world")
    with pytest.raises(IngestError, match="binary"):
        chunk_document("notes.txt", b"abc\x00def")


def test_dispatch_uses_the_right_chunker_for_each_fixture() -> None:
    markdown = chunk_document("getting-started.md", (DOCS / "getting-started.md").read_bytes())
    assert any(c.depth == 3 for c in markdown)  # header-aware, not windows
    html = chunk_document("page.html", (DOCS / "page.html").read_bytes())
    assert {c.section_path for c in html} >= {"Widgets > Create a widget"}
    text = chunk_document("release-notes.txt", (DOCS / "release-notes.txt").read_bytes())
    assert [c.covers for c in text] == [("release-notes.doc.w1",)]
    assert "pagination cursors" in text[0].text
    rst = chunk_document("Admin_Guide.rst", (DOCS / "Admin_Guide.rst").read_bytes())
    assert [c.chunk_id for c in rst] == ["docs/admin_guide.doc.w1"]
    assert "widgets-server --port 9090" in rst[0].text
    pdf = chunk_document("manual.pdf", make_pdf(["Manual page one text."]))
    assert "Manual page one text." in pdf[0].text
    upper = chunk_document("NOTES.MD", b"# Title\n\nBody text.")
    assert upper[0].section_path == "Title"


def test_source_keeps_only_the_base_name() -> None:
    chunks = chunk_document("some/dir/guide.md", b"# A\n\ntext")
    assert chunks[0].source == "guide.md"
    assert chunks[0].chunk_id == "docs/guide.doc.a"


# ----------------------------------------------------------------------------------------------
# Markdown


@pytest.fixture
def guide() -> list[Chunk]:
    return chunk_markdown("getting-started.md", (DOCS / "getting-started.md").read_text(encoding="utf-8"))


def test_markdown_common_fields(guide: list[Chunk]) -> None:
    assert_common_fields(guide, "getting-started.md", "getting-started")


def test_markdown_section_paths_ids_and_depths(guide: list[Chunk]) -> None:
    summary = [(c.chunk_id, c.section_path, c.title, c.depth) for c in guide]
    assert summary == [
        ("docs/getting-started.doc.intro", "getting-started.md", "getting-started.md", 0),
        ("docs/getting-started.doc.guide", "Guide", "Guide", 1),
        ("docs/getting-started.doc.guide/auth/tokens", "Guide > Auth > Tokens", "Tokens", 3),
        ("docs/getting-started.doc.guide/auth/scopes", "Guide > Auth > Scopes", "Scopes", 3),
        ("docs/getting-started.doc.guide/rate-limits", "Guide > Rate limits", "Rate limits", 2),
        ("docs/getting-started.doc.guide/errors", "Guide > Errors", "Errors", 2),
        ("docs/getting-started.doc.guide/errors-2", "Guide > Errors", "Errors", 2),
        ("docs/getting-started.doc.reference/endpoints", "Reference > Endpoints", "Endpoints", 2),
    ]


def test_hash_inside_code_blocks_is_not_a_heading(guide: list[Chunk]) -> None:
    titles = " | ".join(c.title for c in guide)
    for fake in ("Install the CLI", "also not a heading", "still inside the fence", "an indented code block"):
        assert fake not in titles
    sections = by_path(guide)
    guide_chunk = sections["Guide"][0]
    assert "# Install the CLI (this line is a shell comment, not a heading)" in guide_chunk.text
    assert "## also not a heading" in guide_chunk.text
    assert guide_chunk.has_code
    tokens = sections["Guide > Auth > Tokens"][0]
    assert "# still inside the fence" in tokens.text and tokens.has_code
    scopes = sections["Guide > Auth > Scopes"][0]
    assert "    # an indented code block, not a heading" in scopes.text and scopes.has_code


def test_section_text_starts_with_breadcrumb_then_heading_as_clean_text(guide: list[Chunk]) -> None:
    tokens = by_path(guide)["Guide > Auth > Tokens"][0]
    assert tokens.text.startswith("Guide > Auth > Tokens\n\nTokens\n\nCreate a token in the dashboard")
    assert "Scopes" not in tokens.text  # the next section is not mixed in
    rate = by_path(guide)["Guide > Rate limits"][0]
    assert rate.text.startswith("Guide > Rate limits\n\nRate limits\n\nEach token")  # a setext heading's text
    assert not rate.has_code


def test_front_matter_and_intro(guide: list[Chunk]) -> None:
    intro = guide[0]
    assert intro.text == "getting-started.md\n\nThis guide walks through your first API call."
    assert all("sidebar: main" not in c.text and c.title != "title: Getting started" for c in guide)


def test_heading_that_only_introduces_subsections_gets_no_chunk(guide: list[Chunk]) -> None:
    paths = {c.section_path for c in guide}
    assert "Guide > Auth" not in paths and "Reference" not in paths
    assert "Guide > Auth > Tokens" in paths


def test_empty_leaf_heading_is_kept() -> None:
    chunks = chunk_markdown("faq.md", "# FAQ\n\n## Billing\n\nAsk sales.\n\n## Coming soon\n")
    assert [c.section_path for c in chunks] == ["FAQ > Billing", "FAQ > Coming soon"]
    assert chunks[1].text == "FAQ > Coming soon\n\nComing soon"


def test_markdown_and_html_sections_get_the_same_ids_and_breadcrumbs() -> None:
    markdown = chunk_markdown("faq.md", "# FAQ\n\n## Billing\n\nAsk sales.\n\n# FAQ\n\n## Billing\n\nAgain.\n")
    html = chunk_html("faq.html", "<h1>FAQ</h1><h2>Billing</h2><p>Ask sales.</p>"
                                  "<h1>FAQ</h1><h2>Billing</h2><p>Again.</p>")
    expected = [("faq.doc.faq/billing", "FAQ > Billing"), ("faq.doc.faq/billing-2", "FAQ > Billing")]
    assert [(c.covers[0], c.section_path) for c in markdown] == expected
    assert [(c.covers[0], c.section_path) for c in html] == expected


def test_section_chunks_take_an_id_for_every_section_and_leave_out_headings_over_subsections() -> None:
    sections = [
        DocSection("intro", (), 0, (), has_text=False),
        DocSection("Auth", ("Auth",), 1, (DocPart("# Auth"),), has_text=False),
        DocSection("Tokens", ("Auth", "Tokens"), 2, (DocPart("one"), DocPart("two", has_code=True)), has_text=True),
        DocSection("Auth", ("Auth",), 1, (DocPart("# Auth"),), has_text=False),
    ]
    chunks = section_chunks("guide", "guide.md", sections)
    assert [(c.chunk_id, c.part, c.parts, c.has_code) for c in chunks] == [
        ("docs/guide.doc.auth/tokens#part1", 1, 2, False),
        ("docs/guide.doc.auth/tokens#part2", 2, 2, True),
        ("docs/guide.doc.auth-2", 1, 1, False),  # the last heading, empty but introducing nothing: kept
    ]
    assert chunks[0].text == "Auth > Tokens\n\none"


def test_heading_markup_is_flattened_in_breadcrumbs() -> None:
    chunks = chunk_markdown("api.md", "# The `GET /users` *call*\n\n## [Paging](https://x.y) & limits\n\ntext\n")
    assert chunks[0].section_path == "The GET /users call > Paging & limits"
    assert chunks[0].covers == ("api.doc.the-get-users-call/paging-limits",)


def test_crlf_line_endings() -> None:
    chunks = chunk_markdown("win.md", "# One\r\n\r\nfirst\r\n\r\n# Two\r\n\r\nsecond\r\n")
    assert [(c.section_path, body_of(c)) for c in chunks] == [("One", "One\n\nfirst"), ("Two", "Two\n\nsecond")]


def test_text_without_headings_is_one_intro_section() -> None:
    chunks = chunk_markdown("plain.md", "Just a paragraph.\n\nAnd another.")
    assert [(c.chunk_id, c.depth, c.text) for c in chunks] == [
        ("docs/plain.doc.intro", 0, "plain.md\n\nJust a paragraph.\n\nAnd another.")
    ]


def test_long_section_is_split_with_overlap() -> None:
    paragraphs = [words(90, seed) for seed in range(14)]
    chunks = chunk_markdown("long.md", "# Long\n\n## Part\n\n" + "\n\n".join(paragraphs) + "\n\n## Next\n\nend\n")
    assert_common_fields(chunks, "long.md", "long")
    parts = [c for c in chunks if c.section_path == "Long > Part"]
    assert len(parts) >= 3
    assert [c.part for c in parts] == list(range(1, len(parts) + 1))
    assert {c.parts for c in parts} == {len(parts)}
    assert {c.covers for c in parts} == {("long.doc.long/part",)}
    assert [c.chunk_id for c in parts] == [f"docs/long.doc.long/part#part{n}" for n in range(1, len(parts) + 1)]
    for chunk in parts:
        assert chunk.tokens <= MAX_SECTION_TOKENS
        assert chunk.text.startswith("Long > Part\n\n")
    for previous, following in itertools.pairwise(parts):
        shared = shared_edge(body_of(previous), body_of(following))
        assert 64 <= estimate_tokens(" ".join(shared)) <= 128, shared
    # Nothing is lost: every paragraph's last sentence is somewhere.
    joined = "\n".join(c.text for c in parts)
    for paragraph in paragraphs:
        assert paragraph[-60:] in joined
    assert by_path(chunks)["Long > Next"][0].parts == 1


def test_code_blocks_stay_whole_and_with_their_prose() -> None:
    blocks = []
    source = ["# API", ""]
    for index in range(6):
        code = "```python\n" + "\n".join(f"client.call_{index}_{n}(value={n})  # step {n}" for n in range(18)) + "\n```"
        blocks.append(code)
        source += [f"Example {index} explains: " + words(60, index), "", code, ""]
    chunks = chunk_markdown("api.md", "\n".join(source))
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.tokens <= MAX_SECTION_TOKENS
        assert chunk.text.count("```") % 2 == 0  # never cut inside a fence
        assert chunk.has_code == ("```" in chunk.text)
    for index, code in enumerate(blocks):
        holders = [c for c in chunks if code in c.text]
        assert holders, f"code block {index} was split"
        # The explanation that comes right before the block travels with it.
        assert any(f"Example {index} explains:" in c.text for c in holders)


def test_a_code_block_alone_over_the_limit_is_split_by_lines_in_fences() -> None:
    lines = [f"    response_{n} = client.get('/v1/widgets/{n}', timeout=30)" for n in range(200)]
    chunks = chunk_markdown("big.md", "# Big\n\nIntro sentence.\n\n```python\n" + "\n".join(lines) + "\n```\n")
    assert len(chunks) > 3
    seen: list[str] = []
    for chunk in chunks:
        assert chunk.tokens <= MAX_SECTION_TOKENS
        assert chunk.has_code
        body = body_of(chunk)
        for match in re.finditer(r"```python\n(.*?)\n```", body, flags=re.DOTALL):
            seen.extend(line for line in match.group(1).split("\n") if line not in seen)
    assert seen == lines  # every line once, in order, each piece re-fenced


def test_nested_code_in_a_long_list_is_not_split() -> None:
    items = []
    for index in range(30):
        items.append(f"- Step {index}: " + words(20, index))
        if index % 5 == 0:
            items.append("  ```sh\n" + "\n".join(f"  run step-{index} --flag {n}" for n in range(12)) + "\n  ```")
    chunks = chunk_markdown("steps.md", "# Steps\n\n" + "\n".join(items) + "\n")
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.tokens <= MAX_SECTION_TOKENS
        assert chunk.text.count("```") % 2 == 0
    for index in range(0, 30, 5):
        assert any(f"run step-{index} --flag 0" in c.text and f"run step-{index} --flag 11" in c.text for c in chunks)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.builds(
                lambda level, title: "#" * level + " " + title, st.integers(1, 6), st.text("abc XYZ", min_size=1)
            ),
            st.builds(lambda n, seed: words(n, seed), st.integers(1, 400), st.integers(0, 50)),
            st.builds(lambda n: "```\n" + "\n".join(f"code line {i}" for i in range(n)) + "\n```", st.integers(0, 300)),
            st.just("> quote with # hash"),
            st.just("- item\n- item two"),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_markdown_property_every_chunk_within_limits(blocks: list[str]) -> None:
    text = "\n\n".join(blocks)
    try:
        chunks = chunk_markdown("prop.md", text)
    except IngestError as error:
        assert error.problem == "the file is empty"
        return
    assert_common_fields(chunks, "prop.md", "prop")
    for chunk in chunks:
        assert chunk.tokens <= MAX_SECTION_TOKENS
        assert chunk.text.count("```") % 2 == 0


# ----------------------------------------------------------------------------------------------
# Word windows


def test_text_windows_overlap_and_never_cut_a_word() -> None:
    text = numbered_words(1200)
    chunks = chunk_text_windows("notes.txt", text)
    assert_common_fields(chunks, "notes.txt", "notes")
    assert [c.covers[0] for c in chunks] == ["notes.doc.w1", "notes.doc.w2", "notes.doc.w3"]
    assert [c.section_path for c in chunks] == [
        "notes.txt > words 1-500",
        "notes.txt > words 451-950",
        "notes.txt > words 901-1200",
    ]
    windows = [body_of(c).split() for c in chunks]
    assert [len(w) for w in windows] == [500, 500, 300]
    all_words = text.split()
    assert windows[0] == all_words[:500] and windows[1] == all_words[450:950] and windows[2] == all_words[900:]
    for previous, following in itertools.pairwise(windows):
        assert previous[-50:] == following[:50]
    for chunk in chunks:
        assert body_of(chunk) in text  # an exact slice: line breaks kept, no word cut
        assert (chunk.part, chunk.parts, chunk.depth) == (1, 1, 0)


def test_small_windows_with_custom_sizes() -> None:
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    chunks = chunk_text_windows("greek.txt", text, words=4, overlap=1)
    assert [body_of(c) for c in chunks] == [
        "alpha beta gamma delta",
        "delta epsilon zeta eta",
        "eta theta iota kappa",
    ]


def test_short_text_is_one_window() -> None:
    chunks = chunk_text_windows("tiny.txt", "  just three words\n")
    assert [(c.chunk_id, c.text) for c in chunks] == [("docs/tiny.doc.w1", "tiny.txt > words 1-3\n\njust three words")]


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, -1), (5, 7)])
def test_bad_window_settings_are_refused(size: int, overlap: int) -> None:
    with pytest.raises(ConfigError, match="is not allowed"):
        chunk_text_windows("x.txt", "some words here", words=size, overlap=overlap)


# ----------------------------------------------------------------------------------------------
# HTML


@pytest.fixture
def page() -> list[Chunk]:
    return chunk_html("page.html", (DOCS / "page.html").read_text(encoding="utf-8"))


def test_html_common_fields(page: list[Chunk]) -> None:
    assert_common_fields(page, "page.html", "page")


def test_html_drops_scripts_styles_and_comments(page: list[Chunk]) -> None:
    everything = "\n".join(c.text + c.embedding_text for c in page)
    for hidden in (
        "SECRET_TRACKING_ID",
        "tracker-123",
        "injected script text",
        "document.write",
        "font-family",
        "secret-style",
        "late-style",
        "an HTML comment",
        "Please enable JavaScript",
        "DOCTYPE",
    ):
        assert hidden not in everything


def test_html_sections_use_headings(page: list[Chunk]) -> None:
    assert [(c.chunk_id, c.section_path, c.title, c.depth) for c in page] == [
        ("docs/page.doc.intro", "Widgets Help", "Widgets Help", 0),
        ("docs/page.doc.widgets/create-a-widget", "Widgets > Create a widget", "Create a widget", 2),
        ("docs/page.doc.widgets/delete-a-widget", "Widgets > Delete a widget", "Delete a widget", 2),
    ]
    intro, create, delete = page
    assert intro.text == "Widgets Help\n\nWelcome to the Widgets help center."
    assert create.text.startswith(
        "Widgets > Create a widget\n\nCreate a widget\n\nSend a `POST` request to /v1/widgets.")  # code in backticks
    assert "/v1/widgets.\nThe response is 201." in create.text  # <br> is a line break
    assert 'curl -X POST https://api.example.com/v1/widgets \\\n  -d \'{"name": "gear"}\'' in create.text  # <pre> kept
    assert "- name is required\n- color is optional" in create.text  # list items
    assert create.has_code and not delete.has_code
    assert "Status | Meaning\n204 | deleted\n404 | no such widget" in delete.text  # table rows


def test_html_long_section_is_windowed_in_parts() -> None:
    paragraphs = "".join(f"<p>{numbered_words(100, prefix=f'p{n}w')}</p>" for n in range(12))
    chunks = chunk_html("long.htm", f"<h1>Manual</h1><h2>Setup</h2>{paragraphs}<h2>Other</h2><p>bye</p>")
    setup = [c for c in chunks if c.section_path == "Manual > Setup"]
    assert len(setup) == 3
    assert [c.chunk_id for c in setup] == [f"docs/long.doc.manual/setup#part{n}" for n in (1, 2, 3)]
    assert [(c.part, c.parts) for c in setup] == [(1, 3), (2, 3), (3, 3)]
    windows = [body_of(c).split() for c in setup]
    assert windows[0][0] == "Setup"  # the heading stays in the text
    for previous, following in itertools.pairwise(windows):
        assert previous[-50:] == following[:50]
    assert len(windows[0]) == 500


def test_html_without_visible_text_is_refused() -> None:
    with pytest.raises(IngestError, match=r"empty\.html: has no visible text"):
        chunk_html("empty.html", "<html><head><title>t</title><script>var x = 1;</script></head><body> </body></html>")


def test_html_without_title_or_headings_uses_file_name() -> None:
    chunks = chunk_html("snippet.html", "<div>Just <em>some</em> text</div>")
    assert [(c.section_path, c.text) for c in chunks] == [("snippet.html", "snippet.html\n\nJust some text")]


def test_deeply_nested_html_does_not_recurse() -> None:
    depth = 3000
    chunks = chunk_html("deep.html", "<div>" * depth + "<h2>Deep</h2><p>bottom text</p>" + "</div>" * depth)
    assert [c.section_path for c in chunks] == ["Deep"]
    assert "bottom text" in chunks[0].text


# ----------------------------------------------------------------------------------------------
# PDF


def test_pdf_text_is_windowed_with_page_locations() -> None:
    page_one, page_two = numbered_words(300, prefix="a"), numbered_words(400, prefix="b")
    chunks = chunk_pdf("Manual.pdf", make_pdf([page_one, page_two]))
    assert_common_fields(chunks, "Manual.pdf", "manual")
    assert [c.covers[0] for c in chunks] == ["manual.doc.w1", "manual.doc.w2"]
    assert [c.section_path for c in chunks] == ["Manual.pdf > pages 1-2", "Manual.pdf > page 2"]
    windows = [body_of(c).split() for c in chunks]
    assert windows[0] == page_one.split() + page_two.split()[:200]
    assert windows[0][-50:] == windows[1][:50]
    assert windows[1][-1] == "b400"


def test_pdf_encrypted_is_refused() -> None:
    data = encrypt_pdf(make_pdf(["Top secret words"]), user_password="hunter2")
    with pytest.raises(IngestError) as caught:
        chunk_document("secret.pdf", data)
    assert caught.value.source == "secret.pdf"
    assert "encrypted" in caught.value.problem
    assert str(caught.value).startswith("secret.pdf: ")


def test_pdf_with_only_an_owner_password_opens() -> None:
    data = encrypt_pdf(make_pdf(["Readable by anyone"]), user_password="")
    chunks = chunk_pdf("locked.pdf", data)
    assert "Readable by anyone" in chunks[0].text


def test_pdf_without_text_is_refused() -> None:
    with pytest.raises(IngestError) as caught:
        chunk_pdf("scan.pdf", make_pdf(["", ""]))
    assert caught.value.source == "scan.pdf"
    assert "no extractable text (scanned?)" in caught.value.problem


def test_broken_pdf_is_refused() -> None:
    with pytest.raises(IngestError, match=r"broken\.pdf: not a readable PDF"):
        chunk_pdf("broken.pdf", b"%PDF-1.4\nthis is not really a pdf")
