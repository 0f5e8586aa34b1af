"""Render OpenAPI schemas as readable, indented prose that keeps every fact.

Every `default`, `enum`, `minimum`/`maximum`, `required`, `nullable`, `deprecated`, `format`,
`pattern` and example survives; referenced schemas keep their names ("data (array of Employee)")
and are inlined to a fixed depth. Cycles are cut with a note instead of looping.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from rag.chunk import BodyAlternative, FieldFacts
from rag.field_facts import field_line
from rag.ingest.clean_text import clean_prose, one_line
from rag.ingest.refs import RefResolver, component_schema_name, names_a_definition, ref_name
from rag.ingest.request_example import Sampler, body_sample, joined

MAX_EXAMPLE_CHARS = 300
# Inline sub-schemas (reached without a `$ref`) appear in no other chunk, so they are shown below
# `max_depth` too, down to this depth; referenced schemas stop at `max_depth` (they have their own chunk).
MAX_INLINE_DEPTH = 32
# A choice among choices (`oneOf` inside `oneOf`) is read this many levels down.
MAX_CHOICE_DEPTH = 3

# (keyword, `FieldFacts` field) of the values a schema node states; `rag.field_facts` puts them in words.
_VALUE_KEYWORDS: tuple[tuple[str, str], ...] = (
    ("default", "default"),
    ("const", "const"),
    ("minimum", "minimum"),
    ("maximum", "maximum"),
    ("exclusiveMinimum", "exclusive_minimum"),
    ("exclusiveMaximum", "exclusive_maximum"),
    ("multipleOf", "multiple_of"),
    ("minLength", "min_length"),
    ("maxLength", "max_length"),
    ("pattern", "pattern"),
    ("minItems", "min_items"),
    ("maxItems", "max_items"),
    ("uniqueItems", "unique_items"),
    ("minProperties", "min_properties"),
    ("maxProperties", "max_properties"),
)
_FLAG_KEYWORDS = (("deprecated", "deprecated"), ("readOnly", "read_only"), ("writeOnly", "write_only"))


def show_value(value: Any) -> str:
    """Show a default/enum/example value compactly as JSON (strings unquoted when plain)."""
    if isinstance(value, str):
        shown = one_line(value) if "\n" in value or "\r" in value else value  # one line per field
    else:
        shown = json.dumps(value, ensure_ascii=False, default=str)
    if len(shown) > MAX_EXAMPLE_CHARS:
        shown = shown[:MAX_EXAMPLE_CHARS] + "…"
    return shown


def enum_values(schema: dict[str, Any]) -> tuple[str, ...]:
    """A schema's enum values as the chunk shows them (`null` for None; empty when it has no enum)."""
    values = schema.get("enum")
    if not isinstance(values, list):
        return ()
    return tuple(show_value(v) if v is not None else "null" for v in values)


def item_enum_values(schema: dict[str, Any]) -> tuple[str, ...]:
    """The enum values of an array schema's items (empty when they have none)."""
    items = schema.get("items")
    return enum_values(items) if isinstance(items, dict) else ()


