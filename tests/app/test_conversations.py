"""Saved conversations: the round trip, ids that may name files, unreadable files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.results import AnswerResult, Citation, RetrievedChunk
from tests.fakes import make_chunk
from webapp.asking import Turn
from webapp.conversations import load_conversation, new_conversation_id, save_conversation, valid_id

CHUNK = make_chunk("people.paths./people.get", "GET /people  [people API]\nSummary: List people", kind="operation")


def a_turn() -> Turn:
    result = AnswerResult(
        "full",
        "How do I list people?",
        standalone_query="How do I list people?",
        answer="Use GET /people (List people). [1]",
        confidence="answer",
        citations=[Citation.of(CHUNK, 1)],
        chunks=[RetrievedChunk(CHUNK, {"fused": 0.5, "rerank": 1.2}, rank=1, rank_before_rerank=2)],
        pool=[RetrievedChunk(CHUNK, {"fused": 0.5}, rank=1)],
        timings_ms={"retrieve": 3.0, "generate": 1.0},
        notes=["intent: none"],
        fallbacks=["no LLM: chain-of-thought verification skipped"],
    )
    return Turn("How do I list people?", ["full"], False, "extractive", 5, [result], seconds=0.4)


def test_a_conversation_round_trips_with_chunks_from_the_index(tmp_path: Path) -> None:
    conversation = new_conversation_id()
    save_conversation(tmp_path, conversation, [a_turn()])
    turns, problem = load_conversation(tmp_path, conversation, {CHUNK.chunk_id: CHUNK}.get)
    assert problem == ""
    restored = turns[0].result_for("full")
    original = a_turn().results[0]
    assert restored is not None
    assert restored.to_dict() == original.to_dict()
    assert turns[0].question == "How do I list people?" and turns[0].seconds == 0.4


def test_chunks_the_index_no_longer_has_are_left_out(tmp_path: Path) -> None:
    conversation = new_conversation_id()
    save_conversation(tmp_path, conversation, [a_turn()])
    turns, _ = load_conversation(tmp_path, conversation, lambda chunk_id: None)
    restored = turns[0].results[0]
    assert restored.chunks == [] and restored.answer.startswith("Use GET /people")


def test_only_ids_made_here_name_files(tmp_path: Path) -> None:
    assert valid_id(new_conversation_id())
    for bad in ("../../etc/passwd", "ABCDEF0123456789", "abc", None, ["0123456789abcdef"]):
        assert not valid_id(bad)
    with pytest.raises(ValueError, match="16 hex digits"):
        save_conversation(tmp_path, "../escape", [])
    assert load_conversation(tmp_path, "../escape", lambda chunk_id: None) == ([], "")


def test_an_unreadable_file_starts_a_new_conversation_with_a_reason(tmp_path: Path) -> None:
    conversation = new_conversation_id()
    (tmp_path / f"{conversation}.json").write_text("{not json", encoding="utf-8")
    turns, problem = load_conversation(tmp_path, conversation, lambda chunk_id: None)
    assert turns == [] and "could not be read" in problem
    assert list(tmp_path.glob(".tmp-*")) == []


def test_recent_conversations_are_newest_first_without_the_open_one(tmp_path: Path) -> None:
    import os

    from webapp.conversations import SavedConversation, recent_conversations, switch_to
    from webapp.ui import conversation_label

    ids = [new_conversation_id() for _ in range(3)]
    for age, conversation in enumerate(ids):
        path = save_conversation(tmp_path, conversation, [a_turn()] * (age + 1))
        os.utime(path, (1_000_000 - age * 10, 1_000_000 - age * 10))  # ids[0] is the newest
    (tmp_path / "0123456789abcdef.json").write_text("{broken", encoding="utf-8")  # unreadable: left out
    (tmp_path / "not-an-id.json").write_text('{"turns": []}', encoding="utf-8")
    recent = recent_conversations(tmp_path, limit=5, skip=ids[1])
    assert [r.conversation_id for r in recent] == [ids[0], ids[2]]
    assert recent[1].questions == 3 and recent[1].first_question == "How do I list people?"
    assert recent_conversations(tmp_path, limit=1)[0].conversation_id == ids[0]
    assert conversation_label(recent[1], width=10) == "How do I …  (+2)".replace("  ", " ")
    assert conversation_label(recent[0]) == "How do I list people?"
    url: dict[str, str] = {}
    switch_to(url, ids[2])
    assert url == {"conversation": ids[2]}
    with pytest.raises(ValueError, match="16 hex digits"):
        switch_to(url, "../etc/passwd")
    with pytest.raises(ValueError, match="allowed: 1 or more"):
        SavedConversation(ids[0], "q", 0, 0.0)
    assert recent_conversations(tmp_path / "missing") == []
