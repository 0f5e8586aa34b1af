"""An offline reranker that reads the structure of API chunks.

It adds to the first-stage score evidence a developer would use: does the operation's HTTP
method match the verb in the question (create → POST, update → PATCH/PUT, delete → DELETE,
list/get → GET; read from the question's analysis, rag.question_analysis), does the resource in the
path match the noun asked about (the user's own words count more than glossary additions), does the
question name the parents of a nested path, does the question ask for endpoints or for fields, do exact
identifiers of the question (`expires_in`, `x-account-id`) occur in the chunk. In a rewritten follow-up the
new question's verb decides. Whether it asks for one item or the collection ("an account" vs "accounts")
is left to the retriever: read from English number it lowered the blinded sets (stop 30). A POST or PUT
to a path that ends in a write verb (`/words/delete`, `/tags/add`) is that write on the segment before it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from rag.chunk import Chunk, resource_segments, segment_words
from rag.corpus.paths import named_paths, path_fits, path_shape, top_segment
from rag.corpus.profile import CorpusProfile
from rag.corpus.vocabulary import normalize_term, schema_name, tokenize, word_forms
from rag.query import Query
from rag.results import RetrievedChunk
from rag.write_check import write_target

# "hit the provider's own API", "call an endpoint": the question is about an operation to call.
_CALL_AN_API = re.compile(r"\b(?:hit|call|invoke|reach)\b(?:\s+[\w'’-]+){0,3}?\s+(?:apis?|endpoints?|urls?)\b", re.I)
# snake_case, kebab-case and camelCase words; a capitalised name such as "StackOne" is not an identifier.
_IDENTIFIER = re.compile(r"\b(?:[A-Za-z]+[_\-][A-Za-z0-9_\-]+|[a-z]+[A-Z][A-Za-z]+)\b")
# Suffixes the spec generator adds to schema names (`ProxyResponseApiModel`, `CreateEmployeeDto`);
# they say nothing about the content, and "model" in a question must not match every one of them.
_GENERATED_SUFFIX = re.compile(r"(?:Api)?(?:Model|Dto)$")


@lru_cache(maxsize=65536)
def parent_words(path: str, prefixes: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The words of the resource segments above the last one (`/unified/ats/jobs/{id}/application_stages`
    → job); parameters and the API's shared prefix segments are left out."""
    segments = [s for s in resource_segments(path) if s not in prefixes]
    words = [normalize_term(part) for segment in segments[:-1] for part in segment_words(segment)]
    return tuple(dict.fromkeys(words))


def resource_match(
    resource: str,
    nouns: set[str],
    forms: set[str],
    added_nouns: set[str],
    added_forms: set[str],
    glossary_factor: float,
) -> float:
    """How strongly the question names an operation's resource: 1 in the user's own words,
    `glossary_factor` through a glossary word only, 0.5 for one long word of a compound, snake or kebab
    case (`time_off` ← "time", `related-artists` ← "artists"), else 0."""
    if not resource:
        return 0.0
    if resource in nouns or word_forms(resource) & forms:
        return 1.0
    if resource in added_nouns or word_forms(resource) & added_forms:
        return glossary_factor
    if any(word_forms(word) & (forms | added_forms) for word in re.split(r"[_\-]+", resource) if len(word) > 3):
        return 0.5
    return 0.0


def operation_target(chunk: Chunk) -> tuple[str, frozenset[str]]:
    """The resource an operation acts on and the methods its effect amounts to (`write_target`)."""
    return write_target(chunk.method or "", chunk.path or "")


