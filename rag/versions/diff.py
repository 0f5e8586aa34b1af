"""The structural diff of two versions of an OpenAPI document: every change with its check id and level.

Operations are matched by method and path shape, and path parameters by their position in the path
(`/users/{id}` and `/users/{user_id}` are one operation with one parameter). For every operation in both
versions the parameters, request body, responses (status codes, media types, headers, success bodies),
deprecation and security are compared; schemas are compared by structure where they are used
(`rag.versions.schema_diff`), so a renamed component schema, an inline object moved to a `$ref`, an
`allOf` split, a reorder or a description edit is no change. A change shared by several operations (a
field of a shared schema, a parameter every list has, a new error response) is one change listing them.
Component schemas added or removed are listed beside the changes (a schema only renamed is not).
Levels and ids follow oasdiff's checks (`rag.versions.checks`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from typing import Any

from rag.ingest.spec import (
    Operation,
    component_schemas,
    describe_scheme,
    iter_operations,
    parameter_schema,
    security_schemes,
)
from rag.versions.checks import level_rank
from rag.versions.schema_diff import Finding, SchemaDiff, SchemaReader
from rag.versions.spec_diff import Change, SpecDiff

__all__ = ["SpecDiff", "diff_documents", "operation_label"]

_PATH_PARAMETER = re.compile(r"\{([^}/]*)\}")
_KIND_ORDER = {"operation": 0, "security": 1, "parameter": 2, "request-body": 3, "request-field": 4, "response": 5,
               "response-header": 6, "response-field": 7, "security-scheme": 8}


def operation_label(method: str, path: str) -> str:
    """`PUT /unified/lms/courses`."""
    return f"{method.upper()} {path}"


def _shape(path: str) -> str:
    return _PATH_PARAMETER.sub("{}", path)


class _Collector:
    """Collects changes; one change (same check, name and values) in several operations is kept once."""

    def __init__(self) -> None:
        self.changes: dict[tuple[str, ...], Change] = {}

    def add(self, kind: str, action: str, name: str, check: str, operations: tuple[str, ...] = (),
            attribute: str = "", old: str = "", new: str = "", schema: str = "") -> None:
        key = (check, name, attribute, old, new)
        existing = self.changes.get(key)
        if existing is not None:
            operations = tuple(dict.fromkeys(existing.operations + operations))
        self.changes[key] = Change(kind, action, name, check, operations, attribute, old, new,  # type: ignore[arg-type]
                                   schema)

    def result(self) -> tuple[Change, ...]:
        return tuple(sorted(self.changes.values(), key=lambda c: (level_rank(c.level), _KIND_ORDER[c.kind])))


def diff_documents(old: dict[str, Any], new: dict[str, Any], api: str = "", old_label: str = "old",
                   new_label: str = "new", today: dt.date | None = None) -> SpecDiff:
    """Every change from the `old` OpenAPI document to the `new` one (both already validated); `today` decides
    whether an operation's `x-sunset` date is past (default: today)."""
    differ = _Differ(old, new, today or dt.date.today())
    differ.run()
    info_old = old.get("info") if isinstance(old.get("info"), dict) else {}
    info_new = new.get("info") if isinstance(new.get("info"), dict) else {}
    return SpecDiff(api, old_label, new_label, differ.collector.result(), str(info_old.get("title", "")),
                    str(info_new.get("title", "")), tuple(differ.schemas_added), tuple(differ.schemas_removed))


def _sunset(node: dict[str, Any]) -> dt.date | None:
    value = node.get("x-sunset")
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


