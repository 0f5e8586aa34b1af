"""What the MCP tools return: pipeline results converted into the typed output models."""

from __future__ import annotations

from rag.chunk import RequestExample
from rag.mcp_results import AskResult, SearchHit, ask_result, search_hit
from rag.request_example import curl_command, python_snippet
from rag.results import AnswerResult, Citation, RetrievedChunk
from tests.fakes import make_chunk

CHUNK = make_chunk("hris.paths./employees.get", "GET /employees  [hris API]", kind="operation",
                   json_pointer="/paths/~1employees/get")


def test_an_answer_becomes_an_ask_result_with_its_citations() -> None:
    result = AnswerResult(
        question="How do I list employees?", config="full", answer="Call GET /employees [1].",
        citations=[Citation.of(CHUNK, 1)], generator="extractive (no LLM)", confidence="answer",
        confidence_score=0.82, notes=["gate: answer"],
    )
    converted = ask_result(result)
    assert isinstance(converted, AskResult)
    assert converted.model_dump() == {
        "answer": "Call GET /employees [1].", "abstained": False, "confidence": "answer", "confidence_score": 0.82,
        "citations": [{"structural_id": "hris.paths./employees.get", "json_pointer": "/paths/~1employees/get",
                       "api": "hris", "url": "", "section": ""}],
        "generator": "extractive (no LLM)", "config": "full", "notes": ["gate: answer"], "request_example": None,
    }


def test_what_a_config_could_not_do_is_among_the_notes() -> None:
    result = AnswerResult(question="q", config="C0", answer="x", notes=["retrieve: 3 candidates"],
                          fallbacks=["naive chunks of hris not embedded yet"], pending=["hris"])
    assert ask_result(result).notes == ["retrieve: 3 candidates", "fell back: naive chunks of hris not embedded yet"]


def test_an_answer_about_an_operation_carries_its_request_example() -> None:
    example = RequestExample("POST", "https://api.acme.test/employees", headers=(("x-account-id", "<x-account-id>"),),
                             media_type="application/json", body='{"name": "<name>"}')
    result = AnswerResult(question="How do I add an employee?", config="full", answer="Use POST /employees [1].",
                          request_example=example)
    snippet = ask_result(result).request_example
    assert snippet is not None
    assert (snippet.method, snippet.url, snippet.body) == ("POST", "https://api.acme.test/employees",
                                                           '{"name": "<name>"}')
    assert snippet.curl == curl_command(example) and snippet.python == python_snippet(example)


def test_a_retrieved_chunk_becomes_a_hit_with_rounded_scores() -> None:
    hit = search_hit(RetrievedChunk(chunk=CHUNK, rank=2, scores={"vector": 0.123456789, "bm25": 3.0}))
    assert isinstance(hit, SearchHit)
    assert (hit.rank, hit.structural_id, hit.covers, hit.kind, hit.text) == (
        2, "hris.paths./employees.get", ["hris.paths./employees.get"], "operation", CHUNK.text
    )
    assert hit.scores == {"vector": 0.123457, "bm25": 3.0}


def test_a_crawled_pages_section_is_cited_and_found_by_its_url_and_heading_path() -> None:
    page = make_chunk("acme.doc.webhooks/webhooks/retries", "Webhooks > Retries\n\nRetried five times.", kind="doc",
                      source="https://docs.acme.test/webhooks.html", section_path="Webhooks > Retries")
    result = AnswerResult(question="Are deliveries retried?", config="full", answer="Five times [1].",
                          citations=[Citation.of(page, 1)])
    cited = ask_result(result).citations[0]
    assert (cited.url, cited.section) == ("https://docs.acme.test/webhooks.html", "Webhooks > Retries")
    hit = search_hit(RetrievedChunk(chunk=page, rank=1))
    assert (hit.source, hit.section) == ("https://docs.acme.test/webhooks.html", "Webhooks > Retries")
