"""Where a follow-up's words point from the conversation's subject (the operation the last answer was about): one
member of the collection it acts on, what its API keeps under the subject's item or does to the whole collection,
the same action on another resource, another API's resource. The follow-up rewrite (rag.rewrite) reads them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.chunk import Chunk, FieldFacts
from rag.corpus.path_words import is_item_path, resource_segments, segment_words
from rag.corpus.paths import named_segments, path_shape, path_terms, resource_words_of
from rag.corpus.vocabulary import function_words, operation_words, singular, topic_keys, word_forms
from rag.data import data_table
from rag.question_analysis import question_methods


def segment_keys(segment: str, whole: bool = False) -> frozenset[str]:
    """The topic keys a question names a path segment by: its words joined and (unless `whole`) its last word,
    each as written, singular and plural (`signed-url` → signed_url, url, urls …)."""
    words = resource_words_of(segment)
    if not words:
        return frozenset()
    named = {"_".join(words)} if whole else {"_".join(words), words[-1]}
    keys = {key for word in named for key in (word, singular(word))}
    return frozenset(keys | {f"{key}s" for key in keys})


def resource_words(operations: Sequence[Chunk], api: str) -> frozenset[str]:
    """The words of the resources `api`'s operations act on (`/guilds/{guild_id}/bans` → guild, ban)."""
    return frozenset().union(*(path_terms(chunk.path) for chunk in operations if chunk.api == api and chunk.path))


def member_operation(subject: Chunk, methods: set[str], operations: Sequence[Chunk]) -> Chunk | None:
    """The operation of the subject's API on one member of the collection the subject acts on: its path is the
    subject's with a parameter added (`GET /employees` → `GET /employees/{id}`), its method one of `methods` (the
    subject's own when the question's verbs name none); None when the subject acts on no collection or no such
    operation is indexed. When the subject's collection is one under an item and no path adds a parameter to it: a
    write that collection takes itself (it writes its members), else a member addressed by a path of its own."""
    wanted = methods or {subject.method.lower()}
    shape = path_shape(subject.path) + "/{}"
    fits = [operation for operation in operations
            if operation.api == subject.api and operation.method.lower() in wanted and operation.covers]
    own = next((operation for operation in fits if path_shape(operation.path) == shape), None)
    if own is None and subject.method.lower() == "post" and not is_item_path(subject.path):
        # An action done to a collection (Crucible's `POST …/comments/markAllAsRead`): one of the collection's own.
        above = path_shape(subject.path).rpartition("/")[0] + "/{}"
        own = next((operation for operation in fits if path_shape(operation.path) == above), None)
    if own is not None or shape.endswith("{}/{}") or "{" not in shape[:-3]:
        return own
    # A write the collection under an item takes itself does it to its members (Jellyfin's `DELETE
    # /Playlists/{playlistId}/Items` removes entries; `DELETE /Items/{itemId}` deletes the file from the library).
    itself = [operation for operation in fits if operation is not subject and path_shape(operation.path) == shape[:-3]]
    if itself and "get" not in wanted:
        return itself[0]
    # A collection under an item whose members are addressed on their own (Adyen's `GET
    # /balancePlatforms/{id}/accountHolders`, one holder at `/accountHolders/{id}`): the one such path.
    elsewhere = _members_of(shape[:-3], subject.api, fits)
    return elsewhere[0] if len(elsewhere) == 1 else None


# "a single payment", "one payment": one member of a collection, named by the collection's own word
_ONE_MEMBER = re.compile(r"\b(?:a single|one single|a specific|an individual|just one|one)\s+([a-z]+)\b", re.I)


def names_one_member(question: str, subject: Chunk) -> bool:
    """Whether the question asks for one member of the collection the subject acts on by its own word ("show me a
    single payment" after listing an account's payments), as "one" alone does ("show me one")."""
    own = last_resource_terms(subject.path)
    return any(singular(match.group(1).lower()) in own for match in _ONE_MEMBER.finditer(question))


