"""The lead of an extractive answer: the fact asked for, stated first, then the facts that bear on it.

"The StackOne API uses HTTP Basic: send the header `Authorization: Basic <base64 of username:password>` [2]." /
"In POST /connect_sessions, `expires_in` defaults to 1800 (How long the session should be valid for in
seconds) [1]." Every rule reads the typed facts ingest stored with the chunks (parameters, body and response
fields, security schemes, pagination, the parameters the operations share) and what the question asks for
(`QuestionAnalysis.asks`); none reads the chunk text. A question about an operation gets a second line, the
operation's facts a reader acts on (the inputs it requires, the body it takes, what it returns), so the first
two lines answer it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rag.chunk import Chunk, FieldFacts, SecurityFacts
from rag.corpus.profile import is_lookup_operation
from rag.corpus.vocabulary import readable_name
from rag.facts import Fact, MissingWrite
from rag.generate.context import ContextBlock
from rag.names import name_phrases
from rag.query import Query

MAX_VALUES = 8
MAX_FIELDS = 8
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Lead:
    """The lead sentence, the line of facts under it and the blocks the quoted lines may come from.

    `scope` is empty when any block may add lines; a lead about one operation, an API-wide statement (the
    overview's security scheme, the header the operations share) or an established missing operation keeps
    the quoted lines to the blocks it cites. `related` says whether the other blocks are listed after them
    (not after an API-wide statement or an absence, where another operation would read as a contradiction).
    """

    sentence: str = ""
    detail: str = ""
    scope: tuple[int, ...] = ()
    related: bool = True

    def __post_init__(self) -> None:
        if (self.scope or self.detail) and not self.sentence:
            raise ValueError(
                f"Lead(scope={self.scope!r}, detail={self.detail!r}) is not allowed without a sentence; "
                "allowed: an empty scope and detail when there is no sentence"
            )


def lead_sentence(question: Query | str, blocks: Sequence[ContextBlock], facts: Sequence[Fact] = ()) -> str:
    """The sentence that answers the question directly, cited `[n]`; "" when the chunks do not state it."""
    return lead_for(question, blocks, facts).sentence


def lead_for(
    question: Query | str, blocks: Sequence[ContextBlock], facts: Sequence[Fact] = (), gate: str = "answer"
) -> Lead:
    """The lead (see `Lead`) from the question's analysis and the blocks' typed facts; with a `partial` gate
    (the evidence only partly matches) the operation is offered as the closest match, not as the answer."""
    query = Query.of(question)
    if facts:  # what the checks established comes first; a rule picking an operation could contradict it
        return _missing_operation(query, blocks, facts)
    if not blocks:
        return Lead()
    rules: tuple[Callable[[Query, Sequence[ContextBlock]], Lead], ...] = (
        _api_authentication,
        _shared_header,
        _look_up_first,
        _operations_per_api,
        _asked_field,
        _schema_asked,
        lambda q, b: _about_an_operation(q, b, closest=gate == "partial"),
    )
    for rule in rules:
        found = rule(query, blocks)
        if found.sentence:
            return found
    return Lead()


# --- how operations, fields and schemes are said -------------------------------------------------------------


def operation_label(chunk: Chunk) -> str:
    """`GET /unified/hris/employees` (a webhook: `Webhook /path (POST)`)."""
    return chunk.title if chunk.title else f"{chunk.method.upper()} {chunk.path}"


def operation_words(chunk: Chunk) -> str:
    """What an operation does in words: its summary, else its operation id spelt out (`delete_guild_member` →
    "delete guild member"); "" when it has neither."""
    return chunk.summary or (readable_name(chunk.operation_id) if chunk.operation_id else "")


def operation_heading(chunk: Chunk) -> str:
    """`GET /unified/hris/employees (List Employees)`."""
    words = operation_words(chunk)
    return operation_label(chunk) + (f" ({words})" if words else "")


def _is_operation(block: ContextBlock) -> bool:
    return block.chunk.kind == "operation" and bool(block.chunk.method)


def _api_name(api: str) -> str:
    """How a sentence names an API: short names are acronyms (HRIS, ATS, LMS), others keep their spelling."""
    return api.upper() if len(api) <= 4 else api


def _lower_first(text: str) -> str:
    """"The account identifier" → "the account identifier" (an acronym such as "ID of …" stays)."""
    return text[:1].lower() + text[1:] if text[:2].istitle() else text


def _cited(sentence: str, block: ContextBlock) -> str:
    return f"{sentence.rstrip().rstrip('.')}. [{block.number}]"


def _values(values: Sequence[str]) -> str:
    shown = [value for value in values if value and value != "null"]
    return ", ".join(shown[:MAX_VALUES]) + (", …" if len(shown) > MAX_VALUES else "")


LIMIT_LABELS = ("Minimum", "Maximum", "Exclusive minimum", "Exclusive maximum", "Min length", "Max length",
                 "Min items", "Max items", "Pattern")


ABOUT_CHARS = 120


def field_facts_text(field: FieldFacts, asked: frozenset[str] = frozenset(), about: bool = False) -> str:
    """`page_size` (query, number): default 25, maximum 100 — the facts of one field a reader needs, the asked
    kinds (`QuestionAnalysis.asks`) first; `about` adds its description."""
    where = ", ".join(part for part in (field.location, field.type, "required" if field.required else "",
                                         "deprecated" if field.deprecated else "") if part)
    facts = _value_facts(field, asked)
    text = f"`{field.name}` ({where})" + (": " + ", ".join(facts) if facts else "")
    description = field.description.rstrip(".")
    if about and description:
        text += f" — {description[:ABOUT_CHARS]}" + ("…" if len(description) > ABOUT_CHARS else "")
    return text


def _value_facts(field: FieldFacts, asked: frozenset[str]) -> list[str]:
    """"default 25", "maximum 100", "one of a, b": the asked kind first."""
    kinds: list[tuple[str, str]] = []
    if field.default is not None:
        kinds.append(("default", f"default {field.default}"))
    kinds.extend(("limit", f"{label.lower()} {value}") for label, value in field.facts if label in LIMIT_LABELS)
    if field.enum or field.item_enum:
        kinds.append(("allowed_values", f"one of {_values(field.enum or field.item_enum)}"))
    kinds.sort(key=lambda pair: pair[0] not in asked)
    return [text for _, text in kinds]


def scheme_sentence(scheme: SecurityFacts) -> str:
    """"HTTP Basic: send the header `Authorization: Basic <base64 of username:password>`"."""
    how = scheme.how_to_send
    text = scheme.kind + (f": send {how}" if how else "")
    if scheme.scopes:
        text += f" (scopes: {_values(scheme.scopes)})"
    return text


def _schemes_text(schemes: Sequence[SecurityFacts]) -> str:
    """The alternatives of a requirement, each with its schemes: "HTTP Basic: send … or an API key: send …"."""
    alternatives: dict[int, list[SecurityFacts]] = {}
    for scheme in schemes:
        alternatives.setdefault(scheme.alternative, []).append(scheme)
    return " or ".join(" and ".join(scheme_sentence(s) for s in group) for group in alternatives.values())


def _scheme_detail(schemes: Sequence[SecurityFacts]) -> str:
    """The URLs an OAuth2 or OpenID Connect scheme names and the schemes' own descriptions."""
    parts = [f"{'; '.join(s.urls)}" for s in schemes if s.urls]
    parts += [s.description for s in schemes if s.description]
    return " ".join(dict.fromkeys(part.rstrip(".") + "." for part in parts if part))


# --- what the question names ----------------------------------------------------------------------------------


def _question_words(question: str) -> set[str]:
    return {_singular(word) for word in _WORD.findall(question.lower()) if len(word) > 2}


def _singular(word: str) -> str:
    """`statuses` → status, `addresses` → address, `policies` → policy, `users` → user."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith("ss"):
        return word
    if word.endswith(("uses", "sses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-3] + "y" if word.endswith("ies") else word[:-1]


def _name_parts(name: str) -> set[str]:
    return {_singular(part) for part in _WORD.findall(readable_name(name).lower()) if len(part) > 2}


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
        _singular(word)
        for segment in chunk.path.lower().split("/")
        if segment and not segment.startswith("{") and segment not in skipped
        for word in re.split(r"[_\-.]+", segment)
        if len(word) > 2 and word not in skipped
    }
    return bool(words & _question_words(question))


def _fields_of(chunk: Chunk) -> list[FieldFacts]:
    """Every typed field of a chunk: parameters, request body fields, success response fields, schema fields,
    then their own fields one level down, named by their parent (`filter[status]`, `data.status`)."""
    body = list(chunk.request_body.fields) if chunk.request_body else []
    response = [f for r in chunk.responses if r.success for f in r.fields]
    top = [*chunk.parameters, *body, *response, *chunk.schema_fields]
    nested = [
        replace(child, location=parent.location,
                name=f"{parent.name}[{child.name}]" if parent.location == "query" else f"{parent.name}.{child.name}")
        for parent in top
        for child in parent.fields
    ]
    return top + nested


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
    words = _question_words(question)
    exact, partial, by_description = [], [], []
    for block in blocks:
        for field in _fields_of(block.chunk):
            entry = (block, field)
            if spells_field(field.name, question):
                exact.append(entry)
                continue
            parts = _name_parts(field.name)
            if parts & words or any(p[:5] == w[:5] for p in parts for w in words if min(len(p), len(w)) >= 5):
                partial.append(entry)
            elif described and len(words & _question_words(field.description)) >= 2:
                by_description.append(entry)
    # The longest name spelt wins ("page size" names `page_size` more than `page`); a field not deprecated first.
    exact.sort(key=lambda entry: (entry[0].number, -len(entry[1].name.rsplit(".", 1)[-1]), entry[1].deprecated))
    return exact, partial, by_description


def named_fields(
    question: str, blocks: Sequence[ContextBlock], described: bool = True
) -> list[tuple[ContextBlock, FieldFacts]]:
    """The fields the question names most clearly: the first non-empty class of `field_classes`."""
    return next((found for found in field_classes(question, blocks, described) if found), [])


# --- rules ----------------------------------------------------------------------------------------------------


def _missing_operation(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> Lead:
    """"Can I create a course?" when the write check established there is no such operation: the fact, each
    sentence cited to the operations that do exist for the resource (the evidence of the absence); the lines
    below come only from those operations, so no other resource's write operation reads as a contradiction."""
    missing = next((fact for fact in facts if isinstance(fact, MissingWrite)), None)
    if missing is None:
        return Lead()
    sentences = missing.sentences()
    operations = missing.operation_labels()
    named = [block for block in blocks if _is_operation(block) and operation_label(block.chunk) in operations]
    cited: list[str] = []
    for sentence in sentences:
        own = [block for block in named if operation_label(block.chunk) in sentence] or named
        marks = " ".join(f"[{block.number}]" for block in own)
        cited.append(f"{sentence.rstrip()} {marks}".rstrip())
    text = ("No. " if query.analysis.yes_no else "") + " ".join(cited)
    return Lead(text, scope=tuple(block.number for block in named), related=False)


def _names_first_operation(query: Query, blocks: Sequence[ContextBlock]) -> bool:
    return _is_operation(blocks[0]) and names_the_operation(query.focus, blocks[0])


def _api_title(block: ContextBlock) -> str:
    """The API as its overview names it ("StackOne"), else its short name."""
    chunk = block.chunk
    if chunk.kind == "overview" and chunk.title.endswith(" overview"):
        return chunk.title.removesuffix(" overview")
    return _api_name(chunk.api)


def _api_authentication(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """"How do I authenticate with the Spotify Web API?": a question naming no operation is answered with the
    API's own schemes (the overview's), whatever operation ranked first; without the overview, with the
    schemes the first operation requires, said of the API."""
    if "auth" not in query.analysis.asks or _names_first_operation(query, blocks):
        return Lead()
    source = next((b for b in blocks if b.chunk.kind == "overview" and b.chunk.security), None)
    source = source or next((b for b in blocks if _is_operation(b) and b.chunk.security), None)
    if source is None:
        return Lead()
    schemes = source.chunk.security
    name = _api_title(source)
    text = f"The {name}{'' if name.lower().endswith('api') else ' API'} uses {_schemes_text(schemes)}"
    detail = _scheme_detail(schemes)
    return Lead(_cited(text, source), _cited(detail, source) if detail else "", (source.number,), related=False)


def _shared_header(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """"Which header selects the account on the HRIS endpoints?": a header question naming no operation is
    answered from the parameters the operations share (the conventions chunk), not from the first operation."""
    if "header" not in query.analysis.asks or _names_first_operation(query, blocks):
        return Lead()
    words = _question_words(query.focus)
    for block in blocks:
        headers = [p for p in block.chunk.parameters if p.location == "header" and p.fact("Operations")]
        if not headers:
            continue
        matching = [h for h in headers if words & (_question_words(h.description) | _name_parts(h.name))]
        chosen = matching or [h for h in headers if h.required]
        if not chosen:
            continue
        described = "; ".join(
            f"`{h.name}` ("
            + "; ".join(part for part in (_lower_first(h.description.rstrip(".")),
                                          ("required " if h.required else "") + f"on {h.fact('Operations')} operations")
                        if part)
            + ")"
            for h in chosen
        )
        noun = "header" if len(chosen) == 1 else "headers"
        sentence = f"The {_api_name(block.chunk.api)} API's operations share the {noun} {described}"
        return Lead(_cited(sentence, block), scope=(block.number,), related=False)
    return Lead()


def _look_up_first(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """"Play the album Kind of Blue by Miles Davis" with the API's lookup operation first (the lookup lift):
    "First find Kind of Blue, Miles Davis with GET /search (`q`) [1]; then GET /albums/{id} (Get Album) [2]"."""
    values = name_phrases(query.focus)
    if not values or not is_lookup_operation(blocks[0].chunk):
        return Lead()
    lookup = blocks[0]
    required = [f"`{p.name}`" for p in lookup.chunk.parameters if p.required and p.location == "query"][:2]
    sentence = f"First find {' and '.join(values[:3])} with {operation_label(lookup.chunk)}"
    sentence += (f" ({', '.join(required)})" if required else "") + f" [{lookup.number}]"
    following = next((b for b in blocks[1:] if _is_operation(b)), None)
    if following is not None:
        sentence += f"; then {operation_heading(following.chunk)} [{following.number}]"
    return Lead(sentence + ".")


def _operations_per_api(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """"How do I list employees in the HRIS API and candidates in the ATS API?": the best-ranked operation of
    each API the question names, each cited; "Which APIs let me list users?": of each API among the blocks."""
    every = "which_apis" in query.analysis.asks
    named: dict[str, ContextBlock] = {}
    for block in blocks:
        api = block.chunk.api
        if api and api not in named and _is_operation(block) and (
            every or re.search(rf"\b{re.escape(api)}\b", query.focus, re.I)
        ):
            named[api] = block
    if len(named) < 2:
        return Lead()
    parts = [f"in the {_api_name(api)} API use {operation_heading(b.chunk)} [{b.number}]" for api, b in named.items()]
    sentence = "; ".join(parts) + "."
    return Lead(sentence[0].upper() + sentence[1:])


def _where(block: ContextBlock) -> str:
    """"POST /connect_sessions" for an operation, "the ConnectSessionCreate schema" for a schema."""
    chunk = block.chunk
    return operation_label(chunk) if chunk.kind == "operation" else f"the {_schema_name(chunk)} schema"


def _asked_field(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """"What is the default of expires_in?": the field the question spells out, wherever it is among the
    blocks, with the kind of fact asked for (a default, a limit, allowed values)."""
    asks = query.analysis.asks & {"default", "limit", "allowed_values"}
    if not asks:
        return Lead()
    for block, field in named_fields(query.focus, blocks, described=False):
        if spells_field(field.name, query.focus) and _with_asked_fact([field], asks):
            sentence = f"In {_where(block)}, {field_facts_text(field, asks, about=True)}"
            detail = _operation_detail(block, {field.name}, ()) if block.chunk.kind == "operation" else ""
            return Lead(_cited(sentence, block), detail, (block.number,))
    return Lead()


def _schema_asked(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """A question about a schema (named, or retrieved first): its required fields, or its fields, and the
    operations that use it."""
    question = query.focus
    schemas = [b for b in blocks if b.chunk.kind == "schema" and b.chunk.schema_fields]
    named = [b for b in schemas if re.search(rf"\b{re.escape(_schema_name(b.chunk))}\b", question)]
    first = schemas[0] if schemas and blocks[0] is schemas[0] else None
    if first is not None and not _name_parts(_schema_name(first.chunk)) & _question_words(question):
        first = None  # retrieved first, but nothing in the question is about it
    chosen = named[0] if named else first
    if chosen is None:
        return Lead()
    name, fields = _schema_name(chosen.chunk), chosen.chunk.schema_fields
    asks = query.analysis.asks
    if "required" in asks:
        required = [f"`{f.name}`" for f in fields if f.required]
        sentence = (f"In the {name} schema, the required fields are {', '.join(required)}" if required
                    else f"The {name} schema marks no field as required")
    else:
        asked = [f for _, f in named_fields(question, [chosen]) if asks & {"default", "limit", "allowed_values"}]
        if asked:
            sentence = f"In the {name} schema, {field_facts_text(asked[0], asks, about=True)}"
        else:
            listed = ", ".join(f"`{f.name}`" for f in fields[:MAX_FIELDS]) + (", …" if len(fields) > MAX_FIELDS else "")
            sentence = f"The {name} schema has the fields {listed}"
    used = f"Used by {', '.join(chosen.chunk.used_by[:4])}" if chosen.chunk.used_by else ""
    return Lead(_cited(sentence, chosen), _cited(used, chosen) if used else "", ())


def _schema_name(chunk: Chunk) -> str:
    return chunk.covers[0].rsplit(".", 1)[-1] if chunk.covers else chunk.title


ANCHOR_BLOCKS = 3


def _anchor(query: Query, blocks: Sequence[ContextBlock]) -> ContextBlock | None:
    """The operation the answer is about: the first operation among the blocks (those above it are schemas,
    guides or overviews that support it) — the first of the top three that does what the question's verb asks
    ("and how do I remove one of them?": a DELETE) when the first does not."""
    operations = [block for block in blocks if _is_operation(block)]
    methods = query.analysis.methods()
    doing = [block for block in operations[:ANCHOR_BLOCKS] if block.chunk.method.lower() in methods]
    return (doing or operations or [None])[0]


def _about_an_operation(query: Query, blocks: Sequence[ContextBlock], closest: bool = False) -> Lead:
    """The lead for a question about what an operation does or takes: the asked fact of the operation the
    answer is about (a field's default, limit or allowed values, its required inputs or headers, its response,
    how it pages, its security), else which operation to use (`closest`: the closest match); then the
    operation's facts a reader acts on."""
    anchor = _anchor(query, blocks)
    if anchor is None or not _about(query, anchor, blocks):
        return Lead()
    asks = query.analysis.asks
    chunk = anchor.chunk
    label = operation_label(chunk)
    sentence = ""
    stated: set[str] = set()
    fields = [f for b, f in named_fields(query.focus, [anchor])]
    if asks & {"default", "limit", "allowed_values"} and fields:
        # "Which statuses can I filter by?" spells `filter`, but `filter[status]` carries the allowed values.
        classes = field_classes(query.focus, [anchor])
        wanted = next((c for c in (_with_asked_fact([f for _, f in found], asks) for found in classes) if c),
                      fields[:1])
        sentence = f"In {label}, " + "; ".join(field_facts_text(f, asks, about=True) for f in wanted[:2])
        stated |= {f.name for f in wanted[:2]}
    elif "pagination" in asks and (paging := _paging(anchor, blocks)) is not None:
        anchor, sentence, stated = paging
        chunk, label = anchor.chunk, operation_label(anchor.chunk)
    elif "auth" in asks and chunk.security:
        sentence = f"{label} uses {_schemes_text(chunk.security)}"
    elif "header" in asks and (headers := [p for p in chunk.parameters if p.location == "header"]):
        sentence = f"{label} takes the headers " + "; ".join(field_facts_text(h) for h in headers[:4])
        stated |= {h.name for h in headers[:4]}
    elif "required" in asks and (required := _required_inputs(chunk)):
        sentence = f"{label} requires " + "; ".join(field_facts_text(f) for f in required[:MAX_FIELDS])
        stated |= {f.name for f in required}
    elif "response" in asks and (returned := _returns(chunk)):
        sentence = f"{label} returns {returned}"
        stated.add("returns")
    elif "deprecated" in asks and (old := [f for f in _fields_of(chunk) if f.deprecated and "." not in f.name]):
        sentence = f"In {label}, deprecated: " + "; ".join(field_facts_text(f, about=True) for f in old[:4])
        stated |= {f.name for f in old[:4]}
    elif query.analysis.yes_no and fields and fields[0].location:
        field = fields[0]
        sentence = f"Yes: {label} takes the `{field.name}` {field.location} parameter" + (
            f" ({field.description.rstrip('.')})" if field.description else "")
        stated.add(field.name)
    if not sentence and (spelt := [f for f in fields if spells_field(f.name, query.focus)]):
        sentence = f"In {label}, " + "; ".join(field_facts_text(f, asks, about=True) for f in spelt[:2])
        stated |= {f.name for f in spelt[:2]}
    if not sentence:
        sentence = f"{'The closest match is' if closest else 'Use'} {operation_heading(chunk)}"
    clearly_named = [f for _, f in named_fields(query.focus, [anchor], described=False)
                     if not f.deprecated or spells_field(f.name, query.focus)]
    return Lead(_cited(sentence, anchor), _operation_detail(anchor, stated, clearly_named), (anchor.number,))


def _about(query: Query, anchor: ContextBlock, blocks: Sequence[ContextBlock]) -> bool:
    """Whether the question is about the anchor operation: it ranked first, or does what the question's verb
    asks, or the question shares a word with its path, what it does or a field it spells out (an operation
    below a better-ranked guide or schema leads only then)."""
    chunk = anchor.chunk
    if anchor is blocks[0] or chunk.method.lower() in query.analysis.methods():
        return True
    named = _name_parts(chunk.path.replace("/", "_")) | _question_words(operation_words(chunk))
    return bool(named & _question_words(query.focus)) or any(
        spells_field(f.name, query.focus) for f in _fields_of(chunk))


def _with_asked_fact(fields: Sequence[FieldFacts], asks: frozenset[str]) -> list[FieldFacts]:
    """The named fields that carry the kind of fact asked for (a default, a limit, allowed values)."""
    def carries(field: FieldFacts) -> bool:
        return (("default" in asks and field.default is not None)
                or ("limit" in asks and any(label in LIMIT_LABELS for label, _ in field.facts))
                or ("allowed_values" in asks and bool(field.enum or field.item_enum)))
    return [field for field in fields if carries(field)]


def _paging(anchor: ContextBlock, blocks: Sequence[ContextBlock]) -> tuple[ContextBlock, str, set[str]] | None:
    """How the operation pages (the anchor, else the first block that pages): the sentence and the names it
    states."""
    block = anchor if anchor.chunk.pagination else next((b for b in blocks if b.chunk.pagination), None)
    if block is None or block.chunk.pagination is None:
        return None
    paging = block.chunk.pagination
    by_name = {p.name: p for p in block.chunk.parameters}
    label = operation_label(block.chunk)
    parts: list[str] = []
    if paging.cursor and paging.next_field:
        parts.append(f"pass the response's `{paging.next_field}` as the `{paging.cursor}` query parameter "
                     "to get the next page")
    elif paging.cursor:
        parts.append(f"pass the position to continue from as the `{paging.cursor}` query parameter")
    elif paging.offset:
        parts.append(f"set the `{paging.offset}` query parameter to skip the results already read")
    elif paging.page:
        parts.append(f"set the `{paging.page}` query parameter to the page number")
    elif paging.next_field:
        parts.append(f"follow the response's `{paging.next_field}`")
    if paging.size:
        size = by_name.get(paging.size)
        limits = ", ".join(_value_facts(size, frozenset({"limit"}))) if size else ""
        parts.append(f"`{paging.size}` sets the page size" + (f" ({limits})" if limits else ""))
    if paging.total_field:
        parts.append(f"`{paging.total_field}` counts all results")
    if paging.more_field:
        parts.append(f"`{paging.more_field}` says whether more follow")
    if paging.link_header:
        parts.append("the `Link` response header points to the next page")
    sentence = f"{label} pages by {paging.style}: " + "; ".join(parts)
    stated = {name for name in (*paging.parameters, paging.next_field) if name}
    return block, sentence, stated


def _required_inputs(chunk: Chunk) -> list[FieldFacts]:
    """The parameters and (required) body fields a request must send."""
    body = chunk.request_body
    return [p for p in chunk.parameters if p.required] + [
        f for f in (body.fields if body and body.required else ()) if f.required
    ]


def _returns(chunk: Chunk) -> str:
    """"200 with `EmployeesPaginated` (fields `next`, `data`)" from the first success response."""
    response = next((r for r in chunk.responses if r.success), None)
    if response is None:
        return ""
    fields = [f"`{f.name}`" for f in response.fields if not f.deprecated][:MAX_FIELDS]
    schema = f" with `{response.schema}`" if response.schema and response.schema != "no body" else ""
    return f"{response.code}{schema}" + (f" (fields {', '.join(fields)})" if fields else "")


def _operation_detail(anchor: ContextBlock, stated: set[str], asked: Sequence[FieldFacts]) -> str:
    """The second line: the fields the question names that the sentence did not state, the inputs the
    operation requires, the body it takes and what it returns (each once)."""
    chunk = anchor.chunk
    parts: list[str] = []
    named = [f for f in asked if f.name not in stated][:2]
    if named:
        parts.append("; ".join(field_facts_text(f) for f in named))
        stated = stated | {f.name for f in named}
    required = [p for p in chunk.parameters if p.required and p.name not in stated]
    if required:
        parts.append("Requires " + ", ".join(f"`{p.name}` ({p.location})" for p in required[:6]))
    body = chunk.request_body
    if body is not None:
        must = [f"`{f.name}`" for f in body.fields if f.required and f.name not in stated][:6]
        schema = f"`{body.schema}`" if body.schema else "a body"
        parts.append(f"Body {schema}" + (f" (required: {', '.join(must)})" if must else ""))
    if "returns" not in stated and (returned := _returns(chunk)):
        parts.append(f"Returns {returned}")
    return _cited(". ".join(parts), anchor) if parts else ""
