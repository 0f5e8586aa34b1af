"""Chunks set aside at ingest (`rag.index.deferred`): searchable first what `full` needs at once (operations and
docs), the rest — the smart strategy's schema chunks, the naive strategy — embedded afterwards, in the background or
when first needed, and never half-written."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from rag.config import PRESETS, searched_strategies, set_aside_parts
from rag.index import collections
from rag.index.deferred import complete_in_background, complete_pending, pending_work
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.ingest.pipeline import parse_document, parse_path
from tests.conftest import FIXTURES

PEOPLE = FIXTURES / "specs" / "people-3.1.json"
SHOP = FIXTURES / "specs" / "shop-3.0.yaml"


def naive_stored(index: Index) -> int:
    """How many naive chunks the vector store holds (searchable or not)."""
    return int(index._collections["naive"].count())


@pytest.fixture
def set_aside(empty_index: Index) -> Index:
    """The people spec indexed with its naive chunks set aside."""
    report = empty_index.add(parse_path(PEOPLE), defer=("naive",))
    assert report.status == "added" and report.pending == ("naive",)
    return empty_index


def test_the_default_sets_aside_the_schemas_first_then_what_full_does_not_search() -> None:
    assert set_aside_parts() == ("smart:schema", "naive")
    searched = searched_strategies([PRESETS[name] for name in ("full", "C2", "C3")])
    assert "smart" in searched and "naive" not in searched and "naive" in searched_strategies([PRESETS["C0"]])
    assert PRESETS["full"].schemas_last  # why its schemas can wait: it ranks them after the operations


def test_smart_chunks_are_searchable_before_the_naive_ones_are_embedded(set_aside: Index) -> None:
    snapshot = set_aside.snapshot()
    record = set_aside.documents()[0]
    assert record.pending == ("naive",) and record.chunk_counts["naive"] > 0
    assert snapshot.by_strategy["smart"] and not snapshot.by_strategy["naive"]
    assert snapshot.pending == {"naive": (record.api,)}
    assert naive_stored(set_aside) == 0  # nothing of them was embedded
    query = set_aside.embedder.embed(["list employees"])[0]
    assert set_aside.vector_search("smart", query, 5) and set_aside.vector_search("naive", query, 5) == []
    stats = set_aside.stats()
    assert stats["chunks"]["naive"] == 0 and stats["pending"] == {"naive": record.chunk_counts["naive"]}
    assert [(w.source, w.part, w.count) for w in set_aside.pending()] == [
        (record.source, "naive", record.chunk_counts["naive"])]


def test_completing_makes_them_searchable_in_a_new_generation(set_aside: Index) -> None:
    before = set_aside.snapshot()
    expected = set_aside.documents()[0].chunk_counts["naive"]
    progress: list[tuple[str, int, int]] = []
    assert set_aside.complete_pending(progress=lambda *step: progress.append(step)) == expected
    after = set_aside.snapshot()
    assert after.generation != before.generation
    assert len(after.by_strategy["naive"]) == expected and after.pending == {}
    assert set_aside.documents()[0].pending == () and set_aside.pending() == []
    assert progress[-1] == ("people-3.1.json", expected, expected)
    assert set_aside.registry.deferred(set_aside.documents()[0].version, "naive") == []
    assert set_aside.complete_pending() == 0  # nothing left to do
    reopened = Index(set_aside.directory, HashingEmbedder())  # another process sees the same
    assert len(reopened.snapshot().by_strategy["naive"]) == expected


def test_only_the_strategies_asked_for_are_completed(set_aside: Index) -> None:
    assert set_aside.complete_pending(("smart", "docs")) == 0
    assert set_aside.pending()


def test_an_interrupted_completion_leaves_a_consistent_index_that_resumes(
    set_aside: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after its first batch (as a killed background thread leaves it): the chunks stored so far stay
    invisible, the index opens as complete, and the next run stores every chunk once."""
    monkeypatch.setattr(collections, "EMBED_BATCH_SIZE", 2)
    expected = set_aside.documents()[0].chunk_counts["naive"]
    stop = threading.Event()
    assert complete_pending(set_aside, progress=lambda *_: stop.set(), stop=stop) == 2
    assert naive_stored(set_aside) == 2
    reopened = Index(set_aside.directory, HashingEmbedder())  # opens: no "incomplete index" error
    assert not reopened.snapshot().by_strategy["naive"] and reopened.pending()
    assert reopened.complete_pending() == expected
    assert naive_stored(reopened) == expected == len(reopened.snapshot().by_strategy["naive"])


class FailingEmbedder(HashingEmbedder):
    """Embeds `allowed` batches, then fails (a crash in the middle of the background work)."""

    def __init__(self, allowed: int) -> None:
        super().__init__()
        self.allowed = allowed

    def embed(self, texts):  # type: ignore[no-untyped-def]
        if self.allowed <= 0:
            raise OSError("disk full")
        self.allowed -= 1
        return super().embed(texts)


