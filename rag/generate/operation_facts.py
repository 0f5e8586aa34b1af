"""The facts of one operation a lead states: the field a fact question asks about (a default, a limit, allowed
values), how the operation pages, what a request requires and what it returns (the lead's second line). Each
reads the operation's typed facts, never its text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rag.chunk import BodyAlternative, Chunk, FieldFacts, RequestBodyFacts, RequestExample, ResponseFacts
from rag.corpus.vocabulary import function_words, singular
from rag.data import data_table
from rag.generate.context import ContextBlock
from rag.generate.named import (
    alternative_fields,
    field_classes,
    name_parts,
    path_words,
    question_words,
    spells_field,
)
from rag.generate.paging import asks_page_size, page_size_field, page_size_in_response
from rag.generate.said import (
    cited,
    field_facts_text,
    is_operation,
    operation_heading,
    operation_label,
    operation_words,
    value_facts,
)
from rag.query import Query
from rag.question_analysis import asked_cues, opening_word, opens_with_a_verb
from rag.write_check import write_target

MAX_FIELDS = 8
# Fields of a request body the second line names (its required ones first).
MAX_FIELDS_SHOWN = 6
# How many objects of a request body's `oneOf` / `anyOf` an answer spells out.
MAX_ALTERNATIVE_BODIES = 3


def performs(chunk: Chunk) -> frozenset[str]:
    """The methods an operation's effect amounts to (`POST /messages/bulk-delete` deletes)."""
    return write_target(chunk.method.lower(), chunk.path or "")[1]


def field_asked(query: Query, anchor: ContextBlock, asked: frozenset[str] | None = None
                ) -> tuple[str, list[FieldFacts]]:
    """"In POST /queues, `MaxSize` (integer) — The maximum number of calls …": the fields the question names
    most clearly that carry the asked kind of fact (a default, a limit, allowed values), else the field it
    names most clearly, with its description (which may state the fact in words); naming none, the page size
    of an operation that pages ("how many can I get per request?") or the one field that carries the fact.
    ("", []) when the operation has no such field. `asked`: the kinds of fact asked (the question's own by
    default)."""
    asks = query.analysis.asks if asked is None else asked
    exact, partial, by_path, by_description = ([f for _, f in found if not returns_the_resource(f, anchor.chunk)]
                                               for found in field_classes(query.focus, [anchor]))
    # "Which statuses can I filter by?" spells `filter`, but `filter[status]` carries the allowed values; a field
    # named like the resource ("how many messages can I delete at once?": `messages`) may carry the limit too. A
    # field sharing a word but no part of a field spelt out is another field: "the allowed values for the event
    # visibility" spells `visibility`, whose description states them, not `eventTypes`, which has an enum.
    spelt = [f for f in exact if f.location != "path"]
    if spelt and not with_asked_fact(exact, asks):
        inside = [f for f in partial + by_path if any(_inside(f, s) for s in spelt)]
        wanted = with_asked_fact(inside, asks) or spelt[:1]
    else:
        wanted = next((found for found in (with_asked_fact(c, asks) for c in (exact, partial, by_path)) if found), [])
    # A path parameter identifies the resource the question names: without the asked fact, it says nothing of it
    # ("the max number of data points I can get per request from a feed" names `feed_key`, "a valid feed key").
    named = [f for f in exact + partial if f.location != "path"][:1]
    # "what's the default page size when searching orders?": the page size, named or not (Square's `limit`).
    paged = asks_page_size(query.focus, asks)
    size = page_size_field(anchor.chunk) if paged else None
    wanted = (wanted or named or _unnamed_field(anchor.chunk, asks) or with_asked_fact(by_description, asks)
              or ([size] if size is not None else []) or _stated_in_words(by_description, asks))
    # Where no input sets the page size, the response's beside the page number named (setlist.fm's `itemsPerPage`
    # beside `page`: "how many results per page does the setlist search return?").
    if paged and size is None and named and (returned := page_size_in_response(named[0], anchor.chunk)):
        wanted = [returned]
    if not wanted:
        return "", []
    if "pagination" in asks and (pages := anchor.chunk.pagination) is not None:
        # "the max number of events returned per page" names `maxAttendees` and `maxResults` alike: per page, the
        # page size is the limit asked for, named or not ("how many videos can I list per page?" names only
        # `currentPage`, whose spec says "the number of results per page").
        if size is not None:  # fields named by the question's other words without the fact say nothing of pages
            wanted = [size] + [f for f in wanted if f != size and with_asked_fact([f], asks)]
        wanted.sort(key=lambda field: field.name != pages.size)
    wanted = one_per_name(wanted, sent_fields(anchor.chunk))
    text = "; ".join(field_facts_text(f, asks, about=True) for f in wanted[:2])
    first = wanted[0]
    if ("limit" in asks and first.type.startswith(("integer", "number", "array")) and not (first.limits or first.enum)
            and not any(char.isdigit() for char in first.description)):
        # "what's the max number of assets per page?": `limit` has a default only, and the reader must not take it
        # for the maximum.
        text += "; its schema sets no minimum or maximum"
    return f"In {operation_label(anchor.chunk)}, {text}", wanted[:2]


