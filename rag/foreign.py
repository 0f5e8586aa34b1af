"""Words that name things the docs never mention: the gate's lexical evidence.

An unknown word of a question is a *foreign thing* when an English lexicon (WordNet, rag.lexicon) says
it names a thing (not a time, a way of doing or a state) and the question uses it as a noun (English
mostly does, or an article or preposition comes before it: "by *submarine*"), the docs use neither it,
its lemma, the verb it derives from, nor a synonym (of four letters or more) that names part of the API,
and it is not close in meaning to a word naming part of the API (rag.corpus.meanings). An English
compound the docs never write (`sign language`) is one too, and so is the head a foreign word modifies
when the API names nothing by it (`moon` *phase*). Activities (`origami`) and actions (`ship`, `render`)
the docs never mention count beside a foreign thing. Names and values a question mentions (rag.names)
are never foreign things; a question naming values the index does not have is a task request about the
user's own data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Protocol

from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import tokenize
from rag.lexicon import Lexicon
from rag.names import names_and_values

GENERIC_TERMS = frozenset(
    """able about add added all allow allowed also another any anything ask available back based best call calls
    change check com create created data delete describe detail details different do does doing done each else
    endpoint endpoints example exist exists explain field fields find first format get give go going good got have
    help here info information into its just know last let like list look looking made make many may mean means
    method methods more most much need needed new next not number object one only other out over parameter parameters
    possible pull put query remove request requests response return returned returns right same say see send set
    should show so some something specific still such support supported sure take tell than thing things through
    time type types update use used using value values want way ways what whats work works would yes""".split()
)


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English stop words (scikit-learn's list) plus contractions and greetings: never evidence."""
    words = set(GENERIC_TERMS) | {"don", "doesn", "isn", "aren", "didn", "won", "can", "hey", "hi", "please", "via"}
    return frozenset(words | function_words())


# Which of some question words the index has in other words (see rag.corpus.meanings).
MeansKnown = Callable[[Sequence[str]], set[str]]


class Meanings(Protocol):
    """An index's naming vocabulary, embedded (rag.corpus.meanings.NamingVocabulary)."""

    def close(self, terms: Sequence[str], threshold: float) -> set[str]:
        """The terms at least `threshold` similar to some word naming part of the API."""
        ...

_WORD_OR_MARK = re.compile(r"[A-Za-z][\w'’-]*|[^\w\s]")


# Semantic classes of nouns that say when or how (an hour, a workflow, a state), not what is asked about.
ABSTRACT_NOUN_CLASSES = frozenset(
    {"noun.Tops", "noun.act", "noun.attribute", "noun.feeling", "noun.motive", "noun.quantity", "noun.relation",
     "noun.shape", "noun.state", "noun.time"}
)


@lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    """English stop words (scikit-learn's list): the words that end a noun phrase when they follow it."""
    try:  # the private module is the cheap import; the public path is the fallback
        from sklearn.feature_extraction._stop_words import ENGLISH_STOP_WORDS
    except ImportError:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    return frozenset(ENGLISH_STOP_WORDS)


def is_phrase_head(term: str, question: str) -> bool:
    """Whether `term` ends a noun phrase in the question (`a meeting room` *through*, `the ledger`?) rather
    than modifying the next word (`pipeline` stages): a stop word, a mark or the end follows it."""
    tokens = [t.lower() for t in _WORD_OR_MARK.findall(question)]
    positions = [i for i, t in enumerate(tokens) if t == term]
    following = [tokens[i + 1] if i + 1 < len(tokens) else "" for i in positions]
    return any(not nxt or not nxt[0].isalpha() or nxt in function_words() for nxt in following)


# Words after which a word is used as a noun ("by *submarine*", "the *snowboard* rental"), or as a verb
# ("I *ship*", "to *fold*", "Can the API *fold* …").
_NOUN_CONTEXT = frozenset(
    """a an the this that these those my your our their its his her some any each every of by into onto in on
    with for from about via through per""".split()
)
_VERB_CONTEXT = frozenset({"to", "i", "we", "you", "they"})
_YES_NO_START = frozenset({"can", "could", "does", "do", "will", "would", "is", "are"})


def _preceding(term: str, question: str) -> list[str]:
    """The words right before each use of `term` in the question (lower-case; "" at the start)."""
    tokens = [t.lower() for t in _WORD_OR_MARK.findall(question)]
    return [tokens[i - 1] if i else "" for i, t in enumerate(tokens) if t == term]


