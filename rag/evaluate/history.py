"""Conversations in evaluation: a follow-up is judged after the configuration's own earlier answers.

A question set writes a follow-up's earlier turns by hand, with the ideal answer. Evaluated that way,
a configuration whose first answer went wrong still gets a perfect history, and broken follow-ups never
show in the scores. `replayed_history` asks the earlier user turns through the same configuration and
puts its own answers (in a retrieval-only run: the titles of the chunks it retrieved, which is what the
person saw) in place of the hand-written ones.
"""

from __future__ import annotations

from typing import Protocol

from rag.config import Config
from rag.results import AnswerResult

HISTORY_MODES = ("replay", "given")
SHOWN_CHUNKS = 3


class Runs(Protocol):
    """What replaying needs of an engine."""

    def run(
        self,
        question: str,
        config: Config,
        history: list[dict[str, str]] | None = None,
        retrieval_only: bool = False,
    ) -> AnswerResult:
        """Answer one question with one config."""
        ...


def what_was_shown(result: AnswerResult) -> str:
    """The assistant turn a person saw: the answer, or in a retrieval-only run the top chunks' titles."""
    if result.answer.strip():
        return result.answer.strip()
    titles = [item.chunk.title or item.chunk.chunk_id for item in result.chunks[:SHOWN_CHUNKS]]
    return "Retrieved: " + "; ".join(titles) if titles else ""


def replayed_history(
    engine: Runs, history: tuple[dict[str, str], ...], config: Config, retrieval_only: bool
) -> list[dict[str, str]] | None:
    """The conversation as `config` would have had it (None when there is no earlier turn)."""
    asked = [turn["content"] for turn in history if turn.get("role") == "user" and turn.get("content")]
    if not asked:
        return list(history) or None
    replayed: list[dict[str, str]] = []
    for question in asked:
        result = engine.run(question, config, replayed or None, retrieval_only)
        replayed.append({"role": "user", "content": question})
        shown = what_was_shown(result)
        if shown:  # with the operation it is about, as the app keeps it
            replayed.append({"role": "assistant", "content": shown, "subject": result.subject})
    return replayed
