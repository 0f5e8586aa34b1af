"""Evaluation: compare saved runs, chart their metrics, inspect each question, start new runs."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from rag.evaluate import roles, saved_runs
from rag.evaluate import verdict as verdicts
from rag.evaluate.metrics import metric_label
from rag.evaluate.saved_runs import SavedRun
from rag.evaluate.suite_results import SUITE_LABELS
from webapp import charts, eval_frames, tables, ui, widget_state
from webapp.asking import RERUN_KEY, rerun_request
from webapp.badges import badge_for_record
from webapp.engine import default_config_names
from webapp.eval_jobs import default_run_name, start_evaluation
from webapp.jobs import jobs

ui.page_setup("Evaluation")
ui.render_sidebar()
known = ui.configs_or_stop()

st.title("Evaluation")
st.caption(
    "Compare saved evaluation runs: retrieval quality, abstention, answer quality, latency and cost per "
    "configuration, per category and per question, with the reason each failure happened."
)


@st.cache_resource(max_entries=64, show_spinner="Reading the saved run…")
def cached_run(path: str, stamp: float) -> SavedRun:
    """One saved run, read once per change of its files (`stamp`) and shared by every session."""
    return saved_runs.load_run(path)


root = saved_runs.results_dir()
suite, suite_warning = saved_runs.load_suite_table(saved_runs.suite_path(root))
suite_roles = roles.suite_roles(suite)


def read_runs(paths: list[str]) -> list[SavedRun]:
    """The runs at `paths` (cached), with unique names and the suite's role for their question set."""
    runs = saved_runs.with_unique_names([cached_run(path, saved_runs.run_stamp(path)) for path in paths])
    return roles.with_suite_roles(runs, suite_roles)


eval_job_ids: list[str] = st.session_state.setdefault("eval_jobs", [])
all_job_ids = eval_job_ids + list(st.session_state.get("testset_jobs", []))
extra_runs = [job.run_dir for job in jobs(all_job_ids) if job.run_dir is not None]
paths = saved_runs.find_runs(root, extra_runs)

# ---------------------------------------------------------------------- start a new evaluation
with st.expander("Start a new evaluation", icon=":material/play_circle:", expanded=not paths):
    sets = saved_runs.question_sets(saved_runs.eval_data_dir())
    if not sets:
        st.info(f"No question sets (*.jsonl) in {saved_runs.eval_data_dir()}.")
    else:
        widget_state.valid_choice("new_eval_set", sets, sets[0])
        widget_state.valid_choices("new_eval_configs", list(known))
        question_file = st.selectbox("Question set", sets, format_func=lambda p: p.name, key="new_eval_set")
        chosen = st.multiselect("Configurations", list(known), default=default_config_names(known),
                                key="new_eval_configs")
        left, right = st.columns([1, 2], vertical_alignment="bottom")
        retrieval_only = left.toggle("Retrieval only (fast, no answers)", value=True, key="new_eval_ro")
        run_name = right.text_input("Run name", placeholder=default_run_name(), key="new_eval_name")
        if st.button("Start evaluation", type="primary", disabled=not chosen, key="new_eval_start",
                     icon=":material/play_arrow:"):
            engine = ui.engine_or_stop()
            job = start_evaluation(engine, Path(question_file), [known[n] for n in chosen], retrieval_only,
                                   root, run_name.strip() or None)
            eval_job_ids.append(job.id)
            st.rerun()
        st.caption(f"Runs are saved under {tables.md_escape(str(root))} and run in the background: "
                   "other sessions are not blocked, and you can keep using this page.")
ui.render_jobs(eval_job_ids, key="eval")

if not paths:
    st.info(f"No saved runs yet in {root}. Start one above, or run an evaluation from the command line.")
    st.stop()

# ---------------------------------------------------------------------- verdict, blinded sets and suite
everything = read_runs([str(path) for path in paths])
blind_file = verdicts.blind_path(root)
blind, blind_warning = verdicts.load_blind_table(blind_file)
found = verdicts.verdict(everything, blind, blind_file)
with st.container(border=True):
    st.markdown("**Verdict**")
    if found.text:
        st.markdown(found.text)
    for line in found.missing:
        st.caption(tables.md_escape(line))
    if found.sources:
        st.caption("Read from " + " · ".join(tables.md_escape(source) for source in found.sources) + " — nothing "
                   "else: the team's own tuning and generated sets below say how the pipeline was tuned, not how it "
                   "generalises.")
    st.caption("Runs whose questions were used to tune the pipeline are **tuning** runs (the dev set, train splits, "
               "and any set the evaluation suite lists as tuning); the others are **validation** runs. Ablations "
               "(`full-minus-…`) measure one stage and are never contenders. Configurations marked **(fallback)** "
               "ran without one of their stages (no LLM for C4/C5's LLM rerank, no cross-encoder for E3/E4), so "
               "they are left out of the verdict.")
