"""Send one question through one or many configurations and return everything that explains the answers.

`Engine` holds what is loaded once (the index, chat models) and runs a `Config` stage by stage:
rewrite → intent filter → retrieve → rerank → write-operation check → per-API k →
confidence gate → generation. `run_many` shares the query embedding and each candidate pool
between configurations and runs them concurrently; one failing configuration never breaks the others.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from rag.abstain import GateThresholds
from rag.chunk import Chunk
from rag.config import Config
from rag.corpus.profile import profile_for
from rag.errors import RagError
from rag.gate import ConfidenceGate
from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, Generator, StreamEvent
from rag.index.store import Index
from rag.names import names_the_users_own
from rag.query import MAX_QUESTION_CHARS, Query, clean_question  # noqa: F401 (re-exported)
from rag.rerank.base import Reranker, RerankerUnavailable, apply_scores
from rag.rerank.cross_encoder import CrossEncoderReranker
from rag.rerank.llm import LLMReranker
from rag.rerank.structural import StructuralReranker
from rag.results import AnswerResult, Citation, ConfigEvent, RetrievedChunk
from rag.retrieve.context import QueryContext
from rag.retrieve.intent import Intent, LLMIntentDetector, OfflineIntentDetector
from rag.retrieve.lookup import lift_lookup, names_foreign_values
from rag.retrieve.ordering import balance_by_api, demote_repeated_covers, interleave_by_api
from rag.retrieve.retrievers import make_retriever
from rag.retrieve.synonyms import Glossary, expand_query, glossary_applies, load_glossary
from rag.rewrite import rewrite_query
from rag.versions.asked import removed_writes
from rag.write_check import check_write_operation

MAX_DYNAMIC_K = 10
# Candidates per API for a question about several APIs: each API's are reranked among themselves, where the
# structural evidence is not fused with the first-stage order (it misleads across APIs, not within one).
PER_API_POOL = 60
HOSTED_LLM_PREFIXES = ("openai:", "groq:")
LOCAL_CONTEXT_TOKENS = 1800  # a 2-core CPU prefills ~150 tokens/s: keep local prompts short


def detect_llm(env: dict[str, str] | None = None) -> str:
    """The generator to use for `auto`: RAG_LLM, an API key, the local model, else extractive."""
    try:
        from rag.llm.factory import detect_default_llm
    except ImportError:  # pragma: no cover - the llm package is part of the product
        return (env or dict(os.environ)).get("RAG_LLM") or "extractive"
    return detect_default_llm(env if env is not None else dict(os.environ))


@dataclass
class Engine:
    """Runs configurations against one index. Models and clients are passed in (or made by the factories)."""

    index: Index
    default_llm: str = "extractive"
    chat_model_factory: Callable[[str], Any] | None = None
    generator_factory: Callable[[str], Generator] | None = None
    thresholds: GateThresholds | None = None
    max_workers: int = 6
    _chat_models: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    _generators: dict[str, Generator] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _gate: ConfidenceGate | None = field(default=None, init=False, repr=False)

    # ------------------------------------------------------------------ models
    def llm_spec(self, config: Config) -> str:
        """The generator spec a config resolves to (`auto` → the engine default)."""
        return self.default_llm if config.generator == "auto" else config.generator

    def chat_model(self, spec: str) -> Any | None:
        """The chat model for an LLM spec (None for extractive), made once per engine."""
        if spec == "extractive":
            return None
        with self._lock:
            if spec not in self._chat_models:
                factory = self.chat_model_factory
                if factory is None:
                    from rag.llm.factory import make_chat_model

                    factory = make_chat_model
                self._chat_models[spec] = factory(spec)
            return self._chat_models[spec]

    def generator(self, spec: str) -> Generator:
        """The generator for a spec, made once per engine."""
        with self._lock:
            cached = self._generators.get(spec)
        if cached is not None:
            return cached
        if self.generator_factory is not None:
            made = self.generator_factory(spec)
        else:
            from rag.generate.factory import make_generator

            made = make_generator(spec, self.chat_model)
        with self._lock:
            self._generators.setdefault(spec, made)
            return self._generators[spec]

    # ------------------------------------------------------------------ stages
    def active_glossaries(self, config: Config, ctx: QueryContext) -> tuple[Glossary, ...]:
        """The config's glossaries that fit the indexed corpus (its vocabulary uses their target words).

        The gate counts their words as understood even where query expansion is off.
        """
        if not config.glossaries:
            return ()
        profile = profile_for(ctx.snapshot)
        return tuple(
            glossary
            for glossary in (load_glossary(name) for name in config.glossaries)
            if ctx.memo(("glossary-applies", glossary.name), lambda g=glossary: glossary_applies(g, profile.knows))
        )

    def _reranker(self, config: Config, ctx: QueryContext) -> Reranker | None:
        if config.reranker == "structural":
            return StructuralReranker.for_corpus(profile_for(ctx.snapshot))
        if config.reranker == "cross-encoder":
            return CrossEncoderReranker(config.reranker_model)
        if config.reranker == "llm":
            spec = self.llm_spec(config)
            return LLMReranker(self.chat_model(spec) if spec != "extractive" else None)
        return None

    def _intent(self, config: Config, query: Query, ctx: QueryContext) -> Intent:
        profile = profile_for(ctx.snapshot)
        spec = self.llm_spec(config)
        if spec.startswith(HOSTED_LLM_PREFIXES):
            return LLMIntentDetector(self.chat_model(spec)).detect(query, profile)
        return ctx.memo(("intent-offline", query.text), lambda: OfflineIntentDetector().detect(query, profile))

    def retrieve(
        self, config: Config, query: Query | str, ctx: QueryContext, result: AnswerResult, scope: tuple[str, ...] = ()
    ) -> list[RetrievedChunk]:
        """Every retrieval stage of a config; fills timings, notes and the candidate pool of `result`.

        `scope` restricts the search to the named APIs whatever the question says (the MCP `api` argument).
        """
        query = Query.of(query)
        if config.query_expansion:
            query = expand_query(query, self.active_glossaries(config, ctx))
            if query.expansions:
                result.notes.append(f"query expanded: {query.text}")
        pool, apis, k, balanced = self._first_stage(config, query, ctx, result, scope)
        if balanced:
            # Each API's candidates are reranked among themselves (their own first-stage order), then share k.
            groups = [[c for c in pool if c.chunk.api == api] for api in balanced]
            groups.sort(key=lambda group: pool.index(group[0]) if group else len(pool))
            others = [c for c in pool if c.chunk.api not in balanced]
            reranked = [c for group in groups for c in self._rerank(config, query, ctx, result, group, one_api=True)]
            pool = balance_by_api(demote_repeated_covers(reranked), balanced, k) + others
        else:
            pool = demote_repeated_covers(self._rerank(config, query, ctx, result, pool))
        if config.lookup and config.chunking == "smart":
            pool = self._lookup(query, ctx, result, pool, apis)
        for rank, candidate in enumerate(pool, start=1):
            candidate.rank = rank
        result.pool = list(pool)
        top = [replace(c) for c in pool[:k]]
        if config.write_check:
            top = self._write_check(query, ctx, result, top, apis)
        for rank, candidate in enumerate(top, start=1):
            candidate.rank = rank
        return top

    def _lookup(
        self, query: Query, ctx: QueryContext, result: AnswerResult, pool: list[RetrievedChunk], apis: tuple[str, ...]
    ) -> list[RetrievedChunk]:
        """Put the corpus's lookup operation first when the question names values (rag.retrieve.lookup)."""
        started = time.perf_counter()
        profile = profile_for(ctx.snapshot)
        if not profile.lookup_operations:
            return pool

        def similarity(chunk: Chunk) -> float:
            return self.index.similarity("smart", chunk.chunk_id, ctx.query_vector(query.text), ctx.snapshot)

        # A value that is the user's own ("my playlist called Workout") is found in their collection.
        names_values = names_foreign_values(query.focus, profile) and not names_the_users_own(query.focus)
        lifted, note = lift_lookup(pool, profile.lookup_operations, names_values, similarity, apis)
        if note:
            result.notes.append(note)
        result.timings_ms["lookup"] = _ms(started)
        return lifted

    def _scope(
        self, config: Config, query: Query, ctx: QueryContext, result: AnswerResult, scope: tuple[str, ...]
    ) -> tuple[Intent, tuple[str, ...]]:
        """The detected intent and the APIs to search (the intent filter's, or `scope` when given)."""
        intent = Intent()
        if config.intent_filter or config.dynamic_k:
            started = time.perf_counter()
            intent = self._intent(config, query, ctx)
            result.timings_ms["intent"] = _ms(started)
            if config.intent_filter and intent.apis:
                result.detected_apis = list(intent.apis)
            result.notes.append(f"intent: {intent.note or 'none'}")
        apis = tuple(intent.apis) if config.intent_filter else ()
        if apis and config.intent_evidence == "explicit" and not intent.explicit:
            result.notes.append("intent filter: not applied (the question names no API)")
            result.detected_apis = []
            apis = ()
        if scope:
            apis = scope
            result.detected_apis = list(scope)
            result.notes.append(f"searched only: {', '.join(scope)} (as asked)")
        return intent, apis

    def _first_stage(
        self, config: Config, query: Query, ctx: QueryContext, result: AnswerResult, scope: tuple[str, ...]
    ) -> tuple[list[RetrievedChunk], tuple[str, ...], int, tuple[str, ...]]:
        """The candidate pool, the APIs searched, k, and the APIs a multi-API question shares the top k
        among (none for other questions)."""
        strategies = (config.chunking, "docs")
        retriever = make_retriever(config.retriever, config.alpha, config.rrf_k)
        intent, apis = self._scope(config, query, ctx, result, scope)
        started = time.perf_counter()
        pool = retriever.retrieve(ctx, strategies, config.candidate_pool, apis, query.text)
        if apis and not pool and not scope:
            result.notes.append("intent filter matched nothing; searched all APIs")
            result.detected_apis = []
            apis = ()
            pool = retriever.retrieve(ctx, strategies, config.candidate_pool, (), query.text)
        k, balanced = config.k, ()
        if config.dynamic_k and intent.multi_api and not scope:
            targets = list(intent.apis) if len(intent.apis) >= 2 else ctx.snapshot.apis()
            per_api = {
                api: retriever.retrieve(ctx, strategies, PER_API_POOL, (api,), query.text) for api in targets
            }
            k = min(max(config.k, len(targets)), MAX_DYNAMIC_K)
            merged = interleave_by_api(per_api, k)
            rest = [c for api in targets for c in per_api[api]] + pool
            pool = list({c.chunk.chunk_id: c for c in reversed(merged + rest)}.values())[::-1]
            balanced = tuple(targets)
            result.notes.append(f"multi-API question: top results from each of {len(targets)} APIs, k={k}")
        result.timings_ms["retrieve"] = _ms(started)
        return pool, apis, k, balanced

    def _rerank(self, config: Config, query: Query, ctx: QueryContext, result: AnswerResult,
                pool: list[RetrievedChunk], one_api: bool = False) -> list[RetrievedChunk]:  # fmt: skip
        """The pool in the config's reranker's order; the first-stage order when it cannot run (noted).
        `one_api`: the pool holds one API's candidates, so the structural evidence decides alone."""
        reranker = self._reranker(config, ctx)
        if one_api and isinstance(reranker, StructuralReranker):
            reranker = replace(reranker, fusion_k=0)
        if reranker is None or not pool:
            return pool
        started = time.perf_counter()
        try:
            pool = apply_scores(pool, reranker.score(query, pool))
            if isinstance(reranker, LLMReranker):
                result.tokens_in += reranker.last_usage[0]
                result.tokens_out += reranker.last_usage[1]
        except RerankerUnavailable as error:
            result.notes.append(str(error))
            kind = "LLM" if config.reranker == "llm" else config.reranker
            result.fallbacks.append(f"{kind} reranker unavailable: ran without reranking")
        except RagError as error:
            result.notes.append(f"reranker failed: {error}; first-stage order kept")
        result.timings_ms["rerank"] = _ms(started)
        return pool

    def _write_check(
        self, query: Query, ctx: QueryContext, result: AnswerResult, top: list[RetrievedChunk], apis: tuple[str, ...]
    ) -> list[RetrievedChunk]:
        """`top` plus the operations that exist when the question asks for a write the API lacks (a fact)."""
        started = time.perf_counter()
        check = check_write_operation(query.text, profile_for(ctx.snapshot), apis)
        if check is not None:
            result.notes.append("write check: " + check.fact())
            # The fact names what exists; the operations join the context after the ranked chunks
            # (the ranking itself is the retriever's and the reranker's).
            ids = {c.chunk.chunk_id for c in top}
            top = top + [
                RetrievedChunk(chunk, {"write_check": 1.0}) for chunk in check.existing if chunk.chunk_id not in ids
            ]
            result.facts.append(check.fact())
        removed = removed_writes(query.text, ctx.snapshot.chunks.values(), apis)  # an older version had it
        if removed:
            fact = " ".join(chunk.text.splitlines()[-1] for chunk in removed)  # "… was removed … in version …"
            result.notes.append("write check: " + fact)
            result.facts.append(fact)
            ids = {c.chunk.chunk_id for c in top}
            top = top + [RetrievedChunk(chunk, {"write_check": 1.0}) for chunk in removed if chunk.chunk_id not in ids]
        result.timings_ms["write_check"] = _ms(started)
        return top

    def gate(self, config: Config, query: Query | str, ctx: QueryContext, result: AnswerResult,
             chunks: Sequence[RetrievedChunk] = ()) -> None:  # fmt: skip
        """Apply the confidence gate (when the config has abstention) to `result` (rag.gate); with an LLM
        configured, the model also judges whether `chunks` answer the question (a model that cannot be
        made is noted, and the similarity gate decides alone)."""
        if not config.abstention:
            return
        known = {word for glossary in self.active_glossaries(config, ctx) for word in glossary.words()}
        spec, chat_model = self.llm_spec(config), None
        try:
            chat_model = None if spec == "extractive" else self.chat_model(spec)
        except RagError as error:
            result.notes.append(f"answerability judge unavailable: {error}")
        self.confidence_gate.apply(config.chunking, Query.of(query), ctx, result, known, chunks, chat_model)

    @property
    def confidence_gate(self) -> ConfidenceGate:
        """The engine's confidence gate (its thresholds and caches), made on first use."""
        with self._lock:
            if self._gate is None:
                self._gate = ConfidenceGate(self.index, self.thresholds)
            return self._gate

    # ------------------------------------------------------------------ run
    def prepare(
        self,
        question: str,
        config: Config,
        history: Sequence[dict[str, str]] | None = None,
        ctx: QueryContext | None = None,
        contexts: dict[str, QueryContext] | None = None,
        scope: tuple[str, ...] = (),
    ) -> tuple[AnswerResult, QueryContext, list[RetrievedChunk]]:
        """Rewrite, retrieve and gate; returns the partly filled result, the context and the chunks."""
        result = AnswerResult(config=config.name, question=question)
        cleaned = clean_question(question)
        query = Query(cleaned)
        if config.rewrite and history:
            started = time.perf_counter()
            spec = self.llm_spec(config)
            topics = profile_for(self.index.snapshot()).topics
            rewritten = rewrite_query(
                cleaned, history, self.chat_model(spec) if spec != "extractive" else None, topics
            )
            query = rewritten.query
            if rewritten.note:
                result.notes.append(rewritten.note)
            result.timings_ms["rewrite"] = _ms(started)
        result.query = query
        result.standalone_query = query.standalone
        if ctx is None or ctx.query != query.standalone or ctx.api_version != config.api_version:
            ctx = self._context(query.standalone, contexts, config.api_version)
        started = time.perf_counter()
        ctx.query_vector(query.standalone)
        result.timings_ms["embed"] = _ms(started)
        chunks = self.retrieve(config, query, ctx, result, scope)
        self.gate(config, query, ctx, result, chunks)
        result.chunks = chunks
        return result, ctx, chunks

    def _context(self, query: str, contexts: dict[str, QueryContext] | None, api_version: str = "") -> QueryContext:
        if contexts is None:
            return QueryContext(self.index, query, api_version=api_version)
        key = f"{api_version}\x00{query}" if api_version else query  # a pinned version has its own pools
        with self._lock:
            if key not in contexts:
                contexts[key] = QueryContext(self.index, query, api_version=api_version)
            return contexts[key]

    def _request(self, config: Config, result: AnswerResult) -> GenerationRequest:
        return GenerationRequest(
            question=result.standalone_query or result.question,
            chunks=result.chunks,
            abstain_allowed=config.abstention,
            reasoning=config.reasoning,
            context_tokens=min(config.context_tokens, LOCAL_CONTEXT_TOKENS)
            if self.llm_spec(config).startswith("local")
            else config.context_tokens,
            gate=result.confidence if config.abstention else "answer",
            facts=tuple(result.facts),
            focus=result.query.focus if result.query else "",
        )

    def _finish(self, config: Config, result: AnswerResult, generation: Generation) -> AnswerResult:
        result.answer = generation.answer
        result.abstained = generation.abstained
        if generation.abstained:
            result.confidence = "abstain"
        result.citations = list(generation.citations)
        result.dropped_citations = generation.dropped_citations
        result.reasoning_steps = list(generation.reasoning_steps)
        result.tokens_in += generation.tokens_in
        result.tokens_out += generation.tokens_out
        result.generator = generation.generator
        if config.reasoning and not generation.reasoning_steps and self.llm_spec(config) == "extractive":
            result.fallbacks.append("no LLM: chain-of-thought verification skipped")
        return result

    def run(
        self,
        question: str,
        config: Config,
        history: Sequence[dict[str, str]] | None = None,
        retrieval_only: bool = False,
        ctx: QueryContext | None = None,
        contexts: dict[str, QueryContext] | None = None,
        scope: tuple[str, ...] = (),
    ) -> AnswerResult:
        """Answer with one config; errors are recorded in the result, never raised.

        `scope` restricts retrieval to the named APIs (see `retrieve`).
        """
        started_all = time.perf_counter()
        try:
            result, ctx, chunks = self.prepare(question, config, history, ctx, contexts, scope)
        except RagError as error:
            return AnswerResult(
                config=config.name, question=question, errors=[str(error)], timings_ms={"total": _ms(started_all)}
            )
        except Exception as error:  # one failing config must not break the others
            return AnswerResult(
                config=config.name,
                question=question,
                errors=[f"{type(error).__name__}: {error}"],
                timings_ms={"total": _ms(started_all)},
            )
        result.retrieval_only = retrieval_only
        if retrieval_only:
            result.abstained = config.abstention and result.confidence == "abstain"
            result.citations = [Citation.of(c.chunk) for c in chunks]
            result.generator = "none (retrieval only)"
            return result
        spec = self.llm_spec(config)
        started = time.perf_counter()
        try:
            generation = self.generator(spec).generate(self._request(config, result))
        except Exception as error:
            result.errors.append(f"generation with {spec} failed: {error}")
            result.generator = spec
            result.timings_ms["generate"] = _ms(started)
            return result
        result.timings_ms["generate"] = _ms(started)
        return self._finish(config, result, generation)

    def run_many(
        self,
        question: str,
        configs: Sequence[Config],
        history: Sequence[dict[str, str]] | None = None,
        retrieval_only: bool = False,
        on_result: Callable[[AnswerResult], None] | None = None,
    ) -> list[AnswerResult]:
        """Run several configs sharing embeddings and candidate pools: concurrently when some call a model
        server, one after another when none does (threads would only take turns on the interpreter). Results
        come in config order (`on_result` is called in that order too); a failing config yields a result
        with `errors`."""
        if len(configs) <= 1 or all(self.runs_offline(c) for c in configs):
            # Nothing waits on a model server: threads would only take turns on the interpreter, so the configs
            # run one after another on shared contexts (one embedding, one pool per retriever).
            contexts: dict[str, QueryContext] = {}
            results = [self._run_isolated(question, c, history, retrieval_only, contexts) for c in configs]
        else:
            found = {
                event.config: event.result
                for event in self.stream_many(question, configs, history, retrieval_only, stream=False)
                if event.result is not None
            }
            results = [found[config.name] for config in configs]
        for item in results:
            if on_result:
                on_result(item)
        return results

    def runs_offline(self, config: Config) -> bool:
        """Whether a config calls no model server: its LLM (for intent, LLM reranking and the answer) is the
        extractive generator."""
        return self.llm_spec(config) == "extractive"

    def _run_isolated(
        self,
        question: str,
        config: Config,
        history: Sequence[Mapping[str, str]] | None,
        retrieval_only: bool,
        contexts: dict[str, QueryContext],
    ) -> AnswerResult:
        """`run`, with a failure turned into a result that carries the error (one failing configuration
        must not break the others)."""
        messages = [dict(m) for m in history] if history else None
        try:
            return self.run(question, config, messages, retrieval_only, None, contexts)
        except Exception as error:
            return AnswerResult(config.name, question, errors=[f"{type(error).__name__}: {error}"])

    def stream_many(
        self,
        question: str,
        configs: Sequence[Config],
        history: Sequence[Mapping[str, str]] | Mapping[str, Sequence[Mapping[str, str]]] | None = None,
        retrieval_only: bool = False,
        stream: bool = True,
    ) -> Iterator[ConfigEvent]:
        """Run every config concurrently; yield streamed answer text and each result as soon as it is ready.

        `history` is one conversation for every config, or a mapping of config name → its own conversation
        (each configuration continues its own). Configs that do not stream share one embedding and the
        candidate pools. A configuration that fails yields a result with `errors` and never stops the
        others. The caller's thread consumes the events; workers only put them on a queue.
        """
        events: queue.Queue[ConfigEvent] = queue.Queue()
        contexts: dict[str, QueryContext] = {}

        def work(config: Config) -> None:
            own = history.get(config.name) if isinstance(history, Mapping) else history
            messages = [dict(m) for m in own] if own else None
            try:
                if stream and not retrieval_only and self.llm_spec(config) != "extractive":
                    final = None
                    for item in self.stream(question, config, messages):
                        if isinstance(item, AnswerResult):
                            final = item
                        elif item.kind == "token" and item.text:
                            events.put(ConfigEvent(config.name, "token", text=item.text))
                    final = final or AnswerResult(config.name, question, errors=["the generator stopped early"])
                    events.put(ConfigEvent(config.name, "result", result=final))
                else:
                    result = self.run(question, config, messages, retrieval_only, None, contexts)
                    events.put(ConfigEvent(config.name, "result", result=result))
            except Exception as error:  # one failing configuration must not break the others
                failed = AnswerResult(config.name, question, errors=[f"{type(error).__name__}: {error}"])
                events.put(ConfigEvent(config.name, "result", result=failed))

        if not configs:
            return
        executor = ThreadPoolExecutor(max_workers=min(self.max_workers, len(configs)), thread_name_prefix="config")
        try:
            for config in configs:
                executor.submit(work, config)
            pending = {config.name for config in configs}
            while pending:
                event = events.get()
                if event.kind == "result":
                    pending.discard(event.config)
                yield event
        finally:
            executor.shutdown(wait=False)

    def stream(
        self, question: str, config: Config, history: Sequence[dict[str, str]] | None = None
    ) -> Iterator[StreamEvent | AnswerResult]:
        """Yield the generator's stream events, then the finished AnswerResult."""
        try:
            result, _, _ = self.prepare(question, config, history)
        except Exception as error:
            yield AnswerResult(config=config.name, question=question, errors=[str(error)])
            return
        spec = self.llm_spec(config)
        started = time.perf_counter()
        generation: Generation | None = None
        try:
            for event in self.generator(spec).stream(self._request(config, result)):
                if event.kind == "done":
                    generation = event.generation
                yield event
        except Exception as error:
            result.errors.append(f"generation with {spec} failed: {error}")
        result.timings_ms["generate"] = _ms(started)
        if generation is None:
            generation = Generation(answer=ABSTAIN_MESSAGE if not result.errors else "", generator=spec)
        yield self._finish(config, result, generation) if not result.errors else result


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 3)


def engine_from_settings(settings: Any | None = None, llm: str | None = None) -> Engine:
    """The engine every interface uses: the index from settings and the detected default generator."""
    from rag.index.build import open_index
    from rag.settings import Settings

    settings = settings or Settings.from_env()
    index = open_index(settings)
    return Engine(index, default_llm=llm or settings.llm or detect_llm())