@dataclass
class SchemaProse:
    """Stateful renderer for one document: collects every schema name it references."""

    resolver: RefResolver
    max_depth: int = 2
    referenced: list[str] = field(default_factory=list)
    # Refs to a place in another structure whose type is being described (a ref back to one of them stops there).
    _expanding: set[str] = field(default_factory=set, repr=False)

    def note_ref(self, name: str | None) -> None:
        """Remember that `name` was referenced (order of first appearance)."""
        if name and name not in self.referenced:
            self.referenced.append(name)

    # ---------------------------------------------------------------- types
    def type_label(self, schema: Any) -> str:
        """A short type description: `string (date-time)`, `array of Employee`, `one of A | B`."""
        if not isinstance(schema, dict):
            return "any"
        if isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            if self.resolver.lookup(ref) is None:  # external or broken: never followed
                return f"unresolved reference {ref}"
            self.note_ref(component_schema_name(ref))  # only component schemas become ref_ids
            if names_a_definition(ref):
                return ref_name(ref)
            if ref in self._expanding:  # a place in another structure that refers back to itself
                return "object"
            self._expanding.add(ref)  # a place in another structure: what is there, described
            try:
                return self.type_label(self.resolver.lookup(ref))
            finally:
                self._expanding.discard(ref)
        for keyword, word in (("oneOf", "one of"), ("anyOf", "any of")):
            options = schema.get(keyword)
            if isinstance(options, list) and options:
                labels = [self.type_label(option) for option in options]
                return f"{word} " + " | ".join(dict.fromkeys(labels))
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and all_of:
            # Parts with the same label say it once: anonymous objects merged are one object, not "all of object &
            # object"; a part that sets no type (a description beside a `$ref`, as AWS's specs write every field)
            # adds none: `WorkMailIdentifier`, not "all of WorkMailIdentifier & any".
            labels = list(dict.fromkeys(self.type_label(part) for part in all_of))
            labels = [label for label in labels if label != "any"] or labels
            return labels[0] if len(labels) == 1 else "all of " + " & ".join(labels)
        kind = schema.get("type")
        if isinstance(kind, list):
            kinds = [str(k) for k in kind if k != "null"]
            kind = kinds[0] if len(kinds) == 1 else " or ".join(kinds) or "null"
        if kind == "array" or (kind is None and "items" in schema):
            return f"array of {self.type_label(schema.get('items', {}))}"
        if kind is None:
            kind = "object" if "properties" in schema else "any"
        if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            return f"map of string to {self.type_label(schema['additionalProperties'])}"
        fmt = schema.get("format")
        return f"{kind} ({fmt})" if fmt else str(kind)

    def flag_values(self, schema: dict[str, Any]) -> dict[str, bool]:
        """The states a schema node marks (`nullable`, `deprecated`, `read_only`, `write_only`) as `FieldFacts`
        fields; only those it sets."""
        kind = schema.get("type")
        found = {"nullable": schema.get("nullable") is True or (isinstance(kind, list) and "null" in kind)}
        found.update((key, schema.get(keyword) is True) for keyword, key in _FLAG_KEYWORDS)
        return {key: True for key, value in found.items() if value}

    def facts(self, schema: Any, label: str | None = None) -> list[str]:
        """Sentences for defaults, enums, limits, patterns and examples of one schema node (`Label: value.`, as a
        field line shows them). `label` is the type label shown beside them; a `format` it does not show becomes
        a fact."""
        values = FieldFacts("", "", **self.value_facts(schema, label)).values()
        return [f"{title}: {value}." for _, title, value in values]

    def value_facts(self, schema: Any, label: str | None = None) -> dict[str, Any]:
        """The values one schema node states, as `FieldFacts` fields: its format (when `label`, the type label
        shown, does not show it), default, const, limits, enums, its items' default and format, examples."""
        if not isinstance(schema, dict):
            return {}
        found: dict[str, Any] = {}
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt and f"({fmt})" not in (self.type_label(schema) if label is None else label):
            found["format"] = fmt
        for keyword, key in _VALUE_KEYWORDS:
            value = schema.get(keyword)
            if keyword in schema and (keyword in ("default", "const") or not isinstance(value, (dict, list))):
                numeric = isinstance(value, (int, float)) and key not in ("default", "const")
                found[key] = value if numeric else show_value(value)
        found.update(enum=enum_values(schema), item_enum=item_enum_values(schema))
        items = schema.get("items")
        if isinstance(items, dict) and "$ref" not in items:
            found.update({key: show_value(items[keyword]) for keyword, key in (("default", "item_default"),
                                                                               ("format", "item_format"))
                          if keyword in items})
        if "example" in schema:
            found["example"] = (show_value(schema["example"]),)
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            found["examples"] = tuple(show_value(v) for v in schema["examples"])
        return found

    def merged_keywords(self, schema: Any, stack: tuple[str, ...] = ()) -> dict[str, Any]:
        """The keywords of a schema with its `$ref` target and `allOf` parts folded in, so that
        `allOf: [{$ref: StatusEnum}]` keeps the enum, default and limits of StatusEnum.
        Keywords written on the schema itself win over its target's, which win over its parts'."""
        target, name = self.resolver.deref(schema)
        if not isinstance(target, dict) or (name and name in stack):
            return {}
        stack = (*stack, name) if name else stack
        merged: dict[str, Any] = {}
        parts = target.get("allOf")
        for part in parts if isinstance(parts, list) else []:
            merged.update(self.merged_keywords(part, stack))
        merged.update(target)
        if isinstance(schema, dict) and schema is not target:
            merged.update(schema)
        merged.pop("$ref", None)
        merged.pop("allOf", None)
        return merged

    # ---------------------------------------------------------------- objects
    def merged_object(self, schema: Any, stack: tuple[str, ...]) -> tuple[dict[str, Any], set[str]]:
        """Properties and required names of an object, merging `allOf` parts (refs followed)."""
        properties: dict[str, Any] = {}
        required: set[str] = set()
        target, name = self.resolver.deref(schema)
        if not isinstance(target, dict) or (name and name in stack):
            return properties, required
        inner_stack = (*stack, name) if name else stack
        for part in target.get("allOf", []) if isinstance(target.get("allOf"), list) else []:
            part_properties, part_required = self.merged_object(part, inner_stack)
            properties.update(part_properties)
            required |= part_required
        if isinstance(target.get("properties"), dict):
            properties.update(target["properties"])
        if isinstance(target.get("required"), list):
            required |= {str(r) for r in target["required"]}
        return properties, required

    def alternatives(self, schema: Any, around: dict[str, Any] | None = None,
                     discriminator: dict[str, Any] | None = None, depth: int = 0) -> list[BodyAlternative]:
        """The objects a `oneOf` / `anyOf` schema allows, each with its fields (the schema's own properties with
        the alternative's, `nested` one level down); an alternative that is itself a choice among objects
        (Vonage's message body: one of SMS, MMS, WhatsApp…, each one of its message types) gives its own
        alternatives instead (`around`: the properties of the choices it sits in, `discriminator` theirs); none
        unless at least two alternatives have fields."""
        target, _ = self.resolver.deref(schema)
        if not isinstance(target, dict):
            return []
        own = joined(around or {}, {key: value for key, value in target.items()
                                    if key not in ("oneOf", "anyOf", "discriminator")})
        stated = target.get("discriminator")
        chosen: dict[str, Any] = stated if isinstance(stated, dict) else discriminator or {}
        found = []
        for option in choices(target):
            inner, _ = self.resolver.deref(option)
            if not isinstance(inner, dict):
                continue
            if choices(inner) and depth < MAX_CHOICE_DEPTH:
                found.extend(self.alternatives(option, own, chosen, depth + 1))
                continue
            whole = joined(own, inner)
            fields = self.top_level_fields(whole, nested=1)
            if fields:
                name = self.alternative_name(option, whole, chosen)
                example = json.dumps(body_sample(Sampler(self.resolver), whole), ensure_ascii=False)
                found.append(BodyAlternative(self.type_label(option), tuple(fields), name, example))
        return found if len(found) >= 2 or depth else []

    def alternative_name(self, option: Any, whole: dict[str, Any], discriminator: dict[str, Any]) -> str:
        """What the spec calls one alternative of a `oneOf` / `anyOf`: the discriminator value that maps to its
        `$ref`, else the one value its discriminator property allows, else its title, else its schema's name."""
        ref = option.get("$ref") if isinstance(option, dict) else None
        mapping = discriminator.get("mapping")
        if isinstance(ref, str) and isinstance(mapping, dict):
            for value, target in mapping.items():
                if isinstance(target, str) and (target == ref or target.rsplit("/", 1)[-1] == ref.rsplit("/", 1)[-1]):
                    return str(value)
        prop = discriminator.get("propertyName")
        if isinstance(prop, str):
            properties, _ = self.merged_object(whole, ())
            chosen, _ = self.resolver.deref(properties.get(prop))
            if isinstance(chosen, dict):
                if "const" in chosen:
                    return str(chosen["const"])
                if isinstance(chosen.get("enum"), list) and len(chosen["enum"]) == 1:
                    return str(chosen["enum"][0])
        inner, _ = self.resolver.deref(option)
        if isinstance(inner, dict) and isinstance(inner.get("title"), str) and inner["title"].strip():
            return inner["title"].strip()
        if isinstance(ref, str) and names_a_definition(ref):
            return ref_name(ref)
        return " / ".join(self.single_values(whole))

    def single_values(self, schema: dict[str, Any]) -> list[str]:
        """The values of the properties of `schema` that allow only one (`const`, or an `enum` of one): what an
        alternative without a name is told apart by (Vonage's `message_type` text, `channel` sms)."""
        properties, _ = self.merged_object(schema, ())
        found = []
        for prop in properties.values():
            keywords = self.merged_keywords(prop)
            if "const" in keywords:
                found.append(str(keywords["const"]))
            elif isinstance(keywords.get("enum"), list) and len(keywords["enum"]) == 1:
                found.append(str(keywords["enum"][0]))
        return found

    def expandable(self, schema: Any) -> tuple[Any, str | None]:
        """The schema whose fields should be shown under a field (through arrays and refs)."""
        target, name = self.resolver.deref(schema)
        if isinstance(target, dict) and (target.get("type") == "array" or "items" in target):
            items = target.get("items", {})
            inner, inner_name = self.resolver.deref(items)
            return inner, inner_name or name
        return target, name

    def inline_properties(self, target: dict[str, Any]) -> dict[str, Any]:
        """The properties written inline in `target` and its inline `allOf` parts (no `$ref` followed)."""
        found: dict[str, Any] = {}
        parts = target.get("allOf")
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and "$ref" not in part:
                found.update(self.inline_properties(part))
        if isinstance(target.get("properties"), dict):
            found.update(target["properties"])
        return found

    def field_lines(
        self, schema: Any, indent: int, depth: int, stack: tuple[str, ...], owned: bool = True
    ) -> list[str]:
        """Lines for the fields of an object schema (or of an array's items) at `depth` (1 = top level).

        `owned`: the schema was reached from the chunk's own schema without following a `$ref`; its
        inline sub-schemas are then shown past `max_depth`, since no other chunk shows them."""
        target, name = self.expandable(schema)
        if not isinstance(target, dict):
            return []
        if name and name in stack:
            return ["  " * indent + f"(recursive reference to {name}; see above)"]
        owned = owned and name is None
        inner_stack = (*stack, name) if name else stack
        properties, required = self.merged_object(target, stack)
        inline = self.inline_properties(target) if owned else {}
        lines: list[str] = []
        for prop_name, prop_schema in properties.items():
            lines.extend(
                self.property_lines(
                    str(prop_name),
                    prop_schema,
                    prop_name in required,
                    indent,
                    depth,
                    inner_stack,
                    owned=inline.get(prop_name) is prop_schema,
                )
            )
        lines.extend(self.composition_lines(target, indent, depth, inner_stack, owned=owned))
        additional = target.get("additionalProperties")
        if isinstance(additional, dict) and not properties:
            lines.append("  " * indent + f"- (any key) ({self.type_label(additional)})")
        return lines

    def _expands(self, depth: int, owned: bool) -> bool:
        return depth < self.max_depth or (owned and depth < MAX_INLINE_DEPTH)

    def composition_lines(
        self, target: dict[str, Any], indent: int, depth: int, stack: tuple[str, ...], owned: bool = False
    ) -> list[str]:
        """Lines for `oneOf`/`anyOf` alternatives, each expanded while depth allows."""
        lines: list[str] = []
        for keyword, word in (("oneOf", "One of"), ("anyOf", "Any of")):
            options = target.get(keyword)
            if not isinstance(options, list) or not options:
                continue
            labels = [self.type_label(option) for option in options]
            discriminator = target.get("discriminator")
            note = ""
            if isinstance(discriminator, dict) and discriminator.get("propertyName"):
                note = f" (discriminator: {discriminator['propertyName']})"
            lines.append("  " * indent + f"{word}{note}: " + " | ".join(labels))
            for option, label in zip(options, labels, strict=True):
                option_owned = owned and isinstance(option, dict) and "$ref" not in option
                if self._expands(depth, option_owned):
                    sub = self.field_lines(option, indent + 1, depth + 1, stack, owned=option_owned)
                    if sub:
                        lines.append("  " * (indent + 1) + f"[{label}]")
                        lines.extend(sub)
        return lines

    def field_facts(self, name: str, schema: dict[str, Any], required: bool) -> FieldFacts:
        """The facts of one object field: type label, flags, description, defaults, enums and limits."""
        label = self.type_label(schema)
        target, _ = self.resolver.deref(schema)
        target = target if isinstance(target, dict) else {}
        # Facts on the field itself win; facts of a referenced schema and of `allOf` parts are shown too.
        merged = self.merged_keywords(schema)
        return FieldFacts(
            name=name,
            type=label,
            required=required,
            description=clean_prose(schema.get("description") or target.get("description")),
            **self.flag_values(merged),
            **self.value_facts(merged, label),
        )

    def top_level_fields(self, schema: Any, nested: int = 0) -> list[FieldFacts]:
        """The facts of the fields `field_lines` shows first (an object's properties, or its items'), each with
        its own fields `nested` levels down."""
        target, _ = self.expandable(schema)
        if not isinstance(target, dict):
            return []
        properties, required = self.merged_object(target, ())
        return [
            replace(facts, fields=tuple(self.top_level_fields(prop, nested - 1))) if nested > 0 else facts
            for name, prop in properties.items()
            if isinstance(prop, dict)
            for facts in (self.field_facts(str(name), prop, name in required),)
        ]

    def property_lines(
        self,
        name: str,
        schema: Any,
        required: bool,
        indent: int,
        depth: int,
        stack: tuple[str, ...],
        owned: bool = False,
    ) -> list[str]:
        """One field line (type, flags, description, facts) plus its nested fields."""
        if not isinstance(schema, dict):
            return ["  " * indent + f"- {name}"]
        lines = ["  " * indent + field_line(self.field_facts(name, schema, required))]
        target, _ = self.resolver.deref(schema)
        target = target if isinstance(target, dict) else {}
        inner, inner_name = self.expandable(schema)
        inner_owned = owned and inner_name is None
        if self._expands(depth, inner_owned):
            if inner_name and inner_name in stack:
                lines.append("  " * (indent + 1) + f"(recursive reference to {inner_name})")
            elif isinstance(inner, dict) and (
                inner.get("properties") or inner.get("allOf") or inner.get("oneOf") or inner.get("anyOf")
            ):
                nested_stack = (*stack, inner_name) if inner_name else stack
                nested = self.field_lines(inner, indent + 1, depth + 1, nested_stack, owned=inner_owned)
                lines.extend(nested)
            elif isinstance(inner, dict) and inner_name and inner is not target and isinstance(inner.get("enum"), list):
                lines.append("  " * (indent + 1) + " ".join(self.facts(inner)))
        return lines

    def schema_summary(self, schema: Any) -> list[str]:
        """Lines describing a non-object schema (type, flags, facts), e.g. for an enum schema."""
        target, _ = self.resolver.deref(schema)
        if not isinstance(target, dict):
            return []
        merged = self.merged_keywords(schema)
        parts = [f"Type: {self.type_label(schema)}"]  # an alias (`$ref` only) keeps its target's name
        flags = FieldFacts("", "", **self.flag_values(merged)).flag_words(with_required=False)
        if flags:
            parts.append("(" + ", ".join(flags) + ")")
        line = " ".join(parts) + "."
        facts = self.facts(merged, parts[0])
        return [line + (" " + " ".join(facts) if facts else "")]


def choices(schema: dict[str, Any]) -> list[Any]:
    """The alternatives a schema offers: its `oneOf`, else its `anyOf` (none when it has neither)."""
    return next((schema[key] for key in ("oneOf", "anyOf") if isinstance(schema.get(key), list)), [])
