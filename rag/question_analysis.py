"""What a question asks, read once per question and shared by every stage: the HTTP methods its verbs point
to (the learned ranker's features), the write it requests (the write check, the removed-write check), whether
it asks yes or no and which kinds of fact it asks for (auth, a default, a limit, allowed values, required
inputs, the response, pagination, headers: the lead sentence and the quoted lines). The words come from
rag/data/question_words.toml.

`Query.analysis` holds the analysis of a query; this module reads plain text, so it imports no query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import NamedTuple

from rag.chunk import operation_path
from rag.corpus.paths import METHOD_PATH, PATH_IN_TEXT, last_segment_action
from rag.corpus.vocabulary import STOPWORDS, function_words, singular, stop_words, word_forms
from rag.data import data_table
from rag.names import without_names_and_values

# "contacts updated after a date", "what has been assigned" describe a state or a filter, not a write.
_AS_STATE = re.compile(r"\bas\s+[a-z]+")
_ALL_OF_THEM = re.compile(r"\b(?:(?:them|these|those|it)\s+all|all\s+of\s+(?:them|these|those|it))\b")
_STATE_PARTICIPLE = re.compile(
    r"\b(?:(?:was|were|been|is|are|recently)\s+)?(?:updated|created|modified|changed|deleted)"
    r"(?=\s+(?:after|since|before|between|on or|in the last|recently)\b)"
    r"|\b(?:was|were|been|is|are|recently|newly|only)\s+\w+ed\b"
)
# "notified of new transactions", "a webhook for new orders": what is new is watched for, not created.
_WATCHED_NEW = re.compile(r"\b(of|about|for|on|to|with|from|any|all|every)\s+new\b", re.I)
_GET_BACK = re.compile(r"\bget(s|ting)? back\b")
_GET_RID_OF = re.compile(r"\b(?:get|gets|getting|got) rid of\b")
_WORD = re.compile(r"[a-z]+")


@cache
def verb_methods() -> dict[str, tuple[str, ...]]:
    """The HTTP methods each verb of HTTP's own vocabulary asks for (`create` → post)."""
    verbs = data_table("question_words")["verbs"]
    return {verb: tuple(entry["methods"]) for verb, entry in verbs.items() if "methods" in entry}


@cache
def write_verbs() -> dict[str, tuple[str, ...]]:
    """The verbs that ask for a write and the methods that would perform it (`create` → post, put)."""
    verbs = data_table("question_words")["verbs"]
    return {verb: tuple(entry["write"]) for verb, entry in verbs.items() if "write" in entry}


@cache
def _yes_no_opening() -> re.Pattern[str]:
    openers = data_table("question_words")["yes_no_openers"]
    return re.compile(rf"^\s*({'|'.join(re.escape(opener) for opener in openers)})\b", re.I)


def action_words(text: str) -> tuple[str, ...]:
    """The lower-case words of a text whose verbs say what it asks for: "get back" reads as receiving (it
    asks about a response, not a GET), "get rid of" as removing (a DELETE), a state participle ("updated after a
    date") as a filter, the word after "as" as the state something is put in and "all" of what is pointed back to
    as no listing ("mark them all as read": neither a read nor a list)."""
    text = _GET_RID_OF.sub("remove", _GET_BACK.sub("receive", text.lower()))
    text = _ALL_OF_THEM.sub("them", _AS_STATE.sub("as", _STATE_PARTICIPLE.sub("filtered", text)))
    return tuple(_WORD.findall(text))


def methods_of(words: tuple[str, ...], corpus_verbs: dict[str, tuple[str, ...]] | None = None) -> set[str]:
    """The HTTP methods the verbs among `words` point to; `corpus_verbs` adds the verbs of the indexed
    operation summaries (HTTP's own verbs win a conflict)."""
    own, corpus = verb_methods(), corpus_verbs or {}

    def methods(form: str) -> tuple[str, ...]:
        found = own.get(form)
        return corpus.get(form, ()) if found is None else found

    return {method for word in words for form in word_forms(word) for method in methods(form)}


def question_methods(question: str, corpus_verbs: dict[str, tuple[str, ...]] | None = None) -> set[str]:
    """HTTP methods the verbs of a question point to ("what do I get back" asks about a response, not a GET)."""
    return methods_of(action_words(question), corpus_verbs)


