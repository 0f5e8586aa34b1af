"""Unknown detection: a retrieval-confidence gate with answer / partial / abstain tiers.

Signals: the best cosine similarity between the query and any indexed chunk, and which of the
question's salient terms the indexed documentation never mentions ("weather", "blood_type").
Thresholds are calibrated on the dev set (see `make calibrate` / the closing notes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rag.index.bm25 import tokenize
from rag.results import Confidence
from rag.retrieve.profile import RATE_UNIT, CorpusProfile, word_forms
from rag.rewrite import current_question

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


# Questions no API specification answers: the gate compares a query with these as well as with
# the indexed chunks (a small semantic router). Each line is one kind of out-of-scope request.
OUT_OF_SCOPE_PROTOTYPES: tuple[str, ...] = (
    "How much does it cost? What are the pricing plans and subscription fees?",
    "What is the price per API call, billing and invoices?",
    "What is the weather forecast today?",
    "Who won the football match last night?",
    "What is the SLA and uptime guarantee of the company?",
    "Who is the CEO of the company and where is its office?",
    "Write me a poem or tell me a joke",
    "What is the capital of France and other general knowledge",
    "How do I cook pasta, a recipe",
    "What stock price and revenue does the company have?",
)


@dataclass(frozen=True)
class GateThresholds:
    """Cut-offs of the gate (cosine similarities), calibrated on the dev set."""

    abstain_below: float = 0.25
    partial_below: float = 0.40
    out_of_scope_margin: float = 0.05
    out_of_scope_floor: float = 0.40
    rare_term_similarity: float = 0.45
    unknown_majority_below: float = 0.0
    foreign_terms_abstain: int = 3
    foreign_pair_below: float = 0.45


# Similarities depend on the embedding model, so each model has its own calibration.
CALIBRATIONS: dict[str, GateThresholds] = {
    "all-MiniLM-L6-v2": GateThresholds(),
    "hashing-384": GateThresholds(
        abstain_below=0.08,
        partial_below=0.15,
        out_of_scope_floor=1.01,
        rare_term_similarity=0.2,
        unknown_majority_below=1.0,
    ),
}


def thresholds_for(embedding_model: str) -> GateThresholds:
    """The calibrated thresholds of an embedding model (the MiniLM ones when it has none)."""
    return CALIBRATIONS.get(embedding_model, GateThresholds())


@dataclass(frozen=True)
class GateDecision:
    """The tier, a 0–1 confidence score and the evidence behind it."""

    tier: Confidence
    score: float
    top_similarity: float
    unknown_terms: tuple[str, ...] = ()
    reasons: tuple[str, ...] = field(default_factory=tuple)


def salient_terms(question: str) -> list[str]:
    """Content words and identifiers of a question (generic words dropped)."""
    terms = []
    for token in tokenize(question):
        if len(token) < 3 or token.isdigit() or token in GENERIC_TERMS:
            continue
        terms.append(token)
    return list(dict.fromkeys(terms))


def identifiers_in(question: str) -> list[str]:
    """Identifier-like words (`blood_type`, `x-account-id`, `createdAt`, text in backticks)."""
    found = re.findall(r"`([^`]{2,60})`", question)
    found += re.findall(
        r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z]+\b|\b[a-z]+(?:-[a-z0-9]+){2,}\b", question
    )
    return list(dict.fromkeys(f.strip() for f in found if f.strip()))


_NAMED_API = re.compile(
    r"\b(?:the|stackone(?:'s)?|a|an)\s+([A-Za-z][A-Za-z-]*)\s+(?:api|apis|sdk|sdks)\b", re.IGNORECASE
)
_NOT_A_NAME = frozenset(
    "the a an this that which what your our my their rest http https web public same right one other any each "
    "every unified stackone open graph its own".split()
)


def unindexed_api_names(question: str, profile: CorpusProfile) -> list[str]:
    """Names in "<name> API"/"<name> SDK" that are not an indexed API (e.g. "the ticketing API")."""
    known: set[str] = set()
    for api in profile.apis:
        known.add(api)
        known.update(re.split(r"[-_. ]+", api))
        known.update(re.findall(r"[a-z0-9]+", profile.api_titles.get(api, "").lower()))
    names = []
    for name in _NAMED_API.findall(question):
        lowered = name.lower()
        if lowered in _NOT_A_NAME or lowered in known or lowered in GENERIC_TERMS:
            continue
        names.append(lowered)
    return names


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
    """Terms that are neither common English words nor short acronyms (`graphql`, `kubernetes`, `hmac`)."""
    vocabulary = common_words()
    if not vocabulary:
        return []
    return [
        t
        for t in terms
        if t.isalpha()
        and len(t) >= 4
        and not any(form in vocabulary for form in word_forms(t) if len(form) >= 4)
        and not t.endswith("ly")  # manner adverbs ("programmatically") are never the topic
        and not _compound_of_common_words(t, vocabulary)
    ]


def _compound_of_common_words(term: str, vocabulary: frozenset[str]) -> bool:
    """`timeout` (time + out) and `workflow` (work + flow) are ordinary words written together."""
    return any(term[:cut] in vocabulary and term[cut:] in vocabulary for cut in range(3, len(term) - 2))


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English stop words (scikit-learn's list, installed with sentence-transformers) plus contractions."""
    words = set(GENERIC_TERMS) | {"don", "doesn", "isn", "aren", "didn", "won", "can", "hey", "hi", "please"}
    words.add("regarding")  # the marker of an offline follow-up rewrite
    try:  # the private module is the cheap import; the public path is the fallback
        from sklearn.feature_extraction._stop_words import ENGLISH_STOP_WORDS
    except ImportError:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
    return frozenset(words | set(ENGLISH_STOP_WORDS))


