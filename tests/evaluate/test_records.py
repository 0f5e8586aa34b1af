"""The evaluation record and its JSONL file: building, appending, and reading back (repairing or read-only)."""

from __future__ import annotations

import json
from pathlib import Path

from rag.config import PRESETS
from rag.evaluate.questions import Question
from rag.evaluate.records import (
    append_record,
    build_record,
    load_records,
    read_records,
    result_file,
    write_atomically,
)
from rag.results import AnswerResult, Citation, RetrievedChunk
from tests.fakes import make_chunk

RELEVANT = "shop-3_0.paths./orders.get"


def answer(*covers: str, **fields: object) -> AnswerResult:
    """A result whose chunks cover `covers`, in rank order."""
    chunks = [RetrievedChunk(make_chunk(sid, f"text of {sid} " * 10), {"vector": 0.51234567}, rank)
              for rank, sid in enumerate(covers, start=1)]
    return AnswerResult(config="full", question="q", chunks=chunks, pool=list(chunks), **fields)  # type: ignore[arg-type]


def question(**fields: object) -> Question:
    values: dict[str, object] = {"relevant_ids": (RELEVANT,), "required_keywords": ("orders",)}
    return Question("q1", "How do I list orders?", **{**values, **fields})  # type: ignore[arg-type]


# ---------------------------------------------------------------------- building
def test_build_record_of_a_generated_answer() -> None:
    result = answer("shop-3_0.paths./carts.get", RELEVANT, answer="GET /orders lists the orders",
                    timings_ms={"retrieve": 2.0, "rerank": 1.0, "generate": 30.0, "total": 33.5},
                    citations=[Citation(RELEVANT, "/paths/~1orders/get", "shop-3_0", "c1", number=1)],
                    tokens_in=10, tokens_out=5)
    record = build_record(question(), PRESETS["full"], result, retrieval_only=False, dry_run=False,
                          model="extractive", max_text_chars=12)
    assert record["query_id"] == "q1" and record["experiment"] == "full" and record["model"] == "extractive"
    assert record["answered"] and record["keyword_recall"] == 1.0 and record["failure"] is None
    assert record["first_relevant_rank"] == 2
    assert record["retrieval_time_ms"] == 3.0 and record["llm_time_ms"] == 30.0 and record["total_time_ms"] == 33.5
    assert len(record["citations"]) == 1 and record["error"] is None
    chunk = record["retrieved_chunks"][0]
    assert chunk["text"] == "text of shop…" and chunk["scores"] == {"vector": 0.512346}
    assert record["pool"] == [{"covers": ["shop-3_0.paths./carts.get"]}, {"covers": [RELEVANT]}]
    json.dumps(record)  # JSON-ready


def test_build_record_labels_failures_and_keeps_retrieval_only_records_lean() -> None:
    missed = build_record(question(), PRESETS["C0"], answer("shop-3_0.paths./carts.get"), retrieval_only=True,
                          dry_run=False, model="none (retrieval only)")
    assert missed["failure"] == "retrieval_miss" and not missed["answered"] and missed["keyword_recall"] is None
    assert missed["citations"] == [] and missed["first_relevant_rank"] is None
    failed = build_record(question(), PRESETS["C0"], answer(errors=["boom", "again"]), retrieval_only=False,
                          dry_run=False, model="m")
    assert failed["error"] == "boom; again" and failed["failure"] == "error" and not failed["answered"]


def test_result_file_replaces_unsafe_characters(tmp_path: Path) -> None:
    assert result_file(tmp_path, "full") == tmp_path / "full.jsonl"
    assert result_file(tmp_path, "my config/../x") == tmp_path / "my_config_.._x.jsonl"


# ---------------------------------------------------------------------- writing
def test_appended_records_read_back(tmp_path: Path) -> None:
    path = tmp_path / "C0.jsonl"
    with open(path, "a", encoding="utf-8") as handle:
        for n in range(3):
            append_record(handle, {"query_id": f"q{n}", "llm_answer": "é"})
    assert read_records(path) == ([{"query_id": f"q{n}", "llm_answer": "é"} for n in range(3)], 0)
    assert "é" in path.read_text(encoding="utf-8")  # not escaped


