"""Follow-ups in evaluation come after each configuration's own earlier answers."""

from __future__ import annotations

from pathlib import Path

from rag.config import PRESETS, Config
from rag.evaluate.history import replayed_history, what_was_shown
from rag.evaluate.questions import Question
from rag.evaluate.records import read_records
from rag.evaluate.runner import run_evaluation
from rag.results import AnswerResult, RetrievedChunk
from rag.runner import Engine
from tests.fakes import make_chunk

HISTORY = (
    {"role": "user", "content": "How do I list the users of the IAM API?"},
    {"role": "assistant", "content": "GET /unified/iam/users (the ideal, hand-written answer)"},
)


class ScriptedEngine:
    """Answers each config differently and remembers the histories it was given."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, list[dict[str, str]] | None]] = []

    def run(self, question: str, config: Config, history=None, retrieval_only: bool = False) -> AnswerResult:  # type: ignore[no-untyped-def]
        self.seen.append((config.name, question, history))
        return AnswerResult(config=config.name, question=question, answer=f"{config.name} says something about users",
                            subject=f"iam.paths./unified/iam/users.get.{config.name}")


def test_each_config_gets_its_own_earlier_answers_not_the_ideal_ones() -> None:
    engine = ScriptedEngine()
    for name in ("C0", "full"):
        history = replayed_history(engine, HISTORY, PRESETS[name], retrieval_only=False)
        assert history == [
            {"role": "user", "content": "How do I list the users of the IAM API?"},
            {"role": "assistant", "content": f"{name} says something about users",
             "subject": f"iam.paths./unified/iam/users.get.{name}"},  # as the app keeps it
        ]
    assert [(name, asked) for name, asked, _ in engine.seen] == [
        ("C0", "How do I list the users of the IAM API?"),
        ("full", "How do I list the users of the IAM API?"),
    ]
    assert replayed_history(engine, (), PRESETS["full"], retrieval_only=False) is None


def test_a_retrieval_only_turn_shows_the_retrieved_titles() -> None:
    chunk = make_chunk("iam.paths./unified/iam/users.get", "GET /unified/iam/users  [iam API]\nSummary: List Users",
                       kind="operation")
    result = AnswerResult(config="full", question="q", chunks=[RetrievedChunk(chunk, rank=1)])
    assert what_was_shown(result) == "Retrieved: GET /unified/iam/users"


def test_evaluation_replays_follow_ups_by_default_and_can_use_the_given_history(tmp_path: Path, fixture_index) -> None:  # type: ignore[no-untyped-def]
    engine = Engine(fixture_index, default_llm="extractive")
    follow_up = Question(
        "f1", "and what does the response look like?", relevant_ids=("people-3_1.paths./unified/hris/employees.get",),
        history=({"role": "user", "content": "How do I list the employees?"},
                 {"role": "assistant", "content": "Use GET /unified/hris/employees."}),
    )  # fmt: skip
    replayed = run_evaluation(engine, [follow_up], [PRESETS["C1"]], tmp_path / "replay", retrieval_only=True)
    given = run_evaluation(engine, [follow_up], [PRESETS["C1"]], tmp_path / "given", retrieval_only=True,
                           history_mode="given")
    replay_notes = read_records(tmp_path / "replay" / "C1.jsonl")[0][0]["notes"]
    given_notes = read_records(tmp_path / "given" / "C1.jsonl")[0][0]["notes"]
    assert any(note.startswith("history replayed: 2 earlier turn(s)") for note in replay_notes)
    assert not any(note.startswith("history replayed") for note in given_notes)
    assert replayed.metrics and given.metrics
