"""Tables (pandas DataFrames) the app shows: retrieved chunks, citations, timings, the overlap of several
configurations' results, indexed documents and their chunks. Pure functions, no Streamlit."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from rag.chunk import STRATEGIES, Chunk
from rag.index.registry import DocumentRecord
from rag.results import AnswerResult, Citation, RetrievedChunk, order_labels, source_label
from rag.results import readable_id as readable_id  # the app's pages name structural ids through this module

SCORE_COLUMNS: tuple[str, ...] = ("vector", "bm25", "fused", "rerank", "lookup")
CHUNK_COLUMNS: tuple[str, ...] = (
    "rank",
    "decided by",
    "rank before rerank",
    "structural ids",
    "api",
    "kind",
    *SCORE_COLUMNS,
    "title",
    "source",
    "chunk id",
)
STAGE_ORDER: tuple[str, ...] = (
    "rewrite",
    "embed",
    "intent",
    "retrieve",
    "rerank",
    "lookup",
    "write_check",
    "gate",
    "generate",
)
_IMAGE = re.compile(r"!\[")


def structural_label(chunk: Chunk) -> str:
    """The structural ids a chunk covers (its chunk id when it covers none)."""
    return ", ".join(chunk.covers) if chunk.covers else chunk.chunk_id


def chunk_frame(chunks: Sequence[RetrievedChunk]) -> pd.DataFrame:
    """One row per retrieved chunk: final rank, rank before rerank, ids, API, kind, every score."""
    rows: list[dict[str, Any]] = []
    for item, decided in zip(chunks, order_labels(chunks), strict=True):
        row: dict[str, Any] = {
            "rank": item.rank,
            "decided by": decided,
            "rank before rerank": item.rank_before_rerank,
            "structural ids": structural_label(item.chunk),
            "api": item.chunk.api,
            "kind": item.chunk.kind,
        }
        for name in SCORE_COLUMNS:
            row[name] = item.scores.get(name)
        row["title"] = item.chunk.title
        row["source"] = item.chunk.source
        row["chunk id"] = item.chunk.chunk_id
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(CHUNK_COLUMNS))
    frame["rank before rerank"] = frame["rank before rerank"].astype("Int64")
    for name in SCORE_COLUMNS:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("Float64")
    return frame


def compact_chunk_lines(chunks: Sequence[RetrievedChunk]) -> list[str]:
    """The compact view of retrieved chunks as Markdown list items: final rank, rank before rerank, the score
    that decided the order (with its name), and the whole structural ids on their own line — Markdown wraps
    long ids, where a table in a narrow column cuts them; a documentation section its heading path and page."""
    lines: list[str] = []
    for item, decided in zip(chunks, order_labels(chunks), strict=True):
        parts = [f"**{item.rank}**"]
        if item.rank_before_rerank is not None and item.rank_before_rerank != item.rank:
            parts.append(f"was {item.rank_before_rerank}")
        if decided:
            parts.append(decided)
        named = source_label(item.chunk) if item.chunk.kind == "doc" else structural_label(item.chunk)
        lines.append(f"- {' · '.join(parts)}  \n  {md_escape(named)}")
    return lines


def results_summary_frame(results: Sequence[AnswerResult]) -> pd.DataFrame:
    """One row per configuration of a question: status, confidence, top structural id, chunks and time — the
    at-a-glance comparison shown above the per-configuration tabs when many configurations answer."""
    from webapp.badges import badge_for

    rows = []
    for result in results:
        status = badge_for(result).status  # the same words as each column's badge
        top = structural_label(result.chunks[0].chunk) if result.chunks else ""
        fell_back = "; ".join(result.fallbacks)
        rows.append(
            {
                "config": result.config,
                "status": status,
                "confidence": None if result.confidence_score is None else round(result.confidence_score, 2),
                "top structural id": top,
                "chunks": len(result.chunks),
                "ms": round(result.total_ms),
                "fell back": fell_back,
            }
        )
    columns = ["config", "status", "confidence", "top structural id", "chunks", "ms", "fell back"]
    return pd.DataFrame(rows, columns=columns)


def record_chunk_frame(chunks: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The same table from a saved evaluation record's `retrieved_chunks`."""
    rows: list[dict[str, Any]] = []
    for rank, item in enumerate(chunks, start=1):
        scores = item.get("scores") or {}
        covers = item.get("covers") or []
        row: dict[str, Any] = {
            "rank": item.get("rank") or rank,
            "rank before rerank": item.get("rank_before_rerank"),
            "structural ids": ", ".join(covers) if covers else str(item.get("chunk_id", "")),
            "api": item.get("api", ""),
            "kind": item.get("kind", ""),
        }
        for name in SCORE_COLUMNS:
            row[name] = scores.get(name)
        row["title"] = item.get("title", "")
        row["source"] = item.get("source", "")
        row["chunk id"] = str(item.get("chunk_id", ""))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(CHUNK_COLUMNS))
    frame["rank before rerank"] = pd.to_numeric(frame["rank before rerank"], errors="coerce").astype("Int64")
    for name in SCORE_COLUMNS:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("Float64")
    return frame


