"""Which versions of each API an index keeps, which is the newest, and which a question searches.

An OpenAPI document is one version of its API, labelled (`2025-02`, `1.0.0`); several versions of one API
live side by side. Versions are ordered by their labels when both are dates (`2025-02`, `2025-12-01`) or
both semantic versions (`1.2.0` < `1.10.0`), else by the specs' own `info.version`, else a dated label
against the day the other was ingested, and only then by ingest time; the newest is what questions search
unless a version is pinned (`2025-02` for every API that has it, `lms@2025-02` for one). The chunks of a
pair's changes (a document of
type `changes`) belong to the newest version and are searched with it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any

from rag.errors import ConfigError, DuplicateDocumentError
from rag.index.registry import DocumentRecord

if TYPE_CHECKING:
    from rag.ingest.pipeline import ParsedDocument

_DATE_LABEL = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")
CHANGES_TYPE = "changes"


_SEMVER = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$")


def parse_label(label: str) -> tuple[str, tuple[Any, ...]] | None:
    """`("date", (2025, 2, 1))` for `2025-02`, `("semver", (1, 10, 0, 1, ""))` for `1.10.0` (a pre-release
    sorts before its release), None for a label that is neither."""
    text = label.strip()
    date = _DATE_LABEL.match(text)
    if date:
        return "date", (int(date.group(1)), int(date.group(2)), int(date.group(3) or 1))
    semver = _SEMVER.match(text)
    if semver:
        major, minor, patch, pre = semver.groups()
        return "semver", (int(major), int(minor or 0), int(patch or 0), 0 if pre else 1, pre or "")
    return None


def _ingest_day(record: DocumentRecord) -> tuple[int, int, int]:
    day = time.gmtime(record.ingested_at or time.time())
    return day.tm_year, day.tm_mon, day.tm_mday


def compare_versions(a: DocumentRecord, b: DocumentRecord) -> int:
    """Which of two versions of an API is older (-1: `a`): by their labels when both are dates or both semantic
    versions, else by the specs' own `info.version` when those compare so, else a dated label against the
    day the other was indexed, and only then by ingest time."""
    for label_a, label_b in ((a.api_version, b.api_version), (a.spec_version, b.spec_version)):
        parsed_a, parsed_b = parse_label(label_a), parse_label(label_b)
        if parsed_a and parsed_b and parsed_a[0] == parsed_b[0] and parsed_a[1] != parsed_b[1]:
            return -1 if parsed_a[1] < parsed_b[1] else 1
    date_a, date_b = (_DATE_LABEL.match(r.api_version.strip()) for r in (a, b))
    if bool(date_a) != bool(date_b):
        day_a = parse_label(a.api_version)[1] if date_a else _ingest_day(a)  # type: ignore[index]
        day_b = parse_label(b.api_version)[1] if date_b else _ingest_day(b)  # type: ignore[index]
        if day_a != day_b:
            return -1 if day_a < day_b else 1
    return (a.ingested_at > b.ingested_at) - (a.ingested_at < b.ingested_at)


def versions_of(records: Iterable[DocumentRecord], api: str) -> list[DocumentRecord]:
    """The OpenAPI versions of one API, oldest first (`compare_versions`)."""
    return sorted((r for r in records if r.api == api and r.doc_type == "openapi"), key=cmp_to_key(compare_versions))


def versions_by_api(records: Iterable[DocumentRecord]) -> dict[str, list[DocumentRecord]]:
    """Every API's OpenAPI versions, oldest first."""
    records = list(records)
    return {api: versions_of(records, api) for api in sorted({r.api for r in records if r.doc_type == "openapi"})}


def parse_pin(pin: str) -> tuple[str, str]:
    """`lms@2025-02` → (lms, 2025-02); `2025-02` → ("", 2025-02)."""
    api, _, label = pin.strip().rpartition("@")
    return api.strip(), label.strip()


