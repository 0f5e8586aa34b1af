"""The query result cache: keys, bounds, persistence, invalidation by any index change, and the engine's use."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from rag.cache import CacheSettings, QueryCache, cache_key, index_fingerprint
from rag.config import PRESETS
from rag.errors import ConfigError
from rag.index.store import Index
from rag.ingest.pipeline import parse_document
from rag.runner import Engine

QUESTION = "How do I list employees?"


def make_cache(tmp_path: Path, size: int = 100) -> QueryCache:
    return QueryCache(CacheSettings(tmp_path / "cache.sqlite3", size))


def test_settings_refuse_a_negative_size_and_name_what_is_allowed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"-1 is not allowed; allowed: a whole number ≥ 0"):
        CacheSettings(tmp_path / "c.sqlite3", -1)


def test_the_key_changes_with_every_part_it_covers() -> None:
    full = PRESETS["full"]
    base = cache_key(QUESTION, full, "extractive", None, False, "abc")
    assert base == cache_key(f"  {QUESTION} ", full, "extractive", [], False, "abc")
    variants = [
        cache_key("How do I list candidates?", full, "extractive", None, False, "abc"),
        cache_key(QUESTION, PRESETS["C0"], "extractive", None, False, "abc"),
        cache_key(QUESTION, replace(full, k=7), "extractive", None, False, "abc"),
        cache_key(QUESTION, full, "openai:gpt-4o", None, False, "abc"),
        cache_key(QUESTION, full, "extractive", [{"role": "user", "content": "hi"}], False, "abc"),
        cache_key(QUESTION, full, "extractive", None, True, "abc"),
        cache_key(QUESTION, full, "extractive", None, False, "abd"),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_entries_survive_a_new_cache_object_and_the_least_recently_used_go_first(tmp_path: Path) -> None:
    cache = make_cache(tmp_path, size=2)
    cache.put("a", "f", {"answer": "A"})
    cache.put("b", "f", {"answer": "B"})
    assert cache.get("a") == {"answer": "A"}  # `a` is now used more recently than `b`
    cache.put("c", "f", {"answer": "C"})
    reopened = make_cache(tmp_path, size=2)
    assert len(reopened) == 2
    assert reopened.get("b") is None and reopened.get("a") == {"answer": "A"} and reopened.get("c") == {"answer": "C"}


def test_a_write_under_another_fingerprint_drops_the_old_entries(tmp_path: Path) -> None:
    cache = make_cache(tmp_path)
    cache.put("a", "old", {"answer": "A"})
    cache.put("b", "new", {"answer": "B"})
    assert cache.get("a") is None and len(cache) == 1


def test_size_zero_turns_the_cache_off(tmp_path: Path) -> None:
    cache = make_cache(tmp_path, size=0)
    cache.put("a", "f", {"answer": "A"})
    assert cache.get("a") is None and not (tmp_path / "cache.sqlite3").exists()


def test_fingerprint_changes_with_an_ingest_and_a_delete_but_not_an_identical_reingest(fixture_index: Index) -> None:
    before = index_fingerprint(fixture_index)
    note = parse_document("notes.md", b"# Notes\n\nEmployees are listed with GET /employees.\n")
    fixture_index.add(note)
    added = index_fingerprint(fixture_index)
    assert added != before
    assert fixture_index.add(note).status == "skipped"
    assert index_fingerprint(fixture_index) == added
    fixture_index.delete("notes.md")
    assert index_fingerprint(fixture_index) == before


def test_the_engine_returns_a_stored_result_marked_cached_until_the_index_changes(
    fixture_index: Index, tmp_path: Path
) -> None:
    engine = Engine(fixture_index, default_llm="extractive", cache=make_cache(tmp_path))
    configs = [PRESETS["C0"], PRESETS["full"]]
    first = engine.run_many(QUESTION, configs)
    assert [r.cached for r in first] == [False, False]
    second = engine.run_many(QUESTION, configs)
    assert [r.cached for r in second] == [True, True]
    for fresh, stored in zip(first, second, strict=True):
        assert stored.answer == fresh.answer and stored.citations == fresh.citations
        assert [c.chunk.chunk_id for c in stored.chunks] == [c.chunk.chunk_id for c in fresh.chunks]
        assert list(stored.timings_ms) == ["cache"] and stored.to_dict()["cached"] is True
    streamed = [event.result for event in engine.stream_many(QUESTION, configs) if event.result is not None]
    assert [r.cached for r in streamed] == [True, True]
    assert not engine.run_many(QUESTION, configs, use_cache=False)[0].cached

    fixture_index.add(parse_document("notes.md", b"# Notes\n\nEmployees are listed with GET /employees.\n"))
    assert [r.cached for r in engine.run_many(QUESTION, configs)] == [False, False]


def test_an_engine_without_a_cache_never_marks_a_result_cached(fixture_index: Index) -> None:
    engine = Engine(fixture_index, default_llm="extractive")
    assert not any(r.cached for _ in range(2) for r in engine.run_many(QUESTION, [PRESETS["full"]]))


def test_evaluation_engines_have_no_cache(tmp_path: Path) -> None:
    from rag.runner import engine_from_settings
    from rag.settings import Settings

    settings = Settings(index_dir=tmp_path / "index", embedding_model="hashing")
    assert engine_from_settings(settings, llm="extractive").cache is None
    assert engine_from_settings(settings, llm="extractive", query_cache=True).cache is not None


def test_a_question_about_the_changes_since_a_version_is_found_again(tmp_path: Path, hashing_embedder) -> None:  # type: ignore[no-untyped-def]
    from tests.index.test_version_order import three_versions

    index = Index(tmp_path / "index", hashing_embedder)
    for label, spec in three_versions().items():
        index.add(parse_document("courses.json", spec, version=label))
    engine = Engine(index, default_llm="extractive", cache=make_cache(tmp_path))
    question = "What changed in the courses API since 2025-02?"
    first = engine.run_many(question, [PRESETS["full"]])[0]
    assert any(c.chunk.kind == "change" for c in first.chunks)  # made from the changes since 2025-02
    again = engine.run_many(question, [PRESETS["full"]])[0]
    assert again.cached and [c.chunk.chunk_id for c in again.chunks] == [c.chunk.chunk_id for c in first.chunks]
    # An identical re-ingest leaves the changes documents as they are.
    before = {r.source: r.ingested_at for r in index.documents() if r.doc_type == "changes"}
    index.add(parse_document("courses.json", three_versions()["2025-12"], version="2025-12"))
    assert {r.source: r.ingested_at for r in index.documents() if r.doc_type == "changes"} == before


def test_the_key_changes_with_the_code_that_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A result stored before an upgrade is not served after it: the key holds a hash of the library's source."""
    from rag import cache as cache_module

    (tmp_path / "rag").mkdir()
    (tmp_path / "rag" / "stage.py").write_text("K = 60\n")
    (tmp_path / "rag" / "notes.md").write_text("not source")
    before = cache_module.source_digest(tmp_path / "rag")
    (tmp_path / "rag" / "notes.md").write_text("still not source")
    assert cache_module.source_digest(tmp_path / "rag") == before
    (tmp_path / "rag" / "stage.py").write_text("K = 15\n")
    assert cache_module.source_digest(tmp_path / "rag") != before
    assert cache_module.code_version() == cache_module.code_version() != ""

    class Stub:
        embedder = type("E", (), {"name": "all-MiniLM-L6-v2"})()
        registry = type("R", (), {"documents": staticmethod(lambda: [])})()

    stored = index_fingerprint(Stub())
    monkeypatch.setattr(cache_module, "code_version", lambda: "upgraded")
    assert index_fingerprint(Stub()) != stored