if blind_warning:
    st.warning(blind_warning)
if blind is not None:
    with st.expander(f"Blinded sets — latest totals (generated {tables.md_escape(blind.generated)})",
                     expanded=False, icon=":material/visibility_off:"):
        blind_metric = st.selectbox("Blinded-set metric", list(verdicts.BLIND_METRICS),
                                    format_func=verdicts.BLIND_LABELS.get, key="blind_metric")
        blind_table = eval_frames.blind_frame(blind, blind_metric)
        st.dataframe(blind_table, hide_index=True, width="stretch", key="blind_table", placeholder=ui.MISSING,
                     height=35 * (len(blind_table) + 1) + 3,
                     column_config={"set": st.column_config.TextColumn("set", width="medium", pinned=True),
                                    **{config: st.column_config.NumberColumn(config, format="%.3f")
                                       for config in blind.all_configs}})
        st.caption(f"Questions nobody on the team has read. From {tables.md_escape(str(blind.path))}.")
if suite_warning:
    st.warning(suite_warning)
if suite is not None:
    with st.expander(f"Evaluation suite (the team's own sets) — latest table ({tables.md_escape(suite.created)})",
                     expanded=False, icon=":material/table_chart:"):
        suite_metric = st.selectbox("Suite metric", list(SUITE_LABELS),
                                    format_func=SUITE_LABELS.get, key="suite_metric")
        suite_table = eval_frames.suite_frame(suite, suite_metric)
        st.dataframe(suite_table, hide_index=True, width="stretch", key="suite_table", placeholder=ui.MISSING,
                     height=35 * (len(suite_table) + 1) + 3,  # every set and the macro average, no inner scrolling
                     column_config={"set": st.column_config.TextColumn("set", width="medium", pinned=True),
                                    "full beats C2": st.column_config.TextColumn("full beats C2", width="small"),
                                    **{config: st.column_config.NumberColumn(config, format="%.3f")
                                       for config in suite.configs}})
        st.caption(f"k = {suite.k if suite.k is not None else '?'} · one row per question set with its role; the "
                   "last row averages the validation sets. From " + tables.md_escape(str(saved_runs.suite_path(root))))

# ---------------------------------------------------------------------- choose runs
options = [str(path) for path in paths]
run_labels = {str(path): f"{run.name} ({roles.run_role(run)})" for path, run in zip(paths, everything, strict=True)}
preselect = [str(p) for p in paths if p.name in set(st.session_state.pop("eval_preselect", []) or [])]
if preselect:
    st.session_state["eval_runs"] = preselect
elif "eval_runs" not in st.session_state:
    st.session_state["eval_runs"] = options[:1]
else:
    widget_state.valid_choices("eval_runs", options)  # a run deleted or renamed on disk since the last visit
selected = st.multiselect(
    "Runs to compare",
    options,
    key="eval_runs",
    format_func=lambda s: run_labels.get(s, Path(s).name),
    help="Newest first, each with its role: tuning (its questions were used to tune the pipeline) or validation "
    "(held out). Pick several to compare runs; configurations are then named run / config.",
)
if not selected:
    st.info("Choose at least one run.")
    st.stop()
runs = read_runs(list(selected))
st.caption(" · ".join(f"**{tables.md_escape(eval_frames.run_caption(run))}**" for run in runs).replace(
    "** · **", "**  |  **"))
for run in runs:
    for warning in run.warnings[:5]:
        st.warning(f"{run.name}: {warning}")
    if run.computed:
        st.caption(f"{tables.md_escape(run.name)}: no metrics.json yet — metrics computed from the records.")
with st.expander("Run manifests"):
    for run in runs:
        st.markdown(f"**{tables.md_escape(run.name)}** — {tables.md_escape(str(run.path))}")
        st.json(run.manifest or {"manifest": "none saved"}, expanded=False)

# ---------------------------------------------------------------------- summary and charts
metrics = eval_frames.metrics_frame(runs)
st.subheader("Summary", anchor=False)
summary = eval_frames.summary_frame(runs)
st.dataframe(
    summary,
    hide_index=True,
    width="stretch",
    key="summary_table",
    placeholder=ui.MISSING,
    column_config={
        **ui.fitted_columns(summary),
        "label": st.column_config.TextColumn("configuration", width=tables.text_width(summary["label"], 12),
                                             pinned=True),
        "role": st.column_config.TextColumn("role", width=90, help="tuning: tuned on these questions; validation: "
                                            "held out"),
        "fallback": st.column_config.TextColumn("fallback", width="large", help="the stage it ran without"),
        **{column: st.column_config.NumberColumn(column, format="%.3f", width=tables.header_width(column))
           for column in summary.columns
           if column not in ("label", "role", "fallback", "n") and not str(column).startswith(("latency", "tokens"))},
        **{column: st.column_config.NumberColumn(column, format="%.1f" if str(column).startswith("latency") else "%.0f",
                                                 width=tables.header_width(column))
           for column in summary.columns if str(column).startswith(("latency", "tokens"))},
    },
)