# "which setting types can a flag have?": the words between "which" (or "what") and the verb name what is asked.
_WHICH = re.compile(r"^\s*(?:which|what)\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)\s+"
                    r"(?:can|could|do|does|did|are|is|should|may|might|will|would)\b", re.IGNORECASE)


# The kinds of fact a field states: its default, its limits, its allowed values.
FIELD_FACT_KINDS = frozenset({"default", "limit", "allowed_values"})


def which_values_asked(question: str, chunk: Chunk, asks: frozenset[str]) -> frozenset[str]:
    """`allowed_values` when the question asks no kind of field fact in the words of the `[asks]` table but asks
    which of a field's allowed values there are by spelling the field after "which" or "what" ("which setting types
    can a flag have?": ConfigCat's `settingType`, one of boolean, string, int, double); else nothing."""
    match = _WHICH.match(question)
    if asks & FIELD_FACT_KINDS or match is None:
        return frozenset()
    words = question_words(match.group(1))
    spelt = any(name_parts(field.name.rsplit(".", 1)[-1]) == words and bool(field.enum or field.item_enum)
                for field in [*chunk.every_field(), *alternative_fields(chunk)])
    return frozenset({"allowed_values"}) if spelt else frozenset()


def one_per_name(fields: Sequence[FieldFacts], sent: Sequence[FieldFacts]) -> list[FieldFacts]:
    """`fields` with each name once, a field inside another counting as one of the top-level field of its own name
    (a list's `account_id` filter and its response's `data.account_id`; Zuora's invoice `status` sent and
    returned), in their order: the one the request sends (`sent`) where there are two."""
    inputs, chosen = set(sent), dict[str, FieldFacts]()
    top = {field.name for field in fields if "." not in field.name}
    for field in fields:
        own = field.name.rsplit(".", 1)[-1]
        key = own if own in top else field.name
        if key not in chosen or (field in inputs and chosen[key] not in inputs):
            chosen[key] = field
    return list(chosen.values())


def asks_how_to(query: Query, anchor: ContextBlock) -> bool:
    """Whether the question asks how to do what the anchor operation does: "how do I …", a write of its own (not a
    follow-up's carried one), a request opening with a verb of the verb table or the operation's own action ("send
    a transactional email": `POST /messages/send.json`), or saying all an operation of two words or more does."""
    chunk, said = anchor.chunk, operation_words(anchor.chunk)
    what_it_does = name_parts(said)
    says_what_it_does = len(what_it_does) >= 2 and what_it_does <= name_parts(query.focus)
    # Its own action: the first word of what it does, or the last of two or more fixed path segments.
    fixed = [segment for segment in chunk.path.split("/") if segment and "{" not in segment]
    actions = name_parts(said.split(" ", 1)[0]) | name_parts(fixed[-1] if len(fixed) > 1 else "")
    own_action = singular(opening_word(query.focus)) in actions
    write = query.analysis.write
    return ("how_to" in query.analysis.asks or bool(write and not write.carried) or opens_with_a_verb(query.focus)
            or says_what_it_does or own_action)


