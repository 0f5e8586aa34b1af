"""Names and values a question mentions: quoted strings, words after "called"/"named", capitalised words
inside a sentence. They say what to act on ("add *Bohemian Rhapsody* to my playlist"), not what the
question is about: the gate never counts them as unknown words.
"""

from __future__ import annotations

import re

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
