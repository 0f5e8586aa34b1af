"""The query that travels through the pipeline: what was asked, what it continues, what was added.

A follow-up is retrieved with the earlier turn attached and a glossary adds spec words for the search;
later stages still need the question itself (the gate judges it, the reranker reads its verb and number,
the extractive answer quotes for it). They read those parts from the fields, never from the text, and what
the question asks from its one analysis (`Query.analysis`, rag.question_analysis).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

from rag.errors import ConfigError
from rag.question_analysis import QuestionAnalysis

# How the retrieval text shows the parts (the embedder and BM25 see one string; these stay readable in
# notes and records).
REGARDING = " (regarding: "
ANSWER_EXCERPT = " | earlier answer: "
EXPANSION_OPEN = " (glossary: "


@dataclass(frozen=True)
class Query:
    """One question on its way through the pipeline.

    `asked` is the question as the user put it (cleaned); `rewritten` a standalone version an LLM wrote ("" when
    none); `previous` the earlier turn an offline rewrite attaches (its question, and the start of its answer);
    `expansions` the spec words a glossary or an initialism ("PR" → pull request) adds for retrieval. A follow-up's
    `subject` is the structural id of the operation the conversation is about (`subject_words` says it: `GET /users
    (list users)`); `keeps_subject` when the follow-up names nothing of its own ("and how do I page through them?"),
    so that operation is what it asks about (not so for "the same for folders"); `moved_subject` when the rewrite
    moved the subject to the operation the follow-up points to (`GET /users/{id}` for "how do I get a single one?",
    the subject's action on folders for "what about folders?"). `unsearched` are the question's words that name the
    APIs a search is restricted to ("pocketsmith" of "how do I get a pocketsmith transaction?"): the filter does
    their work, and searched for they find the API's overview rather than the operation asked about.
    """

    asked: str
    rewritten: str = ""
    previous: str = ""
    expansions: tuple[str, ...] = ()
    subject: str = ""
    subject_words: str = ""
    keeps_subject: bool = False
    moved_subject: bool = False
    unsearched: tuple[str, ...] = ()

    @classmethod
    def of(cls, value: Query | str) -> Query:
        """A query from a plain question (stages accept both)."""
        return value if isinstance(value, Query) else cls(value)

    @property
    def focus(self) -> str:
        """The question itself: the LLM's standalone version, else the question as asked."""
        return self.rewritten or self.asked

    @property
    def standalone(self) -> str:
        """The question that stands on its own: the focus with the conversation's subject and the earlier turn
        it continues."""
        regarding = "; ".join(part for part in (self.subject_words, self.previous) if part)
        return f"{self.focus.strip()}{REGARDING}{regarding})" if regarding else self.focus

    @cached_property
    def searched(self) -> str:
        """The standalone question without the `unsearched` words (the standalone question when nothing else
        would be left)."""
        if not self.unsearched:
            return self.standalone
        names = "|".join(re.escape(word) for word in sorted(self.unsearched, key=len, reverse=True))
        kept = re.sub(r"\s{2,}", " ", re.sub(rf"(?<![\w.-])(?:{names})(?![\w-])", " ", self.standalone,
                                              flags=re.IGNORECASE)).strip()
        return kept if re.search(r"\w", kept) else self.standalone

    @property
    def earlier_question(self) -> str:
        """The earlier question an offline rewrite attached, without the start of its answer ("" when none)."""
        return self.previous.split(ANSWER_EXCERPT)[0].strip()

    @property
    def follows_up(self) -> bool:
        """Whether the query continues a conversation (an earlier turn, a subject, or an LLM's rewrite)."""
        return bool(self.previous or self.subject or self.rewritten)

    @property
    def text(self) -> str:
        """What retrieval searches with: the standalone question (`searched`) and the spec words added to it."""
        if not self.expansions:
            return self.searched
        return f"{self.searched}{EXPANSION_OPEN}{'; '.join(self.expansions)})"

    @cached_property
    def analysis(self) -> QuestionAnalysis:
        """What the question asks (its verbs' methods, the write it requests, yes/no), read once per query."""
        return QuestionAnalysis.of(self.focus, self.text, self.subject)

    def expanded(self, words: tuple[str, ...]) -> Query:
        """The same query with glossary words added for retrieval."""
        return replace(self, expansions=words)

    def __str__(self) -> str:
        return self.text


MAX_QUESTION_CHARS = 4000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_question(question: str) -> str:
    """Strip control characters and surrounding space; reject empty or overlong questions."""
    if not isinstance(question, str):
        raise ConfigError(f"the question must be text, not {type(question).__name__}")
    cleaned = _CONTROL.sub(" ", question).strip()
    if not cleaned:
        raise ConfigError("the question is empty; type a question about the indexed APIs")
    if len(cleaned) > MAX_QUESTION_CHARS:
        raise ConfigError(
            f"the question is {len(cleaned):,} characters long; the limit is {MAX_QUESTION_CHARS:,} — shorten it"
        )
    return cleaned
