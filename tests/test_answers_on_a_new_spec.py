"""Answers on a spec the code has never seen (tests/fixtures/specs/notes-3.1.yaml, written for these tests): the
lead states the asked fact from the typed facts ingest stored, and a conversation keeps its subject."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.pipeline.features import without_feature
from rag.runner import Engine

NOTES = Path(__file__).parent / "fixtures" / "specs" / "notes-3.1.yaml"
# The hashing embedder's similarities mean nothing to the gate's calibration: these tests are about the answers.
FULL = without_feature(PRESETS["full"], "abstention")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    from rag.index.build import ingest_paths

    index = Index(tmp_path_factory.mktemp("notes") / "index", HashingEmbedder())
    assert all(report.status == "added" for report in ingest_paths(index, [NOTES]))
    return Engine(index, default_llm="extractive")


def lines(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.strip()]


def test_the_authentication_lead_names_the_scheme_and_header_from_the_overview(engine: Engine) -> None:
    result = engine.run("How do I authenticate with the Jotter API?", FULL)
    first = lines(result.answer)[0]
    expected = "The Jotter Notes API uses an API key: send the header `X-Jotter-Key: <your API key>`"
    assert first.startswith(expected), result.answer
    assert "noteKey" not in first and "/notes" not in first
    assert "account settings page" in lines(result.answer)[1]


def test_a_paging_follow_up_answers_with_the_list_operations_pagination(engine: Engine) -> None:
    asked = "How do I list my notes?"
    first = engine.run(asked, FULL)
    assert lines(first.answer)[0].startswith("Use GET /notes (list notes)"), first.answer
    history = [{"role": "user", "content": asked}, {"role": "assistant", "content": first.answer}]
    follow_up = engine.run("and how do I page through them?", FULL, history)
    lead = "\n".join(lines(follow_up.answer)[:2])
    assert follow_up.chunks[0].chunk.title == "GET /notes"
    assert "`next_cursor`" in lead and "`cursor`" in lead and "`limit`" in lead and "maximum 200" in lead, lead
    assert any("subject" in note and "GET /notes" in note for note in follow_up.notes), follow_up.notes


def test_a_question_naming_a_new_resource_drops_the_subject(engine: Engine) -> None:
    history = [{"role": "user", "content": "How do I list my notes?"},
               {"role": "assistant", "content": "Use GET /notes (list notes). [1]"}]
    result = engine.run("How do I create a folder?", FULL, history)
    assert result.standalone_query == "How do I create a folder?"
    # The hashing embedder reads `folder_id`, a body field of POST /notes, as much as "folder": the two creations
    # come first (the real embedder ranks POST /folders first); the subject is not searched for.
    assert {c.chunk.title for c in result.chunks[:2]} == {"POST /folders", "POST /notes"}, result.answer
    assert not any("subject" in note for note in result.notes), result.notes
