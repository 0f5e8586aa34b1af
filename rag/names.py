"""Names and values a question mentions: quoted strings, words after "called"/"named", capitalised words
inside a sentence. They say what to act on ("add *Bohemian Rhapsody* to my playlist"), not what the
question is about: the gate never counts them as unknown words.
"""

from __future__ import annotations

import re
from functools import cache

from rag.data import data_table

_QUOTED = re.compile(r"\"[^\"]{1,200}\"|“[^”]{1,200}”|'[^']{2,200}'(?!\w)|‘[^’]{1,200}’")
_NAMED_BY = re.compile(r"\b(?:called|named|titled|entitled)\s+([A-Za-z0-9][\w'’-]*(?:\s+[A-Z0-9][\w'’-]*)*)")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n)\s*[\"'“‘(]*([A-Za-z][\w'’-]*)")
_TITLE_WORD = re.compile(r"\b[A-Z][a-z]+(?:['’][a-z]+)?\b")


def names_and_values(question: str) -> list[str]:
    """The names and values a question mentions: quoted strings, words after "called"/"named", and
    capitalised words inside a sentence ("songs of Mariah Carey", "The Dark Side of the Moon").

    They say what to act on, not what the question is about; the gate never counts them as unknown.
    """
    found = [m.group(0).strip("\"'“”‘’") for m in _QUOTED.finditer(question)]
    found += [m.group(1) for m in _NAMED_BY.finditer(question)]
    starts = {m.start(1) for m in _SENTENCE_START.finditer(question)}
    found += [m.group(0) for m in _TITLE_WORD.finditer(question) if m.start() not in starts]
    return list(dict.fromkeys(found))


@cache
def _new_thing_before() -> re.Pattern[str]:
    """The text before a name that makes it the name of what the request creates ("create a flag called
    new-checkout", "make a 'needs-triage' label", "add a new customer Blue Fin Cafe"): it exists once the request
    has run. The words between the verb (or "new") and the name are the created thing's, none a word that ends what
    a write request writes ("the new album | by Adele" names an album that exists)."""
    ends = "|".join(data_table("question_words")["write_object_ends"])
    word = rf"(?!(?:{ends})\b)[a-z][\w'’-]*"
    naming = r"(?:called|named|titled|entitled)"
    return re.compile(
        rf"(?:\b(?:create|make)\s+(?:an?\s+|the\s+)?(?:{word}\s+){{0,4}}?(?:{naming}\s+|[\"“‘'])"
        rf"|\bnew\s+(?:{word}\s+){{0,3}}?{word}(?:\s+{naming})?\s*,?\s*[\"“‘']?)$",
        re.IGNORECASE,
    )


@cache
def _calendar_words() -> frozenset[str]:
    return frozenset(data_table("question_words")["calendar_words"])


def names_to_look_up(question: str) -> list[str]:
    """The names and values of `names_and_values` that stand for something that exists before the request runs
    and is not a date: not the name a request gives what it creates ("create a repo called billing-svc"), not a
    day or a month ("next Monday at 9am")."""
    spans = [m.span(0) for m in _NAME_RUN.finditer(question)] + [m.span(1) for m in _NAMED_BY.finditer(question)]
    spans += [(m.start(0) + 1, m.end(0)) for m in _QUOTED.finditer(question)]  # after the opening quote
    created = [(start, end) for start, end in spans if _new_thing_before().search(question[max(0, start - 80):start])]
    found = []
    for name in names_and_values(question):
        if name.lower() in _calendar_words():
            continue
        starts = [m.start() for m in re.finditer(re.escape(name), question)]
        if starts and all(any(a <= at < b for a, b in created) for at in starts):
            continue
        found.append(name)
    return found


_NAME_RUN = re.compile(
    r"\b[A-Z][\w'’-]+(?:\s+(?:(?:of|the|and|de|la|le|von|van|del|&)\s+)*[A-Z0-9][\w'’-]*)*"
)


def name_phrases(question: str) -> list[str]:
    """Whole names as a person would say them: quoted strings, what follows "called"/"named", and runs of
    capitalised words inside a sentence with their short joining words ("Kind of Blue", "Miles Davis")."""
    found = [m.group(0).strip("\"'“”‘’") for m in _QUOTED.finditer(question)]
    found += [m.group(1) for m in _NAMED_BY.finditer(question)]
    starts = {m.start(1) for m in _SENTENCE_START.finditer(question)}
    found += [m.group(0) for m in _NAME_RUN.finditer(_QUOTED.sub(lambda q: " " * len(q.group(0)), question))
              if m.start() not in starts]
    phrases = [p for p in dict.fromkeys(found) if p]
    return [p for p in phrases if not any(p != other and p in other for other in phrases)]


def without_names_and_values(question: str) -> str:
    """The question with its names, values and numbers blanked out."""
    text = _QUOTED.sub(" ", question)
    text = _NAMED_BY.sub(" ", text)
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    text = _TITLE_WORD.sub(lambda m: m.group(0) if m.start() in starts else " ", text)
    return re.sub(r"\b\d[\d.,:]*\b", " ", text)


# "my playlist called Workout", "my playlist Oldies", "our team 'Core'": lower-case words after "my"/"our",
# an optional naming word, then the name.
_OWNED = re.compile(r"\b(?:my|our)\s+(?:[a-z][\w'’-]*\s+){1,3}?(?:(?:called|named|titled)\s+)?[\"“‘']?$")


def names_the_users_own(question: str) -> bool:
    """Whether the question names one of the user's own things by its name ("my playlist called Workout",
    "rename my playlist Chill"): found in the user's collection, not looked up in the catalogue."""
    for name in names_and_values(question):
        start = question.find(name)
        while start > 0:
            if _OWNED.search(question[max(0, start - 60):start]):
                return True
            start = question.find(name, start + 1)
    return False