@lru_cache(maxsize=1)
def glossary_words() -> frozenset[str]:
    """Words the query-expansion glossary maps (either side): the engine understands them."""
    from rag.retrieve.synonyms import GLOSSARY

    return frozenset(
        word for phrase in (*GLOSSARY, *GLOSSARY.values()) for word in re.findall(r"[a-z0-9]+", phrase.lower())
    )


def foreign_terms(unknown: Sequence[str]) -> list[str]:
    """Unknown words that carry content: not stop words, not glossary words (`soap`, `refund`, `heap`).

    Parts of an unknown compound (`sign` of `sign-on`, `graph` of `graphql`) are not counted again.
    """
    ignored = stop_words() | glossary_words()
    kept = [t for t in unknown if t not in ignored and not any(form in ignored for form in word_forms(t))]
    return [t for t in kept if not any(t != other and _part_of(t, other) for other in kept)]


def _part_of(term: str, other: str) -> bool:
    return other.startswith(term) or term in re.split(r"[-_]", other)


_YES_NO = re.compile(r"^\s*(do|does|did|is|are|was|were|can|could|will|would|should|has|have|may)\b", re.I)


def is_yes_no_question(question: str) -> bool:
    """Whether the question starts like a yes/no question ("Do the ATS endpoints need …")."""
    return bool(_YES_NO.match(question))


def decide(
    question: str,
    top_similarity: float,
    profile: CorpusProfile,
    thresholds: GateThresholds | None = None,
    out_of_scope_similarity: float = 0.0,
) -> GateDecision:
    """Gate a question on retrieval evidence.

    Abstain when nothing indexed is similar enough, when the question names an identifier the
    documentation never mentions, or when it is closer to a known out-of-scope request
    (pricing, weather, …) than to any chunk. Partial when the match is weak.
    """
    thresholds = thresholds or GateThresholds()
    # A follow-up's earlier turn was in scope when it was asked; judge the words of this one.
    question = current_question(question)
    terms = salient_terms(question)
    unknown_all = [t for t in terms if not profile.knows(t) and t not in glossary_words() and t not in profile.apis]
    # `stack` of a known `StackOne` is no evidence of anything unknown.
    known = [t for t in terms if t not in unknown_all]
    unknown = tuple(t for t in unknown_all if not any(t != whole and t in whole for whole in known))
    foreign = foreign_terms(unknown)
    identifiers = identifiers_in(question)
    unknown_identifiers = [i for i in identifiers if not profile.knows(i.lower())]
    # Naming an identifier of the docs (`crm_list_lists`) puts a question in scope whatever else it says.
    names_known_identifier = len(unknown_identifiers) < len(identifiers)
    rare = rare_terms(unknown)
    if names_known_identifier:
        foreign, rare = [], []
    known_share = 1.0 - (len(unknown) / len(terms)) if terms else 0.0
    score = max(0.0, min(1.0, 0.8 * (top_similarity / 0.6) + 0.2 * known_share))
    reasons: list[str] = [f"best similarity {top_similarity:.2f}"]
    if unknown:
        reasons.append("words the docs never use: " + ", ".join(unknown))
    tier: Confidence = "answer"
    if not terms and top_similarity < thresholds.partial_below:
        tier = "abstain"
        reasons.append("no content words")
    elif top_similarity < thresholds.abstain_below:
        tier = "abstain"
    elif unknown_identifiers:
        tier = "abstain"
        reasons.append("names not in the docs: " + ", ".join(unknown_identifiers))
    elif unindexed_api_names(question, profile):
        tier = "abstain"
        reasons.append("asks about an API that is not indexed: " + ", ".join(unindexed_api_names(question, profile)))
    elif len(unknown) >= 2 and known_share < 0.5 and top_similarity < thresholds.unknown_majority_below:
        tier = "abstain"
        reasons.append("most of its words never occur in the docs")
    elif len(foreign) >= thresholds.foreign_terms_abstain or (
        len(foreign) >= 2 and (rare or top_similarity < thresholds.foreign_pair_below)
    ):
        tier = "abstain"
        reasons.append("several content words the docs never use: " + ", ".join(foreign))
    elif len(rare) >= 2 or (rare and top_similarity < thresholds.rare_term_similarity):
        tier = "abstain"
        reasons.append("technical terms the docs never mention: " + ", ".join(rare))
    elif rare and not is_yes_no_question(question):
        # "What's the GraphQL endpoint …" presupposes something the docs never mention; "Do the
        # endpoints need OAuth?" can be answered from what the docs do say, so it stays partial.
        tier = "abstain"
        reasons.append("asks for something the docs never mention: " + ", ".join(rare))
    elif (asked_units := {unit.lower() for unit in RATE_UNIT.findall(question)}) and not (
        asked_units & profile.rate_units
    ):
        tier = "abstain"
        reasons.append("asks for a rate per " + "/".join(sorted(asked_units)) + "; the docs state none")
    elif (
        out_of_scope_similarity >= thresholds.out_of_scope_floor
        and out_of_scope_similarity > top_similarity + thresholds.out_of_scope_margin
    ):
        tier = "abstain"
        reasons.append(f"closer to an out-of-scope request ({out_of_scope_similarity:.2f})")
    elif top_similarity < thresholds.partial_below or rare:
        tier = "partial"
    if tier == "abstain":
        score = min(score, 0.3)
    return GateDecision(tier, round(score, 4), top_similarity, unknown, tuple(reasons))
