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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rag.chunk import FieldFacts, RequestExample
from rag.corpus.profile import is_lookup_operation
from rag.facts import Fact, MissingWrite
from rag.generate.base import Generation
from rag.generate.context import ContextBlock
from rag.generate.doc_lead import docs_lead
from rag.generate.named import (
    field_classes,
    name_parts,
    named_fields,
    named_whole,
    names_the_operation,
    question_words,
    spells_field,
)
from rag.generate.operation_facts import (
    FIELD_FACT_KINDS,
    MAX_FIELDS,
    alternatives_text,
    cues_name_a_field,
    cues_name_the_resource,
    errors_text,
    field_asked,
    offered_operations,
    operation_detail,
    performs,
    required_alternatives,
    required_inputs,
    returns_text,
    returns_the_resource,
    sent_fields,
    spelt_fields,
    spelt_opening,
    taken_field,
    valued_fields,
    whether_required,
    which_values_asked,
    with_asked_fact,
    with_named_body,
)
from rag.generate.paging import asks_page_size, own_listing, page_size_field, page_size_in_response, paging
from rag.generate.rate_limits import rate_limit_lead, unstated_rate_limit
from rag.generate.said import (
    api_name,
    cited,
    field_facts_text,
    first_sentence,
    is_operation,
    names_api,
    operation_heading,
    operation_label,
    operation_words,
    scheme_detail,
    schemes_text,
    the_api,
)
from rag.generate.schema_lead import schema_lead, schema_title
from rag.generate.shared_headers import of_the_kind, on_the_api, shared_header_statement, without_scheme
from rag.names import name_phrases
from rag.query import Query
from rag.question_analysis import asked_action, asked_cue_words, asked_cues
from rag.request_example import with_body_values, with_question_values
from rag.results import RERANK_SCORE


@dataclass(frozen=True)
class Lead:
    """The lead sentence, the line of facts under it and the blocks the quoted lines may come from.

    `scope` is empty when any block may add lines; a lead about one operation, an API-wide statement (the
    overview's security scheme, the header the operations share) or an established missing operation keeps
    the quoted lines to the blocks it cites. `related` says whether the other blocks are listed after them
    (not after an API-wide statement or an absence, where another operation would read as a contradiction).
    `operation` is the block of the operation the answer is about: its request example goes with the answer."""

    sentence: str = ""
    detail: str = ""
    scope: tuple[int, ...] = ()
    related: bool = True
    quoted: bool = True  # False: the two lines say all the cited block says (an API-wide statement)
    operation: int = 0  # the number of the block of the operation the answer is about (0: none)
    stated: frozenset[str] = frozenset()  # what the two lines name: fields, "returns" (the success response)
    facts: tuple[Fact, ...] = ()  # the established facts the sentence states (an absence)
    described: frozenset[str] = frozenset()  # the fields they state in full (facts and description)
    rule: str = ""  # the name of the rule that made it (`LEAD_RULES`, or `missing_operation`)

    def __post_init__(self) -> None:
        if (self.scope or self.detail or self.operation) and not self.sentence:
            raise ValueError(
                f"Lead(scope={self.scope!r}, detail={self.detail!r}, operation={self.operation!r}) is not allowed "
                "without a sentence; allowed: an empty scope and detail and no operation when there is no sentence"
            )

    def request_example(self, blocks: Sequence[ContextBlock], question: str = "") -> RequestExample | None:
        """The request example of the operation the answer is about, with the values `question` names for its path
        and its body's fields (None when it is about none, or the operation has none: a webhook, an index built before
        examples were)."""
        if (block := self._operation_block(blocks)) is None or block.chunk.request_example is None:
            return None
        body = block.chunk.request_body
        example = with_named_body(block.chunk.request_example, body, question)
        example = with_body_values(example, body.fields if body else (), question)
        return with_question_values(example, block.chunk.path, question)

    def subject(self, blocks: Sequence[ContextBlock]) -> str:
        """The structural id of the operation the answer is about ("" when it is about none): a follow-up's
        subject."""
        block = self._operation_block(blocks)
        return block.chunk.covers[0] if block is not None and block.chunk.covers else ""

    def applied(self, generation: Generation, blocks: Sequence[ContextBlock], question: str = "") -> Generation:
        """The generation with what this lead says it is about: the operation's request example (with the values
        `question` names), the subject and the rule that fired (none of them for an abstention)."""
        if generation.abstained:
            return generation
        return replace(generation, request_example=self.request_example(blocks, question),
                       subject=self.subject(blocks), lead_rule=self.rule)

    def _operation_block(self, blocks: Sequence[ContextBlock]) -> ContextBlock | None:
        block = next((b for b in blocks if self.operation and b.number == self.operation), None)
        return block if block is not None and is_operation(block) else None


