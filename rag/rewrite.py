"""Multi-turn: rewrite a follow-up into a standalone query from recent history."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache

from rag.chunk import Chunk
from rag.corpus.path_words import is_item_path, resource_segments
from rag.corpus.paths import METHOD_URL, acted_on_path, named_segments, path_terms
from rag.corpus.vocabulary import (
    function_words,
    operation_gist,
    operation_words,
    readable_name,
    singular,
    topic_keys,
    word_forms,
)
from rag.data import data_table
from rag.facts import operation_label
from rag.llm.base import ChatMessage, ChatModel
from rag.names import name_phrases
from rag.query import ANSWER_EXCERPT, Query
from rag.question_analysis import (
    ASKS_WHICH,
    FACTS_OF_AN_OPERATION,
    POINTS_BACK,
    asked_action,
    asked_cues,
    asked_kinds,
    asked_sentence,
    opening_word,
    points_to_one,
    question_methods,
)
from rag.retrieve.named_operations import OperationNames
from rag.subject_paths import (
    action_operation,
    collection_create,
    done_by_another,
    elsewhere_named,
    kept_under,
    last_resource_terms,
    member_operation,
    named_keys,
    names_one_member,
    points_to_owner,
    resource_words,
    segment_keys,
    sibling_operation,
    sole_write,
    state_operation,
    subresource_operation,
    switch_operation,
)

MAX_MESSAGES = 10
MAX_HISTORY_CHARS = 2000
_FOLLOW_UP = re.compile(
    r"^\s*(and|also|what about|how about|same|ok|okay|then|so|only|but|just|plus)\b"
    r"|\b(it|its|it's|they|them|their|this|that|those|these|one|ones|the same|there|same)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Rewrite:
    """The query and how its standalone form was obtained (`none`, `offline`, `llm`, `fallback`)."""

    query: Query
    method: str = "none"
    note: str = ""


def recent_history(history: Sequence[dict[str, str]] | None) -> list[dict[str, str]]:
    """The last 10 messages in at most 2,000 characters: the oldest go first, but never the last question or what
    answered it (a long answer must not take the conversation's subject with it); what is kept is cut to fit, a
    question to its end (what it asks comes last), an answer to its start (the operation it names comes first)."""
    messages = [m for m in (history or []) if isinstance(m, dict) and m.get("content")][-MAX_MESSAGES:]
    last_user = max((i for i, m in enumerate(messages) if m.get("role", "user") == "user"), default=len(messages) - 1)
    while last_user > 0 and sum(len(m["content"]) for m in messages) > MAX_HISTORY_CHARS:
        messages.pop(0)
        last_user -= 1
    if sum(len(m["content"]) for m in messages) <= MAX_HISTORY_CHARS:
        return messages
    room = MAX_HISTORY_CHARS // len(messages)
    return [{**m, "role": m.get("role", "user"),
             "content": m["content"][-room:] if m.get("role", "user") == "user" else m["content"][:room]}
            for m in messages]


_KEY_VALUE = re.compile(r"[\w.\-/]+=[\w.\-/]*")


def names_a_new_topic(question: str, history: Sequence[dict[str, str]], topics: frozenset[str]) -> bool:
    """Whether the question names an API or resource (from `topics`) that the previous question did not:
    "and how do I list employees in HRIS?" after a question about LMS courses starts a new topic. The words that
    ask for a fact of an operation name none ("page" of "and how do I page through them?", where an API of the
    index has wiki pages)."""
    if not topics:
        return False
    asked = [m["content"] for m in history if m.get("role") == "user" and m.get("content")]
    previous = topic_keys(asked[-1]) if asked else set()
    facts = {key for kind in asked_kinds(question) & FACTS_OF_AN_OPERATION for cue in asked_cues(question, kind)
             for key in topic_keys(cue)}
    # A value written `key=value` ("label app=web") names no topic, though Kubernetes has an `apps` API group; nor
    # does a part of any operation ("what fields does each event have?" where another API has `/custom_fields`).
    # A word the question uses as its verb names no topic ("update one", where another API has `/amountUpdates`).
    named = topic_keys(_KEY_VALUE.sub(" ", question)) - set(data_table("question_words")["verbs"])
    return bool(without_operation_parts(frozenset((named & topics) - previous - facts)))


# "What about folders?", "the same for folders", "same thing but for a group", "and the log?", "and an input set",
# "now the tags": the earlier request, for something else.
_ELLIPTICAL = re.compile(
    r"^\s*(?:(?:and|ok|okay|so)\s*,?\s+)?(?:what about|how about|and for|(?:the\s+)?same(?:\s+thing)?(?:\s+but)?\s+for|"
    r"what of|and also for|also for|likewise for|and the|and an?|now for|now the)\b",
    re.IGNORECASE,
)


def is_elliptical(question: str) -> bool:
    """Whether the question asks the earlier request again for something else ("the same for folders")."""
    return bool(_ELLIPTICAL.match(question))


def is_follow_up(
    question: str, history: Sequence[dict[str, str]] | None, topics: frozenset[str] = frozenset()
) -> bool:
    """Whether the question leans on earlier turns (pronouns, "what about …", very short, only a fact of an
    operation: "how do I get the next page?") and does not name an API or resource of its own that the previous
    question did not (`topics`: the index's names) — unless it asks the earlier request again for that ("the same
    for folders"), not a request of its own ("what about firewalls, how do I create one?")."""
    if not history:
        return False
    if names_a_new_topic(question, history, topics):
        # "what about firewalls, how do I create one?" asks a request of its own, not the earlier one again.
        return is_elliptical(question) and not asked_action(question)
    if is_elliptical(question):
        return True
    if _FOLLOW_UP.search(question):
        return True
    # A short question is a follow-up ("Which fields?") unless it names something of its own ("What's the
    # weather in Berlin?"): a new topic then, whatever the conversation was about. So is one of any length that
    # asks a fact of an operation and names no topic ("how do I get the next page?"): the subject's fact.
    if name_phrases(question):
        return False
    return len(question.split()) <= 6 or bool(asked_kinds(question) & FACTS_OF_AN_OPERATION)


def conversation_subject(history: Sequence[Mapping[str, str]], operations: Sequence[Chunk]) -> Chunk | None:
    """The operation the conversation is about: the structural id the last answer carries (`subject`, as the app,
    the REST API and the evaluation keep it: "" for none), else (a history from outside) the first indexed
    operation the last answer names (`METHOD /path`, or as other docs write it: `OperationNames.written`), else the
    last question."""
    by_label = {operation_label(c).lower(): c for c in reversed(operations) if c.method and c.path}
    by_id = {c.covers[0]: c for c in operations if c.covers}
    names: OperationNames | None = None  # made only when an answer names an operation otherwise than the spec does
    recent = [m for m in recent_history(list(history)) if m.get("content")]
    last_user = max((i for i, m in enumerate(recent) if m.get("role") == "user"), default=None)
    turns = [m for m in recent[last_user + 1:] if m.get("role") == "assistant"] if last_user is not None else []
    turns += [recent[last_user]] if last_user is not None else []
    for turn in turns:
        subject = turn.get("subject")
        if isinstance(subject, str):  # kept with the answer: its text is not read
            if subject in by_id:
                return by_id[subject]
            continue
        for match in METHOD_URL.finditer(turn.get("content", "")):
            method, path = match.group(1).upper(), match.group(2).rstrip(".")
            found = by_label.get(f"{method} {path}".lower())
            if found is None:
                names = names or OperationNames.of(operations)
                found = names.written(method, path)
            if found is not None:
                return found
    return None


@cache
def operation_parts() -> frozenset[str]:
    """The words naming what any operation has (its fields, parameters, the permission it needs), singular
    (`parts_of_an_operation` of rag/data/question_words.toml)."""
    return frozenset(data_table("question_words")["parts_of_an_operation"])


def without_operation_parts(topics: frozenset[str]) -> frozenset[str]:
    """`topics` without the names whose singular names a part of any operation (`fields`, `permission`)."""
    parts = operation_parts()
    return frozenset(topic for topic in topics if singular(topic) not in parts)


def spelt_field_words(question: str, operation: Chunk) -> frozenset[str]:
    """The words of the operation's fields of two words or more that the question spells whole (`eventType` ←
    "which event types can I subscribe to?"), with their topic keys: what it names of the operation, no topic of
    its own. A field of one word spelt alone names no field (a note's `folder_id` is not spelt by "create a
    folder")."""
    keys = topic_keys(question)
    spelt: set[str] = set()
    for field in operation.every_field():
        words = re.findall(r"[a-z0-9]+", readable_name(field.name.rsplit(".", 1)[-1]).lower())
        joined = "_".join(words)
        if len(words) >= 2 and joined in keys:
            spelt |= topic_keys(" ".join(words)) | {f"{joined}s"}
    return frozenset(spelt)


def field_words(operation: Chunk) -> frozenset[str]:
    """The words of an operation's parameter, body and response field names (one level down too), singular and
    plural: what a follow-up about the operation may name (`email` of a candidates filter)."""
    names = [field.name for field in operation.every_field()]
    words = {word for name in names for word in re.findall(r"[a-z0-9]+", readable_name(name).lower())}
    return frozenset(words | {f"{word}s" for word in words})


def offline_rewrite(
    question: str,
    history: Sequence[dict[str, str]],
    subject: Chunk | None = None,
    resources: frozenset[str] = frozenset(),
    operations: Sequence[Chunk] = (),
) -> Query:
    """The question with the last exchange attached as `previous`: the previous question and the start
    of its answer (which usually names the endpoint or schema the follow-up is about); with the
    conversation's `subject`, the previous question and the subject's name instead of the answer's words
    (`resources`: the resource words of the subject's API, and its `operations`, see `with_subject`)."""
    recent = recent_history(history)
    users = [i for i, m in enumerate(recent) if m.get("role") == "user"]
    if not users:
        return Query(question)
    context = recent[users[-1]]["content"].strip()
    answer = next((m["content"] for m in recent[users[-1] + 1 :] if m.get("role") == "assistant"), "")
    if subject is not None:
        return with_subject(Query(question.strip(), previous=context), subject, resources, operations)
    if answer:
        context += ANSWER_EXCERPT + " ".join(answer.split()[:30])
    return Query(question.strip(), previous=context)


# "the same for time off requests": what an elliptical follow-up names instead is a short noun phrase.
MAX_OBJECT_WORDS = 4
# An elliptical follow-up naming what the request is for ("what about for a merchant?"), not what it acts on.
_NAMES_AN_OWNER = re.compile(r"\s*(?:for|of|in|on|under|within)\b", re.IGNORECASE)
# "one" of a collection, one there or one to be made ("how do I add one?", "add a new one").
_ONE_WORD = re.compile(r"\bone\b", re.IGNORECASE)


def with_subject(
    query: Query, subject: Chunk, resources: frozenset[str] = frozenset(), operations: Sequence[Chunk] = ()
) -> Query:
    """The query about the conversation's subject operation. It keeps the subject as what it asks about when
    it names nothing of its own ("and how do I page through them?"); not when it asks the earlier request again
    for something else ("the same for folders": the operation among `operations` that does the subject's action
    on folders becomes the subject, else the subject's action of folders is asked when `resources`, the resource
    words of the subject's API, has them) or asks another action of the same resource ("and how do I delete
    one?": then the subject's path, not its action, is added for retrieval)."""
    own_methods = question_methods(query.focus)
    other_action = bool(own_methods) and subject.method.lower() not in own_methods
    words = operation_words(subject.summary, subject.operation_id, "", "")
    named = _ELLIPTICAL.sub("", query.asked).strip(" ?.!") if is_elliptical(query.asked) else ""
    swapped = {singular(word) for word in re.findall(r"[a-z0-9]+", named.lower())}
    # "the same for folders": a short object of its own, no pronoun pointing back ("what about just those …").
    elsewhere = (bool(named) and not query.rewritten and len(named.split()) <= MAX_OBJECT_WORDS
                 and not POINTS_BACK.search(named))
    for_owner = _NAMES_AN_OWNER.match(named) is not None
    if elsewhere and (sibling := sibling_operation(subject, swapped, operations, for_owner)):
        # "What about folders?" after adding a shared link to a file: the same action on a folder's path.
        return _moved_to(query, sibling, rewritten=operation_gist(sibling), previous="")
    content = {singular(word) for word in re.findall(r"[a-z0-9]+", named.lower()) if word not in function_words()}
    if elsewhere and (other := elsewhere_named(content, subject, operations)):
        # "what about candidates in ATS?" after listing HRIS employees names another API or another API's
        # resource: the earlier action of what it names, a new subject (nothing of the earlier one is searched
        # for); naming only the API, the earlier request itself, there ("and in the ATS?": list employees there).
        action = _without_resource(words, subject) if other == "resource" else words
        return replace(query, rewritten=f"{action} {named}".strip(), previous="", subject="", subject_words="",
                       keeps_subject=False)
    own = last_resource_terms(subject.path)
    if elsewhere and (swapped & resources) - own:
        # "the same for calls?" after listing messages asks "list calls": the earlier action, of another resource
        # of the same API (not "what about just the ones of one customer?", which narrows the request down, nor
        # "what about a single log entry?" after listing a report's logs, which names the subject's own).
        action = _without_resource(words, subject)
        return replace(query, rewritten=f"{action} {named}".strip(), previous="", subject=subject.covers[0],
                       subject_words="", keeps_subject=False)
    verb = asked_action(query.focus)
    if pointed := _pointed_operation(query, subject, own_methods, verb, operations):
        return pointed
    if _writes_another_resource(query, subject, operations) or _reads_another_resource(query, subject, operations):
        # "add a trigger for it", "what triggers does it have?" after creating a pipeline: another resource, a
        # request of its own (the earlier question's words, or the subject's path, would find the subject again).
        return replace(query, previous="", subject="", subject_words="", keeps_subject=False)
    # "and disable it again" after enabling a runner: what another operation of the API does (`Disable project's
    # runner`), not the subject; "add some songs to it" after creating a playlist adds to it, it creates none.
    asked = verb or opening_word(query.focus)  # "approve the one from alice"
    other_action = other_action or (not own_methods and done_by_another(subject, asked, operations)) or _adds_to_it(
        query, subject)
    said = acted_on_path(subject.path) if other_action else operation_label(subject) + (f" {words}" if words else "")
    # "what about a single log entry?" after listing logs asks something else of the subject's resource: the
    # subject is what it is about, not what must lead.
    narrowed = elsewhere and bool(swapped & own)
    return replace(query, subject=subject.covers[0], subject_words=said, keeps_subject=not (other_action or narrowed))


def _pointed_operation(query: Query, subject: Chunk, own_methods: set[str], action: str,
                       operations: Sequence[Chunk]) -> Query | None:
    """The query about what the follow-up points to from its subject: what the API keeps under the subject (or
    what the subject's owner keeps, `subresource_operation`), else the write that sets the state its action names
    (`state_operation`), the one operation that says it does the action (`action_operation`), the write that sets a
    flag the action turns on or off (`switch_operation`), the collection's create ("add one"), else one member of
    the subject's collection (`member_operation`); None when it points to none of them (`action`: the follow-up's,
    `asked_action`)."""
    # "and which origins are allowed?" after generating a key asks what there is: a read, not the subject's method.
    methods = own_methods or ({"get"} if ASKS_WHICH.match(query.focus) else set())
    if under := subresource_operation(subject, named_keys(query.focus), methods, operations,
                                      points_to_owner(query.focus), action):
        if not own_methods and under.method.lower() == "get" and action in segment_keys(
                resource_segments(under.path)[-1]):
            write = sole_write(under, operations)
            if write is None:
                # "how do I scale it?" after creating a Kubernetes deployment: its `…/scale` is searched for, not
                # read (`GET …/scale`), and of its writes (`PUT`, `PATCH`) none leads. ("ack them" is done by
                # `PATCH …/incidents/ack`, which leads.)
                return replace(query, subject=under.covers[0], subject_words=under.path, keeps_subject=False)
            under = write  # "comment on it" after reading a pull request: `POST …/comments`, its one write
        # "and as a pdf?" after reading a quote: what the API keeps under the quote (`GET /Quotes/{QuoteID}/pdf`).
        return _moved_to(query, under)
    if not own_methods and (state := state_operation(subject, action, operations, points_to_one(query.focus))):
        # "close it" after reading a balance account: no path names the action, the write that sets its `status`
        # to closed does.
        return _moved_to(query, state)
    if not own_methods and (acting := action_operation(subject, action, operations)):
        # "execute it" after fetching a pipeline: the one operation that says it does that to the pipeline.
        return _moved_to(query, acting)
    if not own_methods and not done_by_another(subject, action, operations) and (
            switch := switch_operation(subject, action, operations, points_to_one(query.focus))):
        # "deactivate it" after testing a webhook: the write whose body's `active` the verb turns off (not where an
        # operation says it does that: GitLab's "Disable project's runner").
        return _moved_to(query, switch)
    if _ONE_WORD.search(query.focus) and (made := collection_create(subject, own_methods, operations)):
        # "how do I add one?", "add a new one" after listing environments: the collection's `POST`.
        return _moved_to(query, made)
    if (points_to_one(query.focus) or names_one_member(query.focus, subject)) and (
            member := member_operation(subject, own_methods, operations)):
        if not own_methods and action:
            # "how do I reactivate one?" after listing bounces: an action on one of them that no verb of HTTP's
            # own names, so not the subject's (`GET …/{id}`); one member's path is searched for, no operation leads.
            return replace(query, subject=member.covers[0], subject_words=member.path, keeps_subject=False)
        # "how do I get a single one?" after listing employees: the operation on one of them (`GET …/{id}`).
        return _moved_to(query, member)
    return None


def _moved_to(query: Query, operation: Chunk, **more: str) -> Query:
    """The query whose subject moves to the operation the follow-up points to, which leads (`more`: further fields
    of the query, the sibling's rewritten text)."""
    return replace(query, subject=operation.covers[0],
                   subject_words=f"{operation_label(operation)} {operation_gist(operation)}", keeps_subject=True,
                   moved_subject=True, **more)


def _adds_to_it(query: Query, subject: Chunk) -> bool:
    """Whether the follow-up's own write puts into the subject what neither its path nor its fields name ("add some
    songs to it" after creating a playlist; "add a description to it" writes the subject)."""
    write = query.analysis.write
    if write is None or write.carried or write.pointed:
        return False
    named = write.object_words()
    return bool(named) and not named & (path_terms(subject.path) | field_words(subject))


def _writes_another_resource(query: Query, subject: Chunk, operations: Sequence[Chunk]) -> bool:
    """Whether the follow-up asks to create a resource of its own for the subject, one its API creates on a
    collection's path the subject's path does not name ("add a trigger for it" after creating a pipeline: `POST
    /triggers`); not what the subject has ("update its release type"), nor one no collection of the API creates
    ("add a reviewer to it", where only a repository's default reviewers are written)."""
    write = query.analysis.write
    if write is None or write.carried or "post" not in write.methods or points_to_owner(query.focus):
        return False
    named = write.object_words()
    if not named or named & path_terms(subject.path):
        return False
    return any(operation.api == subject.api and operation.method.lower() == "post" and operation.path
               and not is_item_path(operation.path)
               and named & last_resource_terms(operation.path)
               for operation in operations)


# "what triggers does it have?": what the subject has (not "which store is it in?", a fact of the subject).
_HAS = re.compile(r"\b(?:does|do|did|can)\s+(?:it|they|this|that)\s+(?:have|hold|contain|own)\b", re.IGNORECASE)


def _reads_another_resource(query: Query, subject: Chunk, operations: Sequence[Chunk]) -> bool:
    """Whether the follow-up asks to read what the subject has ("its", "their", "does it have") of a resource of its
    own, one its API lists on a collection's path the subject's path does not name and nothing under the subject's
    path keeps ("what triggers does it have?", "list its input sets" after fetching a pipeline, where an API lists a
    pipeline's triggers at `GET /triggers`, filtered by a query parameter); not a fact of the subject ("what does it
    return?", "which store is it in?"), nor what the subject's own path names ("and its pipelines?")."""
    methods = question_methods(query.focus)
    if query.analysis.write is not None or (methods and "get" not in methods) or (
            asked_kinds(query.focus) & FACTS_OF_AN_OPERATION) or not (
            points_to_owner(query.focus) or _HAS.search(query.focus)):
        return False
    # a name of several words whole, though one of them is a verb ("input sets")
    phrases = {key for key in topic_keys(query.focus) if "_" in key}
    named = without_operation_parts(frozenset(named_keys(query.focus) | phrases))
    if not named or named & path_terms(subject.path):
        return False
    return any(operation.api == subject.api and operation.method.lower() == "get" and operation.path
               and not is_item_path(operation.path) and named & _last_segment_keys(operation.path)
               for operation in operations)


def _last_segment_keys(path: str) -> frozenset[str]:
    """The topic keys naming a path's last resource segment whole, a version's segment passed over (`/pipelines/v2`
    → pipelines, as `last_resource_terms` reads it); none for a path of no resource segment."""
    segments = named_segments(path)
    return segment_keys(segments[-1], whole=True) if segments else frozenset()


def _without_resource(text: str, subject: Chunk) -> str:
    """`text` without English's own words and the words that name the subject's resources ("list the
    messages" → "list")."""
    named = path_terms(subject.path)
    kept = [word.strip("?,.!;:'\"") for word in text.split()]
    return " ".join(word for word in kept if word.lower() not in function_words() and not word_forms(word) & named)


def follow_up_topics(question: str, subject: Chunk | None, topics: frozenset[str], operations: Sequence[Chunk]
                     ) -> tuple[frozenset[str], frozenset[str]]:
    """The index's topics that would make `question` a new request after `subject`, and the subject's field words
    it spells (a question about the subject whatever else it names)."""
    if subject is None:
        return topics, frozenset()
    # A question pointing back ("can I attach a photo of the receipt to it?", "one of them went on the wrong invoice,
    # how do I reverse it?", "update one to also fire on tag pushes") asks about the subject whatever it names; nor
    # does one asking a fact that names what any operation has ("what fields are required?") name a new topic. "How
    # do I create a folder?" (or a custom field) is a new request even where a note has a `folder_id`.
    spelt = spelt_field_words(question, subject)
    if POINTS_BACK.search(asked_sentence(question)) or points_to_one(asked_sentence(question)):
        return frozenset(), spelt
    if asked_kinds(question) & FACTS_OF_AN_OPERATION:
        topics = without_operation_parts(topics)
    # "which event types can I subscribe to?" spells the subject's `eventType`: a question about it; "and as a
    # pdf?" names what its API keeps under the subject (`/Quotes/{QuoteID}/pdf`), and "and then put a card in it?"
    # after adding a list (`POST /lists/{idList}/cards`, though Trello has `/cards` too); "how do I create a repo?"
    # after reading a user names a topic of its own (`/users/{username}/repos` is only read).
    return topics - spelt - kept_under(subject, question, operations), spelt


def rewrite_query(
    question: str,
    history: Sequence[dict[str, str]] | None,
    chat_model: ChatModel | None = None,
    topics: frozenset[str] = frozenset(),
    operations: Sequence[Chunk] = (),
) -> Rewrite:
    """A standalone version of `question`; falls back to the original when rewriting fails.

    `topics` are the API and resource names of the index: a question naming a new one is not a follow-up.
    `operations` are the indexed operations, among which the conversation's subject is found.
    """
    subject = conversation_subject(history, operations) if history else None
    topics, spelt = follow_up_topics(question, subject, topics, operations)
    if not is_follow_up(question, history, topics):
        new_topic = bool(history) and names_a_new_topic(question, history, topics)
        if new_topic or not spelt:
            note = "new topic: not rewritten (it names an API or resource of its own)" if new_topic else ""
            return Rewrite(Query(question), "none", note)
    assert history is not None
    about = f"; subject: {operation_label(subject)}" if subject is not None else ""
    if chat_model is None:
        resources = resource_words(operations, subject.api) if subject is not None else frozenset()
        query = offline_rewrite(question, history, subject, resources, operations)
        if subject is not None and not query.subject:
            about = f"; a new subject: it names another API or another API's resource (was {operation_label(subject)})"
        elif subject is not None and query.subject != subject.covers[0]:
            moved = next((op for op in operations if op.covers and op.covers[0] == query.subject), subject)
            about = f"; subject: {operation_label(moved)} (was {operation_label(subject)})"
        return Rewrite(query, "offline", f"follow-up rewritten offline{about}")
    transcript = "\n".join(f"{m['role']}: {m['content']}" for m in recent_history(history))
    messages = [
        ChatMessage(
            "system",
            "Rewrite the user's last question into one standalone question about the API "
            "documentation. Keep every name and identifier. Reply with the question only.",
        ),
        ChatMessage("user", f"Conversation:\n{transcript}\n\nLast question: {question}\n\nStandalone question:"),
    ]
    try:
        text = chat_model.complete(messages, max_tokens=80).text.strip().strip('"')
    except Exception as error:
        note = f"rewrite failed ({type(error).__name__}); used the original question"
        return Rewrite(Query(question), "fallback", note)
    if not text or len(text) > 1000:
        return Rewrite(Query(question), "fallback", "rewrite was empty or too long; used the original question")
    rewritten = Query(question, rewritten=text)
    return Rewrite(with_subject(rewritten, subject) if subject is not None else rewritten, "llm",
                   f"follow-up rewritten by the LLM{about}")
