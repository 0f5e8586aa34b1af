"""Asking several configurations at once for the app: results arrive as each configuration finishes
(streamed answers token by token where the generator streams), the conversation history, and the
request a page leaves for the home page ("re-run this question")."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rag.config import Config
from rag.query import ANSWER_EXCERPT, REGARDING
from rag.results import AnswerResult
from rag.runner import Engine

RERUN_KEY = "rerun_request"
ASK_TEXT_KEY = "ask_text"  # the question box
PENDING_KEY = "ask_pending"  # a question accepted by the box or an example, asked on this run
REFUSED_KEY = "ask_refused"  # why the typed question was refused (the text stays in the box)


@dataclass
class Turn:
    """One question of the conversation and every configuration's result."""

    question: str
    configs: list[str]
    retrieval_only: bool
    generator: str
    k: int
    results: list[AnswerResult] = field(default_factory=list)
    seconds: float = 0.0

    def result_for(self, config: str) -> AnswerResult | None:
        """The result of one configuration."""
        return next((r for r in self.results if r.config == config), None)

    @property
    def rewritten(self) -> list[str]:
        """How the configurations read this question when it continued the conversation (`rewritten_question`
        of each, distinct); empty for a question that stands on its own."""
        seen = [shown for r in self.results if (shown := rewritten_question(r))]
        return list(dict.fromkeys(seen))


def rewritten_question(result: AnswerResult) -> str:
    """The question a follow-up was read as, for display: the LLM's standalone question, or (rewritten offline)
    the question and the earlier question it continues — never the retrieval text with the earlier answer's
    fragments. "" when the question was taken as asked (a new topic, or no conversation before it)."""
    query = result.query
    if query is not None:
        if query.rewritten and query.rewritten != query.asked:
            return query.rewritten
        previous = query.earlier_question
        return f"{query.asked} — continuing “{previous}”" if previous else ""
    standalone = result.standalone_query  # a result read back from a saved conversation keeps only the text
    if not standalone or standalone == result.question:
        return ""
    focus, regarding, rest = standalone.partition(REGARDING)
    if regarding and focus.strip() == result.question.strip():
        previous = rest.split(ANSWER_EXCERPT)[0].removesuffix(")").strip()
        return f"{result.question} — continuing “{previous}”"
    return standalone


def conversation_history(turns: Sequence[Turn], config: str | None = None) -> list[dict[str, str]]:
    """Earlier turns as chat messages for query rewriting: each question and an answer to it, with the structural
    id of the operation the answer is about (`subject`, "" when none: a follow-up reads it, not the answer's text).

    With `config`, the answer is that configuration's own (never another column's: a naive baseline's
    answer must not steer `full`); without, the first usable answer of the turn.
    """
    messages: list[dict[str, str]] = []
    for turn in turns:
        messages.append({"role": "user", "content": turn.question})
        answers = [
            r for r in turn.results if r.ok and r.answer and not r.abstained and (config is None or r.config == config)
        ]
        if answers:
            messages.append({"role": "assistant", "content": answers[0].answer, "subject": answers[0].subject})
    return messages


def conversation_histories(turns: Sequence[Turn], configs: Sequence[Config]) -> dict[str, list[dict[str, str]]]:
    """Each configuration's own conversation so far (`conversation_history` per configuration)."""
    return {config.name: conversation_history(turns, config.name) for config in configs}


def stream_turn(
    engine: Engine,
    question: str,
    configs: Sequence[Config],
    history: Sequence[Mapping[str, str]] | Mapping[str, Sequence[Mapping[str, str]]] | None,
    choices: tuple[bool, str, int],
    on_text: Callable[[str, str], None],
    on_result: Callable[[AnswerResult, int], None],
) -> Turn:
    """Ask every configuration at once and return the finished turn (results in configuration order, the seconds
    it took). `choices` is (retrieval only, generator, k). As an answer streams, `on_text(config, text so far)` is
    called; as each configuration finishes, `on_result(result, how many have finished)`: the caller draws, this
    function only drives the stream."""
    retrieval_only, generator, k = choices
    turn = make_turn(question, configs, retrieval_only, generator, k)
    started = time.perf_counter()
    streamed: dict[str, str] = {}
    finished: dict[str, AnswerResult] = {}
    for event in engine.stream_many(question, configs, history, retrieval_only):
        if event.kind == "token":
            streamed[event.config] = streamed.get(event.config, "") + event.text
            on_text(event.config, streamed[event.config])
        elif event.result is not None:
            finished[event.config] = event.result
            on_result(event.result, len(finished))
    turn.results = [finished[c.name] for c in configs if c.name in finished]
    turn.seconds = time.perf_counter() - started
    return turn


