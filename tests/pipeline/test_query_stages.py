"""The stages that read the question (rag/pipeline/query_stages.py), each through its `run` on a small state
over the fixture index (people and shop APIs, hashing embedder)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.index.build import ingest_paths
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.pipeline.query_stages import Embed, GlossaryExpansion, InitialismExpansion, IntentFilter, Rewrite
from rag.query import Query
from rag.retrieve.context import QueryContext
from rag.retrieve.synonyms import Glossary
from rag.runner import Engine
from tests.corpus.test_initialisms import forge_spec
from tests.pipeline.stage_states import history, notes_of, run, state_for, timed

STAFF = Glossary("staff", (("staff", "employees"),))


@pytest.fixture
def engine(people_shop_index: Index) -> Engine:
    return Engine(people_shop_index, default_llm="extractive")


def test_rewrite_leaves_a_question_without_a_conversation_as_it_is(engine: Engine) -> None:
    state = state_for("How do I list employees?")
    after = run(state, engine, Rewrite)
    assert after.scope.query is state.scope.query and not after.trace


def test_rewrite_attaches_the_earlier_turn_to_a_follow_up_offline(engine: Engine) -> None:
    turns = history("How do I list employees?", "Use GET /unified/hris/employees.")
    state = run(state_for("and how do I delete one?", history=turns), engine, Rewrite)
    assert state.scope.query.asked == "and how do I delete one?"
    assert state.scope.query.previous == "How do I list employees?"
    # The earlier answer's operation is the conversation's subject; the follow-up asks another action of it, so
    # retrieval gets its path, not its action, and the subject does not lead the ranking.
    assert state.scope.query.subject.endswith("paths./unified/hris/employees.get")
    assert state.scope.query.subject_words == "/unified/hris/employees" and not state.scope.query.keeps_subject
    assert notes_of(state, "rewrite") == ["follow-up rewritten offline; subject: GET /unified/hris/employees"]
    assert "rewrite" in timed(state)
    paging = run(state_for("and how do I page through them?", history=turns), engine, Rewrite)
    query = paging.scope.query
    assert query.keeps_subject and query.subject_words.startswith("GET /unified/hris/employees")


def test_embed_makes_the_context_of_the_standalone_question_and_keeps_a_fitting_one(engine: Engine) -> None:
    query = Query("and how do I delete one?", previous="How do I list employees?")
    state = run(state_for(query), engine, Embed)
    assert state.scope.context.query == query.standalone and "embed" in timed(state)
    made = state.scope.context
    assert run(state, engine, Embed).scope.context is made
    other = replace(state, scope=replace(state.scope, query=Query("How do I list orders?")))
    assert run(other, engine, Embed).scope.context.query == "How do I list orders?"


def test_embed_leaves_out_the_words_naming_an_api_where_the_config_filters_to_it(
        engine: Engine, people_shop_index: Index) -> None:
    """`full` filters to the APIs a question names, so it searches without their names (which find the API's
    overview); C2 filters to none and searches the question as asked."""
    people = next(api for api in people_shop_index.snapshot().apis() if "people" in api)
    question = f"How do I list employees in the {people} API?"
    state = run(state_for(question), engine, Embed)
    assert state.scope.query.unsearched == (people,)
    assert state.scope.context.query == "How do I list employees in the API?"
    assert notes_of(state, "embed") == [f"searched without the words naming the API: {people}"]
    plain = run(state_for(question, "C2"), engine, Embed)
    assert plain.scope.query.unsearched == () and plain.scope.context.query == question


def test_embed_shares_contexts_between_configs_asking_the_same(engine: Engine) -> None:
    contexts: dict[str, QueryContext] = {}
    first = run(state_for("How do I list orders?", contexts=contexts), engine, Embed)
    second = run(state_for("How do I list orders?", "C2", contexts=contexts), engine, Embed)
    assert first.scope.context is second.scope.context and list(contexts) == ["How do I list orders?"]


def test_glossary_expansion_adds_the_spec_words_of_the_users_words(engine: Engine) -> None:
    config = replace(PRESETS["full"], query_expansion=True)
    expansion = GlossaryExpansion((STAFF,))
    state = run(state_for("How do I see all staff?", config), engine, Embed, expansion)
    assert state.scope.query.expansions == ("employees",) and state.scope.query.asked == "How do I see all staff?"
    assert notes_of(state, "query_expansion") == [f"query expanded: {state.scope.query.text}"]
    unmatched = run(state_for("How do I list orders?", config), engine, Embed, expansion)
    assert unmatched.scope.query.expansions == () and not notes_of(unmatched, "query_expansion")


def test_an_initialism_the_corpus_spells_out_is_searched_for_in_its_words(tmp_path: Path, engine: Engine) -> None:
    """"PR" is no word of the forge API, whose operations say "pull request": `full` searches for both; a glossary's
    words stay beside them; an index whose operations spell no such phrase (people and shop) adds nothing."""
    (tmp_path / "forge.json").write_text(json.dumps(forge_spec()), encoding="utf-8")
    index = Index(tmp_path / "index", HashingEmbedder())
    assert [r.status for r in ingest_paths(index, [tmp_path / "forge.json"])] == ["added"]
    forge = Engine(index, default_llm="extractive")
    state = run(state_for("withdraw my approval on a PR"), forge, Embed, InitialismExpansion)
    assert state.scope.query.expansions == ("pull request",)
    assert state.scope.query.text.endswith("pull request)")
    assert notes_of(state, "initialisms") == ["initialisms spelled out in the corpus's words: pull request"]
    glossary = state_for(Query("withdraw my approval on a PR", expansions=("approve",)))
    assert run(glossary, forge, Embed, InitialismExpansion).scope.query.expansions == ("approve", "pull request")
    other = run(state_for("withdraw my approval on a PR"), engine, Embed, InitialismExpansion)
    assert other.scope.query.expansions == () and not notes_of(other, "initialisms")
    assert not any(isinstance(s, InitialismExpansion) for s in forge.pipeline(PRESETS["C2"]).stages)


def test_the_intent_filter_searches_only_the_apis_a_question_names(engine: Engine) -> None:
    state = run(state_for("How do I list orders in the shop-3_0 API?"), engine, Embed, IntentFilter)
    assert state.scope.intent.explicit and state.scope.asked_apis == ("shop-3_0",)
    assert "intent" in timed(state)


def test_with_explicit_evidence_the_filter_is_not_applied_to_a_question_naming_no_api(engine: Engine) -> None:
    state = state_for("How do I list all orders?")
    assert state.settings.intent_evidence == "explicit"
    state = run(state, engine, Embed, IntentFilter)
    assert state.scope.intent.apis == ("shop-3_0",) and not state.scope.intent.explicit
    assert state.scope.asked_apis == ()
    assert "intent filter: not applied (the question names no API)" in notes_of(state, "intent")
    terms = replace(state.settings, intent_evidence="terms")
    asked = run(state_for("How do I list all orders?", terms), engine, Embed, IntentFilter).scope.asked_apis
    assert asked == ("shop-3_0",)
