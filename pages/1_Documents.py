"""Documents: upload specs and docs, see what is indexed, browse chunks, delete, make a test set."""

from __future__ import annotations

import streamlit as st

from rag.config import set_aside_parts
from rag.errors import RagError
from rag.index.store import DUPLICATE_POLICIES, IngestReport
from rag.index.versions import chunk_totals
from webapp import tables, ui, widget_state
from webapp.documents import (
    ALLOW_PRIVATE_LABEL,
    DUPLICATE_QUESTION,
    POLICY_LABELS,
    UPLOAD_LABEL,
    crawl_into,
    crawl_lines,
    ingest_spec_url,
    ingest_uploads,
    pending_note,
    report_frame,
    report_line,
)
from webapp.engine import default_config_names, warm_up_in_background
from webapp.eval_jobs import TEST_SET_SIZE, start_test_set
from webapp.versions import DIFF_PARAM, add_version, known_uploads, render_diff, reopen_diff

ui.page_setup("Documents")
engine = ui.engine_or_stop()
index = engine.index
ui.render_sidebar(engine)
known = ui.configs_or_stop()

st.title("Documents")
st.caption("Index OpenAPI specs and documentation, browse what each was split into, and remove documents.")

# ---------------------------------------------------------------------- upload
st.subheader("Upload", anchor=False)
uploader_round = st.session_state.setdefault("upload_round", 0)
files = st.file_uploader(  # any type: a file that cannot be indexed gets a message saying why, not just an icon
    UPLOAD_LABEL,
    accept_multiple_files=True,
    key=f"uploads-{uploader_round}",
)
# A spec whose API is already indexed can be kept beside the indexed versions; its diff is shown at once.
for known_upload in known_uploads(index, [(upload.name, upload.getvalue()) for upload in files or []]):
    with st.container(border=True):
        st.markdown(f"**{tables.md_escape(known_upload.name)}**: the API `{known_upload.api}` is already indexed "
                    f"(version {', '.join(known_upload.versions)}). Add it as a new version to keep both and see "
                    "what changed, or index it below to replace the indexed one.")
        left, right = st.columns([2, 1], vertical_alignment="bottom")
        label = left.text_input("Version label", value=known_upload.suggested, key=f"version_label-{known_upload.name}",
                                placeholder="the spec's info.version is taken or missing: name this version",
                                help="proposed: the spec's own info.version. Versions are ordered by their labels "
                                "when they are dates (2025-02) or semantic versions (1.2.0), else by the specs' "
                                "info.version, then by when they were indexed; questions search the newest")
        if right.button("Add as a new version", icon=":material/difference:", key=f"add_version-{known_upload.name}"):
            upload = next(u for u in files or [] if u.name == known_upload.name)
            try:
                with st.spinner(f"Indexing {known_upload.name} as version {label} and comparing…", show_time=True):
                    report, diff = add_version(index, upload.name, upload.getvalue(), label)
            except (RagError, ValueError) as error:
                st.error(str(error))
            else:
                warm_up_in_background(engine)  # the next question finds the new version's index ready
                st.session_state["version_diff"] = diff
                st.session_state["ingest_reports"] = [report]
                st.session_state["upload_round"] = uploader_round + 1
                st.rerun()
if st.session_state.get("version_diff") is None and st.query_params.get(DIFF_PARAM):
    st.session_state["version_diff"] = reopen_diff(index, st.query_params[DIFF_PARAM])  # a reload reopens it
if st.session_state.get("version_diff") is not None:
    render_diff(st.session_state["version_diff"])
widget_state.valid_choice("duplicate_policy", list(DUPLICATE_POLICIES), DUPLICATE_POLICIES[0])
policy = st.radio(
    DUPLICATE_QUESTION,
    DUPLICATE_POLICIES,
    index=0,
    horizontal=True,
    key="duplicate_policy",
    format_func=POLICY_LABELS.__getitem__,
)
count = len(files or [])
if st.button(f"Index {count} file(s)" if count else "Index files", type="primary", disabled=not count,
             icon=":material/upload:", key="index_button"):
    progress = ui.progress_bar("Starting…")
    with st.spinner("Indexing…", show_time=True):
        reports = ingest_uploads(
            index,
            [(upload.name, upload.getvalue()) for upload in files or []],
            policy,  # type: ignore[arg-type]
            progress=progress,
            defer=set_aside_parts(),  # schemas, then C0's naive chunks: embedded in the background after the warm-up
        )
    if any(report.status in ("added", "replaced") for report in reports):
        warm_up_in_background(engine)  # the next question finds the new documents' index ready
    st.session_state["ingest_reports"] = reports
    st.session_state["upload_round"] = uploader_round + 1  # a fresh, empty uploader
    st.rerun()


