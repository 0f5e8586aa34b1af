"""The corpus profile: what the stages know about the live smart chunks of one index snapshot.

Each API's distinctive vocabulary, every known term, path prefixes and shapes, summary verbs, main
resources and topics. Built once per index generation and shared; used by the offline intent
detector, the learned ranker, the abstention gate and the write-operation check.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from rag.chunk import Chunk
from rag.corpus.path_words import resource_segments
from rag.corpus.paths import path_prefixes, path_shape, resource_words_of, top_segment
from rag.corpus.vocabulary import normalize_term, operation_words, singular, stop_words, tokenize, word_forms
from rag.data import data_table
from rag.index.snapshot import Snapshot
from rag.ingest.spec import api_alias_from_source

# "per minute", "/s": how the docs would state a rate (e.g. a rate limit) if they stated one.


@dataclass
class CorpusProfile:
    """Vocabulary statistics of the live smart chunks."""

    generation: int
    apis: list[str]
    term_apis: dict[str, Counter[str]] = field(default_factory=dict)
    vocabulary: set[str] = field(default_factory=set)
    operations: list[Chunk] = field(default_factory=list)
    # What changed between versions of an API (the change chunks a 'can I still …' question is answered from).
    changes: list[Chunk] = field(default_factory=list)
    api_titles: dict[str, str] = field(default_factory=dict)
    # Another name a question may call an API by (`asana` for `asana_com`, from `asana.com.json`), to the API.
    api_aliases: dict[str, str] = field(default_factory=dict)
    # Each API's main resource: the top-level path segment with the most operations
    # (hris → employees, ats → applications, stackone → accounts).
    main_resources: frozenset[tuple[str, str]] = frozenset()
    # Each API's shared leading path segments (`unified`, `hris`), from its paths.
    prefixes: dict[str, frozenset[str]] = field(default_factory=dict)
    # Every operation path in `path_shape` form, and the words a developer uses to name a part of an API:
    # path segments, tags, operationIds, schema names and titles (not free-text descriptions or examples).
    path_shapes: frozenset[str] = frozenset()
    structural_terms: set[str] = field(default_factory=set)
    # Verbs the operation summaries start with, mapped to the HTTP methods they are used with
    # ("Enroll …" → post, "Book …" → post): a corpus's own vocabulary of actions.
    verb_methods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The names a question uses to start a new topic: the indexed APIs and their resources (path segments
    # below the shared prefixes, and their words), singular and plural.
    topics: frozenset[str] = frozenset()
    # The operations that find things by value (`GET /search`): the first call for a request naming values.
    lookup_operations: tuple[Chunk, ...] = ()
    # What the stages derive from the profile alone (whether a glossary fits, the learned ranker's inputs), made once.
    derived: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)

    def remembered(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value `key` names, made by `make` the first time it is asked for."""
        if key not in self.derived:
            self.derived[key] = make()
        return self.derived[key]

    def distinctiveness(self, term: str) -> dict[str, float]:
        """P(api | term) over the operation vocabulary (empty when the term is unknown)."""
        counts = self.term_apis.get(term)
        if not counts:
            return {}
        total = sum(counts.values())
        return {api: count / total for api, count in counts.items()}

    def knows(self, term: str) -> bool:
        """Whether the term, its singular or its stem (listing → list, created → create) occurs in the text."""
        return any(form in self.vocabulary for form in word_forms(term))

    def knows_path(self, path: str) -> bool:
        """Whether a path names an indexed operation path: the same shape, a concrete value where the spec
        has a parameter (`/users/42` ↔ `/users/{id}`), or the leading part of one (`/unified/hris`)."""
        shape = path_shape(path.split("?", 1)[0])
        if shape in self.path_shapes:
            return True
        asked = shape.strip("/").split("/")
        for known in self.path_shapes:
            segments = known.strip("/").split("/")
            if len(segments) < len(asked):
                continue
            if all(k == "{}" or k == a or a == "{}" for a, k in zip(asked, segments, strict=False)):
                return True
        return False