def spelt_opening(query: Query, anchor: ContextBlock) -> str:
    """What comes before the fields a question spells: asked how, the operation to use ("Use POST /write (Write
    data), with `bucket` …" for "how do I write points into a bucket?"), else where they are ("In …, ")."""
    if asks_how_to(query, anchor):
        return f"Use {operation_heading(anchor.chunk)}, with "
    return f"In {operation_label(anchor.chunk)}, "


def spelt_fields(query: Query, anchor: ContextBlock) -> list[FieldFacts]:
    """The fields of the anchor operation the question spells out; asked how to do something (or to do a write, or
    in a request opening with its verb: "list all events in a year" spells the `{year}` that only identifies them),
    only those the request sends ("how do I merge it once approved?" spells the response's `participants.approved` and
    `links.merge`, which say nothing of how to merge; "what currency is it in?" asks for the response's `currency`)
    and not one named by what the operation does ("how do I upload a video?" spells the `upload` object of "Upload
    a video": the question names the operation)."""
    # A word naming a path parameter identifies the item ("add a user to realm acme": `{realm}`), no field of it.
    named = {p.name.lower() for p in anchor.chunk.parameters if p.location == "path"}
    spelt: list[FieldFacts] = []
    for _, field in field_classes(query.focus, [anchor], described=False)[0]:
        # One field of a name: the request's `scopes`, not the response's again.
        if (field.location == "path" or field.name.rsplit(".", 1)[-1].lower() not in named) and all(
                field.name != other.name for other in spelt) and not returns_the_resource(field, anchor.chunk):
            spelt.append(field)
    # Of a write the conversation carries, the inputs ("which scopes can I give it?": the request's `scopes`).
    if not (asks_how_to(query, anchor) or query.analysis.write) or "response" in query.analysis.asks:
        return spelt
    # The kinds of body it takes are named by what it does too ("how do I send a whatsapp message?" names the
    # `… / whatsapp` bodies of Vonage's "Send a message", not the `whatsapp` object one of them sends).
    body = anchor.chunk.request_body
    kinds = set().union(*(name_parts(alternative.name) for alternative in (body.alternatives if body else ())))
    sent, does = set(sent_fields(anchor.chunk)), name_parts(operation_words(anchor.chunk)) | kinds

    def names_the_action(field: FieldFacts) -> bool:
        # The part the question spells: "how do I create a database cluster?" spells `database` of
        # `connection.database`, a word of "Create a New Database Cluster".
        parts = name_parts(field.name.rsplit(".", 1)[-1])
        return bool(parts) and parts <= does

    # Nor a path parameter: asked how, the item it identifies is named ("how do I create a repository in a
    # workspace?" names the workspace, and asks nothing of `{workspace}`); nor a field the request does not send
    # (read-only).
    return [field for field in spelt if field in sent and field.location != "path" and not field.read_only
            and not names_the_action(field)]


def whether_required(query: Query, chunk: Chunk, named: Sequence[FieldFacts], asks: frozenset[str]
                     ) -> tuple[str, FieldFacts] | None:
    """Whether the input the question spells (of the fields it `named`) is required, with its limits ("is the period
    required when renewing a domain?": "No: in POST /v1/domains/{domain}/renew, `period` is optional, minimum 1,
    maximum 10"), not every input the operation requires; None when it spells no input."""
    inputs = set(sent_fields(chunk))
    field = next((f for f in named if f.location != "path" and f in inputs and spells_field(f.name, query.focus)),
                 None)
    if field is None:
        return None
    answer = ("Yes: in" if field.required else "No: in") if query.analysis.yes_no else "In"
    facts = "".join(f", {fact}" for fact in value_facts(field, asks))
    state = "required" if field.required else "optional"
    return f"{answer} {operation_label(chunk)}, `{field.name}` is {state}{facts}", field


