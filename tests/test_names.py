"""Names and values a question mentions, and whether one is the user's own."""

from __future__ import annotations

import pytest

from rag.names import (
    name_phrases,
    names_and_values,
    names_the_users_own,
    names_to_look_up,
    without_names_and_values,
)


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


@pytest.mark.parametrize(
    ("question", "looked_up"),
    [
        # the name a request gives what it creates: nothing to look up
        ("create a feature flag called new-checkout", []),
        ("create a repo called billing-svc inside the acme org", []),
        ("make a 'needs-triage' label that all repos in our org can share", []),
        ("add a new customer Blue Fin Cafe with their billing email", []),
        ("add a new staff member, Sam Lee, to the team", []),
        ('create a playlist "Chill" and add Yesterday to it', ["Yesterday"]),
        ("Make a new playlist named Road Trip and add Bohemian Rhapsody to it", ["Bohemian", "Rhapsody"]),
        # a name after the created thing's words ("by", "of") is another thing's, which exists
        ("add the new album by Adele to my library", ["Adele"]),
        ("make a new playlist of Queen songs", ["Queen"]),
        # days and months are dates
        ("plan a flag change to happen next Monday at 9am", []),
        ("which links in the March newsletter got clicked the most", []),
        ("Play the album Kind of Blue by Miles Davis", ["Kind", "Blue", "Miles", "Davis"]),
    ],
)
def test_names_to_look_up_leave_out_what_a_request_creates_and_dates(question: str, looked_up: list[str]) -> None:
    assert names_to_look_up(question) == looked_up