def test_write_atomically_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "metrics.json"
    path.write_text("old", encoding="utf-8")
    write_atomically(path, "new\n")
    assert path.read_text(encoding="utf-8") == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json"]


# ---------------------------------------------------------------------- reading, repairing
def test_read_records_repairs_files(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    good = [json.dumps({"query_id": f"q{n}"}) + "\n" for n in range(3)]
    path.write_text("".join(good) + '{"query_id": "q3", "tor', encoding="utf-8")
    records, dropped = read_records(path)
    assert [r["query_id"] for r in records] == ["q0", "q1", "q2"] and dropped == 1
    assert path.read_text(encoding="utf-8") == "".join(good)  # the torn tail is cut off
    # a valid record without its newline is not trusted either (the newline was not written)
    path.write_text("".join(good) + json.dumps({"query_id": "q3"}), encoding="utf-8")
    assert [r["query_id"] for r in read_records(path)[0]] == ["q0", "q1", "q2"]
    # garbage and duplicates in the middle: the file is rewritten with the valid, first-seen records
    path.write_text(good[0] + "garbage\n" + good[1] + good[0] + good[2], encoding="utf-8")
    records, dropped = read_records(path)
    assert [r["query_id"] for r in records] == ["q0", "q1", "q2"] and dropped == 2
    assert path.read_text(encoding="utf-8") == "".join(good)
    assert read_records(tmp_path / "missing.jsonl") == ([], 0)


def test_a_truncated_last_line_is_cut_off_so_the_next_record_starts_on_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "C0.jsonl"
    whole = json.dumps({"query_id": "q0", "llm_answer": "ok"}) + "\n"
    torn = json.dumps({"query_id": "q1", "llm_answer": "a long answer"})[:20]  # killed mid-write
    path.write_bytes((whole + "\n" + torn).encode("utf-8"))  # a blank line before the torn one is kept
    assert read_records(path) == ([{"query_id": "q0", "llm_answer": "ok"}], 1)
    assert path.read_text(encoding="utf-8") == whole + "\n"
    with open(path, "a", encoding="utf-8") as handle:
        append_record(handle, {"query_id": "q1", "llm_answer": "again"})
    assert [r["query_id"] for r in read_records(path)[0]] == ["q0", "q1"]
    assert read_records(path)[1] == 0  # nothing left to repair


def test_records_without_a_query_id_or_in_another_encoding_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "C0.jsonl"
    path.write_bytes(b'{"query_id": "q0"}\n{"no_id": 1}\n[1]\n\xff\xfe\n{"query_id": "q1"}\n')
    records, dropped = read_records(path)
    assert [r["query_id"] for r in records] == ["q0", "q1"] and dropped == 3
    assert path.read_bytes() == b'{"query_id": "q0"}\n{"query_id": "q1"}\n'


# ---------------------------------------------------------------------- reading, read-only
def test_load_records_keeps_every_object_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "C0.jsonl"
    text = '{"query_id": "q0"}\n\n{not json\n[1, 2]\n{"query_id": "q0"}\n{"other": true}\n{"query_id": "q9"}'
    path.write_text(text, encoding="utf-8")
    warnings: list[str] = []
    records = load_records(path, warnings)
    assert records == [{"query_id": "q0"}, {"query_id": "q0"}, {"other": True}, {"query_id": "q9"}]
    assert warnings == ["C0.jsonl line 3: not JSON (skipped)", "C0.jsonl line 4: not a JSON object (skipped)"]
    assert path.read_text(encoding="utf-8") == text
    assert load_records(path) == records  # warnings are optional


def test_load_records_of_a_missing_file(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert load_records(tmp_path / "gone.jsonl", warnings) == []
    assert len(warnings) == 1 and warnings[0].startswith("gone.jsonl: cannot read")