def taken_field(chunk: Chunk, field: FieldFacts, valued: bool) -> str:
    """"Yes: POST /x takes the `a` field (its description)", without the yes when the question named the field by one
    of its values (`valued`: "public or private?"); a field the request does not send (read-only) is returned ("can
    I set a custom id?" gets no yes)."""
    kind = f"{field.location} parameter" if field.location else "field"
    said = f"`{field.name}` {kind}" + (f" ({field.description.rstrip('.')})" if field.description else "")
    said += "".join(f", {fact}" for fact in value_facts(field, frozenset({"allowed_values"}))[:1] if field.enum)
    label = operation_label(chunk)
    if field in set(sent_fields(chunk)) and not field.read_only:
        return f"{'' if valued else 'Yes: '}{label} takes the {said}"
    return f"{label} returns the {said}; its request does not send it"


def returns_the_resource(field: FieldFacts, chunk: Chunk) -> bool:
    """Whether `field` is a response field named like the operation's resource ("and get their recent tweets?":
    `includes.tweets` of `GET /2/tweets/search/recent`): what the operation returns, no part of it a question spells."""
    leaf = field.name.rsplit(".", 1)[-1].lower()
    return field not in set(sent_fields(chunk)) and singular(leaf) in path_words(chunk.path)


def valued_fields(query: Query, chunk: Chunk, named: Sequence[FieldFacts] = ()) -> list[FieldFacts]:
    """The fields a request sends one of whose allowed values the question names ("can I get it as a png?":
    ShipEngine's `label_format`, one of pdf, png, zpl); none when the first field it `named` is one the request
    sends (that field is what it asks about)."""
    first = next((f for f in named if f.location != "path"), None)
    if first is not None and first in set(sent_fields(chunk)) and not first.read_only:
        return []
    # "label" names the resource; "new" of "deploy a new version" asks to create, no `state` of `new`.
    words = question_words(query.focus) - function_words() - path_words(chunk.path) - set(
        data_table("question_words")["verbs"])
    return [field for field in sent_fields(chunk) if not field.read_only and field.location != "path"
            and words & {value.lower() for value in field.enum if len(value) > 2}]


def cues_name_the_resource(query: Query, chunk: Chunk, kind: str) -> bool:
    """Whether the words asking for `kind` name the operation's own resource ("create a new API key" of `POST
    /keys`, "add custom headers" of `PUT …/headers`, "a return label" of `POST …/return`): not a fact asked of it."""
    cues = asked_cues(query.focus, kind)
    return bool(cues) and all(question_words(cue) & path_words(chunk.path) for cue in cues)


def cues_name_a_field(query: Query, chunk: Chunk, kind: str) -> bool:
    """Whether every word asking for `kind` spells a field of the operation ("which scopes can I give it?" of
    SendGrid's `POST /api_keys`, whose body takes `scopes`): the field is asked about, not the kind of fact."""
    cues = asked_cues(query.focus, kind)
    return bool(cues) and all(any(spells_field(f.name, cue) for f in chunk.every_field()) for cue in cues)


def _inside(field: FieldFacts, outer: FieldFacts) -> bool:
    """Whether `field` is a part of `outer` (`filter[status]` of `filter`, `HostConfig.Memory` of `HostConfig`),
    not a field whose name only begins like it (`HostConfig.MemorySwappiness` is no part of `HostConfig.Memory`)."""
    return field.name.startswith(outer.name) and field.name[len(outer.name):][:1] in {".", "["}


def _unnamed_field(chunk: Chunk, asks: frozenset[str]) -> list[FieldFacts]:
    """The field a question naming none asks about: the page size of an operation that pages, for a limit;
    else the one input (not a path parameter) that carries the asked kind of fact, or the one such input that is
    no part of another (`limit`, not `limit[apps]`)."""
    if "limit" in asks and chunk.pagination is not None and chunk.pagination.size:
        return [size] if (size := page_size_field(chunk)) is not None else []
    inputs = [f for f in chunk.parameters if f.location != "path"] + list(
        chunk.request_body.fields if chunk.request_body else ())
    carrying = with_asked_fact(inputs, asks)
    # JSON:API's `limit` beside `limit[apps]`, `limit[builds]`: those limit what each result includes.
    plain = [field for field in carrying if "[" not in field.name and "." not in field.name]
    return next((found for found in (carrying, plain) if len(found) == 1), [])