fell_back = saved_runs.fallbacks(runs)
if fell_back:
    st.caption("Fell back (hatched bars, paler points, “(fallback)” in every label): " + "; ".join(
        f"{tables.md_escape(eval_frames.config_label(next(r for r in runs if r.name == name), config, runs))} — "
        f"{tables.md_escape(reason)}" for (name, config), reason in fell_back.items()))
if len(runs) > 1:  # one metric at a time, a panel per run: never every run's bars in one row
    bar_options = charts.chart_metrics(metrics) or [saved_runs.hit_metric(runs)]
    widget_state.valid_choice("bars_metric", bar_options, bar_options[0])
    bar_metric = st.selectbox("Chart metric", bar_options, format_func=metric_label, key="bars_metric",
                              help="Several runs are shown a metric at a time, one panel per run")
    st.plotly_chart(charts.metric_bars(metrics, metric=bar_metric), key="metric_bars", width="stretch")
else:
    st.plotly_chart(charts.metric_bars(metrics), key="metric_bars", width="stretch")

left, right = st.columns(2)
with left:
    run_names = [run.name for run in runs]
    widget_state.valid_choice("heatmap_run", run_names, run_names[0])
    heat_run = (st.selectbox("Heatmap run", run_names, key="heatmap_run",
                             help="One run at a time: every configuration keeps a readable column")
                if len(runs) > 1 else run_names[0])
    heat_runs = [run for run in runs if run.name == heat_run]
    breakdowns = eval_frames.breakdowns(heat_runs)
    widget_state.valid_choice("heatmap_rows", breakdowns, breakdowns[0])
    heat_by = (st.radio("Heatmap rows", breakdowns, key="heatmap_rows", horizontal=True,
                        help="By API: which API's questions fail, and how often another API's chunk came first")
               if len(breakdowns) > 1 else breakdowns[0])
    category_options = eval_frames.category_metrics(heat_runs, heat_by) or [saved_runs.hit_metric(heat_runs)]
    widget_state.valid_choice("heatmap_metric", category_options, category_options[0])
    heat_metric = st.selectbox("Heatmap metric", category_options, format_func=metric_label,
                               key="heatmap_metric")
    st.plotly_chart(charts.category_heatmap(eval_frames.category_frame(heat_runs, heat_metric, heat_by),
                                            heat_metric, heat_by),
                    key="category_heatmap", width="stretch")
with right:
    quality_options = [m for m in charts.chart_metrics(metrics) if m != "false_abstention_rate"] or ["hit@5"]
    widget_state.valid_choice("scatter_metric", quality_options, quality_options[0])
    quality = st.selectbox("Quality metric", quality_options, format_func=metric_label,
                           key="scatter_metric")
    st.plotly_chart(charts.quality_latency_scatter(metrics, quality), key="quality_latency", width="stretch")

st.plotly_chart(charts.reliability_diagram(eval_frames.reliability_frame(runs)), key="reliability",
                width="stretch")
st.caption("The confidence an answer shows is the estimated probability that its first result is right: a point "
           "per confidence band (its size: how many answers), the dotted diagonal where the two agree. ECE is the "
           "answers' average distance from it.")

questions = eval_frames.questions_frame(runs)
left, right = st.columns(2)
with left:
    st.plotly_chart(charts.reranker_lift_bars(metrics), key="reranker_lift", width="stretch")
with right:
    st.plotly_chart(charts.failure_bars(questions), key="failure_bars", width="stretch")

# ---------------------------------------------------------------------- per question
st.subheader("Per question", anchor=False)
a, b, c = st.columns(3)
label_options = list(dict.fromkeys(questions["label"]))
category_options = sorted(dict.fromkeys(questions["category"]))
failure_options = [f for f in saved_runs.FAILURE_ORDER if f in set(questions["failure"])]
for key, present in (("filter_configs", label_options), ("filter_categories", category_options),
                     ("filter_failures", failure_options)):
    widget_state.valid_choices(key, present)
