"""What a diff of two versions of an API found: each `Change` (breaking or not) and the `SpecDiff` of one API,
with their readable sentences, summary counts and JSON views. The comparison itself is `rag.versions.diff`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rag.errors import RagError

Action = Literal["added", "removed", "changed"]
ACTIONS: tuple[str, ...] = ("added", "removed", "changed")
CHANGE_KINDS: tuple[str, ...] = (
    "operation", "parameter", "request-body", "request-field", "response", "response-field", "schema",
    "security-scheme",
)


class DiffError(RagError):
    """Two documents cannot be compared (not OpenAPI, different APIs, an unknown version)."""


@dataclass(frozen=True)
class Change:
    """One difference between two versions.

    `kind` is what changed (an operation, a parameter, a request or response field, a response, a component
    schema, a security scheme); `name` names it (`query page_size`, `data[].status`, `200`, `Course`);
    `attribute` what about it changed for `changed` (type, required, enum, default, a limit, deprecated);
    `operations` the operations it affects (`PUT /unified/lms/courses`); `schema` the component schema
    the field is defined in when the change is shared by every operation using that schema.
    """

    kind: str
    action: Action
    name: str
    breaking: bool
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

    @property
    def message(self) -> str:
        """One readable sentence: `request field Course.title: required false → true`."""
        what = f"{self.kind.replace('-', ' ')} {self.name}".strip()
        if self.action != "changed":
            return f"{what} {self.action}"
        if self.attribute == "enum":
            parts = [f"values removed: {self.old}" if self.old else "", f"values added: {self.new}" if self.new else ""]
            return f"{what}: enum " + "; ".join(p for p in parts if p)
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
            if change.kind not in ("operation", "schema", "security-scheme"):
                found.update(dict.fromkeys(change.operations))
        return list(found)

    def summary(self) -> dict[str, int]:
        """Counts: operations added / removed / changed, changes, breaking changes, schemas added / removed."""
        return {
            "operations_added": len(self.added_operations),
            "operations_removed": len(self.removed_operations),
            "operations_changed": len(self.changed_operations),
            "schemas_added": len(self.of_kind("schema", "added")),
            "schemas_removed": len(self.of_kind("schema", "removed")),
            "changes": len(self.changes),
            "breaking": sum(change.breaking for change in self.changes),
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
        }
