"""The lead of a question about a header the operations share ("Which header selects the account?"): the
parameters the conventions chunk records as shared by many operations, read from their typed facts."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import FieldFacts
from rag.corpus.vocabulary import readable_name, stop_words
from rag.data import data_table
from rag.generate.context import ContextBlock
from rag.generate.named import name_parts, question_words
from rag.generate.said import api_name, cited, first_sentence, is_operation, lower_first
from rag.query import Query
from rag.question_analysis import asked_cues


def shared_header_statement(query: Query, blocks: Sequence[ContextBlock]) -> tuple[str, int]:
    """The sentence naming the shared headers the question asks about (those its words describe, else the required
    ones), cited, and the number of the block they come from; ("", 0) when no block records one, or the question
    names a kind of header none of them is ("the rate-limit header")."""
    # The words asking for a header say nothing of which: "the rate-limit header" is no `Accept` "versioning header".
    cues = {word for cue in asked_cues(query.focus, "header") for word in question_words(cue)}
    words = question_words(query.focus) - stop_words() - cues
    for block in (b for b in blocks if not is_operation(b)):  # the conventions chunk, not an operation's own marks
        headers = [p for p in block.chunk.parameters if p.location == "header" and p.shared_by]
        if not headers:
            continue
        matching = [h for h in headers if words & (question_words(h.description) | name_parts(h.name))]
        if not matching and header_kind(query.focus):
            return "", 0  # "the rate-limit header": no shared header is that kind; the required ones are no answer
        chosen = matching or [h for h in headers if h.required]
        if not chosen:
            continue
        described = "; ".join(
            f"`{h.name}` ("
            + "; ".join(part for part in (lower_first(h.description.rstrip(".")),
                                          ("required " if h.required else "")
                                          + f"on {h.shared_by} of {h.operations} operations")
                        if part)
            + ")"
            for h in chosen
        )
        noun = "header" if len(chosen) == 1 else "headers"
        sentence = f"The {api_name(block.chunk.api)} API's operations share the {noun} {described}"
        return cited(sentence, block), block.number
    return "", 0


def credential_header_statement(blocks: Sequence[ContextBlock]) -> tuple[str, int]:
    """For operations that declare no security scheme, the header they take whose name reads as a credential
    (`xi-api-key`, `Api-Key`, `X-Auth-Token`: words of a question about authenticating), the most shared first, said
    of the API and cited to the operation that takes it; ("", 0) when no operation among the blocks takes one."""
    taken = [(block, header) for block in blocks if is_operation(block) for header in block.chunk.parameters
             if header.location == "header" and asked_cues(readable_name(header.name), "auth")]
    if not taken:
        return "", 0
    block, header = max(taken, key=lambda pair: pair[1].shared_by)
    said = [lower_first(gist)] if (gist := first_sentence(header.description)) else []
    if header.shared_by:
        said.append(f"{'required ' if header.required else ''}on {header.shared_by} of {header.operations} operations")
    described = f" ({'; '.join(said)})" if said else ""
    sentence = (f"The {api_name(block.chunk.api)} API's operations declare no security scheme; they take the "
                f"`{header.name}` header{described}")
    return cited(sentence, block), block.number


BEFORE_HEADER = re.compile(r"([a-z][a-z-]*)[ -]headers?\b", re.I)


def header_kind(question: str) -> list[str]:
    """The words before "header" that name a kind of header ("rate-limit" in "what's the rate-limit header?");
    none for "which header", "the shared header" (`shared_header_words` of question_words.toml)."""
    shared = frozenset(data_table("question_words")["shared_header_words"])
    return [word for match in BEFORE_HEADER.finditer(question) for word in match.group(1).lower().split("-")
            if word not in shared and word not in stop_words() and len(word) > 2]


def of_the_kind(headers: Sequence[FieldFacts], question: str) -> list[FieldFacts]:
    """The headers of the kind the question names ("the rate-limit header": those whose name or description says
    rate or limit); all of them when it names no kind ("which headers does it take?")."""
    kind = set(header_kind(question))
    if not kind:
        return list(headers)
    return [h for h in headers if kind & (question_words(h.description) | name_parts(h.name))]
