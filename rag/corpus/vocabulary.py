"""Words of questions and chunks: the identifier-aware tokenizer, plural and word-ending forms."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from rag.chunk import Chunk
from rag.corpus.path_words import resource_segments, segment_words
from rag.data import data_table

_RAW_TOKENS = re.compile(r"[A-Za-z0-9_\-./{}]+")
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")
# A sentence ends at a mark before a word that opens one: not "(i.e. title, overview)" or "e.g. a list".
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^a-z])")
# A sentence that asks or is labelled: an aside, not what an operation does
_ASIDE = re.compile(r"^\W*\w+:\s|\?$")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEPARATORS = re.compile(r"[_\-./{}]+")


@cache
def _stop_word_list(part: str) -> frozenset[str]:
    """One list of `rag/data/stop_words.toml` (tokenizer, generic or conversational)."""
    return frozenset(data_table("stop_words")[part])


# The words the tokenizer drops (rag/data/stop_words.toml).
STOPWORDS = _stop_word_list("tokenizer")


def tokenize(text: str) -> list[str]:
    """Lower-case tokens: whole identifiers plus their parts.

    `expires_in` → `expires_in`, `expires`, `in`; `/unified/hris/employees` → the path and
    `unified`, `hris`, `employees`; `createdAt` → `createdat`, `created`, `at`. Stop words are
    dropped unless they are part of a longer identifier.
    """
    tokens: list[str] = []
    for raw in _RAW_TOKENS.findall(text):
        tokens.extend(_raw_tokens(raw))
    return tokens


@lru_cache(maxsize=262_144)
def _raw_tokens(raw: str) -> tuple[str, ...]:
    """The tokens of one raw identifier or word (cached: a corpus repeats its words, and every new index
    generation tokenizes every chunk again for BM25 and the corpus profile)."""
    whole = raw.strip("-./{}").lower()
    parts = [
        part.lower()
        for piece in _SEPARATORS.split(raw)
        for part in (_CAMEL.findall(piece) if _LOWER_UPPER.search(piece) else [piece])
        if part
    ]
    tokens: list[str] = []
    if whole and (whole not in STOPWORDS or len(parts) > 1):
        tokens.append(whole)
    if len(parts) > 1 or (parts and parts[0] != whole):
        tokens.extend(part for part in parts if part not in STOPWORDS)
    return tuple(tokens)


_VOWELS = frozenset("aeiou")


@lru_cache(maxsize=65536)
def singular(word: str) -> str:
    """The word normalizer: a lower-case word's singular, so a plural meets its singular (`statuses` → status,
    `policies` → policy, `addresses` → address, `boxes` → box, `matches` → match, `employees` → employee,
    `causes` → cause, `apis` → api); a word that already is one stays (`status`, `analysis`, `access`), and so does
    a word of three letters or fewer. The table of pairs it is held to is tests/corpus/test_vocabulary.py's. Rules,
    not a dictionary: a plural of a word ending in -ie reads as one in -y (`movies` → movy: it does not meet
    `movie`), and `analyses` → analyse.

    The learned ranker's features, retrieval, the gate and the write check read `normalize_term` instead: the
    ranker was trained on features computed with it."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "sis")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("uses") and len(word) > 4 and word[-5] not in _VOWELS:
        return word[:-2]  # statuses, bonuses, buses (not causes, houses: a vowel before the u)
    return word[:-1]


def normalize_term(term: str) -> str:
    """Lower-case and strip a plural ending so `employees`/`employee` and `categories`/`category` meet: the key of
    the learned ranker's features, retrieval's API words, the corpus profile's vocabulary, the gate and the write
    check (kept as it is: the ranker was trained on features computed with it; `singular` is the word normalizer
    of everything else)."""
    term = term.lower()
    if len(term) > 4 and term.endswith("ies"):
        return term[:-3] + "y"
    if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
        return term[:-1]
    return term


def topic_keys(text: str) -> set[str]:
    """The keys under which a text may name a topic (`rag.corpus.profile.topic_names`): its words and its runs of
    two and three words joined snake-case (`custom field definitions` → `custom_field_definitions`), each as
    written and singular."""
    words = re.findall(r"[a-z0-9_]+", text.lower())
    runs = ["_".join(words[start:start + size]) for size in (2, 3) for start in range(len(words) - size + 1)]
    return {*words, *runs} | {singular(key) for key in (*words, *runs)}


