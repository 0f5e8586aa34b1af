"""Ingest progress (`rag.index.progress`): a stage and an estimate of the time left from the first second, parsing
included, corrected by what each stage measures (a fake clock: no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.index.build import embedding_texts, ingest_paths
from rag.index.progress import IngestProgress, IngestTracker
from rag.index.store import Index
from rag.ingest.pipeline import parse_path
from tests.conftest import FIXTURES


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_the_first_report_is_parsing_with_an_estimate(clock: Clock) -> None:
    tracker = IngestTracker([("openai.yaml", 3_000_000), ("notes.md", 20_000)], clock)
    tracker.start_file(1)
    first = tracker.current()
    assert (first.stage, first.source, first.position, first.count) == ("parsing", "openai.yaml", 1, 2)
    assert first.left_s > 0 and first.fraction == 0.0
    assert "parsing and chunking" in first.text() and "left" in first.text()


def test_the_time_left_counts_down_while_a_file_is_parsed_and_the_bar_moves(clock: Clock) -> None:
    tracker = IngestTracker([("big.json", 2_000_000)], clock)
    tracker.start_file(1)
    start = tracker.current()
    clock.now += 1.0
    later = tracker.current()
    assert later.left_s < start.left_s and later.fraction > start.fraction
    clock.now += 1000.0  # far past the estimate: still some time left, never a negative one
    overrun = tracker.current()
    assert overrun.stage == "parsing" and overrun.left_s > 0 and overrun.fraction >= later.fraction


def test_embedding_is_estimated_from_the_texts_then_from_its_own_rate(clock: Clock) -> None:
    tracker = IngestTracker([("spec.json", 500_000)], clock)
    tracker.start_file(1)
    clock.now += 2.0
    tracker.parsed(["x" * 1000] * 100)
    parsed = tracker.current()
    assert (parsed.stage, parsed.done, parsed.total) == ("embedding", 0, 100) and parsed.left_s > 0
    clock.now += 10.0
    tracker.embedded(50)  # half the characters in 10 s: about 10 s left
    half = tracker.current()
    assert half.left_s == pytest.approx(10.0)
    clock.now += 4.0  # no report since: the estimate counts down with the clock
    assert tracker.current().left_s == pytest.approx(6.0)
    tracker.embedded(100)
    tracker.finish_file()
    done = tracker.current()
    assert (done.stage, done.fraction, done.left_s) == ("done", 1.0, 0.0)


def test_a_slow_first_file_makes_the_next_files_estimate_longer(clock: Clock) -> None:
    files = [("a.json", 1_000_000), ("b.json", 1_000_000)]
    quick, slow = IngestTracker(files, clock), IngestTracker(files, clock)
    for tracker, parse_s in ((quick, 0.5), (slow, 10.0)):
        tracker.start_file(1)
        clock.now += parse_s
        tracker.parsed(["text"] * 10)
    assert slow.current().left_s > quick.current().left_s


def test_the_share_done_never_goes_back(clock: Clock) -> None:
    tracker = IngestTracker([("a.json", 100_000), ("b.json", 5_000_000)], clock)
    seen: list[float] = []
    tracker.start_file(1)
    for _ in range(3):
        clock.now += 5.0
        seen.append(tracker.current().fraction)
    tracker.parsed(["y" * 50] * 4)
    tracker.embedded(4)
    tracker.finish_file()
    tracker.start_file(2)  # a large file after a small one: the estimate grows, the bar does not go back
    seen.append(tracker.current().fraction)
    assert seen == sorted(seen)


def test_ingest_paths_tells_the_tracker_each_stage_in_order(empty_index: Index, clock: Clock) -> None:
    events: list[IngestProgress] = []

    class Spy(IngestTracker):
        def start_file(self, position: int) -> None:
            super().start_file(position)
            events.append(self.current())

        def parsed(self, texts):  # type: ignore[no-untyped-def]
            super().parsed(texts)
            events.append(self.current())

        def embedded(self, done: int) -> None:
            super().embedded(done)
            events.append(self.current())

    paths = [FIXTURES / "specs" / "people-3.1.json", FIXTURES / "specs" / "shop-3.0.yaml"]
    tracker = Spy([(p.name, p.stat().st_size) for p in paths], clock)
    ingest_paths(empty_index, paths, tracker=tracker, defer=("naive",))
    assert events[0].stage == "parsing" and events[0].left_s > 0 and events[0].source == "people-3.1.json"
    stages = [(e.position, e.stage) for e in events]
    assert stages[:2] == [(1, "parsing"), (1, "embedding")] and (2, "parsing") in stages
    people = parse_path(paths[0])
    embedding = next(e for e in events if e.stage == "embedding")
    assert embedding.total == len(embedding_texts(people, ("naive",))) == people.chunk_counts()["smart"]
    assert tracker.current().stage == "done"


def test_embedding_texts_are_in_the_order_the_index_embeds_them(tmp_path: Path) -> None:
    parsed = parse_path(FIXTURES / "specs" / "people-3.1.json")
    texts = embedding_texts(parsed, ("naive",))
    assert len(texts) == parsed.chunk_counts()["smart"]
    assert [len(t) for t in texts] == sorted((len(t) for t in texts), reverse=True)
