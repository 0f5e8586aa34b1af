"""The pipeline of a `Config`, built once: the config is read here and nowhere else, each stage made with its
own settings and models; `Generate` is the last stage (it streams, too).

Stages in order: rewrite → embed → glossary expansion → intent filter → retrieve (per-API k) → rerank → order →
lookup lift → conversation subject → top k → write-operation check → confidence gate → generate. A feature an
ablation switches off (rag.pipeline.features) leaves its stage out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from rag.config import Config
from rag.corpus.profile import profile_for
from rag.gate import ConfidenceGate
from rag.generate.base import Generation, GenerationRequest, Generator, StreamEvent
from rag.index.store import Index, Snapshot
from rag.llm.base import ChatModel
from rag.llm.spec import LLM, ModelSpec
from rag.pipeline.answer_stages import Gate, Generate
from rag.pipeline.features import features_of
from rag.pipeline.learned_rank import LearnedRank, first_place_confidence, learned_ranker, operation_texts
from rag.pipeline.query_stages import Embed, GlossaryExpansion, InitialismExpansion, IntentFilter, Rewrite
from rag.pipeline.ranking_stages import (
    KeepSubject,
    LookupLift,
    NamedOperations,
    Order,
    PagesAsked,
    Rerank,
    Retrieve,
    TopK,
    WriteCheck,
)
from rag.pipeline.state import PipelineState, Stage
from rag.rerank.base import Reranker
from rag.rerank.cross_encoder import CrossEncoderReranker
from rag.rerank.llm import LLMReranker
from rag.results import AnswerResult
from rag.retrieve.retrievers import make_retriever
from rag.retrieve.synonyms import load_glossary

LOCAL_CONTEXT_TOKENS = 1800  # a 2-core CPU prefills ~150 tokens/s: keep local prompts short


class Resources(Protocol):
    """What a pipeline is built from (the engine): the index, the models it makes once, the confidence gate.
    Only `build_pipeline` reads it; no stage holds it."""

    index: Index

    def llm_spec(self, config: Config) -> str:
        """The generator spec a config resolves to."""
        ...

    def chat_model(self, spec: str) -> ChatModel | None:
        """The chat model of an LLM spec (None for the extractive generator)."""
        ...

    def generator(self, spec: str) -> Generator:
        """The generator of a spec."""
        ...

    def reranker_for(self, config: Config, llm: LLM) -> Callable[[Snapshot], Reranker]:
        """What makes the config's reranker for the searched corpus."""
        ...

    @property
    def confidence_gate(self) -> ConfidenceGate:
        """The engine's confidence gate."""
        ...


def reranker_for(kind: str, model: str, llm: LLM) -> Callable[[Snapshot], Reranker]:
    """What makes a reranker of `kind` (cross-encoder, llm) for a corpus: the cross-encoder is `model`, the LLM
    reranker asks `llm` (the learned ranker is a stage of its own: rag.pipeline.learned_rank)."""
    makers: dict[str, Callable[[Snapshot], Reranker]] = {
        "cross-encoder": lambda snapshot: CrossEncoderReranker(model),
        "llm": lambda snapshot: LLMReranker(llm.model()),
    }
    return makers[kind]


@dataclass
class UnavailableGenerator:
    """Stands in for a generator that could not be made: answering raises what stopped it (the generate stage
    records that as the config's error, as a failing generator)."""

    name: str
    problem: Exception

    def generate(self, request: GenerationRequest) -> Generation:
        """Raises the problem."""
        raise self.problem

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        """Raises the problem."""
        raise self.problem


@dataclass(frozen=True)
class Pipeline:
    """One configuration's stages, built once for an index generation: the evidence stages, then `generate`.
    `complete` is False when a model could not be made (the engine builds it again for the next question)."""

    config: str
    llm: LLM
    stages: tuple[Stage, ...]
    generate: Generate
    generation: int
    complete: bool = True

    def prepare(self, state: PipelineState) -> PipelineState:
        """The state after the evidence stages (everything before generation)."""
        for stage in self.stages:
            state = state.after(stage.run(state))
        return state

    def answer(self, state: PipelineState) -> AnswerResult:
        """The result after generation (or, retrieval only, the chunks as citations)."""
        return state.after(self.generate.run(state)).to_result()

    def stream(self, state: PipelineState) -> Iterator[StreamEvent | AnswerResult]:
        """The generator's stream events, then the finished result."""
        answered = yield from self.generate.stream(state)
        yield state.after(answered).to_result()


