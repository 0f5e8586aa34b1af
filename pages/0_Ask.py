"""SpecRAG Workbench — home page "Ask & compare": ask a question, compare configurations side by side.

`app.py` names the pages; all logic lives in `rag/`; this file only renders.
"""

from __future__ import annotations

import streamlit as st

from rag.errors import ConfigError
from rag.results import AnswerResult
from webapp import conversations, tables, ui, widget_state
from webapp.asking import (
    ASK_TEXT_KEY,
    PENDING_KEY,
    REFUSED_KEY,
    RERUN_KEY,
    Turn,
    conversation_histories,
    examples_for,
    stream_turn,
)
from webapp.engine import (
    MAX_K,
    choose_rerun_configs,
    default_config_names,
    generator_label,
    generator_options,
    plan_rerun,
    question_and_configs,
)
from webapp.versions import version_choices

ui.page_setup("Ask & compare")
engine = ui.engine_or_stop()
ui.render_sidebar(engine)
known = ui.configs_or_stop()

# The conversation survives a reload: its id is in the URL and its turns are saved beside the index.
saved_in = conversations.conversations_dir(engine.index.directory)
conversation_id, problem = conversations.open_conversation(
    st.session_state, st.query_params, saved_in, engine.index.get_chunk, list(known)
)
if problem:
    st.warning(f"Starting a new conversation: {problem}.", icon=":material/history:")
turns: list[Turn] = st.session_state["turns"]
recent = conversations.recent_conversations(saved_in, 5, skip=conversation_id)
if recent:
    with st.sidebar:
        st.markdown("**Recent conversations**")
        for saved in recent:
            st.button(ui.conversation_label(saved), key=f"recent-{saved.conversation_id}", width="stretch",
                      on_click=ui.open_saved_conversation, args=(saved.conversation_id,),
                      help=f"“{saved.first_question}” — open it again")

# A question sent here from another page ("re-run on the home page") with its configurations.
rerun = plan_rerun(st.session_state.pop(RERUN_KEY, None), known)
for problem_text in rerun.problems if rerun else []:
    st.warning(problem_text)
choose_rerun_configs(st.session_state, rerun, default_config_names(known))

st.caption(f"**{ui.PRODUCT}**")
st.title("Ask & compare")
st.caption(
    "Ask about the indexed APIs. Each configuration answers side by side with a badge, citations, "
    "latency and the chunks it retrieved, so you can see *why* an answer is right or wrong."
)

if engine.index.is_empty():
    st.info("The index is empty: upload OpenAPI specs or docs on the Documents page first.")
    st.page_link(ui.DOCUMENTS_PAGE, label="Go to Documents", icon=":material/upload_file:")

options = generator_options(engine.default_llm)
# The choices survive visits to other pages (Streamlit forgets the state of widgets a page does not draw).
widget_state.restore_choices(
    {
        "ask_configs": default_config_names(known),
        "ask_k": 5,
        "ask_generator": options[0],
        "ask_retrieval_only": False,
    }
)
if st.session_state["ask_generator"] not in options:
    st.session_state["ask_generator"] = options[0]
widget_state.valid_choices("ask_configs", list(known))
widget_state.valid_number("ask_k", 1, MAX_K, 5)
with st.container(border=True):
    # The configurations get the whole width: ten chips fit on one line there.
    names: list[str] = st.multiselect(
        "Configurations",
        options=list(known),
        key="ask_configs",
        help="Any number: up to four side by side, more get a tab each. Default: C0 (naive baseline), C3 "
        "(smart chunks, hybrid search, API filter) and full — all run offline; C4, C5, E3 and E4 need a model.",
    )
    middle, right, last, _ = st.columns([1, 2, 1.4, 3.6], vertical_alignment="bottom")
    k = int(middle.number_input("k", min_value=1, max_value=MAX_K, step=1, key="ask_k",
                                help="How many chunks each configuration passes on"))
    generator = right.selectbox(
        "Generator",
        options,
        format_func=generator_label,
        key="ask_generator",
        help="Used by every configuration set to `auto` (all presets). Detected automatically from RAG_LLM, "
        "an API key or the local model; extractive needs no LLM.",
    )
    retrieval_only = last.toggle("Retrieval only", key="ask_retrieval_only",
                                 help="Retrieve and rank only; no answers are generated")
    pins = version_choices(engine.index.documents())  # an API with several versions: pin an older one
    widget_state.valid_choice("ask_api_version", pins, "")
    pin = st.selectbox("API version", pins, format_func=lambda p: p or "newest of each API", key="ask_api_version",
                       help="Questions search the newest version of each API unless an older one is chosen"
                       ) if len(pins) > 1 else ""
    widget_state.keep_choices(["ask_configs", "ask_k", "ask_generator", "ask_retrieval_only"])
    if names:
        st.caption(ui.config_caption(known, names))
    st.caption(f"Generator in use: **{tables.md_escape(generator_label(generator))}**")


