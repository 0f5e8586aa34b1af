"""Results read back from saved conversations and records, including those older versions wrote."""

from __future__ import annotations

import random

from rag.chunk import RequestExample
from rag.request_example import curl_command
from rag.results import AnswerResult, Citation, RetrievedChunk, order_labels, placed_ahead, render_result
from tests.fakes import make_chunk


def test_a_saved_result_round_trips_and_keys_no_longer_written_are_ignored() -> None:
    chunk = make_chunk("api.paths./x.get", "GET /x", kind="operation")
    result = AnswerResult("full", "q", chunks=[RetrievedChunk(chunk, {"fused": 0.5}, rank=1, rank_before_rerank=2)])
    saved = result.to_dict()
    assert "from_expansion" not in saved["chunks"][0]
    saved["chunks"][0]["from_expansion"] = True  # what records written before reference expansion's removal hold
    restored = AnswerResult.from_dict(saved, {chunk.chunk_id: chunk}.get)
    assert restored.chunks == result.chunks
    assert restored.chunks[0].scores == {"fused": 0.5} and restored.chunks[0].rank_before_rerank == 2


def test_a_result_keeps_its_request_example_and_the_cli_shows_the_curl_after_the_answer() -> None:
    example = RequestExample("GET", "https://api.acme.test/x", query=(("q", "<q>"),), credential="ACME")
    result = AnswerResult("full", "q", answer="Use GET /x [1].", request_example=example)
    saved = result.to_dict()
    assert saved["request_example"]["curl"] == curl_command(example) and saved["request_example"]["method"] == "GET"
    assert AnswerResult.from_dict(saved, {}.get).request_example == example
    assert AnswerResult.from_dict({**saved, "request_example": None}, {}.get).request_example is None
    shown = render_result(result)
    assert shown.index("Use GET /x [1].") < shown.index("request:\ncurl \"https://api.acme.test/x?q=<q>\"")
    assert "request:" not in render_result(AnswerResult("full", "q", answer="No."))


def test_a_documentation_section_is_cited_by_its_heading_path_and_url_everywhere() -> None:
    page = make_chunk("acme.doc.limits/rate-limits", "Rate limits\n\n100 requests per minute.", kind="doc",
                      source="https://docs.acme.test/limits.html", section_path="Rate limits")
    citation = Citation.of(page, 1)
    assert (citation.section, citation.url) == ("Rate limits", "https://docs.acme.test/limits.html")
    assert citation.label == "Rate limits — https://docs.acme.test/limits.html"
    assert Citation.from_dict(citation.to_dict()) == citation and citation.to_dict()["label"] == citation.label
    operation = Citation.of(make_chunk("api.paths./x.get", "GET /x", kind="operation"), 2)
    assert (operation.label, operation.section, operation.url) == ("GET /x", "", "")
    result = AnswerResult("C2", "What is the rate limit?", answer="100 requests per minute. [1]",
                          citations=[citation, operation], chunks=[RetrievedChunk(page, {"fused": 0.5}, rank=1)])
    shown = render_result(result)
    assert "  [1] Rate limits — https://docs.acme.test/limits.html\n" in shown
    assert "  [2] GET /x  (api.paths./x.get)\n" in shown
    assert "   1. Rate limits — https://docs.acme.test/limits.html  fused 0.500" in shown
    assert result.to_dict()["chunks"][0]["section"] == "Rate limits"


def shown_scores(chunks: list[RetrievedChunk]) -> list[float]:
    """The deciding scores a chunk list shows, in rank order (a chunk placed by a stage shows none)."""
    return [float(label.rsplit(" ", 1)[1]) for label in order_labels(chunks)
            if label and not label.startswith(("placed by", "no "))]


def test_a_chunk_a_stage_puts_ahead_of_higher_scores_shows_that_stage_not_its_score() -> None:
    """Issue 45: 0.033 shown under 0.031. The conversation's subject (0.031) lifted over a chunk scored 0.033 shows
    "placed by subject"; the other chunks' deciding scores fall with rank, and the mark survives the record."""
    first, second, third = (make_chunk(f"api.paths./{name}.get", name, kind="operation") for name in "abc")
    lifted = RetrievedChunk(third, {"fused": 0.031})
    ranked = [RetrievedChunk(first, {"fused": 0.033}), RetrievedChunk(second, {"fused": 0.032}), lifted]
    placed = placed_ahead([lifted, *ranked[:2]], "subject")
    assert order_labels(placed) == ["placed by subject", "fused 0.033", "fused 0.032"]
    assert lifted.placed_by == ""  # a copy is marked: the candidate another configuration shares is not
    assert placed_ahead(ranked, "order") == ranked and order_labels(ranked) == ["fused 0.033", "fused 0.032",
                                                                                  "fused 0.031"]
    # The learned ranker's score decides where it scored; a candidate it did not score is placed after.
    reranked = [RetrievedChunk(first, {"fused": 0.01, "rerank": 2.5}), RetrievedChunk(second, {"fused": 0.033})]
    assert order_labels(reranked) == ["rerank 2.500", "no rerank score"]
    result = AnswerResult("full", "q", chunks=[c.copy(rank=n) for n, c in enumerate(placed, 1)])
    restored = AnswerResult.from_dict(result.to_dict(), {c.chunk_id: c for c in (first, second, third)}.get)
    assert [c.placed_by for c in restored.chunks] == ["subject", "", ""]
    assert "placed by subject" in render_result(result)


