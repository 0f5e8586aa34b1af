"""The Streamlit pages driven in-process with AppTest, on the fixture index with the extractive generator.

No model is loaded: the `app_engine` fixture gives the app an engine over the fixture index (see conftest).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from rag.request_example import curl_command, python_snippet
from tests.app.conftest import INVENTORY_SPEC, ROOT
from tests.saved_run_fixtures import BLIND_TABLE, SUITE_TABLE
from webapp import jobs
from webapp.asking import RERUN_KEY, rerun_request
from webapp.request_view import REQUEST_LABEL

pytestmark = pytest.mark.app

ANSWERABLE = "What is the page_size parameter of list orders?"
OUT_OF_SCOPE = "What's the weather in Berlin?"


# ---------------------------------------------------------------------- helpers
def open_app(page: str | None = None, session: dict[str, Any] | None = None) -> AppTest:
    """The app after its first run (optionally switched to a page); `session` is set before the first run."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    for key, value in (session or {}).items():
        at.session_state[key] = value
    at.run()
    assert_ok(at)
    if page:
        at.switch_page(page).run()
        assert_ok(at)
    return at


def assert_ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def ask(at: AppTest, question: str, configs: list[str] | None = None) -> AppTest:
    if configs is not None:
        at.multiselect(key="ask_configs").set_value(configs)
    at.text_area(key="ask_text").input(question)
    at.button(key="ask_submit").click().run()
    assert_ok(at)
    return at


def badges(at: AppTest) -> list[str]:
    """The status badges on the page (st.badge renders as `:color-badge[icon label]` markdown)."""
    return [m.value for m in at.markdown if "-badge[" in m.value]


def result_columns(at: AppTest) -> list[str]:
    """Configuration names heading the result columns, in order."""
    return [column.subheader[0].value for column in at.columns if len(column.subheader)]


def frames_with_column(at: AppTest, column: str) -> list[Any]:
    return [frame.value for frame in at.dataframe if column in frame.value.columns]


def compact_lists(at: AppTest) -> list[str]:
    """The compact chunk lists (one per configuration), as Markdown."""
    return [m.value for m in at.markdown if m.value.startswith("- **1** · ")]


def plotly_charts(at: AppTest) -> list[Any]:
    return list(at.get("plotly_chart"))


