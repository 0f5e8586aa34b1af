"""Change chunks: what changed between an API's two newest versions, indexed so questions about it are answered.

One overview chunk per API (`lms.changes`: operations removed and added, the breaking changes, schemas) and one
chunk per operation that was removed, added or changed (`lms.changes.paths./unified/lms/courses.put`). They
form a document of type `changes` that belongs to the newest version: questions search it with that version,
and it is rebuilt whenever a version of the API is added, replaced or deleted. With three versions or more
there is one such document per older version, each compared with the newest; a question naming an older
version ("since 2025-02") searches that one, others the one from the version before the newest.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rag.chunk import Chunk, operation_id
from rag.index.registry import DocumentRecord
from rag.index.versions import CHANGES_TYPE, changes_source, versions_of
from rag.ingest.pipeline import ParsedDocument
from rag.ingest.spec import iter_operations
from rag.tokens import estimate_tokens
from rag.versions.diff import diff_documents
from rag.versions.spec_diff import Change, SpecDiff

SHOWN = 12  # operations or changes named per line of the overview before "and N more"
CHANGES_FORMAT = "3"  # bump when change chunks change: an index then rebuilds them on the next ingest


def changes_id(api: str) -> str:
    """Structural id of an API's change overview: `{api}.changes`."""
    return f"{api}.changes"


def operation_changes_id(api: str, path: str, method: str) -> str:
    """Structural id of one operation's changes: `{api}.changes.paths.{path}.{method}`."""
    return f"{api}.changes.paths.{path}.{method.lower()}"


def _summaries(document: dict[str, Any]) -> dict[str, str]:
    """`METHOD /path` → the operation's summary (or operationId)."""
    found: dict[str, str] = {}
    for operation in iter_operations(document):
        summary = operation.node.get("summary") or operation.node.get("operationId") or ""
        found[f"{operation.method.upper()} {operation.path}"] = str(summary).strip()
    return found


def _named(label: str, summaries: dict[str, str]) -> str:
    summary = summaries.get(label, "")
    return f"{label} ({summary})" if summary else label


def _listing(labels: list[str], summaries: dict[str, str]) -> str:
    shown = ", ".join(_named(label, summaries) for label in labels[:SHOWN])
    return shown + (f", and {len(labels) - SHOWN} more" if len(labels) > SHOWN else "")


def _chunk(api: str, source: str, covers: str, title: str, lines: list[str], refs: tuple[str, ...] = (),
           path: str = "", method: str = "", action: str = "") -> Chunk:
    text = "\n".join(lines)
    return Chunk(
        chunk_id=covers, strategy="smart", api=api, kind="change", text=text,
        embedding_text=(title + "\n" + text)[:1200], covers=(covers,), source=source, path=path,
        method=method.lower(), ref_ids=refs, tokens=estimate_tokens(text), title=title,
        tags=(action,) if action else (),
    )


def change_chunks(diff: SpecDiff, old: dict[str, Any], new: dict[str, Any], title: str, source: str) -> list[Chunk]:
    """The overview chunk and one chunk per removed, added or changed operation of one diff."""
    api, was, now = diff.api, diff.old_label, diff.new_label
    old_names, new_names = _summaries(old), _summaries(new)
    names = {**old_names, **new_names}
    counts = diff.summary()
    removed, added = diff.removed_operations, diff.added_operations
    heading = f"What changed in the {title} API ({api}) since version {was}: version {now} compared with {was}"
    lines = [heading + "."]
    lines.append(f"Removed operations ({len(removed)}, breaking: no longer available in {now}): "
                 + (_listing(removed, old_names) if removed else "none") + ".")
    lines.append(f"Added operations ({len(added)}, new endpoints in {now}): "
                 + (_listing(added, new_names) if added else "none") + ".")
    lines.append(f"Changed operations: {counts['operations_changed']}; {counts['changes']} changes in all, "
                 f"{counts['breaking']} of them breaking.")
    breaking = [c for c in diff.changes if c.breaking and c.kind != "operation"]
    if breaking:
        lines.append("Breaking changes: " + "; ".join(_where(c) for c in breaking[:SHOWN])
                     + (f"; and {len(breaking) - SHOWN} more" if len(breaking) > SHOWN else "") + ".")
    for action, schemas in (("added", list(diff.schemas_added)), ("removed", list(diff.schemas_removed))):
        if schemas:
            lines.append(f"Schemas {action} ({len(schemas)}): " + ", ".join(schemas[:SHOWN * 2])
                         + (", …" if len(schemas) > SHOWN * 2 else "") + ".")
    for change in diff.of_kind("security-scheme"):
        lines.append(f"Security scheme {change.message}.")
    chunks = [_chunk(api, source, changes_id(api), f"{title} API changes from {was} to {now}", lines)]
    per_operation: dict[str, list[Change]] = {}
    for change in diff.changes:
        for label in change.operations:
            per_operation.setdefault(label, []).append(change)
    for label, changes in per_operation.items():
        chunks.append(_operation_chunk(api, source, title, label, changes, names.get(label, ""), was, now))
    return chunks