@dataclass(frozen=True)
class StructuralReranker:
    """Feature-weighted reranking over the first-stage order (no model)."""

    name: str = "structural"
    method_weight: float = 0.6
    resource_weight: float = 0.8
    path_word_weight: float = 0.25
    identifier_weight: float = 0.5
    kind_weight: float = 0.15
    glossary_factor: float = 0.75
    payload_lift_depth: int = 3
    main_resource_weight: float = 0.2
    # The question names the operation's path itself ("… to call GET /Usage/Records/Today.json").
    path_weight: float = 1.0
    # A tie-breaker among the first-stage top candidates, not a way to pull operations up from deep in the pool.
    main_resource_window: int = 10
    main_resources: frozenset[tuple[str, str]] = frozenset()
    prefixes: tuple[tuple[str, frozenset[str]], ...] = ()
    corpus_verbs: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # The evidence's order is fused with the first-stage order (reciprocal rank fusion, this k): word-level
    # evidence misleads on some corpora (several small APIs sharing resource words), so it may reorder the
    # candidates but never overrule the retriever alone. 0: the evidence alone (one API's candidates).
    fusion_k: int = 60

    @classmethod
    def for_corpus(cls, profile: CorpusProfile) -> StructuralReranker:
        """A reranker that knows the corpus's main resources, path prefixes and summary verbs."""
        return cls(
            main_resources=profile.main_resources,
            prefixes=tuple(sorted(profile.prefixes.items())),
            corpus_verbs=tuple(sorted(profile.verb_methods.items())),
        )

    def score(self, query: Query | str, candidates: Sequence[RetrievedChunk]) -> list[float]:
        """The order of the structural evidence fused with the first-stage order (`fuse_with_first_stage`);
        the evidence alone when `fusion_k` is 0."""
        evidence = self.evidence(query, candidates)
        return fuse_with_first_stage(evidence, self.fusion_k) if self.fusion_k else evidence

    def evidence(self, query: Query | str, candidates: Sequence[RetrievedChunk]) -> list[float]:
        """First-stage rank prior plus structural evidence, per candidate."""
        asked = _question_shape(Query.of(query), self.corpus_verbs)
        # A question that names no resource of any candidate ("which header selects the account on the
        # HRIS endpoints?") is answered by any operation; the API's main resource is the natural example.
        matches = [
            resource_match(
                operation_target(c.chunk)[0], asked.nouns, asked.forms, asked.added_nouns, asked.added_forms,
                self.glossary_factor,
            )
            if c.chunk.kind == "operation" and c.chunk.path
            else 0.0
            for c in candidates
        ]
        names_a_resource = any(match > 0 for match in matches)
        scores: list[float] = []
        for position, (candidate, match) in enumerate(zip(candidates, matches, strict=True), start=1):
            chunk = candidate.chunk
            score = 1.0 / (1.0 + 0.25 * (position - 1))
            if chunk.kind == "operation" and chunk.path:
                score += self._operation_evidence(chunk, asked, match, names_a_resource, position)
            elif chunk.kind == "schema":
                score += self._schema_evidence(chunk, asked)
            elif asked.asks_auth and not names_a_resource and any(".securitySchemes." in c for c in chunk.covers):
                # "How do I authenticate?": the overview that states the security schemes answers it, unless
                # the question names a resource ("the credentials of a linked account").
                score += self.resource_weight
            if asked.identifiers:
                text = chunk.text.lower()
                hits = sum(1 for ident in asked.identifiers if ident in text)
                score += self.identifier_weight * hits / len(asked.identifiers)
            scores.append(score)
        if not asked.asks_fields:
            lift_payload_operations(candidates, scores, self.payload_lift_depth)
        return scores

    def _operation_evidence(
        self, chunk: Chunk, asked: QuestionShape, match: float, names_a_resource: bool, position: int
    ) -> float:
        """Method, resource, parent path words and kind evidence for one operation."""
        score = 0.0
        resource, methods = operation_target(chunk)
        if asked.methods:
            score += self.method_weight if methods & asked.methods else -self.method_weight / 2
        if asked.paths and any(path_fits(path, path_shape(chunk.path)) for path in asked.paths):
            score += self.path_weight
        container = bool(asked.containers) and normalize_term(resource) in asked.containers
        # What a question puts something into is the parent of the operation it wants, not its resource.
        score += self.resource_weight * match * (0.5 if container else 1.0)
        api_prefixes = _prefixes_of(self.prefixes, chunk.api)
        api_names = {chunk.api, normalize_term(chunk.api)}
        parents = [w for w in parent_words(chunk.path, api_prefixes) if w not in api_names and len(w) > 2]
        named = sum(1 for w in parents if word_forms(w) & asked.every_form)
        named += sum(1 for w in parents if w in asked.containers)
        if match > 0 and parents:
            # A nested path is more specific when the question names its parents too, and
            # an unlikely answer when it names none (/connect_sessions/authenticate for
            # "how do I authenticate against the HRIS API").
            score += self.path_word_weight * named if named else -self.resource_weight / 2
        elif named >= 2:
            # A multi-word parent named in full ("custom field definition endpoints").
            score += self.path_word_weight * named
        if (
            not names_a_resource
            and position <= self.main_resource_window
            and (chunk.api, top_segment(chunk.api, chunk.path, api_prefixes)) in self.main_resources
        ):
            score += self.main_resource_weight
        score += -self.kind_weight if asked.asks_fields else self.kind_weight
        if asked.asks_operation:
            score += self.kind_weight
        return score

    def _schema_evidence(self, chunk: Chunk, asked: QuestionShape) -> float:
        """A schema named by the question, and whether the question asks for fields or for operations."""
        score = 0.0
        full_name, name = _schema_names(chunk.covers[0] if chunk.covers else "")
        if full_name in asked.compound_names or name in asked.compound_names:
            # The question names the schema itself ("… allowed for `status` in TimeOffRequestsFilter?"): its
            # resource, and an identifier only this chunk has.
            score += self.resource_weight + self.identifier_weight
        elif any(noun in name for noun in asked.long_nouns):
            score += self.resource_weight / 2
        score += self.kind_weight if asked.asks_fields else -self.kind_weight
        if asked.asks_operation:
            score -= self.kind_weight
        return score


