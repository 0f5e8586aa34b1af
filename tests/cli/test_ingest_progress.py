"""Ingest progress on the command line (`rag.cli.ingest_progress`): when lines are printed and what they say, on a
fake clock (no timing asserts)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from rag.cli.ingest_progress import LineReporter
from rag.index.progress import IngestTracker


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def reporter(announce: bool) -> tuple[LineReporter, IngestTracker, Clock, list[str]]:
    clock, lines = Clock(), []
    tracker = IngestTracker([("openai.yaml", 3_000_000), ("bad.json", 10)], clock)
    return LineReporter(tracker, every=5.0, write=lines.append, announce=announce), tracker, clock, lines


def test_make_run_announces_each_file_with_the_time_left_at_once() -> None:
    shown, tracker, clock, lines = reporter(announce=True)
    tracker.start_file(1)
    shown.on_file(1, 2, Path("openai.yaml"), None)
    assert lines[0].startswith("  [1/2] openai.yaml (") and "parsing and chunking…" in lines[0]
    assert lines[0].endswith(" left")
    clock.now += 5.0
    shown.tick()
    assert lines[1].startswith("  [1/2] openai.yaml: parsing and chunking · about ") and len(lines) == 2
    shown.tick()  # nothing new within `every` seconds
    assert len(lines) == 2


def test_rag_ingest_speaks_after_a_second_of_parsing_and_leaves_a_refused_file_to_its_error_line() -> None:
    shown, tracker, clock, lines = reporter(announce=False)
    tracker.start_file(1)
    shown.on_file(1, 2, Path("openai.yaml"), None)
    shown.tick()
    assert lines == []  # a file parsed in a moment prints nothing
    clock.now += 1.0
    shown.tick()
    assert len(lines) == 1 and "openai.yaml: parsing and chunking · about" in lines[0]
    tracker.parsed(["text"] * 4)
    tracker.embedded(4)
    tracker.finish_file()
    added = SimpleNamespace(status="added", counts_text=lambda: "4 smart, 9 naive (not embedded yet)", message="",
                            seconds=2.0)
    shown.on_file(1, 2, Path("openai.yaml"), added)
    assert lines[-1].startswith("  [1/2] openai.yaml: added — 4 smart, 9 naive (not embedded yet) in 2 s · ")
    tracker.start_file(2)
    shown.on_file(2, 2, Path("bad.json"), None)
    refused = SimpleNamespace(status="error", counts_text=lambda: "", message="bad.json: invalid JSON", seconds=0.0)
    tracker.finish_file()
    shown.on_file(2, 2, Path("bad.json"), refused)
    assert not any("bad.json" in line for line in lines)
