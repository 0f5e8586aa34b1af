"""The stages that read the question: follow-up rewrite, the query's embedding, glossary expansion and the
API-intent filter."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rag.corpus.profile import profile_for
from rag.pipeline.state import BaseStage, Feature, PipelineState, SwitchedStage
from rag.retrieve.intent import Intent, LLMIntentDetector, OfflineIntentDetector
from rag.retrieve.synonyms import expand_query
from rag.rewrite import rewrite_query

if TYPE_CHECKING:
    from rag.config import Config

# LLM specs whose model is fast enough to read the question's intent (a local model is not).
HOSTED_LLM_PREFIXES = ("openai:", "groq:")


class Rewrite(BaseStage):
    """A follow-up made standalone with the conversation before it (an LLM's rewrite, else the earlier
    turn attached); each configuration continues its own conversation."""

    name: ClassVar[str] = "rewrite"

    @classmethod
    def applies(cls, config: Config) -> bool:
        """Configs that rewrite follow-ups."""
        return config.rewrite

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the rewritten query (unchanged without a conversation)."""
        if not state.history:
            return state
        with state.timed(self.name):
            spec = self.services.llm_spec(self.config)
            profile = profile_for(self.services.index.snapshot())
            chat_model = self.services.chat_model(spec) if spec != "extractive" else None
            rewritten = rewrite_query(state.query.asked, list(state.history), chat_model, profile.topics,
                                      profile.operations)
            state.query = rewritten.query
            if rewritten.note:
                state.note(self.name, rewritten.note)
        return state


class Embed(BaseStage):
    """The query context of the standalone question (shared between configurations asking the same) and
    its embedding."""

    name: ClassVar[str] = "embed"

    def run(self, state: PipelineState) -> PipelineState:
        """The state with its query context, the query embedded."""
        standalone = state.query.standalone
        ctx = state.ctx
        if ctx is None or ctx.query != standalone or ctx.api_version != self.config.api_version:
            state.ctx = self.services.context(standalone, state.contexts, self.config.api_version)
        with state.timed(self.name):
            state.context.query_vector(standalone)
        return state


class GlossaryExpansion(SwitchedStage):
    """Spec words from the config's glossaries added to the retrieval text (only glossaries that fit the
    corpus)."""

    name: ClassVar[str] = "query_expansion"
    features: ClassVar[tuple[Feature, ...]] = (
        Feature("query_expansion", lambda config: config.query_expansion, {"query_expansion": False}),
    )

    def run(self, state: PipelineState) -> PipelineState:
        """The state whose query carries the glossary words."""
        state.query = expand_query(state.query, self.services.active_glossaries(self.config, state.context))
        if state.query.expansions:
            state.note(self.name, f"query expanded: {state.query.text}")
        return state


class IntentFilter(BaseStage):
    """The APIs a question is about: the search is restricted to them (with `intent_evidence = explicit`,
    only when the question names them); per-API k reads whether it spans several."""

    name: ClassVar[str] = "intent"
    features: ClassVar[tuple[Feature, ...]] = (
        Feature("intent_filter", lambda config: config.intent_filter, {"intent_filter": False}),
    )

    @classmethod
    def applies(cls, config: Config) -> bool:
        """Configs that filter by intent or share k among several APIs (which needs the intent)."""
        return config.intent_filter or config.dynamic_k

    def run(self, state: PipelineState) -> PipelineState:
        """The state with the detected intent and the APIs to search."""
        with state.timed(self.name):
            intent = self._detect(state)
        state.intent = intent
        if self.config.intent_filter and intent.apis:
            state.detected_apis = list(intent.apis)
        state.note(self.name, f"intent: {intent.note or 'none'}")
        state.apis = tuple(intent.apis) if self.config.intent_filter else ()
        if state.apis and self.config.intent_evidence == "explicit" and not intent.explicit:
            state.note(self.name, "intent filter: not applied (the question names no API)")
            state.detected_apis = []
            state.apis = ()
        return state

    def _detect(self, state: PipelineState) -> Intent:
        ctx, query = state.context, state.query
        profile = profile_for(ctx.snapshot)
        spec = self.services.llm_spec(self.config)
        if spec.startswith(HOSTED_LLM_PREFIXES):
            return LLMIntentDetector(self.services.chat_model(spec)).detect(query, profile)
        return ctx.memo(("intent-offline", query.text), lambda: OfflineIntentDetector().detect(query, profile))