class _Differ:
    def __init__(self, old: dict[str, Any], new: dict[str, Any], today: dt.date) -> None:
        self.old_doc, self.new_doc, self.today = old, new, today
        self.old, self.new = SchemaReader(old), SchemaReader(new)
        self.schemas = SchemaDiff(self.old, self.new)
        self.collector = _Collector()
        self.schemas_added: list[str] = []
        self.schemas_removed: list[str] = []

    def run(self) -> None:
        old_ops = {(o.method, _shape(o.path)): o for o in iter_operations(self.old_doc)}
        new_ops = {(o.method, _shape(o.path)): o for o in iter_operations(self.new_doc)}
        for key, operation in old_ops.items():
            if key not in new_ops:
                self._removed(operation)
        for key, operation in new_ops.items():
            label = operation_label(operation.method, operation.path)
            if key not in old_ops:
                self.collector.add("operation", "added", label, "endpoint-added", (label,))
            else:
                self._operation(old_ops[key], operation, label)
        self._components()

    def _removed(self, operation: Operation) -> None:
        label = operation_label(operation.method, operation.path)
        sunset = _sunset(operation.node)
        if operation.node.get("deprecated") is not True:
            check, old = "api-removed-without-deprecation", ""
        elif sunset is not None and sunset > self.today:
            check, old = "api-removed-before-sunset", f"x-sunset {sunset.isoformat()}"
        else:
            check, old = "api-removed-with-deprecation", f"x-sunset {sunset.isoformat()}" if sunset else "deprecated"
        self.collector.add("operation", "removed", label, check, (label,), old=old)

    def _operation(self, old: Operation, new: Operation, label: str) -> None:
        ops = (label,)
        was, now = old.node.get("deprecated") is True, new.node.get("deprecated") is True
        if now and not was:
            sunset = _sunset(new.node)
            self.collector.add("operation", "changed", label, "endpoint-deprecated" if sunset else
                               "api-deprecated-sunset-missing", ops, "deprecated", "false",
                               f"true, x-sunset {sunset.isoformat()}" if sunset else "true, no x-sunset")
        elif was and not now:
            self.collector.add("operation", "changed", label, "endpoint-reactivated", ops, "deprecated", "true",
                               "false")
        self._security(old, new, ops)
        self._parameters(old, new, ops)
        self._body(old, new, ops)
        self._responses(old, new, ops)

    # parameters -------------------------------------------------------------------------------------------
    def _parameters(self, old: Operation, new: Operation, ops: tuple[str, ...]) -> None:
        before, after = _parameters(self.old, old), _parameters(self.new, new)
        for key, (name, _) in before.items():
            if key not in after:
                self.collector.add("parameter", "removed", name, "request-parameter-removed", ops)
        for key, (name, parameter) in after.items():
            required = parameter.get("required") is True
            if key not in before:
                check = "new-required-request-parameter" if required else "new-optional-request-parameter"
                self.collector.add("parameter", "added", name, check, ops)
                continue
            _, previous = before[key]
            was = previous.get("required") is True
            if was != required:
                self.collector.add("parameter", "changed", name, "request-parameter-became-required" if required
                                   else "request-parameter-became-optional", ops, "required", str(was).lower(),
                                   str(required).lower())
            if parameter.get("deprecated") is True and previous.get("deprecated") is not True:
                self.collector.add("parameter", "changed", name, "request-parameter-deprecated", ops, "deprecated",
                                   "false", "true")
            for finding in self.schemas.compare(parameter_schema(previous), parameter_schema(parameter), True):
                self._schema_change(finding, "request-parameter", "parameter", name, ops, keep_owner=False)

    # request body -----------------------------------------------------------------------------------------
    def _body(self, old: Operation, new: Operation, ops: tuple[str, ...]) -> None:
        before, after = old.node.get("requestBody"), new.node.get("requestBody")
        if before is None and after is None:
            return
        if before is None:
            required = self.new.deref(after)[0].get("required") is True
            self.collector.add("request-body", "added", "request body", "added-required-request-body" if required
                               else "added-optional-request-body", ops)
            return
        if after is None:
            self.collector.add("request-body", "removed", "request body", "request-body-removed", ops)
            return
        old_body, new_body = self.old.deref(before)[0], self.new.deref(after)[0]
        was, now = old_body.get("required") is True, new_body.get("required") is True
        if was != now:
            self.collector.add("request-body", "changed", "request body", "request-body-became-required" if now
                               else "request-body-became-optional", ops, "required", str(was).lower(),
                               str(now).lower())
        self._media(old_body, new_body, "request-body", "request body", "request-body", "request", ops, True)

    def _media(self, old: dict[str, Any], new: dict[str, Any], kind: str, name: str, media_check: str, place: str,
               ops: tuple[str, ...], request: bool) -> None:
        """Media types removed and added, and the schemas of those in both (request or response side)."""
        old_content = old.get("content") if isinstance(old.get("content"), dict) else {}
        new_content = new.get("content") if isinstance(new.get("content"), dict) else {}
        removed = [str(m) for m in old_content if m not in new_content]
        added = [str(m) for m in new_content if m not in old_content]
        if removed:
            self.collector.add(kind, "changed", name, f"{media_check}-media-type-removed", ops, "media types",
                               ", ".join(removed), "")
        if added:
            self.collector.add(kind, "changed", name, f"{media_check}-media-type-added", ops, "media types", "",
                               ", ".join(added))
        field_kind = "request-field" if request else "response-field"
        for media, node in new_content.items():
            previous = old_content.get(media)
            if not isinstance(node, dict) or not isinstance(previous, dict):
                continue
            if isinstance(previous.get("schema"), dict) and isinstance(node.get("schema"), dict):
                for finding in self.schemas.compare(previous["schema"], node["schema"], request):
                    self._schema_change(finding, f"{place}-property" if finding.path else f"{place}-body",
                                        field_kind if finding.path else kind, name, ops)

    def _schema_change(self, finding: Finding, place: str, kind: str, root: str, ops: tuple[str, ...],
                       keep_owner: bool = True) -> None:
        """One schema finding as a change: its check id from the place it was found in."""
        owner = finding.owner if keep_owner else ""
        if owner:
            name = f"{owner}.{finding.path}" if finding.path else owner
        elif finding.path:
            name = f"{root}.{finding.path}" if kind == "parameter" else finding.path
        else:
            name = root
        request = place.startswith("request")
        if finding.suffix == "property-added":
            check = ("new-required-request-property" if finding.required else "new-optional-request-property") \
                if request else ("response-required-property-added" if finding.required
                                 else "response-optional-property-added")
            self.collector.add(kind, "added", name, check, ops, schema=finding.owner)
        elif finding.suffix == "property-removed":
            check = "request-property-removed" if request else ("response-required-property-removed"
                                                                if finding.required else
                                                                "response-optional-property-removed")
            self.collector.add(kind, "removed", name, check, ops, schema=finding.owner)
        else:
            self.collector.add(kind, "changed", name, f"{place}-{finding.suffix}", ops, finding.attribute,
                               finding.old, finding.new, finding.owner)

    # responses --------------------------------------------------------------------------------------------
    def _responses(self, old: Operation, new: Operation, ops: tuple[str, ...]) -> None:
        before, after = _responses(old), _responses(new)
        for code in before:
            if code not in after:
                success = code.startswith("2")
                self.collector.add("response", "removed", code, "response-success-status-removed" if success
                                   else "response-non-success-status-removed", ops)
        for code, node in after.items():
            if code not in before:
                success = code.startswith("2")
                self.collector.add("response", "added", code, "response-success-status-added" if success
                                   else "response-non-success-status-added", ops)
                continue
            old_response, new_response = self.old.deref(before[code])[0], self.new.deref(node)[0]
            self._headers(old_response, new_response, code, ops)
            if code.startswith("2"):
                self._media(old_response, new_response, "response", code, "response", "response", ops, False)

    def _headers(self, old: dict[str, Any], new: dict[str, Any], code: str, ops: tuple[str, ...]) -> None:
        def headers(reader: SchemaReader, response: dict[str, Any]) -> dict[str, dict[str, Any]]:
            found = response.get("headers") if isinstance(response.get("headers"), dict) else {}
            return {str(k).lower(): reader.deref(v)[0] for k, v in found.items()}

        before, after = headers(self.old, old), headers(self.new, new)
        for name, header in before.items():
            label = f"{code} {name}"
            required = header.get("required") is True
            if name not in after:
                self.collector.add("response-header", "removed", label, "required-response-header-removed"
                                   if required else "optional-response-header-removed", ops)
            elif required and after[name].get("required") is not True:
                self.collector.add("response-header", "changed", label, "response-header-became-optional", ops,
                                   "required", "true", "false")
        for name in after:
            if name not in before:
                self.collector.add("response-header", "added", f"{code} {name}", "response-header-added", ops)

    # security ---------------------------------------------------------------------------------------------
    def _security(self, old: Operation, new: Operation, ops: tuple[str, ...]) -> None:
        before = _requirements(old.node.get("security", self.old_doc.get("security")))
        after = _requirements(new.node.get("security", self.new_doc.get("security")))
        if before == after:
            return
        if _open(before) and not _open(after):
            self.collector.add("security", "changed", "security", "api-security-now-required", ops, "security",
                               "none", _describe(after))
            return
        for alternative in before:
            if not alternative or any(_satisfies(alternative, b) for b in after):
                continue
            same = [b for b in after if set(b) == set(alternative)]
            if same:
                added = sorted({s for b in same for scheme, scopes in b.items()
                                for s in scopes - alternative.get(scheme, frozenset())})
                self.collector.add("security", "changed", _describe([alternative]), "api-security-scope-added", ops,
                                   "scopes", "", ", ".join(added))
            else:
                self.collector.add("security", "removed", _describe([alternative]), "api-security-removed", ops)
        for alternative in after:
            if alternative in before:
                continue
            same = [a for a in before if set(a) == set(alternative)]
            if same and all(_satisfies(a, alternative) for a in same):
                removed = sorted({s for a in same for scheme, scopes in a.items()
                                  for s in scopes - alternative.get(scheme, frozenset())})
                self.collector.add("security", "changed", _describe([alternative]), "api-security-scope-removed",
                                   ops, "scopes", ", ".join(removed), "")
            elif not same:
                self.collector.add("security", "added", _describe([alternative]), "api-security-added", ops)

    # components -------------------------------------------------------------------------------------------
    def _components(self) -> None:
        old_schemas, new_schemas = component_schemas(self.old_doc), component_schemas(self.new_doc)
        gone = {str(n): self.old.fingerprint(s) for n, s in old_schemas.items() if n not in new_schemas}
        came = {str(n): self.new.fingerprint(s) for n, s in new_schemas.items() if n not in old_schemas}
        renamed = set(gone.values()) & set(came.values())  # a schema only renamed: nothing a client sees
        self.schemas_removed = [name for name, print_ in gone.items() if print_ not in renamed]
        self.schemas_added = [name for name, print_ in came.items() if print_ not in renamed]
        old_schemes, new_schemes = security_schemes(self.old_doc), security_schemes(self.new_doc)
        for name, scheme in old_schemes.items():
            if name not in new_schemes:
                self.collector.add("security-scheme", "removed", str(name), "api-security-component-removed")
            else:
                self._scheme(str(name), scheme, new_schemes[name])
        for name in new_schemes:
            if name not in old_schemes:
                self.collector.add("security-scheme", "added", str(name), "api-security-component-added")

    def _scheme(self, name: str, old: Any, new: Any) -> None:
        if not isinstance(old, dict) or not isinstance(new, dict):
            return
        identity = ("type", "scheme", "in", "name")
        if any(str(old.get(k, "")).lower() != str(new.get(k, "")).lower() for k in identity):
            self.collector.add("security-scheme", "changed", name, "api-security-component-type-changed", (),
                               "scheme", describe_scheme(old), describe_scheme(new))
            return
        old_scopes, new_scopes = _scheme_scopes(old), _scheme_scopes(new)
        if new_scopes - old_scopes:
            self.collector.add("security-scheme", "changed", name, "api-security-component-oauth-scope-added", (),
                               "scopes", "", ", ".join(sorted(new_scopes - old_scopes)))
        if old_scopes - new_scopes:
            self.collector.add("security-scheme", "changed", name, "api-security-component-oauth-scope-removed", (),
                               "scopes", ", ".join(sorted(old_scopes - new_scopes)), "")
        if _scheme_key(old) != _scheme_key(new) and old_scopes == new_scopes:
            self.collector.add("security-scheme", "changed", name, "api-security-component-changed", (),
                               "settings", describe_scheme(old), describe_scheme(new))