def test_a_stage_that_says_what_it_moved_has_that_chunk_marked_not_its_neighbour() -> None:
    """The lookup lift puts the second of a list first: either of the two swapped could be the one out of order by
    scores alone; the stage says which it moved, and the chunk it pushed down keeps its score."""
    first, second, third = (make_chunk(f"api.paths./{name}.get", name, kind="operation") for name in "abc")
    pushed = RetrievedChunk(first, {"fused": 0.033})
    lifted = RetrievedChunk(second, {"fused": 0.032})
    rest = RetrievedChunk(third, {"fused": 0.031})
    assert order_labels(placed_ahead([lifted, pushed, rest], "lookup", [lifted])) == [
        "placed by lookup", "fused 0.033", "fused 0.031"]
    assert order_labels(placed_ahead([lifted, pushed, rest], "lookup")) == [
        "fused 0.032", "placed by lookup", "fused 0.031"]  # told nothing: the fewest marks, whichever they are
    # A chunk an earlier stage marked keeps its mark; one that moved without a deciding score is marked too.
    earlier = pushed.copy(placed_by="subject")
    unscored = RetrievedChunk(third, {"lookup": 0.4})
    assert [c.placed_by for c in placed_ahead([unscored, earlier, lifted], "lookup", [unscored, earlier])] == [
        "lookup", "subject", ""]


def test_the_scores_shown_fall_with_rank_after_every_stage() -> None:
    """Whatever order the stages leave, the scores a list shows never rise with rank; the fewest chunks are marked
    (those the stage moved: here three out of order, then one lifted to the top)."""
    chunks = [make_chunk(f"api.paths./{n}.get", str(n), kind="operation") for n in range(6)]
    fused = (0.02, 0.05, 0.01, 0.04, 0.03, 0.06)
    scored = [RetrievedChunk(c, {"fused": s}) for c, s in zip(chunks, fused, strict=True)]
    once = placed_ahead(scored, "order")
    assert [c.placed_by for c in once] == ["order", "", "order", "", "", "order"]
    assert shown_scores(once) == [0.05, 0.04, 0.03]
    in_order = sorted(scored, key=lambda c: -c.scores["fused"])
    twice = placed_ahead([in_order[4], *in_order[:4], in_order[5]], "lookup")
    assert [c.placed_by for c in twice] == ["lookup", "", "", "", "", ""]
    assert shown_scores(twice) == sorted(shown_scores(twice), reverse=True) and len(shown_scores(twice)) == 5
    demoted = placed_ahead([*in_order[1:], in_order[0]], "order")
    assert [c.placed_by for c in demoted] == ["", "", "", "", "", "order"]


def test_the_kept_places_are_a_longest_run_that_never_rises() -> None:
    """`placed_ahead` marks the fewest chunks: what it keeps is a longest non-rising run, on orders with ties too."""
    from rag.results import _longest_falling

    generator = random.Random(7)
    for _ in range(300):
        scores = [generator.choice((0.1, 0.2, 0.3, 0.4)) if generator.random() < 0.5 else generator.random()
                  for _ in range(generator.randint(0, 25))]
        kept = sorted(_longest_falling(scores))
        assert all(scores[a] >= scores[b] for a, b in zip(kept, kept[1:], strict=False))
        assert kept == longest_falling_by_every_pair(scores)


def longest_falling_by_every_pair(scores: list[float]) -> list[int]:
    """The run `_longest_falling` keeps, found by comparing every pair of places: the longest non-rising run ending
    at each place, through the first earlier place that gives it; of equally long runs, the one ending last."""
    longest, before = [1] * len(scores), [-1] * len(scores)
    for later in range(len(scores)):
        for earlier in range(later):
            if scores[earlier] >= scores[later] and longest[earlier] + 1 > longest[later]:
                longest[later], before[later] = longest[earlier] + 1, earlier
    place = max((p for p in range(len(scores)) if longest[p] == max(longest)), default=-1)
    run = []
    while place >= 0:
        run.append(place)
        place = before[place]
    return run[::-1]


def test_the_kept_places_are_the_same_run_on_long_lists() -> None:
    """A multi-API question's list is a hundred candidates long: the run kept is the pairwise comparison's."""
    from rag.results import _longest_falling

    generator = random.Random(11)
    for _ in range(200):
        scores = [round(generator.random(), generator.choice((1, 2, 6))) for _ in range(generator.randint(26, 120))]
        if generator.random() < 0.5:  # mostly in order, a few moved (what a stage's reorder leaves)
            scores.sort(reverse=True)
            for _ in range(generator.randint(1, 5)):
                scores.insert(generator.randrange(len(scores)), scores.pop(generator.randrange(len(scores))))
        assert sorted(_longest_falling(scores)) == longest_falling_by_every_pair(scores)