def chunk_metadata(chunk: Chunk, retrieved: RetrievedChunk | None = None) -> dict[str, Any]:
    """Every field of a chunk except its two texts (shown separately), plus its scores when retrieved."""
    data = chunk.to_dict()
    data.pop("text", None)
    data.pop("embedding_text", None)
    if retrieved is not None:
        data["scores"] = {name: round(value, 6) for name, value in retrieved.scores.items()}
        data["rank"] = retrieved.rank
        data["rank_before_rerank"] = retrieved.rank_before_rerank
    return data


def code_language(chunk: Chunk) -> str:
    """How to highlight a chunk's text: naive spec chunks are JSON, the rest is prose."""
    text = chunk.text.lstrip()
    if chunk.strategy == "naive" and text.startswith(("{", "[")):
        return "json"
    return "markdown" if chunk.kind == "doc" else "text"


def citation_frame(citations: Sequence[Citation]) -> pd.DataFrame:
    """One row per citation: number, structural id, JSON pointer, API, source."""
    return pd.DataFrame(
        [
            {
                "#": number,
                "structural id": citation.structural_id,
                "json pointer": citation.json_pointer,
                "api": citation.api,
                "source": citation.source,
            }
            for number, citation in ((c.number or position, c) for position, c in enumerate(citations, start=1))
        ],
        columns=["#", "structural id", "json pointer", "api", "source"],
    )


def citation_label(number: int, citation: Citation) -> str:
    """`[1] GET /unified/hris/employees` (an operation), `[2] Employee` (a schema), `[3] HRIS API overview`, `[4]
    Webhooks > Retries — https://docs.acme.test/webhooks.html` (a documentation section: `Citation.label`)."""
    return f"[{number}] {citation.label}"


def find_cited_chunk(citation: Citation, result: AnswerResult) -> RetrievedChunk | None:
    """The retrieved chunk a citation points at (by chunk id, else by structural id)."""
    for item in result.chunks:
        if item.chunk.chunk_id == citation.chunk_id:
            return item
    for item in result.chunks:
        if citation.structural_id in item.chunk.covers:
            return item
    return None


def timing_frame(result: AnswerResult) -> pd.DataFrame:
    """Milliseconds per stage in pipeline order, then the total."""
    known = [stage for stage in STAGE_ORDER if stage in result.timings_ms]
    other = [stage for stage in result.timings_ms if stage not in STAGE_ORDER and stage != "total"]
    rows = [{"stage": stage, "ms": round(result.timings_ms[stage], 1)} for stage in known + other]
    rows.append({"stage": "total", "ms": round(sum(r["ms"] for r in rows), 1)})
    return pd.DataFrame(rows, columns=["stage", "ms"])