def used_as_noun(term: str, question: str, lexicon: Lexicon) -> bool:
    """Whether the question uses `term` as a noun: English mostly does, or it has noun senses and follows an
    article, a possessive or a preposition here ("ship candidates by *submarine*")."""
    if lexicon.is_mainly_noun(term):
        return True
    return lexicon.usage(term).get("noun", 0.0) > 0 and any(w in _NOUN_CONTEXT for w in _preceding(term, question))


def used_as_verb(term: str, question: str, lexicon: Lexicon) -> bool:
    """Whether the question uses `term` as a verb: English mostly does, or it has verb senses and follows a
    subject or `to` ("How do I *ship* …"), or the API in a yes/no question ("Can the HRIS API *fold* …")."""
    weights = lexicon.usage(term)
    verb = weights.pop("verb", 0.0)
    if verb <= 0:
        return False
    if verb > sum(weights.values()):
        return True
    before = _preceding(term, question)
    yes_no = question.split(maxsplit=1)[0].lower() in _YES_NO_START if question.strip() else False
    return any(w in _VERB_CONTEXT or (yes_no and w in ("api", "apis")) for w in before)


def _no_known_sense(term: str, profile: CorpusProfile, lexicon: Lexicon) -> bool:
    """Whether the docs use neither the term's lemmas nor the verbs it derives from anywhere, nor one of its
    synonyms to name part of the API."""
    if any(profile.knows(word) for word in (*lexicon.base_forms(term, "n"), *derivation_stems(term))):
        return False
    return not _synonym_names_part(term, profile, lexicon)


def _synonym_names_part(term: str, profile: CorpusProfile, lexicon: Lexicon) -> bool:
    """Whether a WordNet synonym of the term names part of the API (a large spec uses `book` somewhere,
    which says nothing of `ledger`; an abbreviation such as `sub` for *submarine* names nothing)."""
    return any(profile.names_part(word) for word in lexicon.synonyms(term) if len(word) > 3)


def foreign_nouns(
    question: str,
    unknown: Sequence[str],
    profile: CorpusProfile,
    lexicon: Lexicon | None,
    means_known: MeansKnown | None = None,
    heads: bool = True,
) -> tuple[str, ...]:
    """Unknown words that name a thing the docs never mention: mostly nouns in English (`refund`,
    `ledger`, `room`), with no synonym the index uses (`listings` → list is known) and not close in
    meaning to a word naming part of the API (`staff` → employee). With `heads`, the words that head
    their phrase (`a meeting room` *through*); otherwise those that modify the next word (`drone` delivery).

    Verbs, adjectives and adverbs the docs happen not to use ("extend", "mandatory", "certain") say how
    the question is put, not what it is about; they are never evidence.
    """
    if lexicon is None:
        return ()
    found = []
    for term in unknown:
        if not used_as_noun(term, question, lexicon) or is_phrase_head(term, question) != heads:
            continue
        # "in the last hour", "into our workflow", "in what scenarios": when and how, not a thing asked for.
        asked_kind = re.search(rf"\b(?:what|which)\s+{re.escape(term)}\b", question, re.I)
        if asked_kind or lexicon.noun_class(term) in ABSTRACT_NOUN_CLASSES:
            continue
        if _no_known_sense(term, profile, lexicon):
            found.append(term)
    meant = means_known(found) if means_known and found else set()
    return tuple(term for term in found if term not in meant)


_DERIVATIONAL_ENDINGS = ("ations", "ation", "itions", "ition", "ions", "ion", "ments", "ment", "als", "al")


def derivation_stems(noun: str) -> list[str]:
    """The verbs an English noun is derived from, as the docs may spell them: `invitation` → invite,
    `deletion` → delete, `assignment` → assign."""
    stems = []
    for ending in _DERIVATIONAL_ENDINGS:
        if noun.endswith(ending) and len(noun) - len(ending) >= 3:
            stem = noun[: -len(ending)]
            stems += [stem, stem + "e"]
    return stems


def names_foreign_values(question: str, profile: CorpusProfile, concepts: Sequence[str] = ()) -> bool:
    """Whether the question names something the index does not (a song, a film, a person): then it is a
    request about the user's own data, and an unfamiliar noun in it may be one more value. Words of
    `concepts` (English compounds such as "Morse code") name no value, capitalised or not."""
    concept_words = {w for phrase in concepts for w in phrase.split()}
    for name in names_and_values(question):
        words = [w for w in tokenize(name) if w not in stop_words() and w not in concept_words]
        if words and not all(profile.knows(w) or w in profile.apis for w in words):
            return True
    return False