def show_reports(title: str, reports: list[IngestReport]) -> None:
    """What an upload or a fetch did: a line per document, the table, a link to ask about it."""
    with st.container(border=True):
        st.markdown(f"**{title}**")
        for report in reports:
            line = tables.md_escape(report_line(report))
            if report.status in ("added", "replaced"):
                st.success(line, icon=":material/check_circle:")
            elif report.status == "skipped":
                st.info(line, icon=":material/skip_next:")
            else:
                st.error(line, icon=":material/error:")
        st.dataframe(report_frame(reports), hide_index=True, width="stretch")
        if any(r.status in ("added", "replaced") for r in reports):
            st.page_link(ui.HOME_PAGE, label="Ask about it on the home page", icon=":material/forum:")


if st.session_state.get("ingest_reports"):
    show_reports("Last upload", st.session_state["ingest_reports"])

# ---------------------------------------------------------------------- a spec by URL
st.subheader("Add a spec by URL", anchor=False)
st.caption("Fetches an OpenAPI 3.x or Swagger 2.0 spec (or a .zip of a spec split over files) and indexes it under "
           "its URL. Fetching it again adds a new version when the spec changed, and says unchanged otherwise.")
left, right = st.columns([3, 1], vertical_alignment="bottom")
spec_url = left.text_input("Spec URL", placeholder="https://api.example.com/openapi.json", key="spec_url")
spec_private = st.checkbox(ALLOW_PRIVATE_LABEL, value=False, key="spec_url_allow_private",
                           help="Refused by default: a spec on this machine or your network (localhost, 10.x, "
                           "192.168.x, 169.254.x) is fetched only when this is ticked")
if right.button("Fetch and index", icon=":material/cloud_download:", disabled=not (spec_url or "").strip(),
                key="spec_url_button"):
    progress = ui.progress_bar("Fetching…")
    with st.spinner("Fetching and indexing…", show_time=True):
        report = ingest_spec_url(index, spec_url, spec_private, progress=progress,
                                 defer=set_aside_parts())  # schemas, C0's naive chunks: embedded in the background
    if report.status in ("added", "replaced"):
        warm_up_in_background(engine)
    st.session_state["spec_url_reports"] = [report]
    st.rerun()
if st.session_state.get("spec_url_reports"):
    show_reports("Last spec by URL", st.session_state["spec_url_reports"])

# ---------------------------------------------------------------------- documentation site
st.subheader("Add a documentation site", anchor=False)
st.caption("Indexes the pages under the URL's host and folder (its sitemap.xml, else canonical, next and in-folder "
           "links; robots.txt obeyed) as one API, each page under its URL. Crawling it again re-indexes only the "
           "pages that changed and removes those that are gone.")
left, middle, right = st.columns([3, 2, 1], vertical_alignment="bottom")
site_url = left.text_input("Documentation site URL", placeholder="https://docs.example.com/api/", key="crawl_url")
site_name = middle.text_input("API name (optional)", placeholder="the site's host", key="crawl_name",
                              help="The API the site's pages are indexed as; empty: the site's host (docs-example-com)")
max_pages = right.number_input("Pages at most", min_value=1, max_value=2000, value=200, step=50,
                               key="crawl_max_pages")
allow_private = st.checkbox(ALLOW_PRIVATE_LABEL, value=False, key="crawl_allow_private",
                            help="Refused by default: a site on this machine or your network (localhost, 10.x, "
                            "192.168.x, 169.254.x) is crawled only when this is ticked")
if st.button("Crawl and index", icon=":material/travel_explore:", disabled=not (site_url or "").strip(),
             key="crawl_button"):
    progress = ui.progress_bar("Reading robots.txt and the sitemap…")
    try:
        with st.spinner("Crawling…", show_time=True):
            crawled = crawl_into(index, site_url, int(max_pages), allow_private, progress=progress,
                                 name=site_name or "")
    except RagError as error:
        st.session_state["crawl_error"] = str(error)
        st.session_state.pop("crawl_report", None)
    else:
        st.session_state["crawl_report"] = crawled
        st.session_state.pop("crawl_error", None)
    st.rerun()
if st.session_state.get("crawl_error"):
    st.error(st.session_state["crawl_error"], icon=":material/error:")
crawl_report = st.session_state.get("crawl_report")
if crawl_report is not None:
    with st.container(border=True):
        st.markdown("**Last crawl**")
        st.caption(tables.md_escape(crawl_report.summary()))
        for level, line in crawl_lines(crawl_report):
            getattr(st, level)(tables.md_escape(line))
        if crawl_report.skipped:
            with st.expander(f"{len(crawl_report.skipped)} URL(s) skipped", icon=":material/block:"):
                st.dataframe([{"url": url, "why": why} for url, why in sorted(crawl_report.skipped.items())],
                             hide_index=True, width="stretch")