def timing_summary(result: AnswerResult) -> str:
    """`embed 0.4 ms · retrieve 5.8 ms · … = 112 ms` (one line)."""
    frame = timing_frame(result)
    parts = [f"{row.stage} {row.ms:,.1f} ms" for row in frame.itertuples() if row.stage != "total"]
    total = float(frame["ms"].iloc[-1]) if len(frame) else 0.0
    return (" · ".join(parts) + f" = {total:,.0f} ms") if parts else f"{total:,.0f} ms"


def token_summary(result: AnswerResult) -> str:
    """`tokens in 812 · out 96 · generator openai:gpt-4o-mini`."""
    return f"tokens in {result.tokens_in:,} · out {result.tokens_out:,} · generator {result.generator or 'n/a'}"


def safe_markdown(text: str) -> str:
    """Answer text safe to render as Markdown: images are shown as text (no remote fetches).

    Streamlit escapes raw HTML unless told otherwise; the app never tells it otherwise.
    """
    return _IMAGE.sub(r"!\\[", text or "")


# ---------------------------------------------------------------------- overlap
def overlap_frame(results: Sequence[AnswerResult]) -> pd.DataFrame:
    """Which structural ids each configuration retrieved, at which rank.

    One row per structural id; one column per configuration (its best rank, empty when not found);
    `found by` counts the configurations; `only some` marks rows not every configuration found.
    Configurations that failed are left out. Structural ids (not chunk ids) are compared, so naive and
    smart chunks of the same operation line up.
    """
    usable = [result for result in results if result.ok]
    names = [result.config for result in usable]
    ranks: dict[str, dict[str, int]] = {}
    apis: dict[str, str] = {}
    for result in usable:
        for item in result.chunks:
            for structural_id in item.chunk.covers or (item.chunk.chunk_id,):
                best = ranks.setdefault(structural_id, {})
                if result.config not in best or item.rank < best[result.config]:
                    best[result.config] = item.rank
                apis.setdefault(structural_id, item.chunk.api)
    rows: list[dict[str, Any]] = []
    for structural_id, found in ranks.items():
        row: dict[str, Any] = {"structural id": structural_id, "api": apis.get(structural_id, "")}
        for name in names:
            row[name] = found.get(name)
        row["found by"] = len(found)
        row["only some"] = len(found) < len(names)
        rows.append(row)
    columns = ["structural id", "api", *names, "found by", "only some"]
    frame = pd.DataFrame(rows, columns=columns)
    for name in names:
        frame[name] = pd.to_numeric(frame[name], errors="coerce").astype("Int64")
    if len(frame):
        frame["_best"] = frame[names].min(axis=1, skipna=True).astype("float64") if names else 0.0
        frame = frame.sort_values(["found by", "_best", "structural id"], ascending=[False, True, True])
        frame = frame.drop(columns="_best").reset_index(drop=True)
    return frame


def overlap_summary(frame: pd.DataFrame, configs: Sequence[str]) -> dict[str, Any]:
    """Counts for the overlap caption: shared by all, found by only some, unique to each configuration."""
    if frame.empty:
        return {"total": 0, "all": 0, "some": 0, "unique": dict.fromkeys(configs, 0)}
    unique = {name: int(((frame["found by"] == 1) & frame[name].notna()).sum()) for name in configs}
    return {
        "total": len(frame),
        "all": int((~frame["only some"]).sum()),
        "some": int(frame["only some"].sum()),
        "unique": unique,
    }


def overlap_styler(frame: pd.DataFrame) -> Any:
    """The overlap table with rows only some configurations found highlighted."""

    def highlight(row: pd.Series) -> list[str]:
        colour = "background-color: #FFF4D6" if bool(row.get("only some")) else ""
        return [colour] * len(row)

    return frame.style.apply(highlight, axis=1).format(na_rep="–")