@lru_cache(maxsize=65536)
def word_forms(term: str) -> frozenset[str]:
    """The term with common English endings removed: `listing` → `list`, `created` → `create`/`creat`,
    `authentication` → `authenticate`, `deletion` → `delete`."""
    term = term.lower()
    forms = {term, normalize_term(term)}
    if len(term) > 6 and term.endswith("tion"):
        forms.update({term[:-3], term[:-3] + "e"})
    for ending in ("ing", "ed", "es", "s", "er", "ers"):
        if len(term) > len(ending) + 3 and term.endswith(ending):
            stem = term[: -len(ending)]
            forms.update({stem, stem + "e"})
            if len(stem) > 3 and stem[-1] == stem[-2]:
                forms.add(stem[:-1])
    return frozenset(forms)


# The generic words of questions about APIs (rag/data/stop_words.toml).
GENERIC_TERMS = _stop_word_list("generic")


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    """English stop words (scikit-learn's list)."""
    try:  # the private module is the cheap import; the public path is the fallback
        from sklearn.feature_extraction._stop_words import ENGLISH_STOP_WORDS
    except ImportError:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    return frozenset(ENGLISH_STOP_WORDS)


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English stop words plus every list of rag/data/stop_words.toml (the tokenizer's, the generic words of
    questions about APIs, contractions and greetings): never evidence of what a question is about."""
    return STOPWORDS | GENERIC_TERMS | _stop_word_list("conversational") | function_words()


def schema_name(structural_id: str) -> str:
    """The component name a structural id covers: all that follows `.components.`, dots included
    (`api.v2010.account.recording`); "" for an id that is no component."""
    return structural_id.split(".components.", 1)[1] if ".components." in structural_id else ""


def readable_name(text: str) -> str:
    """A name written as one identifier in words (`getLatestCountryDataByName` → "get latest country data by
    name", `list_employees` → "list employees"); text that is not one identifier comes back as it is."""
    stripped = text.strip()
    if not re.fullmatch(r"[A-Za-z][\w.\-]*", stripped):
        return text
    parts = re.split(r"[_\-.]+", stripped)
    return " ".join(word if word.isupper() else word.lower() for part in parts for word in _CAMEL.findall(part))


@lru_cache(maxsize=65536)
def opening_sentence(text: str) -> str:
    """The first sentence of `text` ("" for none); a mark inside parentheses ends none ("at most 1,000 posts (eg.
    Bookmarks) …")."""
    parts = [part for part in _SENTENCE_END.split(text.strip()) if part.strip()]
    for end in range(1, len(parts) + 1):
        sentence = " ".join(parts[:end])
        if sentence.count("(") <= sentence.count(")"):
            return sentence
    return parts[0] if parts else ""  # a parenthesis never closed


def summary_opening(summary: str) -> str:
    """What a summary says an operation does: its first sentence where it runs on ("Create an issue. If using
    deadline only the date will be taken into account…" → "Create an issue."); "" where that sentence is an aside,
    a question ("Starting a new project? We recommend trying Responses…") or a labelled note ("NOTE: This endpoint
    requires an admin API key."), which says nothing of what the operation does."""
    opening = opening_sentence(summary)
    return "" if _ASIDE.search(opening) else opening


def operation_words(summary: str, operation_id: str, method: str, path: str) -> str:
    """What an operation does, in words a person's question can meet: its summary (`summary_opening`; spelled out
    when the spec wrote an identifier there), else (none, or one opening with an aside) its operationId spelled out
    (`delete_guild_member` → "delete guild member", `getGuildMember` → "get guild member", `get-an-album` → "get an
    album"), else its method and the words of its path's fixed segments (`DELETE /guilds/{guild_id}/members/{user_id}`
    → "delete guilds members")."""
    for name in (summary_opening(summary), operation_id.strip()):
        if name:
            return readable_name(name)
    words = [word for segment in resource_segments(path) for word in segment_words(segment) if not word.isdigit()]
    return " ".join([method.lower(), *words]).strip()


def operation_gist(chunk: Chunk) -> str:
    """What an operation does, as the gate compares it with a question and a follow-up's rewrite searches for it:
    its summary, spelled out in words when the spec wrote an identifier there (`getLatestCountryDataByName` → "get
    latest country data by name", which an embedding model reads as words), else its operationId in words, else its
    method and path in words (`operation_words`)."""
    return operation_words(chunk.summary, chunk.operation_id, chunk.method, chunk.path)
