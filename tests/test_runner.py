"""The engine: stages wired by config, shared work, per-config errors, generation and streaming."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag.config import PRESETS, Config
from rag.errors import ConfigError
from rag.generate.base import StreamEvent
from rag.index.store import Index
from rag.llm.base import LLMError
from rag.pipeline.features import without_feature
from rag.rerank.calibration import load_calibrator
from rag.results import AnswerResult, order_labels, order_score_name
from rag.runner import Engine, clean_question
from tests.fakes import MUSIC_SPEC, FakeChatModel


@pytest.fixture
def engine(fixture_index: Index) -> Engine:
    return Engine(fixture_index, default_llm="extractive")


def test_clean_question_rejects_empty_and_overlong_and_strips_control_characters() -> None:
    assert clean_question("  list\x00 employees\x07 ") == "list  employees"
    with pytest.raises(ConfigError, match="empty"):
        clean_question(" \n ")
    with pytest.raises(ConfigError, match="100,000 characters"):
        clean_question("x" * 100_000)


def test_run_many_returns_one_result_per_config_with_scores_and_timings(engine: Engine) -> None:
    configs = [PRESETS[name] for name in ("C0", "C1", "C2", "full")]
    results = engine.run_many("How do I list employees?", configs)
    assert [r.config for r in results] == ["C0", "C1", "C2", "full"]
    for result in results:
        assert result.ok, result.errors
        assert result.chunks and result.answer
        assert result.generator == "extractive (no LLM)"
        assert "retrieve" in result.timings_ms and "generate" in result.timings_ms
        assert [c.rank for c in result.chunks] == list(range(1, len(result.chunks) + 1))
    assert results[0].chunks[0].chunk.strategy == "naive"
    assert all(c.chunk.strategy == "smart" for c in results[1].chunks)
    hybrid = results[2].chunks[0].scores
    assert "fused" in hybrid and ("vector" in hybrid or "bm25" in hybrid)
    assert any(c.rank_before_rerank is not None for c in results[3].pool)


def test_citations_point_at_retrieved_chunks(engine: Engine) -> None:
    result = engine.run("What is the default page_size when listing employees?", PRESETS["full"])
    retrieved = {c.chunk.chunk_id for c in result.chunks}
    assert result.citations
    assert all(c.chunk_id in retrieved for c in result.citations)
    assert "25" in result.answer


def test_retrieval_only_makes_no_generation(engine: Engine) -> None:
    result = engine.run("list employees", PRESETS["full"], retrieval_only=True)
    assert result.retrieval_only and result.answer == "" and "generate" not in result.timings_ms
    assert result.generator.startswith("none")


def test_one_failing_config_does_not_break_the_others(fixture_index: Index) -> None:
    error = LLMError("fake:broken", "server error (500) after 3 attempts", status=500)
    failing = FakeChatModel([error], repeat_last=True)
    engine = Engine(fixture_index, default_llm="extractive", chat_model_factory=lambda spec: failing)
    broken = Config("broken", generator="openai:broken")
    results = engine.run_many("list employees", [broken, PRESETS["C1"]])
    assert results[0].errors and "500" in results[0].errors[0]
    assert results[0].chunks  # retrieval still shown
    assert results[1].ok and results[1].answer


def test_unavailable_rerankers_say_so_and_keep_the_order(engine: Engine) -> None:
    result = engine.run("list employees", PRESETS["C4"], retrieval_only=True)
    assert any("LLM reranker unavailable" in note for note in result.notes)
    assert all("rerank" not in c.scores for c in result.chunks)
    missing = replace(PRESETS["E3"], reranker_model="/no/such/cross-encoder")
    result = engine.run("list employees", missing, retrieval_only=True)
    assert any("cross-encoder" in note and "unavailable" in note for note in result.notes)
    assert all("rerank" not in c.scores for c in result.chunks)


def test_llm_reranker_and_generator_use_the_chat_model(fixture_index: Index) -> None:
    def reply(messages):  # type: ignore[no-untyped-def]
        if "ranking" in messages[-1].content:
            return {"ranking": [2, 1]}
        return {"abstained": False, "answer": "Use GET /unified/hris/employees [1].", "citations": [1]}

    chat = FakeChatModel(reply, name="fake:model")
    engine = Engine(fixture_index, default_llm="fake:model", chat_model_factory=lambda spec: chat)
    result = engine.run("list employees", PRESETS["C4"])
    assert result.ok, result.errors
    assert result.chunks[0].rank_before_rerank == 2
    assert result.citations and result.generator == "fake:model"
    assert result.tokens_in > 0


def test_abstention_is_a_field_from_the_gate(engine: Engine) -> None:
    # The hashing embedder knows no meaning: the evidence here is an identifier the index does not have.
    result = engine.run("What does the `blood_type` field of an employee hold?", PRESETS["full"])
    assert result.abstained and result.confidence == "abstain"
    assert any("confidence gate" in note for note in result.notes)
    answered = engine.run("What's the weather in Berlin tomorrow?", PRESETS["C1"])
    assert not answered.abstained  # no unknown detection in C1


def test_stream_yields_tokens_then_sources_then_done_then_the_result(engine: Engine) -> None:
    events = list(engine.stream("How do I list employees?", PRESETS["full"]))
    kinds = [e.kind for e in events if isinstance(e, StreamEvent)]
    assert kinds[0] == "token" and kinds[-2:] == ["sources", "done"]
    assert isinstance(events[-1], AnswerResult) and events[-1].answer


def test_empty_question_is_a_per_config_error(engine: Engine) -> None:
    results = engine.run_many("   ", [PRESETS["C1"], PRESETS["full"]])
    assert all(r.errors and "empty" in r.errors[0] for r in results)


def test_a_config_whose_model_is_missing_says_it_fell_back(engine: Engine) -> None:
    c4 = engine.run("list employees", PRESETS["C4"], retrieval_only=True)
    assert c4.fell_back and c4.fallbacks == ["LLM reranker unavailable: ran without reranking"]
    assert c4.to_dict()["fallbacks"] == c4.fallbacks
    e4 = engine.run("list employees", PRESETS["E4"])
    assert any("chain-of-thought" in fallback for fallback in e4.fallbacks)
    assert not engine.run("list employees", PRESETS["full"], retrieval_only=True).fell_back


def test_every_citation_marker_names_the_chunk_with_that_number_in_the_list_and_the_table(engine: Engine) -> None:
    import re

    for question in ("What is the default page_size when listing employees?", "How do I create an order?",
                     "What fields does an employee have?"):
        for name in ("C2", "full"):
            result = engine.run(question, PRESETS[name])
            markers = {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)}
            by_number = {citation.number: citation for citation in result.citations}
            assert markers and markers <= set(by_number), (name, result.answer, by_number)
            for number in markers:
                assert result.chunks[number - 1].chunk.chunk_id == by_number[number].chunk_id


def test_an_out_of_scope_question_is_abstained_at_any_turn_of_a_conversation(fixture_index: Index) -> None:
    from rag.abstain import GateThresholds
    from rag.corpus.profile import profile_for

    history = [{"role": "user", "content": "How do I list the employees?"},
               {"role": "assistant", "content": "Use GET /unified/hris/employees."}]  # fmt: skip
    # Thresholds that let only the out-of-scope prototypes decide (the hashing embedder knows no meaning).
    thresholds = GateThresholds(abstain_below=0.0, partial_below=0.0, out_of_scope_floor=0.3, out_of_scope_margin=0.05)
    engine = Engine(fixture_index, default_llm="extractive", thresholds=thresholds)
    later = engine.run("What is the weather forecast today?", PRESETS["full"], history)
    assert later.standalone_query != later.question  # rewritten with the earlier turn's words
    assert later.abstained, later.notes
    profile = profile_for(fixture_index.snapshot())
    gate = engine.confidence_gate
    own = gate.asked_decision("smart", "What is the weather forecast today?", profile, thresholds, set())
    assert own is not None and own.tier == "abstain" and "as asked" in " ".join(own.reasons)
    # An elliptical follow-up is not out of scope for being short or vague.
    plain = Engine(fixture_index, default_llm="extractive").run("and the orders?", PRESETS["full"], history)
    assert not plain.abstained, plain.notes


def test_stream_many_gives_each_config_its_own_conversation_and_run_many_keeps_order(engine: Engine) -> None:
    conversations = {
        "C0": [{"role": "user", "content": "How do I list orders?"}, {"role": "assistant", "content": "GET /orders"}],
        "full": [{"role": "user", "content": "How do I list orders?"}, {"role": "assistant", "content": "No idea"}],
    }
    configs = [PRESETS["C0"], PRESETS["full"]]
    events = list(engine.stream_many("and what does it return?", configs, conversations, retrieval_only=True))
    results = {e.config: e.result for e in events if e.kind == "result" and e.result is not None}
    assert set(results) == {"C0", "full"}
    # C0's own answer named GET /orders: that operation is its conversation's subject; full's named none.
    assert results["C0"].query is not None and results["C0"].query.subject.endswith("paths./orders.get")
    assert results["full"].query is not None and results["full"].query.previous.endswith("earlier answer: No idea")
    assert results["C0"].query.focus == "and what does it return?"
    configs = [PRESETS["full"], PRESETS["C0"], PRESETS["C2"]]
    ordered = engine.run_many("How do I list orders?", configs, retrieval_only=True)
    assert [r.config for r in ordered] == ["full", "C0", "C2"]


def test_full_puts_the_lookup_operation_first_for_a_request_naming_values(empty_index: Index, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from rag.index.build import ingest_paths

    spec = tmp_path / "music.json"
    spec.write_text(json.dumps(MUSIC_SPEC))
    assert ingest_paths(empty_index, [spec])[0].status == "added"
    engine = Engine(empty_index, default_llm="extractive")
    # The album operation takes an id: the album named by value is looked up first.
    named = engine.run("Get the album Kind of Blue by Miles Davis", PRESETS["full"], retrieval_only=True)
    assert named.chunks[0].chunk.path == "/search"
    assert any(note.startswith("lookup lift: GET /search first") for note in named.notes), named.notes
    # The model scored another operation higher: the confidence is how often such first places were right.
    assert named.confidence_score == round(load_calibrator().placed_probability_of("lookup"), 4)
    assert any("placed first by a stage after the ranker" in note for note in named.notes), named.notes
    without = engine.run("Get the album Kind of Blue by Miles Davis", without_feature(PRESETS["full"], "lookup"),
                         retrieval_only=True)  # fmt: skip
    assert not any(note.startswith("lookup lift") for note in without.notes)
    plain = engine.run("Start playing an album", PRESETS["full"], retrieval_only=True)
    assert not any(note.startswith("lookup lift") for note in plain.notes), plain.notes


def test_full_puts_the_operation_a_question_names_first_with_how_often_named_ones_were_right(  # type: ignore[no-untyped-def]
    empty_index: Index, tmp_path
) -> None:
    import json

    from rag.index.build import ingest_paths

    spec = tmp_path / "music.json"
    spec.write_text(json.dumps(MUSIC_SPEC))
    assert ingest_paths(empty_index, [spec])[0].status == "added"
    engine = Engine(empty_index, default_llm="extractive")
    for question, path in (("What does GET /albums/{id} return?", "/albums/{id}"), ("and GET /albums?", "/albums"),
                           ("What's on /me/player/play?", "/me/player/play")):
        named = engine.run(question, PRESETS["full"], retrieval_only=True)
        assert named.chunks[0].chunk.path == path, (question, [c.chunk.path for c in named.chunks])
        assert named.chunks[0].scores["named"] == 1.0
        assert any(note.endswith(": named first") for note in named.notes), named.notes
        assert named.confidence_score == round(load_calibrator().named_probability, 4)
        assert any("named in the question" in note for note in named.notes), named.notes
    without = engine.run("What does GET /albums/{id} return?", without_feature(PRESETS["full"], "named_operations"),
                         retrieval_only=True)
    assert not any(note.endswith(": named first") for note in without.notes)
    assert "named" not in without.chunks[0].scores


def test_configs_that_call_no_model_server_run_one_after_another_and_fail_alone(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    configs = [PRESETS["C1"], PRESETS["C2"], PRESETS["full"]]
    assert all(engine.runs_offline(c) for c in configs)
    assert not engine.runs_offline(replace(PRESETS["C1"], name="hosted", generator="openai:gpt-4o-mini"))
    threads: list[str] = []
    original = engine.run

    def recording_run(question: str, config: Config, *args: object, **kwargs: object) -> AnswerResult:
        threads.append(threading.current_thread().name)
        if config.name == "C2":
            raise RuntimeError("index went away")
        return original(question, config, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "run", recording_run)
    results = engine.run_many("How do I list employees?", configs, retrieval_only=True)
    assert [r.config for r in results] == ["C1", "C2", "full"]
    assert set(threads) == {threading.current_thread().name}  # no worker threads
    assert results[1].errors == ["RuntimeError: index went away"]
    assert results[0].chunks and results[2].chunks


def test_a_config_whose_chunks_are_not_embedded_yet_says_so_and_the_others_answer(empty_index: Index) -> None:
    """C0 searches the naive chunks set aside at ingest: it answers from what is ready and names the API it could
    not search (a fallback, never cached); `full` answers as usual. Once they are embedded, C0 answers in full."""
    from rag.ingest.pipeline import parse_path
    from tests.conftest import FIXTURES

    empty_index.add(parse_path(FIXTURES / "specs" / "people-3.1.json"), defer=("naive",))
    engine = Engine(empty_index, default_llm="extractive")
    c0, full = engine.run_many("How do I list employees?", [PRESETS["C0"], PRESETS["full"]])
    api = empty_index.documents()[0].api
    assert c0.pending == [api] and any("not embedded yet" in f for f in c0.fallbacks)
    assert not any(chunk.chunk.strategy == "naive" for chunk in c0.chunks)
    assert full.ok and full.chunks and full.pending == [] and full.fallbacks == []
    assert AnswerResult.from_dict(c0.to_dict(), lambda _: None).pending == [api]
    empty_index.complete_pending()
    again = engine.run("How do I list employees?", PRESETS["C0"])
    assert again.pending == [] and again.fallbacks == [] and again.chunks[0].chunk.strategy == "naive"


def test_full_answers_from_the_operations_while_the_schemas_are_embedded_and_says_so(empty_index: Index) -> None:
    """With the schema chunks set aside (ingest's default), `full` answers at once from the operations, names the API
    whose schema chunks it could not search (the same `pending` signal as C0's, never cached); once they are
    embedded it answers as an index that embedded everything at once does."""
    from rag.config import set_aside_parts
    from rag.ingest.pipeline import parse_path
    from tests.conftest import FIXTURES

    empty_index.add(parse_path(FIXTURES / "specs" / "people-3.1.json"), defer=set_aside_parts())
    engine = Engine(empty_index, default_llm="extractive")
    api = empty_index.documents()[0].api
    waiting = engine.run("How do I list employees?", PRESETS["full"])
    assert waiting.chunks and waiting.pending == [api]
    assert any(f.startswith(f"schema chunks of {api} not embedded yet") for f in waiting.fallbacks)
    assert not any(chunk.chunk.kind == "schema" for chunk in waiting.pool)
    c3 = engine.run("How do I list employees?", PRESETS["C3"])
    assert c3.pending == [api]  # every configuration of smart chunks waits for them alike
    empty_index.complete_pending(("smart",))
    again = engine.run("How do I list employees?", PRESETS["full"])
    assert again.pending == [] and again.fallbacks == [] and not again.cached
    assert engine.run("What fields does an employee have?", PRESETS["full"]).pending == []


def test_the_scores_a_chunk_list_shows_fall_with_rank_in_every_configuration(engine: Engine) -> None:
    """Issue 45: the number shown beside a retrieved chunk is the one that decided its order (the learned ranker's
    in `full`, the fused RRF score in C2), so it falls with rank; a chunk a stage placed (the conversation's subject,
    schemas after operations, the lookup lift) says so instead of showing a score out of order."""
    history = [{"role": "user", "content": "How do I list orders?"},
               {"role": "assistant", "content": "Use GET /orders.", "subject": "shop.paths./orders.get"}]
    asked = [("How do I list orders?", None), ("What fields does a person have?", None),
             ("and how do I page through them?", history), ("How do I create an order?", None)]
    deciding = {"full": "rerank", "C2": "fused"}
    for name in ("full", "C2", "C0"):
        for question, earlier in asked:
            result = engine.run(question, PRESETS[name], earlier, retrieval_only=True)
            for listed in (result.chunks, result.pool):
                shown = [float(label.rsplit(" ", 1)[1]) for label in order_labels(listed)
                         if label and not label.startswith(("placed by", "no "))]
                assert shown == sorted(shown, reverse=True), (name, question, order_labels(listed))
                assert len(shown) >= 2 and order_score_name(listed) == deciding.get(name, order_score_name(listed))


def test_prepare_makes_every_searched_chunks_ranking_inputs_and_changes_no_result(fixture_index: Index) -> None:
    """The warm-up's `prepare` makes the learned ranker's inputs of every chunk `full` searches (smart and docs),
    none for configs without the learned ranker; a prepared engine ranks and scores exactly as one that makes
    them per candidate."""
    from rag.pipeline.learned_rank import ranking_inputs

    prepared, lazy = Engine(fixture_index, default_llm="extractive"), Engine(fixture_index, default_llm="extractive")
    assert prepared.prepare([PRESETS["C2"]]) == 0
    snapshot = fixture_index.snapshot()
    searched = [i for strategy in ("smart", "docs") for i in snapshot.by_strategy.get(strategy, ())]
    assert prepared.prepare([PRESETS["full"]]) == len(searched) > 0
    inputs = ranking_inputs(fixture_index, snapshot)
    assert all(inputs.words(snapshot.chunks[i]) is inputs.words(snapshot.chunks[i]) for i in searched)
    for question in ("How do I list employees?", "what fields does an order have?"):
        first, second = (e.run(question, PRESETS["full"], retrieval_only=True) for e in (prepared, lazy))
        assert [(c.chunk.chunk_id, c.scores) for c in first.pool] == [(c.chunk.chunk_id, c.scores) for c in second.pool]
