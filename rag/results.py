"""What a configuration returns for one question: everything needed to see *why* it answered so."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rag.chunk import Chunk, RequestExample
from rag.errors import RagError
from rag.query import Query
from rag.request_example import curl_command, example_view
from rag.tokens import truncate_to_tokens

Confidence = Literal["answer", "partial", "abstain"]

# The score a reranker gives each candidate it orders (the learned ranker, a cross-encoder, an LLM); a candidate
# without one was ordered by retrieval alone.
RERANK_SCORE = "rerank"
SCORE_PRIORITY: tuple[str, ...] = (RERANK_SCORE, "fused", "vector", "bm25")  # the score that decided the order


def order_score_name(chunks: Sequence[RetrievedChunk]) -> str:
    """The score that decided a list's order: the first of `SCORE_PRIORITY` any of its chunks has ("" for none;
    in `full` the learned ranker's `rerank`, in C2 the fused RRF score)."""
    present = {name for item in chunks for name in item.scores}
    return next((name for name in SCORE_PRIORITY if name in present), "")


def placed_ahead(chunks: Sequence[RetrievedChunk], rule: str, moved: Sequence[RetrievedChunk] = ()
                 ) -> list[RetrievedChunk]:
    """The chunks in their new order, each that `rule` (a stage's name) put ahead of a chunk with a higher deciding
    score marked as placed by it (a copy; a chunk an earlier rule placed keeps its mark): the deciding scores of
    the unmarked chunks then fall with rank. A rule that says which chunks it `moved` (the lookup lift, the
    conversation's subject: the one it put first) has those marked; otherwise the fewest chunks that explain the new
    order are (of two neighbours swapped, either could be the one that moved)."""
    name = order_score_name(chunks)
    ordered = [item.copy(placed_by=rule) if any(item is m for m in moved) and not item.placed_by else item
               for item in chunks]
    scored = [n for n, item in enumerate(ordered) if not item.placed_by and name in item.scores]
    kept = _longest_falling([ordered[n].scores[name] for n in scored])
    for place, position in enumerate(scored):
        if place not in kept:
            ordered[position] = ordered[position].copy(placed_by=rule)
    return ordered


def _longest_falling(scores: Sequence[float]) -> set[int]:
    """The places of a longest run of `scores` (not necessarily adjacent) that never rises: the chunks a reorder
    left in score order; the others are the ones it moved (the fewest that explain the new order). Of equally long
    runs, the one ending last (a tie: the lift is marked), each place reached from the first earlier one possible."""
    values = [float(score) for score in scores]
    if all(a >= b for a, b in zip(values, values[1:], strict=False)):
        return set(range(len(values)))
    # Patience sorting: pile k holds, in order, the places whose longest run ending there has k + 1 chunks; within a
    # pile the scores rise (a lower one after a higher would make a longer run), so each pile's last score is its
    # highest, and those fall from pile to pile.
    piles: list[list[int]] = []
    highest: list[float] = []  # each pile's last score, negated (rising: bisect's order)
    before = [-1] * len(values)
    for later, value in enumerate(values):
        pile = bisect_right(highest, -value)  # the piles whose highest score is at least this one
        if pile:
            earlier = piles[pile - 1]
            before[later] = earlier[bisect_left(earlier, value, key=values.__getitem__)]
        if pile == len(piles):
            piles.append([])
            highest.append(0.0)
        piles[pile].append(later)
        highest[pile] = -value
    place = piles[-1][-1]
    kept: set[int] = set()
    while place >= 0:
        kept.add(place)
        place = before[place]
    return kept


def order_labels(chunks: Sequence[RetrievedChunk]) -> list[str]:
    """What decided each chunk's place, in list order: its deciding score (`rerank 1.234`), the stage that placed it
    ahead of a chunk that scored higher (`placed by subject`), or that it has no deciding score (placed after)."""
    name = order_score_name(chunks)
    labels = []
    for item in chunks:
        if item.placed_by:
            labels.append(f"placed by {item.placed_by}")
        elif name in item.scores:
            labels.append(f"{name} {item.scores[name]:.3f}")
        else:
            labels.append(f"no {name} score" if name else "")
    return labels


