"""How far an ingest is, and how long it will still take, from its first second.

An ingest of several files goes, file by file, through two stages a user waits for: *parsing* (reading the file,
checking it, resolving its `$ref`s and cutting it into chunks: seconds for a multi-megabyte spec, with no progress
to report from inside the parser) and *embedding* (the chunks searched first; those set aside are embedded later,
rag.index.deferred). `IngestTracker` is told when each stage starts and how embedding advances, and `current()`
says at any moment which stage of which file runs, the share of the whole job done and the seconds left.

The estimate starts from priors measured on this machine (seconds per megabyte to parse, per thousand characters
of embedding text to embed), so the first report, before anything is measured, already has one; each stage
measured then corrects the rest by the machine's speed now (a shared machine under load runs everything slower
alike), and embedding, once under way, by its own rate. Between two reports the time left counts down with the
clock, so a long parse shows a bar that moves and an estimate that falls.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rag.ingest.validate import MAX_UPLOAD_BYTES

STAGES: tuple[str, ...] = ("parsing", "embedding", "done")
# Priors (2 cores, moderate load): seconds to parse and chunk one megabyte, by how the file is read.
PARSE_S_PER_MB: dict[str, float] = {"yaml": 2.5, "json": 1.5, "doc": 0.5}
# Embedding work is counted in characters of embedding text plus PER_TEXT_CHARS a text (a short text costs more
# per character: more word pieces, and its batch's fixed cost): on OpenAI's smart chunks that fits the time a batch
# took within 1.2 s over a 50 s run, where characters alone ran 25 % fast on its first half.
PER_TEXT_CHARS = 50
EMBED_S_PER_KCHAR = 0.055  # seconds per thousand of those (OpenAI's 1,929 smart chunks: 393k, ~21 s on 2 idle cores)
FIRST_CHARS_PER_MB = 130_000  # of those embedded first per megabyte of a spec (before it is parsed)
OVERRUN_SHARE = 0.25  # a stage past its estimate: a quarter of the time it has taken so far is left


def file_kind(name: str) -> str:
    """How a file is parsed: `yaml`, `json` or `doc` (its parse speed differs)."""
    lowered = name.lower()
    if lowered.endswith((".yaml", ".yml")):
        return "yaml"
    return "json" if lowered.endswith(".json") else "doc"


@dataclass(frozen=True)
class IngestProgress:
    """Where an ingest is: the stage of file `position` of `count`, chunks embedded of that file, the share of the
    whole job done (`fraction`, 0–1, never going back), the seconds since it started and the seconds left."""

    stage: str
    source: str
    position: int
    count: int
    done: int
    total: int
    fraction: float
    elapsed_s: float
    left_s: float

    def left_text(self) -> str:
        """`about 12 s left`, `about 2.5 min left`, `under 1 s left`."""
        if self.left_s < 1:
            return "under 1 s left"
        return f"about {self.left_s:.0f} s left" if self.left_s < 90 else f"about {self.left_s / 60:.1f} min left"

    def text(self) -> str:
        """`openai.yaml: parsing and chunking · about 12 s left` (what a progress bar says)."""
        if self.stage == "done":
            return f"done: {self.count} file(s) in {self.elapsed_s:.0f} s"
        doing = "parsing and chunking" if self.stage == "parsing" else f"embedded {self.done}/{self.total} chunks"
        return f"{self.source}: {doing} · {self.left_text()}"


@dataclass
class _File:
    """What the tracker knows of one file: its size and kind, then (once parsed) the characters to embed."""

    name: str
    size: int
    kind: str
    chars: list[int] = field(default_factory=list)  # each text's embedding work, in the order they are embedded
    parse_s: float | None = None
    embed_s: float | None = None


class IngestTracker:
    """Follows an ingest's stages (thread-safe: the ingest reports from its thread, a display reads `current()`
    from its own). `clock` is injectable for tests."""

    def __init__(self, files: Sequence[tuple[str, int]], clock: Callable[[], float] = time.perf_counter) -> None:
        # A file over the upload limit is refused at once: it costs nothing.
        self._files = [_File(name, size if 0 < size <= MAX_UPLOAD_BYTES else 0, file_kind(name))
                       for name, size in files]
        self._clock = clock
        self._lock = threading.Lock()
        self._started = clock()
        self._stage, self._position, self._stage_started = "parsing", 1, self._started
        self._done, self._last_event = 0, self._started
        self._fraction = 0.0
        self._parse_factor = self._embed_factor = 1.0  # measured time / prior, learnt as stages finish

    # ------------------------------------------------------------------ what the ingest reports
    def start_file(self, position: int) -> None:
        """File `position` (1-based) starts: parsing."""
        with self._lock:
            self._enter("parsing", position)

    def parsed(self, texts: Sequence[str]) -> None:
        """The current file is parsed; `texts` are the embedding texts it embeds now, in their embedding order."""
        with self._lock:
            current = self._current_file()
            current.parse_s = self._clock() - self._stage_started
            current.chars = [len(text) + PER_TEXT_CHARS for text in texts]
            self._parse_factor = self._learnt(current.parse_s, self._prior_parse(current))
            self._enter("embedding", self._position)

    def embedded(self, done: int) -> None:
        """`done` chunks of the current file are embedded."""
        with self._lock:
            self._done, self._last_event = done, self._clock()

    def finish_file(self) -> None:
        """The current file is indexed (or refused)."""
        with self._lock:
            current = self._current_file()
            if self._stage == "embedding" and current.chars and self._done:  # skipped files embed nothing
                current.embed_s = self._clock() - self._stage_started
                prior = sum(current.chars) / 1000 * EMBED_S_PER_KCHAR
                self._embed_factor = self._learnt(current.embed_s, prior)
            if self._position >= len(self._files):
                self._enter("done", self._position)

    # ------------------------------------------------------------------ what a display reads
    def current(self) -> IngestProgress:
        """The progress now: stage, file, chunks, the share done and the seconds left."""
        with self._lock:
            now = self._clock()
            elapsed = now - self._started
            left = 0.0 if self._stage == "done" else self._left_in_stage(now) + self._left_after(self._position)
            self._fraction = max(self._fraction, 1.0 if self._stage == "done" else elapsed / max(elapsed + left, 1e-9))
            current = self._current_file()
            total = len(current.chars) if self._stage != "parsing" else 0
            return IngestProgress(self._stage, current.name, self._position, len(self._files), self._done, total,
                                  min(self._fraction, 1.0), elapsed, left)

    # ------------------------------------------------------------------ the estimate
    def _enter(self, stage: str, position: int) -> None:
        self._stage, self._position = stage, max(1, min(position, len(self._files) or 1))
        self._stage_started = self._last_event = self._clock()
        self._done = 0

    def _current_file(self) -> _File:
        return self._files[self._position - 1] if self._files else _File("", 0, "doc")

    def _prior_parse(self, file: _File) -> float:
        return file.size / 1e6 * PARSE_S_PER_MB[file.kind]

    @staticmethod
    def _learnt(measured: float, prior: float) -> float:
        """How much slower (or faster) than its prior a stage ran: the factor for the stages still to come."""
        return min(max(measured / prior, 0.05), 50.0) if prior > 0.05 else 1.0

    def _left_in_stage(self, now: float) -> float:
        """Seconds left in the current stage: the estimate less the time spent, or a share of the time spent once
        past it."""
        current, spent = self._current_file(), now - self._stage_started
        if self._stage == "parsing":
            estimate = self._prior_parse(current) * self._parse_factor
            return estimate - spent if spent < estimate else OVERRUN_SHARE * spent
        chars = current.chars
        done_chars = sum(chars[: self._done])
        left_chars = sum(chars[self._done:])
        if done_chars > 0:  # embedding's own rate, counted down since the last report
            rate_s = (self._last_event - self._stage_started) / done_chars
            return max(left_chars * rate_s - (now - self._last_event), 0.0)
        estimate = sum(chars) / 1000 * EMBED_S_PER_KCHAR * self._embed_factor_now()
        return estimate - spent if spent < estimate else OVERRUN_SHARE * spent

    def _embed_factor_now(self) -> float:
        """The embedding factor: measured on an earlier file, else the machine's speed as parsing measured it."""
        return self._embed_factor if any(f.embed_s is not None for f in self._files) else self._parse_factor

    def _left_after(self, position: int) -> float:
        """Seconds the files after `position` will take (parse and embed, from their sizes)."""
        left = 0.0
        for file in self._files[position:]:
            left += self._prior_parse(file) * self._parse_factor
            chars = FIRST_CHARS_PER_MB * file.size / 1e6
            left += chars / 1000 * EMBED_S_PER_KCHAR * self._embed_factor_now()
        return left
