"""The features of a (question, candidate) pair that the learned ranker reads.

Every signal the pipeline already computes, as numbers: each first-stage retriever's score and rank and their
agreement; the similarity of the question to what the operation does (its summary, or its description's first
sentence, and its operationId or path in words: short texts, compared like with like); the question's action
against the operation's method; the resource it names against the path's segments and the operationId; word
overlap with the summary, description, parameter and field names; the kind of chunk; the API the question names;
the path's depth. The question-level signals (does it ask for fields, for an operation, for authentication, does
it name values) are features too, so the model learns how they change what a good candidate is.

Nothing here is a weight: the ranker (rag.rerank.learned) learns what the features are worth from labelled
questions on many specs (scripts/train_ranker.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from rag.chunk import KINDS, Chunk, described, operation_path
from rag.corpus.path_words import is_item_path, resource_segments, segment_words
from rag.corpus.paths import acted_on_path, named_paths, path_fits, path_shape, top_segment
from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import (
    normalize_term,
    opening_sentence,
    operation_words,
    readable_name,
    stop_words,
    tokenize,
    word_forms,
)
from rag.query import Query
from rag.results import RetrievedChunk
from rag.write_check import write_target

# How the question asks for fields, for an operation, for authentication (HTTP's own vocabulary, not a corpus's).
_ASKS_FIELDS = re.compile(r"\b(fields?|propert(?:y|ies)|schema|model|object|enums?|types?|values|statuses)\b", re.I)
_ASKS_OPERATION = re.compile(r"\b(endpoints?|routes?|operations?|api calls?|urls?)\b", re.I)
_ASKS_AUTH = re.compile(
    r"\b(?:authenticat\w*|authoriz\w*|authoris\w*|auth|credentials?|bearer|oauth\w*|api[ -]?keys?|"
    r"access tokens?|security schemes?)\b",
    re.I,
)
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z]+[_\-][A-Za-z0-9_\-]+|[a-z]+[A-Z][A-Za-z]+)\b")
_TAG = re.compile(r"<[^>]+>|\[([^\]]*)\]\([^)]*\)")
# A retriever's rank when the candidate is not in its list at all.
ABSENT_RANK = 100

FEATURE_NAMES: tuple[str, ...] = (
    # first-stage retrieval
    "vector", "vector_gap", "vector_rank", "bm25_share", "bm25_rank", "fused_rank", "in_both",
    # short texts: what the operation does
    "lead_similarity", "lead_gap", "name_similarity", "name_gap",
    # structure
    "method_match", "method_mismatch", "resource_match", "resource_in_path", "parents_named", "parents_unnamed",
    "path_named", "identifier_share", "api_named", "main_resource", "lookup_operation", "item_path", "path_depth",
    "path_parameters",
    # word overlap, each the share of the question's content words (IDF-weighted) found there
    "overlap_path", "overlap_operation_id", "overlap_summary", "overlap_description", "overlap_parameters",
    "overlap_body", "overlap_response", "overlap_name", "overlap_all",
    # the kind of chunk
    *(f"kind_{kind}" for kind in KINDS),
    "schema_part", "described",
    # the question
    "asks_fields", "asks_operation", "asks_auth", "asks_write", "has_method", "names_values", "question_terms",
    "follow_up", "candidates",
    # the conversation: the candidate is its subject (the operation the last answer was about), or another
    # operation on the subject's resource (its path, or the path of its collection or item)
    "subject", "subject_resource",
)


@dataclass(frozen=True)
class QuestionSignals:
    """What the features read of the question once: its content words (with IDF weights over the corpus), the
    methods its verbs point to, what it names, what it asks for."""

    terms: tuple[str, ...]
    weights: tuple[float, ...]
    methods: frozenset[str]
    identifiers: tuple[str, ...]
    paths: frozenset[str]
    named_apis: frozenset[str]
    asks_fields: bool
    asks_operation: bool
    asks_auth: bool
    asks_write: bool
    names_values: bool
    follow_up: bool
    # The conversation's subject: its structural id and its path without parameters ("" when none).
    subject: str = ""
    subject_path: str = ""

    @cached_property
    def _term_forms(self) -> tuple[tuple[frozenset[str], float], ...]:
        return tuple((word_forms(t), w) for t, w in zip(self.terms, self.weights, strict=True))

    @cached_property
    def _form_terms(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Each word form of the question's terms with the terms (their positions) it is a form of."""
        found: dict[str, list[int]] = {}
        for position, (forms, _) in enumerate(self._term_forms):
            for form in forms:
                found.setdefault(form, []).append(position)
        return tuple((form, tuple(positions)) for form, positions in found.items())

    def _masks(self, part_masks: Mapping[str, int]) -> list[int]:
        """For each term, the parts (bits of `OVERLAP_PARTS`) of one chunk in which any of its forms occurs."""
        masks = [0] * len(self.terms)
        for form, positions in self._form_terms:
            found = part_masks.get(form)
            if found:
                for position in positions:
                    masks[position] |= found
        return masks

    @cached_property
    def _total_weight(self) -> float:
        return sum(self.weights)

    def share(self, forms: frozenset[str]) -> float:
        """The IDF-weighted share of the question's terms whose word forms meet `forms`."""
        if not self._total_weight:
            return 0.0
        return sum(w for term_forms, w in self._term_forms if not term_forms.isdisjoint(forms)) / self._total_weight

    def part_shares(self, words: Sequence[ChunkWords]) -> np.ndarray:
        """`share` of each of `OVERLAP_PARTS` for each chunk, a row per chunk: every term looked up once in each
        chunk's `ChunkWords.part_masks` (summed in the terms' order, as `share` sums)."""
        shares = np.zeros((len(words), len(OVERLAP_PARTS)))
        if not self._total_weight or not words:
            return shares
        masks = np.array([self._masks(w.part_masks) for w in words], dtype=np.int64)
        masks = masks.reshape(len(words), len(self.terms))
        bits = (masks[:, :, None] >> np.arange(len(OVERLAP_PARTS))) & 1
        for column, weight in enumerate(self.weights):
            shares += weight * bits[:, column, :]
        return shares / self._total_weight


