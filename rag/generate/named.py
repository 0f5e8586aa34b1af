"""What a question names among the typed facts of the retrieved blocks: an operation (by its path's words) or
its fields (spelt out, sharing a word, or described)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import FieldFacts
from rag.corpus.vocabulary import readable_name
from rag.generate.context import ContextBlock

_WORD = re.compile(r"[a-z0-9]+")


def question_words(question: str) -> set[str]:
    return {singular(word) for word in _WORD.findall(question.lower()) if len(word) > 2}


def singular(word: str) -> str:
    """`statuses` → status, `addresses` → address, `policies` → policy, `users` → user."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith("ss"):
        return word
    if word.endswith(("uses", "sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-3] + "y" if word.endswith("ies") else word[:-1]


def name_parts(name: str) -> set[str]:
    return {singular(part) for part in _WORD.findall(readable_name(name).lower()) if len(part) > 2}


def names_the_operation(question: str, block: ContextBlock) -> bool:
    """Whether the question names the block's operation: its path, or a resource word of its path other than
    the API's name and words about authentication ("How do I authenticate with the StackOne API?" does not
    name `POST /connect_sessions/authenticate`; "…authenticate a connect session?" does)."""
    chunk = block.chunk
    if not chunk.path:
        return False
    if chunk.path.lower() in question.lower():
        return True
    skipped = {chunk.api.lower(), "unified", "auth", "authenticate", "authentication", "authorize", "login"}
    words = {
        singular(word)
        for segment in chunk.path.lower().split("/")
        if segment and not segment.startswith("{") and segment not in skipped
        for word in re.split(r"[_\-.]+", segment)
        if len(word) > 2 and word not in skipped
    }
    return bool(words & question_words(question))


def spells_field(name: str, question: str) -> bool:
    """Whether the question spells a field's name: as written (`page_size`, `filter[status]`'s `status`) or in
    words (`page size`, `expiresIn` as "expires in")."""
    own = name.rsplit(".", 1)[-1].rsplit("[", 1)[-1].rstrip("]").lower()
    lowered = question.lower()
    if re.search(rf"(?<![\w-]){re.escape(own)}(?![\w-])", lowered):
        return True
    words = readable_name(own).lower()
    return " " in words and re.search(rf"(?<![\w-]){re.escape(words)}(?![\w-])", lowered) is not None


def field_classes(
    question: str, blocks: Sequence[ContextBlock], described: bool = True
) -> tuple[list[tuple[ContextBlock, FieldFacts]], ...]:
    """The fields the question names, in three classes: names spelt out (`page_size`, "page size"; the longest
    first within a block), names sharing a word with the question (`expires_in` ← "expiry"), and (`described`)
    fields whose description shares two words with it."""
    words = question_words(question)
    exact, partial, by_description = [], [], []
    for block in blocks:
        for field in block.chunk.every_field():
            entry = (block, field)
            if spells_field(field.name, question):
                exact.append(entry)
                continue
            parts = name_parts(field.name)
            if parts & words or any(p[:5] == w[:5] for p in parts for w in words if min(len(p), len(w)) >= 5):
                partial.append(entry)
            elif described and len(words & question_words(field.description)) >= 2:
                by_description.append(entry)
    # The longest name spelt wins ("page size" names `page_size` more than `page`); a field not deprecated first.
    exact.sort(key=lambda entry: (entry[0].number, -len(entry[1].name.rsplit(".", 1)[-1]), entry[1].deprecated))
    return exact, partial, by_description


def named_fields(
    question: str, blocks: Sequence[ContextBlock], described: bool = True
) -> list[tuple[ContextBlock, FieldFacts]]:
    """The fields the question names most clearly: the first non-empty class of `field_classes`."""
    return next((found for found in field_classes(question, blocks, described) if found), [])
