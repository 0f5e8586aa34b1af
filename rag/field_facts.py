"""A field's facts as typed values — a parameter's, or a request body, response or schema field's — and the one place
they are put in words: the chunk's field line (`- page_size (query, integer, optional): Results per page Default: 25.
Maximum: 100.`) and an answer's value facts ("default 25", "maximum 100"). Nothing reads a label back."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any, Self

Scalar = str | int | float | bool


class JsonFacts:
    """JSON round trip of the facts dataclasses: tuples are written as lists and read back as tuples."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (every field; nested `fields` as `FieldFacts.to_dict` writes them)."""
        data: dict[str, Any] = asdict(self)  # type: ignore[call-overload]
        if "fields" in data:
            data["fields"] = [item.to_dict() for item in getattr(self, "fields", ())]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild from `to_dict` (keys it does not know are ignored; nested `fields` as `FieldFacts`)."""
        known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        values = {key: _frozen(value) for key, value in data.items() if key in known and key != "fields"}
        if "fields" in known:
            values["fields"] = tuple(FieldFacts.from_dict(f) for f in data.get("fields", ()))
        return cls(**values)


def _frozen(value: Any) -> Any:
    """JSON lists (nested too) back to tuples."""
    return tuple(_frozen(item) for item in value) if isinstance(value, list) else value


@dataclass(frozen=True)
class FieldFacts(JsonFacts):
    """One parameter or body, response or schema field, as the chunker read it from the spec (its `$ref` target and
    `allOf` parts folded in).

    The values are the spec's: `default`, `const`, `example` (a schema's, then a parameter's own) and the items'
    `item_default` as the chunk shows them (JSON text, a string as it is); the limits (`minimum` … `max_properties`)
    as the spec gives them; `format` only when the type label does not show it. `shared_by` and `operations`: a
    parameter most operations share (a conventions chunk's) is taken by `shared_by` of the API's `operations`.
    """

    name: str
    type: str
    location: str = ""  # query, header, path or cookie for a parameter; "" for a body field
    required: bool = False
    nullable: bool = False
    deprecated: bool = False
    read_only: bool = False
    write_only: bool = False
    description: str = ""
    format: str | None = None
    default: str | None = None
    const: str | None = None
    minimum: Scalar | None = None
    maximum: Scalar | None = None
    exclusive_minimum: Scalar | None = None
    exclusive_maximum: Scalar | None = None
    multiple_of: Scalar | None = None
    min_length: Scalar | None = None
    max_length: Scalar | None = None
    pattern: str | None = None
    min_items: Scalar | None = None
    max_items: Scalar | None = None
    unique_items: Scalar | None = None
    min_properties: Scalar | None = None
    max_properties: Scalar | None = None
    enum: tuple[str, ...] = ()
    item_enum: tuple[str, ...] = ()
    item_default: str | None = None
    item_format: str | None = None
    example: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()  # a schema's `examples` list
    shared_by: int = 0
    operations: int = 0
    fields: tuple[FieldFacts, ...] = ()  # an object's (or its items') own fields, one level down

    @property
    def limits(self) -> list[tuple[str, str]]:
        """The limits the spec sets on the value, in words: `("maximum", "100")`, `("max length", "34")`,
        `("pattern", "^SM…$")`; a length or count of at least 0 is none."""
        return [(label.lower(), shown) for key, label, shown in self.values()
                if key in LIMITS and not (key in VACUOUS_AT_ZERO and getattr(self, key) == 0)]

    @property
    def allows(self) -> bool:
        """Whether the spec says which values the field allows: an enum (of the field or its items), or the range a
        number must fall in ("what values can the vote have?": minimum 1, maximum 10)."""
        numeric = self.type.startswith(("integer", "number"))
        return bool(self.enum or self.item_enum or (numeric and self.limits))

    def values(self) -> list[tuple[str, str, str]]:
        """Every value fact as (field, label, value shown), in the order the chunk shows them."""
        shown: list[tuple[str, str, str]] = []
        for key, label in VALUE_LABELS:
            value = getattr(self, key)
            if key in _JOINED:
                if value:
                    shown.append((key, label, _JOINED[key].join(value)))
            elif key == "example":
                shown.extend((key, label, item) for item in value)
            elif value is not None:
                shown.append((key, label, shown_scalar(value)))
        return shown

    def flag_words(self, with_required: bool = True) -> list[str]:
        """The words the field line shows beside the type: `required` or `optional` (a schema's own summary
        shows neither: `with_required` False), `nullable`, `deprecated`, `read-only`, `write-only`."""
        flags = ["required" if self.required else "optional"] if with_required else []
        return flags + [word for key, word in _FLAG_WORDS if getattr(self, key)]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view: the name, the type and every value the spec gives (defaults left out)."""
        empty = FieldFacts("", "")
        data: dict[str, Any] = {"name": self.name, "type": self.type}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name not in data and value != getattr(empty, item.name):
                data[item.name] = [f.to_dict() for f in value] if item.name == "fields" else _listed(value)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild from `to_dict`, or from the shape an index written before typed values stored (`flags` words and
        `facts` as (label, value) pairs: read through `VALUE_LABELS`, the table the field line is written with)."""
        if "flags" in data or "facts" in data:
            data = _typed_from_labels(data)
        return super().from_dict(data)


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def shown_scalar(value: Scalar) -> str:
    """A limit as the chunk shows it: JSON (`true`, `1.5`), a string as it is."""
    return value if isinstance(value, str) else json.dumps(value)


# (field, label): how the chunk's field line and an answer name each value fact, in the order they are shown.
VALUE_LABELS: tuple[tuple[str, str], ...] = (
    ("format", "Format"),
    ("default", "Default"),
    ("const", "Const"),
    ("minimum", "Minimum"),
    ("maximum", "Maximum"),
    ("exclusive_minimum", "Exclusive minimum"),
    ("exclusive_maximum", "Exclusive maximum"),
    ("multiple_of", "Multiple of"),
    ("min_length", "Min length"),
    ("max_length", "Max length"),
    ("pattern", "Pattern"),
    ("min_items", "Min items"),
    ("max_items", "Max items"),
    ("unique_items", "Unique items"),
    ("min_properties", "Min properties"),
    ("max_properties", "Max properties"),
    ("enum", "Enum"),
    ("item_enum", "Item enum"),
    ("item_default", "Item default"),
    ("item_format", "Item format"),
    ("example", "Example"),
    ("examples", "Examples"),
)
# The value facts that limit what a value may be ("what's the largest page_size?" asks for one).
LIMITS = frozenset({"minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "min_length", "max_length",
                    "min_items", "max_items", "pattern"})
# A lower bound of 0 on a length or a count holds for every value: it limits nothing (an array's `minItems: 0`), and
# the chunk's text shows it as the spec writes it.
VACUOUS_AT_ZERO = frozenset({"min_length", "min_items"})
_JOINED = {"enum": ", ", "item_enum": ", ", "examples": "; "}
_FLAG_WORDS = (("nullable", "nullable"), ("deprecated", "deprecated"), ("read_only", "read-only"),
               ("write_only", "write-only"))


def field_line(facts: FieldFacts, parameter: bool = False) -> str:
    """`- name (type, flags): description Label: value.`; a parameter shows its location first."""
    inside = ", ".join([facts.location, facts.type, *facts.flag_words()] if parameter
                       else [facts.type, *facts.flag_words()])
    text = f"- {facts.name} ({inside})"
    if facts.description:
        text += f": {facts.description}"
    values = facts.values()
    if values:
        text += (" " if facts.description else ": ") + " ".join(f"{label}: {value}." for _, label, value in values)
    return text


# The value facts a spec gives as numbers (or, `uniqueItems`, a boolean): stored as given, shown as JSON.
_SCALARS = frozenset({"minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of", "min_length",
                      "max_length", "min_items", "max_items", "unique_items", "min_properties", "max_properties"})


def _scalar(shown: str) -> Scalar:
    """A number or boolean shown as JSON back as it was given (`100`, `1.5`, `true`); other text as it is."""
    try:
        value = json.loads(shown)
    except ValueError:
        return shown
    return value if isinstance(value, (int, float, bool)) else shown


def _typed_from_labels(data: dict[str, Any]) -> dict[str, Any]:
    """The typed keys of a field stored before typed values: its `flags` words and its `facts` pairs (the enums
    were stored apart already; `Operations` was the shared-parameter mark, `59 of 74`)."""
    typed = {key: value for key, value in data.items() if key not in ("flags", "facts")}
    words = set(data.get("flags") or ())
    typed.update({key: True for key, word in (("required", "required"), *_FLAG_WORDS) if word in words})
    by_label = {label: key for key, label in VALUE_LABELS}
    examples: list[str] = []
    for label, value in data.get("facts") or ():
        key = by_label.get(label)
        if label == "Operations":
            shared, _, total = str(value).partition(" of ")
            typed.update(shared_by=int(shared), operations=int(total or 0))
        elif key == "example":
            examples.append(value)
        elif key == "examples":
            typed[key] = value.split("; ")
        elif key is not None and key not in _JOINED:
            typed[key] = _scalar(value) if key in _SCALARS else value
    typed["example"] = examples
    return typed
