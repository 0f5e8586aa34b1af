"""The stages that find and order the evidence (rag/pipeline/ranking_stages.py), each through its `run` on a
small state over the fixture index (people: employees without DELETE; shop: orders) or hand-made candidates."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from rag.chunk import Chunk, PaginationFacts
from rag.config import PRESETS, Config
from rag.facts import MissingWrite
from rag.index.store import Index
from rag.pipeline.features import without_feature
from rag.pipeline.learned_rank import LearnedRank, learned_ranker, ranking_inputs
from rag.pipeline.query_stages import Embed
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
from rag.query import Query
from rag.rerank.base import RerankerUnavailable
from rag.rerank.learned import LearnedRanker, RankerUnavailable
from rag.results import RetrievedChunk, order_labels
from rag.retrieve.intent import Intent
from rag.retrieve.retrievers import HybridRetriever
from rag.retrieve.short_texts import OperationTexts
from rag.runner import Engine
from tests.fakes import MUSIC_SPEC, FakeBooster, make_chunk, retrieved
from tests.pipeline.stage_states import notes_of, run, state_for, timed

PEOPLE, SHOP = "people-3_1", "shop-3_0"


@pytest.fixture
def engine(people_shop_index: Index) -> Engine:
    return Engine(people_shop_index, default_llm="extractive")


def operations(index: Index) -> dict[str, Chunk]:
    """The smart operation chunks of an index by `METHOD /path`."""
    chunks = index.snapshot().chunks.values()
    return {f"{c.method.upper()} {c.path}": c for c in chunks if c.strategy == "smart" and c.kind == "operation"}


def test_retrieve_fills_the_pool_and_k_from_the_config(engine: Engine) -> None:
    state = run(state_for("How do I list orders?"), engine, Embed, Retrieve)
    ids = [c.chunk.chunk_id for c in state.ranking.candidates]
    assert ids and len(ids) == len(set(ids)) <= state.settings.candidate_pool + state.settings.operation_search
    assert state.ranking.k == state.settings.k and not state.ranking.balanced and "retrieve" in timed(state)


def test_retrieve_searches_only_the_callers_scope(engine: Engine) -> None:
    state = run(state_for("How do I list orders?", only_apis=(PEOPLE,)), engine, Embed, Retrieve)
    assert state.ranking.candidates and {c.chunk.api for c in state.ranking.candidates} == {PEOPLE}
    assert state.ranking.apis == (PEOPLE,) and state.to_result().detected_apis == [PEOPLE]
    assert notes_of(state, "retrieve") == [f"searched only: {PEOPLE} (as asked)"]


def test_retrieve_searches_everything_when_the_intent_matches_nothing(engine: Engine) -> None:
    state = run(state_for("How do I list orders?", asked_apis=("no-such-api",)),
                engine, Embed, Retrieve)
    assert state.ranking.candidates and state.ranking.apis == () and state.to_result().detected_apis == []
    assert "intent filter matched nothing; searched all APIs" in notes_of(state, "retrieve")


def test_a_multi_api_question_gets_each_apis_best_candidates_first(engine: Engine) -> None:
    intent = Intent((PEOPLE, SHOP), True)
    config = replace(PRESETS["full"], k=1)
    state = run(state_for("How do I list employees and orders?", config, intent=intent), engine, Embed, Retrieve)
    assert state.ranking.balanced == (PEOPLE, SHOP) and state.ranking.k == 2
    assert {c.chunk.api for c in state.ranking.candidates[:2]} == {PEOPLE, SHOP}
    without = run(state_for("How do I list employees and orders?", replace(config, dynamic_k=False), intent=intent),
                  engine, Embed, Retrieve)
    assert without.ranking.balanced == () and without.ranking.k == 1


def test_a_multi_api_questions_candidates_keep_each_apis_own_order(engine: Engine) -> None:
    """Each API's candidates come in the order of that API's own search (its best first), whatever their place
    in the search over all APIs: with no reranker (or one that failed) that order is the ranking."""
    from rag.retrieve.retrievers import HybridRetriever

    intent = Intent((PEOPLE, SHOP), True)
    question = "Which employees placed orders, and how do I list both?"
    state = run(state_for(question, PRESETS["full"], intent=intent), engine, Embed, Retrieve)
    for api in (PEOPLE, SHOP):
        own = HybridRetriever().retrieve(state.scope.context, ("smart", "docs"), 60, (api,), state.scope.query.text)
        ranked = [c.chunk.chunk_id for c in state.ranking.candidates if c.chunk.api == api]
        assert ranked[: len(own)] == [c.chunk.chunk_id for c in own]


# What a question asks of an operation: its method and its resource (the shipped model learns more; these two make
# the stage's mechanics visible).
STRUCTURE = FakeBooster((("method_match", 2.0), ("resource_match", 1.0), ("method_mismatch", -1.0)))


def learned_stage(engine: Engine, booster: FakeBooster = STRUCTURE) -> LearnedRank:
    return LearnedRank(lambda snapshot: LearnedRanker(ranking_inputs(engine.index, snapshot), booster))


def test_the_learned_ranker_orders_by_the_models_score_and_says_what_put_the_first_first(engine: Engine) -> None:
    ops = operations(engine.index)
    pool = retrieved(ops["GET /unified/hris/employees"], ops["GET /orders/{id}"], ops["POST /orders"])
    state = run(state_for("How do I create an order?", candidates=pool), engine, Embed, learned_stage(engine))
    ranked = state.ranking.candidates
    assert [c.chunk for c in ranked[:2]] == [ops["POST /orders"], ops["GET /orders/{id}"]]
    assert state.ranking.ranker == "learned" and [c.rank_before_rerank for c in ranked] == [3, 2, 1]
    assert ranked[0].scores["rerank"] == 3.0 and {"vector", "lead", "name"} <= set(ranked[0].scores)
    assert notes_of(state, "rerank") == [
        "learned ranker: POST /orders first (3.00; next 0.00): method_match +2.00, resource_match +1.00"
    ]
    assert sorted(c.chunk.chunk_id for c in ranked) == sorted(c.chunk.chunk_id for c in pool)
    assert [c.scores for c in pool] == [{}, {}, {}]  # scored on copies


def test_a_multi_api_questions_candidates_are_ranked_within_each_api(engine: Engine) -> None:
    ops = operations(engine.index)
    pool = retrieved(ops["GET /orders/{id}"], ops["GET /unified/hris/employees"], ops["POST /orders"],
                     ops["POST /unified/hris/employees"])
    state = state_for("How do I create an order and an employee?", candidates=pool, balanced=(SHOP, PEOPLE))
    ranked = [c.chunk for c in run(state, engine, Embed, learned_stage(engine)).ranking.candidates]
    assert ranked[:2] == [ops["POST /orders"], ops["GET /orders/{id}"]]  # the shop group, led by its best first
    assert ranked[2:] == [ops["POST /unified/hris/employees"], ops["GET /unified/hris/employees"]]


def test_the_learned_ranker_without_its_model_keeps_the_first_stage_order_and_says_so(engine: Engine) -> None:
    def missing(snapshot: object) -> LearnedRanker:
        raise RankerUnavailable("no ranker model at /nowhere/model.txt; build it with `make ranker`")

    ops = operations(engine.index)
    pool = retrieved(ops["GET /orders/{id}"], ops["POST /orders"])
    state = run(state_for("How do I create an order?", candidates=list(pool)), engine, Embed, LearnedRank(missing))
    assert list(state.ranking.candidates) == pool and state.ranking.ranker == ""
    assert [e.fallback for e in state.trace if e.fallback] == [
        "learned ranker unavailable (no ranker model at /nowhere/model.txt; build it with `make ranker`): ran "
        "without reranking"
    ]


@dataclass
class UnavailableReranker:
    name: str = "cross-encoder"

    def score(self, query, candidates):  # type: ignore[no-untyped-def]
        raise RerankerUnavailable("no cross-encoder model here")


def test_a_reranker_that_cannot_run_keeps_the_first_stage_order_and_says_so(engine: Engine) -> None:
    ops = operations(engine.index)
    pool = retrieved(ops["GET /orders/{id}"], ops["POST /orders"])
    rerank = Rerank(lambda snapshot: UnavailableReranker(), "cross-encoder")
    state = run(state_for("How do I create an order?", candidates=list(pool)), engine, Embed, rerank)
    assert list(state.ranking.candidates) == pool
    assert notes_of(state, "rerank") == ["no cross-encoder model here"]
    fallbacks = [e.fallback for e in state.trace if e.fallback]
    assert fallbacks == ["cross-encoder reranker unavailable: ran without reranking"]


def test_order_moves_further_parts_of_one_structural_id_to_the_end(engine: Engine) -> None:
    first, second = make_chunk("a.components.Big", "part 1", chunk_id="big/1"), make_chunk(
        "a.components.Big", "part 2", chunk_id="big/2"
    )
    other = make_chunk("a.components.Small", "small")
    state = run(state_for("q", candidates=retrieved(first, second, other)), engine, Order)
    assert [c.chunk for c in state.ranking.candidates] == [first, other, second]


def test_order_puts_schemas_after_operations_where_the_config_asks_for_it(engine: Engine) -> None:
    schema = make_chunk("a.components.Order", "id, status, items")
    operation = make_chunk("a.paths./orders.get", "GET /orders List orders", kind="operation")
    pool = retrieved(schema, operation)
    assert PRESETS["full"].schemas_last and not PRESETS["C2"].schemas_last
    full = run(state_for("q", candidates=list(pool), k=1), engine, Order)
    assert [c.chunk for c in full.ranking.candidates] == [operation, schema]
    assert notes_of(full, "order") == [
        "schemas after operations: 1 schema chunk(s) left the top 1 for operations (a schema the question names "
        "by its identifier keeps its place)"
    ]
    no_schemas_last = without_feature(PRESETS["full"], "schemas_last")
    ablated = run(state_for("q", no_schemas_last, candidates=list(pool), k=1), engine, Order)
    assert [c.chunk for c in ablated.ranking.candidates] == [schema, operation] and not notes_of(ablated, "order")
    within = run(state_for("q", candidates=list(pool), k=2), engine, Order)
    assert [c.chunk for c in within.ranking.candidates] == [operation, schema] and not notes_of(within, "order")


def test_order_shares_a_multi_api_questions_top_k_among_its_apis(engine: Engine) -> None:
    a1, a2, a3 = (make_chunk(f"a.components.S{i}", f"a {i}") for i in range(3))
    b1 = make_chunk("b.components.S", "b")
    state = state_for("q", candidates=retrieved(a1, a2, a3, b1), balanced=("a", "b"), k=2)
    assert [c.chunk for c in run(state, engine, Order).ranking.candidates] == [a1, b1, a2, a3]


def test_top_k_numbers_the_pool_and_copies_its_first_k_as_the_context(engine: Engine) -> None:
    chunks = [make_chunk(f"a.components.S{i}", f"s {i}") for i in range(4)]
    state = run(state_for("q", candidates=retrieved(*chunks), k=2), engine, TopK)
    assert [c.rank for c in state.evidence.pool] == [1, 2, 3, 4] and [c.chunk for c in state.evidence.pool] == chunks
    assert [c.chunk for c in state.evidence.top] == chunks[:2] and state.evidence.top[0] is not state.evidence.pool[0]


def test_write_check_states_a_missing_write_and_adds_the_operations_that_exist(engine: Engine) -> None:
    ops = operations(engine.index)
    schema = next(c for c in engine.index.snapshot().chunks.values() if c.kind == "schema" and c.api == ops[
        "POST /unified/hris/employees"].api)
    context = [RetrievedChunk(schema, rank=1)]
    state = run(state_for("How do I delete an employee?", top=context), engine, Embed, WriteCheck)
    (fact,) = state.evidence.facts
    assert isinstance(fact, MissingWrite)
    assert (fact.verb, fact.resource, fact.methods) == ("delete", "employee", ("delete",))
    assert list(state.evidence.top) == context and state.evidence.chunks[0] is context[0]
    added = [c.chunk for c in state.evidence.added]
    assert added == list(fact.existing) and added[0].path.endswith("{id}")  # deleting acts on one item
    assert all(c.scores == {"write_check": 1.0} for c in state.evidence.added)
    assert [c.rank for c in state.evidence.chunks] == list(range(1, len(state.evidence.chunks) + 1))
    assert notes_of(state, "write_check") == ["write check: " + fact.statement()]


def test_write_check_finds_nothing_when_the_write_exists_or_none_is_asked_for(engine: Engine) -> None:
    for question in ("How do I create an employee?", "How do I list employees?", "How do I delete an order?"):
        state = run(state_for(question), engine, Embed, WriteCheck)
        evidence = state.evidence
        assert evidence.facts == () and evidence.chunks == [] and not notes_of(state, "write_check"), question


def test_write_check_claims_nothing_about_an_api_that_retrieval_did_not_find(engine: Engine) -> None:
    # The shop API's order ranked first: whatever the people API lacks, this question is not about it.
    ops = operations(engine.index)
    context = [RetrievedChunk(ops["DELETE /orders/{id}"])]
    state = run(state_for("How do I delete an employee?", top=context), engine, Embed, WriteCheck)
    assert state.evidence.facts == () and not notes_of(state, "write_check")


def test_write_check_reads_the_write_of_the_earlier_turn_through_the_query(engine: Engine) -> None:
    follow_up = Query("and for employees?", previous="How do I delete an order?")
    state = run(state_for(follow_up), engine, Embed, WriteCheck)
    assert [type(f) for f in state.evidence.facts] == [MissingWrite] and state.evidence.facts[0].resource == "employee"


@pytest.fixture(scope="module")
def music_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    from rag.index.build import ingest_paths
    from rag.index.embedder import HashingEmbedder

    folder = tmp_path_factory.mktemp("music")
    spec = Path(folder / "music.json")
    spec.write_text(json.dumps(MUSIC_SPEC), encoding="utf-8")
    index = Index(folder / "index", HashingEmbedder())
    assert [r.status for r in ingest_paths(index, [spec])] == ["added"]
    return Engine(index)


def test_lookup_lift_puts_the_search_first_for_a_request_naming_values(music_engine: Engine) -> None:
    ops = operations(music_engine.index)
    pool = retrieved(ops["GET /albums/{id}"], ops["GET /albums"], ops["GET /search"])
    state = run(state_for("Play the album Kind of Blue by Miles Davis", candidates=list(pool)),
                music_engine, Embed, LookupLift)
    lifted = [c.chunk for c in state.ranking.candidates]
    assert lifted == [ops["GET /search"], ops["GET /albums/{id}"], ops["GET /albums"]]
    assert notes_of(state, "lookup")[0].startswith("lookup lift: ") and "lookup" in timed(state)
    own = run(state_for("Play my playlist called Kind of Blue", candidates=list(pool)), music_engine, Embed, LookupLift)
    assert list(own.ranking.candidates) == pool and not notes_of(own, "lookup")
    # The name a request gives what it creates, or a day, is no value to look up.
    for question in ("Make a new album called Blue Train", "Play the album on Friday"):
        unmoved = run(state_for(question, candidates=list(pool)), music_engine, Embed, LookupLift)
        assert list(unmoved.ranking.candidates) == pool and not notes_of(unmoved, "lookup"), question


def test_the_lifted_lookup_is_the_chunk_marked_placed_by_the_lift(music_engine: Engine) -> None:
    """The search second, scored just under the first: the lift swaps the two, and the chunk list says the search
    was placed by the lift, the album operation it pushed down showing its score."""
    ops = operations(music_engine.index)
    pool = [RetrievedChunk(chunk, {"fused": score}, rank) for rank, (chunk, score) in enumerate(
        ((ops["GET /albums/{id}"], 0.033), (ops["GET /search"], 0.032), (ops["GET /albums"], 0.031)), start=1)]
    state = run(state_for("Play the album Kind of Blue by Miles Davis", candidates=pool), music_engine, Embed,
                LookupLift)
    assert [(c.chunk, c.placed_by) for c in state.ranking.candidates] == [
        (ops["GET /search"], "lookup"), (ops["GET /albums/{id}"], ""), (ops["GET /albums"], "")]
    assert order_labels(list(state.ranking.candidates)) == ["placed by lookup", "fused 0.033", "fused 0.031"]


def test_lookup_lift_runs_only_over_smart_chunks(music_engine: Engine) -> None:
    def lifts(config: Config) -> bool:
        return any(isinstance(stage, LookupLift) for stage in music_engine.pipeline(config).stages)

    assert lifts(PRESETS["full"]) and not lifts(replace(PRESETS["full"], chunking="naive"))


def test_the_operation_search_adds_the_operations_closest_to_the_question_that_retrieval_missed(
    engine: Engine,
) -> None:
    ops = operations(engine.index)
    state = run(state_for("How do I list orders?"), engine, Embed)
    vector = state.scope.context.query_vector(state.scope.query.text)
    wanted, other = ops["DELETE /orders/{id}"], ops["GET /unified/hris/employees"]
    texts = OperationTexts((other, wanted), np.stack([-vector, vector]), np.stack([-vector, 0 * vector]))
    retrieve = Retrieve(HybridRetriever(), "smart", 1, 1, operation_search=1, operations_for=lambda snapshot: texts)
    ranking = run(state, engine, retrieve).ranking
    assert len(ranking.candidates) == 2 and ranking.candidates[1].chunk is wanted
    assert ranking.candidates[1].scores == {"operation": pytest.approx(float(vector @ vector))}
    assert "operation search: 1 operation(s)" in notes_of(run(state, engine, retrieve), "retrieve")[0]
    # An operation the retriever found already is not added again.
    found_first = ranking.candidates[0].chunk
    same = OperationTexts((found_first,), np.stack([vector]), np.stack([vector]))
    again = Retrieve(HybridRetriever(), "smart", 1, 1, operation_search=1, operations_for=lambda snapshot: same)
    assert [c.chunk for c in run(state, engine, again).ranking.candidates] == [found_first]


def test_the_subject_leads_a_follow_up_that_asks_a_fact_of_it_not_one_asking_for_another_operation(
    engine: Engine,
) -> None:
    """Behind the learned ranker (which reads the subject) the subject leads "what fields does it return?", a
    filter ("only the archived ones though") and a subject the rewrite moved ("a single one"); "how do I undo that?"
    and "revoke it" ask for another operation: the model's order stays. Behind any other ranking the subject leads
    every follow-up that names nothing of its own."""
    ops = operations(engine.index)
    subject, other = ops["GET /unified/hris/employees"], ops["DELETE /orders/{id}"]

    def follow_up(question: str, moved: bool = False) -> Query:
        return Query(question, subject=subject.covers[0], keeps_subject=True, moved_subject=moved)

    model, plain = KeepSubject(model_knows_subject=True), KeepSubject()
    assert model.leads(follow_up("what fields does it return?")) and model.leads(follow_up("is it paginated?"))
    assert model.leads(follow_up("how do I get a single one?", moved=True))
    assert model.leads(follow_up("only the archived ones though"))
    assert model.leads(follow_up("only the ones before a given message?"))
    assert not model.leads(follow_up("which endpoint removes it?")) and model.leads(follow_up("how do I page it?"))
    assert not model.leads(follow_up("how do I undo that?")) and plain.leads(follow_up("how do I undo that?"))
    assert not model.leads(follow_up("revoke it")) and not model.leads(follow_up("and turn them off again"))
    assert plain.leads(follow_up("revoke it"))
    assert not plain.leads(Query("how do I undo that?", subject=subject.covers[0]))  # it names something of its own
    pool = list(retrieved(other, subject))
    undo = run(state_for(follow_up("how do I undo that?"), candidates=pool), engine, Embed, model)
    assert [c.chunk for c in undo.ranking.candidates] == [other, subject] and not notes_of(undo, "subject")
    fields = run(state_for(follow_up("what fields does it return?"), candidates=pool), engine, Embed, model)
    assert [c.chunk for c in fields.ranking.candidates] == [subject, other]
    assert [c.placed_by for c in fields.ranking.candidates] == ["subject", ""]  # the chunk it moved is marked
    led = run(state_for(follow_up("what fields does it return?"), candidates=list(retrieved(subject, other))),
              engine, Embed, model)
    assert [c.placed_by for c in led.ranking.candidates] == ["", ""]  # first already: its own place
    assert notes_of(fields, "subject")[0].startswith("the conversation's subject GET /unified/hris/employees leads")
    assert any(isinstance(s, KeepSubject) and s.model_knows_subject for s in engine.pipeline(PRESETS["full"]).stages)
    assert any(isinstance(s, KeepSubject) and not s.model_knows_subject
               for s in engine.pipeline(PRESETS["C2"]).stages)


def test_the_operations_a_question_names_lead_in_its_order_fetched_when_retrieval_missed_them(engine: Engine) -> None:
    ops = operations(engine.index)
    employees, get_order, delete_order = (ops[label] for label in (
        "GET /unified/hris/employees", "GET /orders/{id}", "DELETE /orders/{id}"))
    pool = list(retrieved(employees, delete_order))
    named = run(state_for(Query("what does get_order return, and DELETE /orders/{id}?"), candidates=pool),
                engine, Embed, NamedOperations())
    assert [c.chunk for c in named.ranking.candidates] == [get_order, delete_order, employees]
    assert [c.scores.get("named") for c in named.ranking.candidates] == [1.0, 1.0, None]
    assert named.ranking.candidates[0].placed_by == "named"  # fetched from the index, ahead of the pool
    assert notes_of(named, "named") == ["the question names GET /orders/{id}, DELETE /orders/{id}: named first"]
    # A path alone names each operation on it, in the ranking's order; an operation already first keeps its place.
    path = run(state_for(Query("what can I do on /orders/{id}?"), candidates=list(retrieved(delete_order, employees))),
               engine, Embed, NamedOperations())
    assert [c.chunk for c in path.ranking.candidates] == [delete_order, get_order, employees]
    assert path.ranking.candidates[0].placed_by == ""
    before = run(state_for(Query("After GET /orders/{id}, how do I cancel the order?"), candidates=pool),
                 engine, Embed, NamedOperations())
    assert [c.chunk for c in before.ranking.candidates] == [employees, delete_order]
    assert notes_of(before, "named") == ["the question names GET /orders/{id} as what was done before: not named first"]
    plain = run(state_for(Query("how do I list employees?"), candidates=pool), engine, Embed, NamedOperations())
    assert [c.chunk for c in plain.ranking.candidates] == [employees, delete_order] and not notes_of(plain, "named")
    assert any(isinstance(s, NamedOperations) for s in engine.pipeline(PRESETS["full"]).stages)
    assert not any(isinstance(s, NamedOperations) for s in engine.pipeline(PRESETS["C2"]).stages)


def test_the_learned_ranker_of_an_index_generation_follows_a_rebuilt_model(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make ranker` writes a model and reads it back in the process that made its lists: the ranker an index
    generation remembers must not keep the model shipped before."""
    import rag.pipeline.learned_rank as module

    snapshot, before, after = engine.index.snapshot(), FakeBooster(()), FakeBooster((("vector", 1.0),))
    monkeypatch.setattr(module, "load_model", lambda: before)
    first = learned_ranker(engine.index, snapshot)
    assert first.model is before and learned_ranker(engine.index, snapshot) is first  # made once
    monkeypatch.setattr(module, "load_model", lambda: after)
    assert learned_ranker(engine.index, snapshot).model is after


