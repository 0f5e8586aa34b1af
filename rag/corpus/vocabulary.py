"""Words of questions and chunks: the identifier-aware tokenizer, plural and word-ending forms."""

from __future__ import annotations

import re
from functools import lru_cache

_RAW_TOKENS = re.compile(r"[A-Za-z0-9_\-./{}]+")
_LOWER_UPPER = re.compile(r"[a-z][A-Z]")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i if in is it its me my of on or so that the this to "
    "what when where which who why will with you your we our there their them they should would could please "
    "api apis".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-case tokens: whole identifiers plus their parts.

    `expires_in` → `expires_in`, `expires`, `in`; `/unified/hris/employees` → the path and
    `unified`, `hris`, `employees`; `createdAt` → `createdat`, `created`, `at`. Stop words are
    dropped unless they are part of a longer identifier.
    """
    tokens: list[str] = []
    for raw in _RAW_TOKENS.findall(text):
        whole = raw.strip("-./{}").lower()
        parts = [
            part.lower()
            for piece in re.split(r"[_\-./{}]+", raw)
            for part in (_CAMEL.findall(piece) if _LOWER_UPPER.search(piece) else [piece])
            if part
        ]
        if whole and (whole not in STOPWORDS or len(parts) > 1):
            tokens.append(whole)
        if len(parts) > 1 or (parts and parts[0] != whole):
            tokens.extend(part for part in parts if part not in STOPWORDS)
    return tokens


def normalize_term(term: str) -> str:
    """Lower-case and strip a plural ending so `employees`/`employee` and `categories`/`category` meet."""
    term = term.lower()
    if len(term) > 4 and term.endswith("ies"):
        return term[:-3] + "y"
    if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
        return term[:-1]
    return term


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


GENERIC_TERMS = frozenset(
    """able about add added all allow allowed also another any anything ask available back based best call calls
    change check com create created data delete describe detail details different do does doing done each else
    endpoint endpoints example exist exists explain field fields find first format get give go going good got have
    help here info information into its just know last let like list look looking made make many may mean means
    method methods more most much need needed new next not number object one only other out over parameter parameters
    possible pull put query remove request requests response return returned returns right same say see send set
    should show so some something specific still such support supported sure take tell than thing things through
    time type types update use used using value values want way ways what whats work works would yes""".split()
)


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
    """English stop words plus the generic words of questions about APIs, contractions and greetings:
    never evidence of what a question is about."""
    words = set(GENERIC_TERMS) | {"don", "doesn", "isn", "aren", "didn", "won", "can", "hey", "hi", "please", "via"}
    return frozenset(words | function_words())
