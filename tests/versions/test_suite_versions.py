"""A suite corpus may index older versions of its APIs beside them (`versions = { LABEL = [paths] }`)."""

from __future__ import annotations

from pathlib import Path

from rag.evaluate.suite import corpus_index, corpus_key, load_suite
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from tests.index.test_versions import old_and_new


def test_a_corpus_with_an_older_version_indexes_both_and_their_changes(tmp_path: Path) -> None:
    old, new = old_and_new()
    (tmp_path / "new").mkdir()
    (tmp_path / "old").mkdir()
    (tmp_path / "new" / "courses.json").write_bytes(new)
    (tmp_path / "old" / "courses.json").write_bytes(old)
    question = '{"id": "q1", "question": "What changed?", "relevant_ids": ["courses.changes"]}\n'
    (tmp_path / "q.jsonl").write_text(question)
    suite_file = tmp_path / "suite.toml"
    suite_file.write_text(
        '[corpora.plain]\nspecs = ["new"]\n\n'
        '[corpora.versioned]\nspecs = ["new"]\nversions = { "2025-02" = ["old"] }\n\n'
        '[[sets]]\nname = "changes"\nrole = "tuning"\ncorpus = "versioned"\nquestions = "q.jsonl"\n'
    )
    suite = load_suite(suite_file)
    versioned = suite.corpora["versioned"]
    assert versioned.versions == (("2025-02", ((tmp_path / "old").resolve(),)),)
    plain = corpus_key(suite.corpora["plain"], "hashing")
    assert corpus_key(versioned, "hashing") != plain.replace("plain", "versioned")
    index = corpus_index(versioned, tmp_path / "index", lambda folder: Index(folder, HashingEmbedder()))
    assert sorted((r.source, r.api_version) for r in index.documents()) == [
        ("courses.changes", "1.0.0"), ("courses.json", "1.0.0"), ("courses.json@2025-02", "2025-02")]
    assert "courses.changes" in index.structural_ids()