def _parameters(reader: SchemaReader, operation: Operation) -> dict[str, tuple[str, dict[str, Any]]]:
    """The operation's parameters (path-level ones included) by key: `path #N` for the Nth path parameter of
    the path (matched by position), `location name` for the others; each with its readable name."""
    positions = {name: i for i, name in enumerate(_PATH_PARAMETER.findall(operation.path))}
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for source in (operation.path_item.get("parameters"), operation.node.get("parameters")):
        for raw in source if isinstance(source, list) else []:
            parameter, _ = reader.deref(raw)
            name, where = parameter.get("name"), parameter.get("in", "?")
            if not name:
                continue
            key = f"path #{positions[name]}" if where == "path" and name in positions else f"{where} {name}"
            found[key] = (f"{where} {name}", parameter)
    return found


def _responses(operation: Operation) -> dict[str, Any]:
    responses = operation.node.get("responses")
    return {str(code): node for code, node in responses.items()} if isinstance(responses, dict) else {}


Requirement = dict[str, frozenset[str]]


def _requirements(raw: Any) -> list[Requirement]:
    """Security requirements as alternatives: each a mapping scheme → scopes (all of them needed)."""
    found: list[Requirement] = []
    for requirement in raw if isinstance(raw, list) else []:
        if isinstance(requirement, dict):
            found.append({str(k): frozenset(str(s) for s in v or []) if isinstance(v, list) else frozenset()
                          for k, v in requirement.items()})
    return found