# Classes of compounds that name someone or somewhere (`Miles Davis`, `New York`) when capitalised: values.
NAMED_ENTITY_CLASSES = frozenset({"noun.person", "noun.location", "noun.group"})


def foreign_compounds(question: str, profile: CorpusProfile, lexicon: Lexicon | None) -> tuple[str, ...]:
    """Two-word English compounds (WordNet lists them: `sign language`, `Morse code`, `crossword puzzle`)
    that the docs never use side by side and that name a thing, not a time or a way (`time off`), nor
    someone's or somewhere's name (`Miles Davis`): a concept the docs never mention, whether or not they
    use its words apart (an LMS spec says `sign` and `language`)."""
    if lexicon is None:
        return ()
    words = _WORD_OR_MARK.findall(question)
    found = []
    for first, second in zip(words, words[1:], strict=False):
        pair = (first.lower(), second.lower())
        if not all(w.isalpha() and len(w) > 1 and w not in function_words() for w in pair):
            continue
        lemmas = lexicon.base_forms(f"{pair[0]} {pair[1]}", "n")
        if not lemmas or profile.says_phrase(*pair):
            continue
        kind = lexicon.noun_class(f"{pair[0]} {pair[1]}")
        named = first[:1].isupper() and second[:1].isupper() and kind in NAMED_ENTITY_CLASSES
        if named or kind in ABSTRACT_NOUN_CLASSES:
            continue
        if _synonym_names_part(lemmas[0], profile, lexicon):
            continue
        found.append(" ".join(pair))
    return tuple(dict.fromkeys(found))


def modified_heads(
    question: str, modifiers: Sequence[str], unknown: Sequence[str], profile: CorpusProfile | None = None
) -> tuple[str, ...]:
    """The words that foreign modifiers modify, when the docs do not use them either (`crossword` *puzzle*)
    or use them without naming any part of the API by them (a large spec's descriptions say `phase` and
    `records`, yet none of its paths, schemas or operations is a phase): then the whole phrase names
    something foreign (`moon` *phase*, `vinyl` *records*), not a known thing of a new kind."""
    tokens = [t.lower() for t in _WORD_OR_MARK.findall(question)]
    heads = [tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t in modifiers]
    return tuple(
        dict.fromkeys(
            h for h in heads
            if h not in modifiers and h[:1].isalpha() and h not in stop_words()
            and (h in unknown or (profile is not None and not profile.names_part(h)))
        )
    )


def foreign_actions(question: str, unknown: Sequence[str], lexicon: Lexicon | None) -> tuple[str, ...]:
    """Unknown words used as verbs (`render`, `press`, `mint`; "I *ship*"): an action the docs never describe.
    Alone they say only how a question is put; beside a foreign thing they are what it asks the API to do."""
    if lexicon is None:
        return ()
    return tuple(term for term in unknown if used_as_verb(term, question, lexicon))


def foreign_acts(
    question: str, unknown: Sequence[str], profile: CorpusProfile, lexicon: Lexicon | None,
    means_known: MeansKnown | None = None,
) -> tuple[str, ...]:
    """Unknown nouns naming an activity the docs never mention (`origami`, `karate`). An activity word may
    also say how something is done ("into our workflow"), so it counts only beside another foreign thing."""
    if lexicon is None:
        return ()
    found = [
        term for term in unknown
        if used_as_noun(term, question, lexicon) and not used_as_verb(term, question, lexicon)
        and lexicon.noun_class(term) == "noun.act" and _no_known_sense(term, profile, lexicon)
    ]
    meant = means_known(found) if means_known and found else set()
    return tuple(term for term in found if term not in meant)


def unlisted_words(terms: Sequence[str], lexicon: Lexicon | None, means_known: MeansKnown | None) -> tuple[str, ...]:
    """Alphabetic words of four letters or more that the English lexicon does not list in any form
    (`blockchain`, `websocket`, `namespace`) and the index does not have in other words."""
    if lexicon is None:
        return ()
    found = [t for t in terms if t.isalpha() and len(t) >= 4 and not lexicon.usage(t)]
    meant = means_known(found) if means_known and found else set()
    return tuple(t for t in found if t not in meant)