class WriteRequest(NamedTuple):
    """The write verb of a question, the HTTP methods that would perform it and the words naming what it
    writes (its object: "a new interview note" of "create a new interview note in the ATS"); `carried` when
    the verb is not the question's own but its retrieval text's (the earlier turn's: "and for employees?" after
    "How do I delete an order?"; a glossary's); `pointed` the path of the conversation's subject when the object
    only points to it ("delete it")."""

    verb: str
    methods: tuple[str, ...]
    object: tuple[str, ...] = ()
    carried: bool = False
    pointed: str = ""

    def object_words(self) -> frozenset[str]:
        """The words naming what it writes, singular, without English's own ("some songs" → song)."""
        return frozenset(singular(word.lower()) for word in self.object if word.lower() not in function_words())


# A word pointing back to what the conversation is about ("can I narrow that down?", "scale it down").
POINTS_BACK = re.compile(r"\b(it|its|they|them|their|this|that|those|these|ones)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


def asked_sentence(question: str) -> str:
    """The last sentence of a question, the one that asks ("now how do I compress some files?" of "ok it works. now
    how do I compress some files?"): what an earlier one says ("it works") asks nothing."""
    sentences = [part for part in _SENTENCE_END.split(question.strip()) if part.strip()]
    return sentences[-1] if sentences else question


@cache
def _object_ends() -> frozenset[str]:
    return frozenset(data_table("question_words")["write_object_ends"])


# Words (a hyphenated compound is one: "in-app"), a possessive `'s` (kept as the token POSSESSIVE: "an
# account's details" may be about the account) and each other punctuation mark (it ends an object).
POSSESSIVE = "'s"
_TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)*|['’]s\b|[^\sa-z]")


def _write_form(word: str) -> str | None:
    """The write verb `word` is a form of, when it asks for the write: a past form ("a joke I posted", "the
    contacts I created") describes what was done, it requests nothing."""
    writes = write_verbs()
    for form in sorted(word_forms(word)):
        if form in writes and (word == form or not word.endswith("ed")):
            return form
    return None


# "who is" before a verb's `-ing` form asks who is doing it ("who is editing it?").
_WHO_IS = frozenset(("who", be) for be in ("is", "are", "was", "were"))


def requested_write(question: str) -> WriteRequest | None:
    """The first write verb of a question outside the paths it names (its base, `-s` or `-ing` form), the
    methods that would serve it and its object: the words after it, up to a preposition, conjunction,
    relative or auxiliary word or a punctuation mark ("remove or create a course": after the chain of verbs)."""
    # A path the question names (`call DELETE /users/{id}`) is an operation it asks about, not a write request.
    # Names and values ("the song Yesterday", 'My Rock') are not what a write is about.
    without_paths = without_names_and_values(PATH_IN_TEXT.sub(" ", METHOD_PATH.sub(" ", question)))
    without_paths = _WATCHED_NEW.sub(r"\1", without_paths)
    tokens = [POSSESSIVE if token in ("'s", "’s") else token for token in _TOKEN.findall(without_paths.lower())]
    ends = _object_ends()
    for position, token in enumerate(tokens):
        verb = _write_form(token) if token.isalpha() else None
        if verb is None or (token.endswith("ing") and tuple(tokens[max(0, position - 2):position]) in _WHO_IS):
            continue  # "who is editing it?" asks who does it now; it requests no edit
        rest = tokens[position + 1:]
        # "remove or create a course": the object follows the last verb of a chain of write verbs.
        while len(rest) > 1 and rest[0] in ends and _write_form(rest[1]):
            rest = rest[2:]
        words: list[str] = []
        for following in rest:
            if following == POSSESSIVE:
                words.extend([following] if words else [])
                continue
            if not following[0].isalpha() or following in ends:
                break
            words.extend(following.split("-"))
        said = data_table("question_words")["verbs"][verb].get("said", verb)
        return WriteRequest(said, write_verbs()[verb], tuple(words))
    return None


_ONE = re.compile(r"(?<!new )(?<!another )\bone\b(?:\s+(?P<next>[a-z]+)|\s*(?:[^\sa-z]|$))", re.I)


def points_to_one(question: str) -> bool:
    """Whether the question points to one member of a set with the pronoun "one" ("how do I get a single one?",
    "delete one", "fetch one by its id", "one of them"): "one" ends it, or a punctuation mark or a word that ends
    a noun phrase (`write_object_ends`) follows it; not the number of "in one call", "one file", nor a member yet to
    be made ("add a new one", "create another one")."""
    return any(match.group("next") is None or match.group("next").lower() in _object_ends()
               for match in _ONE.finditer(question))


_INDEFINITE = re.compile(r"(?:some|any|every|no)(?:one|body|thing)")


def _write_of(focus: str, text: str, subject_path: str = "") -> WriteRequest | None:
    """The write a question requests: its own, else the earlier turn's (in its retrieval text) applied to what
    the follow-up names ("and for employees?" after "How do I delete an order?" deletes employees). Its own
    write of a thing it only points to ("how do I delete one?", "remove them") is of the resource of the
    conversation's subject (`subject_path`: the path of the operation the last answer was about)."""
    own = requested_write(focus)
    # "remove someone from it" removes a person, not the subject ("from it" is where from): an indefinite pronoun
    # points to nothing said before.
    if own is not None and subject_path and all(word in function_words() and not _INDEFINITE.fullmatch(word)
                                                 for word in own.object):
        named = last_segment_action(subject_path)[1]
        return own._replace(object=tuple(named), pointed=subject_path) if named else own
    if own is not None or text == focus:
        return own
    carried = requested_write(text)
    if carried is None:
        return None
    named = tuple(word for word in _WORD.findall(focus.lower()) if word not in _object_ends())
    return carried._replace(object=named or carried.object, carried=True)


ASK_KINDS = (
    "auth", "default", "limit", "allowed_values", "required", "response", "errors", "rate_limit", "pagination",
    "header", "deprecated", "how_to", "which_apis", "endpoint",
)
# The kinds that ask for an operation — how to do something, which endpoint, which APIs have it — as against a
# fact of the operation a question is about.
FOR_AN_OPERATION = frozenset({"how_to", "endpoint", "which_apis"})
FACTS_OF_AN_OPERATION = frozenset(ASK_KINDS) - FOR_AN_OPERATION


@cache
def _ask_cues() -> dict[str, re.Pattern[str]]:
    table = data_table("question_words")["asks"]
    unknown = set(table) - set(ASK_KINDS)
    if unknown:
        raise ValueError(f"question_words.toml [asks] has unknown kind(s) {sorted(unknown)}; allowed: {ASK_KINDS}")
    return {
        kind: re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(cue) for cue in table[kind]) + r")(?![\w-])", re.I)
        for kind in ASK_KINDS
    }