def _stated_in_words(described: Sequence[FieldFacts], asks: frozenset[str]) -> list[FieldFacts]:
    """Of the fields whose description the question's words describe, those asked a limit whose description states a
    number ("how many recipients can one email have?": Postmark's `To`, "… Multiple addresses are comma separated.
    Max 50.")."""
    if "limit" not in asks:
        return []
    return [field for field in described if any(char.isdigit() for char in field.description)]


def with_asked_fact(fields: Sequence[FieldFacts], asks: frozenset[str]) -> list[FieldFacts]:
    """The named fields that carry the kind of fact asked for (a default, a limit, allowed values)."""
    def carries(field: FieldFacts) -> bool:
        return (("default" in asks and field.default is not None)
                or ("limit" in asks and bool(field.limits))
                or ("allowed_values" in asks and field.allows))
    return [field for field in fields if carries(field)]


def required_inputs(chunk: Chunk) -> list[FieldFacts]:
    """The parameters and body fields a request must send: a body's required fields also where the spec leaves the
    body itself optional (Vercel's `POST /v9/projects` requires `name` of a body it does not mark required)."""
    body = chunk.request_body
    return [p for p in chunk.parameters if p.required] + [f for f in (body.fields if body else ()) if f.required]


# The types of a body or response that name no schema: any value, an inline object, a choice among inline objects,
# none.
UNNAMED_TYPES = frozenset({"", "any", "object", "one of object", "any of object", "no body"})


def names_a_schema(label: str) -> bool:
    """Whether a body's or response's type says more than an inline object does (`EmployeesPaginated`, `array of
    Pet`, `one of SMS | Error`; not `object` or `one of object`)."""
    return label not in UNNAMED_TYPES


def returns_text(chunk: Chunk) -> str:
    """"200 with `EmployeesPaginated` (fields `next`, `data`)" from the first success response; a response of one
    object field names that object's fields too ("200 with `AccountsResponse` (fields `data` (fields `accounts`,
    `server_knowledge`))")."""
    response = next((r for r in chunk.responses if r.success), None)
    if response is None:
        return ""
    shown = [f for f in response.fields if not f.deprecated][:MAX_FIELDS]
    fields = [f"`{f.name}`" for f in shown]
    if len(shown) == 1 and (inner := [f"`{g.name}`" for g in shown[0].fields if not g.deprecated][:MAX_FIELDS]):
        fields = [f"`{shown[0].name}` (fields {', '.join(inner)})"]
    schema = f" with `{response.schema}`" if names_a_schema(response.schema) else ""
    return f"{response.code}{schema}" + (f" (fields {', '.join(fields)})" if fields else "")


def errors_text(chunk: Chunk) -> str:
    """"400 (`error_response_body`: The request contained errors); 404 …" from the responses that are not the
    operation's success; a spec naming no error code but a `default` response: "any error status (Error)"
    (Linode's); "" when the spec gives none."""
    failures = [r for r in chunk.responses if not r.success and r.code != "default"]
    if not failures:
        return next(("any error status" + response_text(r).removeprefix("default") for r in chunk.responses
                     if r.code == "default" and not r.success), "")
    return "; ".join(response_text(r) for r in failures[:MAX_FIELDS])


def response_text(response: ResponseFacts) -> str:
    """"400 (`error_response_body`: The request contained errors)": a response's code, with its schema and
    description where the spec gives them."""
    schema = f"`{response.schema}`" if names_a_schema(response.schema) else ""
    described = ": ".join(part for part in (schema, response.description.rstrip(".")) if part)
    return response.code + (f" ({described})" if described else "")


# An enum of more values than this is left to the quoted lines (a name list, not a value list, is the point).
BRIEF_ENUM = 4
# A body of at most this many fields shown is named down to the fields of its objects.
NESTED_BODY_FIELDS = 2


def sendable(field: FieldFacts) -> bool:
    """Whether a request may send the field: neither deprecated nor read-only."""
    return not field.deprecated and not field.read_only