# ---------------------------------------------------------------------- home: ask & compare
def test_home_shows_controls_generator_and_about(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = open_app()
    assert at.title[0].value == "Ask & compare"
    assert at.multiselect(key="ask_configs").value == ["C0", "C3", "full"]
    generator = at.selectbox(key="ask_generator")
    assert generator.value == "extractive"
    assert "extractive (no LLM)" in generator.options
    assert at.toggle(key="ask_retrieval_only").value is False
    about = [e for e in at.sidebar.expander if "About / how it works" in e.label]
    assert about, "the About section is in the sidebar"
    about_text = " ".join(m.value for m in about[0].markdown)
    assert "confidence gate" in about_text and "reference expansion" not in about_text
    described = about[0].dataframe[0].value
    assert {"C0", "C5", "full"} <= set(described["config"])


@pytest.mark.parametrize("configs", [["C0", "full"], ["C0", "C5", "full"], ["full"]])
def test_a_question_renders_one_column_per_configuration(app_engine, configs) -> None:  # type: ignore[no-untyped-def]
    at = ask(open_app(), ANSWERABLE, configs)
    assert result_columns(at) == configs
    turn = at.session_state["turns"][-1]
    assert [r.config for r in turn.results] == configs
    assert all(r.ok and r.answer for r in turn.results)
    assert len(badges(at)) == len(configs)
    compact = compact_lists(at)
    assert len(compact) == len(configs)  # the compact view by default: rank, was, deciding score, whole ids
    first = compact[-1].splitlines()[0]
    assert first.startswith("- **1** · ") and any(name in first for name in ("rerank", "fused", "vector", "bm25"))
    assert "shop-3\\_0.paths." in compact[-1] or "people-3\\_1.paths." in compact[-1]
    at.pills(key=f"t0-{configs[-1]}-chunks-pick").set_value(0).run()
    assert any("text (what the generator reads)" in c.value for c in at.caption)
    at.toggle(key=f"t0-{configs[-1]}-chunks-full").set_value(True).run()
    assert_ok(at)
    chunk_tables = frames_with_column(at, "rank before rerank")
    assert len(chunk_tables) == 1  # the full table of the configuration that asked for it
    table = chunk_tables[-1]
    for column in ("rank", "structural ids", "api", "kind", "vector", "bm25", "fused", "rerank"):
        assert column in table.columns
    assert "shop-3_0" in set(table["api"])
    # every answer names its citations by structural id (an expander per citation shows the chunk)
    cited = [e.label for e in at.expander if e.label.replace("\\", "").startswith("[1]")]
    assert len(cited) == len(configs)
    if len(configs) > 1:
        overlap = frames_with_column(at, "found by")
        assert overlap and set(configs) <= set(overlap[0].columns)
        assert any("Overlap across configurations" in m.value for m in at.markdown)
    else:
        assert not frames_with_column(at, "found by")


def test_out_of_scope_question_shows_abstained_badge(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = ask(open_app(), OUT_OF_SCOPE, ["full"])
    result = at.session_state["turns"][-1].results[0]
    assert result.abstained, result.notes  # the real result field, from the confidence gate on the fixture index
    assert result.confidence == "abstain"
    shown = badges(at)
    assert len(shown) == 1 and "abstained" in shown[0] and "gray-badge" in shown[0]
    assert any("confidence: abstain" in c.value for c in at.caption)
    assert result.request_example is None and not [e for e in at.expander if e.label == REQUEST_LABEL]


def test_an_answer_about_an_operation_shows_its_request_under_it(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = ask(open_app(), ANSWERABLE, ["C0", "full"])
    results = at.session_state["turns"][-1].results
    assert results[0].request_example is None and results[1].request_example is not None  # C0: raw JSON chunks
    assert [e.label for e in at.expander if e.label == REQUEST_LABEL] == [REQUEST_LABEL]
    shown = [c.value for c in at.code]
    assert curl_command(results[1].request_example) in shown and python_snippet(results[1].request_example) in shown


def test_answered_and_abstained_side_by_side(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = ask(open_app(), OUT_OF_SCOPE, ["C0", "full"])
    shown = badges(at)
    assert "no match" in shown[0]  # C0 has no gate: it answers anyway, but no line matched the question
    assert "abstained" in shown[1]
    assert any("confidence gate off" in c.value for c in at.caption)


def test_follow_up_keeps_history_and_shows_the_rewritten_query(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = ask(open_app(), ANSWERABLE, ["C0", "full"])
    at = ask(at, "and what about its default value?")
    turns = at.session_state["turns"]
    assert len(turns) == 2
    rewritten = turns[-1].rewritten
    assert rewritten == [f"and what about its default value? — continuing “{ANSWERABLE}”"]
    folded = [e for e in at.expander if e.label == "Read as a follow-up"]
    assert len(folded) == 1 and "earlier answer" not in folded[0].caption[0].value
    assert not any("regarding" in c.value or "Rewritten as" in c.value for c in at.caption)
    # A question that stands on its own shows no rewrite.
    at = ask(at, OUT_OF_SCOPE)
    assert at.session_state["turns"][-1].rewritten == []
    earlier = [e for e in at.expander if e.label.startswith("Earlier question 1")]
    assert earlier, "the first turn stays visible, folded"


def test_retrieval_only_shows_chunks_without_answers(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = open_app()
    at.toggle(key="ask_retrieval_only").set_value(True)
    at = ask(at, ANSWERABLE, ["C0", "full"])
    results = at.session_state["turns"][-1].results
    assert all(r.retrieval_only and not r.answer and r.chunks for r in results)
    assert all("retrieval only" in b for b in badges(at))
    assert len(compact_lists(at)) == 2  # the compact chunk list of each configuration


def test_k_changes_how_many_chunks_each_configuration_passes_on(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = open_app()
    at.number_input(key="ask_k").set_value(2)
    at = ask(at, ANSWERABLE, ["C0"])
    assert len(at.session_state["turns"][-1].results[0].chunks) == 2


def test_choices_survive_a_visit_to_another_page(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = open_app()
    at.multiselect(key="ask_configs").set_value(["C0", "full"])
    at.number_input(key="ask_k").set_value(3)
    at.toggle(key="ask_retrieval_only").set_value(True).run()
    at.switch_page("pages/1_Documents.py").run()
    at.switch_page("pages/0_Ask.py").run()
    assert_ok(at)
    assert at.multiselect(key="ask_configs").value == ["C0", "full"]
    assert at.number_input(key="ask_k").value == 3
    assert at.toggle(key="ask_retrieval_only").value is True
    assert not at.warning, [w.value for w in at.warning]


def test_an_error_stays_in_its_own_column(app_engine, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    config_file = tmp_path / "configs.toml"
    config_file.write_text('[configs.broken]\nbase = "C0"\ngenerator = "groq:llama-3.1-8b-instant"\n')
    monkeypatch.setenv("RAG_CONFIG_FILE", str(config_file))
    at = ask(open_app(), ANSWERABLE, ["C0", "broken"])
    assert result_columns(at) == ["C0", "broken"]
    good, broken = at.session_state["turns"][-1].results
    assert good.ok and good.answer
    assert broken.errors and "GROQ_API_KEY" in broken.errors[0]
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "GROQ_API_KEY" in errors[0]
    assert "error" in badges(at)[1] and "answered" in badges(at)[0]


def test_empty_question_is_refused_with_a_message(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = ask(open_app(), "   ", ["C0"])
    assert not at.session_state["turns"]


def test_home_names_the_product_and_offers_examples(app_engine) -> None:  # type: ignore[no-untyped-def]
    from webapp.asking import EXAMPLES, examples_for

    at = open_app()
    assert any("SpecRAG Workbench" in c.value for c in at.caption)
    shown = [b.label for b in at.button if b.key and b.key.startswith("example-")]
    offered = examples_for({"people-3_1", "shop-3_0"})
    assert shown == [e.question for e in offered]  # the question itself is on the button
    captions = [c.value for c in at.caption]
    assert all(any(e.reveals in caption for caption in captions) for e in offered)  # and what it shows
    assert len(examples_for({"hris", "ats", "lms", "crm", "iam", "marketing", "stackone"})) == len(EXAMPLES)
    assert 4 <= len(EXAMPLES) <= 6
    at.button(key="example-0").click().run()
    assert_ok(at)
    first = at.session_state["conversation_id"]
    turn = at.session_state["turns"][-1]
    assert turn.question == EXAMPLES[0].question and turn.configs == ["C0", "C3", "full"]
    # A second example starts a conversation of its own; the first is listed among the recent ones.
    at.button(key="example-0").click().run()
    assert_ok(at)
    assert len(at.session_state["turns"]) == 1 and at.session_state["conversation_id"] != first
    recent = [b for b in at.sidebar.button if b.key == f"recent-{first}"]
    assert recent and recent[0].label == EXAMPLES[0].question
    recent[0].click().run()
    assert_ok(at)
    assert at.session_state["conversation_id"] == first and len(at.session_state["turns"]) == 1


def test_a_refused_question_stays_in_the_box(app_engine) -> None:  # type: ignore[no-untyped-def]
    long = ("How do I list employees? " * 200)[:4999] + "?"  # 5,000 characters: over the limit
    at = ask(open_app(), long, ["C0"])
    assert not at.session_state["turns"]
    assert any("5,000 characters" in e.value and "still in the box" in e.value for e in at.error)
    assert at.text_area(key="ask_text").value == long
    at.text_area(key="ask_text").input(long[:60])
    at.button(key="ask_submit").click().run()
    assert_ok(at)
    assert at.session_state["turns"][-1].question == long[:60].strip()
    assert at.text_area(key="ask_text").value == ""  # an accepted question leaves the box


def test_no_configuration_chosen_keeps_the_text(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = ask(open_app(), ANSWERABLE, [])
    assert not at.session_state["turns"]
    assert any("choose at least one configuration" in e.value for e in at.error)
    assert at.text_area(key="ask_text").value == ANSWERABLE


def test_more_than_four_configurations_get_a_tab_each_and_a_summary(app_engine) -> None:  # type: ignore[no-untyped-def]
    configs = ["C0", "C1", "C2", "C3", "C5", "full"]
    at = ask(open_app(), ANSWERABLE, configs)
    config_tabs = [tab for tab in at.tabs if len(tab.subheader)]  # not the curl / Python tabs of a request example
    assert [tab.label for tab in config_tabs] == configs
    assert [tab.subheader[0].value for tab in config_tabs] == configs
    summary = frames_with_column(at, "top structural id")
    assert len(summary) == 1 and list(summary[0]["config"]) == configs
    assert len(compact_lists(at)) == len(configs)


def test_a_rerun_request_from_another_page_is_asked(app_engine) -> None:  # type: ignore[no-untyped-def]
    request = rerun_request(ANSWERABLE, ["C5", "full-minus-rerank"])
    at = open_app(session={RERUN_KEY: request})
    assert result_columns(at) == ["C5", "full-minus-rerank"]
    turn = at.session_state["turns"][-1]
    assert turn.question == ANSWERABLE
    assert at.multiselect(key="ask_configs").value == ["C5", "full-minus-rerank"]


# ---------------------------------------------------------------------- documents
def test_documents_page_lists_and_browses_the_index(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = open_app("pages/1_Documents.py")
    assert at.title[0].value == "Documents"
    listed = frames_with_column(at, "ingest (s)")[0]
    assert list(listed["source"]) == ["people-3.1.json", "shop-3.0.yaml"]
    assert (listed["smart chunks"] > 0).all() and (listed["naive chunks"] > 0).all()
    chunks = frames_with_column(at, "json pointer")[0]
    assert set(chunks["strategy"]) == {"smart", "naive"}
    # the first chunk is shown in full: both texts and the metadata
    captions = [c.value for c in at.caption]
    assert any(c.startswith("text (what the generator reads)") for c in captions)
    assert any(c.startswith("embedding text") for c in captions)
    assert at.json, "chunk metadata is shown"
    assert any(e.label.startswith("About / how it works") for e in at.sidebar.expander)


def test_uploaded_spec_becomes_askable_on_the_home_page(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = open_app("pages/1_Documents.py")
    at.file_uploader[0].set_value(
        [
            ("inventory.yaml", INVENTORY_SPEC, "application/yaml"),
            ("not-openapi.yaml", (ROOT / "tests/fixtures/specs/not-openapi.yaml").read_bytes(), "application/yaml"),
        ]
    )
    at.run()
    at.button(key="index_button").click().run()
    assert_ok(at)
    reports = {r.source: r for r in at.session_state["ingest_reports"]}
    assert reports["inventory.yaml"].status == "added" and sum(reports["inventory.yaml"].chunk_counts.values()) > 0
    assert reports["not-openapi.yaml"].status == "error"
    assert any("inventory.yaml" in s.value and "added" in s.value for s in at.success)
    assert any("not-openapi.yaml" in e.value for e in at.error)
    assert "inventory.yaml" in set(frames_with_column(at, "ingest (s)")[0]["source"])

    at.switch_page("pages/0_Ask.py").run()
    at = ask(at, "How do I get the stock levels of a warehouse?", ["C0", "full"])
    for result in at.session_state["turns"][-1].results:
        assert result.ok
        assert result.chunks[0].chunk.api == "inventory", (result.config, result.chunks[0].chunk.covers)
    assert not at.session_state["turns"][-1].results[1].abstained


def test_duplicate_policy_and_delete(app_engine) -> None:  # type: ignore[no-untyped-def]
    at = open_app("pages/1_Documents.py")
    data = (ROOT / "tests/fixtures/specs/people-3.1.json").read_bytes()
    at.file_uploader[0].set_value(("people-3.1.json", data, "application/json"))
    at.radio(key="duplicate_policy").set_value("reject")
    at.run()
    at.button(key="index_button").click().run()
    assert at.session_state["ingest_reports"][0].status == "rejected"
    refused = [e.value for e in at.error if "already indexed" in e.value]
    # In the words on screen: the choice to make and where, never the command-line option.
    assert refused and "“replace (index the new content)”" in refused[0] and "on_duplicate" not in refused[0]
    assert "“When a document with the same file name is already indexed”" in refused[0]

    at.file_uploader[0].set_value(("setup.exe", b"MZ\x90\x00", "application/octet-stream"))
    at.run()
    at.button(key="index_button").click().run()
    assert_ok(at)
    exe = [e.value for e in at.error if "setup.exe" in e.value]
    assert exe and ".exe files cannot be indexed" in exe[0] and ".json .yaml .yml" in exe[0]

    at.selectbox(key="delete_source").set_value("people-3.1.json").run()
    at.button(key="delete_button").click().run()
    assert_ok(at)
    assert any("Deleted people-3.1.json" in s.value for s in at.success)
    assert list(frames_with_column(at, "ingest (s)")[0]["source"]) == ["shop-3.0.yaml"]
    assert [r.source for r in app_engine.index.documents()] == ["shop-3.0.yaml"]


def test_make_a_test_set_for_a_spec_and_run_it(app_engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The real question generator and runner, in the background, on the fixture index (retrieval only)."""
    at = open_app("pages/1_Documents.py")
    at.selectbox(key="browse_source").set_value("shop-3.0.yaml").run()
    at.multiselect(key="testset_configs").set_value(["C0", "full"]).run()
    at.button(key="testset_start").click().run()
    assert_ok(at)
    job = jobs.get_job(at.session_state["testset_jobs"][-1])
    assert job is not None
    jobs.wait(job, 120)
    assert job.status == "done", job.error + job.details
    assert job.run_dir is not None and job.run_dir.parent == tmp_path / "results"
    assert job.run_dir.name.startswith("spec-shop-3_0-")
    assert {p.name for p in job.run_dir.glob("*.jsonl")} == {"C0.jsonl", "full.jsonl"}
    assert (job.run_dir / "metrics.json").is_file()
    generated = tmp_path / "eval_data" / "generated" / "shop-3_0.jsonl"
    assert generated.is_file() and generated.read_text().count("\n") >= 5
    at.run()
    assert any(job.run_dir.name in s.value for s in at.success)
    links = [link for link in at.get("page_link") if "Evaluation" in link.proto.label]
    assert links, "a link to the evaluation page"
    at.switch_page("pages/2_Evaluation.py").run()
    assert_ok(at)
    assert at.multiselect(key="eval_runs").value == [str(job.run_dir)]
    assert len(plotly_charts(at)) == 6  # with the reliability diagram of full's confidence


# ---------------------------------------------------------------------- evaluation
def test_evaluation_page_renders_charts_from_a_saved_run(app_engine, saved_runs) -> None:  # type: ignore[no-untyped-def]
    at = open_app("pages/2_Evaluation.py")
    assert at.title[0].value == "Evaluation"
    assert at.multiselect(key="eval_runs").value == [str(saved_runs / "tiny-run")]
    summary = frames_with_column(at, "MRR")[0]
    assert list(summary["label"]) == ["C0", "full"]
    assert summary["hit@5"].tolist() == [pytest.approx(2 / 3, abs=1e-3), 1.0]
    charts = plotly_charts(at)
    assert len(charts) == 6  # metric bars, category heatmap, quality vs latency, reliability, reranker lift, failures
    figures = [json.loads(chart.proto.spec) for chart in charts]
    panel_titles = {a.get("text") for a in figures[0]["layout"].get("annotations", [])}
    for title in ("hit@5", "MRR", "abstention accuracy", "false-abstention rate", "keyword recall", "judge score"):
        assert any(str(panel).startswith(title + " (") for panel in panel_titles)  # each with its unit
    assert figures[1]["data"][0]["type"] == "heatmap"
    assert figures[1]["data"][0]["x"] == ["C0", "full"]
    questions = frames_with_column(at, "failure")[0]
    assert len(questions) == 8
    assert set(questions["failure"]) == {"ok", "retrieval_miss", "generation_miss", "false_answer"}
    assert any("about" in e.label.lower() for e in at.sidebar.expander)


def test_the_heatmap_breaks_a_run_down_by_the_api_each_question_is_about(app_engine, saved_runs) -> None:  # type: ignore[no-untyped-def]
    """The tiny run asks about two APIs: the heatmap's rows can be its categories or those APIs, and its metrics
    follow (how often another API's chunk came first is a figure of the APIs only); back to categories after."""
    at = open_app("pages/2_Evaluation.py")

    def heatmap() -> dict[str, Any]:
        return json.loads(plotly_charts(at)[1].proto.spec)

    rows = at.radio(key="heatmap_rows")
    assert rows.options == ["category", "API"] and rows.value == "category"
    assert heatmap()["layout"]["title"]["text"].endswith("by category")
    assert "another_api_first" not in at.selectbox(key="heatmap_metric").options
    rows.set_value("API").run()
    assert_ok(at)
    assert heatmap()["layout"]["title"]["text"].endswith("by API")
    assert heatmap()["data"][0]["y"] == ["people-3_1", "shop-3_0"]
    at.selectbox(key="heatmap_metric").set_value("another_api_first").run()
    assert_ok(at)
    assert heatmap()["layout"]["title"]["text"] == "another API's chunk first by API"
    at.radio(key="heatmap_rows").set_value("category").run()
    assert_ok(at)
    assert at.selectbox(key="heatmap_metric").value != "another_api_first"  # not a figure of the categories
    assert heatmap()["layout"]["title"]["text"].endswith("by category")


def test_evaluation_filters_and_reruns_a_question_on_the_home_page(app_engine, saved_runs) -> None:  # type: ignore[no-untyped-def]
    at = open_app("pages/2_Evaluation.py")
    at.multiselect(key="filter_failures").set_value(["retrieval_miss"]).run()
    table = frames_with_column(at, "failure")[0]
    assert list(table["query_id"]) == ["q2"] and list(table["config"]) == ["C0"]
    at.multiselect(key="filter_failures").set_value([]).run()
    at.multiselect(key="filter_categories").set_value(["out_of_scope"]).run()
    table = frames_with_column(at, "failure")[0]
    assert list(table["config"]) == ["C0", "full"]
    at.selectbox(key="question_pick").set_value("tiny-run / full / 3").run()
    assert any("abstained" in b for b in badges(at))
    at.button(key="rerun_question").click().run()
    assert_ok(at)
    assert at.title[0].value == "Ask & compare"
    turn = at.session_state["turns"][-1]
    assert turn.question == OUT_OF_SCOPE
    assert turn.configs == ["C0", "full"]
    assert turn.results[1].abstained


def test_evaluation_page_shows_the_verdict_roles_and_the_suite_table(app_engine, saved_runs) -> None:  # type: ignore[no-untyped-def]
    metrics = json.loads((saved_runs / "tiny-run" / "metrics.json").read_text())
    metrics["manifest"]["questions_source"] = "eval_data/heldout_set.jsonl"
    (saved_runs / "tiny-run" / "metrics.json").write_text(json.dumps(metrics))
    at = open_app("pages/2_Evaluation.py")
    verdict = [m.value for m in at.markdown if "Best on the validation runs" in m.value]
    assert verdict and "full" in verdict[0] and "ms per question" in verdict[0]
    captions = " ".join(c.value for c in at.caption)
    assert "Read from validation runs: tiny-run" in captions
    assert "blinded sets' table is absent" in captions and "make eval-blind" in captions
    assert not frames_with_column(at, "full beats C2")  # no suite table yet, and nothing breaks
    summary = frames_with_column(at, "MRR")[0]
    assert set(summary["role"]) == {"validation"}
    assert "tiny-run (validation)" in at.multiselect(key="eval_runs").options

    (saved_runs / "suite").mkdir()
    (saved_runs / "suite" / "latest.json").write_text(json.dumps(SUITE_TABLE))
    at = open_app("pages/2_Evaluation.py")
    suite = frames_with_column(at, "full beats C2")
    assert suite and list(suite[0]["role"]) == ["tuning", "validation", "validation"]
    assert at.multiselect(key="eval_runs").options == ["tiny-run (validation)"]  # the suite folder is no run
    at.selectbox(key="suite_metric").set_value("mrr").run()
    assert_ok(at)
    assert frames_with_column(at, "full beats C2")[0]["C2"].tolist() == [0.52, 0.81, 0.81]
    assert not any("suite" in m.value for m in at.markdown if "Best on" in m.value)  # no source of the verdict

    (saved_runs / "blind").mkdir()
    (saved_runs / "blind" / "latest.json").write_text(BLIND_TABLE.read_text())
    at = open_app("pages/2_Evaluation.py")
    verdict = [m.value for m in at.markdown if "Best on the blinded sets" in m.value]
    assert verdict and "tied" not in verdict[0]
    assert frames_with_column(at, "full-minus-lookup")[0]["set"].tolist()[-1] == "mean over the sets"
    assert at.multiselect(key="eval_runs").options == ["tiny-run (validation)"]  # nor is the blind folder


def test_start_a_new_evaluation_in_the_background(app_engine, saved_runs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    questions = tmp_path / "eval_data" / "tiny.jsonl"
    questions.write_text(
        json.dumps({"id": "t1", "question": ANSWERABLE, "category": "parameter", "answerable": True,
                    "relevant_ids": ["shop-3_0.paths./orders.get"], "required_keywords": ["page_size"],
                    "ground_truth": "page_size: results per page"}) + "\n"
        + json.dumps({"id": "t2", "question": OUT_OF_SCOPE, "category": "out_of_scope", "answerable": False,
                      "relevant_ids": [], "required_keywords": [], "ground_truth": ""}) + "\n"
    )
    at = open_app("pages/2_Evaluation.py")
    at.selectbox(key="new_eval_set").set_value(questions)
    at.multiselect(key="new_eval_configs").set_value(["C0", "full"])
    at.text_input(key="new_eval_name").set_value("from the page")
    at.button(key="new_eval_start").click().run()
    assert_ok(at)
    job = jobs.get_job(at.session_state["eval_jobs"][-1])
    assert job is not None
    jobs.wait(job, 120)
    assert job.status == "done", job.error + job.details
    assert job.run_dir == saved_runs / "from-the-page"
    assert (job.total, job.done) == (2, 2)
    metrics = json.loads((job.run_dir / "metrics.json").read_text())
    assert metrics["manifest"]["retrieval_only"] is True
    assert metrics["configs"]["full"]["abstention_accuracy"] == 1.0  # full abstains on the weather question
    at.run()
    assert_ok(at)
    assert any("finished" in s.value for s in at.success)
    newest_first = ["from-the-page (unmarked)", "tiny-run (unmarked)"]
    assert at.multiselect(key="eval_runs").options == newest_first
    at.multiselect(key="eval_runs").set_value([str(saved_runs / "from-the-page"), str(saved_runs / "tiny-run")]).run()
    assert_ok(at)
    summary = frames_with_column(at, "MRR")[0]
    assert list(summary["label"]) == ["from-the-page / C0", "from-the-page / full", "tiny-run / C0", "tiny-run / full"]


def test_a_failed_evaluation_is_reported_on_the_page(app_engine, saved_runs, tmp_path) -> None:  # type: ignore[no-untyped-def]
    questions = tmp_path / "eval_data" / "unknown-ids.jsonl"
    questions.write_text(json.dumps({"id": "x", "question": "q?", "category": "endpoint", "answerable": True,
                                     "relevant_ids": ["nope.paths./x.get"], "required_keywords": [],
                                     "ground_truth": ""}) + "\n")
    at = open_app("pages/2_Evaluation.py")
    at.selectbox(key="new_eval_set").set_value(questions)
    at.button(key="new_eval_start").click().run()
    job = jobs.wait(jobs.get_job(at.session_state["eval_jobs"][-1]), 60)  # type: ignore[arg-type]
    assert job.status == "failed" and "nope.paths./x.get" in job.error
    at.run()
    assert any("failed" in e.value and "nope.paths./x.get" in e.value for e in at.error)
    assert len(plotly_charts(at)) == 6  # the saved run is still shown


def test_the_conversation_survives_a_reload_and_a_new_one_starts_empty(app_engine) -> None:  # type: ignore[no-untyped-def]
    first = ask(open_app(), ANSWERABLE, ["C0", "full"])
    conversation = first.query_params["conversation"]
    conversation = conversation[0] if isinstance(conversation, list) else conversation
    assert len(conversation) == 16
    # A reload is a new session with the same URL.
    reloaded = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    reloaded.query_params["conversation"] = conversation
    reloaded.run()
    assert_ok(reloaded)
    turns = reloaded.session_state["turns"]
    assert [t.question for t in turns] == [ANSWERABLE]
    restored = turns[0].result_for("full")
    assert restored is not None and restored.chunks and restored.answer
    assert restored.chunks[0].chunk.text  # the chunk is read from the index again
    # The follow-up continues the restored conversation.
    followed = ask(reloaded, "and what about its default value?")
    assert ANSWERABLE in followed.session_state["turns"][-1].rewritten[0]
    # "New conversation" forgets it and gets a new id.
    next(b for b in followed.button if b.label == "New conversation").click().run()
    assert followed.session_state["turns"] == []
    renewed = followed.query_params["conversation"]
    assert (renewed[0] if isinstance(renewed, list) else renewed) != conversation


def test_the_ask_page_pins_an_older_api_version(app_engine) -> None:  # type: ignore[no-untyped-def]
    from rag.ingest.pipeline import parse_document
    from tests.conftest import FIXTURES

    shop = FIXTURES / "specs" / "shop-3.0.yaml"
    at = open_app()
    assert not [s for s in at.selectbox if s.key == "ask_api_version"]  # one version of each API: no choice
    report = app_engine.index.add(parse_document(shop.name, shop.read_bytes(), version="2024-01"))
    pin = f"{report.api}@2024-01"
    at = open_app()
    box = at.selectbox(key="ask_api_version")
    assert box.options == ["newest of each API", pin]
    box.set_value(pin)
    ask(at, ANSWERABLE, ["C2"])
    chunks = at.session_state["turns"][-1].results[0].chunks
    assert {c.chunk.api_version for c in chunks if c.chunk.api == report.api} == {"2024-01"}


def test_a_new_version_shows_its_diff_reopens_from_the_url_and_asks_once(app_engine) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import FIXTURES

    shop = (FIXTURES / "specs" / "shop-3.0.yaml").read_bytes()
    older = shop.replace(b"version:", b"x-old: true\n  version:", 1)  # the same API, another file version
    at = open_app("pages/1_Documents.py")
    at.file_uploader[0].set_value([("shop-3.0.yaml", older, "application/yaml")])
    at.run()
    label = at.text_input(key="version_label-shop-3.0.yaml")
    assert label.value == ""  # its info.version is the indexed one's: the form asks for a label
    label.set_value("2024-01").run()
    at.button(key="add_version-shop-3.0.yaml").click().run()
    assert_ok(at)
    table = frames_with_column(at, "check")[0]
    assert list(table.columns[:2]) == ["level", "check"]
    reopen = at.query_params["diff"]
    assert reopen == "shop-3_0@2024-01..shop-3_0@2.1.0", reopen
    again = open_app("pages/1_Documents.py")
    again.query_params["diff"] = reopen
    again.run()
    assert again.session_state["version_diff"] is not None  # a reload reopens the diff

    at = open_app(session={"ask_configs": ["C0", "C2"],
                           RERUN_KEY: {"question": ANSWERABLE, "configs": ["full"], "once": True}})
    assert result_columns(at) == ["full"]
    at.run()  # the next run: the home page's own choice is back
    assert at.multiselect(key="ask_configs").value == ["C0", "C2"]
