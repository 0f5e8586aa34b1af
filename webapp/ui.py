"""Streamlit helpers shared by `app.py` and `pages/`: page setup, the cached engine, the sidebar with
"About / how it works", and the renderers of answers, chunk tables, overlap and background jobs.

Nothing here renders user or spec content as HTML: text goes through st.markdown (HTML escaped),
st.code, st.json or st.dataframe, and `unsafe_allow_html` is never used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from rag.chunk import Chunk
from rag.config import Config
from rag.errors import RagError
from rag.evaluate.metrics import ERROR_LABEL, FAILURE_MEANINGS
from rag.index.versions import chunk_totals
from rag.pipeline.features import features_of
from rag.results import AnswerResult, RetrievedChunk
from rag.runner import Engine
from webapp import charts, tables, widget_state
from webapp.badges import Badge, badge_for
from webapp.engine import build_engine, engine_key, known_configs, warm_up_once
from webapp.jobs import Job, get_job
from webapp.request_view import render_request_example

PRODUCT = "SpecRAG Workbench"
HOME_PAGE = "pages/0_Ask.py"
DOCUMENTS_PAGE = "pages/1_Documents.py"
EVALUATION_PAGE = "pages/2_Evaluation.py"
MAX_SIDE_BY_SIDE = 4  # more configurations than this get a tab each (columns would be too narrow)
CODE_HEIGHT = 320  # long chunk texts scroll inside their box
MISSING = "–"  # how tables show a missing value (no score, not retrieved)
FAVICON = Path(__file__).resolve().parent / "static" / "favicon.png"

STAGES: tuple[tuple[str, str], ...] = (
    ("rewrite", "A follow-up (\"and its fields?\") becomes a standalone query using the conversation so far "
                "(with the LLM when one is configured, else by attaching the previous question)."),
    ("embed", "The query is embedded once and shared by every configuration asked together."),
    ("intent filter", "Detects which API(s) the question is about and searches only their chunks "
                      "(falls back to all APIs when the filter finds nothing)."),
    ("retrieve", "Vector search, BM25 keyword search, or hybrid (both fused with reciprocal rank fusion) over "
                 "smart chunks (references inlined as prose) or naive chunks (raw JSON pieces), plus docs."),
    ("rerank", "Reorders the candidate pool: structural (API/path/method evidence), a cross-encoder, or an LLM. "
               "The chunk table shows each chunk's rank before and after."),
    ("write-operation check", "For \"create/update/delete X\" questions, checks whether such an endpoint exists, "
                              "so the answer can say it does not."),
    ("per-API k", "Multi-API questions get the top results of each API instead of one fixed k."),
    ("confidence gate", "Decides answer / partial / abstain from retrieval similarity, words the docs never use and "
                        "closeness to out-of-scope requests."),
    ("generate", "Writes the answer with numbered citations (structural id + JSON pointer) — an LLM, or the "
                 "extractive generator that quotes the most relevant lines without any model."),
)
BADGES: tuple[tuple[str, str], ...] = (
    ("answered", "the gate was confident (or the config has no gate) and an answer was written"),
    ("partial", "the gate found only part of the evidence; the answer says what is missing"),
    ("abstained", "the configuration declined to answer: the documentation does not cover the question"),
    ("no match", "an answer was written but no documentation line matched the question's terms"),
    ("fell back", "a stage of the configuration could not run here (e.g. no LLM for C4/C5's reranker), so it "
                  "answered as the simpler configuration"),
    ("still indexing", "the chunks this configuration searches are not all embedded yet for some API (a large "
                       "upload's schema chunks, and the naive chunks only C0 searches, are embedded after the spec "
                       "goes live): it answered without them; ask again shortly"),
    ("retrieval only", "no answer generated; the retrieved chunks are shown"),
    ("error", "this configuration failed; the others are unaffected"),
)


# ---------------------------------------------------------------------- setup
def page_setup(title: str) -> None:
    """Page title, the local favicon (an emoji or icon name would be fetched from the internet), wide layout (one
    column per configuration needs the width)."""
    leave_pages_directory_mode()
    st.set_page_config(page_title=f"{title} · {PRODUCT}", page_icon=str(FAVICON), layout="wide")


def leave_pages_directory_mode() -> None:
    """Run under app.py's navigation, never Streamlit's legacy `pages/` directory mode.

    Streamlit runs the first script of a server process in that mode when a `pages/` folder sits beside the
    entry point (its navigation then lists "app", and a page opened by its URL keeps that navigation); app.py's
    `st.navigation` switches it off for good. A page that finds itself in that mode switches it off and runs
    again, through app.py — once per process: Streamlit's AppTest turns the mode back on before every run, where
    a rerun would drop the run's button clicks, so later runs only switch it off.
    """
    global _left_pages_directory_mode
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if not _left_pages_directory_mode:
            _left_pages_directory_mode = True
            st.rerun()


_left_pages_directory_mode = False


@st.cache_resource(show_spinner="Loading the index and the embedding model (once per server)…", max_entries=4)
def _engine(key: str) -> Engine:
    """One engine per key and process, shared by every session (the Engine and Index are thread-safe). It is warmed
    up with throwaway questions in a background thread (started at server start by `python -m webapp.serve`), so
    the page renders at once and the first real question does not pay for loading indexes."""
    engine = build_engine()
    warm_up_once(engine)
    return engine


def get_engine() -> Engine:
    """The app's engine (cached per process and per `engine_key()`)."""
    return _engine(engine_key())


