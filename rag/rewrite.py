"""Multi-turn: rewrite a follow-up into a standalone query from recent history."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rag.names import name_phrases
from rag.query import ANSWER_EXCERPT, Query

MAX_MESSAGES = 10
MAX_HISTORY_CHARS = 2000
_FOLLOW_UP = re.compile(
    r"^\s*(and|also|what about|how about|same|ok|okay|then|so|only|but|just|plus)\b"
    r"|\b(it|its|it's|they|them|their|this|that|those|these|one|ones|the same|there|same)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Rewrite:
    """The query and how its standalone form was obtained (`none`, `offline`, `llm`, `fallback`)."""

    query: Query
    method: str = "none"
    note: str = ""


def recent_history(history: Sequence[dict[str, str]] | None) -> list[dict[str, str]]:
    """The last 10 messages, trimmed from the oldest to at most 2,000 characters."""
    messages = [m for m in (history or []) if isinstance(m, dict) and m.get("content")][-MAX_MESSAGES:]
    while messages and sum(len(m["content"]) for m in messages) > MAX_HISTORY_CHARS:
        messages.pop(0)
    if not messages and history:
        last = [m for m in history if isinstance(m, dict) and m.get("content")][-1:]
        messages = [{"role": m.get("role", "user"), "content": m["content"][-MAX_HISTORY_CHARS:]} for m in last]
    return messages


def names_a_new_topic(question: str, history: Sequence[dict[str, str]], topics: frozenset[str]) -> bool:
    """Whether the question names an API or resource (from `topics`) that the previous question did not:
    "and how do I list employees in HRIS?" after a question about LMS courses starts a new topic."""
    if not topics:
        return False
    asked = [m["content"] for m in history if m.get("role") == "user" and m.get("content")]
    previous = _topic_words(asked[-1]) if asked else set()
    return bool((_topic_words(question) & topics) - previous)


def _topic_words(text: str) -> set[str]:
    from rag.corpus.vocabulary import normalize_term

    words = re.findall(r"[a-z0-9_]+", text.lower())
    return set(words) | {normalize_term(word) for word in words}


def is_follow_up(
    question: str, history: Sequence[dict[str, str]] | None, topics: frozenset[str] = frozenset()
) -> bool:
    """Whether the question leans on earlier turns (pronouns, "what about …", very short) and does not
    name an API or resource of its own that the previous question did not (`topics`: the index's names)."""
    if not history or names_a_new_topic(question, history, topics):
        return False
    if _FOLLOW_UP.search(question):
        return True
    # A short question is a follow-up ("Which fields?") unless it names something of its own ("What's the
    # weather in Berlin?"): a new topic then, whatever the conversation was about.
    return len(question.split()) <= 6 and not name_phrases(question)


def offline_rewrite(question: str, history: Sequence[dict[str, str]]) -> Query:
    """The question with the last exchange attached as `previous`: the previous question and the start
    of its answer (which usually names the endpoint or schema the follow-up is about)."""
    recent = recent_history(history)
    users = [i for i, m in enumerate(recent) if m.get("role") == "user"]
    if not users:
        return Query(question)
    context = recent[users[-1]]["content"].strip()
    answer = next((m["content"] for m in recent[users[-1] + 1 :] if m.get("role") == "assistant"), "")
    if answer:
        context += ANSWER_EXCERPT + " ".join(answer.split()[:30])
    return Query(question.strip(), previous=context)


def rewrite_query(
    question: str,
    history: Sequence[dict[str, str]] | None,
    chat_model: Any | None = None,
    topics: frozenset[str] = frozenset(),
) -> Rewrite:
    """A standalone version of `question`; falls back to the original when rewriting fails.

    `topics` are the API and resource names of the index: a question naming a new one is not a follow-up.
    """
    if not is_follow_up(question, history, topics):
        if history and names_a_new_topic(question, history, topics):
            return Rewrite(Query(question), "none", "new topic: not rewritten (it names an API or resource of its own)")
        return Rewrite(Query(question))
    assert history is not None
    if chat_model is None:
        return Rewrite(offline_rewrite(question, history), "offline", "follow-up rewritten offline")
    from rag.llm.base import ChatMessage

    transcript = "\n".join(f"{m['role']}: {m['content']}" for m in recent_history(history))
    messages = [
        ChatMessage(
            "system",
            "Rewrite the user's last question into one standalone question about the API "
            "documentation. Keep every name and identifier. Reply with the question only.",
        ),
        ChatMessage("user", f"Conversation:\n{transcript}\n\nLast question: {question}\n\nStandalone question:"),
    ]
    try:
        text = chat_model.complete(messages, max_tokens=80).text.strip().strip('"')
    except Exception as error:
        note = f"rewrite failed ({type(error).__name__}); used the original question"
        return Rewrite(Query(question), "fallback", note)
    if not text or len(text) > 1000:
        return Rewrite(Query(question), "fallback", "rewrite was empty or too long; used the original question")
    return Rewrite(Query(question, rewritten=text), "llm", "follow-up rewritten by the LLM")