def ask_all(
    engine: Engine,
    question: str,
    configs: Sequence[Config],
    history: Sequence[Mapping[str, str]] | None = None,
    retrieval_only: bool = False,
    use_cache: bool = True,
) -> list[AnswerResult]:
    """Every config's result in config order (no streaming): the non-interactive form of `stream_turn`."""
    events = engine.stream_many(question, configs, history, retrieval_only, stream=False, use_cache=use_cache)
    found = {e.config: e.result for e in events}
    return [found[c.name] for c in configs if found.get(c.name) is not None]  # type: ignore[misc]


def make_turn(question: str, configs: Sequence[Config], retrieval_only: bool, generator: str, k: int) -> Turn:
    """An empty turn, timed from now."""
    turn = Turn(question, [c.name for c in configs], retrieval_only, generator, k)
    turn.seconds = time.perf_counter()
    return turn


def rerun_request(question: str, configs: Sequence[str], definitions: Mapping[str, Any] | None = None,
                  history: Sequence[Mapping[str, str]] | None = None) -> dict[str, Any]:
    """What the evaluation page leaves in session state for the home page to ask again."""
    return {
        "question": question,
        "configs": list(dict.fromkeys(configs)),
        "definitions": dict(definitions or {}),
        "history": [dict(m) for m in history or []],
    }


# ---------------------------------------------------------------------- example questions
@dataclass(frozen=True)
class Example:
    """A clickable example question and what comparing the configurations on it shows."""

    label: str
    question: str
    reveals: str
    icon: str
    apis: tuple[str, ...] = ()  # shown only when these APIs are indexed (none: always)


# Each claim is about the default configurations (C0, C3, full) on StackOne's specs, and a test checks it
# (tests/app/test_examples.py on the engine, tests/app/test_browser.py by clicking the buttons).
EXAMPLES: tuple[Example, ...] = (
    Example("Out of scope", "What's the weather in Berlin?",
            "The specs say nothing about weather: full's confidence gate abstains, while C0 and C3 (no gate) "
            "quote unrelated chunks.",
            ":material/do_not_disturb_on:"),
    Example("Missing endpoint", "How do I create a course in the LMS API?",
            "The LMS API has no create-course operation: full says so first, citing the course operations that "
            "do exist; C0 and C3 quote course lines without saying it.",
            ":material/edit_off:", ("lms",)),
    Example("Cross-API", "How do I list employees in the HRIS API and candidates in the ATS API?",
            "One question, two APIs: full's per-API k brings both list operations (HRIS employees, ATS "
            "candidates) into its top 5 and its answer; C0's top 5 all come from one API.",
            ":material/call_split:", ("hris", "ats")),
    Example("Authentication", "How do I authenticate requests to the HRIS API?",
            "An API-wide question: full opens with the API's own statement (HTTP Basic and the header to send), "
            "cited to its overview; C0's raw JSON chunks never state the scheme.",
            ":material/key:", ("hris",)),
    Example("Shared header", "Which header selects the account on the HRIS endpoints?",
            "A question naming no endpoint: full answers from the conventions chunk (x-account-id, on every "
            "operation) rather than one arbitrary operation; C0 quotes one operation's raw JSON.",
            ":material/badge:", ("hris",)),
)


def examples_for(apis: set[str], examples: Sequence[Example] = EXAMPLES) -> list[Example]:
    """The examples whose APIs are all indexed (those that name no API always)."""
    return [example for example in examples if set(example.apis) <= apis]
