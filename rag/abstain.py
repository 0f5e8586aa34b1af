"""Unknown detection: a confidence gate with answer / partial / abstain tiers, from evidence about content.

The gate abstains only on evidence about what the index holds, never on the words a question uses:

- nothing indexed is similar enough (below the typical similarity of generic off-topic requests to
  *this* index, calibrated per index by `calibrate`);
- no operation does what is asked: the question is far from every operation's summary (short texts,
  compared like with like) and from every chunk, once its likeness to off-topic requests is weighed in;
- the question is closer to an out-of-scope prototype (pricing, weather, …) than to any chunk or
  operation summary;
- it names an identifier, path or API that the index truly does not have (every identifier form is
  recognised: `METHOD /path`, templated and concrete paths, backticks, snake_case, camelCase,
  kebab-case, operationIds).

People do not use a spec's vocabulary: a question in words the docs never use ("personnel file" for an
employee record) is at most `partial`, never abstained. When an LLM is configured it also judges whether
the retrieved chunks answer the question (rag.gate).
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
from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import GENERIC_TERMS, stop_words, tokenize, word_forms
from rag.names import without_names_and_values
from rag.query import Query
from rag.question_analysis import asked_cue_words
from rag.results import Confidence

# What a question asks of a whole API it names, which no operation does and documentation states ("what's the rate
# limit of hetzner?"): being far from every operation's summary is no evidence that the index cannot answer it.
OF_THE_API = frozenset({"rate_limit", "auth"})
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
    # Closer to an out-of-scope prototype than to any chunk by this much (and at least this similar to it).
    out_of_scope_margin: float = 0.15
    out_of_scope_floor: float = 0.40
    # No operation does what is asked: best summary similarity minus half the out-of-scope similarity below
    # `no_operation_below`, while no chunk is a strong match either (best chunk similarity minus half the
    # out-of-scope similarity below `strong_chunk_from`). None switches the check off (a model without
    # calibrated figures for it).
    no_operation_below: float | None = 0.05
    strong_chunk_from: float = 0.38


# Similarities depend on the embedding model: the model-free hashing embedder gives far lower ones.
CALIBRATIONS: dict[str, GateThresholds] = {
    "all-MiniLM-L6-v2": GateThresholds(),
    "hashing-384": GateThresholds(
        abstain_below=0.08, partial_below=0.15, out_of_scope_floor=0.3, out_of_scope_margin=0.2,
        no_operation_below=None,
    ),
}


def thresholds_for(embedding_model: str) -> GateThresholds:
    """The default thresholds of an embedding model (the MiniLM ones when it has none)."""
    return CALIBRATIONS.get(embedding_model, GateThresholds())


def calibrate(base: GateThresholds, off_topic_similarities: Sequence[float]) -> GateThresholds:
    """Thresholds for one index from how similar generic off-topic requests are to it.

    Each out-of-scope prototype's best similarity to the index says how high an unrelated question
    scores against this corpus (a large, wordy corpus scores higher than a small one). Below their lower
    quartile nothing is similar enough (abstain): a question less like the docs than three in four
    off-topic requests are. Below their highest the match is weak (partial). The model's defaults bound
    the result so a corpus can never make the gate stricter than they are.
    """
    values = sorted(float(v) for v in off_topic_similarities)
    if not values:
        return base
    lower_quartile, median = values[len(values) // 4], values[len(values) // 2]
    return replace(
        base,
        abstain_below=round(min(base.abstain_below, lower_quartile), 4),
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
_VALUES = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:https?://|www\.)\S+|\"[^\"]{1,200}\"|“[^”]{1,200}”|'[^'\s][^']{0,199}'(?!\w)"
)


def identifiers_in(question: str) -> list[str]:
    """Identifier-like words (`blood_type`, `x-account-id`, `createdAt`, identifiers in backticks).

    Paths are returned by `named_paths`; values the user names are no identifiers of the API: e-mail
    addresses, URLs, quoted strings, text in backticks that is not shaped like an identifier (`Love
    Mariah`, `1800`) and words with digits outside backticks.
    """
    without_paths = _PATH.sub(" ", _METHOD_PATH.sub(" ", _VALUES.sub(" ", question)))
    found = [t.strip() for t in _BACKTICKS.findall(without_paths) if _IDENTIFIER_SHAPE.match(t.strip())]
    # Outside backticks a word with digits is a value the user names (`user_42`, `covid-19-data`).
    words = _IDENTIFIER_WORD.findall(_BACKTICKS.sub(" ", without_paths))
    found += [w for w in words if not any(c.isdigit() for c in w)]
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
    known = {*profile.apis, *profile.api_aliases}
    for name in _NAMED_API.findall(question):
        lowered = name.lower()
        if lowered in _NOT_A_NAME or lowered in stop_words():
            continue
        parts = [p for p in re.split(r"[-_]", lowered) if p]
        if any(p in known or any(f in profile.structural_terms for f in word_forms(p)) for p in parts):
            continue
        names.append(lowered)
    return names


# ---------------------------------------------------------------------- the decision
@dataclass(frozen=True)
class Evidence:
    """What the question names that the index can check."""

    terms: tuple[str, ...]
    unknown: tuple[str, ...]
    unknown_paths: tuple[str, ...]
    unknown_identifiers: tuple[str, ...]
    half_known_identifiers: tuple[str, ...]
    unindexed_apis: tuple[str, ...]
    names_known_identifier: bool


def gather_evidence(question: str, profile: CorpusProfile, known_words: Iterable[str] = ()) -> Evidence:
    """Check the question's terms, identifiers, paths and named APIs against the index."""
    extra = frozenset(known_words)
    # Paths are judged as paths (below), not word by word.
    terms = salient_terms(_PATH.sub(" ", _METHOD_PATH.sub(" ", question)))
    ignored = stop_words() | extra if extra else stop_words()
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
    return Evidence(
        tuple(terms), unknown, unknown_paths, fully_unknown, half_known,
        tuple(unindexed_api_names(question, profile)), names_known,
    )


