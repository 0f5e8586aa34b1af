"""Chunks set aside at ingest (`rag.index.deferred`): searchable first what `full` searches, the rest embedded
afterwards — in the background or when first needed — and never half-written."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from rag.config import PRESETS, searched_strategies, set_aside_strategies
from rag.index import collections
from rag.index.deferred import complete_in_background, complete_pending
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


def test_the_default_sets_aside_only_what_full_does_not_search() -> None:
    assert set_aside_strategies() == ("naive",)
    assert not set(set_aside_strategies()) & set(searched_strategies([PRESETS[name] for name in ("full", "C2", "C3")]))
    assert "naive" in searched_strategies([PRESETS["C0"]])


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
    assert [(w.source, w.strategy, w.count) for w in set_aside.pending()] == [
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
    assert set_aside.complete_pending(strategies=("smart", "docs")) == 0
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