def _optional_float(value: Any) -> float | None:
    """A number read back from JSON, or None (absent, null, or not a number)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass
class RetrievedChunk:
    """A chunk in a result list with every score it got along the way."""

    chunk: Chunk
    scores: dict[str, float] = field(default_factory=dict)
    rank: int = 0
    rank_before_rerank: int | None = None
    placed_by: str = ""  # the stage that put it ahead of a chunk with a higher deciding score ("": its score did)

    def copy(self, rank: int | None = None, own_scores: bool = False, placed_by: str | None = None) -> RetrievedChunk:
        """The same candidate as a new object (at `rank` when given; with a scores dict of its own when
        `own_scores`, for a stage that adds scores; placed by the stage `placed_by` when given)."""
        scores = dict(self.scores) if own_scores else self.scores
        return RetrievedChunk(self.chunk, scores, self.rank if rank is None else rank, self.rank_before_rerank,
                              self.placed_by if placed_by is None else placed_by)

    def to_dict(self, include_text: bool = True) -> dict[str, Any]:
        """JSON-ready view (the evaluation record format)."""
        data: dict[str, Any] = {
            "chunk_id": self.chunk.chunk_id,
            "covers": list(self.chunk.covers),
            "api": self.chunk.api,
            "kind": self.chunk.kind,
            "title": self.chunk.title,
            "json_pointer": self.chunk.json_pointer,
            "source": self.chunk.source,
            "section": self.chunk.section_path if self.chunk.kind == "doc" else "",
            "tokens": self.chunk.tokens,
            "scores": {name: round(value, 6) for name, value in self.scores.items()},
            "rank": self.rank,
            "rank_before_rerank": self.rank_before_rerank,
            "placed_by": self.placed_by,
        }
        if include_text:
            data["text"] = self.chunk.text
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], chunk: Chunk) -> RetrievedChunk:
        """The entry `to_dict` wrote, around `chunk` (the indexed chunk it names); keys it no longer writes
        (`from_expansion` of older records) are ignored."""
        return cls(
            chunk,
            {str(name): float(value) for name, value in dict(data.get("scores") or {}).items()},
            int(data.get("rank") or 0),
            data.get("rank_before_rerank"),
            str(data.get("placed_by") or ""),
        )


_METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")


def readable_id(structural_id: str) -> str:
    """A structural id as a reader names it: `GET /unified/hris/employees`, the schema's name (`Employee`),
    `HRIS API overview`, `HRIS API conventions`; anything else unchanged."""
    api, _, rest = structural_id.partition(".")
    if rest.startswith("paths."):
        path, _, method = rest.removeprefix("paths.").rpartition(".")
        if path and method.lower() in _METHODS:
            return f"{method.upper()} {path}"
    if rest.startswith("components."):
        return rest.removeprefix("components.").split(".")[-1]
    if rest in ("overview", "conventions"):
        return f"{api.upper() if len(api) <= 4 else api} API {rest}"
    return structural_id


def source_label(chunk: Chunk) -> str:
    """How a reader names a chunk: a documentation section by its heading path and page (`Webhooks > Retries —
    https://docs.acme.test/webhooks.html`), anything else by its structural id read as words (`readable_id`)."""
    return Citation.of(chunk).label


@dataclass(frozen=True)
class Citation:
    """A source an answer used: structural id, JSON pointer, API and chunk; its source (a spec's file, a page's
    URL) and, for a documentation section, its heading path (`section`)."""

    structural_id: str
    json_pointer: str
    api: str
    chunk_id: str
    source: str = ""
    # The `[n]` the answer cites it by: the chunk's position in the context, which is also its rank in
    # the chunk table; 0 when the citation was not made from a numbered context.
    number: int = field(default=0, compare=False)
    section: str = ""

    @property
    def label(self) -> str:
        """How a reader names it: "Webhooks > Retries — https://docs.acme.test/webhooks.html" for a documentation
        section, `GET /unified/hris/employees` for an operation, the schema's name for a schema."""
        if self.section:
            return f"{self.section} — {self.source}" if self.source else self.section
        return readable_id(self.structural_id)

    @property
    def url(self) -> str:
        """The web page it comes from ("" unless its source is a web address: a crawled page)."""
        return self.source if self.source.startswith(("http://", "https://")) else ""

    def to_dict(self) -> dict[str, str | int]:
        """JSON-ready view."""
        return {
            "structural_id": self.structural_id,
            "json_pointer": self.json_pointer,
            "api": self.api,
            "chunk_id": self.chunk_id,
            "source": self.source,
            "number": self.number,
            "section": self.section,
            "url": self.url,
            "label": self.label,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Citation:
        """The citation `to_dict` wrote."""
        return cls(
            str(data.get("structural_id", "")),
            str(data.get("json_pointer", "")),
            str(data.get("api", "")),
            str(data.get("chunk_id", "")),
            str(data.get("source", "")),
            int(data.get("number") or 0),
            str(data.get("section", "")),
        )

    @classmethod
    def of(cls, chunk: Chunk, number: int = 0) -> Citation:
        """The citation of a chunk (cited as `[number]` when given)."""
        return cls(
            chunk.covers[0] if chunk.covers else chunk.chunk_id,
            chunk.json_pointer,
            chunk.api,
            chunk.chunk_id,
            chunk.source,
            number,
            chunk.section_path if chunk.kind == "doc" else "",
        )


@dataclass
class AnswerResult:
    """One configuration's answer to one question."""

    config: str
    question: str
    standalone_query: str = ""
    answer: str = ""
    abstained: bool = False
    confidence: Confidence = "answer"
    # The estimated probability that the first result is right; None when the configuration has no gate.
    confidence_score: float | None = None
    citations: list[Citation] = field(default_factory=list)
    dropped_citations: int = 0
    reasoning_steps: list[str] = field(default_factory=list)
    chunks: list[RetrievedChunk] = field(default_factory=list)
    pool: list[RetrievedChunk] = field(default_factory=list)
    detected_apis: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    generator: str = ""
    retrieval_only: bool = False
    notes: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # What the config asked for but could not do here ("LLM reranker unavailable: ran without reranking"):
    # the result then equals a simpler config's, and every view must say so.
    fallbacks: list[str] = field(default_factory=list)
    # The APIs whose chunks this config searches are not embedded yet (set aside at ingest, embedded in the
    # background: rag.index.deferred); it answered from the others, and a fallback says so.
    pending: list[str] = field(default_factory=list)
    # The stored result of the same question, conversation, configuration, generator and index (rag.cache):
    # timings then say how long the lookup took.
    cached: bool = False
    # A request that calls the operation the answer is about (curl and Python: rag.request_example); None when
    # the answer is about no operation, abstained, or the operation has none (a webhook).
    request_example: RequestExample | None = None
    # The structural id of the operation the answer is about (else the subject of the conversation it continues):
    # stored with the conversation's turn, a follow-up reads it instead of the answer's text. "" when none.
    subject: str = ""
    # The typed query the pipeline ran (its text form is `standalone_query`); not part of the record.
    query: Query | None = field(default=None, repr=False, compare=False)

    @classmethod
    def failed(
        cls, config: str, question: str, error: BaseException | str, total_ms: float | None = None
    ) -> AnswerResult:
        """The result of a configuration that failed: the error as its message (a library error's own message,
        any other prefixed with its type), timed by `total_ms` when given."""
        if isinstance(error, BaseException) and not isinstance(error, RagError):
            error = f"{type(error).__name__}: {error}"
        timings = {"total": total_ms} if total_ms is not None else {}
        return cls(config=config, question=question, errors=[str(error)], timings_ms=timings)

    @property
    def fell_back(self) -> bool:
        """Whether a stage of the config was unavailable and skipped."""
        return bool(self.fallbacks)

    @property
    def ok(self) -> bool:
        """Whether the configuration ran without error."""
        return not self.errors

    @property
    def total_ms(self) -> float:
        """Sum of the stage timings."""
        return round(sum(self.timings_ms.values()), 3)

    def to_dict(self, include_text: bool = True) -> dict[str, Any]:
        """JSON-ready view."""
        return {
            "config": self.config,
            "question": self.question,
            "standalone_query": self.standalone_query,
            "answer": self.answer,
            "abstained": self.abstained,
            "confidence": self.confidence,
            "confidence_score": None if self.confidence_score is None else round(self.confidence_score, 4),
            "citations": [citation.to_dict() for citation in self.citations],
            "dropped_citations": self.dropped_citations,
            "reasoning_steps": self.reasoning_steps,
            "chunks": [chunk.to_dict(include_text) for chunk in self.chunks],
            "pool": [{"chunk_id": c.chunk.chunk_id, "covers": list(c.chunk.covers), "rank": c.rank} for c in self.pool],
            "detected_apis": self.detected_apis,
            "timings_ms": {name: round(value, 3) for name, value in self.timings_ms.items()},
            "total_ms": self.total_ms,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "generator": self.generator,
            "retrieval_only": self.retrieval_only,
            "notes": self.notes,
            "facts": self.facts,
            "errors": self.errors,
            "fallbacks": self.fallbacks,
            "pending": self.pending,
            "cached": self.cached,
            "request_example": example_view(self.request_example) if self.request_example else None,
            "subject": self.subject,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], chunk_for: Callable[[str], Chunk | None]) -> AnswerResult:
        """A result back from `to_dict` (a saved conversation). Chunks come from the index by id
        (`chunk_for`); those it no longer has are left out. Timings keep their stages; the total is derived."""

        def retrieved(entries: Any) -> list[RetrievedChunk]:
            found = []
            for entry in entries or []:
                chunk = chunk_for(str(entry.get("chunk_id", "")))
                if chunk is not None:
                    found.append(RetrievedChunk.from_dict(entry, chunk))
            return found

        return cls(
            config=str(data.get("config", "")),
            question=str(data.get("question", "")),
            standalone_query=str(data.get("standalone_query", "")),
            answer=str(data.get("answer", "")),
            abstained=bool(data.get("abstained")),
            confidence=data.get("confidence", "answer"),
            confidence_score=_optional_float(data.get("confidence_score")),
            citations=[Citation.from_dict(c) for c in data.get("citations") or []],
            dropped_citations=int(data.get("dropped_citations") or 0),
            reasoning_steps=list(data.get("reasoning_steps") or []),
            chunks=retrieved(data.get("chunks")),
            pool=retrieved(data.get("pool")),
            detected_apis=list(data.get("detected_apis") or []),
            timings_ms={str(k): float(v) for k, v in dict(data.get("timings_ms") or {}).items()},
            tokens_in=int(data.get("tokens_in") or 0),
            tokens_out=int(data.get("tokens_out") or 0),
            generator=str(data.get("generator", "")),
            retrieval_only=bool(data.get("retrieval_only")),
            notes=list(data.get("notes") or []),
            facts=list(data.get("facts") or []),
            errors=list(data.get("errors") or []),
            fallbacks=list(data.get("fallbacks") or []),
            pending=list(data.get("pending") or []),
            cached=bool(data.get("cached")),
            request_example=RequestExample.from_dict(data["request_example"]) if data.get("request_example") else None,
            subject=str(data.get("subject") or ""),
        )