def made_llm(spec: ModelSpec, resources: Resources) -> LLM:
    """The LLM of `spec` with its chat model made (none for the extractive generator); a model that cannot be
    made keeps the error for the stages that need it."""
    if spec.is_extractive:
        return LLM(spec)
    try:
        return LLM(spec, resources.chat_model(spec.text))
    except Exception as error:  # raised where a stage needs the model, as if made there
        return LLM(spec, problem=error)


def made_generator(spec: ModelSpec, resources: Resources) -> Generator:
    """The generator of `spec`; one that cannot be made is an `UnavailableGenerator`."""
    try:
        return resources.generator(spec.text)
    except Exception as error:  # the generate stage records it as the config's error
        return UnavailableGenerator(spec.text, error)


def build_pipeline(config: Config, resources: Resources) -> Pipeline:
    """The pipeline of `config`: every stage it runs, made with its settings and the models it uses."""
    snapshot = resources.index.snapshot()
    llm = made_llm(ModelSpec(resources.llm_spec(config)), resources)
    generator = made_generator(llm.spec, resources)
    context_tokens = min(config.context_tokens, LOCAL_CONTEXT_TOKENS) if llm.spec.is_local else config.context_tokens
    generate = Generate(generator, llm.spec, config.abstention, config.reasoning, context_tokens)
    stages = evidence_stages(config, resources, llm, snapshot)
    complete = llm.problem is None and not isinstance(generator, UnavailableGenerator)
    return Pipeline(config.name, llm, stages, generate, snapshot.generation, complete)


def evidence_stages(config: Config, resources: Resources, llm: LLM, snapshot: Snapshot) -> tuple[Stage, ...]:
    """The stages before generation that `config` runs, in order."""
    on = features_of(config)
    smart = config.chunking == "smart"
    learned = on["rerank"] and config.reranker == "learned"
    glossaries = tuple(load_glossary(name) for name in config.glossaries)
    retriever = make_retriever(config.retriever, config.alpha, config.rrf_k, config.query_adapter)
    chosen: list[tuple[bool, Callable[[], Stage]]] = [
        (config.rewrite, lambda: Rewrite(llm, profile_for(snapshot))),
        (True, lambda: Embed(resources.index, config.api_version, unsearched_names=config.intent_filter)),
        (on["query_expansion"], lambda: GlossaryExpansion(glossaries)),
        (on["initialisms"], InitialismExpansion),
        (config.intent_filter or config.dynamic_k, lambda: IntentFilter(
            config.intent_filter, config.intent_evidence == "explicit", llm if llm.spec.is_hosted else None)),
        (True, lambda: Retrieve(retriever, config.chunking, config.k, config.candidate_pool, config.dynamic_k,
                                config.operation_search if smart else 0,
                                partial(operation_texts, resources.index))),
        (learned, lambda: LearnedRank(partial(learned_ranker, resources.index), config.query_adapter)),
        (on["rerank"] and not learned, lambda: Rerank(
            resources.reranker_for(config, llm), "LLM" if config.reranker == "llm" else config.reranker)),
        (True, lambda: Order(config.schemas_last)),
        (config.lookup and smart, lambda: LookupLift(resources.index, config.query_adapter)),
        (learned and smart, PagesAsked),
        (config.rewrite and smart, lambda: KeepSubject(model_knows_subject=learned)),
        (config.named_operations and smart, NamedOperations),
        (True, TopK),
        (on["write_check"], WriteCheck),
        (on["abstention"], lambda: Gate(resources.confidence_gate, config.chunking, glossaries, llm,
                                        partial(first_place_confidence,
                                                ranker_for=partial(learned_ranker, resources.index),
                                                adapt=config.query_adapter))),
    ]
    return tuple(make() for runs, make in chosen if runs)