def _where(change: Change) -> str:
    more = f" +{len(change.operations) - 2} more" if len(change.operations) > 2 else ""
    used = f" (in {', '.join(change.operations[:2])}{more})" if change.operations and change.kind != "operation" else ""
    return change.message + used


def _operation_chunk(api: str, source: str, title: str, label: str, changes: list[Change], summary: str,
                     was: str, now: str) -> Chunk:
    method, path = label.split(" ", 1)
    named = f"{label} ({summary})" if summary else label
    kinds = {c.action for c in changes if c.kind == "operation" and c.name == label}
    action = "removed" if "removed" in kinds else "added" if "added" in kinds else "changed"
    # Line 0 is the heading a reader sees first (and the generator shows as the block's header); the facts follow.
    if "removed" in kinds:
        lines = [f"{named}: removed in version {now} of the {title} API",
                 f"{named} was removed from the {title} API in version {now}; it existed in {was}. "
                 "It is no longer available: a breaking change."]
        heading = f"{title}: {label} removed in {now}"
    elif "added" in kinds:
        lines = [f"{named}: added in version {now} of the {title} API",
                 f"{named} was added to the {title} API in version {now}: a new endpoint, not in {was}."]
        heading = f"{title}: {label} added in {now}"
    else:
        breaking = sum(c.breaking for c in changes)
        lines = [f"{named}: changed in version {now} of the {title} API ({len(changes)} changes, {breaking} breaking)",
                 f"{named} changed in the {title} API from version {was} to {now}: {len(changes)} changes, "
                 f"{breaking} breaking."]
        lines += [("Breaking: " if c.breaking else "") + c.message + "." for c in changes]
        heading = f"{title}: {label} changed in {now}"
    return _chunk(api, source, operation_changes_id(api, path, method), heading, lines,
                  (operation_id(api, path, method),), path, method, action)


def changes_document(diff: SpecDiff, old: dict[str, Any], new: dict[str, Any], old_record: DocumentRecord,
                     new_record: DocumentRecord, source: str = "") -> ParsedDocument:
    """The `changes` document of two versions (the newest and an older one), ready for `Index.add`; its
    `spec_version` is the older version's label (the version a question asks "since")."""
    source = source or changes_source(diff.api)
    title = new_record.title or diff.api
    chunks = tuple(change_chunks(diff, old, new, title, source))
    return ParsedDocument(source=source, api=diff.api, doc_type=CHANGES_TYPE,
                          content_hash=pair_hash(old_record, new_record), chunks=chunks,
                          size_bytes=0, title=f"Changes in {title} from {diff.old_label} to {diff.new_label}",
                          api_version=new_record.api_version, spec_version=old_record.api_version)


def pair_hash(old_record: DocumentRecord, new_record: DocumentRecord) -> str:
    """The content hash of the changes document of two versions: it changes with either version or the format."""
    return hashlib.sha256(f"{old_record.version}\x00{new_record.version}\x00{CHANGES_FORMAT}".encode()).hexdigest()


def refresh_changes(index: Any, api: str) -> None:
    """Rebuild the `changes` documents of one API after its versions changed: one per older version, each
    compared with the newest (`{api}.changes` from the version before the newest, `{api}.changes@LABEL` from
    older ones), none when it has one version; documents of pairs that no longer exist are deleted (and an
    older version whose spec was not kept has none)."""
    records = index.registry.documents()
    versions = versions_of(records, api)
    current = {r.source: r for r in records if r.api == api and r.doc_type == CHANGES_TYPE}
    newest = versions[-1] if versions else None
    new = index.spec_of(newest) if newest is not None and len(versions) > 1 else None
    wanted = {changes_source(api, "" if position == len(versions) - 2 else older.api_version): older
              for position, older in enumerate(versions[:-1])} if new is not None else {}
    for source in set(current) - set(wanted):
        index.delete(source)
    if newest is None or new is None:
        return
    for source, older in wanted.items():
        if source in current and current[source].content_hash == pair_hash(older, newest):
            continue  # the same two versions compared already: nothing to diff again
        old = index.spec_of(older)
        if old is None:
            if source in current:
                index.delete(source)
            continue
        diff = diff_documents(old, new, api, older.api_version, newest.api_version)
        index.add(changes_document(diff, old, new, older, newest, source), on_duplicate="replace")