# ---------------------------------------------------------------------- the question box and examples
# A form keeps the typed text when a question is refused (a chat input would clear it); an accepted question
# is moved out of the box by the submit callback, before the page is drawn again.
with st.form("ask_form", border=False, clear_on_submit=False):
    st.text_area(
        "Question",
        key=ASK_TEXT_KEY,
        placeholder="Ask about the indexed APIs… (Ctrl+Enter sends)",
        height=90,
        label_visibility="collapsed",
    )
    st.form_submit_button("Ask", type="primary", icon=":material/send:", on_click=ui.submit_typed, key="ask_submit")
refused = st.session_state.pop(REFUSED_KEY, None)
if refused:
    st.error(refused, icon=":material/block:")

examples = examples_for({record.api for record in engine.index.documents()})
if examples:
    st.markdown("**Try an example** — each starts a conversation of its own and shows what the side-by-side "
                "comparison reveals:")
    example_columns = st.columns(len(examples))
    for number, (column, example) in enumerate(zip(example_columns, examples, strict=True)):
        with column.container(border=True):
            st.markdown(f"{example.icon} **{tables.md_escape(example.label)}**")
            st.button(example.question, key=f"example-{number}", on_click=ui.submit_example,
                      args=(example.question,), width="stretch")
            st.caption(tables.md_escape(example.reveals))
question = st.session_state.pop(PENDING_KEY, None) or (rerun.question if rerun else None)
if (turns or question) and st.button("New conversation", icon=":material/refresh:",
                                     help="Forget the earlier questions"):
    conversations.start_new_conversation(st.session_state, st.query_params)
    st.rerun()


def render_turn(number: int, turn: Turn, latest: bool) -> None:
    """One question and one column per configuration."""
    with st.chat_message("user"):
        st.markdown(tables.md_escape(turn.question))
        ui.render_rewritten(turn.rewritten)
    ui.render_results_summary(turn.results)
    containers = ui.result_containers(turn.configs)
    for container, name in zip(containers, turn.configs, strict=True):
        with container:
            st.subheader(name, anchor=False)
            result = turn.result_for(name)
            if result is None:
                st.caption("No result.")
                continue
            ui.render_result(result, known.get(name), key=f"t{number}-{name}", engine=engine, compact=not latest)
    if latest:
        ui.render_overlap(turn.results, key=f"t{number}")



for number, turn in enumerate(turns):
    if number == len(turns) - 1 and not question:
        render_turn(number, turn, True)
    else:
        with st.expander(f"Earlier question {number + 1}: {turn.question[:80]}", expanded=False):
            render_turn(number, turn, False)

if question:
    try:
        question, configs = question_and_configs(question, names, known, (k, generator, pin or ""))
    except ConfigError as error:
        st.error(str(error))
        st.stop()
    # Each configuration continues its own conversation (its own earlier answers), never another column's.
    history = rerun.history if rerun and rerun.history is not None else conversation_histories(turns, configs)
    number = len(turns)
    with st.chat_message("user"):
        st.markdown(tables.md_escape(question))
        rewritten_slot = st.empty()
    status = st.status(f"Asking {len(configs)} configuration(s)…", expanded=False)
    summary = st.empty()
    containers = ui.result_containers([config.name for config in configs])
    bodies = {}
    for container, config in zip(containers, configs, strict=True):
        with container:
            st.subheader(config.name, anchor=False)
            bodies[config.name] = st.empty()
            spec = engine.llm_spec(config)
            bodies[config.name].caption(
                "Retrieving…" if retrieval_only else f"Retrieving, then generating with {generator_label(spec)}…"
            )

    def show_text(config_name: str, text: str) -> None:
        """An answer as it streams."""
        bodies[config_name].markdown(tables.safe_markdown(text) + " ▌")

    def show_result(result: AnswerResult, finished: int) -> None:
        """A configuration's finished result."""
        status.update(label=f"{finished}/{len(configs)} configuration(s) finished…")
        with bodies[result.config].container():
            ui.render_result(result, known.get(result.config), key=f"t{number}-{result.config}", engine=engine)

    turn = stream_turn(engine, question, configs, history, (retrieval_only, generator, k), show_text, show_result)
    with rewritten_slot.container():
        ui.render_rewritten(turn.rewritten)
    failed = [r.config for r in turn.results if not r.ok]
    status.update(
        label=f"{len(configs)} configuration(s) answered in {turn.seconds:.1f} s"
        + (f" · failed: {', '.join(failed)}" if failed else ""),
        state="error" if failed and len(failed) == len(configs) else "complete",
    )
    turns.append(turn)
    try:
        conversations.save_conversation(saved_in, conversation_id, turns)
    except OSError as error:
        st.caption(f"This conversation could not be saved for a reload ({error}).")
    with summary.container():
        ui.render_results_summary(turn.results)
    ui.render_overlap(turn.results, key=f"t{number}")
