"""The stages that read the question: follow-up rewrite, the query's embedding, glossary expansion, the
initialisms the corpus spells out and the API-intent filter."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import ClassVar

from rag.corpus.initialisms import corpus_initialisms, initialism_words
from rag.corpus.profile import CorpusProfile, profile_for
from rag.index.store import Index
from rag.llm.spec import LLM
from rag.pipeline.state import PipelineState, Scope, StageTrace, Step
from rag.question_analysis import verb_methods
from rag.retrieve.context import QueryContext, shared_context
from rag.retrieve.intent import Intent, LLMIntentDetector, OfflineIntentDetector, unsearched_words
from rag.retrieve.synonyms import Glossary, expand_query, glossary_applies
from rag.rewrite import rewrite_query


def fitting_glossaries(glossaries: tuple[Glossary, ...], ctx: QueryContext) -> tuple[Glossary, ...]:
    """The glossaries that fit the searched corpus (its vocabulary uses their target words); the gate counts
    their words as understood even where query expansion is off."""
    if not glossaries:
        return ()
    profile = profile_for(ctx.snapshot)
    return tuple(
        glossary
        for glossary in glossaries
        if profile.remembered(("glossary-fits", glossary), partial(glossary_applies, glossary, profile.knows))
    )


@dataclass(frozen=True)
class Rewrite:
    """A follow-up made standalone with the conversation before it (the LLM's rewrite, else the earlier turn
    attached); each configuration continues its own conversation. `profile` is the indexed corpus's."""

    llm: LLM
    profile: CorpusProfile
    name: ClassVar[str] = "rewrite"

    def run(self, state: PipelineState) -> Step[Scope]:
        """The scope with the rewritten query (unchanged without a conversation)."""
        trace, scope = StageTrace(self.name), state.scope
        if not state.history:
            return scope, trace.events
        with trace.timed():
            rewritten = rewrite_query(scope.query.asked, list(state.history), self.llm.model(), self.profile.topics,
                                      self.profile.operations)
            if rewritten.note:
                trace.note(rewritten.note)
        return replace(scope, query=rewritten.query), trace.events


@dataclass(frozen=True)
class Embed:
    """The query context of the standalone question in the API version searched (shared between
    configurations asking the same) and its embedding. With `unsearched_names` (a config whose search the
    question's named APIs restrict), the words naming them are left out of what is searched (`Query.unsearched`)."""

    index: Index
    api_version: str = ""
    unsearched_names: bool = False
    name: ClassVar[str] = "embed"

    def run(self, state: PipelineState) -> Step[Scope]:
        """The scope with its query context, the query embedded."""
        trace, query = StageTrace(self.name), state.scope.query
        if self.unsearched_names:
            query = replace(query, unsearched=unsearched_words(query.standalone, profile_for(self.index.snapshot())))
            if query.searched != query.standalone:
                trace.note(f"searched without the words naming the API: {', '.join(query.unsearched)}")
        searched, ctx = query.searched, state.scope.ctx
        if ctx is None or ctx.query != searched or ctx.api_version != self.api_version:
            ctx = shared_context(self.index, searched, state.contexts, self.api_version)
        with trace.timed():
            ctx.query_vector(searched)
        return replace(state.scope, ctx=ctx, query=query), trace.events


@dataclass(frozen=True)
class GlossaryExpansion:
    """Spec words from the glossaries added to the retrieval text (only glossaries that fit the corpus)."""

    glossaries: tuple[Glossary, ...]
    name: ClassVar[str] = "query_expansion"

    def run(self, state: PipelineState) -> Step[Scope]:
        """The scope whose query carries the glossary words."""
        trace, scope = StageTrace(self.name), state.scope
        query = expand_query(scope.query, fitting_glossaries(self.glossaries, scope.context))
        if query.expansions:
            trace.note(f"query expanded: {query.text}")
        return replace(scope, query=query), trace.events


@dataclass(frozen=True)
class InitialismExpansion:
    """The words an initialism of the question stands for in the corpus's own operations ("PR" → "pull request",
    rag.corpus.initialisms) added to the retrieval text, where the corpus does not use the initialism itself."""

    name: ClassVar[str] = "initialisms"

    def run(self, state: PipelineState) -> Step[Scope]:
        """The scope whose query carries the words its initialisms stand for (unchanged when it has none)."""
        trace, scope = StageTrace(self.name), state.scope
        profile = profile_for(scope.context.snapshot)
        table = profile.remembered("initialisms", lambda: corpus_initialisms(
            profile.operations, verbs=set(verb_methods()) | set(profile.verb_methods)))
        words = tuple(w for w in initialism_words(scope.query.standalone, table, profile.knows)
                      if w not in scope.query.expansions)
        if not words:
            return scope, trace.events
        trace.note(f"initialisms spelled out in the corpus's words: {'; '.join(words)}")
        return replace(scope, query=scope.query.expanded((*scope.query.expansions, *words))), trace.events


@dataclass(frozen=True)
class IntentFilter:
    """The APIs a question is about: with `restrict`, it asks retrieval to search only them (with
    `explicit_only`, only when the question names them); per-API k reads whether it spans several. A hosted `llm`
    reads the intent; without one the offline detector does."""

    restrict: bool
    explicit_only: bool
    llm: LLM | None = None
    name: ClassVar[str] = "intent"

    def run(self, state: PipelineState) -> Step[Scope]:
        """The scope with the detected intent and the APIs it asks retrieval to search."""
        trace = StageTrace(self.name)
        with trace.timed():
            intent = self._detect(state.scope)
        trace.note(f"intent: {intent.note or 'none'}")
        apis = tuple(intent.apis) if self.restrict else ()
        if apis and self.explicit_only and not intent.explicit:
            trace.note("intent filter: not applied (the question names no API)")
            apis = ()
        return replace(state.scope, intent=intent, asked_apis=apis), trace.events

    def _detect(self, scope: Scope) -> Intent:
        ctx, query = scope.context, scope.query
        profile = profile_for(ctx.snapshot)
        model = self.llm.model() if self.llm is not None else None
        if model is not None:
            return LLMIntentDetector(model).detect(query, profile)
        return ctx.memo(("intent-offline", query.text), lambda: OfflineIntentDetector().detect(query, profile))
