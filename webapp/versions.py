"""Versions in the app: an upload of an API that is already indexed, added as a new version, and its diff."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from rag.config import set_aside_parts
from rag.errors import RagError
from rag.index.registry import DocumentRecord
from rag.index.store import Index, IngestReport
from rag.index.versions import versions_by_api, versions_of
from rag.ingest.loader import SPEC_EXTENSIONS, load_openapi
from rag.ingest.pipeline import parse_document
from rag.ingest.spec import api_name_from_source
from rag.versions.compare import diff_sides
from rag.versions.diff import SpecDiff

CHANGE_COLUMNS = ["level", "check", "kind", "action", "name", "attribute", "old", "new", "operations"]
DIFF_PARAM = "diff"  # the URL query parameter that reopens a diff: `?diff=lms@2025-02..lms@1.0.0`


@dataclass(frozen=True)
class KnownUpload:
    """An uploaded spec whose API is already indexed: its versions and a label for the new one (its own
    `info.version`; "" when that is missing or already taken, so the form asks for one)."""

    name: str
    api: str
    versions: tuple[str, ...]
    suggested: str


def known_uploads(index: Index, files: Sequence[tuple[str, bytes]]) -> list[KnownUpload]:
    """The uploaded specs whose API already has an indexed version (a file that does not parse is left to the
    ordinary upload, which names its problem)."""
    by_api = versions_by_api(index.documents())
    found: list[KnownUpload] = []
    for name, data in files:
        api = api_name_from_source(name)
        if not name.lower().endswith(SPEC_EXTENSIONS) or api not in by_api:
            continue
        try:
            info = load_openapi(name, data).get("info") or {}
        except RagError:  # the ordinary upload names the problem
            continue
        labels = tuple(r.api_version for r in by_api[api])
        suggested = str(info.get("version") or "") if isinstance(info, dict) else ""
        if suggested in labels:
            suggested = ""
        found.append(KnownUpload(name, api, labels, suggested))
    return found


def add_version(index: Index, name: str, data: bytes, label: str) -> tuple[IngestReport, SpecDiff]:
    """Index `data` as version `label` of its API beside the indexed ones, and diff it with its neighbour: the
    version before it (or, when it is older than every indexed one, the newest)."""
    if not label.strip():
        raise ValueError("give the new version a label, e.g. 2025-02")
    report = index.add(parse_document(name, data, version=label.strip()), on_duplicate="reject",
                       defer=set_aside_parts())  # embedded in the background afterwards (webapp.engine)
    versions = versions_of(index.documents(), report.api)
    position = next(i for i, r in enumerate(versions) if r.api_version == label.strip())
    old, new = (versions[position - 1], versions[position]) if position > 0 else (versions[0], versions[-1])
    return report, diff_sides(f"{report.api}@{old.api_version}", f"{report.api}@{new.api_version}", index)


def changes_frame(diff: SpecDiff, breaking_only: bool = False, operations: Sequence[str] = ()) -> pd.DataFrame:
    """One row per change (errors first, as the diff orders them), optionally only errors or those of some
    operations; values are whole (the table wraps them)."""
    rows: list[dict[str, Any]] = []
    for change in diff.changes:
        if breaking_only and not change.breaking:
            continue
        if operations and not set(operations) & set(change.operations):
            continue
        rows.append({
            "level": change.level, "check": change.check, "kind": change.kind, "action": change.action,
            "name": change.name, "attribute": change.attribute, "old": change.old, "new": change.new,
            "operations": ", ".join(change.operations),
        })
    return pd.DataFrame(rows, columns=CHANGE_COLUMNS)


def changed_operations(diff: SpecDiff) -> list[str]:
    """Every operation some change names (the filter's choices), in order."""
    return list(dict.fromkeys(label for change in diff.changes for label in change.operations))


def version_choices(records: Sequence[DocumentRecord]) -> list[str]:
    """"" (the newest of each API) and `api@label` of every older version of an API with several."""
    return [""] + [f"{api}@{r.api_version}" for api, versions in versions_by_api(records).items()
                   if len(versions) > 1 for r in reversed(versions[:-1])]


def what_changed_question(diff: SpecDiff) -> str:
    """The question the "ask about it" link asks."""
    return f"What changed in the {diff.api.upper()} API since the {diff.old_label} version?"


def change_details(row: dict[str, Any]) -> str:
    """Markdown of one row of `changes_frame`: every value whole, the operations one per line."""
    lines = [f"**{row['level']}** `{row['check']}` — {row['kind']} `{row['name']}` {row['action']}"]
    if row["attribute"]:
        lines.append(f"- {row['attribute']}: `{row['old'] or '(none)'}` → `{row['new'] or '(none)'}`")
    lines += [f"- `{operation}`" for operation in str(row["operations"]).split(", ") if operation]
    return "\n".join(lines)


def diff_param(diff: SpecDiff) -> str:
    """The URL value that reopens a diff of two indexed versions: `lms@2025-02..lms@1.0.0`."""
    return f"{diff.api}@{diff.old_label}..{diff.api}@{diff.new_label}"


def reopen_diff(index: Any, value: str) -> SpecDiff | None:
    """The diff a URL names (`diff_param`), None when the value is malformed or names no indexed version."""
    old, sep, new = value.partition("..")
    if not sep or "@" not in old or "@" not in new:
        return None
    try:
        return diff_sides(old, new, index)
    except RagError:
        return None


def render_diff(diff: SpecDiff) -> None:
    """The diff of two versions: counts, a filterable table of changes (values wrap; each column explains
    itself), and a link to ask about it. The URL names the diff, so a reload reopens it."""
    import streamlit as st

    from webapp import ui
    from webapp.asking import RERUN_KEY

    counts = diff.summary()
    with st.container(border=True, key="version_diff"):
        st.markdown(f"**What changed in `{diff.api}`: {diff.old_label} → {diff.new_label}**")
        columns = st.columns(4)
        columns[0].metric("Operations added", counts["operations_added"])
        columns[1].metric("Operations removed", counts["operations_removed"])
        columns[2].metric("Operations changed", counts["operations_changed"])
        columns[3].metric("Errors (breaking)", counts["error"],
                          help=f"of {counts['changes']} changes: {counts['warning']} warnings, {counts['info']} info")
        left, right = st.columns([1, 3], vertical_alignment="bottom")
        breaking_only = left.toggle("Errors only", key="diff_breaking_only")
        operations = right.multiselect("Operations", changed_operations(diff), key="diff_operations",
                                       placeholder="every operation")
        frame = changes_frame(diff, breaking_only, operations)
        st.caption(f"{len(frame)} of {counts['changes']} change(s)")
        text = st.column_config.TextColumn
        picked = st.dataframe(frame, hide_index=True, width="stretch", key="diff_table", row_height=60,
                              on_select="rerun", selection_mode="single-row", column_config={
            "level": text("level", width="small", help="error: breaks clients; warning: may break them; info"),
            "check": text("check", help="the check id (as oasdiff names it); an ignore file lists ids to leave out"),
            "name": text("name", width="medium", help="the field (Schema.field), parameter, response or operation"),
            "old": text("old", width="medium", help="the old version's value (whole; hover to read a long one)"),
            "new": text("new", width="medium", help="the new version's value"),
            "operations": text("operations", width="large", help="every operation the change affects"),
        })
        rows = picked.selection.rows if picked is not None and hasattr(picked, "selection") else []
        if rows:  # the whole change, however long its values: click a row to read it
            st.markdown(change_details(frame.iloc[rows[0]].to_dict()))
        else:
            st.caption("Click a row to read the whole change.")
        st.query_params[DIFF_PARAM] = diff_param(diff)
        question = what_changed_question(diff)
        if st.button(f"Ask: {question}", icon=":material/forum:", key="ask_what_changed"):
            # one question with `full`; the home page's own choice of configurations is left as it was
            st.session_state[RERUN_KEY] = {"question": question, "configs": ["full"], "once": True}
            st.switch_page(ui.HOME_PAGE)
