"""Write-operation check: does an operation exist that creates/updates/deletes what is asked about?

If a question asks how to create, update or delete a resource and the index has the resource
but no such operation, the answer must say so and list what does exist (e.g. LMS courses are
read-only: only `GET /unified/lms/courses` and `GET /unified/lms/courses/{id}`). The write verbs and the
methods that perform them: rag/data/question_words.toml.

The claim that something cannot be done is only made about what the write's object names ("remove the
first song from my playlist" writes a song, which no resource is, so nothing is claimed about playlists), and
an operation's effect is read from its path as well as its method (`POST /words/delete` deletes words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache

from rag.chunk import Chunk
from rag.corpus.path_words import is_item_path, path_action, resource_segments, segment_words
from rag.corpus.paths import last_segment_action, path_shape, resource_of
from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import function_words, normalize_term, singular, word_forms
from rag.facts import MissingWrite
from rag.query import Query
from rag.question_analysis import (
    POINTS_BACK,
    POSSESSIVE,
    WriteRequest,
    question_methods,
    requested_write,
    write_verbs,
)

_METHOD_ORDER = {"get": 0, "patch": 1, "put": 2, "post": 3, "delete": 4}


def _closeness(operation: Chunk, methods: tuple[str, ...]) -> tuple[int, int, int, str, str]:
    """Sort key: what a reader asking for `methods` most likely wants instead, first.

    Updating or deleting acts on one item, so the item paths (`…/{id}`) come first; creating acts
    on the collection. Shorter (less nested) paths before longer ones.
    """
    item_level = any(method in ("patch", "delete") for method in methods)
    is_item = is_item_path(operation.path)
    return (
        0 if is_item == item_level else 1,
        operation.path.count("/"),
        _METHOD_ORDER.get(operation.method, 5),
        operation.api,
        operation.path,
    )


@lru_cache(maxsize=65536)
def write_target(method: str, path: str) -> tuple[str, frozenset[str]]:
    """The resource an operation acts on and the methods its effect amounts to. A POST or PUT whose path ends
    in a write verb is that write on the segment before it (`POST /words/delete` deletes words, `POST
    /joke/tags/add` adds tags); any other operation acts on its path's resource with its own method."""
    segments = resource_segments(path)
    verb, _ = path_action(path)
    if verb and method != "get":  # `PUT /files/{file_id}#remove_shared_link` removes the file's shared link
        return resource_of(path), frozenset(write_verbs().get(verb) or (method,))
    # The segment's last word: `/messages/bulk-delete` deletes messages as `/words/delete` deletes words.
    words = segment_words(segments[-1]) if len(segments) >= 2 and method in ("post", "put") else []
    performs = write_verbs().get(words[-1].lower()) if words else None
    if performs:
        return resource_of("/" + "/".join(segments[:-1])), frozenset(performs)
    return resource_of(path), frozenset({method})


# A parameter written after a segment's own words (Buffer's `/updates/create{mediaTypeExtension}`, a `.{format}`):
# the response's format, not what the operation acts on.
_PLACEHOLDER_SUFFIX = re.compile(r"^([^{}]+?)\.?\{[^{}]*\}$")


def _without_format_parameters(path: str) -> str:
    """The path with the parameter after each segment's own words left out (`/updates/create{ext}` →
    `/updates/create`); a segment that is a parameter stays (`{index}.{diffType}`)."""
    base, hash_, fragment = path.partition("#")
    return "/".join(_PLACEHOLDER_SUFFIX.sub(r"\1", segment) for segment in base.split("/")) + hash_ + fragment