def decide(
    question: Query | str,
    top_similarity: float,
    profile: CorpusProfile,
    thresholds: GateThresholds | None = None,
    out_of_scope_similarity: float = 0.0,
    known_words: Iterable[str] = (),
    elliptical: bool = False,
    summary_similarity: float | None = None,
    asks_changes: bool = False,
) -> GateDecision:
    """Gate a question on retrieval evidence (see the module doc for what counts as evidence).

    `known_words` are words the engine understands beyond the index (those of an applied glossary).
    `elliptical` judges a follow-up as asked ("and the orders?"): being short or barely similar to any
    chunk is its nature, so a low similarity alone is no evidence there. `summary_similarity` is the best
    similarity to an operation's summary (None: the index has no operations). `asks_changes`: the question names an
    older indexed version ("what changed since 2025-02?").
    """
    thresholds = thresholds or GateThresholds()
    query = Query.of(question)
    named = set(re.findall(r"[a-z0-9]+", query.focus.lower())) & {*profile.apis, *profile.api_aliases}
    # A follow-up's earlier turn was in scope when it was asked; judge the words of this one.
    question = query.focus
    evidence = gather_evidence(question, profile, known_words)
    # "How do I authenticate?", naming nothing but how to authenticate, asks it of the indexed APIs.
    cue_words = asked_cue_words(question, "auth")
    only_auth = bool(cue_words) and set(evidence.terms) <= cue_words and not evidence.unindexed_apis
    # What changed since a version the question names is the API's, stated by its change chunks, done by no operation.
    of_the_api = bool(named and query.analysis.asks & OF_THE_API) or only_auth or asks_changes
    terms, unknown = evidence.terms, evidence.unknown
    known_share = 1.0 - (len(unknown) / len(terms)) if terms else 0.0
    score = max(0.0, min(1.0, 0.8 * (top_similarity / 0.6) + 0.2 * known_share))
    reasons: list[str] = [f"best similarity {top_similarity:.2f}"]
    if summary_similarity is not None:
        reasons.append(f"best operation summary {summary_similarity:.2f}")
    reasons.append(f"out-of-scope similarity {out_of_scope_similarity:.2f}")
    if unknown:
        reasons.append("words the docs never use: " + ", ".join(unknown))
    signals = Signals(top_similarity, out_of_scope_similarity, not elliptical, summary_similarity, of_the_api,
                      only_auth)
    reason = abstain_reason(evidence, thresholds, signals)
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
        if evidence.unindexed_apis:
            reasons.append("names an API that is not indexed: " + ", ".join(evidence.unindexed_apis))
    return GateDecision(tier, round(score, 4), top_similarity, unknown, tuple(reasons))


@dataclass(frozen=True)
class Signals:
    """The similarities the gate weighs: to the best chunk, to the out-of-scope prototypes, to the best
    operation summary (None without operations); and whether a weak match counts as evidence (not for an
    elliptical follow-up)."""

    top: float
    out_of_scope: float = 0.0
    weak_is_evidence: bool = True
    summary: float | None = None
    of_the_api: bool = False  # it asks what no operation does of an API it names: its rate limit, how to authenticate
    # It asks only how to authenticate ("how do I authenticate?"): of the indexed APIs, however close a request
    # about a dashboard's login is.
    only_auth: bool = False

    def closest(self) -> float:
        """The best similarity to anything indexed: a chunk or an operation's summary."""
        return self.top if self.summary is None else max(self.top, self.summary)

    def no_operation_matches(self, thresholds: GateThresholds) -> bool:
        """Whether the question is far from every operation's summary and no chunk is a strong match, with
        half its similarity to off-topic requests counted against it."""
        if thresholds.no_operation_below is None or self.summary is None or not self.weak_is_evidence or (
                self.of_the_api):
            return False
        penalty = 0.5 * self.out_of_scope
        return (
            self.summary - penalty < thresholds.no_operation_below and self.top - penalty < thresholds.strong_chunk_from
        )


def abstain_reason(evidence: Evidence, thresholds: GateThresholds, signals: Signals) -> str:
    """Why the question must be abstained (evidence about the index's content, first that applies); ""
    when none."""
    top, names_known = signals.top, evidence.names_known_identifier
    if signals.weak_is_evidence and top < thresholds.abstain_below:
        return f"nothing similar enough (below {thresholds.abstain_below:.2f})"
    if evidence.unknown_paths and not names_known:
        return "paths not in the docs: " + ", ".join(evidence.unknown_paths)
    if evidence.unknown_identifiers and not names_known:
        return "names not in the docs: " + ", ".join(evidence.unknown_identifiers)
    if not names_known and signals.no_operation_matches(thresholds):
        return "no operation does this (far from every operation's summary)"
    if not signals.only_auth and signals.out_of_scope >= thresholds.out_of_scope_floor and (
            signals.out_of_scope > signals.closest() + thresholds.out_of_scope_margin):
        return f"closer to an out-of-scope request ({signals.out_of_scope:.2f})"
    return ""


def is_partial(evidence: Evidence, top_similarity: float, thresholds: GateThresholds) -> bool:
    """Weak evidence either way: a weak match, words or identifiers the docs do not use, an API not indexed."""
    return bool(
        top_similarity < thresholds.partial_below
        or evidence.half_known_identifiers
        or evidence.unindexed_apis
        or (len(evidence.unknown) >= 2 and not evidence.names_known_identifier)
    )