def build_profile(snapshot: Snapshot) -> CorpusProfile:
    """Compute the profile of a snapshot (a few hundred ms for the 7 StackOne specs)."""
    apis = snapshot.apis()
    profile = CorpusProfile(snapshot.generation, apis)
    for record in snapshot.documents:
        profile.api_titles[record.api] = record.title
        alias = api_alias_from_source(record.source)
        if alias and alias not in apis and profile.api_aliases.setdefault(alias, record.api) != record.api:
            profile.api_aliases[alias] = ""  # two APIs' files name the same domain: the name is neither's
    for chunk in snapshot.chunks.values():
        if chunk.strategy == "naive":
            continue
        terms = set(tokenize(chunk.title + "\n" + chunk.text))
        profile.vocabulary.update(terms)
        profile.vocabulary.update(map(normalize_term, terms))
        if chunk.kind == "change":
            profile.changes.append(chunk)
        if chunk.kind == "operation":
            profile.operations.append(chunk)
            # What names an operation: its path, tags, operationId, title and summary (not its long description).
            described = " ".join([chunk.path, " ".join(chunk.tags), chunk.operation_id, chunk.title, chunk.summary])
            keys = {normalize_term(t) for t in tokenize(described)}
            for term in keys:
                profile.term_apis.setdefault(term, Counter())[chunk.api] += 1
        named = [chunk.path, chunk.operation_id, " ".join(chunk.tags)]
        if chunk.kind in ("schema", "overview"):
            named.append(chunk.title)
        profile.structural_terms.update(normalize_term(t) for t in tokenize(" ".join(named)))
    for api in apis:
        profile.term_apis.setdefault(api, Counter())[api] += 1000
        profile.prefixes[api] = path_prefixes([c.path for c in profile.operations if c.api == api])
    profile.path_shapes = frozenset(path_shape(c.path) for c in profile.operations if c.path)
    for record in snapshot.documents:
        profile.structural_terms.update(normalize_term(t) for t in tokenize(f"{record.api} {record.title}"))
    profile.verb_methods = summary_verbs(profile.operations)
    profile.topics = topic_names(profile)
    profile.lookup_operations = tuple(op for op in profile.operations if is_lookup_operation(op))
    segment_counts: dict[str, Counter[str]] = {}
    for chunk in profile.operations:
        segment = top_segment(chunk.api, chunk.path, profile.prefixes.get(chunk.api, frozenset()))
        if segment:
            segment_counts.setdefault(chunk.api, Counter())[segment] += 1
    profile.main_resources = frozenset((api, counts.most_common(1)[0][0]) for api, counts in segment_counts.items())
    return profile


LOOKUP_SEGMENTS = frozenset({"search", "lookup"})
LOOKUP_SUMMARY_VERBS = frozenset({"search", "lookup", "find"})


def is_lookup_operation(chunk: Chunk) -> bool:
    """Whether an operation chunk finds things by value: `GET /search`, `GET /search/person`,
    `GET /lookup`, or a GET whose summary starts with Search/Lookup/Find."""
    if chunk.kind != "operation" or chunk.method.lower() != "get" or not chunk.path:
        return False
    segments = {segment.lower() for segment in chunk.path.strip("/").split("/")}
    words = re.findall(r"[A-Za-z]+", chunk.summary)
    return bool(segments & LOOKUP_SEGMENTS) or bool(words and words[0].lower() in LOOKUP_SUMMARY_VERBS)


def topic_names(profile: CorpusProfile) -> frozenset[str]:
    """The API names and resource names of a profile (both singular and plural forms). A resource named by
    several words (`custom_field_definitions`, `time-off`) is named by them all, in order (`topic_keys` of a
    question: `custom_field_definitions`), or by its last word, the noun the others qualify (`definitions`); its
    other words alone name no resource ("what fields does it return?" names no `custom_field_definitions`). A
    word that names an action (`delete` of `/messages/bulk-delete`, `search` of `/members/search`) is no topic:
    "and how do I delete one?" goes on with the conversation's subject."""
    names: set[str] = set(profile.apis)
    actions = data_table("question_words")["verbs"]
    for chunk in profile.operations:
        prefixes = profile.prefixes.get(chunk.api, frozenset())
        for segment in resource_segments(chunk.path):
            if segment in prefixes or segment == chunk.api:
                continue
            words = resource_words_of(segment)
            # The last word of a compound is its noun, unless it is a word that names nothing
            # (`primarySubcategoryOne`: "delete one" names no topic).
            nouns = [words[-1]] if words and (len(words) == 1 or words[-1] not in stop_words()) else []
            for word in ["_".join(words), *nouns] if words else []:
                if len(word) >= 3 and word.isidentifier() and word not in actions:
                    names.update({word, singular(word)})
    return frozenset(names)


def summary_verbs(operations: list[Chunk], min_uses: int = 2, min_share: float = 0.75) -> dict[str, tuple[str, ...]]:
    """Verbs that open what operations do (their summaries, else their operationIds spelled out), with the
    method they are used with in most (`min_share`) of at least `min_uses` operations: `Enroll User` → post,
    `ban_user_from_guild` → put. Questions use the same verbs."""
    uses: dict[str, Counter[str]] = {}
    for chunk in operations:
        words = re.findall(r"[A-Za-z]+", operation_words(chunk.summary, chunk.operation_id, "", ""))
        if words and chunk.method:
            uses.setdefault(words[0].lower(), Counter())[chunk.method] += 1
    verbs: dict[str, tuple[str, ...]] = {}
    for verb, methods in uses.items():
        total = sum(methods.values())
        method, count = methods.most_common(1)[0]
        if len(verb) > 2 and total >= min_uses and count >= min_share * total:
            verbs[verb] = (method,)
    return verbs


_cache_lock = threading.Lock()
_cache: dict[int, tuple[Snapshot, CorpusProfile]] = {}


def profile_for(snapshot: Snapshot) -> CorpusProfile:
    """The (cached) profile of a snapshot."""
    key = id(snapshot)
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None and hit[0] is snapshot:
            return hit[1]
    profile = build_profile(snapshot)
    with _cache_lock:
        if len(_cache) > 8:
            _cache.clear()
        _cache[key] = (snapshot, profile)
    return profile
