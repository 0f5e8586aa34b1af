"""The evaluation record (one question's outcome under one configuration) and its JSONL result file.

`build_record` makes a record; `result_file` names `OUT/<config>.jsonl`; `append_record` adds one line,
flushed and fsync'ed, so a killed run loses at most the line being written. Two readers share one line
parser: `read_records` is the runner's (it trusts only whole, unique records and repairs the file in place
before a resume) and `load_records` is the viewers' (it keeps every JSON object, changes nothing and says
which lines it skipped).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from rag.config import Config
from rag.evaluate.metrics import failure_label, keyword_recall, relevant_rank
from rag.evaluate.questions import Question
from rag.request_example import example_view
from rag.results import AnswerResult, RetrievedChunk

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def result_file(out_dir: Path, config_name: str) -> Path:
    """`OUT/<config>.jsonl` (characters unsafe in file names replaced)."""
    return Path(out_dir) / f"{_SAFE_NAME.sub('_', config_name)}.jsonl"


# ---------------------------------------------------------------------- the record
def _truncate(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return text[:limit] + "…"


def chunk_record(item: RetrievedChunk, max_text_chars: int | None = None) -> dict[str, Any]:
    """One retrieved chunk as stored in a record."""
    return {
        "chunk_id": item.chunk.chunk_id,
        "covers": list(item.chunk.covers),
        "api": item.chunk.api,
        "kind": item.chunk.kind,
        "title": item.chunk.title,
        "rank": item.rank,
        "scores": {name: round(float(value), 6) for name, value in item.scores.items()},
        "rank_before_rerank": item.rank_before_rerank,
        "text": _truncate(item.chunk.text, max_text_chars),
    }


def _pool_entry(item: RetrievedChunk) -> dict[str, Any]:
    """A candidate-pool entry (pool order is rank order): its covers, and its rank before reranking if any."""
    entry: dict[str, Any] = {"covers": list(item.chunk.covers)}
    if item.rank_before_rerank is not None:
        entry["rank_before_rerank"] = item.rank_before_rerank
    return entry


def _time_fields(result: AnswerResult) -> dict[str, Any]:
    """A record's times in ms: retrieval (every stage but generation), generation, total, and each stage."""
    timings = {name: round(float(value), 3) for name, value in result.timings_ms.items()}
    return {
        "retrieval_time_ms": round(sum(v for name, v in timings.items() if name not in ("generate", "total")), 3),
        "llm_time_ms": timings.get("generate", 0.0),
        "total_time_ms": timings.get("total", round(sum(timings.values()), 3)),
        "timings_ms": timings,
    }


def build_record(
    question: Question,
    config: Config,
    result: AnswerResult,
    *,
    retrieval_only: bool,
    dry_run: bool,
    model: str,
    max_text_chars: int | None = None,
) -> dict[str, Any]:
    """The JSON record of one question under one config (with its failure label)."""
    error = "; ".join(result.errors) if result.errors else None
    answered = not retrieval_only and not dry_run and error is None
    record: dict[str, Any] = {
        "query_id": question.id,
        "experiment": config.name,
        "query": question.question,
        "standalone_query": result.standalone_query,
        "category": question.category,
        "answerable": question.answerable,
        "history": [dict(turn) for turn in question.history],
        "retrieved_chunks": [chunk_record(item, max_text_chars) for item in result.chunks],
        "pool": [_pool_entry(item) for item in result.pool],
        "llm_answer": result.answer,
        "answered": answered,
        "abstained": bool(result.abstained),
        "confidence": result.confidence,
        "confidence_score": None if result.confidence_score is None else round(float(result.confidence_score), 4),
        "reasoning_steps": list(result.reasoning_steps),
        # retrieval-only "citations" would repeat retrieved_chunks: kept only for generated answers
        "citations": [citation.to_dict() for citation in result.citations] if not retrieval_only else [],
        "ground_truth": question.ground_truth,
        "relevant_ids": list(question.relevant_ids),
        "required_keywords": list(question.required_keywords),
        "first_relevant_rank": None,
        "keyword_recall": None,
        "failure": None,
        **_time_fields(result),
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "model": model,
        "retrieval_only": retrieval_only,
        "dry_run": dry_run,
        "notes": list(result.notes),
        "facts": list(result.facts),
        "fallbacks": list(result.fallbacks),
        "request_example": example_view(result.request_example) if result.request_example else None,
        "error": error,
    }
    record["first_relevant_rank"] = relevant_rank(record)
    if answered:
        record["keyword_recall"] = keyword_recall(result.answer, question.required_keywords)
    record["failure"] = failure_label(record)
    return record


