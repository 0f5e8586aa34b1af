"""Unknown detection: an evidence-based confidence gate with answer / partial / abstain tiers.

The gate abstains only on positive evidence that the index cannot answer:

- nothing indexed is similar enough (below the typical similarity of generic off-topic requests to
  *this* index, calibrated per index by `calibrate`);
- the question names an identifier, path or API that the index truly does not have (every identifier
  form is recognised: `METHOD /path`, templated and concrete paths, backticks, snake_case, camelCase,
  kebab-case, operationIds);
- it is closer to an out-of-scope prototype (pricing, weather, …) than to any chunk;
- it asks for something the docs never mention: a rare technical term (not an ordinary English word)
  that no indexed text uses, in a question that is not a yes/no question;
- it asks for a rate (per minute, per month) and the docs state none.

Names and values a user mentions (people, titles, songs, companies: capitalised words inside the
sentence, quoted strings, numbers) and ordinary English words are never evidence: task requests are
full of them. When the evidence is weak the tier is `partial`, not `abstain`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from rag.corpus.paths import METHOD_PATH as _METHOD_PATH
from rag.corpus.paths import PATH_IN_TEXT as _PATH
from rag.corpus.paths import named_paths
from rag.corpus.profile import RATE_UNIT, CorpusProfile
from rag.corpus.vocabulary import tokenize, word_forms
from rag.foreign import (
    GENERIC_TERMS,
    Meanings,
    MeansKnown,
    foreign_actions,
    foreign_acts,
    foreign_compounds,
    foreign_nouns,
    modified_heads,
    names_foreign_values,
    stop_words,
    unlisted_words,
)
from rag.lexicon import Lexicon
from rag.names import without_names_and_values
from rag.query import Query
from rag.results import Confidence

PROTOTYPES_FILE = Path(__file__).resolve().parent / "data" / "out_of_scope_prototypes.txt"


@lru_cache(maxsize=1)
def out_of_scope_prototypes() -> tuple[str, ...]:
    """The out-of-scope requests of `rag/data/out_of_scope_prototypes.txt` (one per line, # comments)."""
    lines = PROTOTYPES_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#"))


@dataclass(frozen=True)
class GateThresholds:
    """Cut-offs of the gate (cosine similarities).

    The defaults suit all-MiniLM-L6-v2; `calibrate` replaces `abstain_below` and `partial_below` with
    figures measured on the index itself.
    """

    abstain_below: float = 0.25
    partial_below: float = 0.40
    out_of_scope_margin: float = 0.05
    out_of_scope_floor: float = 0.40
    rare_term_similarity: float = 0.45
    # A question word this similar to a word naming part of the API means that part (`staff` → employee).
    synonym_similarity: float = 0.6


# Similarities depend on the embedding model: the model-free hashing embedder gives far lower ones.
CALIBRATIONS: dict[str, GateThresholds] = {
    "all-MiniLM-L6-v2": GateThresholds(),
    "hashing-384": GateThresholds(
        abstain_below=0.08, partial_below=0.15, out_of_scope_floor=0.3, out_of_scope_margin=0.2,
        rare_term_similarity=0.2,
    ),
}


def thresholds_for(embedding_model: str) -> GateThresholds:
    """The default thresholds of an embedding model (the MiniLM ones when it has none)."""
    return CALIBRATIONS.get(embedding_model, GateThresholds())


def calibrate(base: GateThresholds, off_topic_similarities: Sequence[float]) -> GateThresholds:
    """Thresholds for one index from how similar generic off-topic requests are to it.

    Each out-of-scope prototype's best similarity to the index says how high an unrelated question
    scores against this corpus (a large, wordy corpus scores higher than a small one). Below their
    median nothing is similar enough (abstain); below their highest the match is weak (partial). The
    model's defaults bound the result so a corpus can never make the gate stricter than they are.
    """
    values = sorted(float(v) for v in off_topic_similarities)
    if not values:
        return base
    median = values[len(values) // 2]
    return replace(
        base,
        abstain_below=round(min(base.abstain_below, median), 4),
        partial_below=round(min(base.partial_below, max(values[-1], median)), 4),
    )


@dataclass(frozen=True)
class GateDecision:
    """The tier, a 0–1 confidence score and the evidence behind it."""

    tier: Confidence
    score: float
    top_similarity: float
    unknown_terms: tuple[str, ...] = ()
    reasons: tuple[str, ...] = field(default_factory=tuple)


def salient_terms(question: str) -> list[str]:
    """Content words and identifiers of a question (generic words, names, values and numbers dropped)."""
    terms = []
    for token in tokenize(without_names_and_values(question)):
        if len(token) < 3 or token.isdigit() or token in GENERIC_TERMS:
            continue
        terms.append(token)
    return list(dict.fromkeys(terms))


# ---------------------------------------------------------------------- identifiers
_IDENTIFIER_WORD = re.compile(
    r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]+\b|\b[a-z]+(?:-[a-z0-9]+){2,}\b"
)
_BACKTICKS = re.compile(r"`([^`]{2,80})`")
_IDENTIFIER_SHAPE = re.compile(r"^[A-Za-z_][\w.\-]*$")


def identifiers_in(question: str) -> list[str]:
    """Identifier-like words (`blood_type`, `x-account-id`, `createdAt`, identifiers in backticks).

    Paths are returned by `named_paths`; text in backticks that is not shaped like an identifier
    (`Love Mariah`, `1800`) is a value.
    """
    without_paths = _PATH.sub(" ", _METHOD_PATH.sub(" ", question))
    found = [t.strip() for t in _BACKTICKS.findall(without_paths) if _IDENTIFIER_SHAPE.match(t.strip())]
    found += _IDENTIFIER_WORD.findall(_BACKTICKS.sub(" ", without_paths))
    return list(dict.fromkeys(f for f in found if f))


def identifier_known(identifier: str, profile: CorpusProfile) -> bool:
    """Whether the index uses the identifier (as a whole, in lower case or with `-`/`_` swapped)."""
    lowered = identifier.lower()
    variants = {lowered, lowered.replace("-", "_"), lowered.replace("_", "-"), lowered.replace(".", "_")}
    return any(profile.knows(v) or v in profile.structural_terms for v in variants)


def unknown_parts(identifier: str, profile: CorpusProfile) -> list[str]:
    """The words of an identifier that no indexed text uses (`blood` of `blood_type`)."""
    parts = [p for p in tokenize(identifier) if p != identifier.lower() and len(p) > 2]
    return [p for p in parts if not profile.knows(p)]


# ---------------------------------------------------------------------- named APIs
# "the ticketing API", "StackOne's Rust SDK", "the StackOne Rust SDK" (a capitalised brand may come first).
_NAMED_API = re.compile(
    r"\b(?i:the|a|an|[a-z]+['’]s)\s+(?:[A-Z][\w'’-]*\s+)?([A-Za-z][A-Za-z0-9-]*)\s+(?i:apis?|sdks?)\b"
)
_NOT_A_NAME = frozenset(
    "the a an this that which what your our my their rest http https web public same right one other any each "
    "every open its own new old main whole entire official".split()
)


def unindexed_api_names(question: str, profile: CorpusProfile) -> list[str]:
    """Names in "the <name> API" that no indexed API, title, path, tag, operationId or schema uses."""
    names = []
    for name in _NAMED_API.findall(question):
        lowered = name.lower()
        if lowered in _NOT_A_NAME or lowered in stop_words():
            continue
        parts = [p for p in re.split(r"[-_]", lowered) if p]
        if any(p in profile.apis or any(f in profile.structural_terms for f in word_forms(p)) for p in parts):
            continue
        names.append(lowered)
    return names


# ---------------------------------------------------------------------- rare terms
@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Whole words of the packaged embedder's WordPiece vocabulary (~20k common English words)."""
    try:
        from rag.index.embedder import packaged_minilm_path

        vocab = (packaged_minilm_path() / "vocab.txt").read_text(encoding="utf-8").split()
    except Exception:  # the vocabulary is only a refinement; without it every word counts as common
        return frozenset()
    return frozenset(word for word in vocab if word.isalpha())


def rare_terms(terms: Sequence[str]) -> list[str]:
    """Terms that are not common English words (`graphql`, `kubernetes`, `hmac`, `nft`)."""
    vocabulary = common_words()
    if not vocabulary:
        return []
    return [
        t
        for t in terms
        if t.isalpha()
        and len(t) >= 3
        and not any(form in vocabulary for form in word_forms(t) if len(form) >= 3)
        and not t.endswith("ly")  # manner adverbs ("programmatically") are never the topic
        and not _compound_of_common_words(t, vocabulary)
    ]


_PREFIXES = ("re", "un", "pre")


def _compound_of_common_words(term: str, vocabulary: frozenset[str]) -> bool:
    """`timeout` (time + out) and `workflow` (work + flow) are ordinary words written together, and
    `rename`, `unfollow`, `preload` ordinary words with a prefix."""
    if any(term.startswith(p) and len(term) - len(p) >= 3 and term[len(p):] in vocabulary for p in _PREFIXES):
        return True
    return any(term[:cut] in vocabulary and term[cut:] in vocabulary for cut in range(3, len(term) - 2))


_YES_NO = re.compile(r"^\s*(do|does|did|is|are|was|were|can|could|will|would|should|has|have|may)\b", re.I)


_DOCS_QUESTION = re.compile(r"^\s*(how|what|what's|whats|which|where|when|why|who|is there|are there)\b", re.I)
_DOCS_WORDS = re.compile(
    r"\b(endpoints?|apis?|fields?|parameters?|operations?|schemas?|headers?|requests?|responses?|calls?|routes?)\b",
    re.I,
)


def asks_about_the_docs(question: str) -> bool:
    """Whether a question asks what the documentation says ("How do I …?", "Which endpoint …") rather
    than requesting a task ("Add the first song of … to my queue"). A task request names things to act
    on, so an unfamiliar word in it is a value; in a question about the docs it is what is asked about."""
    return bool(_DOCS_QUESTION.match(question) or _DOCS_WORDS.search(question))


def is_yes_no_question(question: str) -> bool:
    """Whether the question starts like a yes/no question ("Do the ATS endpoints need …")."""
    return bool(_YES_NO.match(question))


# ---------------------------------------------------------------------- the decision
@dataclass(frozen=True)
class Evidence:
    """What the question says that the index can check."""

    terms: tuple[str, ...]
    unknown: tuple[str, ...]
    rare: tuple[str, ...]
    unknown_paths: tuple[str, ...]
    unknown_identifiers: tuple[str, ...]
    half_known_identifiers: tuple[str, ...]
    unindexed_apis: tuple[str, ...]
    names_known_identifier: bool
    foreign_nouns: tuple[str, ...] = ()
    names_foreign_values: bool = False
    # Foreign nouns that modify the next word (`drone` delivery, `wine` pairing), and unknown words no
    # English lexicon lists that are no rare term either (`blockchain`, `websocket`: common words joined).
    foreign_modifiers: tuple[str, ...] = ()
    unlisted: tuple[str, ...] = ()
    # Unknown heads of foreign modifiers (`crossword` *puzzle*) and unknown verbs (`render`, `press`).
    modified_heads: tuple[str, ...] = ()
    actions: tuple[str, ...] = ()
    # English compounds the docs never use side by side (`sign language`, `Morse code`).
    compounds: tuple[str, ...] = ()
    # Activities the docs never mention (`origami`, `karate`): things only beside another foreign thing.
    acts: tuple[str, ...] = ()
    # Unknown words that may name something (not ordinary verbs, adjectives or adverbs: "did", "latest").
    unknown_names: tuple[str, ...] | None = None

    @property
    def unknown_content(self) -> tuple[str, ...]:
        """The unknown words that may name something (all of them when no lexicon judged them)."""
        return self.unknown if self.unknown_names is None else self.unknown_names

    @property
    def foreign_things(self) -> tuple[str, ...]:
        """Every word naming a thing the docs never mention: foreign nouns, heads or modifiers, unlisted
        compounds and telling rare terms."""
        things = (
            *self.foreign_nouns, *self.compounds, *self.foreign_modifiers, *self.modified_heads, *self.unlisted,
            *self.telling_rare,
        )
        # An action or an activity the docs never describe counts beside a foreign thing ("press locations onto
        # vinyl records", "the karate belt level").
        return tuple(dict.fromkeys((*things, *self.acts, *self.actions) if things else ()))

    @property
    def telling_rare(self) -> tuple[str, ...]:
        """The rare terms that count: none when the question names an identifier the index has (its own
        words are judged with it)."""
        return () if self.names_known_identifier else self.rare


def gather_evidence(
    question: str,
    profile: CorpusProfile,
    known_words: Iterable[str] = (),
    lexicon: Lexicon | None = None,
    means_known: MeansKnown | None = None,
) -> Evidence:
    """Check the question's terms, identifiers, paths and named APIs against the index (and, given an
    English lexicon, which unknown words name things; given `means_known`, which of those the index
    has in other words)."""
    extra = frozenset(known_words)
    # Paths are judged as paths (below), not word by word.
    terms = salient_terms(_PATH.sub(" ", _METHOD_PATH.sub(" ", question)))
    ignored = stop_words() | extra
    unknown_all = [t for t in terms if not profile.knows(t) and t not in ignored and t not in profile.apis]
    known = [t for t in terms if t not in unknown_all]
    # `stack` of a known `StackOne` is no evidence of anything unknown.
    unknown = tuple(t for t in unknown_all if not any(t != whole and t in whole for whole in known))
    paths = named_paths(question)
    unknown_paths = tuple(p for p in paths if not profile.knows_path(p))
    identifiers = identifiers_in(question)
    unknown_identifiers = [i for i in identifiers if not identifier_known(i, profile)]
    fully_unknown = tuple(i for i in unknown_identifiers if unknown_parts(i, profile))
    half_known = tuple(i for i in unknown_identifiers if i not in fully_unknown)
    names_known = len(unknown_identifiers) < len(identifiers) or len(unknown_paths) < len(paths)
    # Identifiers' own words are judged with the identifier, not again as terms.
    identifier_words = {w for i in identifiers for w in tokenize(i)}
    rare = tuple(t for t in rare_terms(unknown) if t not in identifier_words)
    plain = [t for t in unknown if t not in rare and t not in identifier_words]
    modifiers = foreign_nouns(question, plain, profile, lexicon, means_known, heads=False)
    compounds = foreign_compounds(question, profile, lexicon)
    return Evidence(
        tuple(terms),
        unknown,
        rare,
        unknown_paths,
        fully_unknown,
        half_known,
        tuple(unindexed_api_names(question, profile)),
        names_known,
        foreign_nouns(question, plain, profile, lexicon, means_known),
        names_foreign_values(question, profile, compounds),
        modifiers,
        unlisted_words(plain, lexicon, means_known),
        modified_heads(question, modifiers, plain, profile),
        foreign_actions(question, plain, lexicon),
        compounds,
        foreign_acts(question, plain, profile, lexicon, means_known),
        None if lexicon is None else tuple(t for t in unknown if not lexicon.usage(t) or lexicon.is_mainly_noun(t)),
    )


def decide(
    question: Query | str,
    top_similarity: float,
    profile: CorpusProfile,
    thresholds: GateThresholds | None = None,
    out_of_scope_similarity: float = 0.0,
    known_words: Iterable[str] = (),
    elliptical: bool = False,
    lexicon: Lexicon | None = None,
    meanings: Meanings | None = None,
) -> GateDecision:
    """Gate a question on retrieval evidence (see the module doc for what counts as evidence).

    `known_words` are words the engine understands beyond the index (those of an applied glossary).
    `elliptical` judges a follow-up as asked ("and the orders?"): being short or barely similar to any
    chunk is its nature, so a low similarity alone is no evidence there. `meanings` says which question
    words the index has in other words (rag.corpus.meanings).
    """
    thresholds = thresholds or GateThresholds()
    limit = thresholds.synonym_similarity
    means_known = (lambda words: meanings.close(words, limit)) if meanings is not None else None
    # A follow-up's earlier turn was in scope when it was asked; judge the words of this one.
    question = Query.of(question).focus
    evidence = gather_evidence(question, profile, known_words, lexicon, means_known)
    terms, unknown = evidence.terms, evidence.unknown
    known_share = 1.0 - (len(unknown) / len(terms)) if terms else 0.0
    score = max(0.0, min(1.0, 0.8 * (top_similarity / 0.6) + 0.2 * known_share))
    reasons: list[str] = [f"best similarity {top_similarity:.2f}"]
    if unknown:
        reasons.append("words the docs never use: " + ", ".join(unknown))
    signals = Signals(top_similarity, out_of_scope_similarity, not elliptical)
    reason = abstain_reason(question, evidence, profile, thresholds, signals)
    tier: Confidence = "answer"
    if reason:
        tier = "abstain"
        reasons.append(reason)
        score = min(score, 0.3)
    elif is_partial(evidence, top_similarity, thresholds):
        tier = "partial"
        if evidence.half_known_identifiers:
            reasons.append("identifiers not in the docs, though their words are: "
                           + ", ".join(evidence.half_known_identifiers))
    return GateDecision(tier, round(score, 4), top_similarity, unknown, tuple(reasons))


@dataclass(frozen=True)
class Signals:
    """The similarities the gate weighs: to the best chunk, to the out-of-scope prototypes; and whether a
    weak match counts as evidence (not for an elliptical follow-up)."""

    top: float
    out_of_scope: float = 0.0
    weak_is_evidence: bool = True


def abstain_reason(
    question: str, evidence: Evidence, profile: CorpusProfile, thresholds: GateThresholds, signals: Signals
) -> str:
    """Why the question must be abstained (positive evidence, first that applies); "" when none."""
    top, names_known, rare = signals.top, evidence.names_known_identifier, evidence.telling_rare
    docs_question = asks_about_the_docs(question) and not is_yes_no_question(question)
    asked_units = {unit.lower() for unit in RATE_UNIT.findall(question)}
    if signals.weak_is_evidence and not evidence.terms and not names_known and top < thresholds.partial_below:
        return "no content words"
    if signals.weak_is_evidence and top < thresholds.abstain_below:
        return f"nothing similar enough (below {thresholds.abstain_below:.2f})"
    if evidence.unknown_paths and not names_known:
        return "paths not in the docs: " + ", ".join(evidence.unknown_paths)
    if evidence.unknown_identifiers and not names_known:
        return "names not in the docs: " + ", ".join(evidence.unknown_identifiers)
    if evidence.unindexed_apis:
        return "asks about an API that is not indexed: " + ", ".join(evidence.unindexed_apis)
    if rare and (len(rare) >= 2 or top < thresholds.rare_term_similarity or docs_question):
        # "What's the GraphQL endpoint …" presupposes something the docs never mention; "Do the
        # endpoints need OAuth?" can be answered from what the docs do say, and in a task request
        # ("play some lofi") the unfamiliar word is a value: both stay partial.
        return "asks for something the docs never mention: " + ", ".join(rare)
    named_things = (*evidence.foreign_nouns, *evidence.compounds)
    if named_things and not evidence.names_foreign_values and asks_about_the_docs(question):
        # "How do I book a meeting room through the HRIS API?", "Can the LMS API render assignments in sign
        # language?": the thing asked about is named in plain English, and the docs use neither the word
        # (or the compound) nor a synonym of it.
        return "asks about things the docs never mention: " + ", ".join(named_things)
    things = evidence.foreign_things
    if len(things) >= 2 and not evidence.names_foreign_values and asks_about_the_docs(question):
        # "Which endpoint writes contacts to a blockchain ledger?", "How do I schedule a drone delivery?":
        # two or more words name things the docs never mention, even where none heads its phrase.
        return "asks about things the docs never mention: " + ", ".join(things)
    if len(evidence.unknown_content) >= 2 and top < thresholds.partial_below:
        return "a weak match, and several words the docs never use"
    if asked_units and not (asked_units & profile.rate_units):
        return "asks for a rate per " + "/".join(sorted(asked_units)) + "; the docs state none"
    if signals.out_of_scope >= thresholds.out_of_scope_floor and signals.out_of_scope > top + (
        thresholds.out_of_scope_margin
    ):
        return f"closer to an out-of-scope request ({signals.out_of_scope:.2f})"
    return ""


def is_partial(evidence: Evidence, top_similarity: float, thresholds: GateThresholds) -> bool:
    """Weak evidence either way: a weak match, or words, terms or identifiers the docs do not use."""
    return bool(
        top_similarity < thresholds.partial_below
        or evidence.telling_rare
        or evidence.foreign_nouns
        or evidence.compounds
        or evidence.half_known_identifiers
        or (len(evidence.unknown) >= 2 and not evidence.names_known_identifier)
    )
