"""Ingest progress on the command line: a line when each file starts (with the time left, from the first second),
at most every few seconds while it is parsed or embedded, and when it is done; and the chunks set aside for later
embedding, embedded after the files went live (`rag ingest`: what `full` searches) or when a configuration that
searches them is first used."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from rag.index.progress import IngestTracker

EVERY_S = 5.0  # the most seconds between two progress lines while a stage runs
TICK_S = 0.5


def _size(path: Path) -> int:
    """A file's size in bytes (0 when it cannot be read)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def megabytes(count: float) -> str:
    """`1.2 MB` or `640 KB`."""
    return f"{count / 1e6:.1f} MB" if count >= 100_000 else f"{count / 1e3:.0f} KB"


def duration(seconds: float) -> str:
    """`under 1 s`, `42 s` or `2.5 min`."""
    if seconds < 1:
        return "under 1 s"
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


class LineReporter:
    """Prints an ingest's progress (a `rag.index.progress.IngestTracker`) as lines: `on_file` is ingest_paths'
    hook; while it runs (`with`), a ticker prints the stage and the time left every `every` seconds. With
    `announce`, a line says when each file starts and how a refused file failed (`make run`); without, the first
    line of a file comes once it has been parsed for `first_after` seconds and a refused file is left to the
    caller's one error line (`rag ingest`: a file parsed in a moment prints nothing until it is indexed)."""

    def __init__(self, tracker: IngestTracker, every: float = EVERY_S, write: Callable[[str], None] | None = None,
                 announce: bool = True, first_after: float = 1.0) -> None:
        self.tracker = tracker
        self.every = every
        self.announce = announce
        self.first_after = first_after
        self._write = write or (lambda line: print(line, flush=True))
        self._lock = threading.Lock()
        self._last = 0.0
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="ingest-progress", daemon=True)

    def __enter__(self) -> LineReporter:
        self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._ticker.join(timeout=2)

    def say(self, line: str) -> None:
        """Print a line (and restart the ticker's wait)."""
        with self._lock:
            self._write(line)
            self._last = self.tracker.current().elapsed_s

    def tick(self) -> None:
        """Print the stage and the time left when `every` seconds passed since the last line."""
        now = self.tracker.current()
        if now.stage != "done" and now.elapsed_s - self._last >= self.every:
            self.say(f"  [{now.position}/{now.count}] {now.text()}")

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            self.tick()

    def on_file(self, position: int, count: int, path: Path, report: Any) -> None:
        """ingest_paths' hook: a line as each file starts (its size, the estimate) and when it is done."""
        now = self.tracker.current()
        if report is None:
            if self.announce:
                self.say(f"  [{position}/{count}] {path.name} ({megabytes(_size(path))}): parsing and chunking… "
                         f"{now.left_text()}")
            else:  # the ticker's first line for this file comes `first_after` seconds from now
                with self._lock:
                    self._last = now.elapsed_s - self.every + self.first_after
            return
        if report.status in ("error", "rejected") and not self.announce:
            return
        what = report.counts_text() or report.message or ""
        left = now.left_text() if position < count else "done"
        self.say(f"  [{position}/{count}] {path.name}: {report.status} — {what} in {duration(report.seconds)} · {left}")


def ingest_with_progress(index: Any, paths: Sequence[Path | str], *, on_duplicate: str = "replace",
                         version: str | None = None, defer: Collection[str] = (), quiet: bool = False,
                         announce: bool = True, write: Callable[[str], None] | None = None) -> list[Any]:
    """Ingest `paths` (files or folders), printing progress lines (`LineReporter`; on stdout unless `write`)
    unless `quiet`."""
    from rag.index.build import expand_paths, ingest_paths

    files = expand_paths(paths)
    if quiet:
        return ingest_paths(index, files, on_duplicate=on_duplicate, version=version, defer=defer)  # type: ignore[arg-type]
    tracker = IngestTracker([(path.name, _size(path)) for path in files])
    with LineReporter(tracker, write=write, announce=announce) as reporter:
        return ingest_paths(index, files, on_duplicate=on_duplicate, version=version, defer=defer,  # type: ignore[arg-type]
                            on_file=reporter.on_file, tracker=tracker)


def _asked_for(what: str) -> str:
    return f"embedding the {what} set aside at ingest (the configurations asked for search them)…"


def complete_for(index: Any, strategies: Collection[str], write: Callable[[str], None] | None = None,
                 announce: Callable[[str], str] = _asked_for, every: float = EVERY_S) -> int:
    """Embed the chunks set aside at ingest that `strategies` search, saying so first (`announce` makes the line of
    what is to be embedded; on stderr unless `write`), then a progress line per document after its first batch,
    at most every `every` seconds, and when it is done (`rag ask`/`rag eval` before they answer, `rag ingest` once
    its files are live). Returns how many were embedded."""
    from rag.index.deferred import describe_pending

    work = index.pending(strategies)
    if not work:
        return 0
    say = write or (lambda line: print(line, file=sys.stderr, flush=True))
    say(announce(describe_pending(work)))
    state = {"source": "", "started": time.perf_counter(), "said": 0.0}  # a document's start: when the last ended

    def progress(source: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if done == total or source != state["source"] or now - float(state["said"]) >= every:
            rate = (now - float(state["started"])) / done
            left = f" · about {duration(rate * (total - done))} left" if done < total else " · done"
            say(f"  {source}: embedded {done}/{total}{left}")
            state.update(source=source, said=now)
        if done == total:
            state.update(source="", started=now)

    return int(index.complete_pending(strategies, progress))
