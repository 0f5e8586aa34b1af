"""What the MCP tools return: typed output models (their JSON schemas are the tools' output schemas) and the
conversion of the pipeline's results into them."""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rag.request_example import curl_command, python_snippet
from rag.results import AnswerResult, RetrievedChunk


class SourceCitation(BaseModel):
    """A source an answer used."""

    structural_id: str = Field(description="what the source is, e.g. `hris.paths./unified/hris/employees.get`")
    json_pointer: str = Field(description="where it is in the spec, e.g. `/paths/~1unified~1hris~1employees/get`")
    api: str = Field(description="the API (spec, or crawled documentation site) it belongs to")
    url: str = Field(default="", description="the web page it comes from (a crawled page; '' for a spec)")
    section: str = Field(default="", description="a documentation section's heading path, e.g. `Webhooks > Retries`")


class RequestSnippet(BaseModel):
    """A request that calls the operation an answer is about, built from the spec (secrets are environment
    variables, `<name>` a value to fill in)."""

    method: str = Field(description="HTTP method, upper case")
    url: str = Field(description="the server URL and the path, its parameters filled")
    media_type: str = Field(description="the media type of the body ('' when the request has none)")
    body: str = Field(description="the body as JSON text: the fields the schema requires ('' when none)")
    curl: str = Field(description="the request as a curl command")
    python: str = Field(description="the request as Python (httpx)")


class AskResult(BaseModel):
    """A cited answer."""

    answer: str = Field(description="the answer, with [n] markers pointing at the citations")
    abstained: bool = Field(description="true when the indexed docs do not answer the question")
    confidence: str = Field(description="answer, partial or abstain (the confidence gate's verdict)")
    confidence_score: float | None = Field(
        default=None, description="the estimated probability that the first cited operation is the right one "
        "(calibrated on questions about specs the ranker never trained on); null without the confidence gate")
    citations: list[SourceCitation] = Field(description="the sources the answer used, in marker order")
    generator: str = Field(description="what wrote the answer: extractive, openai:MODEL, groq:MODEL or local")
    config: str = Field(description="the pipeline configuration used")
    notes: list[str] = Field(description="what each pipeline stage decided (intent filter, gate, …) and what it could "
                             "not do here (`fell back: …`, e.g. chunks not embedded yet)")
    request_example: RequestSnippet | None = Field(
        default=None, description="a request that calls the operation the answer is about (null: none)")


class SearchHit(BaseModel):
    """One retrieved chunk."""

    rank: int
    structural_id: str = Field(description="the first structural id the chunk covers")
    covers: list[str] = Field(description="every structural id the chunk is about")
    api: str
    kind: str = Field(description="operation, schema, overview or doc")
    title: str
    json_pointer: str
    source: str = Field(default="", description="the spec's file or the page's URL it comes from")
    section: str = Field(default="", description="a documentation section's heading path ('' for a spec's chunk)")
    scores: dict[str, float] = Field(description="vector/bm25/hybrid scores and the rerank score")
    decided_by: str = Field(default="", description="what decided its rank: the deciding score ('rerank 1.234' in "
                            "full, 'fused 0.033' in C2; they fall with rank) or the stage that placed it ahead")
    text: str = Field(description="the chunk text, as the answer generator sees it")


class SearchResult(BaseModel):
    """Ranked chunks for a query (no answer is generated)."""

    query: str
    api: str | None = Field(description="the API searched, or null for all")
    results: list[SearchHit]


class VersionDiff(BaseModel):
    """What changed between two indexed versions of one API."""

    api: str
    old: str = Field(description="the old version's label")
    new: str = Field(description="the new version's label")
    summary: dict[str, int] = Field(description="operations added / removed / changed, changes, errors (breaking), "
                                    "warnings, info")
    removed_operations: list[str] = Field(description="`METHOD /path` of every operation only the old version has")
    added_operations: list[str] = Field(description="`METHOD /path` of every operation only the new version has")
    changes: list[dict[str, Any]] = Field(description="the changes (kind, action, name, check, level: error / "
                                          "warning / info, attribute, old, new, breaking, schema, operations, "
                                          "message), errors first")


class Endpoint(BaseModel):
    """One operation of a spec."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    method: str = Field(description="HTTP method, upper case")
    path: str = Field(description="the path template (the webhook name for webhooks)")
    operation_id: str = Field(alias="operationId", description="the operationId ('' when the spec has none)")
    summary: str = Field(description="the operation's summary ('' when the spec has none)")
    structural_id: str
    webhook: bool = False


class EndpointList(BaseModel):
    """Every operation of one spec."""

    api: str
    count: int
    endpoints: list[Endpoint]


def ask_result(result: AnswerResult) -> AskResult:
    """The `ask_api` result of one pipeline run."""
    return AskResult(
        answer=result.answer,
        abstained=result.abstained,
        confidence=result.confidence,
        confidence_score=result.confidence_score,
        citations=[SourceCitation(structural_id=c.structural_id, json_pointer=c.json_pointer, api=c.api, url=c.url,
                                  section=c.section) for c in result.citations],
        generator=result.generator,
        config=result.config,
        notes=[*result.notes, *(f"fell back: {fallback}" for fallback in result.fallbacks)],
        request_example=request_snippet(result),
    )


def request_snippet(result: AnswerResult) -> RequestSnippet | None:
    """The request example of a result as the MCP tools return it (None when the result has none)."""
    example = result.request_example
    if example is None:
        return None
    return RequestSnippet(method=example.method, url=example.url, media_type=example.media_type, body=example.body,
                          curl=curl_command(example), python=python_snippet(example))


def search_hit(candidate: RetrievedChunk, decided_by: str = "") -> SearchHit:
    """One retrieved chunk as a `search_api` hit (scores rounded to 6 places; `decided_by`: what decided its rank,
    `order_labels`)."""
    chunk = candidate.chunk
    return SearchHit(
        rank=candidate.rank,
        structural_id=chunk.covers[0] if chunk.covers else chunk.chunk_id,
        covers=list(chunk.covers),
        api=chunk.api,
        kind=chunk.kind,
        title=chunk.title,
        json_pointer=chunk.json_pointer,
        source=chunk.source,
        section=chunk.section_path if chunk.kind == "doc" else "",
        scores={name: round(value, 6) for name, value in candidate.scores.items()},
        decided_by=decided_by,
        text=chunk.text,
    )