def test_a_failure_midway_leaves_the_strategy_pending_and_the_rest_answering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(collections, "EMBED_BATCH_SIZE", 2)
    index = Index(tmp_path / "index", FailingEmbedder(allowed=100))
    index.add(parse_path(PEOPLE), defer=("naive",))
    index.embedder.allowed = 1  # type: ignore[attr-defined]
    with pytest.raises(OSError, match="disk full"):
        index.complete_pending()
    assert index.pending() and not index.snapshot().by_strategy["naive"] and index.snapshot().by_strategy["smart"]
    index.embedder.allowed = 100  # type: ignore[attr-defined]
    assert index.complete_pending() == index.documents()[0].chunk_counts["naive"]


def test_replacing_or_deleting_a_document_drops_its_set_aside_chunks(set_aside: Index) -> None:
    old = set_aside.documents()[0]
    document = json.loads(PEOPLE.read_text())
    document["info"]["description"] = "A changed spec."
    set_aside.add(parse_document(PEOPLE.name, json.dumps(document).encode()), defer=("naive",))
    new = set_aside.documents()[0]
    assert new.version != old.version and new.pending == ("naive",)
    assert set_aside.registry.deferred(old.version, "naive") == []
    assert len(set_aside.registry.deferred(new.version, "naive")) == new.chunk_counts["naive"]
    set_aside.delete(new.source)
    assert set_aside.registry.deferred(new.version, "naive") == [] and set_aside.pending() == []


def test_a_version_replaced_while_it_was_completed_is_not_written(set_aside: Index) -> None:
    """The background run stores nothing for a version that is no longer live (replaced meanwhile)."""
    work = set_aside.pending()[0]
    set_aside.delete(work.source)
    assert set_aside.store_pending(work.version, "naive", [], np.zeros((0, 384), dtype=np.float32)) is False
    assert set_aside.finish_pending(work.version, "naive") is False


def test_the_background_thread_completes_and_picks_up_what_later_uploads_set_aside(set_aside: Index) -> None:
    thread = complete_in_background(set_aside)
    assert thread is not None
    set_aside.add(parse_path(SHOP), defer=("naive",))  # while it runs (or after): done all the same
    thread.join(timeout=60)
    again = complete_in_background(set_aside)  # a later upload's call starts it again when needed
    if again is not None:
        again.join(timeout=60)
    assert set_aside.pending() == []
    assert len(set_aside.snapshot().by_strategy["naive"]) == sum(r.chunk_counts["naive"] for r in set_aside.documents())
    assert complete_in_background(set_aside) is None  # nothing pending: no thread


def test_an_index_built_without_setting_aside_is_read_as_before(fixture_index: Index) -> None:
    assert fixture_index.pending() == [] and fixture_index.snapshot().pending == {}
    assert all(record.pending == () for record in fixture_index.documents())
    assert fixture_index.snapshot().by_strategy["naive"]


# ---------------------------------------------------------------- the schema tier: a part of the smart strategy


def kinds(index: Index, strategy: str = "smart") -> dict[str, int]:
    """How many chunks of each kind the live snapshot shows of a strategy."""
    snapshot = index.snapshot()
    found: dict[str, int] = {}
    for chunk_id in snapshot.by_strategy[strategy]:
        found[snapshot.chunks[chunk_id].kind] = found.get(snapshot.chunks[chunk_id].kind, 0) + 1
    return found


@pytest.fixture
def schemas_aside(empty_index: Index) -> Index:
    """The people spec indexed as ingest does by default: its schema chunks and its naive chunks set aside."""
    report = empty_index.add(parse_path(PEOPLE), defer=set_aside_parts())
    assert report.status == "added" and report.pending == ("smart:schema", "naive")
    assert "smart (schema chunks not embedded yet)" in report.counts_text()
    return empty_index


def test_a_spec_goes_live_with_its_operations_before_its_schemas_are_embedded(schemas_aside: Index) -> None:
    parsed = parse_path(PEOPLE)
    schemas = sum(1 for c in parsed.chunks if c.strategy == "smart" and c.kind == "schema")
    record = schemas_aside.documents()[0]
    assert schemas > 0 and record.pending_counts == {"smart:schema": schemas, "naive": record.chunk_counts["naive"]}
    assert record.chunk_counts["smart"] == sum(1 for c in parsed.chunks if c.strategy == "smart")
    shown = kinds(schemas_aside)
    assert shown["operation"] > 0 and "schema" not in shown
    assert schemas_aside._collections["smart"].count() == record.chunk_counts["smart"] - schemas  # none embedded
    assert schemas_aside.snapshot().pending == {"smart:schema": (record.api,), "naive": (record.api,)}
    assert [(w.part, w.count) for w in schemas_aside.pending()] == [
        ("smart:schema", schemas), ("naive", record.chunk_counts["naive"])]  # the order they are embedded in
    assert schemas_aside.stats()["pending"] == {"smart:schema": schemas, "naive": record.chunk_counts["naive"]}
    assert schemas_aside.stats()["chunks"]["smart"] == record.chunk_counts["smart"] - schemas