@lru_cache(maxsize=256)
def _prefixes_of(prefixes: tuple[tuple[str, frozenset[str]], ...], api: str) -> frozenset[str]:
    """The shared path prefixes of one API, from the reranker's (api, prefixes) items."""
    return dict(prefixes).get(api, frozenset())


@lru_cache(maxsize=65536)
def _schema_names(covered: str) -> tuple[str, str]:
    """A schema's full component name and its last part without the generator's suffix, lower-case."""
    name = _GENERATED_SUFFIX.sub("", covered.rsplit(".", 1)[-1])
    return schema_name(covered).lower(), name.lower()


@dataclass(frozen=True)
class QuestionShape:
    """What the reranker reads from a question: its methods, nouns and word forms (the user's own and
    those a glossary added), identifiers, and whether it asks for fields or operations."""

    methods: frozenset[str]
    nouns: set[str]
    forms: set[str]
    added_nouns: set[str]
    added_forms: set[str]
    identifiers: set[str]
    asks_fields: bool
    asks_operation: bool
    # Nouns a question puts something into or takes it out of ("add a song *to my playlist*", "remove a
    # member *from the group*"): the parent of what is written, not the resource itself.
    containers: frozenset[str] = frozenset()
    # Names written as one compound word (`TimeOffRequest`, `time_off_request`), lower-case: a schema's name,
    # where plain words (`campaign`) may only mean the resource.
    compound_names: frozenset[str] = frozenset()
    # The paths the question names, in `path_shape` form.
    paths: frozenset[str] = frozenset()
    # Whether it asks how to authenticate (HTTP's own vocabulary: auth, credentials, tokens, API keys).
    asks_auth: bool = False

    @cached_property
    def every_form(self) -> frozenset[str]:
        """The word forms of the user's words and of those a glossary added."""
        return frozenset(self.forms | self.added_forms)

    @cached_property
    def long_nouns(self) -> tuple[str, ...]:
        """The nouns (the user's and a glossary's) of more than three letters: long enough to find in a name."""
        return tuple(noun for noun in self.nouns | self.added_nouns if len(noun) > 3)


@lru_cache(maxsize=1024)
def _question_shape(query: Query, verbs: tuple[tuple[str, tuple[str, ...]], ...]) -> QuestionShape:
    """`read_question` with the corpus verbs as items, remembered (the reranker reads a question once per
    group of candidates and configuration)."""
    return read_question(query, dict(verbs))