def test_a_paging_question_is_led_by_the_listing_that_pages(engine: Engine) -> None:
    """PagerDuty: "how do I page through incidents?" had `POST /incidents` (then `PUT /incidents`) first, though the
    lead answered from `GET /incidents`, which pages: the listing of the first's collection leads when it pages and
    stands among the first five; not for a listing that takes no paging parameters, nor a question that asks no
    paging, nor a follow-up (its subject's stage decides)."""
    def op(method: str, path: str, pages: bool = False) -> Chunk:
        chunk = make_chunk(f"pd.paths.{path}.{method}", f"{method.upper()} {path}", kind="operation")
        return replace(chunk, method=method, path=path,
                       pagination=PaginationFacts("offset", size="limit", offset="offset") if pages else None)

    create, update, listing = op("post", "/incidents"), op("put", "/incidents"), op("get", "/incidents", pages=True)
    pool = retrieved(create, update, listing)
    state = run(state_for("how do I page through incidents?", candidates=list(pool)), engine, PagesAsked())
    assert [c.chunk for c in state.ranking.candidates] == [listing, create, update]
    assert state.ranking.candidates[0].placed_by == "paging" and notes_of(state, "paging")
    flat = retrieved(create, update, op("get", "/incidents"))
    assert list(run(state_for("how do I page through incidents?", candidates=list(flat)), engine,
                    PagesAsked()).ranking.candidates) == flat
    assert list(run(state_for("how do I create an incident?", candidates=list(pool)), engine,
                    PagesAsked()).ranking.candidates) == pool
    follow_up = Query("how do I page through them?", previous="how do I create an incident?")
    assert list(run(state_for(follow_up, candidates=list(pool)), engine, PagesAsked()).ranking.candidates) == pool
