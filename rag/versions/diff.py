"""The structural diff of two versions of an OpenAPI document, each change classed breaking or not.

Operations are matched by method and path shape (`/users/{id}` and `/users/{user_id}` are one path). For
every operation in both versions the parameters, the request body's fields and the success responses'
fields are compared: added, removed, or changed in type, required, enum values, default, limits or
deprecation. `$ref`s resolve as ingestion resolves them (`SchemaProse`: `allOf` merged, cycles cut), and a
field defined in a component schema is keyed by that schema, so a change inside a shared schema is one
change that lists every operation it affects. Component schemas and security schemes added, removed or
changed are listed too.

Breaking follows oasdiff's error-level checks where they apply: a removed operation or success response, a
removed or newly optional response field, a new required parameter or request field (or one that became
required), a changed type, a request enum that lost values, a request limit that narrowed, a request
default that changed, a removed or changed security scheme. Removing a parameter or request field, adding
anything optional and deprecating are not breaking.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from rag.ingest.spec import component_schemas, describe_scheme, iter_operations, parameter_schema, security_schemes
from rag.versions.fields import LIMITS, FieldState, SpecReader
from rag.versions.spec_diff import Change, SpecDiff

_PATH_PARAMETER = re.compile(r"\{[^}/]*\}")


def operation_label(method: str, path: str) -> str:
    """`PUT /unified/lms/courses`."""
    return f"{method.upper()} {path}"


def _shape(path: str) -> str:
    return _PATH_PARAMETER.sub("{}", path)


class _Collector:
    """Collects changes; field changes of one component schema are merged across operations."""

    def __init__(self) -> None:
        self.changes: dict[tuple[Any, ...], Change] = {}
        self.order: list[tuple[Any, ...]] = []

    def add(self, change: Change, key: tuple[Any, ...] | None = None) -> None:
        key = key or (change.kind, change.action, change.name, change.attribute, change.old, change.new,
                      change.operations)
        existing = self.changes.get(key)
        if existing is None:
            self.changes[key] = change
            self.order.append(key)
            return
        merged = tuple(dict.fromkeys(existing.operations + change.operations))
        self.changes[key] = Change(existing.kind, existing.action, existing.name, existing.breaking, merged,
                                   existing.attribute, existing.old, existing.new, existing.schema)

    def result(self) -> tuple[Change, ...]:
        return tuple(self.changes[key] for key in self.order)


def _compare_field(kind: str, name: str, old: FieldState, new: FieldState, operation: str,
                   request: bool) -> list[Change]:
    """The changes of one field present in both versions (`request`: sent by the client)."""
    found: list[Change] = []

    def add(attribute: str, before: str, after: str, breaking: bool) -> None:
        found.append(Change(kind, "changed", name, breaking, (operation,), attribute, before, after))

    if old.type != new.type:
        add("type", old.type, new.type, True)
    if old.required != new.required:
        # Request: optional → required breaks clients; response: required → optional does.
        add("required", str(old.required).lower(), str(new.required).lower(),
            new.required if request else old.required)
    if old.enum != new.enum:
        # Only the values that differ are kept: `old` the values dropped, `new` the values added (an enum
        # dropped or introduced as a whole shows as `(any)`).
        lost = [v for v in old.enum if v not in new.enum] if new.enum else ["(any)"]
        gained = [v for v in new.enum if v not in old.enum] if old.enum else ["(any)"]
        narrowed = bool(lost) and bool(new.enum)
        add("enum", ", ".join(lost), ", ".join(gained), request and narrowed)
    if old.default != new.default:
        add("default", old.default, new.default, request and bool(old.default))
    old_limits, new_limits = dict(old.limits), dict(new.limits)
    for _, label, direction in LIMITS:
        before, after = old_limits.get(label, ""), new_limits.get(label, "")
        if before == after:
            continue
        narrowed = not before or (bool(after) and (float(after) - float(before)) * direction > 0)
        add(label, before, after, request and narrowed)
    if old.deprecated != new.deprecated:
        add("deprecated", str(old.deprecated).lower(), str(new.deprecated).lower(), False)
    return found


def _compare_fields(collector: _Collector, kind: str, where: str, old: dict[str, FieldState],
                    new: dict[str, FieldState], operation: str, request: bool) -> None:
    """Fields of one request body or response in both versions; a field defined in the same component schema
    in both is keyed by that schema (one change for every operation that uses it)."""
    for path in list(old) + [p for p in new if p not in old]:
        before, after = old.get(path), new.get(path)
        shared = next((f.owner for f in (after, before) if f is not None and f.owner), "")
        if before is not None and after is not None and before.owner != after.owner:
            shared = ""
        local = (after or before).local if shared else ""  # type: ignore[union-attr]
        name = f"{shared}.{local}" if shared and local else (path or where)
        if (before is None or after is None) and _parent(path) and _parent(path) not in (old if before is None
                                                                                      else new):
            continue  # a field that appears or disappears with its parent: only the topmost one is a change
        if before is None and after is not None:
            breaking = request and after.required
            change = Change(kind, "added", name, breaking, (operation,), schema=shared)
        elif after is None and before is not None:
            change = Change(kind, "removed", name, not request, (operation,), schema=shared)
        else:
            for item in _compare_field(kind, name, before, after, operation, request):  # type: ignore[arg-type]
                changed = Change(item.kind, item.action, item.name, item.breaking, item.operations, item.attribute,
                                 item.old, item.new, shared)
                _add_shared(collector, changed, where)
            continue
        _add_shared(collector, change, where)


def _parent(path: str) -> str:
    """The field a nested field sits in (`data[].name` → `data`; "" for a top-level field)."""
    if "." not in path:
        return ""
    parent = path.rsplit(".", 1)[0]
    while parent.endswith("[]"):
        parent = parent[:-2]
    return parent


def _add_shared(collector: _Collector, change: Change, where: str) -> None:
    """A change keyed by its schema and field when shared, else by its operation and place."""
    if change.schema:
        key = (change.kind, change.action, change.name, change.attribute, change.old, change.new, "schema")
    else:
        key = (change.kind, change.action, change.name, change.attribute, change.old, change.new, where,
               change.operations)
    collector.add(change, key)


def diff_documents(old: dict[str, Any], new: dict[str, Any], api: str = "", old_label: str = "old",
                   new_label: str = "new") -> SpecDiff:
    """Every change from the `old` OpenAPI document to the `new` one (both already validated)."""
    old_reader, new_reader = SpecReader(old), SpecReader(new)
    old_ops = {(o.method, _shape(o.path)): o for o in iter_operations(old)}
    new_ops = {(o.method, _shape(o.path)): o for o in iter_operations(new)}
    collector = _Collector()
    for key, operation in old_ops.items():
        if key not in new_ops:
            collector.add(Change("operation", "removed", operation_label(operation.method, operation.path), True,
                                 (operation_label(operation.method, operation.path),)))
    for key, operation in new_ops.items():
        label = operation_label(operation.method, operation.path)
        if key not in old_ops:
            collector.add(Change("operation", "added", label, False, (label,)))
            continue
        _compare_operation(collector, old_reader, new_reader, old_ops[key], operation, label)
    _compare_components(collector, old, new)
    info_old = old.get("info") if isinstance(old.get("info"), dict) else {}
    info_new = new.get("info") if isinstance(new.get("info"), dict) else {}
    return SpecDiff(api, old_label, new_label, _ordered(collector.result()), str(info_old.get("title", "")),
                    str(info_new.get("title", "")))


def _ordered(changes: Iterable[Change]) -> tuple[Change, ...]:
    """Operations removed and added first, then per-operation changes, then schemas and security schemes."""
    rank = {"operation": 0, "security-scheme": 2, "schema": 3}
    return tuple(sorted(changes, key=lambda c: (rank.get(c.kind, 1), c.action != "removed")))


def _compare_operation(collector: _Collector, old_reader: SpecReader, new_reader: SpecReader, old: Any, new: Any,
                       label: str) -> None:
    """Parameters, request body, responses, deprecation and security of one operation in both versions."""
    before_deprecated, after_deprecated = old.node.get("deprecated") is True, new.node.get("deprecated") is True
    if before_deprecated != after_deprecated:
        collector.add(Change("operation", "changed", label, False, (label,), "deprecated",
                             str(before_deprecated).lower(), str(after_deprecated).lower()))
    old_security, new_security = old_reader.security(old), new_reader.security(new)
    if old_security != new_security:
        collector.add(Change("operation", "changed", label, bool(set(new_security) - set(old_security)), (label,),
                             "security", ", ".join(old_security), ", ".join(new_security)))
    old_params, new_params = old_reader.parameters(old), new_reader.parameters(new)
    for name in old_params:
        if name not in new_params:
            collector.add(Change("parameter", "removed", name, False, (label,)))
    for name, parameter in new_params.items():
        required = parameter.get("required") is True
        if name not in old_params:
            collector.add(Change("parameter", "added", name, required, (label,)))
            continue
        before = old_reader.state(parameter_schema(old_params[name]), old_params[name].get("required") is True)
        after = new_reader.state(parameter_schema(parameter), required)
        before = _with_flag(before, old_params[name].get("deprecated") is True)
        after = _with_flag(after, parameter.get("deprecated") is True)
        for change in _compare_field("parameter", name, before, after, label, request=True):
            collector.add(change)
    _compare_body(collector, old_reader, new_reader, old, new, label)
    _compare_responses(collector, old_reader, new_reader, old, new, label)


def _with_flag(state: FieldState, deprecated: bool) -> FieldState:
    """A parameter's own `deprecated` flag (on the parameter, not its schema) folded in."""
    if not deprecated or state.deprecated:
        return state
    return FieldState(state.type, state.required, state.enum, state.default, state.limits, True, state.owner,
                      state.local)