def engine_or_stop() -> Engine:
    """The engine, or a clear error on the page (and the page stops) when the index cannot be opened."""
    try:
        return get_engine()
    except RagError as error:
        st.error(f"The index cannot be opened: {error}")
        st.stop()
    except Exception as error:
        st.error(f"The engine failed to load ({type(error).__name__}: {error}).")
        st.stop()
    raise AssertionError("unreachable")  # st.stop() raises


def configs_or_stop() -> dict[str, Config]:
    """Presets plus the user's configs (RAG_CONFIG_FILE); a bad file is reported and only presets are used."""
    try:
        return known_configs()
    except RagError as error:
        st.warning(f"Your configuration file was not loaded: {error}")
        from rag.config import PRESETS

        return dict(PRESETS)


# ---------------------------------------------------------------------- sidebar
def render_sidebar(engine: Engine | None = None) -> None:
    """The shared sidebar: what is indexed (when the engine is loaded) and "About / how it works"."""
    with st.sidebar:
        if engine is not None:
            try:  # from the registry: the page renders before (and while) the warm-up reads the index
                documents = engine.index.documents()
                chunks = chunk_totals(documents)
                backend = f" ({engine.index.backend})" if engine.index.backend else ""
                st.caption(
                    f"Index: {len(documents)} document(s) · {chunks.get('smart', 0)} smart / "
                    f"{chunks.get('naive', 0)} naive / {chunks.get('docs', 0)} doc chunks · "
                    f"embeddings: {tables.md_escape(engine.index.embedder.name + backend)} · "
                    f"default generator: {tables.md_escape(engine.default_llm)}"
                )
            except Exception as error:  # the sidebar must never break a page
                st.caption(f"Index unavailable: {tables.md_escape(str(error))}")
        render_about()


def render_about() -> None:
    """The "About / how it works" expander: configurations, stages, badges and failure labels."""
    with st.expander("About / how it works", icon=":material/info:"):
        st.markdown(
            "**SpecRAG Workbench** answers questions about API documentation (OpenAPI specs and docs) with "
            "several retrieval-augmented pipelines side by side, and shows the evidence: which chunks each "
            "retrieved, at which rank, with which scores, and why it answered or abstained."
        )
        st.markdown("**Configurations**")
        rows = []
        for name, config in configs_or_stop().items():
            features = [key.replace("_", " ") for key, on in features_of(config).items() if on]
            rows.append(
                {
                    "config": name,
                    "chunks": config.chunking,
                    "retriever": config.retriever,
                    "reranker": config.reranker,
                    "features": ", ".join(features) or "-",
                    "description": config.description,
                }
            )
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        st.markdown("**What each stage does**")
        st.markdown("\n".join(f"- **{name}** — {text}" for name, text in STAGES))
        st.markdown("**Answer badges**")
        st.markdown("\n".join(f"- **{name}** — {text}" for name, text in BADGES))
        st.markdown("**Failure labels (evaluation)**")
        st.markdown("\n".join(f"- `{name}` — {text}" for name, text in FAILURE_MEANINGS.items()
                               if name != ERROR_LABEL))  # a failed configuration is the `error` badge above
        st.caption("Pages: Ask & compare (home) · Documents (upload, browse, delete) · Evaluation (saved runs).")


