"""Where a follow-up's words point from the conversation's subject (rag/subject_paths.py)."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk
from rag.subject_paths import named_keys, named_under, segment_keys, subresource_operation
from tests.fakes import make_chunk


def operation(method: str, path: str) -> Chunk:
    chunk = make_chunk(f"api.paths.{path}.{method}", f"{method.upper()} {path}", kind="operation")
    return replace(chunk, method=method, path=path)


def test_a_follow_up_names_a_segment_by_its_words_in_any_of_their_forms() -> None:
    assert {"selling", "sell", "stuff", "hold"} <= named_keys("what about selling the stuff in its hold?")
    assert "list" not in named_keys("and how do I list them all?")  # a verb of HTTP's own vocabulary
    assert {"signed_url", "url", "urls"} <= segment_keys("signed-url")


def test_what_is_kept_under_the_subject_s_item_or_done_to_its_whole_collection() -> None:
    dock = operation("post", "/my/ships/{shipSymbol}/dock")
    refuel = operation("post", "/my/ships/{shipSymbol}/refuel")
    ships = [dock, refuel, operation("get", "/my/ships")]
    # An action on an item (nothing addresses one of a dock): what is kept under the ship.
    assert [op for _, op in named_under(dock, {"refuel"}, ships)] == [refuel]
    incidents = operation("get", "/api-reporting/v2/incidents")
    ack = operation("patch", "/api-public/v1/incidents/ack")
    by_user = operation("patch", "/api-public/v1/incidents/byUser/ack")
    assert [op for _, op in named_under(incidents, {"ack"}, [incidents, ack, by_user])] == [ack]
    # Named by its own verb, the action is taken whatever its method; a question's own method still decides.
    assert subresource_operation(incidents, {"ack"}, set(), [incidents, ack]) is ack
    assert subresource_operation(incidents, {"ack"}, {"delete"}, [incidents, ack]) is None
