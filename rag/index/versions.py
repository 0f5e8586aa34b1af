"""Which versions of each API an index keeps, which is the newest, and which a question searches.

An OpenAPI document is one version of its API, labelled (`2025-02`, `1.0.0`); several versions of one API
live side by side. Versions are ordered by the date their label names (`2025-02`, `2025-12-01`), else by the
day they were ingested, then by ingest time; the newest is what questions search unless a version is pinned
(`2025-02` for every API that has it, `lms@2025-02` for one). The chunks of a pair's changes (a document of
type `changes`) belong to the newest version and are searched with it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence

from rag.errors import ConfigError
from rag.index.registry import DocumentRecord

_DATE_LABEL = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")
CHANGES_TYPE = "changes"


def order_key(record: DocumentRecord) -> tuple[str, float]:
    """Sort key of a version: the date its label names (`2025-02` → 2025-02-01), else its ingest day."""
    match = _DATE_LABEL.match(record.api_version)
    if match:
        day = f"{match.group(1)}-{match.group(2)}-{match.group(3) or '01'}"
    else:
        day = time.strftime("%Y-%m-%d", time.gmtime(record.ingested_at or time.time()))
    return day, record.ingested_at


def versions_of(records: Iterable[DocumentRecord], api: str) -> list[DocumentRecord]:
    """The OpenAPI versions of one API, oldest first."""
    return sorted((r for r in records if r.api == api and r.doc_type == "openapi"), key=order_key)


def versions_by_api(records: Iterable[DocumentRecord]) -> dict[str, list[DocumentRecord]]:
    """Every API's OpenAPI versions, oldest first."""
    records = list(records)
    return {api: versions_of(records, api) for api in sorted({r.api for r in records if r.doc_type == "openapi"})}


def parse_pin(pin: str) -> tuple[str, str]:
    """`lms@2025-02` → (lms, 2025-02); `2025-02` → ("", 2025-02)."""
    api, _, label = pin.strip().rpartition("@")
    return api.strip(), label.strip()


def visible_records(records: Sequence[DocumentRecord], pin: str = "") -> list[DocumentRecord]:
    """The documents a question searches: docs, one version of each API (the pinned one, else the newest)
    and the changes of an API whose newest version is searched. ConfigError when the pin names no version."""
    api_pin, label = parse_pin(pin) if pin else ("", "")
    by_api = versions_by_api(records)
    if pin:
        apis = [api_pin] if api_pin else list(by_api)
        if api_pin and api_pin not in by_api:
            raise ConfigError(f"api_version={pin!r}: no API {api_pin!r} is indexed; indexed: {', '.join(by_api)}")
        if not any(r.api_version == label for api in apis for r in by_api[api]):
            known = sorted({f"{api}@{r.api_version}" for api in apis for r in by_api[api]})
            raise ConfigError(f"api_version={pin!r} is not an indexed version; indexed: {', '.join(known)}")
    chosen: dict[str, DocumentRecord] = {}
    for api, versions in by_api.items():
        pinned = [r for r in versions if r.api_version == label and (not api_pin or api == api_pin)]
        chosen[api] = pinned[-1] if pinned else versions[-1]
    newest = {api: versions[-1].api_version for api, versions in by_api.items()}
    visible: list[DocumentRecord] = []
    for record in records:
        if record.doc_type == "openapi":
            if chosen[record.api] is record:
                visible.append(record)
        elif record.doc_type == CHANGES_TYPE:
            if record.api in chosen and chosen[record.api].api_version == record.api_version == newest[record.api]:
                visible.append(record)
        else:
            visible.append(record)
    return visible


def chunk_totals(records: Sequence[DocumentRecord]) -> dict[str, int]:
    """Chunks per strategy that questions search (the visible documents'), from the registry alone: what a page
    shows before any index is read."""
    totals: dict[str, int] = {}
    for record in visible_records(records):
        for strategy, count in record.chunk_counts.items():
            totals[strategy] = totals.get(strategy, 0) + count
    return totals


def find_version(records: Sequence[DocumentRecord], api: str, label: str) -> DocumentRecord:
    """The record of `api@label`; ConfigError naming the indexed versions when there is none."""
    by_api = versions_by_api(records)
    if api not in by_api:
        raise ConfigError(f"{api}@{label}: no API {api!r} is indexed; indexed: {', '.join(by_api) or 'none'}")
    for record in by_api[api]:
        if record.api_version == label:
            return record
    labels = ", ".join(r.api_version or "(unlabelled)" for r in by_api[api])
    raise ConfigError(f"{api}@{label}: version {label!r} of {api} is not indexed; indexed versions: {labels}")


def same_version(records: Sequence[DocumentRecord], source: str, api: str, doc_type: str, label: str,
                 labelled: bool = False) -> DocumentRecord | None:
    """The indexed record a new document replaces: the version of that file with the same label; when no label
    was given (`--version`), the file's version indexed under its own name, whatever its label (re-ingesting
    a file updates it); for other documents the same source."""
    if doc_type != "openapi":
        return next((r for r in records if r.source == source), None)
    versions = [r for r in records if r.api == api and r.doc_type == "openapi"]
    exact = [r for r in versions if r.api_version == label and r.source in (source, f"{source}@{label}")]
    unlabelled = [r for r in versions if r.source == source and (not labelled or not r.api_version)]
    return (exact or unlabelled or [None])[0]


def label_clash(records: Sequence[DocumentRecord], source: str, api: str, label: str) -> DocumentRecord | None:
    """An indexed version of `api` with the same label from another file (two files claiming one version)."""
    return next((r for r in records if r.api == api and r.doc_type == "openapi" and r.api_version == label
                 and r.source not in (source, f"{source}@{label}")), None)


def registry_key(records: Sequence[DocumentRecord], source: str, label: str) -> str:
    """The registry key of a new version: its file name, or `file@label` when that name is taken."""
    taken = {r.source for r in records}
    return source if source not in taken else f"{source}@{label}"
