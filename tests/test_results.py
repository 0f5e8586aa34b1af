"""Results read back from saved conversations and records, including those older versions wrote."""

from __future__ import annotations

from rag.chunk import RequestExample
from rag.request_example import curl_command
from rag.results import AnswerResult, Citation, RetrievedChunk, render_result
from tests.fakes import make_chunk


def test_a_saved_result_round_trips_and_keys_no_longer_written_are_ignored() -> None:
    chunk = make_chunk("api.paths./x.get", "GET /x", kind="operation")
    result = AnswerResult("full", "q", chunks=[RetrievedChunk(chunk, {"fused": 0.5}, rank=1, rank_before_rerank=2)])
    saved = result.to_dict()
    assert "from_expansion" not in saved["chunks"][0]
    saved["chunks"][0]["from_expansion"] = True  # what records written before reference expansion's removal hold
    restored = AnswerResult.from_dict(saved, {chunk.chunk_id: chunk}.get)
    assert restored.chunks == result.chunks
    assert restored.chunks[0].scores == {"fused": 0.5} and restored.chunks[0].rank_before_rerank == 2


def test_a_result_keeps_its_request_example_and_the_cli_shows_the_curl_after_the_answer() -> None:
    example = RequestExample("GET", "https://api.acme.test/x", query=(("q", "<q>"),), credential="ACME")
    result = AnswerResult("full", "q", answer="Use GET /x [1].", request_example=example)
    saved = result.to_dict()
    assert saved["request_example"]["curl"] == curl_command(example) and saved["request_example"]["method"] == "GET"
    assert AnswerResult.from_dict(saved, {}.get).request_example == example
    assert AnswerResult.from_dict({**saved, "request_example": None}, {}.get).request_example is None
    shown = render_result(result)
    assert shown.index("Use GET /x [1].") < shown.index("request:\ncurl \"https://api.acme.test/x?q=<q>\"")
    assert "request:" not in render_result(AnswerResult("full", "q", answer="No."))


def test_a_documentation_section_is_cited_by_its_heading_path_and_url_everywhere() -> None:
    page = make_chunk("acme.doc.limits/rate-limits", "Rate limits\n\n100 requests per minute.", kind="doc",
                      source="https://docs.acme.test/limits.html", section_path="Rate limits")
    citation = Citation.of(page, 1)
    assert (citation.section, citation.url) == ("Rate limits", "https://docs.acme.test/limits.html")
    assert citation.label == "Rate limits — https://docs.acme.test/limits.html"
    assert Citation.from_dict(citation.to_dict()) == citation and citation.to_dict()["label"] == citation.label
    operation = Citation.of(make_chunk("api.paths./x.get", "GET /x", kind="operation"), 2)
    assert (operation.label, operation.section, operation.url) == ("GET /x", "", "")
    result = AnswerResult("C2", "What is the rate limit?", answer="100 requests per minute. [1]",
                          citations=[citation, operation], chunks=[RetrievedChunk(page, {"fused": 0.5}, rank=1)])
    shown = render_result(result)
    assert "  [1] Rate limits — https://docs.acme.test/limits.html\n" in shown
    assert "  [2] GET /x  (api.paths./x.get)\n" in shown
    assert "   1. Rate limits — https://docs.acme.test/limits.html fused=0.500" in shown
    assert result.to_dict()["chunks"][0]["section"] == "Rate limits"