# ---------------------------------------------------------------------- answers
def code_height(text: str) -> int | str:
    """Long texts scroll inside a fixed-height box; short ones take their own height."""
    return CODE_HEIGHT if text.count("\n") > 14 or len(text) > 1500 else "content"


def render_badge(badge: Badge) -> None:
    """The status badge and its confidence."""
    st.badge(badge.label, icon=badge.icon, color=badge.color)  # type: ignore[arg-type]
    st.caption(badge.detail)


def render_chunk_details(chunk: Chunk, retrieved: RetrievedChunk | None = None) -> None:
    """Both texts of a chunk and every metadata field."""
    st.markdown(f"**{tables.md_escape(tables.structural_label(chunk))}**")
    st.caption("text (what the generator reads)")
    st.code(chunk.text, language=tables.code_language(chunk), wrap_lines=True, height=code_height(chunk.text))
    st.caption("embedding text (what was embedded)")
    embedded = chunk.embedding_text or "(none: the text was embedded)"
    st.code(embedded, language="text", wrap_lines=True, height=code_height(embedded))
    st.caption("metadata")
    st.json(tables.chunk_metadata(chunk, retrieved), expanded=1)


def render_chunk_table(chunks: Sequence[RetrievedChunk], key: str) -> None:
    """The retrieved chunks: a compact list (rank, rank before rerank, the deciding score, the whole structural
    ids) that stays readable in narrow columns, with a chunk picker; the table of every score on demand, where
    selecting a row shows the chunk's full text and metadata."""
    if not chunks:
        st.caption("No chunks retrieved.")
        return
    full = st.toggle("All scores and columns", key=f"{key}-full",
                     help="Vector, BM25, fused and rerank scores, API, kind, title and expansion for every chunk")
    if not full:
        st.markdown("\n".join(tables.compact_chunk_lines(chunks)))
        widget_state.valid_choice(f"{key}-pick", list(range(len(chunks))), None)
        picked = st.pills("Show chunk", list(range(len(chunks))), key=f"{key}-pick",
                          format_func=lambda position: str(chunks[position].rank),
                          help="Its full text (what the generator reads), embedding text and metadata")
        if isinstance(picked, int) and 0 <= picked < len(chunks):
            with st.container(border=True):
                render_chunk_details(chunks[picked].chunk, chunks[picked])
        return
    frame = tables.chunk_frame(chunks)
    event = st.dataframe(
        frame,
        key=key,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        width="stretch",
        placeholder=MISSING,
        column_config={
            "rank": st.column_config.NumberColumn("rank", help="final rank"),
            "decided by": st.column_config.TextColumn(
                "decided by", help="the score that decided the order (it falls with rank), or the stage that placed "
                "the chunk ahead of higher scores"),
            "rank before rerank": st.column_config.NumberColumn("before rerank", help="rank before reranking"),
            "vector": st.column_config.NumberColumn(format="%.3f"),
            "bm25": st.column_config.NumberColumn(format="%.2f"),
            "fused": st.column_config.NumberColumn(format="%.4f"),
            "rerank": st.column_config.NumberColumn(format="%.3f"),
            "chunk id": None,
        },
    )
    _render_picked_chunk(chunks, event)


def _render_picked_chunk(chunks: Sequence[RetrievedChunk], event: Any) -> None:
    """The selected row's chunk in full (or a hint to select one)."""
    rows = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    if rows and 0 <= rows[0] < len(chunks):
        picked = chunks[rows[0]]
        with st.container(border=True):
            render_chunk_details(picked.chunk, picked)
    else:
        st.caption("Select a row to see the chunk's full text and metadata.")


def render_citations(result: AnswerResult, engine: Engine | None) -> None:
    """Each citation (structural id and JSON pointer); opening one shows the cited chunk."""
    if not result.citations:
        return
    st.markdown("**Citations**")
    numbered = [(citation.number or position, citation) for position, citation in enumerate(result.citations, 1)]
    for number, citation in sorted(numbered, key=lambda item: item[0]):  # numbered as the answer cites them
        with st.expander(tables.md_escape(tables.citation_label(number, citation))):
            section = f"section {tables.md_escape(citation.section)} · " if citation.section else ""
            st.caption(f"API {tables.md_escape(citation.api)} · {section}source {tables.md_escape(citation.source)} · "
                       f"structural id `{citation.structural_id}`")
            found = tables.find_cited_chunk(citation, result)
            chunk = found.chunk if found else (engine.index.get_chunk(citation.chunk_id) if engine else None)
            if chunk is None:
                st.caption("The cited chunk is no longer indexed.")
            else:
                st.code(chunk.text, language=tables.code_language(chunk), wrap_lines=True,
                        height=code_height(chunk.text))


