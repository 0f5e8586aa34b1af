"""Initialisms a corpus's own words spell: "PR" of "pull request", "PO" of "purchase order".

People write the initialism ("withdraw my approval on a PR"); a spec writes the words ("Remove the approval for a
pull request"). Which words an initialism stands for is read from the indexed operations: the phrases of content
words that open what they do (their summaries, else their operationIds in words) whose initials spell it, where one
phrase accounts for most of those uses. A question's initialism the corpus does not use itself is searched for with
those words too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from rag.chunk import Chunk
from rag.corpus.vocabulary import STOPWORDS, function_words, operation_words, singular

# An initialism as people type it: two to five capitals, a plural `s` after them ("PRs").
_INITIALISM = re.compile(r"\b([A-Z]{2,5})s?\b")
_WORD = re.compile(r"[a-z]+")
# The phrase an initialism stands for names at least this many operations, and at least this share of the phrases
# with the same initials ("pull request" 28 of Bitbucket's 32; "check if", "code in" spell "CI" and are no phrase).
MIN_USES = 5
MIN_SHARE = 2 / 3


def corpus_initialisms(operations: Iterable[Chunk], verbs: Iterable[str] = ()) -> dict[str, str]:
    """Lower-case initialism → the phrase it stands for in the operations' own words (`pr` → "pull request"): a
    phrase of content words that opens with no verb (`verbs`: "list employees" names no thing) and repeats no word."""
    uses: dict[str, Counter[tuple[str, ...]]] = {}
    skip = function_words() | STOPWORDS
    actions = frozenset(verbs)
    for chunk in operations:
        words = [singular(word) for word in _WORD.findall(
            operation_words(chunk.summary, chunk.operation_id, chunk.method or "", chunk.path or "").lower())]
        for size in (2, 3, 4):
            for start in range(len(words) - size + 1):
                phrase = tuple(words[start:start + size])
                if phrase[0] not in actions and len(set(phrase)) == size and not any(
                        word in skip or len(word) < 2 for word in phrase):
                    uses.setdefault("".join(word[0] for word in phrase), Counter())[phrase] += 1
    found: dict[str, str] = {}
    for letters, phrases in uses.items():
        (phrase, count), = phrases.most_common(1)
        if letters not in skip and count >= MIN_USES and count >= MIN_SHARE * sum(phrases.values()):
            found[letters] = " ".join(phrase)
    return found


def initialism_words(question: str, initialisms: dict[str, str], known: Callable[[str], bool]) -> tuple[str, ...]:
    """The phrases the question's initialisms (in capitals: "PR", "PRs") stand for, each once, where the corpus
    does not use the initialism itself (`known(word)`: Gitea's spec says "PR" and is searched for it as asked)."""
    out: list[str] = []
    for match in _INITIALISM.finditer(question):
        letters = match.group(1).lower()
        phrase = initialisms.get(letters)
        if phrase and not known(letters) and phrase not in out:
            out.append(phrase)
    return tuple(out)
