"""Generated questions for every spec in ../shared/specs and ../shared/swagger2 read as a developer would write
them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from rag.corpus.path_words import resource_segments
from rag.evaluate.generate import make_questions
from rag.index.registry import DocumentRecord
from rag.index.snapshot import Snapshot
from rag.ingest.pipeline import parse_path
from tests.conftest import SHARED

pytestmark = pytest.mark.corpus

SPECS = sorted(p for folder in ("specs", "swagger2") for p in (SHARED / folder).rglob("*")
               if p.suffix in (".json", ".yml", ".yaml"))  # swagger2/: Swagger 2.0, converted on load
# Words that name our chunk kinds, never a developer's words.
CHUNK_KIND_WORDS = re.compile(r"\b(conventions shared|chunk|overview:|smart chunk|naive)\b", re.IGNORECASE)


@dataclass
class SnapshotIndex:
    """Just what the generator reads: a snapshot of one parsed spec (no embedding, no store)."""

    snap: Snapshot

    def snapshot(self) -> Snapshot:
        return self.snap


@cache
def index_of(path: Path) -> SnapshotIndex:
    parsed = parse_path(path)
    record = DocumentRecord(parsed.source, parsed.api, parsed.doc_type, parsed.content_hash, "1", title=parsed.title)
    return SnapshotIndex(Snapshot.build(1, parsed.chunks, [record]))


def test_every_shared_spec_is_found() -> None:
    if not SPECS:
        pytest.fail(f"no specs under {SHARED / 'specs'}; set RAG_SHARED_DIR")
    assert len(SPECS) >= 17


@pytest.mark.parametrize("path", SPECS, ids=[f"{p.parent.name}/{p.name}" for p in SPECS])
def test_generated_questions_name_real_resources_and_no_chunk_kinds(path: Path) -> None:
    index = index_of(path)
    api = index.snapshot().apis()[0]
    questions = make_questions(index, api, limit=40, seed=5, distractors="fresh")
    assert questions, f"no questions for {path.name}"
    words = {
        part
        for chunk in index.snapshot().chunks.values()
        if chunk.kind == "operation"
        for segment in resource_segments(chunk.path)
        for part in re.split(r"[_\-.]+", segment.lower())
        if part
    }
    for question in questions:
        assert not CHUNK_KIND_WORDS.search(question.question), question.question
        if question.category in ("endpoint", "write_check") and question.answerable:
            asked = {w.rstrip("s") for w in re.findall(r"[a-z]+", question.question.lower())}
            assert asked & {w.rstrip("s") for w in words}, f"names no resource of the spec: {question.question}"
    assert any(not q.answerable for q in questions), "every generated set has out-of-scope questions"