# ---------------------------------------------------------------------- indexed documents
st.subheader("Indexed documents", anchor=False)
records = index.documents()
if not records:
    st.info("Nothing is indexed yet. Upload specs or docs above.")
    st.stop()
frame = tables.documents_frame(records)
a, b, c = st.columns(3)
a.metric("Documents", len(records))
counts = chunk_totals(records)  # from the registry: no pass over the index
b.metric("Chunks (smart / naive / docs)", " / ".join(str(counts.get(k, 0)) for k in ("smart", "naive", "docs")))
c.metric("Embedding model", index.embedder.name + (f" ({index.backend})" if index.backend else ""))
st.dataframe(frame, hide_index=True, width="stretch", key="documents_table")
if note := pending_note(index):
    st.info(note, icon=":material/hourglass_top:")

sources = [record.source for record in records]
with st.container(border=True):
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    widget_state.valid_choice("delete_source", sources, None)
    to_delete = left.selectbox("Delete a document", sources, index=None, placeholder="Choose a document…",
                               key="delete_source")
    confirm = right.button("Delete", icon=":material/delete:", disabled=to_delete is None, key="delete_button")
    if confirm and to_delete:
        with st.spinner(f"Deleting {to_delete}…"):
            removed = index.delete(to_delete)
        st.session_state["deleted_message"] = (
            f"Deleted {to_delete}." if removed else f"{to_delete} was not indexed any more."
        )
        st.session_state.pop("delete_source", None)
        st.rerun()
    if st.session_state.get("deleted_message"):
        st.success(st.session_state.pop("deleted_message"))

# ---------------------------------------------------------------------- browse chunks
st.subheader("Browse chunks", anchor=False)
left, right = st.columns([3, 2], vertical_alignment="bottom")
widget_state.valid_choice("browse_source", sources, sources[0])
source = left.selectbox("Document", sources, key="browse_source")
record = next(r for r in records if r.source == source)
strategies = ["all", *sorted(record.chunk_counts)]
widget_state.valid_choice("browse_strategy", strategies, "all")
strategy = right.segmented_control("Chunking", strategies, default="all", key="browse_strategy") or "all"
snapshot = index.snapshot()
chunks = tables.document_chunks(snapshot.chunks.values(), source, None if strategy == "all" else strategy)
st.caption(
    f"{len(chunks)} chunk(s) of {tables.md_escape(source)} (API `{record.api}`, {record.doc_type}). "
    "Select a row to see both texts and every metadata field."
)
event = st.dataframe(
    tables.document_chunks_frame(chunks),
    hide_index=True,
    width="stretch",
    on_select="rerun",
    placeholder=ui.MISSING,
    selection_mode="single-row",
    key=f"chunks-{source}-{strategy}",
    column_config={"chunk id": None},
)
picked = ui.selected_row(event)
if chunks:
    chosen_chunk = chunks[picked if picked is not None and picked < len(chunks) else 0]
    with st.container(border=True):
        if picked is None:
            st.caption("Showing the first chunk; select a row to see another.")
        ui.render_chunk_details(chosen_chunk)

# ---------------------------------------------------------------------- test set
st.subheader("Test this document", anchor=False)
job_ids: list[str] = st.session_state.setdefault("testset_jobs", [])
if record.doc_type != "openapi":
    st.caption("Test sets are generated from OpenAPI specs; choose a spec above to make one.")
else:
    st.caption(
        f"Generates up to {TEST_SET_SIZE} questions about `{record.api}` (endpoints, parameters, schemas, auth, "
        "write checks, out-of-scope) and evaluates configurations on them in the background — you can keep "
        "using the app meanwhile."
    )
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    widget_state.valid_choices("testset_configs", list(known))
    chosen = left.multiselect("Configurations", list(known), default=default_config_names(known),
                              key="testset_configs")
    retrieval_only = right.toggle("Retrieval only", value=True, key="testset_retrieval_only",
                                  help="Fast: measures retrieval and abstention without generating answers")
    if st.button("Make a test set for this spec and run it", disabled=not chosen, key="testset_start",
                   icon=":material/science:"):
        job = start_test_set(engine, record.api, [known[n] for n in chosen], retrieval_only)
        job_ids.append(job.id)
        st.rerun()
finished = ui.render_jobs(job_ids, key="testset")
done = [job for job in finished if job.status == "done" and job.run_dir is not None]
if done:
    st.session_state["eval_preselect"] = [job.run_dir.name for job in done if job.run_dir]
    st.page_link(ui.EVALUATION_PAGE, label="Open the results on the Evaluation page", icon=":material/monitoring:")
