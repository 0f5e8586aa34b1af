"""The embedded naming vocabulary: which index word a question word means."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from rag.corpus.meanings import NamingVocabulary, naming_words, shares_letters
from rag.corpus.profile import CorpusProfile

# Word vectors by hand: staff sits near employee, playlist near list only by its letters.
VECTORS = {
    "employee": [1.0, 0.0, 0.0],
    "list": [0.0, 1.0, 0.0],
    "album": [0.0, 0.0, 1.0],
    "staff": [0.9, 0.1, 0.0],
    "playlist": [0.1, 0.95, 0.3],
    "ledger": [0.3, 0.3, 0.3],
}


class WordEmbedder:
    """A deterministic embedder over the table above (unknown words get a zero vector)."""

    name = "words-3"
    dimension = 3

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([VECTORS.get(t, [0.0, 0.0, 0.0]) for t in texts], dtype=np.float32)


def vocabulary(words: Sequence[str]) -> NamingVocabulary:
    embedder = WordEmbedder()
    vectors = embedder.embed(list(words))
    return NamingVocabulary(tuple(words), vectors / np.linalg.norm(vectors, axis=1, keepdims=True), embedder)


def test_a_question_word_close_to_a_naming_word_is_known() -> None:
    names = vocabulary(["album", "employee", "list"])
    nearest = names.nearest(["staff", "ledger"])
    assert nearest["staff"][0] == "employee" and nearest["staff"][1] > 0.9
    assert nearest["ledger"][1] < 0.6
    assert names.close(["staff", "ledger"], 0.6) == {"staff"}


def test_a_naming_word_sharing_letters_is_no_candidate() -> None:
    # `list` is inside `playlist`: close as vectors, but that is spelling, not meaning.
    nearest = vocabulary(["album", "employee", "list"]).nearest(["playlist"])
    assert nearest["playlist"][0] == "album"
    assert vocabulary(["album", "employee", "list"]).close(["playlist"], 0.6) == set()


def test_no_words_no_neighbours() -> None:
    assert vocabulary(["album"]).nearest([]) == {}
    empty = NamingVocabulary((), np.zeros((0, 3), dtype=np.float32), WordEmbedder())
    assert empty.nearest(["staff"]) == {} and empty.close(["staff"], 0.1) == set()


def test_naming_words_come_from_structure_not_descriptions() -> None:
    profile = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"employee": Counter({"hris": 3}), "x": Counter()},
        vocabulary={"employee", "ledger", "book"}, structural_terms={"employee", "time_off", "hris", "v1"},
    )  # fmt: skip
    assert naming_words(profile) == ("employee", "hris")
    assert profile.names_part("employees") and not profile.names_part("book")


def test_words_sharing_a_stem_share_letters_not_meaning() -> None:
    assert shares_letters("write", "handwriting") and shares_letters("list", "playlist")
    assert not shares_letters("center", "centre") and not shares_letters("employee", "staff")
