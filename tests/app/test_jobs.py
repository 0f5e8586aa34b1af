"""Background jobs (`webapp.jobs`): progress while running, the outcome after."""

from __future__ import annotations

import threading
from pathlib import Path

from rag.errors import RagError
from webapp.jobs import Job, start_job, wait


def test_jobs_run_in_the_background_and_report_progress() -> None:
    gate = threading.Event()

    def target(job: Job) -> Path:
        job.report(done=1, total=4, message="one")
        gate.wait(5)
        return Path("/tmp")

    job = start_job("demo", target)
    for _ in range(100):
        if job.done == 1:
            break
        threading.Event().wait(0.01)
    assert job.active and job.fraction == 0.25 and "1/4" in job.progress_text()
    gate.set()
    wait(job, 5)
    assert job.status == "done" and job.run_dir == Path("/tmp") and job.fraction == 1.0

    failed = wait(start_job("bad", lambda job: (_ for _ in ()).throw(RagError("no questions"))), 5)
    assert failed.status == "failed" and "no questions" in failed.error