chosen_labels = a.multiselect("Configuration", label_options, key="filter_configs", placeholder="all")
chosen_categories = b.multiselect("Category", category_options, key="filter_categories", placeholder="all")
chosen_failures = c.multiselect("Failure label", failure_options, key="filter_failures", placeholder="all")
filtered = eval_frames.filter_questions(questions, chosen_labels, chosen_categories, chosen_failures)
st.caption(f"{len(filtered)} of {len(questions)} records. Select a row (or pick it below) to inspect it.")
shown = filtered.drop(columns=["run", "config", "_position"]).rename(columns={"label": "config"})
event = st.dataframe(
    shown,
    hide_index=True,
    width="stretch",
    on_select="rerun",
    selection_mode="single-row",
    key="questions_table",
    placeholder=ui.MISSING,
    column_config={
        **ui.fitted_columns(shown),
        "config": st.column_config.TextColumn("config", width=tables.text_width(shown["config"], 8), pinned=True),
        "failure": st.column_config.TextColumn("failure", help="why the record failed (ok: it did not)",
                                               width=tables.text_width(shown["failure"], 8)),
        "total ms": st.column_config.NumberColumn(format="%.0f", width=tables.header_width("total ms")),
        "answer": st.column_config.TextColumn(width="medium"),
    },
)
row = ui.selected_row(event)
if filtered.empty:
    st.info("No records match these filters. Clear a filter to see records again.")
    st.stop()
# Picks are keyed by record (run / config / position), not by table row: a pick survives filters that keep
# its record, and one whose record left the table falls back to the first row.
pick_keys = [f"{r} / {c} / {p}" for r, c, p in zip(filtered["run"], filtered["config"], filtered["_position"],
                                                    strict=True)]
pick_rows = {key: number for number, key in enumerate(pick_keys)}
if row is not None and 0 <= row < len(filtered) and st.session_state.get("_last_table_row") != row:
    st.session_state["question_pick"] = pick_keys[row]
st.session_state["_last_table_row"] = row
widget_state.valid_choice("question_pick", pick_keys, pick_keys[0])
pick = st.selectbox(
    "Question",
    pick_keys,
    format_func=lambda key: eval_frames.pick_label(filtered, pick_rows.get(key)),
    key="question_pick",
)
item = filtered.iloc[pick_rows.get(str(pick), 0)]
record = saved_runs.record_at(runs, str(item["run"]), str(item["config"]), int(item["_position"])) or {}
configs_for_rerun = list(dict.fromkeys(filtered["config"] if chosen_labels else questions["config"]))
with st.container(border=True):
    head, action = st.columns([3, 1], vertical_alignment="center")
    with head:
        st.markdown(f"**{tables.md_escape(str(item['query_id']))}** · {tables.md_escape(str(item['label']))} · "
                    f"category `{item['category']}` · failure `{item['failure']}`")
        ui.render_badge(badge_for_record(record))
    with action:
        if st.button("Re-run on the home page", type="primary", icon=":material/replay:", key="rerun_question",
                     help="Ask this question again on the home page with: " + ", ".join(configs_for_rerun)):
            st.session_state[RERUN_KEY] = rerun_request(
                str(record.get("query") or item["query"]),
                configs_for_rerun,
                saved_runs.config_definitions(runs),
                record.get("history") if isinstance(record.get("history"), list) else None,
            )
            st.switch_page(ui.HOME_PAGE)
        st.caption("Same configurations: " + tables.md_escape(", ".join(configs_for_rerun)))
    st.markdown("**Question**")
    st.markdown(tables.md_escape(str(record.get("query") or item["query"])))
    if record.get("ground_truth"):
        st.markdown("**Ground truth**")
        st.markdown(tables.md_escape(str(record["ground_truth"])))
    if record.get("relevant_ids"):
        st.caption("Relevant ids: " + ", ".join(f"`{rid}`" for rid in record["relevant_ids"]))
    answer = str(record.get("llm_answer") or "")
    st.markdown("**Answer**")
    if answer:
        st.markdown(tables.safe_markdown(answer))
    else:
        st.caption("No answer (retrieval only, or the configuration failed).")
    if record.get("error"):
        st.error(str(record["error"]))
    citations = record.get("citations") or []
    if citations:
        st.caption("Citations: " + "; ".join(
            tables.md_escape(tables.readable_id(str(c.get("structural_id", c)) if isinstance(c, dict) else str(c)))
            for c in citations
        ))
    st.caption(tables.md_escape(eval_frames.record_summary(record)))
    retrieved = [c for c in record.get("retrieved_chunks") or [] if isinstance(c, dict)]
    st.markdown("**Retrieved chunks**")
    chunk_event = st.dataframe(
        tables.record_chunk_frame(retrieved),
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=f"record_chunks-{pick}",  # a new record starts with no row selected
        placeholder=ui.MISSING,
        column_config={"chunk id": None},
    )
    chunk_row = ui.selected_row(chunk_event)
    if chunk_row is not None and chunk_row < len(retrieved):
        st.code(str(retrieved[chunk_row].get("text") or "(no text saved)"), language="text", wrap_lines=True)
        st.json({k: v for k, v in retrieved[chunk_row].items() if k != "text"}, expanded=False)
