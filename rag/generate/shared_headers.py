"""The lead of a question about a header the operations share ("Which header selects the account?"): the
parameters the conventions chunk records as shared by many operations, read from their typed facts."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import FieldFacts, overview_id
from rag.corpus.vocabulary import readable_name, stop_words
from rag.data import data_table
from rag.generate.context import ContextBlock
from rag.generate.named import name_parts, question_words
from rag.generate.said import api_name, cited, first_sentence, is_operation, lower_first, the_api
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


def on_the_api(blocks: Sequence[ContextBlock]) -> list[ContextBlock]:
    """The blocks on the API an overview ranked first names (another API's schemes are no answer: Keycloak's bearer
    token for Oxford Dictionaries, which declares none); every block when the first is no overview."""
    api = blocks[0].chunk.api if blocks and blocks[0].chunk.kind == "overview" else ""
    return [block for block in blocks if not api or block.chunk.api == api]


def credential_header_statement(blocks: Sequence[ContextBlock]) -> tuple[str, int]:
    """For operations that declare no security scheme, the headers they take whose name or description reads as a
    credential (`xi-api-key`, `X-Auth-Token`; Oxford Dictionaries' `app_id` and `app_key`, "app Key Authentication
    Parameter": words of a question about authenticating), those of the block (an operation, or the parameters the
    operations share) taking the most shared one, said of the API and cited to that block; ("", 0) when no block
    has one."""
    taken = [(block, [header for header in block.chunk.parameters
                      if header.location == "header" and reads_as_credential(header)]) for block in blocks]
    taken = [(block, headers) for block, headers in taken if headers]
    if not taken:
        return "", 0
    block, headers = max(taken, key=lambda pair: max(header.shared_by for header in pair[1]))
    if len(headers) == 1:
        taken_text = f"`{headers[0].name}` header{_credential_detail(headers[0])}"
    else:
        described = [f"`{header.name}`{_credential_detail(header)}" for header in headers]
        taken_text = f"headers {', '.join(described[:-1])} and {described[-1]}"
    api = api_name(block.chunk.api)
    sentence = f"The {api} API's operations declare no security scheme; they take the {taken_text}"
    return cited(sentence, block), block.number


# Words of authentication that name what a credential may do, not a credential: Anchore's `x-anchore-account`
# header changes "the resource scope of the request".
NOT_A_CREDENTIAL = frozenset({"scope", "scopes"})


def reads_as_credential(header: FieldFacts) -> bool:
    """Whether a header's name or description reads as a credential (a cue of authentication other than a scope)."""
    cues = {*asked_cues(readable_name(header.name), "auth"), *asked_cues(header.description, "auth")}
    return bool(cues - NOT_A_CREDENTIAL)


def without_scheme(blocks: Sequence[ContextBlock], documented: bool) -> tuple[str, int, bool]:
    """What answers "how do I authenticate?" on an API whose blocks declare no security scheme, with the block it
    cites and whether the other blocks are listed after it: nothing when the first block is an operation that logs
    in (its own lead says how); the credential headers the operations take (`credential_header_statement`); else,
    unless the documentation says how (`documented`: Postman's overview, "in the form of an `X-Api-Key` request
    header"), that the spec defines no scheme, where the API's overview is among the blocks (it lists every scheme the
    spec defines), the closest operations listed after it (Anchore's `POST /user/credentials`)."""
    first = blocks[0].chunk if blocks and is_operation(blocks[0]) else None
    if first is not None and asked_cues(f"{readable_name(first.path)} {first.summary}", "auth"):
        return "", 0, False
    sentence, number = credential_header_statement(blocks)
    if sentence or documented:
        return sentence, number, False
    overview = next((block for block in blocks if overview_id(block.chunk.api) in block.chunk.covers), None)
    if overview is None or any(block.chunk.api != overview.chunk.api for block in blocks if is_operation(block)):
        return "", 0, False
    sentence = (f"{the_api(overview.chunk)} spec defines no security scheme, and none of the operations found "
                "takes a credential header")
    return cited(sentence, overview), overview.number, True


def _credential_detail(header: FieldFacts) -> str:
    """What is said of a credential header in parentheses: its description's first sentence and how many operations
    require it (" (app Key Authentication Parameter; required on 26 of 26 operations)"), "" when neither is known."""
    said = [lower_first(gist)] if (gist := first_sentence(header.description)) else []
    if header.shared_by:
        said.append(f"{'required ' if header.required else ''}on {header.shared_by} of {header.operations} operations")
    return f" ({'; '.join(said)})" if said else ""


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
