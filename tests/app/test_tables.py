"""The answer tables (`webapp.tables`): chunks with every score, overlap across configurations, timings,
citations, documents, widths."""

from __future__ import annotations

import pandas as pd
import pytest

from rag.evaluate.saved_runs import SavedRun, load_run
from rag.results import AnswerResult, Citation, RetrievedChunk
from tests.fakes import answer_with_chunks, make_chunk
from tests.saved_run_fixtures import TINY_RUN
from webapp import charts, tables


@pytest.fixture
def run() -> SavedRun:
    return load_run(TINY_RUN)


def test_chunk_frame_has_every_score_and_rank() -> None:
    chunk = make_chunk("api.paths./x.get", "GET /x", kind="operation")
    items = [
        RetrievedChunk(chunk, {"vector": 0.5, "bm25": 2.0, "fused": 0.016, "rerank": 1.5}, rank=1,
                       rank_before_rerank=3),
        RetrievedChunk(make_chunk("api.components.X", "X"), {"vector": 0.2}, rank=2),
    ]
    frame = tables.chunk_frame(items)
    assert list(frame.columns) == list(tables.CHUNK_COLUMNS)
    assert frame.loc[0, "rank before rerank"] == 3 and pd.isna(frame.loc[1, "rank before rerank"])
    assert frame.loc[0, "rerank"] == 1.5 and pd.isna(frame.loc[1, "bm25"])
    assert "from expansion" not in frame.columns and "named" not in frame.columns
    assert frame.loc[0, "structural ids"] == "api.paths./x.get" and frame.loc[0, "kind"] == "operation"
    assert tables.chunk_frame([]).empty


def test_record_chunk_frame_reads_saved_chunks(run) -> None:  # type: ignore[no-untyped-def]
    frame = tables.record_chunk_frame(run.records["full"][1]["retrieved_chunks"])
    assert list(frame["structural ids"]) == ["people-3_1.paths./unified/hris/employees.get",
                                             "people-3_1.components.Employee"]
    assert list(frame["rank before rerank"]) == [1, 4]


def test_overlap_frame_lines_up_structural_ids_across_configs() -> None:
    a = answer_with_chunks("C0", ("api.paths./x.get", 1), ("api.components.A", 2), ("api.components.OnlyC0", 3))
    b = answer_with_chunks("full", ("api.components.A", 1), ("api.paths./x.get", 2), ("api.components.OnlyFull", 3))
    failed = AnswerResult(config="broken", question="q", errors=["boom"])
    frame = tables.overlap_frame([a, b, failed])
    assert list(frame.columns) == ["structural id", "api", "C0", "full", "found by", "only some"]
    rows = frame.set_index("structural id")
    assert rows.loc["api.paths./x.get", "C0"] == 1 and rows.loc["api.paths./x.get", "full"] == 2
    assert not rows.loc["api.components.A", "only some"]
    assert rows.loc["api.components.OnlyC0", "only some"] and pd.isna(rows.loc["api.components.OnlyC0", "full"])
    assert list(frame["found by"]) == [2, 2, 1, 1]  # shared rows first
    summary = tables.overlap_summary(frame, ["C0", "full"])
    assert summary == {"total": 4, "all": 2, "some": 2, "unique": {"C0": 1, "full": 1}}
    style = tables.overlap_styler(frame).to_html().split("</style>")[0]
    assert "#FFF4D6" in style
    assert "row2_col0" in style and "row3_col0" in style and "row0_col0" not in style  # only the "only some" rows
    figure = charts.overlap_figure(frame, ["C0", "full"])
    assert list(figure.data[0].x) == ["C0", "full"]
    assert sum(label.startswith("◆ ") for label in figure.data[0].y) == 2
    assert charts.overlap_figure(tables.overlap_frame([]), []).layout.annotations


def test_overlap_counts_a_chunk_covering_two_ids_for_both() -> None:
    chunk = make_chunk("api.paths./x.get", "naive /x")
    chunk = type(chunk)(**{**chunk.__dict__, "covers": ("api.paths./x.get", "api.paths./x.post")})
    a = AnswerResult(config="C0", question="q", chunks=[RetrievedChunk(chunk, {}, 1)])
    b = answer_with_chunks("full", ("api.paths./x.post", 1))
    rows = tables.overlap_frame([a, b]).set_index("structural id")
    assert rows.loc["api.paths./x.post", "found by"] == 2
    assert rows.loc["api.paths./x.get", "only some"]


