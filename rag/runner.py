"""Send one question through one or many configurations and return everything that explains the answers.

`Engine` holds what is loaded once (the index, chat models, generators, the confidence gate) and the pipeline of
each configuration, built once per index generation (rag.pipeline.build): its stages made with their settings
and models, generation last. `run_many` shares the query embedding and each candidate pool between
configurations and runs them concurrently; one failing configuration never breaks the others.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rag.abstain import GateThresholds
from rag.cache import CACHE_FILE, CacheSettings, QueryCache, cache_key, index_fingerprint
from rag.config import Config, searched_strategies
from rag.gate import ConfidenceGate
from rag.generate.base import Generator, StreamEvent
from rag.index.store import Index, Snapshot
from rag.llm.base import ChatModel
from rag.llm.spec import EXTRACTIVE, LLM, ModelSpec
from rag.pipeline.build import Pipeline, build_pipeline, reranker_for
from rag.pipeline.learned_rank import prepare_ranking_inputs
from rag.pipeline.state import PipelineState, Scope
from rag.query import MAX_QUESTION_CHARS, Query, clean_question  # noqa: F401 (re-exported)
from rag.rerank.base import Reranker
from rag.results import AnswerResult, ConfigEvent
from rag.retrieve.context import QueryContext, search_view


def detect_llm(env: dict[str, str] | None = None) -> str:
    """The generator to use for `auto`: RAG_LLM, an API key, the local model, else extractive."""
    try:
        from rag.llm.factory import detect_default_llm
    except ImportError:  # pragma: no cover - the llm package is part of the product
        return (env or dict(os.environ)).get("RAG_LLM") or EXTRACTIVE
    return detect_default_llm(env if env is not None else dict(os.environ))


@dataclass
class Engine:
    """Runs configurations against one index. Models and clients are passed in (or made by the factories)."""

    index: Index
    default_llm: str = EXTRACTIVE
    chat_model_factory: Callable[[str], ChatModel] | None = None
    generator_factory: Callable[[str], Generator] | None = None
    thresholds: GateThresholds | None = None
    max_workers: int = 6
    # Stored results of repeated questions (rag.cache); None (evaluation, benchmarks): every question is run.
    cache: QueryCache | None = None
    _chat_models: dict[str, ChatModel] = field(default_factory=dict, init=False, repr=False)
    _generators: dict[str, Generator] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _gate: ConfidenceGate | None = field(default=None, init=False, repr=False)
    _pipelines: dict[tuple[Config, str], Pipeline] = field(default_factory=dict, init=False, repr=False)
    _build_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    # ------------------------------------------------------------------ models
    def llm_spec(self, config: Config) -> str:
        """The generator spec a config resolves to (`auto` → the engine default)."""
        return self.default_llm if config.generator == "auto" else config.generator

    def chat_model(self, spec: str) -> ChatModel | None:
        """The chat model for an LLM spec (None for extractive), made once per engine."""
        if ModelSpec(spec).is_extractive:
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

    def reranker_for(self, config: Config, llm: LLM) -> Callable[[Snapshot], Reranker]:
        """What makes the config's reranker for the searched corpus."""
        return reranker_for(config.reranker, config.reranker_model, llm)

    def prepare(self, configs: Sequence[Config]) -> int:
        """Make now, for the live index generation, what the configs would otherwise make the first time each chunk
        is a candidate: the learned ranker's inputs of every chunk they search (a warm-up step). Returns how many
        chunks were prepared."""
        learned = [config for config in configs if config.reranker == "learned"]
        if not learned or self.index.is_empty():
            return 0
        return prepare_ranking_inputs(self.index, searched_strategies(learned))

    @property
    def confidence_gate(self) -> ConfidenceGate:
        """The engine's confidence gate (its thresholds and caches), made on first use."""
        with self._lock:
            if self._gate is None:
                self._gate = ConfidenceGate(self.index, self.thresholds)
            return self._gate

    def pipeline(self, config: Config) -> Pipeline:
        """The pipeline of `config`, built once per index generation (again while one of its models could not
        be made: that may pass)."""
        key = (config, self.llm_spec(config))
        generation = self.index.snapshot().generation
        built = self._pipelines.get(key)
        if built is not None and built.generation == generation:
            return built  # built already: no waiting on another config's first build
        with self._build_lock:
            built = self._pipelines.get(key)
            if built is None or built.generation != generation:
                built = build_pipeline(config, self)
                if built.complete:
                    self._pipelines = {k: p for k, p in self._pipelines.items() if p.generation == built.generation}
                    self._pipelines[key] = built
            return built

    # ------------------------------------------------------------------ cache
    def cache_lookup(
        self,
        question: str,
        configs: Sequence[Config],
        history: Sequence[Mapping[str, str]] | Mapping[str, Sequence[Mapping[str, str]]] | None,
        retrieval_only: bool,
        use_cache: bool = True,
    ) -> tuple[str, dict[str, str], dict[str, AnswerResult]]:
        """The index fingerprint, each config's cache key and the stored results found (marked `cached`, timed by
        the lookup). Without a cache (or `use_cache` off): nothing, and nothing will be stored."""
        if not use_cache or self.cache is None or not self.cache.settings.enabled:
            return "", {}, {}
        started = time.perf_counter()
        fingerprint = index_fingerprint(self.index)
        keys: dict[str, str] = {}
        for config in configs:
            own = history.get(config.name) if isinstance(history, Mapping) else history
            keys[config.name] = cache_key(question, config, self.llm_spec(config), own, retrieval_only, fingerprint)
        stored = self.cache.get_many(list(keys.values()))
        found: dict[str, AnswerResult] = {}
        for config in configs:
            data = stored.get(keys[config.name])
            if data is None:
                continue
            chunks = search_view(self.index, question, config.api_version).chunks  # what the result was made from
            result = AnswerResult.from_dict(data, chunks.get)
            if len(result.chunks) != len(data.get("chunks") or ()):
                continue  # a chunk is gone (the fingerprint should have said so): answer afresh
            result.cached = True
            result.timings_ms = {"cache": round((time.perf_counter() - started) * 1000.0, 3)}
            found[config.name] = result
        return fingerprint, keys, found

    def cache_store(self, fingerprint: str, keys: Mapping[str, str], result: AnswerResult) -> None:
        """Keep a fresh result for the next time (never one with errors or a fallback: those may pass)."""
        key = keys.get(result.config)
        if self.cache is None or not key or result.cached or result.errors or result.fallbacks:
            return
        self.cache.put(key, fingerprint, result.to_dict())

    # ------------------------------------------------------------------ run
    def prepared(
        self,
        question: str,
        config: Config,
        history: Sequence[Mapping[str, str]] | None = None,
        ctx: QueryContext | None = None,
        contexts: dict[str, QueryContext] | None = None,
        scope: tuple[str, ...] = (),
        retrieval_only: bool = False,
    ) -> tuple[Pipeline, PipelineState]:
        """The config's pipeline and the state after its evidence stages (everything before generation)."""
        pipeline = self.pipeline(config)
        query = Query(clean_question(question))
        state = PipelineState(config.name, question, Scope(query, ctx), history or (), scope, retrieval_only, contexts)
        return pipeline, pipeline.prepare(state)

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

        `scope` restricts retrieval to the named APIs whatever the question says (the MCP `api` argument).
        """
        started = time.perf_counter()
        try:
            pipeline, state = self.prepared(question, config, history, ctx, contexts, scope, retrieval_only)
        except Exception as error:  # one failing config must not break the others
            return AnswerResult.failed(config.name, question, error, round((time.perf_counter() - started) * 1000.0, 3))
        return pipeline.answer(state)

    def run_many(
        self,
        question: str,
        configs: Sequence[Config],
        history: Sequence[dict[str, str]] | None = None,
        retrieval_only: bool = False,
        on_result: Callable[[AnswerResult], None] | None = None,
        use_cache: bool = True,
    ) -> list[AnswerResult]:
        """Run several configs sharing embeddings and candidate pools: concurrently when some call a model
        server, one after another when none does (threads would only take turns on the interpreter). Results
        come in config order (`on_result` is called in that order too); a failing config yields a result
        with `errors`. With `use_cache` (and an engine cache) a repeated question returns its stored result."""
        fingerprint, keys, hits = self.cache_lookup(question, configs, history, retrieval_only, use_cache)
        missing = [config for config in configs if config.name not in hits]
        if len(missing) <= 1 or all(self.runs_offline(c) for c in missing):
            # Nothing waits on a model server: threads would only take turns on the interpreter, so the configs
            # run one after another on shared contexts (one embedding, one pool per retriever).
            contexts: dict[str, QueryContext] = {}
            for config in missing:
                hits[config.name] = self._run_isolated(question, config, history, retrieval_only, contexts)
                self.cache_store(fingerprint, keys, hits[config.name])
        else:
            hits.update(
                (event.config, event.result)
                for event in self.stream_many(question, missing, history, retrieval_only, False, use_cache)
                if event.result is not None
            )
        results = [hits[config.name] for config in configs]
        for item in results:
            if on_result:
                on_result(item)
        return results

    def runs_offline(self, config: Config) -> bool:
        """Whether a config calls no model server: its LLM (for intent, LLM reranking and the answer) is the
        extractive generator."""
        return ModelSpec(self.llm_spec(config)).is_extractive

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
            return AnswerResult.failed(config.name, question, error)

    def stream_many(
        self,
        question: str,
        configs: Sequence[Config],
        history: Sequence[Mapping[str, str]] | Mapping[str, Sequence[Mapping[str, str]]] | None = None,
        retrieval_only: bool = False,
        stream: bool = True,
        use_cache: bool = True,
    ) -> Iterator[ConfigEvent]:
        """Run every config concurrently; yield streamed answer text and each result as soon as it is ready.

        `history` is one conversation for every config, or a mapping of config name → its own conversation
        (each configuration continues its own). Configs that do not stream share one embedding and the
        candidate pools. A configuration that fails yields a result with `errors` and never stops the
        others. The caller's thread consumes the events; workers only put them on a queue. With `use_cache` (and
        an engine cache) a stored result comes first, marked `cached`.
        """
        if not configs:
            return
        fingerprint, keys, hits = self.cache_lookup(question, configs, history, retrieval_only, use_cache)
        for config in configs:
            if config.name in hits:
                yield ConfigEvent(config.name, "result", result=hits[config.name])
        missing = [config for config in configs if config.name not in hits]
        if not missing:
            return
        events: queue.Queue[ConfigEvent] = queue.Queue()
        contexts: dict[str, QueryContext] = {}
        executor = ThreadPoolExecutor(max_workers=min(self.max_workers, len(missing)), thread_name_prefix="config")
        try:
            for config in missing:
                own = history.get(config.name) if isinstance(history, Mapping) else history
                messages = [dict(m) for m in own] if own else None
                executor.submit(self._work, question, config, messages, (retrieval_only, stream), contexts, events)
            pending = {config.name for config in missing}
            while pending:
                event = events.get()
                if event.kind == "result":
                    pending.discard(event.config)
                    if event.result is not None:
                        self.cache_store(fingerprint, keys, event.result)
                yield event
        finally:
            executor.shutdown(wait=False)

    def _work(
        self,
        question: str,
        config: Config,
        messages: list[dict[str, str]] | None,
        modes: tuple[bool, bool],
        contexts: dict[str, QueryContext],
        events: queue.Queue[ConfigEvent],
    ) -> None:
        """One configuration of `stream_many` on a worker thread: its streamed text (when `modes`, (retrieval only,
        stream), and its generator allow) and its result go on `events`; a failure becomes a result with errors."""
        retrieval_only, stream = modes
        try:
            if stream and not retrieval_only and not self.runs_offline(config):
                final = None
                for item in self.stream(question, config, messages):
                    if isinstance(item, AnswerResult):
                        final = item
                    elif item.kind == "token" and item.text:
                        events.put(ConfigEvent(config.name, "token", text=item.text))
                final = final or AnswerResult.failed(config.name, question, "the generator stopped early")
                events.put(ConfigEvent(config.name, "result", result=final))
            else:
                result = self.run(question, config, messages, retrieval_only, None, contexts)
                events.put(ConfigEvent(config.name, "result", result=result))
        except Exception as error:  # one failing configuration must not break the others
            events.put(ConfigEvent(config.name, "result", result=AnswerResult.failed(config.name, question, error)))

    def stream(
        self, question: str, config: Config, history: Sequence[dict[str, str]] | None = None
    ) -> Iterator[StreamEvent | AnswerResult]:
        """Yield the generator's stream events, then the finished AnswerResult."""
        try:
            pipeline, state = self.prepared(question, config, history)
        except Exception as error:
            yield AnswerResult.failed(config.name, question, error)
            return
        yield from pipeline.stream(state)


def engine_from_settings(settings: Any | None = None, llm: str | None = None, query_cache: bool = False) -> Engine:
    """The engine every interface uses: the index from settings and the detected default generator.

    `query_cache` keeps results of repeated questions in the index folder (the app, `ask`, MCP and the REST API;
    never an evaluation, whose timings must be real).
    """
    from rag.index.build import open_index
    from rag.settings import Settings

    settings = settings or Settings.from_env()
    index = open_index(settings)
    cache = None
    if query_cache and settings.query_cache_size > 0:
        cache = QueryCache(CacheSettings(settings.index_dir / CACHE_FILE, settings.query_cache_size))
    return Engine(index, default_llm=llm or settings.llm or detect_llm(), cache=cache)
