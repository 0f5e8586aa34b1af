"""The retrieval benchmark's timing loop: every preset runs every question, taking turns."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.__main__ import retrieval_ms


@dataclass
class RecordingEngine:
    """Records which config ran which question, in order."""

    calls: list[tuple[str, str]] = field(default_factory=list)

    def run(self, question: str, config: object, retrieval_only: bool = False) -> None:
        assert retrieval_only
        self.calls.append((question, config.name))  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Named:
    name: str


def test_each_config_runs_each_question_once_and_the_first_to_run_rotates() -> None:
    engine = RecordingEngine()
    configs = [Named("C2"), Named("full"), Named("C0")]
    samples = retrieval_ms(engine, ["q1", "q2", "q3", "q4"], configs)  # type: ignore[arg-type]

    assert {name: len(times) for name, times in samples.items()} == {"C2": 4, "full": 4, "C0": 4}
    assert all(ms >= 0 for times in samples.values() for ms in times)
    firsts = [engine.calls[i][1] for i in range(0, len(engine.calls), len(configs))]
    assert firsts == ["C2", "full", "C0", "C2"]
    assert sorted(engine.calls) == sorted((q, c.name) for q in ["q1", "q2", "q3", "q4"] for c in configs)
