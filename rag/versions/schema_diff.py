"""Two schemas compared by structure, as a client sees them: `$ref`s followed (a renamed schema or an inline
object moved to a component is no change), `allOf` parts merged (a schema split into parts is no change),
property order, enum order and descriptions ignored.

`SchemaDiff.compare` walks an old and a new schema side by side and returns `Finding`s relative to the
schema it was given: a check suffix from `rag.versions.checks` (`max-length-increased`), the field's path
(`data[].name`), the component schema it lives in (the new version's name, for reading only), and the old
and new values. Whether a finding is an error depends on the direction (request or response), applied by
`rag.versions.diff`. Nullability reads both OpenAPI 3.0 (`nullable: true`) and 3.1 (`type: [x, "null"]`,
`oneOf: [x, {type: null}]`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rag.ingest.refs import RefResolver, component_schema_name
from rag.ingest.schema_prose import show_value

MAX_DEPTH = 10  # nested schemas compared below a body, response or parameter
# keyword → the limit's name in check ids
LIMIT_KEYWORDS: dict[str, str] = {
    "maximum": "max", "maxLength": "max-length", "maxItems": "max-items",
    "minimum": "min", "minLength": "min-length", "minItems": "min-items",
}
_IGNORED = {"description", "title", "example", "examples", "externalDocs", "xml", "$comment"}
# format → the formats it accepts besides itself (a wider format accepts every value of a narrower one)
_WIDER_FORMATS: dict[str, set[str]] = {"int64": {"int32"}, "double": {"float", "int32", "int64"},
                                        "float": {"int32"}}


@dataclass(frozen=True)
class Finding:
    """One difference between two schemas, relative to the schema compared (`path` "" is that schema)."""

    suffix: str  # a schema check suffix, or "property-added" / "property-removed"
    path: str = ""
    owner: str = ""
    old: str = ""
    new: str = ""
    required: bool = False  # of a property added (in the new version) or removed (in the old one)
    attribute: str = ""

    def inside(self, step: str) -> Finding:
        """The finding seen from one level up (`step` a property name or `[]`); one with an owner stays put."""
        if self.owner:
            return self
        path = step + ("" if not self.path else self.path if self.path.startswith("[]") else "." + self.path)
        return Finding(self.suffix, path, "", self.old, self.new, self.required, self.attribute)


@dataclass(frozen=True)
class Flat:
    """What is compared of one schema node once `$ref` and `allOf` are resolved."""

    types: frozenset[str]
    format: str
    nullable: bool
    enum: frozenset[str] | None
    pattern: str | None
    limits: dict[str, str]
    default: str | None
    properties: dict[str, Any]
    required: frozenset[str]
    items: Any
    alternatives: tuple[Any, ...]
    deprecated: bool
    read_only: bool
    write_only: bool

    @property
    def label(self) -> str:
        """`integer (int32)`, `string | null`, `any`."""
        text = "|".join(sorted(self.types)) or "any"
        text += f" ({self.format})" if self.format else ""
        return text + (" | null" if self.nullable else "")


@dataclass
class SchemaReader:
    """Resolves and flattens the schemas of one document (results cached per node)."""

    document: dict[str, Any]
    resolver: RefResolver = field(init=False)
    _flat: dict[int, Flat] = field(default_factory=dict)
    _prints: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.resolver = RefResolver(self.document)

    def deref(self, node: Any) -> tuple[dict[str, Any], str]:
        """The node its `$ref` chain leads to ({} when broken) and the component schema it names ("")."""
        ref = node.get("$ref") if isinstance(node, dict) else None
        target, _ = self.resolver.deref(node)
        name = component_schema_name(ref) if isinstance(ref, str) else None
        return (target if isinstance(target, dict) else {}), name or ""

    def flat(self, node: Any, depth: int = 0) -> Flat:
        """The node with `$ref`s followed, `allOf` merged, `null` alternatives folded into `nullable`."""
        target, _ = self.deref(node)
        cached = self._flat.get(id(target))
        if cached is not None:
            return cached
        merged = self._merged(target, depth)
        self._flat[id(target)] = merged
        return merged

    def _merged(self, target: dict[str, Any], depth: int) -> Flat:
        raw_type = target.get("type")
        types = {str(t) for t in raw_type} if isinstance(raw_type, list) else {str(raw_type)} if raw_type else set()
        nullable = target.get("nullable") is True or "null" in types
        types.discard("null")
        alternatives: list[Any] = []
        for keyword in ("oneOf", "anyOf"):
            options = target.get(keyword)
            alternatives += options if isinstance(options, list) else []
        non_null = [a for a in alternatives if self.deref(a)[0].get("type") not in ("null", ["null"])]
        nullable = nullable or len(non_null) < len(alternatives)
        properties = dict(target.get("properties") or {}) if isinstance(target.get("properties"), dict) else {}
        required = {str(r) for r in target.get("required") or [] if isinstance(r, str)}
        keywords = {k: v for k, v in target.items() if k not in ("allOf", "oneOf", "anyOf", "properties")}
        parts = [p for p in target.get("allOf") or [] if isinstance(p, dict)] if depth < MAX_DEPTH else []
        if len(non_null) == 1 and not parts:  # `oneOf: [X, {type: null}]` is X, nullable
            parts, non_null = [non_null[0]], []
        part_types: set[str] = set()
        for part in parts:
            flat = self.flat(part, depth + 1)
            properties = {**flat.properties, **properties}
            required |= flat.required
            part_types |= flat.types
            non_null += list(flat.alternatives)
            nullable = nullable or (flat.nullable and not types)
            for key, value in self._keywords(part).items():
                keywords.setdefault(key, value)
        if not types and non_null and not parts:  # `oneOf: [boolean, string]` is a boolean or a string
            options = [self.flat(a, depth + 1).types for a in non_null]
            types = set().union(*options) if all(options) else set()
        if not types:
            types = part_types or ({"object"} if properties else {"array"} if "items" in keywords else set())
        enum = keywords.get("enum")
        limits = {LIMIT_KEYWORDS[k]: show_value(keywords[k]) for k in LIMIT_KEYWORDS
                  if isinstance(keywords.get(k), (int, float)) and not isinstance(keywords.get(k), bool)}
        return Flat(
            types=frozenset(types), format=str(keywords.get("format") or ""), nullable=nullable,
            enum=frozenset(show_value(v) for v in enum if v is not None) if isinstance(enum, list) else None,
            pattern=str(keywords["pattern"]) if isinstance(keywords.get("pattern"), str) else None,
            limits=limits, default=show_value(keywords["default"]) if "default" in keywords else None,
            properties=properties, required=frozenset(required), items=keywords.get("items"),
            alternatives=tuple(non_null), deprecated=keywords.get("deprecated") is True,
            read_only=keywords.get("readOnly") is True, write_only=keywords.get("writeOnly") is True,
        )

    def _keywords(self, part: Any) -> dict[str, Any]:
        target, _ = self.deref(part)
        return {k: v for k, v in target.items() if k not in ("allOf", "oneOf", "anyOf", "properties", "required")}

    def fingerprint(self, node: Any, depth: int = 0, stack: tuple[int, ...] = ()) -> str:
        """A text that two schemas share exactly when a client cannot tell them apart (names, descriptions and
        order left out)."""
        target, _ = self.deref(node)
        if id(target) in stack or depth > MAX_DEPTH:
            return "<cycle>"
        cached = self._prints.get(id(target))
        if cached is not None:
            return cached
        flat = self.flat(target)
        inner = (*stack, id(target))
        view = {
            "type": flat.label, "enum": sorted(flat.enum) if flat.enum is not None else None,
            "pattern": flat.pattern, "limits": flat.limits, "default": flat.default,
            "required": sorted(flat.required), "deprecated": flat.deprecated,
            "properties": {k: self.fingerprint(v, depth + 1, inner) for k, v in sorted(flat.properties.items())},
            "items": self.fingerprint(flat.items, depth + 1, inner) if flat.items is not None else None,
            "one_of": sorted(self.fingerprint(a, depth + 1, inner) for a in flat.alternatives),
        }
        text = json.dumps(view, sort_keys=True)
        if not stack:
            self._prints[id(target)] = text
        return text


def _accepts(wide: Flat, narrow: Flat) -> bool:
    """Whether every value of `narrow`'s type and format is a value of `wide`'s."""
    if not wide.types:
        return True
    if not narrow.types:
        return False
    types = set(wide.types) | ({"integer"} if "number" in wide.types else set())
    if not narrow.types <= types:
        return False
    if not wide.format or wide.format == narrow.format:
        return True
    if "number" in wide.types and "integer" in narrow.types and not narrow.format and wide.format:
        return False
    return bool(narrow.format) and narrow.format in _WIDER_FORMATS.get(wide.format, set())


@dataclass
class SchemaDiff:
    """Compares schemas of an old and a new document by structure."""

    old: SchemaReader
    new: SchemaReader
    _memo: dict[tuple[int, int, bool], list[Finding]] = field(default_factory=dict)

    def compare(self, old: Any, new: Any, request: bool, depth: int = 0,
                stack: tuple[tuple[int, int], ...] = ()) -> list[Finding]:
        """Every difference from `old` to `new` (`request`: sent by the client, else read by it)."""
        old_target, old_name = self.old.deref(old)
        new_target, new_name = self.new.deref(new)
        pair = (id(old_target), id(new_target))
        if pair in stack or depth > MAX_DEPTH:
            return []
        key = (*pair, request)
        if key in self._memo:
            return self._memo[key]
        found = self._compare(self.old.flat(old_target), self.new.flat(new_target), request, depth, (*stack, pair))
        owner = new_name or old_name
        if owner:
            found = [f if f.owner else Finding(f.suffix, f.path, owner, f.old, f.new, f.required, f.attribute)
                     for f in found]
        self._memo[key] = found
        return found

    def _compare(self, old: Flat, new: Flat, request: bool, depth: int,
                 stack: tuple[tuple[int, int], ...]) -> list[Finding]:
        found: list[Finding] = []
        both_unions = bool(old.alternatives) and bool(new.alternatives)  # compared alternative by alternative
        if (old.types != new.types or old.format != new.format) and not both_unions:
            if _accepts(new, old) and not _accepts(old, new):
                suffix = "type-generalized"
            elif _accepts(old, new) and not _accepts(new, old):
                suffix = "type-specialized"
            else:
                suffix = "type-changed"
            found.append(Finding(suffix, old=old.label, new=new.label, attribute="type"))
            if old.types and new.types and not old.types & new.types:
                return found  # nothing below a type that became another is comparable
        if old.nullable != new.nullable:
            found.append(Finding("became-nullable" if new.nullable else "became-not-nullable",
                                 old=str(old.nullable).lower(), new=str(new.nullable).lower(), attribute="nullable"))
        found += _enum(old, new)
        if old.pattern != new.pattern:
            suffix = "pattern-added" if old.pattern is None else "pattern-removed" if new.pattern is None \
                else "pattern-changed"
            found.append(Finding(suffix, old=old.pattern or "", new=new.pattern or "", attribute="pattern"))
        for limit in LIMIT_KEYWORDS.values():
            before, after = old.limits.get(limit), new.limits.get(limit)
            if before == after:
                continue
            if before is None:
                suffix = f"{limit}-set"
            elif after is None:
                suffix = f"{limit}-removed"
            else:
                suffix = f"{limit}-{'increased' if float(after) > float(before) else 'decreased'}"
            found.append(Finding(suffix, old=before or "", new=after or "", attribute=limit.replace("-", " ")))
        if old.default != new.default:
            found.append(Finding("default-value-changed", old=old.default or "", new=new.default or "",
                                 attribute="default"))
        if new.deprecated and not old.deprecated:
            found.append(Finding("deprecated", old="false", new="true", attribute="deprecated"))
        found += self._properties(old, new, request, depth, stack)
        if old.items is not None and new.items is not None:
            found += [f.inside("[]") for f in self.compare(old.items, new.items, request, depth + 1, stack)]
        if both_unions or not any(f.attribute == "type" for f in found):
            found += self._alternatives(old, new, request, depth, stack)
        return found

    def _properties(self, old: Flat, new: Flat, request: bool, depth: int,
                    stack: tuple[tuple[int, int], ...]) -> list[Finding]:
        found: list[Finding] = []
        for name in list(old.properties) + [n for n in new.properties if n not in old.properties]:
            before, after = old.properties.get(name), new.properties.get(name)
            flags = [self.old.flat(before) if before is not None else None,
                     self.new.flat(after) if after is not None else None]
            # a read-only field is never sent, a write-only one never returned
            if any(f is not None and (f.read_only if request else f.write_only) for f in flags):
                continue
            if before is None:
                with_default = flags[1] is not None and flags[1].default is not None
                found.append(Finding("property-added", name, required=name in new.required and not with_default))
                continue
            if after is None:
                found.append(Finding("property-removed", name, required=name in old.required))
                continue
            was, now = name in old.required, name in new.required
            if was != now and not (now and request and flags[1] is not None and flags[1].default is not None):
                found.append(Finding("became-required" if now else "became-optional", name,
                                     old=str(was).lower(), new=str(now).lower(), attribute="required"))
            found += [f.inside(name) for f in self.compare(before, after, request, depth + 1, stack)]
        return found

    def _alternatives(self, old: Flat, new: Flat, request: bool, depth: int,
                      stack: tuple[tuple[int, int], ...]) -> list[Finding]:
        if not old.alternatives and not new.alternatives:
            return []
        old_prints = [self.old.fingerprint(a) for a in old.alternatives]
        new_prints = [self.new.fingerprint(a) for a in new.alternatives]
        gone = [a for a, p in zip(old.alternatives, old_prints, strict=True) if p not in new_prints]
        came = [a for a, p in zip(new.alternatives, new_prints, strict=True) if p not in old_prints]
        if old.alternatives and new.alternatives and len(gone) == len(came):
            # the same number of alternatives changed: each one changed in place
            found: list[Finding] = []
            for before, after in zip(gone, came, strict=True):
                found += self.compare(before, after, request, depth + 1, stack)
            return found
        found = []
        if gone:
            found.append(Finding("one-of-removed", old=", ".join(self._name(self.old, a) for a in gone),
                                 attribute="one of"))
        if came:
            found.append(Finding("one-of-added", new=", ".join(self._name(self.new, a) for a in came),
                                 attribute="one of"))
        return found

    @staticmethod
    def _name(reader: SchemaReader, node: Any) -> str:
        _, name = reader.deref(node)
        return name or reader.flat(node).label


def _enum(old: Flat, new: Flat) -> list[Finding]:
    if old.enum == new.enum:
        return []
    if old.enum is None:
        return [Finding("became-enum", old="(any)", new=", ".join(sorted(new.enum or ())), attribute="enum")]
    if new.enum is None:
        return [Finding("enum-removed", old=", ".join(sorted(old.enum)), new="(any)", attribute="enum")]
    found: list[Finding] = []
    if old.enum - new.enum:
        found.append(Finding("enum-value-removed", old=", ".join(sorted(old.enum - new.enum)), attribute="enum"))
    if new.enum - old.enum:
        found.append(Finding("enum-value-added", new=", ".join(sorted(new.enum - old.enum)), attribute="enum"))
    return found