def collection_create(subject: Chunk, methods: set[str], operations: Sequence[Chunk]) -> Chunk | None:
    """The `POST` of the collection the subject acts on (`GET /projects/{id}/environments` → `POST
    /projects/{id}/environments`) when `methods` (the question's) ask for one: adding one to a collection is done
    there, not by the `PUT` of a member; None when the subject acts on an item or no such operation is indexed."""
    if "post" not in methods or not subject.path or is_item_path(subject.path):
        return None
    shape = path_shape(subject.path)
    return next((operation for operation in operations if operation.api == subject.api and operation.covers
                 and operation.method.lower() == "post" and path_shape(operation.path) == shape), None)


def _said_words(operation: Chunk) -> list[str]:
    """The words of what an operation says it does (its summary, else its operationId, else the last of two or more
    fixed segments its path ends in: Mandrill's `POST /templates/publish.json` publishes), a word written with a
    hyphen as one ("Re-run build": rerun)."""
    said = operation_words(operation.summary, operation.operation_id, "", "").lower()
    segments = resource_segments(operation.path or "")
    if not said and len(segments) > 1 and not is_item_path(operation.path or ""):
        said = " ".join(segment_words(segments[-1]))
    return [word.replace("-", "") for word in re.findall(r"[a-z]+(?:-[a-z]+)*", said)]


def done_by_another(subject: Chunk, action: str, operations: Sequence[Chunk]) -> bool:
    """Whether `action` (the verb a follow-up asks to do, "disable") opens, in any of its forms, what another
    operation of the subject's API does (`Disable project's runner`, `Approves an access request`) and not what the
    subject does (`Enable a runner for a project`)."""
    def verb(operation: Chunk) -> frozenset[str]:
        words = _said_words(operation)
        return word_forms(words[0]) if words else frozenset()

    if not action or action in verb(subject):
        return False
    return any(operation.api == subject.api and operation is not subject and action in verb(operation)
               for operation in operations)


def action_operation(subject: Chunk, action: str, operations: Sequence[Chunk]) -> Chunk | None:
    """The one other operation of the subject's API that says it does `action` (a verb no word of HTTP's own
    vocabulary is, in any of its forms, anywhere in its summary or operationId) on what the subject acts on: its
    path names the subject's last resource or ends in the subject's item parameter, one that names a resource of the
    API (`{planExecutionId}`, not `{identifier}`). "execute it" after fetching a
    pipeline (`GET /pipelines/v2/{pipelineIdentifier}`) is `POST /pipeline/execute/{identifier}` (`Execute a
    Pipeline …`), "abort it" after reading an execution (`GET …/execution/v2/{planExecutionId}`) `PUT
    …/interrupt/{planExecutionId}` (`Interrupt a pipeline execution (abort, pause, resume)`). None when the subject
    says it does it, or no operation, or more than one, does."""
    verbs = data_table("question_words")["verbs"]
    if not action or action in verbs:
        return None
    wanted = word_forms(action)

    def does(operation: Chunk) -> bool:  # a noun of the act ("Fetch Execution Details", "Retrieve a refund") does not
        words = _said_words(operation)
        return any(wanted & word_forms(word) for before, word in zip(["", *words], words, strict=False)
                   if not word.endswith("tion") and before not in _DETERMINERS)

    if not subject.path or does(subject):
        return None
    # an RPC path's verb (Plaid's `/payment/get`, Mandrill's `/templates/add.json`) names no resource: the segment
    # before it does
    resource, item = last_resource_terms(subject.path) - set(verbs), _item_parameter(subject.path)
    if not resource and "/" in subject.path.rstrip("/"):
        resource = last_resource_terms(subject.path.rstrip("/").rsplit("/", 1)[0]) - set(verbs)
    if not {singular(word) for word in segment_words(item)} & resource_words(operations, subject.api):
        item = ""  # a parameter any item may end in (`{identifier}`, `{id}`) says nothing of which
    found = [operation for operation in operations
             if operation.api == subject.api and operation is not subject and operation.covers and operation.path
             and (resource & path_terms(operation.path) or (item and _item_parameter(operation.path) == item))
             and does(operation)]
    return found[0] if len(found) == 1 else None


_DETERMINERS = frozenset({"a", "an", "the", "its", "their", "this", "that", "each", "every", "one"})


def last_resource_terms(path: str) -> frozenset[str]:
    """The words of a path's last resource segment, singular (`/projects/{id}/environments` → environment), a
    version's segment passed over (`/pipelines/v2/{id}` → pipeline)."""
    named = named_segments(path)
    return path_terms("/" + "/".join(named[-1:]))