def test_completing_what_full_searches_embeds_the_schemas_and_leaves_the_naive_chunks_aside(
    schemas_aside: Index, tmp_path: Path
) -> None:
    before = schemas_aside.snapshot()
    progress: list[tuple[str, int, int]] = []
    schemas = schemas_aside.documents()[0].pending_counts["smart:schema"]
    assert schemas_aside.complete_pending(searched_strategies([PRESETS["full"]]),
                                          lambda *step: progress.append(step)) == schemas
    after = schemas_aside.snapshot()  # the same Index: what it read before is not kept for the completed version
    assert after.generation != before.generation and kinds(schemas_aside)["schema"] == schemas
    assert progress[-1] == (PEOPLE.name, schemas, schemas)
    assert schemas_aside.documents()[0].pending == ("naive",) and after.pending == {"naive": (after.apis()[0],)}
    assert schemas_aside.registry.deferred(schemas_aside.documents()[0].version, "smart:schema") == []
    # the smart chunks are now exactly those of an index that embedded everything at once, with the same vectors
    at_once = Index(tmp_path / "at-once", HashingEmbedder())
    at_once.add(parse_path(PEOPLE))
    assert after.by_strategy["smart"] == at_once.snapshot().by_strategy["smart"]
    query = schemas_aside.embedder.embed(["employee fields"])[0]
    assert schemas_aside.vector_search("smart", query, 50) == at_once.vector_search("smart", query, 50)
    assert Index(schemas_aside.directory, HashingEmbedder()).snapshot().by_strategy == after.by_strategy


def test_an_interrupted_schema_completion_leaves_a_consistent_index_that_resumes(
    schemas_aside: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after a batch (a killed `rag ingest` after its spec went live): the schema chunks stored so far are
    in the smart collection but hidden, the index opens as complete, and the next run finishes them."""
    monkeypatch.setattr(collections, "EMBED_BATCH_SIZE", 1)
    record = schemas_aside.documents()[0]
    schemas, operations = record.pending_counts["smart:schema"], record.chunk_counts["smart"] - \
        record.pending_counts["smart:schema"]
    stop = threading.Event()
    assert complete_pending(schemas_aside, ("smart",), progress=lambda *_: stop.set(), stop=stop) == 1
    assert schemas_aside._collections["smart"].count() == operations + 1
    reopened = Index(schemas_aside.directory, HashingEmbedder())  # opens: no "incomplete index" error
    assert "schema" not in kinds(reopened) and "schema" not in kinds(schemas_aside)
    assert [w.part for w in reopened.pending()] == ["smart:schema", "naive"]
    assert reopened.complete_pending(("smart",)) == schemas
    assert kinds(reopened)["schema"] == schemas and reopened._collections["smart"].count() == operations + schemas
    assert kinds(schemas_aside)["schema"] == schemas  # the other reader sees them too


def test_a_replaced_version_drops_its_set_aside_schemas_and_none_are_stored_for_it(schemas_aside: Index) -> None:
    old = schemas_aside.documents()[0]
    document = json.loads(PEOPLE.read_text())
    document["info"]["description"] = "A changed spec."
    schemas_aside.add(parse_document(PEOPLE.name, json.dumps(document).encode()), defer=set_aside_parts())
    assert schemas_aside.registry.deferred(old.version, "smart:schema") == []
    schema = next(c for c in parse_path(PEOPLE).chunks if c.kind == "schema").with_version(old.version)
    assert schemas_aside.store_pending(old.version, "smart:schema", [schema],
                                       np.zeros((1, 384), dtype=np.float32)) is False
    assert schemas_aside.finish_pending(old.version, "smart:schema") is False
    new = schemas_aside.documents()[0]
    assert new.version != old.version and schemas_aside.complete_pending(("smart",)) == new.pending_counts[
        "smart:schema"]
    assert all(c.doc_version == new.version for c in schemas_aside.snapshot().chunks.values())


def test_every_documents_schemas_are_embedded_before_any_naive_chunks(schemas_aside: Index) -> None:
    schemas_aside.add(parse_path(SHOP), defer=set_aside_parts())
    order = [(w.part, w.source) for w in pending_work(schemas_aside.documents())]
    assert [part for part, _ in order] == ["smart:schema", "smart:schema", "naive", "naive"]
    thread = complete_in_background(schemas_aside)
    assert thread is not None
    thread.join(timeout=60)
    assert schemas_aside.pending() == [] and schemas_aside.snapshot().pending == {}


def test_a_registry_written_before_parts_existed_reads_its_pending_strategy_as_before(set_aside: Index) -> None:
    """A registry without the `pending_counts` column (an older index with naive chunks set aside) opens, counts the
    pending strategy from its chunk counts, and completes it."""
    import sqlite3

    with sqlite3.connect(set_aside.registry.path) as connection:
        connection.execute("ALTER TABLE documents DROP COLUMN pending_counts")
    reopened = Index(set_aside.directory, HashingEmbedder())
    record = reopened.documents()[0]
    assert record.pending == ("naive",) and record.pending_counts == {}
    assert [(w.part, w.count) for w in reopened.pending()] == [("naive", record.chunk_counts["naive"])]
    assert reopened.complete_pending() == record.chunk_counts["naive"] and reopened.pending() == []
