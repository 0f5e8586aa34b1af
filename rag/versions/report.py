"""What `rag diff` prints and decides: the readable text, a Markdown changelog a team pastes into release
notes, JSON; an ignore file (check id, optionally one operation) and the `--fail-on` exit decision."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rag.versions.checks import FAIL_ON, LEVELS, check, level_rank
from rag.versions.spec_diff import Change, DiffError, SpecDiff

FORMATS: tuple[str, ...] = ("text", "markdown", "json")
SHOWN_OPERATIONS = 3  # operations named per change before "+N more"
_HEADINGS = {"error": "Breaking changes", "warning": "Changes that may break clients", "info": "Other changes"}
_TAGS = {"error": "ERROR  ", "warning": "WARNING", "info": "info   "}


@dataclass(frozen=True)
class Ignore:
    """One ignore-file entry: a check id, everywhere or for one operation (`GET /pets`)."""

    check: str
    operation: str = ""


def read_ignore_file(path: str | Path) -> tuple[Ignore, ...]:
    """Entries of an ignore file: one per line, `CHECK-ID [METHOD /path]`, `#` starts a comment. DiffError
    naming the file and line for an unknown check id or a malformed operation."""
    file = Path(path)
    if not file.is_file():
        raise DiffError(f"--ignore {path}: no such file")
    entries: list[Ignore] = []
    for number, raw in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        check_id, _, operation = line.partition(" ")
        try:
            check(check_id)
        except ValueError as error:
            raise DiffError(f"{path}:{number}: {error}") from None
        operation = " ".join(operation.split())
        if operation:
            method, _, route = operation.partition(" ")
            if not route.startswith("/"):
                raise DiffError(f"{path}:{number}: {operation!r} is not an operation; write `METHOD /path`, "
                                "e.g. `GET /pets/{id}`")
            operation = f"{method.upper()} {route}"
        entries.append(Ignore(check_id, operation))
    return tuple(entries)


def apply_ignores(diff: SpecDiff, ignores: Sequence[Ignore]) -> SpecDiff:
    """The diff without ignored changes: an entry with an operation takes that operation off the change (the
    change goes when none is left), one without takes the change away."""
    if not ignores:
        return diff
    kept: list[Change] = []
    for change in diff.changes:
        entries = [i for i in ignores if i.check == change.check]
        if any(not i.operation for i in entries):
            continue
        dropped = {i.operation for i in entries}
        operations = tuple(o for o in change.operations if o not in dropped)
        if change.operations and not operations:
            continue
        kept.append(replace(change, operations=operations))
    return replace(diff, changes=tuple(kept))


def failed(diffs: Iterable[SpecDiff], fail_on: str) -> bool:
    """Whether any change is at `fail_on` level or worse (`error`, or `warning`: warnings and errors)."""
    if fail_on not in FAIL_ON:
        raise DiffError(f"--fail-on {fail_on!r} is not allowed; allowed: {', '.join(FAIL_ON)}")
    return any(diff.at_least(fail_on) for diff in diffs)


def _where(change: Change, quote: str = "") -> str:
    if not change.operations or change.kind == "operation":
        return ""
    shown = ", ".join(f"{quote}{o}{quote}" for o in change.operations[:SHOWN_OPERATIONS])
    more = len(change.operations) - SHOWN_OPERATIONS
    return shown + (f" +{more} more" if more > 0 else "")


def _counts(diff: SpecDiff) -> str:
    counts = diff.summary()
    return (f"operations: {counts['operations_added']} added, {counts['operations_removed']} removed, "
            f"{counts['operations_changed']} changed; {counts['error']} errors, {counts['warning']} warnings, "
            f"{counts['info']} info")


def format_text(diff: SpecDiff, min_level: str = "info", limit: int = 0) -> str:
    """One summary line, then one line per change, worst first: `ERROR   <message>  [operations]  (check-id)`."""
    lines = [f"{diff.api}: {diff.old_label} → {diff.new_label} — {_counts(diff)}"]
    shown = diff.at_least(min_level)
    for change in shown[:limit] if limit else shown:
        where = _where(change)
        lines.append(f"  {_TAGS[change.level]} {change.message}{f'  [{where}]' if where else ''}  ({change.check})")
    if limit and len(shown) > limit:
        lines.append(f"  … {len(shown) - limit} more (--limit 0 lists every change)")
    return "\n".join(lines)


def format_markdown(diff: SpecDiff, min_level: str = "info") -> str:
    """A changelog: a heading per version pair, a section per level, one bullet per change with the
    operations it affects and its check id; operations added and new error responses summarized."""
    lines = [f"## {diff.new_title or diff.api}: {diff.old_label} → {diff.new_label}", "", _counts(diff).capitalize()
             + "."]
    for level in LEVELS[: level_rank(min_level) + 1]:
        changes = [c for c in diff.changes if c.level == level]
        if not changes:
            continue
        lines += ["", f"### {_HEADINGS[level]} ({len(changes)})", ""]
        added = [c.name for c in changes if c.check == "endpoint-added"]
        errors = [c for c in changes if c.check == "response-non-success-status-added"]
        for change in changes:
            if change.check in ("endpoint-added", "response-non-success-status-added"):
                continue
            where = _where(change, "`")
            lines.append(f"- {_markdown_message(change)}{f' — in {where}' if where else ''} `{change.check}`")
        if added:
            lines.append(f"- New operations ({len(added)}): " + ", ".join(f"`{a}`" for a in added))
        if errors:
            lines.append("- New error responses: " + "; ".join(
                f"`{c.name}` on {len(c.operations)} operation{'s' if len(c.operations) != 1 else ''}" for c in errors))
    if diff.schemas_added or diff.schemas_removed:
        lines += ["", "### Component schemas", ""]
        for action, names in (("added", diff.schemas_added), ("removed", diff.schemas_removed)):
            if names:
                lines.append(f"- {action.capitalize()} ({len(names)}): " + ", ".join(f"`{n}`" for n in names))
    return "\n".join(lines)


def _markdown_message(change: Change) -> str:
    if change.kind == "operation":
        return f"`{change.name}` {change.action}" + (f": {change.attribute} {change.new}" if change.attribute
                                                    else f" ({change.old})" if change.old else "")
    return change.message.replace(change.name, f"`{change.name}`", 1)


def render(diffs: Sequence[SpecDiff], fmt: str = "text", min_level: str = "info", limit: int = 0) -> str:
    """The report of one or several APIs' diffs in `fmt` (text, markdown or json)."""
    if fmt not in FORMATS:
        raise DiffError(f"--format {fmt!r} is not allowed; allowed: {', '.join(FORMATS)}")
    if fmt == "json":
        data = diffs[0].to_dict() if len(diffs) == 1 else {"summary": total_summary(diffs),
                                                            "apis": [diff.to_dict() for diff in diffs]}
        return json.dumps(data, indent=2, ensure_ascii=False)
    if fmt == "markdown":
        return "\n\n".join(format_markdown(diff, min_level) for diff in diffs)
    lines = [format_text(diff, min_level, limit) for diff in diffs]
    if len(diffs) > 1:
        total = total_summary(diffs)
        lines.append(f"total: operations {total['operations_added']} added, {total['operations_removed']} removed, "
                     f"{total['operations_changed']} changed; {total['error']} errors, {total['warning']} warnings, "
                     f"{total['info']} info")
    return "\n".join(lines)


def total_summary(diffs: Iterable[SpecDiff]) -> dict[str, int]:
    """The summaries of several APIs' diffs added up."""
    total: dict[str, int] = {}
    for diff in diffs:
        for key, value in diff.summary().items():
            total[key] = total.get(key, 0) + value
    return total