def _open(requirements: list[Requirement]) -> bool:
    """Whether a client with no credentials is let in (no requirement, or an empty alternative)."""
    return not requirements or any(not r for r in requirements)


def _satisfies(held: Requirement, wanted: Requirement) -> bool:
    """Whether credentials meeting `held` also meet `wanted` (its schemes and scopes a subset)."""
    return all(scheme in held and scopes <= held[scheme] for scheme, scopes in wanted.items())


def _describe(requirements: Iterable[Requirement]) -> str:
    """`oauth (read, write) + key` per alternative, alternatives joined by ` or `."""
    parts = []
    for requirement in requirements:
        parts.append(" + ".join(f"{s} ({', '.join(sorted(scopes))})" if scopes else s
                                for s, scopes in sorted(requirement.items())) or "none")
    return " or ".join(parts)


def _scheme_scopes(scheme: dict[str, Any]) -> set[str]:
    flows = scheme.get("flows") if isinstance(scheme.get("flows"), dict) else {}
    return {str(s) for flow in flows.values() if isinstance(flow, dict) and isinstance(flow.get("scopes"), dict)
            for s in flow["scopes"]}


def _scheme_key(scheme: Any) -> str:
    """What identifies a security scheme's behaviour (its description text left out)."""
    if not isinstance(scheme, dict):
        return ""
    return json.dumps({k: v for k, v in scheme.items() if k != "description"}, sort_keys=True, default=str)