# A lead rule reads the question's analysis, the numbered blocks and the gate's tier; it returns a Lead with a
# sentence when it applies, an empty Lead otherwise.
LeadRule = Callable[[Query, Sequence[ContextBlock], str], Lead]


def lead_for(
    question: Query | str, blocks: Sequence[ContextBlock], facts: Sequence[Fact] = (), gate: str = "answer"
) -> Lead:
    """The lead (see `Lead`) from the question's analysis and the blocks' typed facts, by the first rule of
    `LEAD_RULES` that applies (its name in `Lead.rule`); with a `partial` gate (the evidence only partly matches)
    an operation is offered as the closest match, or with the likeliest others, not as the answer."""
    query = Query.of(question)
    if facts:  # what the checks established comes first; a rule picking an operation could contradict it
        return replace(_missing_operation(query, blocks, facts), rule=MISSING_OPERATION)
    if not blocks:
        return Lead()
    for name, rule in LEAD_RULES:
        found = rule(query, blocks, gate)
        if found.sentence:
            return replace(found, rule=name)
    return Lead()


# --- rules ----------------------------------------------------------------------------------------------------


def _missing_operation(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> Lead:
    """"Can I create a course?" when the write check established there is no such operation: the fact, each
    sentence cited to the operations that do exist for the resource (the evidence of the absence); the lines
    below come only from those operations, so no other resource's write operation reads as a contradiction."""
    missing = next((fact for fact in facts if isinstance(fact, MissingWrite)), None)
    if missing is None:
        return Lead()
    operations = missing.operation_labels()
    named = [block for block in blocks if is_operation(block) and operation_label(block.chunk) in operations]
    marks = " ".join(f"[{block.number}]" for block in named)
    cited = [f"{sentence.rstrip()} {marks}".rstrip() for sentence in missing.sentences()]
    text = ("No. " if query.analysis.yes_no else "") + " ".join(cited)
    return Lead(text, scope=tuple(block.number for block in named), related=False, facts=(missing,))


def _from_documentation(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """A question no operation answers, asked of documentation (a guide, an API's description): the sentence that
    states it and where it stands (`rag.generate.doc_lead`); the lines below come from that section."""
    sentence, detail, number = docs_lead(query, blocks)
    return Lead(sentence, detail, (number,)) if sentence else Lead()


def _names_first_operation(query: Query, blocks: Sequence[ContextBlock]) -> bool:
    return is_operation(blocks[0]) and names_the_operation(query.focus, blocks[0])


def _api_authentication(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """"How do I authenticate with the Spotify Web API?": a question naming no operation is answered with the
    API's own schemes (the overview's), whatever operation ranked first; without the overview, with the
    schemes the first operation requires, said of the API; with none declared, with the credential headers the
    operations take, else with what the API's documentation says (Snyk's description, "## Authorization")."""
    # "how do I rotate an api key?" where the first operation acts on keys (`PATCH /apps/{app_id}/keys/{key_id}`)
    # or takes the `scopes` asked about: words of the operation, not of how to authenticate ("how do I
    # authenticate?" asks it, whatever path says "authenticate").
    first = next((b.chunk for b in blocks if is_operation(b)), None)
    acts = asked_action(query.focus) in asked_cue_words(query.focus, "auth")
    if "auth" not in query.analysis.asks or _names_first_operation(query, blocks) or (first is not None and (
            cues_name_a_field(query, first, "auth") or (not acts and cues_name_the_resource(query, first, "auth")))):
        return Lead()
    asked = on_the_api(blocks)
    source = next((b for b in asked if b.chunk.kind == "overview" and b.chunk.security), None)
    source = source or next((b for b in asked if is_operation(b) and b.chunk.security), None)
    if source is None:  # no scheme declared: what the operations take instead, else what the API's docs say
        documented = _from_documentation(query, asked, gate)
        sentence, number, related = without_scheme(asked, documented=bool(documented.sentence))
        return Lead(sentence, scope=(number,), related=related, quoted=False) if sentence else documented
    schemes = source.chunk.security
    text = f"{the_api(source.chunk)} uses {schemes_text(schemes)}"
    detail = scheme_detail(schemes)
    return Lead(cited(text, source), cited(detail, source) if detail else "", (source.number,), related=False,
                quoted=False)


def _shared_header(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """"Which header selects the account on the HRIS endpoints?": a header question naming no operation is
    answered from the parameters the operations share (the conventions chunk), not from the first operation."""
    if "header" not in query.analysis.asks or _names_first_operation(query, blocks):
        return Lead()
    sentence, number = shared_header_statement(query, blocks)
    return Lead(sentence, scope=(number,), related=False, quoted=False) if sentence else Lead()


def _look_up_first(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """"Play the album Kind of Blue by Miles Davis" with the API's lookup operation first (the lookup lift):
    "First find Kind of Blue, Miles Davis with GET /search (`q`) [1]; then GET /albums/{id} (Get Album) [2]"."""
    values = name_phrases(query.focus)
    if not values or not is_lookup_operation(blocks[0].chunk):
        return Lead()
    lookup, following = blocks[0], next((b for b in blocks[1:] if is_operation(b)), None)
    if following is not None and (is_lookup_operation(following.chunk) or following.chunk.path == lookup.chunk.path):
        # "how do I search issues with JQL?": the search is what is asked, not a first step before another search.
        return Lead()
    required = [f"`{p.name}`" for p in lookup.chunk.parameters if p.required and p.location == "query"][:2]
    sentence = f"First find {' and '.join(values[:3])} with {operation_label(lookup.chunk)}"
    sentence += (f" ({', '.join(required)})" if required else "") + f" [{lookup.number}]"
    if following is not None:
        sentence += f"; then {operation_heading(following.chunk)} [{following.number}]"
    return Lead(sentence + ".", operation=lookup.number)


def _operations_per_api(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """"How do I list employees in the HRIS API and candidates in the ATS API?": the best-ranked operation of
    each API the question names, each cited; "Which APIs let me list users?": of each API among the blocks."""
    every = "which_apis" in query.analysis.asks
    named: dict[str, ContextBlock] = {}
    for block in blocks:
        api = block.chunk.api
        if api and api not in named and is_operation(block) and (every or names_api(query.focus, block.chunk)):
            named[api] = block
    if len(named) < 2:
        return Lead()
    parts = [f"in the {api_name(api)} API use {operation_heading(b.chunk)} [{b.number}]" for api, b in named.items()]
    sentence = "; ".join(parts) + "."
    return Lead(sentence[0].upper() + sentence[1:], operation=next(iter(named.values())).number)


def _where(block: ContextBlock) -> str:
    """"POST /connect_sessions" for an operation, "the ConnectSessionCreate schema" for a schema."""
    chunk = block.chunk
    return operation_label(chunk) if chunk.kind == "operation" else f"the {schema_title(chunk)} schema"


def _rate_limits(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """"What's the rate limit?": what the documentation says, else what an operation's description says, else the
    429 and the rate headers of an operation (`rag.generate.rate_limits`), never a field's limit; else that none of
    it states one (not an operation whose path says `rate`)."""
    if "rate_limit" not in query.analysis.asks:
        return Lead()
    sentence, detail, scope = rate_limit_lead(query, blocks)
    if sentence:
        return Lead(sentence, detail, scope)
    # Documentation that answers in other words ("5,000 requests per day" under "Limits") is quoted by a later rule.
    return Lead() if docs_lead(query, blocks)[0] else Lead(unstated_rate_limit(blocks), related=False)


def _described_paging(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """"How do I page through hetzner servers?" where no operation's facts say how it pages: the documentation's."""
    if "pagination" not in query.analysis.asks or any(b.chunk.pagination for b in blocks if is_operation(b)):
        return Lead()
    return _from_documentation(query, blocks, gate)


def _asked_field(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """"What is the default of expires_in?": the field the question spells out, wherever it is among the blocks (of
    the API it names: another's `per_page` is no answer to "how many orders per page from ebay?"; of the subject, for
    a follow-up that names nothing of its own), with the kind of fact asked for (a default, a limit, allowed
    values)."""
    asks = query.analysis.asks & {"default", "limit", "allowed_values"}
    if not asks:
        return Lead()
    named = {b.chunk.api for b in blocks if names_api(query.focus, b.chunk)}
    searched = [b for b in blocks if len(named) != 1 or b.chunk.api in named]
    # A follow-up naming nothing of its own asks of the conversation's subject: "can I limit them to a date range?"
    # after listing an account's transactions is no other operation's `limit`.
    if query.keeps_subject and (subject := [b for b in searched if query.subject in b.chunk.covers]):
        searched = subject
    exact, _, by_path, _ = field_classes(query.focus, searched, described=False)
    # Spelt out, a field named like the resource counts too ("the most `messages` one bulk delete takes"), in an
    # operation that does what the question's verb asks ("how many messages can I get" is no bulk delete).
    methods = query.analysis.methods()
    spelt = sorted(exact + [entry for entry in by_path if spells_field(entry[1].name, query.focus)],
                   key=lambda entry: entry[0].number)
    for block, field in spelt:
        if methods and is_operation(block) and not performs(block.chunk) & methods:
            continue
        # "how many volumes can I list per page?" spells `page`: per page, the page size's limit (or default) is the
        # one asked for; where no query parameter sets it, the response's (`pagelen` beside `page`).
        if asks_page_size(query.focus, query.analysis.asks):
            field = page_size_field(block.chunk) or page_size_in_response(field, block.chunk) or field
        if is_operation(block) and returns_the_resource(field, block.chunk):  # "how many tweets … per request?"
            continue
        if with_asked_fact([field], asks):
            sentence = f"In {_where(block)}, {field_facts_text(field, asks, about=True)}"
            detail, stated = (operation_detail(block, {field.name}, ()) if block.chunk.kind == "operation"
                              else ("", frozenset({field.name})))
            return Lead(cited(sentence, block), detail, (block.number,), stated=stated,
                        described=frozenset({field.name}), operation=block.number if is_operation(block) else 0)
    return Lead()


def _schema_asked(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """A question about a schema (named, or retrieved first): its required fields, or its fields, and the
    operations that use it (`rag.generate.schema_lead`)."""
    sentence, detail = schema_lead(query, blocks)
    return Lead(sentence, detail, ()) if sentence else Lead()


# How far down a ranking that no reranker ordered the lead looks for an operation doing what the question's verb asks.
ANCHOR_BLOCKS = 3


def _anchor(query: Query, blocks: Sequence[ContextBlock]) -> ContextBlock | None:
    """The operation the answer is about: the first operation among the blocks (those above it are schemas,
    guides or overviews that support it). A reranker (the learned ranker, a cross-encoder, an LLM) has weighed
    what the question asks against each operation, so its first is the one ("check if someone is free": a
    calendar's POST /freeBusy, not an email service's GET below it). Where retrieval alone ordered them (fused word
    and vector scores, which do not read what is asked), the first of the top three that does what the question's
    verb asks ("and how do I remove one of them?": a DELETE) when the first does not."""
    operations = [block for block in blocks if is_operation(block)]
    if not operations:
        return None
    if RERANK_SCORE in operations[0].retrieved.scores:
        return operations[0]
    methods = query.analysis.methods()
    doing = [block for block in operations[:ANCHOR_BLOCKS] if performs(block.chunk) & methods]
    return (doing or operations)[0]


def _about_an_operation(query: Query, blocks: Sequence[ContextBlock], gate: str = "answer") -> Lead:
    """The lead for a question about what an operation does or takes: the asked fact of the operation the
    answer is about (`_asked_fact`), else which operation to use (a `partial` gate: the closest match, or the
    likeliest operations); then the
    operation's facts a reader acts on."""
    closest = gate == "partial"
    anchor = _anchor(query, blocks)
    if anchor is None or not _about(query, anchor, blocks):
        return Lead()
    clearly_named = _clearly_named(query, anchor)
    asked_of = anchor
    anchor, sentence, stated, described = _asked_fact(query, anchor, blocks, clearly_named)
    chunk = anchor.chunk
    if not sentence and closest:
        # The first operation is more likely wrong than right: the likeliest ones, so a reader sees the choice.
        anchor, *alternatives = offered_operations(anchor, blocks)
        chunk = anchor.chunk
        if alternatives:
            offered = [f"{operation_heading(b.chunk)} [{b.number}]" for b in (anchor, *alternatives)]
            sentence = f"The likeliest operations are {', '.join(offered[:-1])} and {offered[-1]}."
            detail, said = operation_detail(anchor, stated, (), query.focus)
            return Lead(sentence, detail, tuple(b.number for b in (anchor, *alternatives)), stated=said,
                        operation=anchor.number)
    if not sentence:
        sentence = f"{'The closest match is' if closest else 'Use'} {operation_heading(chunk)}"
        if gist := first_sentence(chunk.opening, chunk.summary):
            sentence += f": {gist}"
    sentence = cited(sentence, anchor)
    if anchor is not asked_of:  # the fact came from another operation (its collection's list): that one's fields
        clearly_named = _clearly_named(query, anchor)
    detail, said = operation_detail(anchor, stated, clearly_named, query.focus)
    # How the list of its collection pages is a fact of the operation asked about ("is that paginated?" after
    # creating an invite): the conversation stays with it ("can I limit how many people use it?" is of the invite).
    about = asked_of if anchor is own_listing(asked_of, blocks) else anchor
    return Lead(sentence, detail, (anchor.number,), stated=said, described=frozenset(described),
                operation=about.number)


def _named_by_a_word(query: Query, anchor: ContextBlock) -> list[FieldFacts]:
    """The fields of the anchor whose name shares a word with the question (`statuses` ← "status")."""
    return [f for _, f in field_classes(query.focus, [anchor], described=False)[1]]


def _clearly_named(query: Query, anchor: ContextBlock) -> list[FieldFacts]:
    """The fields of the anchor the question names, a deprecated one only when spelt out."""
    return [f for _, f in named_fields(query.focus, [anchor], described=False)
            if not f.deprecated or spells_field(f.name, query.focus)]


def _asked_fact(
    query: Query, anchor: ContextBlock, blocks: Sequence[ContextBlock], clearly_named: Sequence[FieldFacts]
) -> tuple[ContextBlock, str, set[str], set[str]]:
    """The sentence stating the asked fact of the operation (a field's default, limit or allowed values, how it
    pages, its security, headers, required inputs, errors, response or deprecated inputs; "Yes: it takes `x`"; a
    field the question spells), the block it is about (an operation that pages may be another), the names it
    states and the fields it states in full; "" when the question asks for no fact the operation has."""
    chunk = anchor.chunk
    # A kind of fact whose words name the operation's own resource is not asked ("a return label": `…/return`), nor
    # security whose words name a field of it ("which scopes can I give it?": `scopes` of `POST /api_keys`).
    asks = frozenset(kind for kind in query.analysis.asks if not cues_name_the_resource(query, chunk, kind)
                     and not (kind == "auth" and cues_name_a_field(query, chunk, kind)))
    label, sentence = operation_label(chunk), ""
    stated: set[str] = set()
    described: set[str] = set()
    asks |= (which := which_values_asked(query.focus, chunk, asks))  # "which setting types can a flag have?"
    if asks & FIELD_FACT_KINDS and (asked := field_asked(query, anchor, query.analysis.asks | which))[0]:
        sentence, wanted = asked
        stated = described = {f.name for f in wanted}
    elif "pagination" in asks and (paged := paging(anchor, blocks, query.subject in chunk.covers)) is not None:
        anchor, sentence, stated = paged
    elif "auth" in asks and chunk.security:
        sentence = f"{label} uses {schemes_text(chunk.security)}"
    elif "header" in asks and (headers := of_the_kind([p for p in chunk.parameters if p.location == "header"],
                                                      query.focus)):
        sentence = f"{label} takes the headers " + "; ".join(field_facts_text(h) for h in headers[:4])
        stated = {h.name for h in headers[:4]}
    elif "required" in asks and (whether := whether_required(query, chunk, clearly_named, asks)):
        sentence, field = whether
        stated = described = {field.name}
    elif "required" in asks and (required := required_inputs(chunk)):
        sentence = f"{label} requires " + "; ".join(field_facts_text(f) for f in required[:MAX_FIELDS])
        stated = {f.name for f in required}
    elif "required" in asks and (options := required_alternatives(chunk)) and chunk.request_body is not None:
        sentence = f"{label} takes " + alternatives_text(chunk.request_body, set(), query.focus)
        stated = {f.name for option in options for f in option}
    elif "errors" in asks:  # the success response is still said below
        failures = errors_text(chunk)
        sentence = f"{label} can fail with {failures}" if failures else f"{label} documents no error response"
    elif "response" in asks and "endpoint" not in asks and (returned := returns_text(chunk)):
        sentence, stated = f"{label} returns {returned}", {"returns"}
    elif "deprecated" in asks and (old := [f for f in chunk.every_field() if f.deprecated and "." not in f.name]):
        sentence = f"In {label}, deprecated: " + "; ".join(field_facts_text(f, about=True) for f in old[:4])
        stated = described = {f.name for f in old[:4]}
    elif asked := (by_value := valued_fields(query, chunk, clearly_named)) + (
            [f for f in named_whole(query.focus, [*clearly_named, *_named_by_a_word(query, anchor)])
             if f.location != "path"] if query.analysis.yes_no else []):
        # A path parameter only identifies what the question names (`batch_id` of "a cap on how many contacts in one
        # batch?"); a yes needs every word of a field's name said ("is this domain name free to register?" names no
        # `nameServers`). Of the fields named, one the request sends ("can I filter by metadata?": `filter`, not
        # `matches.metadata`; "filtering by status?": the `statuses` parameter, not the `status` returned).
        inputs = set(sent_fields(chunk))
        field = min(asked, key=lambda f: f not in inputs or f.read_only)
        # Named by its values ("public or private?"), the field's values answer: no yes to an alternative.
        sentence = taken_field(chunk, field, valued=field in by_value and field not in clearly_named)
        stated = {field.name}
    if not sentence and (spelt := spelt_fields(query, anchor)):
        sentence = spelt_opening(query, anchor) + "; ".join(field_facts_text(f, asks, about=True) for f in spelt[:2])
        stated = described = {f.name for f in spelt[:2]}
    return anchor, sentence, stated, described


def _about(query: Query, anchor: ContextBlock, blocks: Sequence[ContextBlock]) -> bool:
    """Whether the question is about the anchor operation: it ranked first, or does what the question's verb
    asks, or the question shares a word with its path or what it does, other than its API's name, or spells out
    one of its fields (an operation below a better-ranked guide or schema leads only then: "What changed in the
    LMS API?" is not about `GET /unified/lms/users`)."""
    chunk = anchor.chunk
    if anchor is blocks[0]:
        return True
    # Below a better-ranked documentation section, neither the verb ("how do I get the next page?": any GET) nor the
    # words that ask for a fact ("page") make the question about an operation: the section may state the answer.
    guide_first = blocks[0].chunk.kind == "doc"
    if performs(chunk) & query.analysis.methods() and not guide_first:
        return True
    asked = question_words(query.focus)
    if guide_first:
        asked -= {word for kind in query.analysis.asks for cue in asked_cues(query.focus, kind)
                  for word in question_words(cue)}
    named = (name_parts(chunk.path.replace("/", "_")) | question_words(operation_words(chunk))) - name_parts(chunk.api)
    return bool(named & asked) or any(spells_field(f.name, query.focus) for f in chunk.every_field())


MISSING_OPERATION = "missing_operation"  # the lead of an established absence (`_missing_operation`), before any rule
# The lead's rules, tried in this order; the first whose lead has a sentence makes the lead (its name is recorded).
LEAD_RULES: tuple[tuple[str, LeadRule], ...] = (
    ("api_authentication", _api_authentication),
    ("shared_header", _shared_header),
    ("look_up_first", _look_up_first),
    ("operations_per_api", _operations_per_api),
    ("rate_limits", _rate_limits),
    ("described_paging", _described_paging),
    ("asked_field", _asked_field),
    ("schema_asked", _schema_asked),
    ("about_an_operation", _about_an_operation),
    ("from_documentation", _from_documentation),
)