def read_question(query: Query, verbs: dict[str, tuple[str, ...]]) -> QuestionShape:
    """The question's shape. In a follow-up the verb of the new question decides ("and how do I remove one of
    them?" after "how do I list users?"); the earlier turn supplies the nouns."""
    text, own, focus = query.text, query.standalone, query.focus
    query_words = re.findall(r"[a-z]+", own.lower())
    nouns = {normalize_term(t) for t in tokenize(own)}
    forms = {form for word in set(query_words) | nouns if len(word) > 2 for form in word_forms(word)}
    # Glossary words ("customer" → account, contact) are weaker evidence than the user's own words.
    added_nouns = {normalize_term(t) for t in tokenize(text)} - nouns
    added_forms = {form for word in added_nouns if len(word) > 2 for form in word_forms(word)} - forms
    asks_operation = bool(re.search(r"\b(endpoints?|routes?|operations?|api calls?)\b", text, re.I)) or bool(
        _CALL_AN_API.search(text)
    )
    asks_fields = bool(
        re.search(r"\b(fields?|propert(y|ies)|schema|model|object|enums?|types?|values|statuses)\b", text, re.I)
    )
    return QuestionShape(
        methods=query.analysis.methods(verbs),
        nouns=nouns,
        forms=forms,
        added_nouns=added_nouns,
        added_forms=added_forms,
        identifiers={match.lower() for match in _IDENTIFIER.findall(text)},
        # "custom field definition endpoints" asks for operations, whatever nouns come before.
        asks_fields=asks_fields and not asks_operation,
        asks_operation=asks_operation,
        containers=container_nouns(focus),
        compound_names=frozenset(match.lower() for match in _COMPOUND_NAME.findall(text)),
        # An earlier answer's paths are what was asked before, not what this question names.
        paths=frozenset(path_shape(path) for path in named_paths(focus)),
        asks_auth=bool(_AUTH.search(focus)),
    )


# How a question asks about authentication, in HTTP's own words.
_AUTH = re.compile(
    r"\b(?:authenticat\w*|authoriz\w*|authoris\w*|auth|credentials?|bearer|oauth\w*|api[ -]?keys?|"
    r"access tokens?|security schemes?)\b",
    re.I,
)


# A word with a capital or a joint inside: `TimeOffRequest`, `InviteEmployeeResult`, `api.v2010.account`.
_COMPOUND_NAME = re.compile(r"\b[A-Za-z][a-z0-9]*(?:[A-Z_.][A-Za-z0-9]*)+\b")


_CONTAINER = re.compile(
    r"\b(?:to|into|onto|from)\s+(?:my|our|your|their|his|her|its|the|a|an|this|that)\s+"
    r"(?:(?:new|saved|existing|current)\s+)?([a-z][a-z_]+)",
    re.I,
)


def container_nouns(question: str) -> frozenset[str]:
    """Nouns after "to/into/onto/from" and a determiner that the question names nowhere else ("add the
    song to my playlist" → playlist; "delete albums from my saved albums" → none: the albums are what is
    deleted; "set my player to repeat" → none: an infinitive takes no determiner)."""
    words = [normalize_term(w) for w in re.findall(r"[a-z]+", question.lower())]
    found = {normalize_term(m.group(1).lower()) for m in _CONTAINER.finditer(question)}
    return frozenset(word for word in found if len(word) > 2 and words.count(word) == 1)


def fuse_with_first_stage(scores: Sequence[float], k: int) -> list[float]:
    """Reciprocal rank fusion of the first-stage order (the candidates' positions) and the order of `scores`
    (ties by position): 1/(k + first-stage rank) + 1/(k + evidence rank)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    evidence_rank = {i: rank for rank, i in enumerate(order, start=1)}
    return [1.0 / (k + i + 1) + 1.0 / (k + evidence_rank[i]) for i in range(len(scores))]


def lift_payload_operations(candidates: Sequence[RetrievedChunk], scores: list[float], depth: int) -> None:
    """Put an operation just above a top-ranked schema that is its whole body or response, when it
    is the only operation with that payload (`ProxyResponseApiModel` → `POST /unified/proxy`).

    The operation chunk holds the schema's fields as well as the endpoint, so unless the question
    asks for fields it is the better answer. Scores are changed in place.
    """
    position = {
        c.chunk.covers[0]: i for i, c in enumerate(candidates) if c.chunk.kind == "operation" and c.chunk.covers
    }
    for i in sorted(range(len(candidates)), key=lambda i: -scores[i])[:depth]:
        chunk = candidates[i].chunk
        if chunk.kind == "schema" and len(chunk.payload_of) == 1 and chunk.payload_of[0] in position:
            j = position[chunk.payload_of[0]]
            scores[j] = max(scores[j], scores[i] + 0.01)