def brief(field: FieldFacts, inner: bool = False) -> str:
    """`limit` (maximum 100, default 25): a field's name with its default, bounds and short enum, no pattern;
    `inner`: an object's own fields too (`shared_link` (fields `access` (one of open, company), `password`))."""
    facts = [fact for fact in value_facts(field, frozenset()) if not fact.startswith("pattern ")
             and not (fact.startswith("one of ") and len(field.enum or field.item_enum) > BRIEF_ENUM)]
    children = [child for child in field.fields if sendable(child)]
    if inner and children:
        facts.append("fields " + ", ".join(brief(child) for child in children[:MAX_FIELDS_SHOWN]))
    return f"`{field.name}`" + (f" ({', '.join(facts)})" if facts else "")


def sent_fields(chunk: Chunk) -> list[FieldFacts]:
    """The fields a request sends (`Chunk.input_fields`), with those of the objects its body's `oneOf` / `anyOf`
    allows."""
    return [*chunk.input_fields(), *alternative_fields(chunk)]


def required_alternatives(chunk: Chunk) -> list[list[FieldFacts]]:
    """The required fields of each object the request body's `oneOf` / `anyOf` allows, where the body has no
    fields of its own (DigitalOcean's Droplet create: `name`, `image`, `size` or `names`, `image`, `size`)."""
    body = chunk.request_body
    if body is None or body.fields or not body.alternatives:
        return []
    return [[f for f in alternative.fields if f.required] for alternative in body.alternatives]


def named_alternatives(body: RequestBodyFacts, question: str) -> list[BodyAlternative]:
    """The objects of the body's `oneOf` / `anyOf` whose name shares a word with the question ("how do I send a
    whatsapp message?": `text / whatsapp`, `image / whatsapp`, … of Vonage's 22); none when it names none, or all."""
    words = question_words(question)
    found = [alternative for alternative in body.alternatives if name_parts(alternative.name) & words]
    return found if len(found) < len(body.alternatives) else []


def with_named_body(example: RequestExample, body: RequestBodyFacts | None, question: str) -> RequestExample:
    """The request example; of a body that is one of several objects, with the body of the first the question
    names ("how do I send a whatsapp message?": Vonage's WhatsApp text, not its SMS)."""
    named = named_alternatives(body, question) if body is not None else []
    return replace(example, body=named[0].example) if named and named[0].example else example


def alternatives_text(body: RequestBodyFacts, stated: set[str], question: str = "") -> str:
    """"one of 2 bodies: `name`, `image`, `size` required (also `backups`, `ipv6`); or `names`, …": the objects the
    body's `oneOf` / `anyOf` allows, those requiring the same fields said once (named as the spec names them: "A,
    AAAA: `data`, `name`, `type` required"), with a few other fields of the first; only those the `question` names
    when it names some ("one of 22 bodies; those for whatsapp: …")."""
    named = named_alternatives(body, question)
    groups: dict[tuple[str, ...], list[BodyAlternative]] = {}
    for alternative in named or body.alternatives:
        groups.setdefault(tuple(f.name for f in alternative.fields if f.required), []).append(alternative)
    shown = []
    for must, members in list(groups.items())[:MAX_ALTERNATIVE_BODIES]:
        may = [f.name for f in members[0].fields if not f.required and sendable(f) and f.name not in stated]
        may = may[: max(0, MAX_FIELDS_SHOWN - len(must))]
        names = [m.name for m in members if m.name]
        said = f"{', '.join(f'`{name}`' for name in must)} required" if must else "no field required"
        said += f" (also {', '.join(f'`{name}`' for name in may)})" if may else ""
        if names:
            said = f"{', '.join(names)}: {said}"
        elif len(members) > 1:
            said += f" ({len(members)} of them)"
        shown.append(said)
    more = len(groups) - len(shown)
    head = f"one of {len(body.alternatives)} bodies"
    if named:
        words = question_words(question)
        head += "; those for " + " or ".join(sorted(set().union(*(name_parts(a.name) & words for a in named))))
    return f"{head}: " + "; or ".join(shown) + (f"; or {more} more" if more > 0 else "")


