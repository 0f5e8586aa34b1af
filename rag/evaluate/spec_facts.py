"""Facts the test-set generator reads from smart chunks: a field's default, enum values and limits (its typed values,
or what its description states in `Label: value.` form, as specs write in prose: "Default: 20. Maximum: 50."), and
an operation's facts from its chunk's fields."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.chunk import Chunk, FieldFacts
from rag.field_facts import VALUE_LABELS

LOCATIONS = frozenset({"query", "header", "path", "cookie"})
_WORD = re.compile(r"[a-z0-9]+")


def stated_facts(field: FieldFacts) -> tuple[str, dict[str, str]]:
    """A field's description and its value facts by `FieldFacts` field (`default`, `maximum`, `enum` …), shown as
    the chunk shows them. Facts its description states come first, then the schema's; the description returned
    ends where the first stated fact begins."""
    description, facts = _split_facts(field.description)
    for key, _, value in field.values():
        facts.setdefault(key, value)
    return description, facts


def default_of(field: FieldFacts) -> str | None:
    """The default the description states as `Default: X`, else the schema's, else the description's "(default
    value is X)"."""
    description, facts = stated_facts(field)
    if "default" in facts:
        return facts["default"]
    match = re.search(r"default value is ([^)\s,;]+)", description, re.IGNORECASE)
    return match.group(1).rstrip(".") if match else None


def enum_of(field: FieldFacts) -> list[str]:
    """Enum values, else item enum values (null and `unmapped_value` left out); an enum the description
    states wins, as it does for every stated fact."""
    stated = _split_facts(field.description)[1]
    values = _enum_values(stated["enum"]) if "enum" in stated else field.enum
    if not values:
        values = _enum_values(stated["item_enum"]) if "item_enum" in stated else field.item_enum
    return [v for v in values if v not in ("null", "unmapped_value")]


def _enum_values(shown: str) -> tuple[str, ...]:
    """`a, b, null` → (a, b, null): the values of an `Enum: …` fact a description writes."""
    return tuple(v.strip() for v in shown.split(", ") if v.strip())


_BY_LABEL = {label: key for key, label in VALUE_LABELS}
_FACT = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _BY_LABEL), key=len, reverse=True)) + r"): ")


def _split_facts(rest: str) -> tuple[str, dict[str, str]]:
    """Split a description that states facts (`Results per page Default: 25. Maximum: 100.`) into its prose and
    {field: value}."""
    matches = list(_FACT.finditer(rest))
    if not matches:
        return rest.strip(), {}
    description = rest[: matches[0].start()].strip()
    facts: dict[str, str] = {}
    for position, match in enumerate(matches):
        end = matches[position + 1].start() if position + 1 < len(matches) else len(rest)
        value = rest[match.end() : end].strip()
        if value.endswith("."):
            value = value[:-1]
        facts.setdefault(_BY_LABEL[match.group(1)], value.strip())
    return description, facts


@dataclass(frozen=True)
class OperationFacts:
    """What the generator knows about one operation."""

    structural_id: str
    method: str
    path: str
    summary: str
    parameters: tuple[FieldFacts, ...]
    body_fields: tuple[FieldFacts, ...]

    @property
    def label(self) -> str:
        """`GET /path`."""
        return f"{self.method} {self.path}"


def operation_facts(chunk: Chunk) -> OperationFacts:
    """Summary, parameters and top-level request body fields of a smart operation chunk (its stored facts)."""
    parameters = tuple(p for p in chunk.parameters if p.location in LOCATIONS)
    body = chunk.request_body.fields if chunk.request_body else ()
    return OperationFacts(chunk.covers[0], chunk.method.upper(), chunk.path, chunk.summary, parameters, body)