def _item_parameter(path: str) -> str:
    """The parameter a path ends in (`planExecutionId` of `…/execution/v2/{planExecutionId}`), "" for none."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return last[1:-1] if last.startswith("{") and last.endswith("}") else ""


def _members_of(collection: str, api: str, operations: Sequence[Chunk]) -> list[Chunk]:
    """The operations of `api` on one member of a collection (its path shape, `/balancePlatforms/{}/accountHolders`)
    wherever a path addresses one (`/accountHolders/{}`, or under the collection itself)."""
    member = "/" + collection.rsplit("/", 1)[-1] + "/{}"
    return [operation for operation in operations
            if operation.api == api and operation.path and path_shape(operation.path).endswith(member)]


def sole_write(operation: Chunk, operations: Sequence[Chunk]) -> Chunk | None:
    """The one operation that writes (POST, PUT or PATCH) the path `operation` acts on (`POST …/comments` beside `GET
    …/comments`); None when none or several do (Kubernetes' `…/scale`: `PUT` and `PATCH`)."""
    shape = path_shape(operation.path)
    writes = [other for other in operations if other.api == operation.api and other.covers and other.path
              and path_shape(other.path) == shape and other.method.lower() in ("post", "put", "patch")]
    return writes[0] if len(writes) == 1 else None


def named_keys(question: str) -> set[str]:
    """The topic keys of the question's words that may name a resource, and each word's forms ("selling" names
    SpaceTraders' `…/sell`): not its verbs of HTTP's own vocabulary ("and how do I list them all?" names no
    `/boards/{id}/lists`) nor English's own words."""
    verbs = set(data_table("question_words")["verbs"])
    kept = [word for word in re.findall(r"[a-z0-9_]+", question.lower())
            if word not in function_words() and not word_forms(word) & verbs]
    return topic_keys(" ".join(kept)).union(*(word_forms(word) for word in kept))


# "its payment instruments": a possessive pointing back to what the subject belongs to.
_POSSESSIVE = re.compile(r"\b(?:its|their)\b", re.IGNORECASE)


def points_to_owner(question: str) -> bool:
    """Whether the question names what something it points back to has ("then list its payment instruments")."""
    return bool(_POSSESSIVE.search(question))


def named_under(subject: Chunk, keys: set[str], operations: Sequence[Chunk], owner: bool = False
                ) -> list[tuple[tuple[bool, bool, bool], Chunk]]:
    """The operations of the subject's API on what it keeps under one item of the subject's resource, or on an
    action of the whole collection (one segment after it), whose last segment the question names (`keys`, its topic
    keys), each with its rank: under the subject's own path, the segment named whole (`cards`, not `moveAllCards`),
    and kept directly (not behind a segment that groups). After `POST /boards/{idBoard}/lists`, "a card" names
    `/lists/{idList}/cards` (Trello keeps a list's cards there); after VictorOps' `GET /api-reporting/v2/incidents`,
    "ack them" names `/api-public/v1/incidents/ack`. Where nothing under that item is named and the question names
    what something has (`owner`, `points_to_owner`), what is kept under the item the subject's collection belongs
    to: "then list its payment instruments" after adding a sweep to an Adyen balance account (`POST
    /balanceAccounts/{id}/sweeps`) names `/balanceAccounts/{id}/paymentInstruments`; not "how do I give one of them
    to a member?" after listing a guild's roles."""
    item, own = _kept_item(subject, operations), path_shape(subject.path)
    found = [(rank, operation) for rank, operation in _named_under_item(subject, item, keys, operations)
             if path_shape(operation.path) != own]  # what the subject acts on is not kept under it
    parent = own.rpartition("/")[0]
    if owner and not found and not is_item_path(subject.path) and parent.endswith("/{}") and parent != item:
        found = [(rank, operation) for rank, operation in _named_under_item(subject, parent, keys, operations)
                 if not path_shape(operation.path).startswith(own)]
    return found


def _named_under_item(subject: Chunk, item: str, keys: set[str], operations: Sequence[Chunk]
                      ) -> list[tuple[tuple[bool, bool, bool], Chunk]]:
    segments = item.split("/")
    named = [i for i, segment in enumerate(segments) if segment and segment != "{}"]
    if not named or named[-1] == len(segments) - 1:
        return []
    # the item's last named segment and the parameters that follow it: `/lists/{}/`, Bitbucket's
    # `/repositories/{}/{}/` (a workspace's and a repository's)
    resource = "/" + "/".join(segments[named[-1]:]) + "/"
    collection = resource.removesuffix("{}/")  # `/lists/`
    found = []
    groups: dict[str, bool] = {}  # each segment's `_groups`, worked out once
    for operation in operations:
        path = path_shape(operation.path) if operation.path else ""
        if resource in path:
            rest = path.rpartition(resource)[2].split("/")
            # one segment and perhaps one of its items; or one behind a segment that only groups (JSON:API's
            # `/betaGroups/{id}/relationships/builds`)
            if rest[1:] not in ([], ["{}"]) and (len(rest) != 2 or "{" in rest[1] or not _groups(
                    rest[0], subject.api, operations, groups)):
                continue
            segment = resource_segments(operation.path)[-1]
        elif collection in path and "/" not in (action := path.rpartition(collection)[2]):
            rest = [action]  # an action on the whole collection (`/incidents/ack`), named as its path writes it
            segment = operation.path.rstrip("/").rsplit("/", 1)[-1]
        else:
            continue
        if operation.api != subject.api or not operation.covers or not rest[0] or "{" in rest[0]:
            continue
        if segment_keys(segment) & keys:
            direct = rest[1:] in ([], ["{}"])  # not behind a segment that groups
            found.append(((path.startswith(item + "/"), bool(segment_keys(segment, whole=True) & keys), direct),
                          operation))
    return found


def _groups(segment: str, api: str, operations: Sequence[Chunk], known: dict[str, bool], min_owners: int = 3
            ) -> bool:
    """Whether a path segment only groups what items keep: it follows the items of at least `min_owners` different
    resources of the API (`relationships` of `/builds/{id}/relationships/…`, `/users/{id}/relationships/…`), not one
    resource's own (Twilio's `/Accounts/{AccountSid}/Usage/Records.json`). `known` keeps the answers given."""
    if segment in known:
        return known[segment]
    owners = {shape.rpartition(f"/{{}}/{segment}/")[0].rsplit("/", 1)[-1]
              for operation in operations if operation.api == api and operation.path
              for shape in [path_shape(operation.path) + "/"] if f"/{{}}/{segment}/" in shape}
    known[segment] = len(owners) >= min_owners
    return known[segment]


def _kept_item(subject: Chunk, operations: Sequence[Chunk]) -> str:
    """The path shape of one item of what the subject acts on: its own path's on an item (`/lists/{}`), one member's
    of its collection (`/boards/{}/lists` → `/boards/{}/lists/{}`, though Trello addresses a list at `/lists/{}`);
    for an action on an item, no collection (no path of its API addresses one of a `dock`), that item (SpaceTraders'
    `/my/ships/{}/dock` → `/my/ships/{}`)."""
    shape = path_shape(subject.path)
    if is_item_path(subject.path):
        # Bitbucket's `/snippets/{workspace}` holds a workspace's snippets, one at `/snippets/{workspace}/{encoded_id}`
        deeper = any(op.api == subject.api and op.path and (path_shape(op.path) + "/").startswith(shape + "/{}/")
                     for op in operations)
        return shape + "/{}" if deeper else shape
    parent, _, last = shape.rpartition("/")
    member = f"/{last}/{{}}"
    if parent.endswith("/{}") and not any(
            op.api == subject.api and op.path and member in path_shape(op.path) + "/" for op in operations):
        return parent
    return f"{shape}/{{}}"


def subresource_operation(subject: Chunk, keys: set[str], methods: set[str], operations: Sequence[Chunk],
                          owner: bool = False, action: str = "") -> Chunk | None:
    """The best ranked of `named_under` (`GET /Quotes/{QuoteID}/pdf` for "and as a pdf?" after `GET
    /Quotes/{QuoteID}`) among those done by the question's `methods`, else the subject's method, else GET, else,
    when the question asks an action (`action`, `asked_action`), any: "ack them" is done by whatever method `…/ack`
    takes, "how do I send those?" after creating a Netlify deploy by `PUT /deploys/{deploy_id}/files/{path}`; "only
    the merged ones" asks no `POST …/merge`. Of several, the one not on a single item. None when none, or more than
    one, fits."""
    found = named_under(subject, keys, operations, owner)
    if not found and action and not owner and subject.method.lower() != "get":
        # "watch it" after commenting on a snippet: the action the question asks, done to what the subject was
        # written under ("and archive it?" after reading a list's cards archives a card, not the list)
        found = named_under(subject, keys & word_forms(action), operations, True)
    for wanted in [methods] if methods else [{subject.method.lower()}, {"get"}, *([None] if action else [])]:
        doing = [(rank, operation) for rank, operation in found if wanted is None or operation.method.lower() in wanted]
        best = max((rank for rank, _ in doing), default=None)
        fits = [operation for rank, operation in doing if rank == best]
        if len(fits) > 1:  # "and its options?": the options, not one of them (`…/options/{code}`)
            fits = [operation for operation in fits if not is_item_path(operation.path)]
        if len(fits) > 1 and not wanted:  # "approve it" does the action (`POST …/approve`), not undo it (`DELETE`)
            fits = [operation for operation in fits if operation.method.lower() != "delete"]
        if fits:
            return fits[0] if len(fits) == 1 else None
    return None


def state_operation(subject: Chunk, action: str, operations: Sequence[Chunk], one: bool = False) -> Chunk | None:
    """The write that sets the state the asked `action` names on the subject's item, or on the item the subject's
    collection belongs to ("close it" after reading an Adyen balance account: `PATCH /balanceAccounts/{id}`, whose
    body's `status` takes `closed`), or, for `one` of its members (`points_to_one`), on a member ("suspend one" after
    listing a balance account's payment instruments: `PATCH /paymentInstruments/{id}`). An operation of the subject's
    API on that item that writes (PUT, PATCH, or POST to an item) and whose request body has a value (an enum's, at
    any depth) that is a form of the action's word; None when no operation, or more than one, does."""
    wanted = word_forms(action)
    return _sole_write(subject, action, operations, one, lambda fields: any(
        wanted & word_forms(value.lower()) for value in _values(fields)))


def switch_operation(subject: Chunk, action: str, operations: Sequence[Chunk], one: bool = False) -> Chunk | None:
    """As `state_operation`, the write whose request body has a boolean field the action turns on or off
    (`switched_by`): "deactivate it" after testing an Adyen webhook, `PATCH …/webhooks/{webhookId}` (its `active`);
    "disable one of them" after listing a merchant's payment methods, `PATCH …/paymentMethodSettings/{id}`."""
    return _sole_write(subject, action, operations, one, lambda fields: any(
        switched_by(action, name) for name in _switches(fields)))


def _sole_write(subject: Chunk, action: str, operations: Sequence[Chunk], one: bool,
                sets: Callable[[Sequence[FieldFacts]], bool]) -> Chunk | None:
    """The one write on the subject's item, its collection's owner or (`one`) a member whose request body's fields
    the action `sets`; None for an action of HTTP's own verbs, or when no operation, or more than one, does."""
    if not action or action in data_table("question_words")["verbs"]:
        return None
    shape = path_shape(subject.path)
    if one and not is_item_path(subject.path):
        items = {shape + "/{}"} | {path_shape(op.path) for op in _members_of(shape, subject.api, operations)}
    else:
        owner = {shape.rpartition("/")[0]} if not is_item_path(subject.path) else set()
        items = {_kept_item(subject, operations)} | owner
    found = [operation for operation in operations
             if operation.api == subject.api and operation.covers and operation.path and operation.request_body
             and path_shape(operation.path) in items and operation.method.lower() in ("put", "patch", "post")
             and sets(operation.request_body.fields)]
    return found[0] if len(found) == 1 else None


# A verb that turns something on or off and the flag it sets share a stem once the prefix saying on or off is gone
# ("disable" and `enabled`, "deactivate" and `active`, "unpublish" and `published`): their first letters, this many
# or as many as the shorter has, from `SWITCH_STEM_MIN` on.
SWITCH_STEM_LETTERS, SWITCH_STEM_MIN = 5, 4
_SWITCH_PREFIX = re.compile(r"^(?:dis|de|un|en)(?=[a-z]{4})")


def switched_by(action: str, flag: str) -> bool:
    """Whether the verb `action` turns the boolean field `flag` on or off ("disable" → `enabled`, "deactivate" →
    `isActive`, "lock" → `locked`; not "activate" → `actionRequired`)."""
    verb = _SWITCH_PREFIX.sub("", action.lower())
    for word in segment_words(flag):
        stem = _SWITCH_PREFIX.sub("", word)
        letters = min(SWITCH_STEM_LETTERS, len(verb), len(stem))
        if letters >= SWITCH_STEM_MIN and verb[:letters] == stem[:letters]:
            return True
    return False


def _switches(fields: Sequence[FieldFacts], depth: int = 3) -> list[str]:
    """The names of the boolean fields of `fields` and of the fields they hold, `depth` levels down."""
    if depth <= 0:
        return []
    flags = [field.name for field in fields if field.type == "boolean"]
    return flags + [name for field in fields for name in _switches(field.fields, depth - 1)]


def _values(fields: Sequence[FieldFacts], depth: int = 3) -> list[str]:
    """The enum values of `fields` and of the fields they hold, `depth` levels down."""
    if depth <= 0:
        return []
    return [value for field in fields for value in (*field.enum, *_values(field.fields, depth - 1))]


def kept_under(subject: Chunk, question: str, operations: Sequence[Chunk]) -> frozenset[str]:
    """The topic keys of what the subject's API keeps under the subject that the question names (`named_under`),
    when an operation there does what it asks (by its HTTP verbs, any when it has none): "how do I get it as a PDF
    to attach to my own email?" after creating invoices names Xero's `/Invoices/{InvoiceID}/pdf` and `…/Email`;
    "how do I create a repo?" after reading a Gitea user names a topic of its own (`/users/{username}/repos` is
    only read)."""
    keys, methods = named_keys(question), question_methods(question)
    found = [operation for _, operation in named_under(subject, keys, operations, points_to_owner(question))]
    if not any(not methods or operation.method.lower() in methods for operation in found):
        return frozenset()
    return frozenset().union(*(segment_keys(resource_segments(operation.path)[-1]) & keys for operation in found))


def elsewhere_named(named: set[str], subject: Chunk, operations: Sequence[Chunk]) -> str:
    """What of another API than the subject's the content words of an elliptical follow-up (`named`, singular) name:
    "resource" for a resource only another API's operations act on (`candidate` after HRIS employees: ATS's),
    "api" for another API's name alone (`ats`), "" for neither (a resource of the subject's own API, a word
    the index does not know)."""
    own = resource_words(operations, subject.api)
    others = {op.api for op in operations if op.api != subject.api}
    foreign = frozenset().union(*(resource_words(operations, api) for api in others)) - own
    apis = {singular(api) for api in others}
    if (named & foreign) - apis:
        return "resource"
    return "api" if named & apis else ""


def sibling_operation(subject: Chunk, named: set[str], operations: Sequence[Chunk], owner: bool = False
                      ) -> Chunk | None:
    """The operation of the subject's API and method whose path is the subject's with one resource segment
    swapped for one whose words the follow-up names (`PUT /files/{file_id}#add_shared_link` →
    `PUT /folders/{folder_id}#add_shared_link` for "folders"); None when none, or more than one, fits. Where both
    a swapped owner and a swapped last segment fit, `owner` (the follow-up names what it is for: "for a merchant")
    chooses the owner (`GET /companies/{companyId}/webhooks` → `GET /merchants/{merchantId}/webhooks`, not
    `GET /companies/{companyId}/merchants`), else the last segment."""
    own = path_shape(subject.path).split("/")
    found = []
    for operation in operations:
        if operation.api != subject.api or operation.method != subject.method or operation.path == subject.path:
            continue
        other = path_shape(operation.path).split("/")  # lower case, every parameter `{}`, a fragment kept
        differ = [i for i, (a, b) in enumerate(zip(own, other, strict=False)) if a != b]
        if len(other) != len(own) or len(differ) != 1 or "{" in other[differ[0]]:
            continue
        segment = operation.path.strip().rstrip("/").split("/")[differ[0]]  # as written: its words (camelCase)
        words = path_terms("/" + segment)  # singular, without a format extension
        if words and words <= named:
            found.append((differ[0] < len(own) - 1, operation))
    if len(found) > 1:
        found = [(swaps_owner, operation) for swaps_owner, operation in found if swaps_owner == owner]
    return found[0][1] if len(found) == 1 else None