def question_signals(query: Query, profile: CorpusProfile, named_apis: Sequence[str], names_values: bool
                     ) -> QuestionSignals:
    """The question's signals; `named_apis` are the APIs it names itself, `names_values` whether it names values
    the index does not have (rag.retrieve.lookup)."""
    focus = query.focus
    ignored = stop_words()
    terms = tuple(dict.fromkeys(
        normalize_term(t) for t in tokenize(query.searched)
        if len(t) > 2 and not t.isdigit() and t not in ignored and "/" not in t
    ))
    operations = max(len(profile.operations), 1)
    weights = tuple(_idf(profile, term, operations) for term in terms)
    return QuestionSignals(
        terms=terms,
        weights=weights,
        methods=query.analysis.methods(profile.verb_methods),
        identifiers=tuple(m.lower() for m in _IDENTIFIER.findall(focus)),
        paths=frozenset(path_shape(path) for path in named_paths(focus)),
        named_apis=frozenset(named_apis),
        asks_fields=bool(_ASKS_FIELDS.search(focus)),
        asks_operation=bool(_ASKS_OPERATION.search(focus)),
        asks_auth=bool(_ASKS_AUTH.search(focus)),
        asks_write=query.analysis.write is not None,
        names_values=names_values,
        follow_up=query.follows_up,
        subject=query.subject,
        subject_path=_resource_path(operation_path(query.subject)),
    )


def _resource_path(path: str) -> str:
    """A path's resource segments joined (`/guilds/{id}/bans/{user_id}` → guilds/bans), an RPC path's verb left out
    (`acted_on_path`): an operation on the collection, one on its item and an RPC action on it share it."""
    return "/".join(resource_segments(acted_on_path(path))) if path else ""


def _idf(profile: CorpusProfile, term: str, operations: int) -> float:
    """How rare a term is among the corpus's operations (a word no operation names counts as rare)."""
    count = sum(profile.term_apis.get(term, {}).values()) if term not in profile.apis else operations
    return math.log(1.0 + operations / (1.0 + min(count, operations)))