def body_text(body: RequestBodyFacts, must: Sequence[FieldFacts], stated: set[str], question: str = "") -> str:
    """"Body `ConnectSessionCreate` (required: `origin_owner_id`; also `expires_in`, `type`)": the body's schema
    (an inline `object` is no name), its required fields, then the others a request may send, at most
    `MAX_FIELDS_SHOWN` in all."""
    if not body.fields and body.alternatives:
        return "Takes " + alternatives_text(body, stated, question)
    body_is = f"Body `{body.schema}`" if names_a_schema(body.schema) else "Takes a request body"
    may = [f for f in body.fields if not f.required and sendable(f) and f.name not in stated][
        : max(0, MAX_FIELDS_SHOWN - len(must))]
    # A body of one or two fields (Box's `shared_link` object) is named down to the fields inside them.
    inner = len(must) + len(may) <= NESTED_BODY_FIELDS
    said = [f"required: {', '.join(brief(f, inner) for f in must)}"] if must else []
    if may:
        said.append(("also " if must else "fields ") + ", ".join(brief(f, inner) for f in may))
    return body_is + (f" ({'; '.join(said)})" if said else "")


def operation_detail(
    anchor: ContextBlock, stated: set[str], asked: Sequence[FieldFacts], question: str = ""
) -> tuple[str, frozenset[str]]:
    """The second line: the fields the question names that the sentence did not state, the inputs the
    operation requires, the query parameters it takes, the body it takes (of a body that is one of several
    objects, those the `question` names) and what it returns (each once); and what both lines state."""
    chunk = anchor.chunk
    parts: list[str] = []
    # Each name once, as the request sends it rather than as the response returns it (Asana's `data.followers`).
    named = one_per_name([field for field in asked if field.name not in stated], sent_fields(chunk))[:2]
    if named:
        parts.append("; ".join(field_facts_text(f) for f in named))
        stated = stated | {f.name for f in named}
    required = [p for p in chunk.parameters if p.required and p.name not in stated][:6]
    if required:
        parts.append("Requires " + ", ".join(f"`{p.name}` ({p.location})" for p in required))
    # Its own first: the parameters most of the API's operations share (Google's `alt`, `key`, `fields`) last.
    optional = sorted((p for p in chunk.parameters if not p.required and not p.deprecated and p.location == "query"
                       and p.name not in stated), key=lambda p: p.shared_by > 0)[:MAX_FIELDS_SHOWN]
    if optional:
        parts.append("Query parameters " + ", ".join(brief(p) for p in optional))
    body = chunk.request_body
    must: list[FieldFacts] = []
    stated_alternatives = bool(options := required_alternatives(chunk)) and all(
        f.name in stated for option in options for f in option)
    if body is not None and not stated_alternatives:  # the lead did not say which bodies it takes
        must = [f for f in body.fields if f.required and f.name not in stated][:6]
        parts.append(body_text(body, must, stated, question))
    returned = "" if "returns" in stated else returns_text(chunk)
    if returned:
        parts.append(f"Returns {returned}")
    stated = stated | {f.name for f in (*required, *must)} | ({"returns"} if returned else set())
    return (cited(". ".join(parts), anchor) if parts else ""), frozenset(stated)


# How many operations a partial answer offers beside the first.
ALTERNATIVES = 2


def offered_operations(anchor: ContextBlock, blocks: Sequence[ContextBlock]) -> list[ContextBlock]:
    """What a partial answer offers: the operation it is about, then at most `ALTERNATIVES` others (another
    structural id each) in the ranking's order. Offering only operations on a resource the question names was
    tried and lowered lead recall on our tuning sets (work-commerce 0.752 → 0.686, gitea-stripe 0.788 → 0.738) and on
    the blinded answers sets: the learned order is the better guess."""
    operations: dict[tuple[str, ...], ContextBlock] = {}
    for block in blocks:
        if is_operation(block):
            operations.setdefault(block.chunk.covers[:1], block)
    others = [block for block in operations.values() if block.chunk.covers[:1] != anchor.chunk.covers[:1]]
    return [anchor, *others[:ALTERNATIVES]]