@lru_cache(maxsize=65536)
def _written_by(method: str, path: str) -> tuple[str, frozenset[str], frozenset[str]]:
    """What an operation writes, for the check: `write_target`'s resource and methods, a POST to one item read as
    the update it is in many APIs (Twilio's `POST /Messages/{Sid}.json` edits a message), and the words of the
    path segment above the resource (`templates` of `/templates/sms`; for `POST /words/delete`, above `words`)."""
    path = _without_format_parameters(path)
    resource, methods = write_target(method, path)
    segments = resource_segments(path)
    if resource != resource_of(path):
        segments = segments[:-1]  # the path ends in the write verb, not in the resource
    elif (named := _verb_first(method, path)) is not None:
        resource, methods = named
    elif (dotted := last_segment_action(path))[0]:  # `/product.delete.json`, `/deletePad` delete
        resource = normalize_term("_".join(dotted[1]))
        methods = frozenset(write_verbs().get(dotted[0]) or (method,))
    if method == "post" and is_item_path(path):
        methods = methods | {"patch", "put"}
    above = segment_words(segments[-2]) if len(segments) > 1 else []
    item = segment_words(_item_segment(path))
    # each word of the segment above, and its whole name (`access_request` of `/access_requests/{user_id}/approve`);
    # the same of the item the path descends from where a segment lies between (`server` of `/servers/{id}/actions/x`)
    owners = [*above, "_".join(above)] + ([*item, "_".join(item)] if item != above else [])
    return resource, methods, frozenset(normalize_term(word) for word in owners if word)


def _item_segment(path: str) -> str:
    """The segment that names the collection of the last item a path descends from (`servers` of
    `/servers/{id}/actions/reboot`); "" for a path with no item parameter before its last segment."""
    parts = path.split("#", 1)[0].rstrip("/").split("/")
    items = [i for i, part in enumerate(parts[:-1]) if part.startswith("{")]
    if not items or items[-1] < 2 or parts[items[-1] - 1].startswith("{"):
        return ""
    return parts[items[-1] - 1]


def _verb_first(method: str, path: str) -> tuple[str, frozenset[str]] | None:
    """The write a path's last segment that starts with a write verb names, on the words after it: Asana's `POST
    /tasks/{task_gid}/addDependencies` adds dependencies (a task's), `…/removeFollowers` removes followers. None for
    a GET, a segment of one word or one whose first word is no write verb, or a path that ends in an item's parameter
    (its segment names a collection: Rudder's `/changeRequests/{changeRequestId}` changes no requests)."""
    segments = resource_segments(path)
    words = segment_words(segments[-1]) if segments and method in ("post", "put", "patch") and not is_item_path(
        path) else []
    if len(words) == 1:
        words = _joined_verb(words[0].lower()) or words
    performs = write_verbs().get(words[0].lower()) if len(words) >= 2 else None
    if not performs:
        return None
    named = "_".join(word.lower() for word in words[1:])
    return resource_of("/" + "/".join([*segments[:-1], named])), frozenset(performs)


# A write verb run together with what it writes (Billbee's `updatestock`): a verb this long, then a word this long,
# so that `addresses` or `settings` are no `add` or `set` of anything.
JOINED_VERB_LETTERS, JOINED_WORD_LETTERS = 5, 4


@cache
def _long_write_verbs() -> tuple[str, ...]:
    """The write verbs (`write_verbs`) of `JOINED_VERB_LETTERS` letters or more, the longest first."""
    return tuple(sorted((v for v in write_verbs() if len(v) >= JOINED_VERB_LETTERS), key=len, reverse=True))


def _joined_verb(word: str) -> list[str]:
    """`updatestock` → [update, stock]: a lower-case segment that begins with a write verb (`write_verbs`); [] for
    any other."""
    verb = next((v for v in _long_write_verbs() if word.startswith(v)), "")
    rest = word[len(verb):]
    return [verb, rest] if verb and len(rest) >= JOINED_WORD_LETTERS else []


@lru_cache(maxsize=65536)
def _owned_name(method: str, path: str) -> str:
    """For an operation whose last segment starts with a write verb, the resource it writes named with the item it
    belongs to (`POST /servers/{id}/actions/change_type` changes a server's type: `server_type`); "" for any other
    operation or a path with no item before that segment."""
    named = _verb_first(method, path)
    if named is None:
        return ""
    owner = "_".join(singular(word.lower()) for word in segment_words(_item_segment(path)))
    return f"{owner}_{named[0]}" if owner else ""


