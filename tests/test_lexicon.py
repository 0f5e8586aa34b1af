"""The English lexicon (WordNet files) the gate uses: parts of speech, synonyms, semantic classes."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.lexicon import load_lexicon, wordnet_directory
from tests.fakes import write_wordnet


@pytest.fixture
def lexicon_dir(tmp_path: Path) -> Path:
    return write_wordnet(
        tmp_path / "wordnet",
        nouns={
            "room": [("noun.artifact", ["chamber"], 40), ("noun.quantity", ["way"], 3)],
            "catalog": [("noun.communication", ["catalogue"], 2)],
            "catalogue": [("noun.communication", ["catalog"], 1)],
            "hour": [("noun.time", ["hr"], 20)],
            "handle": [("noun.artifact", ["grip"], 1)],
            "listing": [("noun.communication", ["list"], 1)],
        },
        verbs={"handle": 9, "room": 0},
    )


def test_parts_of_speech_follow_usage(lexicon_dir: Path) -> None:
    lexicon = load_lexicon(lexicon_dir)
    assert lexicon is not None
    assert lexicon.is_mainly_noun("room") and lexicon.is_mainly_noun("rooms")
    assert not lexicon.is_mainly_noun("handle")  # a verb far more often
    assert not lexicon.is_mainly_noun("unheard-of")
    assert lexicon.usage("handles")["verb"] > lexicon.usage("handles")["noun"]


def test_synonyms_come_from_the_most_frequent_sense_and_include_the_lemma(lexicon_dir: Path) -> None:
    lexicon = load_lexicon(lexicon_dir)
    assert lexicon is not None
    assert lexicon.synonyms("room") == {"chamber"}  # not "way" of the rare sense
    assert lexicon.synonyms("catalogue") == {"catalog"}
    assert lexicon.synonyms("listings") == {"listing", "list"}
    assert lexicon.synonyms("nothing-like-it") == set()


def test_noun_classes(lexicon_dir: Path) -> None:
    lexicon = load_lexicon(lexicon_dir)
    assert lexicon is not None
    assert lexicon.noun_class("room") == "noun.artifact"
    assert lexicon.noun_class("hours") == "noun.time"
    assert lexicon.noun_class("unheard-of") == ""


def test_no_wordnet_means_no_lexicon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_WORDNET_DIR", str(tmp_path / "missing"))
    assert wordnet_directory() is None
    assert load_lexicon(tmp_path / "empty") is None


@pytest.mark.skipif(wordnet_directory() is None, reason="WordNet is not installed (make lexicon installs it)")
def test_the_installed_wordnet_tells_things_from_ways_of_asking() -> None:
    lexicon = load_lexicon()
    assert lexicon is not None
    assert all(lexicon.is_mainly_noun(w) for w in ("ledger", "refund", "room", "playlist"))
    assert not any(lexicon.is_mainly_noun(w) for w in ("handle", "certain", "extend", "mandatory", "left"))
    assert lexicon.noun_class("hour") == "noun.time"
    assert "list" in lexicon.synonyms("listings")