def render_result(result: Any, show: int = 5) -> str:
    """A readable block for one configuration's result."""
    score = getattr(result, "confidence_score", None)
    lines = [
        f"=== {result.config}  [{result.generator}]  {result.confidence}"
        + (f" (first result {score:.0%} likely right)" if isinstance(score, (int, float)) else "")
        + (" — ABSTAINED" if result.abstained else "")
        + f"  {result.total_ms:.0f} ms"
    ]
    lines.extend(f"FELL BACK: {fallback}" for fallback in getattr(result, "fallbacks", []))
    if result.standalone_query and result.standalone_query != result.question:
        lines.append(f"standalone query: {result.standalone_query}")
    if result.errors:
        lines.extend(f"error: {error}" for error in result.errors)
    if result.answer:
        lines.append(result.answer)
    if getattr(result, "request_example", None) is not None:
        lines.append("request:\n" + curl_command(result.request_example))
    if result.citations:
        lines.append("citations:")
        lines.extend(f"  [{c.number or n}] {c.label}" + ("" if c.section else f"  ({c.structural_id})")
                     for n, c in enumerate(result.citations, 1))
    for chunk, decided in zip(result.chunks[:show], order_labels(result.chunks[:show]), strict=True):
        scores = " ".join(f"{k}={v:.3f}" for k, v in chunk.scores.items())
        label = chunk.chunk.covers[0] if chunk.chunk.covers else chunk.chunk.chunk_id
        label = source_label(chunk.chunk) if chunk.chunk.kind == "doc" else label  # a page's section and URL
        shown = f"{decided}  (" + scores + ")" if len(chunk.scores) > 1 or not decided else decided
        lines.append(f"  {chunk.rank:>2}. {label}  {shown}")
    lines.extend(f"  note: {note}" for note in result.notes)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ConfigEvent:
    """Progress of one configuration among several running at once: streamed answer text or its result."""

    config: str
    kind: Literal["token", "result"]
    text: str = ""
    result: AnswerResult | None = None


def numbered_excerpts(chunks: Sequence[RetrievedChunk], excerpt_tokens: int) -> str:
    """The chunks as numbered one-line excerpts for an LLM prompt (`[1] title: compact text…`), each cut to
    `excerpt_tokens` tokens."""
    return "\n".join(
        f"[{number}] {c.chunk.title or c.chunk.covers[0]}: "
        + truncate_to_tokens(c.chunk.embedding_text or c.chunk.text, excerpt_tokens).replace("\n", " ")
        for number, c in enumerate(chunks, start=1)
    )