def _compare_body(collector: _Collector, old_reader: SpecReader, new_reader: SpecReader, old: Any, new: Any,
                  label: str) -> None:
    old_body, new_body = old.node.get("requestBody"), new.node.get("requestBody")
    if old_body is None and new_body is None:
        return
    if old_body is None or new_body is None:
        required = new_body is not None and new_reader.deref(new_body).get("required") is True
        collector.add(Change("request-body", "added" if old_body is None else "removed", "request body", required,
                             (label,)))
        return
    before_required = old_reader.deref(old_body).get("required") is True
    after_required = new_reader.deref(new_body).get("required") is True
    if before_required != after_required:
        collector.add(Change("request-body", "changed", "request body", after_required, (label,), "required",
                             str(before_required).lower(), str(after_required).lower()))
    old_schema, new_schema = old_reader.body_schema(old_body), new_reader.body_schema(new_body)
    if old_schema is not None and new_schema is not None:
        _compare_fields(collector, "request-field", f"{label} request", old_reader.fields(old_schema),
                        new_reader.fields(new_schema), label, request=True)


def _compare_responses(collector: _Collector, old_reader: SpecReader, new_reader: SpecReader, old: Any, new: Any,
                       label: str) -> None:
    old_responses, new_responses = old_reader.responses(old), new_reader.responses(new)
    for code in old_responses:
        if code not in new_responses:
            collector.add(Change("response", "removed", code, code.startswith("2"), (label,)))
    for code, node in new_responses.items():
        if code not in old_responses:
            collector.add(Change("response", "added", code, False, (label,)))
            continue
        if not code.startswith("2"):
            continue
        old_schema, new_schema = old_reader.body_schema(old_responses[code]), new_reader.body_schema(node)
        if old_schema is not None and new_schema is not None:
            _compare_fields(collector, "response-field", f"{label} {code}", old_reader.fields(old_schema),
                            new_reader.fields(new_schema), label, request=False)


