"""The confidence gate as a pipeline stage: gathers the signals `rag.abstain.decide` weighs for one index.

The best similarity to any chunk, the similarity to the out-of-scope prototypes, thresholds calibrated on
the index itself, the English lexicon and the index's embedded naming vocabulary (rag.corpus.meanings);
then it records the tier, score and reasons on the result.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from rag.abstain import GateDecision, GateThresholds, calibrate, decide, out_of_scope_prototypes, thresholds_for
from rag.corpus.meanings import NamingVocabulary, naming_vocabulary
from rag.corpus.profile import CorpusProfile, profile_for
from rag.index.store import Index
from rag.lexicon import Lexicon, load_lexicon
from rag.query import Query
from rag.results import AnswerResult
from rag.retrieve.context import QueryContext


def best_similarity(ctx: QueryContext, chunking: str) -> float:
    """The best cosine similarity between the context's query and any chunk of `chunking` or the docs."""
    pools = [ctx.vector_pool(strategy, (), ctx.query) for strategy in (chunking, "docs")]
    return max((pool[0][1] for pool in pools if pool), default=0.0)


class LazyMeanings:
    """The index's naming vocabulary, embedded only when the gate first asks about a word (most questions
    have no foreign word to judge; the first embedding of a large spec's naming words takes seconds)."""

    def __init__(self, build: Callable[[], NamingVocabulary]) -> None:
        self._build = build
        self._vocabulary: NamingVocabulary | None = None

    def close(self, terms: Sequence[str], threshold: float) -> set[str]:
        """The terms at least `threshold` similar to some word naming part of the API."""
        if self._vocabulary is None:
            self._vocabulary = self._build()
        return self._vocabulary.close(terms, threshold)


@dataclass
class ConfidenceGate:
    """The gate of one index. `thresholds` fixes the cut-offs (else they are calibrated per index
    generation); `lexicon` is the English lexicon ("default": the installed WordNet, read on first use;
    None switches the foreign-noun rules off)."""

    index: Index
    thresholds: GateThresholds | None = None
    lexicon: Lexicon | Literal["default"] | None = "default"
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _prototypes: Any = field(default=None, init=False, repr=False)
    _calibrated: dict[tuple[int, str], GateThresholds] = field(default_factory=dict, init=False, repr=False)

    def apply(self, chunking: str, query: Query, ctx: QueryContext, result: AnswerResult, known: set[str]) -> None:
        """Gate `query` and record the tier, score, reasons and time on `result`. `known` are words the
        engine understands beyond the index (an applied glossary's)."""
        started = time.perf_counter()
        standalone = query.standalone
        top_similarity = best_similarity(ctx, chunking)
        out_of_scope = ctx.memo(("out-of-scope", standalone), lambda: self.out_of_scope_similarity(ctx, standalone))
        profile, thresholds = profile_for(ctx.snapshot), self.thresholds_for(ctx, chunking)
        meanings = LazyMeanings(lambda: naming_vocabulary(ctx.snapshot, profile, self.index.embedder))
        decision = decide(
            query, top_similarity, profile, thresholds, out_of_scope, known, lexicon=self.english(), meanings=meanings
        )
        asked = result.question.strip()
        if decision.tier != "abstain" and asked and asked != standalone:
            # A rewritten follow-up borrows the earlier turn's words; the question as asked must be in scope
            # too ("What's the weather in Berlin?" at turn 4). Low similarity alone does not count for it:
            # a follow-up is elliptical by nature.
            own = self.asked_decision(chunking, asked, profile, thresholds, known)
            if own is not None:
                decision = own
        result.confidence = decision.tier
        result.confidence_score = decision.score
        result.notes.append(f"confidence gate: {decision.tier} ({'; '.join(decision.reasons)})")
        result.timings_ms["gate"] = round((time.perf_counter() - started) * 1000.0, 3)

    def asked_decision(
        self, chunking: str, asked: str, profile: CorpusProfile, thresholds: GateThresholds, known: set[str]
    ) -> GateDecision | None:
        """The gate's abstention on the question as asked, when it rests on positive evidence; else None."""
        probe = QueryContext(self.index, asked)
        out_of_scope = self.out_of_scope_similarity(probe, asked)
        top = best_similarity(probe, chunking)
        meanings = LazyMeanings(lambda: naming_vocabulary(probe.snapshot, profile, self.index.embedder))
        own = decide(
            asked, top, profile, thresholds, out_of_scope, known, elliptical=True, lexicon=self.english(),
            meanings=meanings,
        )
        if own.tier != "abstain":
            return None
        return replace(own, reasons=(*own.reasons, "judged on the question as asked"))

    def english(self) -> Lexicon | None:
        """The gate's English lexicon: the given one, or the installed WordNet (read once per process)."""
        return load_lexicon() if self.lexicon == "default" else self.lexicon

    def thresholds_for(self, ctx: QueryContext, chunking: str) -> GateThresholds:
        """The thresholds for this index: given ones, else the model's calibrated on the index itself
        (how similar the out-of-scope prototypes are to its chunks; computed once per index generation)."""
        if self.thresholds is not None:
            return self.thresholds
        key = (ctx.snapshot.generation, chunking)
        with self._lock:
            cached = self._calibrated.get(key)
        if cached is not None:
            return cached
        similarities = [
            best_similarity(QueryContext(self.index, prototype), chunking) for prototype in out_of_scope_prototypes()
        ]
        thresholds = calibrate(thresholds_for(self.index.embedder.name), similarities)
        with self._lock:
            if len(self._calibrated) > 8:
                self._calibrated.clear()
            self._calibrated[key] = thresholds
        return thresholds

    def out_of_scope_similarity(self, ctx: QueryContext, query: str) -> float:
        """Best cosine similarity between the query and the out-of-scope prototypes."""
        with self._lock:
            prototypes = self._prototypes
            if prototypes is None:
                prototypes = self._prototypes = ctx.embedder.embed(list(out_of_scope_prototypes()))
        return float((prototypes @ ctx.query_vector(query)).max())