@dataclass(frozen=True)
class ChunkWords:
    """The word forms of each part of a chunk that a question may name (computed once per chunk)."""

    path: frozenset[str]
    resource: frozenset[str]
    parents: tuple[str, ...]
    operation_id: frozenset[str]
    summary: frozenset[str]
    description: frozenset[str]
    parameters: frozenset[str]
    body: frozenset[str]
    response: frozenset[str]
    name: frozenset[str]
    everything: frozenset[str]
    # What an operation's path says whatever the question (the question-independent structure features)
    text: str  # the chunk's text, lower-cased (for the identifiers a question names)
    write_resource: str
    write_methods: frozenset[str]
    top: str  # the path's first segment after the API's prefixes
    depth: int
    item_path: bool
    path_parameters: int
    resource_path: str
    # Each word form → the parts it occurs in (a bit per part of `OVERLAP_PARTS`)
    part_masks: Mapping[str, int]
    # The chunk's kind columns (`kind_*`, `schema_part`, `described`), whatever the question
    kind_columns: tuple[float, ...]


# The parts of a chunk whose overlap with the question is a feature (`overlap_*`, then the resource's own share)
OVERLAP_PARTS: tuple[str, ...] = (
    "path", "operation_id", "summary", "description", "parameters", "body", "response", "name", "everything",
    "resource",
)


def _part_masks(parts: Mapping[str, frozenset[str]]) -> dict[str, int]:
    masks: dict[str, int] = {}
    for bit, part in enumerate(OVERLAP_PARTS):
        for form in parts[part]:
            masks[form] = masks.get(form, 0) | (1 << bit)
    return masks


def _forms(text: str) -> frozenset[str]:
    return frozenset(form for t in tokenize(text) if len(t) > 2 for form in word_forms(normalize_term(t)))


def _field_names(fields: Sequence[object]) -> str:
    names: list[str] = []
    for item in fields:
        names.append(getattr(item, "name", ""))
        names.extend(getattr(inner, "name", "") for inner in getattr(item, "fields", ()))
    return " ".join(names)


def chunk_words(chunk: Chunk, prefixes: frozenset[str]) -> ChunkWords:
    """The word forms of a chunk's parts (`prefixes`: its API's shared path prefixes, left out of the path)."""
    segments = [s for s in resource_segments(chunk.path) if s not in prefixes] if chunk.path else []
    last = segments[-1] if segments else ""
    parents = tuple(dict.fromkeys(
        normalize_term(word) for segment in segments[:-1] for word in segment_words(segment) if len(word) > 2
    ))
    body = _field_names(chunk.request_body.fields) if chunk.request_body else ""
    response = " ".join(_field_names(r.fields) for r in chunk.responses if r.success)
    description = " ".join(chunk.description.split()[:80])
    name = chunk.title if chunk.kind != "operation" else ""
    parts = {
        "path": " ".join(segments), "resource": last, "operation_id": readable_name(chunk.operation_id),
        "summary": chunk.summary, "description": description,
        "parameters": _field_names(chunk.parameters), "body": body, "response": response,
        "name": readable_name(name) + " " + _field_names(chunk.schema_fields),
    }
    forms = {key: _forms(text) for key, text in parts.items()}
    everything = frozenset().union(*forms.values())
    write_resource, write_methods = write_target(chunk.method or "", chunk.path) if chunk.path else ("", frozenset())
    return ChunkWords(
        **forms, parents=parents, everything=everything, text=chunk.text.lower(),
        write_resource=write_resource, write_methods=write_methods,
        top=top_segment(chunk.api, chunk.path, prefixes) if chunk.path else "", depth=len(segments),
        item_path=bool(chunk.path) and is_item_path(chunk.path), path_parameters=chunk.path.count("{"),
        resource_path=_resource_path(chunk.path),
        part_masks=_part_masks({**forms, "everything": everything}),
        kind_columns=(*_KIND_COLUMNS.get(chunk.kind, _KIND_COLUMNS[""]), float(chunk.parts > 1),
                      float(described(chunk))),
    )


def lead_text(chunk: Chunk) -> str:
    """What a chunk says it does in one short text: an operation's summary (`summary_opening`), else (a summary
    opening with an aside) its operationId in words (`operation_words`), else its description's first sentence,
    else (an operation the spec neither describes nor names: no summary, description or operationId) what its
    method, path and required body fields say (`bare_operation_words`); a schema's or doc's title, else its
    description's first sentence."""
    if chunk.summary.strip() and (said := operation_words(chunk.summary, chunk.operation_id, "", "")):
        return said
    description = " ".join(_TAG.sub(lambda m: m.group(1) or " ", chunk.description).split())
    sentence = opening_sentence(description)
    if not sentence and chunk.kind == "operation" and chunk.path and not chunk.operation_id.strip():
        return bare_operation_words(chunk)
    return sentence[:200] or readable_name(chunk.title) or chunk.title