def visible_records(records: Sequence[DocumentRecord], pin: str = "", since: str = "") -> list[DocumentRecord]:
    """The documents a question searches: docs, one version of each API (the pinned one, else the newest)
    and the changes of an API whose newest version is searched: from the version `since` names (`2025-02`,
    `lms@2025-02`) when it has such changes, else from the version before the newest. ConfigError when the
    pin names no version."""
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
    changes = _changes_shown(records, since, {api: chosen[api].api_version for api in chosen}, newest)
    visible: list[DocumentRecord] = []
    for record in records:
        if record.doc_type == "openapi":
            if chosen[record.api] is record:
                visible.append(record)
        elif record.doc_type == CHANGES_TYPE:
            if changes.get(record.api) is record:
                visible.append(record)
        else:
            visible.append(record)
    return visible


def _changes_shown(records: Sequence[DocumentRecord], since: str, chosen: dict[str, str],
                   newest: dict[str, str]) -> dict[str, DocumentRecord]:
    """Per API whose newest version is searched, its changes document: the one since `since`, else the one
    from the version before the newest (source `{api}.changes`)."""
    since_api, since_label = parse_pin(since) if since else ("", "")
    candidates: dict[str, list[DocumentRecord]] = {}
    for record in records:
        if record.doc_type == CHANGES_TYPE and record.api in chosen \
                and chosen[record.api] == record.api_version == newest[record.api]:
            candidates.setdefault(record.api, []).append(record)
    shown: dict[str, DocumentRecord] = {}
    for api, found in candidates.items():
        named = [r for r in found if since_label and r.spec_version == since_label and since_api in ("", api)]
        default = [r for r in found if r.source == changes_source(api)]
        shown[api] = (named or default or found)[0]
    return shown


def changes_source(api: str, since: str = "") -> str:
    """The source of an API's changes document: `{api}.changes` from the version before the newest,
    `{api}.changes@{since}` from an older one."""
    return f"{api}.changes@{since}" if since else f"{api}.changes"


def named_version(text: str, documents: Callable[[], Sequence[DocumentRecord]]) -> str:
    """The label of an older indexed version a question names ("what changed since 2025-02?" → `2025-02`),
    "" when it names none (`documents` is read only when the text could name one: it has a digit)."""
    if not any(char.isdigit() for char in text):
        return ""
    by_api = versions_by_api(documents())
    labels = sorted({r.api_version for versions in by_api.values() for r in versions[:-1] if r.api_version},
                    key=len, reverse=True)
    for label in labels:
        if re.search(rf"(?<![\w.-]){re.escape(label)}(?![\w-]|\.\w)", text):
            return label
    return ""


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


def _web_page(doc_type: str, source: str) -> bool:
    """Whether a document is a crawled web page (the pages of a site are indexed as one API)."""
    return doc_type == "doc" and source.startswith(("http://", "https://"))


def name_clash(records: Sequence[DocumentRecord], document: ParsedDocument) -> DocumentRecord | None:
    """An indexed document of another source under the same API name, unless they may share it: versions of one
    API and their changes, or pages of a crawled site."""
    versioned = ("openapi", CHANGES_TYPE)
    return next((r for r in records if r.api == document.api and r.source != document.source
                 and not (r.doc_type in versioned and document.doc_type in versioned)
                 and not (_web_page(r.doc_type, r.source) and _web_page(document.doc_type, document.source))), None)


def check_name_clash(records: Sequence[DocumentRecord], document: ParsedDocument,
                     existing: DocumentRecord | None) -> None:
    """DuplicateDocumentError when another document already uses the document's API name (`name_clash`), or a
    new version's label is taken."""
    clash = name_clash(records, document)
    if clash is None and existing is None and document.doc_type == "openapi":
        clash = label_clash(records, document.source, document.api, document.api_version)
    if clash is not None:
        raise DuplicateDocumentError(
            document.source,
            f"its name {document.api!r} is already used by {clash.source}; rename the file"
            + (" or give it another version label" if document.doc_type == "openapi" else ""),
        )


def registry_key(records: Sequence[DocumentRecord], source: str, label: str) -> str:
    """The registry key of a new version: its file name, or `file@label` when that name is taken."""
    taken = {r.source for r in records}
    return source if source not in taken else f"{source}@{label}"
