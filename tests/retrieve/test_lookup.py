"""The lookup lift: a request naming things by value gets the API's lookup operation first."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk
from rag.retrieve.lookup import is_lookup_operation, lift_lookup
from tests.fakes import make_chunk, retrieved


def operation(structural_id: str, method: str, path: str, summary: str = "", api: str = "music") -> Chunk:
    chunk = make_chunk(structural_id, f"{method.upper()} {path}", api=api, kind="operation")
    return replace(chunk, method=method, path=path, summary=summary, title=f"{method.upper()} {path}")


SEARCH = operation("music.paths./search.get", "get", "/search", "Search for Item")
SEARCH_PEOPLE = operation("films.paths./search/person.get", "get", "/search/person", "Search People", api="films")
FIND = operation("music.paths./catalog.get", "get", "/catalog", "Find tracks by title")
PLAY = operation("music.paths./me/player/play.put", "put", "/me/player/play", "Start Playback")
ALBUM = operation("music.paths./albums/{id}.get", "get", "/albums/{id}", "Get Album")
SEARCH_POST = operation("music.paths./search.post", "post", "/search", "Search for Item")


def test_lookup_operations_are_read_from_paths_and_summaries() -> None:
    assert is_lookup_operation(SEARCH) and is_lookup_operation(SEARCH_PEOPLE) and is_lookup_operation(FIND)
    assert not is_lookup_operation(PLAY) and not is_lookup_operation(ALBUM)
    assert not is_lookup_operation(SEARCH_POST), "only a GET looks things up"
    assert not is_lookup_operation(make_chunk("music.components.Search", "Schema Search"))


def test_a_request_naming_values_gets_the_lookup_operation_first_from_the_pool() -> None:
    pool = retrieved(ALBUM, PLAY, SEARCH)
    lifted, note = lift_lookup(pool, [ALBUM, PLAY, SEARCH], True, lambda chunk: 0.0)
    assert [c.chunk for c in lifted] == [SEARCH, ALBUM, PLAY]
    assert "GET /search first (from rank 3)" in note


def test_an_unretrieved_lookup_operation_is_the_closest_one() -> None:
    similarity = {SEARCH.chunk_id: 0.2, FIND.chunk_id: 0.6}
    lifted, note = lift_lookup(
        retrieved(ALBUM, PLAY), [ALBUM, PLAY, SEARCH, FIND], True, lambda c: similarity.get(c.chunk_id, 0.0)
    )
    assert [c.chunk for c in lifted] == [FIND, ALBUM, PLAY]
    assert lifted[0].scores == {"lookup": 0.6} and "not retrieved" in note


def test_nothing_moves_without_values_lookups_or_when_one_already_leads() -> None:
    pool = retrieved(ALBUM, SEARCH)
    assert lift_lookup(pool, [ALBUM, SEARCH], False, lambda c: 1.0) == (pool, "")
    assert lift_lookup(pool, [ALBUM, PLAY], True, lambda c: 1.0) == (pool, "")
    leading = retrieved(SEARCH, ALBUM)
    assert lift_lookup(leading, [ALBUM, SEARCH, FIND], True, lambda c: 1.0) == (leading, "")
    # Only the APIs searched: the films API's search is no lookup for the music API.
    assert lift_lookup(pool[:1], [ALBUM, SEARCH_PEOPLE], True, lambda c: 1.0, apis=("music",)) == (pool[:1], "")


def test_another_apis_search_never_leads_a_request_about_one_api() -> None:
    """Two APIs that both have a search operation: a request naming a value lifts only its own API's."""
    film = operation("films.paths./movie/{movie_id}/credits.get", "get", "/movie/{movie_id}/credits", "Get Credits",
                     api="films")
    corpus = [ALBUM, SEARCH, film, SEARCH_PEOPLE]
    closest_first = {SEARCH.chunk_id: 0.9, SEARCH_PEOPLE.chunk_id: 0.1}
    lifted, note = lift_lookup(retrieved(film, ALBUM), corpus, True, lambda c: closest_first.get(c.chunk_id, 0.0))
    assert [c.chunk for c in lifted] == [SEARCH_PEOPLE, film, ALBUM], "the films API's own search, not music's"
    assert "GET /search/person" in note
    # The music API's search leads a request whose best candidate is a music operation.
    lifted, _ = lift_lookup(retrieved(ALBUM, film), corpus, True, lambda c: closest_first.get(c.chunk_id, 0.0))
    assert lifted[0].chunk == SEARCH


def test_an_operation_that_takes_the_value_itself_needs_no_lookup() -> None:
    """`GET /tracks?title=` takes the title: only an operation acting on an id needs one looked up first."""
    by_title = operation("music.paths./tracks.get", "get", "/tracks", "List tracks")
    pool = retrieved(by_title, SEARCH)
    assert lift_lookup(pool, [by_title, SEARCH], True, lambda c: 1.0) == (pool, "")
    assert lift_lookup(retrieved(PLAY, SEARCH), [PLAY, SEARCH], True, lambda c: 1.0)[1] == ""