def render_rewritten(rewritten: Sequence[str]) -> None:
    """How a follow-up was read (folded, small); nothing for a question that stands on its own."""
    if not rewritten:
        return
    with st.expander("Read as a follow-up", icon=":material/subdirectory_arrow_right:", expanded=False):
        for text in rewritten:
            st.caption(tables.md_escape(text))


CACHED_LABEL = "cached"  # the badge of a stored result (rag.cache): same question, conversation, config and index


def render_result(
    result: AnswerResult,
    config: Config | None,
    key: str,
    engine: Engine | None = None,
    compact: bool = False,
) -> None:
    """One configuration's column: badge, answer, citations, latency and tokens, then its retrieved chunks."""
    gated = config.abstention if config is not None else None
    render_badge(badge_for(result, gated))
    if result.cached:
        st.badge(CACHED_LABEL, icon=":material/cached:", color="gray")
    for error in result.errors:
        st.error(error)
    for fallback in result.fallbacks:
        st.caption(f":orange[Fell back: {tables.md_escape(fallback)}]")
    if result.answer:
        if result.generator:
            st.caption(f"Answer by {tables.md_escape(result.generator)}")
        st.markdown(tables.safe_markdown(result.answer))
        render_request_example(result)
    elif result.retrieval_only and result.ok:
        st.caption("Retrieval only: no answer generated.")
    if compact:
        if result.citations:
            st.caption("Cited: " + "; ".join(tables.md_escape(c.label) for c in result.citations))
        st.caption(f"{result.total_ms:,.0f} ms · {tables.token_summary(result)}")
        return
    render_citations(result, engine)
    st.caption(tables.md_escape(tables.timing_summary(result)))
    st.caption(tables.md_escape(tables.token_summary(result)))
    if result.notes or result.facts or result.detected_apis:
        with st.expander("Pipeline notes"):
            if result.detected_apis:
                st.markdown("Detected APIs: " + ", ".join(f"`{api}`" for api in result.detected_apis))
            for fact in result.facts:
                st.markdown(f"- fact: {tables.md_escape(fact)}")
            for note in result.notes:
                st.markdown(f"- {tables.md_escape(note)}")
    st.markdown("**Retrieved chunks**")
    render_chunk_table(result.chunks, key=f"{key}-chunks")


def fitted_columns(frame: pd.DataFrame) -> dict[str, Any]:
    """column_config entries giving each column of `frame` the width `tables.fitted_widths` asks for."""
    return {column: st.column_config.Column(width=width) for column, width in tables.fitted_widths(frame).items()}


def result_containers(names: Sequence[str]) -> list[Any]:
    """One container per configuration: side-by-side bordered columns for up to MAX_SIDE_BY_SIDE, else a tab
    each (every configuration keeps a readable width)."""
    if len(names) <= MAX_SIDE_BY_SIDE:
        return list(st.columns(len(names), border=True))
    return list(st.tabs([str(name) for name in names]))


def render_results_summary(results: Sequence[AnswerResult]) -> None:
    """The at-a-glance table above the tabs when more configurations answered than fit side by side."""
    if len(results) <= MAX_SIDE_BY_SIDE:
        return
    st.caption(f"{len(results)} configurations: the summary below, each configuration's answer and chunks in its tab.")
    frame = tables.results_summary_frame(results)
    st.dataframe(frame, hide_index=True, width="stretch", placeholder=MISSING,
                 column_config={**fitted_columns(frame),
                                "top structural id": st.column_config.TextColumn(
                                    width=min(tables.text_width(frame["top structural id"], 20), 330)),
                                "fell back": st.column_config.TextColumn(
                                    width=tables.text_width(frame["fell back"], 10)),
                                "ms": st.column_config.NumberColumn("ms", format="%d")})