def _item_named(path: str, written: str) -> str:
    """The resource the identifier ending a path names, where the operation acts on that item (its `written` resource
    is the path's: `app` of `DELETE /self/applications/{appId}`; not of `PUT /files/{file_id}#remove_shared_link`,
    which writes a link); "" for a path that ends in no parameter or in one that names nothing but an id (`{id}`)."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    words = segment_words(last[1:-1]) if last.startswith("{") and last.endswith("}") else []
    if len(words) < 2 or words[-1] != "id" or written != resource_of(path):
        return ""
    return normalize_term("_".join(words[:-1]))


def _forms(part: str) -> frozenset[str]:
    """The forms of one word of a resource name (`batche`, from `batches`, is also `batch`)."""
    return word_forms(part) | word_forms(part + "s")


def written_resource(words: Sequence[str], resources: dict[str, frozenset[str]]) -> str | None:
    """The resource the object words name, of `resources` (each with the words of the path segment above it).

    English names the thing at the end of a noun phrase ("an interview note" is a note, "the first song" a
    song), so that last content word must be the resource's last word or, for a resource filed under another
    (`/templates/sms`: "an SMS template"), its parent's; every word of the resource's name must be among the
    object's (`time_off_balance` ← "an employee time off balance"). Of several, the one of most words, then
    the one named word for word rather than by a stem. When the last word names none, an owner may ("a CRM
    account's details" updates the account). None when the object names no resource."""
    owners = _owners(words)
    words = [word for word in words if word != POSSESSIVE]
    content = [word for word in words if word not in function_words()]
    for head in dict.fromkeys(content[-1:] + owners[::-1]):
        found = _named_resource(words, word_forms(head), resources)
        if found is not None:
            return found
    return None


def _named_resource(words: Sequence[str], head: frozenset[str], resources: dict[str, frozenset[str]]) -> str | None:
    forms = [word_forms(word) for word in words]
    exact = {normalize_term(word) for word in words}
    best: tuple[tuple[int, int, str], str] | None = None
    for resource, parents in resources.items():
        parts = [part for part in resource.split("_") if part]
        if not parts or all(part in function_words() for part in parts):
            continue
        if not all(any(_forms(part) & word for word in forms) for part in parts):
            continue
        if not (_forms(parts[-1]) & head or any(_forms(parent) & head for parent in parents)):
            continue
        key = (len(parts), sum(part in exact for part in parts), resource)
        if best is None or key > best[0]:
            best = (key, resource)
    return best[1] if best else None


UPDATES = frozenset({"patch", "put"})
# A path segment naming an API version (`v1`, `v2beta1`), never a kind of record.
_VERSION = re.compile(r"v\d+(?:(?:alpha|beta)\d*)?")


def _updates_a_part(acting: Sequence[Chunk], operations: Sequence[Chunk]) -> bool:
    """Whether an operation updates a part of one of the resource's items: a PATCH or PUT on a path below the item's
    that names no other item (`PUT /playback-restrictions/{id}/referrer` updates a restriction's referrer; not
    `PUT /courses/{id}/enrollments/{enrollment_id}`, which updates an enrollment)."""
    items = {op.path.rstrip("/") for op in acting if op.path and is_item_path(op.path)}
    updates = [op.path for op in operations if (op.method or "").lower() in UPDATES and op.path]
    return any(path.startswith(item + "/") and "{" not in path[len(item):] for path in updates for item in items)


def _an_action_on_its_parent(
    acting: Sequence[Chunk],
    above: frozenset[str],
    methods: Sequence[str],
    operations: Sequence[Chunk],
    effects: dict[int, tuple[str, frozenset[str], frozenset[str]]],
) -> bool:
    """Whether what the object names is an action on, or one view of, what is above it, no records: nothing
    addresses one of it, nothing reads it unless it is a view, and an operation on what is above (`above`) performs
    the write (Postmark's `POST /templates/validate`: "how do I delete it?" after validating a template deletes the
    template; GitLab's `PUT …/access_requests/{user_id}/approve`: "remove them" removes the access requests)."""
    if not acting or any(is_item_path(op.path) for op in acting):
        return False
    if any(op.method.lower() == "get" for op in acting) and not _a_view_of_an_item(acting):
        return False
    return any(effects[id(op)][0] in above and effects[id(op)][1] & set(methods) for op in operations)


def _a_view_of_an_item(acting: Sequence[Chunk]) -> bool:
    """Whether the operations only read one thing of an item, named in the singular right after the item's
    parameter (GitLab's `GET …/snippets/{snippet_id}/raw`: "delete it" after reading it deletes the snippet; not
    `GET …/projects/{id}/languages`, a set of records, which "delete them" asks to delete)."""
    for op in acting:
        parts = op.path.rstrip("/").split("/")
        words = segment_words(parts[-1])
        if op.method.lower() != "get" or len(parts) < 2 or not parts[-2].startswith("{") or not words \
                or singular(words[-1].lower()) != words[-1].lower():
            return False
    return True


def _owners(words: Sequence[str]) -> list[str]:
    """The words the object's possessives name as owners (`order` of "an order's status")."""
    return [words[i - 1] for i, word in enumerate(words) if word == POSSESSIVE and i > 0]


def _updates_as_a_field(
    resource: str,
    owners: Sequence[str],
    operations: Sequence[Chunk],
    effects: dict[int, tuple[str, frozenset[str], frozenset[str]]],
) -> bool:
    """Whether an update sends the resource as one of its fields: Jumpseller's `PUT /orders/{id}.json` sends
    `order.status`, so "change an order's status" is done there although `/orders/status/{status}.json` only reads.
    With owners named ("an order's"), only an update of what an owner names counts."""
    owned = [word_forms(owner) for owner in owners]
    for op in operations:
        written, methods, _ = effects[id(op)]
        if not methods & UPDATES or (owned and not any(_forms(written.split("_")[-1]) & forms for forms in owned)):
            continue
        names = {field.name.rsplit(".", 1)[-1] for field in op.input_fields() if field.location in ("", "query")}
        if any(normalize_term("_".join(segment_words(name))) == resource for name in names):
            return True
    return False


def _item_above_does_it(
    pointed: str, methods: Sequence[str], operations: Sequence[Chunk],
    effects: dict[int, tuple[str, frozenset[str], frozenset[str]]],
) -> bool:
    """Whether "delete it" after acting on one setting of an item asks it of the item: SwaggerHub's `PUT
    /apis/{owner}/{api}/{version}/settings/lifecycle` publishes a version and keeps no records of its own (a
    singular name, no path below it), so "delete it" is the version's `DELETE /apis/{owner}/{api}/{version}`. A
    collection below an item (`/projects/{id}/pipelines`, `/repos/{id}/hooks/{hook_id}`) holds records of its own."""
    shape = path_shape(pointed)
    named = segment_words(shape.rsplit("/", 1)[-1])
    if not named or singular(named[-1]) != named[-1] or any(
            path_shape(op.path or "").startswith(shape + "/") for op in operations):
        return False
    parts = shape.split("/")
    item_end = max((i for i, part in enumerate(parts) if part == "{}"), default=-1)
    if item_end < 0 or item_end == len(parts) - 1:
        return False
    item = "/".join(parts[:item_end + 1])
    return any(path_shape(op.path or "") == item and effects[id(op)][1] & set(methods) for op in operations)


def _written_as_a_field(verb: str, resource: str, operations: Sequence[Chunk]) -> bool:
    """Whether a write's request sends a field named for the verb and the resource: Stream's `POST
    /channels/{type}/{id}` (Update channel) takes `add_members`, so "add a member to one" is done there."""
    forms = word_forms(verb)
    for op in operations:
        if op.method.lower() not in ("post", "put", "patch"):
            continue
        for field in op.input_fields(top_only=True):
            words = segment_words(field.name.rsplit(".", 1)[-1])
            if len(words) > 1 and words[0] in forms and normalize_term("_".join(words[1:])) == resource:
                return True
    return False


def _said_to_update_below(resource: str, operations: Sequence[Chunk]) -> bool:
    """Whether an operation on a path one segment below an item of the resource says in its summary that it updates
    something (Adyen's `POST /payments/{paymentPspReference}/amountUpdates`, "Update an authorised amount": "change
    the amount" of a payment is done there, though no PATCH or PUT is on a payment's path)."""
    for op in operations:
        parts = (op.path or "").rstrip("/").split("/")
        below_an_item = len(parts) >= 4 and "{" not in parts[-1] and parts[-2].startswith("{") \
            and not parts[-3].startswith("{")
        if (op.method or "get").lower() == "get" or not below_an_item \
                or resource_of("/" + parts[-3]) != resource:
            continue
        said = _summary_write(op.summary)
        if said is not None and set(said.methods) <= UPDATES:
            return True
    return False


@lru_cache(maxsize=65536)
def _summary_write(summary: str) -> WriteRequest | None:
    """The write an operation's summary says it performs ("Register New Agent": create, an agent), read as a
    question's write is (lower-cased: a summary's capitals are no names)."""
    return requested_write(summary.lower()) if summary else None


def _said_to_write(resource: str, parents: frozenset[str], methods: Sequence[str], operations: Sequence[Chunk]) -> bool:
    """Whether an operation that writes says in its summary that it performs the same write (its verb's methods the
    question's: "Update User" adds no user) on the resource, whatever its path: SpaceTraders' `POST /register`
    ("Register New Agent") creates the agent that `GET /my/agent` reads."""
    for op in operations:
        said = _summary_write(op.summary) if (op.method or "get").lower() != "get" else None
        if said and set(said.methods) == set(methods) and written_resource(said.object, {resource: parents}):
            return True
    return False


def check_write_operation(
    query: Query | str, profile: CorpusProfile, apis: tuple[str, ...] = ()
) -> MissingWrite | None:
    """A MissingWrite fact when the resource the write's object names exists among the operations of `apis`
    (all when empty) but none of them performs the write; else None. The earlier turn's write is not claimed
    missing of what a follow-up points back to ("and scale it down to 2 nodes?" after adding a node pool does
    something of its own to the pool, whatever its verb)."""
    query = Query.of(query)
    request = query.analysis.write
    # A follow-up with a verb of its own ("read one item" after "add an item to it") asks for that, not the write.
    if request is None or (request.carried and (POINTS_BACK.search(query.focus) or question_methods(query.focus))):
        return None
    operations = [op for op in profile.operations if not apis or op.api in apis]
    effects = {id(op): _written_by(op.method or "", op.path or "") for op in operations}
    owned = {id(op): _owned_name(op.method or "", op.path or "") for op in operations}
    parents: dict[str, frozenset[str]] = {name: frozenset() for name in owned.values() if name}
    for name, _, parent in effects.values():
        parents[name] = parents.get(name, frozenset()) | parent
    resource = written_resource(request.object, parents)
    if resource is None or _VERSION.fullmatch(resource):  # `/apis/apps/v1/` lists an API version's resources
        return None
    # `POST /servers/{id}/actions/change_type` writes a `type` and, named with its item, a `server_type`; `DELETE
    # /self/applications/{appId}` deletes an app as well as an application.
    acting = [op for op in operations
              if resource in (effects[id(op)][0], owned[id(op)], _item_named(op.path or "", effects[id(op)][0]))]
    if any(effects[id(op)][1] & set(request.methods) for op in acting):
        return None
    if set(request.methods) <= UPDATES and _updates_a_part(acting, operations):
        return None
    if set(request.methods) <= UPDATES and _updates_as_a_field(resource, _owners(request.object), operations, effects):
        return None
    if set(request.methods) <= UPDATES and _said_to_update_below(resource, operations):
        return None
    if _an_action_on_its_parent(acting, parents.get(resource, frozenset()), request.methods, operations, effects):
        return None
    # "remove it" after verifying a domain (`POST …/domains/{domain}/verify`) asks about that domain, whatever
    # another path of the same name does (Vercel's `GET /registration/verify`).
    pointed = [op for op in acting if op.path == request.pointed]
    if pointed and _an_action_on_its_parent(pointed, effects[id(pointed[0])][2], request.methods, operations, effects):
        return None
    if request.pointed and _item_above_does_it(request.pointed, request.methods, operations, effects):
        return None
    if _said_to_write(resource, parents.get(resource, frozenset()), request.methods, operations):
        return None
    if _written_as_a_field(request.verb, resource, operations):
        return None
    existing = tuple(sorted(acting, key=lambda op: _closeness(op, request.methods)))
    return MissingWrite(request.verb, resource, request.methods, existing, _spoken(resource, request.object))


def _spoken(resource: str, words: Sequence[str]) -> str:
    """The resource in the object's own words, each singular (`statu` ← "the statuses": status); a part no word
    names in its own words."""
    spoken = []
    for part in resource.split("_"):
        word = next((w for w in words if _forms(part) & word_forms(w)), part)
        spoken.append(singular(word.lower()))
    return " ".join(spoken)
