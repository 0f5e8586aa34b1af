"""What a diff of two versions of an API found: each `Change` (a check id and its level: error, warning, info)
and the `SpecDiff` of one API, with their readable sentences, summary counts and JSON views. The comparison
itself is `rag.versions.diff`; the checks and their levels are `rag.versions.checks`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rag.errors import RagError
from rag.versions.checks import LEVELS, check, level_rank

Action = Literal["added", "removed", "changed"]
ACTIONS: tuple[str, ...] = ("added", "removed", "changed")
CHANGE_KINDS: tuple[str, ...] = (
    "operation", "parameter", "request-body", "request-field", "response", "response-field", "response-header",
    "security", "security-scheme",
)


class DiffError(RagError):
    """Two documents cannot be compared (not OpenAPI, different APIs, an unknown version)."""


@dataclass(frozen=True)
class Change:
    """One difference between two versions.

    `kind` is what changed (an operation, a parameter, a request or response field, a response, a response
    header, a security requirement, a component schema, a security scheme); `name` names it (`query
    page_size`, `data[].status`, `200`, `Course`); `check` the catalogue id of the kind of change
    (`response-property-became-nullable`), which sets its level; `attribute` what about it changed for
    `changed` (type, required, enum, default, a limit, nullable, pattern, deprecated); `operations` every
    operation it affects (`PUT /unified/lms/courses`): one change, however many operations share it;
    `schema` the component schema the field is defined in (the new version's name) when there is one.
    """

    kind: str
    action: Action
    name: str
    check: str
    operations: tuple[str, ...] = ()
    attribute: str = ""
    old: str = ""
    new: str = ""
    schema: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CHANGE_KINDS:
            raise ValueError(f"kind={self.kind!r} is not allowed; allowed: {', '.join(CHANGE_KINDS)}")
        if self.action not in ACTIONS:
            raise ValueError(f"action={self.action!r} is not allowed; allowed: {', '.join(ACTIONS)}")
        check(self.check)

    @property
    def level(self) -> str:
        """`error` (breaks clients), `warning` (may break them) or `info`, from the check's catalogue entry."""
        return check(self.check).level

    @property
    def breaking(self) -> bool:
        """Whether the change is an error: it breaks a client written against the old version."""
        return self.level == "error"

    @property
    def message(self) -> str:
        """One readable sentence: `request field Course.title: required false → true`."""
        what = f"{self.kind.replace('-', ' ')} {self.name}".strip()
        if self.action != "changed":
            return f"{what} {self.action}"
        if self.attribute in ("enum", "scopes", "one of", "media types"):
            parts = [f"removed: {self.old}" if self.old else "", f"added: {self.new}" if self.new else ""]
            return f"{what}: {self.attribute} " + "; ".join(p for p in parts if p)
        return f"{what}: {self.attribute} {self.old or '(none)'} → {self.new or '(none)'}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (the message included)."""
        return {
            "kind": self.kind,
            "action": self.action,
            "name": self.name,
            "attribute": self.attribute,
            "old": self.old,
            "new": self.new,
            "check": self.check,
            "level": self.level,
            "breaking": self.breaking,
            "schema": self.schema,
            "operations": list(self.operations),
            "message": self.message,
        }


@dataclass(frozen=True)
class SpecDiff:
    """Every change from `old` to `new` of one API (`old_label`/`new_label` name the versions)."""

    api: str
    old_label: str
    new_label: str
    changes: tuple[Change, ...]
    old_title: str = ""
    new_title: str = ""
    schemas_added: tuple[str, ...] = ()  # component schemas only the new version has (a renamed one left out)
    schemas_removed: tuple[str, ...] = ()

    def of_kind(self, kind: str, action: str | None = None) -> list[Change]:
        """The changes of one kind (and action)."""
        return [c for c in self.changes if c.kind == kind and (action is None or c.action == action)]

    @property
    def added_operations(self) -> list[str]:
        """Operations only the new version has (`GET /path`)."""
        return [c.name for c in self.of_kind("operation", "added")]

    @property
    def removed_operations(self) -> list[str]:
        """Operations only the old version has."""
        return [c.name for c in self.of_kind("operation", "removed")]

    @property
    def changed_operations(self) -> list[str]:
        """Operations in both versions that some change affects, in the new version's order."""
        found: dict[str, None] = {}
        for change in self.changes:
            if change.kind not in ("operation", "security-scheme"):
                found.update(dict.fromkeys(change.operations))
        return list(found)

    def at_least(self, level: str) -> list[Change]:
        """The changes of `level` or worse (`warning`: warnings and errors)."""
        if level not in LEVELS:
            raise ValueError(f"level={level!r} is not allowed; allowed: {', '.join(LEVELS)}")
        return [c for c in self.changes if level_rank(c.level) <= level_rank(level)]

    def summary(self) -> dict[str, int]:
        """Counts: operations added / removed / changed, changes, errors (`breaking`), warnings, infos,
        schemas added / removed."""
        return {
            "operations_added": len(self.added_operations),
            "operations_removed": len(self.removed_operations),
            "operations_changed": len(self.changed_operations),
            "schemas_added": len(self.schemas_added),
            "schemas_removed": len(self.schemas_removed),
            "changes": len(self.changes),
            "breaking": sum(change.breaking for change in self.changes),
            "error": sum(change.level == "error" for change in self.changes),
            "warning": sum(change.level == "warning" for change in self.changes),
            "info": sum(change.level == "info" for change in self.changes),
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view: the versions, the summary, added and removed operations, every change."""
        return {
            "api": self.api,
            "old": {"label": self.old_label, "title": self.old_title},
            "new": {"label": self.new_label, "title": self.new_title},
            "summary": self.summary(),
            "operations": {"added": self.added_operations, "removed": self.removed_operations,
                           "changed": self.changed_operations},
            "changes": [change.to_dict() for change in self.changes],
            "schemas": {"added": list(self.schemas_added), "removed": list(self.schemas_removed)},
        }