@lru_cache(maxsize=512)
def asked_kinds(question: str) -> frozenset[str]:
    """The kinds of fact a question asks for (`ASK_KINDS`; the table `[asks]` of question_words.toml): "what's
    the biggest page_size" asks for a limit, "and how do I page through them?" for pagination. A rate limit's words
    ask nothing else ("what's the rate limit?" asks no field's limit)."""
    text = question.replace("’", "'")
    cues = _ask_cues()
    rest = cues["rate_limit"].sub(" ", text)
    return frozenset(kind for kind, cue in cues.items() if cue.search(text if kind == "rate_limit" else rest))


def asked_cues(question: str, kind: str) -> tuple[str, ...]:
    """The words of a question that ask for `kind` (`ASK_KINDS`): "api key" of "How do I create a new API key?"."""
    if kind not in ASK_KINDS:
        raise ValueError(f"ask kind {kind!r} is not allowed; allowed: {', '.join(ASK_KINDS)}")
    return tuple(match.group(0).lower() for match in _ask_cues()[kind].finditer(question.replace("’", "'")))


def asked_cue_words(question: str, kind: str) -> frozenset[str]:
    """The words of the question's cues for `kind` ("api", "key" of "which api key do I send?")."""
    return frozenset(word for cue in asked_cues(question, kind) for word in cue.split())


# The words a turn may open with before what it asks ("and", "now", "ok" …), as a pattern.
_LEADING_WORDS = r"^\W*(?:(?:and|now|then|so|ok|okay|also|please)\W+)*"
# A question asking which of something there are ("which roles are there?", "and which origins are allowed?"), not
# "what about …".
ASKS_WHICH = re.compile(_LEADING_WORDS + r"(?:which|what)\b(?!\s+about\b)", re.IGNORECASE)
# "revoke one", "and now cancel it", "comment on it", "protect the main one": a request that opens with its verb, done
# to what it points back to.
_IMPERATIVE = re.compile(_LEADING_WORDS + r"([a-z]+)\s+"
                         r"(?:(?:on|to|for|from|with|about|into|onto)\s+)?"
                         r"(?:it|one|them|this|that|these|those|the\s+(?:[a-z]+\s+){1,2}ones?)\b")
_OPENING = re.compile(_LEADING_WORDS + r"([a-z]+)\b")