def render_overlap(results: Sequence[AnswerResult], key: str) -> None:
    """Which structural ids each configuration retrieved at which rank; rows only some found are highlighted."""
    usable = [r for r in results if r.ok]
    if len(usable) < 2:
        return
    names = [r.config for r in usable]
    frame = tables.overlap_frame(usable)
    summary = tables.overlap_summary(frame, names)
    st.markdown("#### Overlap across configurations")
    unique = ", ".join(f"{name}: {count}" for name, count in summary["unique"].items())
    st.caption(
        f"{summary['total']} structural ids retrieved · {summary['all']} found by every configuration · "
        f"{summary['some']} found by only some (◆, highlighted) · only one found them — {unique}"
    )
    st.plotly_chart(charts.overlap_figure(frame, names), key=f"{key}-overlap-fig", width="stretch")
    st.dataframe(tables.overlap_styler(frame), hide_index=True, width="stretch", key=f"{key}-overlap-table",
                 placeholder=MISSING)


# ---------------------------------------------------------------------- background jobs
def render_jobs(job_ids: Sequence[str], key: str) -> list[Job]:
    """Progress of this session's background jobs; refreshes itself every second while one runs."""
    current = [job for job in (get_job(i) for i in job_ids) if job is not None]
    if not current:
        return []
    active = any(job.active for job in current)

    def panel() -> None:
        seen: set[str] = st.session_state.setdefault(f"{key}-finished", set())
        finished_now = False
        for job in (get_job(i) for i in job_ids):
            if job is None:
                continue
            if job.active:
                st.progress(job.fraction, text=job.progress_text())
            elif job.status == "done":
                where = f" → {job.run_dir.name}" if job.run_dir else ""
                st.success(f"{job.label}: finished in {job.elapsed:.0f} s{where}")
            else:
                st.error(f"{job.label}: failed — {job.error}")
                if job.details:
                    with st.expander("Details"):
                        st.code(job.details, language="text")
            if not job.active and job.id not in seen:
                seen.add(job.id)
                finished_now = active
        if finished_now:
            st.rerun(scope="app")

    st.fragment(panel, run_every=1.0 if active else None)()
    return current


def submit_typed() -> None:
    """The question box's submit callback: an acceptable question is moved out of the box to be asked; a refused
    one stays in the box, with the reason shown below it."""
    from rag.runner import clean_question
    from webapp.asking import ASK_TEXT_KEY, PENDING_KEY, REFUSED_KEY

    text = str(st.session_state.get(ASK_TEXT_KEY) or "")
    try:
        question = clean_question(text)
        if not st.session_state.get("ask_configs"):
            raise RagError("choose at least one configuration above")
    except RagError as error:
        st.session_state[REFUSED_KEY] = f"Not asked: {error}. Your text is still in the box."
        return
    st.session_state[PENDING_KEY] = question
    st.session_state[ASK_TEXT_KEY] = ""


def submit_example(question: str) -> None:
    """An example button's callback: ask `question` in a conversation of its own (the one before it stays among
    the recent conversations; whatever is typed in the box stays there)."""
    from webapp.asking import PENDING_KEY
    from webapp.conversations import start_new_conversation

    if st.session_state.get("turns"):
        start_new_conversation(st.session_state, st.query_params)
    st.session_state[PENDING_KEY] = question


def conversation_label(saved: Any, width: int = 44) -> str:
    """A recent conversation's button: its first question (cut to `width` characters) and how many it holds."""
    text = saved.first_question if len(saved.first_question) <= width else saved.first_question[: width - 1] + "…"
    more = f" (+{saved.questions - 1})" if saved.questions > 1 else ""
    return text + more


def open_saved_conversation(conversation_id: str) -> None:
    """A recent conversation's callback: open it (its turns are read back on this run)."""
    from webapp.conversations import switch_to

    switch_to(st.query_params, conversation_id)


def selected_row(event: Any) -> int | None:
    """The selected row of a dataframe event (None when nothing is selected)."""
    rows = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    return int(rows[0]) if rows else None


def config_caption(configs: Mapping[str, Config], names: Sequence[str]) -> str:
    """`C0: naive JSON chunks + vector · …` for the chosen configurations."""
    return " · ".join(
        f"**{tables.md_escape(name)}**: {tables.md_escape(configs[name].description or '')}"
        for name in names
        if name in configs
    )


def progress_bar(text: str) -> Callable[[float, str], None]:
    """A progress bar showing `text`, and the callback that moves it (a fraction, clamped to 1, and its text)."""
    bar = st.progress(0.0, text=text)
    return lambda fraction, label: bar.progress(min(1.0, fraction), text=label)
