"""What a question names among the typed facts of the retrieved blocks: an operation (by its path's words) or
its fields (spelt out, sharing a word, or described)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import Chunk, FieldFacts
from rag.corpus.vocabulary import STOPWORDS, function_words, readable_name, singular
from rag.data import data_table
from rag.generate.context import ContextBlock
from rag.question_analysis import verb_methods

_WORD = re.compile(r"[a-z0-9]+")
_PARAMETER = re.compile(r"\{[^}]*\}")


def question_words(question: str) -> set[str]:
    return {singular(word) for word in _WORD.findall(question.lower()) if len(word) > 2}


_CODE_NAME = re.compile(r"\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b|\b[a-z0-9]+_[a-z0-9_]+\b")


def written_as_code(question: str) -> set[str]:
    """The question's words written as names in code, camelCase or snake_case (`accountId`, `page_size`), lower case
    and singular as `question_words` gives them."""
    return {singular(name.lower()) for name in _CODE_NAME.findall(question)}


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
    skipped = {chunk.api.lower(), *data_table("question_words")["path_words_naming_no_operation"]}
    return bool((path_words(chunk.path) - {singular(word) for word in skipped}) & question_words(question))


def spells_field(name: str, question: str) -> bool:
    """Whether the question spells a field's name: as written (`page_size`, `filter[status]`'s `status`) or in
    words (`page size`, `expiresIn` as "expires in")."""
    # `statuses[]` is `statuses` sent as an array; `filter[status]` is `status` of `filter`.
    written = name.rsplit(".", 1)[-1].removesuffix("[]").rsplit("[", 1)[-1].rstrip("]")
    own = written.lower()
    if not own:
        return False
    lowered = question.lower()
    if own in function_words():
        # `To`, `from`, `next`: a name that is one of English's own words is spelt only when quoted as code.
        return f"`{own}`" in lowered
    if re.search(rf"(?<![\w-]){re.escape(own)}(?![\w-])", lowered):
        return True
    words = readable_name(written).lower()  # as written: `pageSize` is "page size", `pagesize` one word
    return " " in words and re.search(rf"(?<![\w-]){re.escape(words)}(?![\w-])", lowered) is not None


def path_words(path: str) -> set[str]:
    """The words of a path's resource segments (`/calls/{CallSid}/recordings` → call, recording)."""
    return {
        singular(word)
        for segment in path.lower().split("/")
        for word in _WORD.findall(_PARAMETER.sub(" ", segment))
        if len(word) > 2
    }


def shares_a_word(parts: set[str], words: set[str]) -> set[str]:
    """The words of `words` a name's parts share: the same word, the same first five letters, or the same word
    inflected (`Muted` ← "mute": one is the other and at most two letters more)."""
    return (parts & words) | {
        w
        for p in parts
        for w in words
        if (min(len(p), len(w)) >= 5 and p[:5] == w[:5])
        or (min(len(p), len(w)) >= 4 and abs(len(p) - len(w)) <= 2 and (p.startswith(w) or w.startswith(p)))
    }


def named_whole(question: str, fields: Sequence[FieldFacts]) -> list[FieldFacts]:
    """The fields every word of whose own name (the last part of a dotted name, a bracket's word) the question says
    (`statuses` ← "status", `filter[email]` ← "by email"; not `nameServers` ← "is this domain name free to
    register?", which says nothing of servers)."""
    words = question_words(question)
    return [f for f in fields if all(shares_a_word({part}, words)
                                     for part in name_parts(re.split(r"[.\[]", f.name.rstrip("]"))[-1]))]


def alternative_fields(chunk: Chunk) -> list[FieldFacts]:
    """The fields of the objects a request body's `oneOf` / `anyOf` allows (each of a name once where they
    agree: DigitalOcean's `region` of one Droplet or several)."""
    body = chunk.request_body
    found = [field for alternative in (body.alternatives if body else ()) for field in alternative.fields]
    return list(dict.fromkeys(found))


def field_classes(
    question: str, blocks: Sequence[ContextBlock], described: bool = True
) -> tuple[list[tuple[ContextBlock, FieldFacts]], ...]:
    """The fields the question names, in four classes: names spelt out (`page_size`, "page size"; the longest
    first within a block), names sharing a word with the question (`expires_in` ← "expiry"; the path parameters
    that identify a resource the question names last: `ConferenceSid` ← "a conference call"), names sharing only
    a word of the operation's path (`calls` ← "list calls": the question names the resource, not the field), and
    (`described`) fields whose description shares two words with it."""
    # The question's verb as written ("create") names the action, not a field (`created_at`); nor does a word the
    # tokenizer drops ("what statuses can an envelope have?" names no `signerCanSignOnMobile`); nor does a name the
    # question writes as code by sharing five letters ("do I need the accountId for every call?" names no
    # `accountName`): such a name is spelt or not at all.
    as_code = written_as_code(question)
    words = {word for word in question_words(question) if word not in verb_methods() and word not in STOPWORDS
             and word not in as_code}
    exact, partial, identifying, by_path, by_description = [], [], [], [], []
    for block in blocks:
        resource_words = path_words(block.chunk.path or "")
        # The API's name names the API, not a field ("how many recipients can a postmark email have?" names no
        # `X-Postmark-Server-Token`).
        asked = words - name_parts(block.chunk.api)
        seen: set[FieldFacts] = set()
        for field in [*block.chunk.every_field(), *alternative_fields(block.chunk)]:
            # A field the request sends and the response returns alike (`defaults.offVariation` of a created flag,
            # the same facts) is one field to the question; a query parameter and a response field of one name
            # (a `status` filter, a `status` with its allowed values) are two.
            if field in seen:
                continue
            seen.add(field)
            entry = (block, field)
            parts = name_parts(field.name)
            if spells_field(field.name, question):
                # `calls` of "list calls" on GET /calls: the question names the resource, not the field; nor
                # `fields[builds]` of "list the builds of my app" on GET /v1/apps/{id}/builds (its bracket's word).
                # Nor `permissions.project` of "create a vercel project" on POST /v9/projects: its own name is the
                # resource's.
                quoted = f"`{field.name.lower()}`" in question.lower()
                bracket = name_parts(field.name.rsplit("[", 1)[-1]) if "[" in field.name else set()
                own = name_parts(field.name.rsplit(".", 1)[-1])
                resource = any(named and named <= resource_words for named in (parts, bracket, own))
                (by_path if resource and not quoted else exact).append(entry)
                continue
            shared = shares_a_word(parts, asked)
            if shared and field.location == "path":
                identifying.append(entry)
            elif shared and not shared <= resource_words:
                partial.append(entry)
            elif shared:
                by_path.append(entry)
            elif described and len(asked & question_words(field.description)) >= 2:
                by_description.append(entry)
    # The longest name spelt wins ("page size" names `page_size` more than `page`); a field not deprecated first.
    exact.sort(key=lambda entry: (entry[0].number, -len(entry[1].name.rsplit(".", 1)[-1]), entry[1].deprecated))
    return exact, partial + identifying, by_path, by_description


def named_fields(
    question: str, blocks: Sequence[ContextBlock], described: bool = True
) -> list[tuple[ContextBlock, FieldFacts]]:
    """The fields the question names most clearly: the first non-empty class of `field_classes`; without
    `described`, only names spelt out or sharing a word the path does not explain."""
    classes = field_classes(question, blocks, described)
    return next((found for found in (classes if described else classes[:2]) if found), [])