def asked_action(question: str) -> str:
    """The word a how-to question asks to do, lower case ("reactivate" of "how do I reactivate one?", "revoke" of
    the request "revoke one"); "" for a question that asks how to do nothing (no `how_to` cue of the `[asks]` table,
    or nothing after it; a question opening with a word of English's own, "is it paginated?")."""
    text = question.replace("’", "'")
    match = _ask_cues()["how_to"].search(text)
    following = _WORD.search(text.lower(), match.end()) if match else None
    if following:
        return following.group(0)
    request = _IMPERATIVE.match(text.lower())
    verb = request.group(1) if request else ""
    return verb if verb not in function_words() and verb not in STOPWORDS else ""


def opens_with_a_verb(question: str) -> bool:
    """Whether a question is a request that opens with a verb of HTTP's own vocabulary (`verb_methods`: "list all
    events in a year", "search for recipes under 500 calories"): it asks how to do that, as "how do I …" does."""
    match = _OPENING.match(question.replace("’", "'").lower())
    return bool(match) and match.group(1) in verb_methods()


def opening_word(question: str) -> str:
    """The word a request opens with, lower case, after "and", "now" …: its verb when it is one ("approve" of
    "approve the one from alice"); "" for a word of English's own ("how", "the", "is", and "fire" or "show", which
    the stop-word list holds)."""
    match = _OPENING.match(question.replace("’", "'").lower())
    word = match.group(1) if match else ""
    return word if word not in function_words() and word not in STOPWORDS else ""


def is_yes_no(question: str) -> bool:
    """Whether the question asks yes or no ("Can I …?", "Is there …?", "Does …?")."""
    return bool(_yes_no_opening().match(question))


# Object pronouns that point back to what the conversation is about ("revoke it", "turn them off again").
_POINTED_OBJECTS = frozenset({"it", "them"})


@cache
def _no_verbs() -> frozenset[str]:
    """Words that stand before a pronoun without acting on it: prepositions, conjunctions and auxiliaries
    (`write_object_ends`) and the words of the yes-or-no openers."""
    openers = data_table("question_words")["yes_no_openers"]
    return _object_ends() | {word for opener in openers for word in opener.split()}


def acts_on_what_it_points_to(question: str) -> bool:
    """Whether the question opens (after stop words only: "and", "now", "can I") with a verb acting on what it points
    back to ("revoke it", "and turn them off again", "can I stop it?"): it asks for an operation on the
    conversation's subject, not for a fact of it. The word before the pronoun is no verb where it is a preposition,
    a conjunction or an auxiliary (`write_object_ends`, the yes-or-no openers: "is it paginated?", "what does it
    return?", "what about them?")."""
    words = _WORD.findall(asked_sentence(question).lower())
    for word, after in zip(words, words[1:], strict=False):
        if after in _POINTED_OBJECTS:
            return word not in _no_verbs()
        if word not in stop_words():
            return False
    return False


@dataclass(frozen=True)
class QuestionAnalysis:
    """What one question asks. `focus` is the question itself (as asked or as an LLM rewrote it), `text`
    what retrieval searches with (the earlier turn and glossary words added): the new question's verb
    decides, the earlier turn's when it has none."""

    focus_actions: tuple[str, ...]
    text_actions: tuple[str, ...]
    write: WriteRequest | None
    yes_no: bool
    asks: frozenset[str] = frozenset()
    # It opens with a verb acting on what it points back to (`acts_on_what_it_points_to`: "revoke it").
    acts_on_pointed: bool = False

    @classmethod
    def of(cls, focus: str, text: str, subject: str = "") -> QuestionAnalysis:
        """The analysis of a question (`focus`), its retrieval text and the structural id of the conversation's
        subject, "" when none (remembered: every configuration and every stage that makes a new query of the
        same words reads the same analysis)."""
        return _analysis(cls, focus, text, subject)

    def methods(self, corpus_verbs: dict[str, tuple[str, ...]] | None = None) -> frozenset[str]:
        """The HTTP methods the question's verbs point to (the earlier turn's when the question has none);
        `corpus_verbs` are the indexed operation summaries' verbs."""
        return frozenset(methods_of(self.focus_actions, corpus_verbs) or methods_of(self.text_actions, corpus_verbs))


@lru_cache(maxsize=4096)
def _analysis(cls: type[QuestionAnalysis], focus: str, text: str, subject: str) -> QuestionAnalysis:
    return cls(action_words(focus), action_words(text), _write_of(focus, text, operation_path(subject)),
               is_yes_no(focus), asked_kinds(focus), acts_on_what_it_points_to(focus))
