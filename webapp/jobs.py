"""Background jobs (evaluation runs) for the app: a thread per job, progress readable from any session.

A job never blocks a Streamlit session: the page starts it, stores its id in the session and polls
`get_job(id)` for progress. Jobs live in this process (they end with the server).
"""

from __future__ import annotations

import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Status = Literal["queued", "running", "done", "failed"]
MAX_JOBS_KEPT = 50


@dataclass
class Job:
    """One background job and its progress."""

    id: str
    label: str
    kind: str = "evaluation"
    status: Status = "queued"
    done: int = 0
    total: int = 0
    message: str = ""
    run_dir: Path | None = None
    error: str = ""
    started: float = field(default_factory=time.time)
    finished: float | None = None
    details: str = ""

    def report(self, done: int | None = None, total: int | None = None, message: str | None = None) -> None:
        """Update the progress (called from the job's thread)."""
        if total is not None:
            self.total = max(0, int(total))
        if done is not None:
            self.done = max(0, int(done))
        if message is not None:
            self.message = message

    @property
    def fraction(self) -> float:
        """Progress from 0 to 1 (0 while the total is unknown)."""
        if self.status == "done":
            return 1.0
        if self.total <= 0:
            return 0.0
        return min(1.0, self.done / self.total)

    @property
    def active(self) -> bool:
        """Whether the job is still queued or running."""
        return self.status in ("queued", "running")

    @property
    def elapsed(self) -> float:
        """Seconds since the job started (until it finished)."""
        return (self.finished or time.time()) - self.started

    def progress_text(self) -> str:
        """`12/40 questions · 8 s` plus the latest message."""
        count = f"{self.done}/{self.total}" if self.total else f"{self.done}"
        text = f"{self.label}: {count} · {self.elapsed:.0f} s"
        return f"{text} · {self.message}" if self.message else text


_lock = threading.Lock()
_jobs: dict[str, Job] = {}


def start_job(label: str, target: Callable[[Job], Path | None], kind: str = "evaluation") -> Job:
    """Run `target(job)` in a daemon thread; its return value (a run folder) is kept in `job.run_dir`."""
    job = Job(id=uuid.uuid4().hex[:10], label=label, kind=kind)

    def run() -> None:
        job.status = "running"
        try:
            result = target(job)
            if result is not None:
                job.run_dir = Path(result)
            job.status = "done"
        except Exception as error:
            job.error = f"{type(error).__name__}: {error}" if not str(error).startswith(type(error).__name__) else str(
                error
            )
            job.details = traceback.format_exc(limit=8)
            job.status = "failed"
        finally:
            job.finished = time.time()

    with _lock:
        _jobs[job.id] = job
        if len(_jobs) > MAX_JOBS_KEPT:
            for old in sorted((j for j in _jobs.values() if not j.active), key=lambda j: j.started)[
                : len(_jobs) - MAX_JOBS_KEPT
            ]:
                _jobs.pop(old.id, None)
    threading.Thread(target=run, name=f"job-{job.id}", daemon=True).start()
    return job


def get_job(job_id: str) -> Job | None:
    """A job by id (None when unknown or forgotten)."""
    with _lock:
        return _jobs.get(job_id)


def jobs(ids: list[str] | None = None) -> list[Job]:
    """Jobs (those named, or all), newest first."""
    with _lock:
        chosen = [_jobs[i] for i in ids if i in _jobs] if ids is not None else list(_jobs.values())
    return sorted(chosen, key=lambda j: j.started, reverse=True)


def wait(job: Job, timeout: float = 60.0) -> Job:
    """Block until the job ends or `timeout` seconds pass (tests and scripts)."""
    deadline = time.time() + timeout
    while job.active and time.time() < deadline:
        time.sleep(0.05)
    return job