# ---------------------------------------------------------------------- writing
def append_record(handle: IO[str], record: dict[str, Any]) -> None:
    """Write `record` as one JSON line to an open result file, flushed and fsync'ed."""
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()
    os.fsync(handle.fileno())


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` by `text` through `<path>.tmp` (fsync'ed), so a kill leaves the old file or the new one."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


# ---------------------------------------------------------------------- reading
def _lines(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """(line number from 1, offset just past the line, the line with its newline if it has one) for each line."""
    position = 0
    number = 0
    while position < len(data):
        newline = data.find(b"\n", position)
        end = len(data) if newline == -1 else newline + 1
        number += 1
        yield number, end, data[position:end]
        position = end


def parse_record(line: bytes) -> tuple[dict[str, Any] | None, str]:
    """The JSON object on one line of a result file, or None and why not (`not JSON`, `not a JSON object`)."""
    try:
        parsed = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, "not JSON"
    if not isinstance(parsed, dict):
        return None, "not a JSON object"
    return parsed, ""


def _trusted(line: bytes, seen: set[str]) -> dict[str, Any] | None:
    """The record on a newline-terminated line with a query id not seen before; None for anything else."""
    if not line.endswith(b"\n"):  # a line without its newline was torn by a kill: never trust it
        return None
    record, _ = parse_record(line)
    if record is None or record.get("query_id") is None or str(record["query_id"]) in seen:
        return None
    return record


def read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The valid records of a result file, repairing it in place; returns (records, lines dropped).

    A torn last line (a run killed mid-write) is cut off; invalid or duplicate lines elsewhere make the
    file be rewritten with only the valid, first-seen records.
    """
    if not path.is_file():
        return [], 0
    records: list[dict[str, Any]] = []
    seen: set[str] = set()
    dropped = 0
    good_end = 0  # end of the longest prefix of valid, unique, newline-terminated records
    records_after_problem = 0
    for _, end, line in _lines(path.read_bytes()):
        if not line.strip():
            if not dropped:
                good_end = end
            continue
        record = _trusted(line, seen)
        if record is None:
            dropped += 1
            continue
        seen.add(str(record["query_id"]))
        records.append(record)
        if dropped:
            records_after_problem += 1
        else:
            good_end = end
    if dropped and not records_after_problem:
        with open(path, "r+b") as handle:  # only a torn or broken tail: cut it off
            handle.truncate(good_end)
            handle.flush()
            os.fsync(handle.fileno())
    elif dropped:
        write_atomically(path, "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))
    return records, dropped


def load_records(path: Path, warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """Every JSON object of a result file, in file order, without changing the file (a run may still be
    writing it); lines that are not JSON objects are skipped and named in `warnings`."""
    try:
        data = path.read_bytes()
    except OSError as error:
        if warnings is not None:
            warnings.append(f"{path.name}: cannot read ({error})")
        return []
    records: list[dict[str, Any]] = []
    for number, _, line in _lines(data):
        if not line.strip():
            continue
        record, problem = parse_record(line)
        if record is not None:
            records.append(record)
        elif warnings is not None:
            warnings.append(f"{path.name} line {number}: {problem} (skipped)")
    return records
