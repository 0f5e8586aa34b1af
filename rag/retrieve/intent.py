"""API-intent detection: which indexed APIs a question is about, for a metadata filter.

The offline detector scores each API by explicit mentions and by how distinctive the question's
terms are for it; it filters only when one API clearly wins and falls back to no filter when
unsure. An LLM classifier is used when an LLM is configured, falling back to the offline one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Protocol

from rag.corpus.paths import resource_of
from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import normalize_term, tokenize
from rag.llm.base import ChatMessage, ChatModel
from rag.query import Query

_MULTI_API = re.compile(
    r"\b(which|what|all|every|each|across|both|multiple|several|different|any)\b[\w\s,'-]{0,40}?"
    r"\b(apis|specs|services|integrations)\b",
    re.IGNORECASE,
)
MIN_SCORE = 0.9
MIN_SHARE = 0.8
MIN_TERM_COUNT = 3
MIN_MARGIN = 1.8


@dataclass(frozen=True)
class Intent:
    """The detected APIs (empty: no filter), whether the question spans several, and how it was found."""

    apis: tuple[str, ...] = ()
    multi_api: bool = False
    scores: dict[str, float] = field(default_factory=dict)
    method: str = "offline"
    note: str = ""
    explicit: bool = False  # the question names the APIs itself ("in the LMS API")


class IntentDetector(Protocol):
    """Detects the APIs a question is about."""

    def detect(self, question: Query | str, profile: CorpusProfile) -> Intent:
        """The intent of `question` given the indexed corpus."""
        ...


def is_multi_api_question(question: str) -> bool:
    """Questions like "which APIs let me …" or "across all specs"."""
    return bool(_MULTI_API.search(question))


def api_names(text: str, profile: CorpusProfile) -> dict[str, tuple[str, ...]]:
    """The indexed APIs `text` names, each with the words of the text that name it: its id (`hris`; `api_video` as
    "apivideo"), a term of it (`marketing` ← "Marketing"), the name its file was published under (`pocketsmith` of
    pocketsmith.com.json), one of those written with dots or hyphens ("api.video" → apivideo), or an id of several
    words written with spaces ("app store connect" → app-store-connect)."""
    lowered = text.lower()
    dotted = {re.sub(r"[.-]", "", name): name for name in re.findall(r"[a-z0-9]+(?:[.-][a-z0-9]+)+", lowered)}
    words = set(re.findall(r"[a-z0-9]+", lowered))
    terms = {token: normalize_term(token) for token in tokenize(text)}
    named: dict[str, tuple[str, ...]] = {}
    for api, (forms, term, spaced) in profile.remembered("api-name-forms", lambda: _api_name_forms(profile)).items():
        said = (words & forms) | {name for joined, name in dotted.items() if joined in forms}
        if spaced is not None and spaced[0].search(lowered):
            said |= spaced[1]  # "app store connect" names app-store-connect
        said |= {token for token, normalized in terms.items() if normalized == term}
        if said:
            named[api] = tuple(sorted(said))
    return named


def _api_name_forms(profile: CorpusProfile
                    ) -> dict[str, tuple[frozenset[str], str, tuple[re.Pattern[str], frozenset[str]] | None]]:
    """For each indexed API, what names it: its id and aliases, its id as a term, and the words of an id of several
    written with spaces (with the pattern that finds them in that order)."""
    found = {}
    for api in profile.apis:
        forms = {api, api.replace("_", "")} | {alias for alias, owner in profile.api_aliases.items() if owner == api}
        parts = [part for part in re.split(r"[-_]", api) if part]
        spaced = (re.compile(r"\b" + r"\s+".join(map(re.escape, parts)) + r"\b"), frozenset(parts)) \
            if len(parts) > 1 else None
        found[api] = (frozenset(forms), normalize_term(api), spaced)
    return found


def unsearched_words(text: str, profile: CorpusProfile) -> tuple[str, ...]:
    """The words of `text` that name an API it names (`api_names`) and no resource any indexed path acts on: a
    search restricted to that API need not look for them ("pocketsmith", "hris"; not "courses" of an API named
    courses whose paths act on courses; "box" though Box keeps `…/metadata/global/boxSkillsCards`)."""
    resources = profile.remembered("path-resources", lambda: frozenset(
        normalize_term(resource_of(op.path)) for op in profile.operations if op.path))
    named = {word for words in api_names(text, profile).values() for word in words}
    return tuple(sorted(word for word in named if normalize_term(word) not in resources))


class OfflineIntentDetector:
    """Explicit API mentions plus term distinctiveness; no model."""

    def detect(self, question: Query | str, profile: CorpusProfile) -> Intent:
        """Score APIs; filter only on a clear winner (or the APIs named explicitly)."""
        query = Query.of(question)
        question = query.text
        terms = {normalize_term(t) for t in tokenize(question)}
        # Only the user's own words name an API; glossary additions ("HR" → hris) are hints, not names.
        explicit = list(api_names(query.standalone, profile))
        multi = is_multi_api_question(question) or len(explicit) >= 2
        scores: dict[str, float] = {}
        for term in terms:
            counts = profile.term_apis.get(term)
            if not counts or sum(counts.values()) < MIN_TERM_COUNT:
                continue
            api, share = max(profile.distinctiveness(term).items(), key=lambda item: item[1])
            if share >= MIN_SHARE:
                scores[api] = scores.get(api, 0.0) + share
        for api in explicit:
            scores[api] = scores.get(api, 0.0) + 3.0
        if explicit:
            return Intent(
                tuple(explicit), multi, scores, "offline", f"named explicitly: {', '.join(explicit)}", explicit=True
            )
        if multi or not scores:
            return Intent((), multi, scores, "offline", "no clear API: searching all")
        ranked = sorted(scores.items(), key=lambda item: -item[1])
        best, best_score = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
        if best_score >= MIN_SCORE and best_score >= MIN_MARGIN * runner_up:
            return Intent((best,), False, scores, "offline", f"terms point to {best}")
        return Intent((), False, scores, "offline", "unsure: searching all APIs")


class LLMIntentDetector:
    """Asks a chat model which APIs apply; falls back to the offline detector on any failure."""

    def __init__(self, chat_model: ChatModel, fallback: IntentDetector | None = None) -> None:
        self.chat_model = chat_model
        self.fallback = fallback or OfflineIntentDetector()

    def detect(self, question: Query | str, profile: CorpusProfile) -> Intent:
        """One short JSON call; unknown API names are ignored; empty → no filter."""
        question = Query.of(question).text
        listing = "\n".join(f"- {api}: {profile.api_titles.get(api, api)}" for api in profile.apis)
        messages = [
            ChatMessage("system", "You route developer questions to API specifications. Reply with JSON only."),
            ChatMessage(
                "user",
                f"APIs:\n{listing}\n\nQuestion: {question}\n\nWhich APIs is the question about? Reply "
                '{"apis": [names], "multi": true|false}. Use [] when unsure.',
            ),
        ]
        try:
            response = self.chat_model.complete(messages, max_tokens=60, json_mode=True)
            match = re.search(r"\{.*\}", response.text, re.DOTALL)
            data = json.loads(match.group(0) if match else response.text)
            apis = tuple(a for a in data.get("apis", []) if a in profile.apis)
            multi = bool(data.get("multi")) or len(apis) > 1 or is_multi_api_question(question)
            words = set(re.findall(r"[a-z0-9]+", question.lower()))
            return Intent(apis, multi, {}, "llm", "LLM classifier", explicit=bool(apis) and set(apis) <= words)
        except Exception as error:  # any model or parse failure → offline
            fallback = self.fallback.detect(question, profile)
            return Intent(
                fallback.apis,
                fallback.multi_api,
                fallback.scores,
                "offline",
                f"LLM classifier failed ({type(error).__name__}); offline fallback",
            )