# What each method does to what its path addresses, in HTTP's own words (a collection's GET lists it).
_METHOD_VERBS = {"get": "get", "post": "create", "put": "update", "patch": "update", "delete": "delete"}
MAX_BARE_FIELDS, MAX_BARE_VALUES = 4, 4


def bare_operation_words(chunk: Chunk) -> str:
    """An operation the spec says nothing about in words, in words: the action its method does on what its path
    addresses, the resource it hangs under, and the required fields of its request body with their allowed
    values (`POST /documents` → "create documents with content, content type (application/pdf, image/jpeg, …)")."""
    method = chunk.method.lower()
    verb = "list" if method == "get" and not is_item_path(chunk.path) else _METHOD_VERBS.get(method, method)
    resources = [" ".join(segment_words(s)) for s in resource_segments(chunk.path)]
    said = " ".join([verb, *resources[-1:]])
    if len(resources) > 1:
        said += " of " + resources[-2]
    body = chunk.request_body.fields if chunk.request_body else ()
    wanted = [f for f in body if f.required][:MAX_BARE_FIELDS]
    if wanted:
        parts = []
        for field_facts in wanted:
            name = " ".join(segment_words(field_facts.name))
            values = [v for v in field_facts.enum if not v.lstrip("-").isdigit()][:MAX_BARE_VALUES]
            parts.append(f"{name} ({', '.join(values)})" if values else name)
        said += " with " + ", ".join(parts)
    return said[:200]


def name_text(chunk: Chunk) -> str:
    """A chunk's name in words: an operation's operationId (or method and path words), a schema's name, a
    doc's title."""
    if chunk.kind == "operation":
        if chunk.operation_id.strip():
            return readable_name(chunk.operation_id)
        words = [w for s in resource_segments(chunk.path) for w in segment_words(s) if not w.isdigit()]
        return " ".join([chunk.method.lower(), *words])
    return readable_name(chunk.title) if chunk.title else chunk.section_path


def resource_score(resource: str, signals: QuestionSignals, forms: frozenset[str]) -> float:
    """1 when the question names the operation's resource, 0.5 for one long word of a compound resource
    (`time_off` ← "time"), else 0."""
    if not resource:
        return 0.0
    if word_forms(normalize_term(resource)) & forms:
        return 1.0
    if any(word_forms(w) & forms for w in re.split(r"[_\-]+", resource) if len(w) > 3):
        return 0.5
    return 0.0


@dataclass(frozen=True)
class CandidateInputs:
    """What the features of one candidate list are computed from, beside the question's signals: each
    candidate's words, its exact cosine similarity to the question, and the similarities of its lead text and
    name to the question (rag.rerank.learned computes them from stored vectors)."""

    candidates: Sequence[RetrievedChunk]
    words: Sequence[ChunkWords]
    vector: Sequence[float]
    lead: Sequence[float]
    name: Sequence[float]


# The `kind_*` columns of each kind of chunk (all 0 for an unknown kind)
_KIND_COLUMNS: dict[str, tuple[float, ...]] = {kind: tuple(float(kind == k) for k in KINDS) for kind in ("", *KINDS)}
# How many columns `_structure` gives, then the chunk's kind (`kind_*`, `schema_part`, `described`)
STRUCTURE_COLUMNS, KIND_COLUMNS = 14, len(KINDS) + 2


def _ranks(values: Sequence[float | None]) -> list[int]:
    """1 for the highest value, 2 for the next…; `ABSENT_RANK` for None."""
    order = sorted((i for i, v in enumerate(values) if v is not None), key=lambda i: -float(values[i] or 0.0))
    ranks = [ABSENT_RANK] * len(values)
    for rank, i in enumerate(order, start=1):
        ranks[i] = rank
    return ranks