# ---------------------------------------------------------------------- documents
def _when(timestamp: float) -> str:
    if not timestamp:
        return ""
    return dt.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def documents_frame(records: Iterable[DocumentRecord]) -> pd.DataFrame:
    """One row per indexed document: name, API, type, chunk counts, size, when and how fast it was indexed."""
    rows = []
    for record in records:
        counts = record.chunk_counts or {}
        rows.append(
            {
                "source": record.source,
                "api": record.api,
                "type": record.doc_type,
                "title": record.title,
                "version": record.api_version,
                "smart chunks": counts.get("smart", 0),
                "naive chunks": counts.get("naive", 0),
                "doc chunks": counts.get("docs", 0),
                "size (KB)": round(record.size_bytes / 1024, 1),
                "indexed at": _when(record.ingested_at),
                "ingest (s)": round(record.ingest_seconds, 2),
            }
        )
    columns = [
        "source",
        "api",
        "type",
        "title",
        "version",
        "smart chunks",
        "naive chunks",
        "doc chunks",
        "size (KB)",
        "indexed at",
        "ingest (s)",
    ]
    return pd.DataFrame(rows, columns=columns)


def document_chunks(chunks: Iterable[Chunk], source: str, strategy: str | None = None) -> list[Chunk]:
    """A document's chunks (optionally one strategy), in a stable reading order."""
    found = [c for c in chunks if c.source == source and (strategy is None or c.strategy == strategy)]
    order = {name: position for position, name in enumerate(STRATEGIES)}
    return sorted(
        found, key=lambda c: (order.get(c.strategy, 9), c.kind != "overview", c.json_pointer, c.part, c.chunk_id)
    )


def document_chunks_frame(chunks: Sequence[Chunk]) -> pd.DataFrame:
    """One row per chunk of a document: strategy, kind, structural ids, pointer or section, tokens."""
    rows = [
        {
            "strategy": chunk.strategy,
            "kind": chunk.kind,
            "structural ids": structural_label(chunk),
            "title": chunk.title,
            "json pointer": chunk.json_pointer,
            "section": chunk.section_path,
            "tokens": chunk.tokens,
            "part": f"{chunk.part}/{chunk.parts}",
            "chunk id": chunk.chunk_id,
        }
        for chunk in chunks
    ]
    columns = ["strategy", "kind", "structural ids", "title", "json pointer", "section", "tokens", "part", "chunk id"]
    return pd.DataFrame(rows, columns=columns)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~$])")


def md_escape(text: str) -> str:
    """Text shown literally inside Markdown (labels, captions): Markdown and LaTeX markers escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


# ---------------------------------------------------------------------- column widths (no truncated key columns)
CHARACTER_PX = 8  # about one character of the dataframe font
PADDING_PX = 28
MAX_TEXT_PX = 420


def header_width(name: object) -> int:
    """Pixels a column needs to show its whole header (`false-abstention rate`, `ranked_low`)."""
    return len(str(name)) * CHARACTER_PX + PADDING_PX


def text_width(values: Iterable[object], least: int = 6) -> int:
    """Pixels a text column needs for its longest value (at least `least` characters, at most MAX_TEXT_PX)."""
    longest = max((len(str(value)) for value in values), default=0)
    return min(max(longest, least) * CHARACTER_PX + PADDING_PX, MAX_TEXT_PX)


def fitted_widths(frame: pd.DataFrame) -> dict[str, int]:
    """Pixels per column of `frame`: enough for its header (numbers) or its values (short text), so no key
    column is cut to `heldout…`; long free text is left out (it keeps the table's default width)."""
    widths: dict[str, int] = {}
    for column in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[column]):
            widths[str(column)] = header_width(column)
        else:
            width = max(text_width(frame[column]), header_width(column))
            if width < MAX_TEXT_PX:
                widths[str(column)] = width
    return widths