def test_timings_tokens_and_citations() -> None:
    item = answer_with_chunks("full", ("api.paths./x.get", 1), timings_ms={"generate": 80.0, "embed": 1.25,
                              "retrieve": 10.0}, tokens_in=812, tokens_out=96, generator="extractive")
    frame = tables.timing_frame(item)
    assert list(frame["stage"]) == ["embed", "retrieve", "generate", "total"]
    assert frame["ms"].iloc[-1] == pytest.approx(91.2, abs=0.1)
    assert tables.timing_summary(item).startswith("embed 1.2 ms · retrieve 10.0 ms · generate 80.0 ms = 91 ms")
    assert tables.token_summary(item) == "tokens in 812 · out 96 · generator extractive"
    citation = Citation("api.paths./x.get", "/paths/~1x/get", "api", "full/api.paths./x.get", "api.json")
    assert tables.citation_label(1, citation) == "[1] GET /x"
    assert [tables.readable_id(i) for i in ("hris.paths./unified/hris/employees/{id}.delete",
                                             "hris.components.Employee", "hris.overview", "stackone.conventions",
                                             "docs.guide#intro")] == [
        "DELETE /unified/hris/employees/{id}", "Employee", "HRIS API overview", "stackone API conventions",
        "docs.guide#intro"]
    assert tables.find_cited_chunk(citation, item) is item.chunks[0]
    other = Citation("api.paths./x.get", "", "api", "gone", "")
    assert tables.find_cited_chunk(other, item) is item.chunks[0]
    assert list(tables.citation_frame([citation])["json pointer"]) == ["/paths/~1x/get"]


def test_a_documentation_section_is_named_by_its_heading_path_and_page_in_citations_and_the_chunk_list() -> None:
    page = make_chunk("acme.doc.limits/rate-limits", "Rate limits\n\n100 requests per minute.", kind="doc",
                      source="https://docs.acme.test/limits.html", section_path="Rate limits")
    assert tables.citation_label(1, Citation.of(page, 1)) == "[1] Rate limits — https://docs.acme.test/limits.html"
    item = RetrievedChunk(page, {"fused": 0.031}, rank=1)
    assert tables.compact_chunk_lines([item]) == [
        "- **1** · fused 0.031  \n  Rate limits — https://docs.acme.test/limits.html"]
    assert tables.chunk_frame([item]).loc[0, "source"] == "https://docs.acme.test/limits.html"


def test_markdown_safety_helpers() -> None:
    assert tables.safe_markdown("see ![x](http://evil/x.png)") == "see !\\[x](http://evil/x.png)"
    assert tables.md_escape("a_b *c* [d] <e> $f$ `g`") == "a\\_b \\*c\\* \\[d\\] \\<e\\> \\$f\\$ \\`g\\`"


def test_documents_and_chunk_tables(fixture_index) -> None:  # type: ignore[no-untyped-def]
    frame = tables.documents_frame(fixture_index.documents())
    assert list(frame["source"]) == ["people-3.1.json", "shop-3.0.yaml"]
    assert list(frame["api"]) == ["people-3_1", "shop-3_0"]
    assert (frame["ingest (s)"] >= 0).all() and frame["indexed at"].str.match(r"\d{4}-\d\d-\d\d").all()
    chunks = tables.document_chunks(fixture_index.snapshot().chunks.values(), "shop-3.0.yaml", "smart")
    assert chunks and {c.strategy for c in chunks} == {"smart"}
    assert chunks[0].kind == "overview"
    table = tables.document_chunks_frame(chunks)
    assert len(table) == len(chunks) and "json pointer" in table.columns
    metadata = tables.chunk_metadata(chunks[0])
    assert "text" not in metadata and "embedding_text" not in metadata and metadata["api"] == "shop-3_0"


def test_widths_fit_headers_and_short_values() -> None:
    frame = pd.DataFrame({"label": ["heldout-retrieval / full-minus-write_check"], "ranked_low": [0.5],
                          "answer": ["x" * 400]})
    widths = tables.fitted_widths(frame)
    assert widths["ranked_low"] >= len("ranked_low") * tables.CHARACTER_PX
    assert widths["label"] >= len("heldout-retrieval / full-minus-write_check") * tables.CHARACTER_PX
    assert "answer" not in widths  # long free text keeps the default width


def test_the_summary_of_many_configurations_uses_the_badges_words() -> None:
    rows = tables.results_summary_frame([
        AnswerResult("C5", "q", answer="x", fallbacks=["LLM reranker unavailable: ran without reranking"]),
        AnswerResult("full", "q", abstained=True, confidence="abstain"),
        AnswerResult("C0", "q", answer="No line matched the question's terms; the best-ranked source begins:"),
        AnswerResult("C3", "q", answer="Use GET /x. [1]"),
    ])  # fmt: skip
    assert list(rows["status"]) == ["fell back", "abstained", "no match", "answered"]