def feature_matrix(signals: QuestionSignals, inputs: CandidateInputs, profile: CorpusProfile) -> np.ndarray:
    """One row of `FEATURE_NAMES` per candidate, in the candidates' order (built a block of columns at a time)."""
    candidates, count = inputs.candidates, len(inputs.candidates)
    if not count:
        return np.zeros((0, len(FEATURE_NAMES)), dtype=np.float32)
    bm25 = [c.scores.get("bm25") for c in candidates]
    best_bm25 = max((b for b in bm25 if b is not None), default=0.0) or 1.0
    vector, lead, name = (np.asarray(values, dtype=np.float64) for values in (inputs.vector, inputs.lead, inputs.name))
    retrieval = (
        vector, vector.max() - vector, 1.0 / np.asarray(_ranks(list(inputs.vector)), dtype=np.float64),
        np.asarray([b or 0.0 for b in bm25]) / best_bm25, 1.0 / np.asarray(_ranks(bm25), dtype=np.float64),
        1.0 / np.arange(1, count + 1, dtype=np.float64),
        np.asarray([b is not None and "vector" in c.scores for c, b in zip(candidates, bm25, strict=True)], float),
    )
    short = (lead, lead.max() - lead, name, name.max() - name)
    question = (
        signals.asks_fields, signals.asks_operation, signals.asks_auth, signals.asks_write, bool(signals.methods),
        signals.names_values, len(signals.terms), signals.follow_up, count,
    )
    forms = frozenset(form for t in signals.terms for form in word_forms(t))
    lookups = profile.remembered("lookup-operation-ids", lambda: {c.chunk_id for c in profile.lookup_operations})
    shares = signals.part_shares(inputs.words)
    named = _NamedInPath(signals, forms)
    rows = []
    for candidate, words, resource_share in zip(candidates, inputs.words, shares[:, -1].tolist(), strict=True):
        chunk = candidate.chunk
        rows.append((
            *_structure(chunk, words, signals, named, profile, lookups, resource_share), *words.kind_columns,
            bool(signals.subject) and signals.subject in chunk.covers,
            bool(signals.subject_path) and words.resource_path == signals.subject_path,
        ))
    per_candidate = np.asarray(rows, dtype=np.float64)
    structure, kinds, conversation = np.split(per_candidate, [STRUCTURE_COLUMNS, STRUCTURE_COLUMNS + KIND_COLUMNS],
                                              axis=1)
    return np.hstack([
        np.column_stack(retrieval), np.column_stack(short), structure, shares[:, :-1], kinds,
        np.broadcast_to(np.asarray(question, dtype=np.float64), (count, len(question))), conversation,
    ]).astype(np.float32)


@dataclass
class _NamedInPath:
    """Whether the question names an operation's resource or a word of its parent segments, remembered over one
    candidate list (its candidates share resources and parents)."""

    signals: QuestionSignals
    forms: frozenset[str]
    _resources: dict[str, float] = field(default_factory=dict)
    _words: dict[str, bool] = field(default_factory=dict)

    def resource(self, resource: str) -> float:
        """`resource_score` of the resource."""
        found = self._resources.get(resource)
        if found is None:
            found = self._resources[resource] = resource_score(resource, self.signals, self.forms)
        return found

    def count(self, words: Sequence[str]) -> int:
        """How many of `words` the question names (in any of their forms)."""
        count = 0
        for word in words:
            found = self._words.get(word)
            if found is None:
                found = self._words[word] = not word_forms(word).isdisjoint(self.forms)
            count += found
        return count


def _structure(chunk: Chunk, words: ChunkWords, signals: QuestionSignals, named_in_path: _NamedInPath,
               profile: CorpusProfile, lookups: set[str], resource_share: float) -> tuple[float, ...]:
    """Method, resource, parents, path, identifiers, API, main resource, lookup and path shape features
    (`resource_share`: the question's share in the path's last resource)."""
    identifiers = (
        sum(1 for ident in signals.identifiers if ident in words.text) / len(signals.identifiers)
        if signals.identifiers else 0.0
    )
    api_named = float(chunk.api in signals.named_apis)
    if chunk.kind != "operation" or not chunk.path:
        return (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, identifiers, api_named, 0.0, 0.0, 0.0, 0.0, 0.0)
    methods = signals.methods
    matched = not methods.isdisjoint(words.write_methods)
    named = named_in_path.count(words.parents)
    return (
        float(matched),
        float(bool(methods) and not matched),
        named_in_path.resource(words.write_resource),
        resource_share,
        float(named),
        float(len(words.parents) - named),
        float(bool(signals.paths) and any(path_fits(path, path_shape(chunk.path)) for path in signals.paths)),
        identifiers,
        api_named,
        float((chunk.api, words.top) in profile.main_resources),
        float(chunk.chunk_id in lookups),
        float(words.item_path),
        float(words.depth),
        float(words.path_parameters),
    )
