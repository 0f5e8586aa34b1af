"""Names and values a question mentions, and whether one is the user's own."""

from __future__ import annotations

import pytest

from rag.names import name_phrases, names_and_values, names_the_users_own, without_names_and_values


def test_names_and_values_are_found_and_blanked() -> None:
    question = 'Add "Love Mariah" to my playlist called Workout with songs of Mariah Carey'
    assert names_and_values(question)[:2] == ["Love Mariah", "Workout"]
    assert {"Mariah", "Carey"} <= set(names_and_values(question))
    assert "Mariah" not in without_names_and_values(question)


@pytest.mark.parametrize(
    ("question", "owned"),
    [
        ("How many tracks are in my playlist called Workout?", True),
        ("Remove the song Yesterday from my playlist Oldies", True),
        ("Rename my playlist Chill to Evening Chill", True),
        ('Show the members of our team "Core"', True),
        ("Delete all albums by Nickelback from my saved albums", False),
        ("Make a new playlist named Road Trip and add Bohemian Rhapsody to it", False),
        ("Play the album Kind of Blue by Miles Davis", False),
        ("How do I list my playlists?", False),
    ],
)
def test_a_name_the_user_gives_their_own_thing_is_owned(question: str, owned: bool) -> None:
    assert names_the_users_own(question) is owned


def test_name_phrases_keep_whole_names_with_their_joining_words() -> None:
    assert name_phrases("Play the album Kind of Blue by Miles Davis") == ["Kind of Blue", "Miles Davis"]
    assert name_phrases('Add "Love Mariah" to a playlist named Road Trip') == ["Love Mariah", "Road Trip"]
    assert name_phrases("How do I list the employees?") == []