def _compare_components(collector: _Collector, old: dict[str, Any], new: dict[str, Any]) -> None:
    """Component schemas added and removed; security schemes added, removed or changed."""
    old_schemas, new_schemas = component_schemas(old), component_schemas(new)
    for name in old_schemas:
        if name not in new_schemas:
            collector.add(Change("schema", "removed", str(name), False))
    for name in new_schemas:
        if name not in old_schemas:
            collector.add(Change("schema", "added", str(name), False))
    old_schemes, new_schemes = security_schemes(old), security_schemes(new)
    for name, scheme in old_schemes.items():
        if name not in new_schemes:
            collector.add(Change("security-scheme", "removed", str(name), True))
        elif _scheme_key(scheme) != _scheme_key(new_schemes[name]):
            collector.add(Change("security-scheme", "changed", str(name), True, (), "scheme",
                                 describe_scheme(scheme), describe_scheme(new_schemes[name])))
    for name in new_schemes:
        if name not in old_schemes:
            collector.add(Change("security-scheme", "added", str(name), False))


def _scheme_key(scheme: Any) -> str:
    """What identifies a security scheme's behaviour (its description text left out)."""
    if not isinstance(scheme, dict):
        return ""
    return json.dumps({k: v for k, v in scheme.items() if k != "description"}, sort_keys=True, default=str)
