"""Facts the test-set generator reads from smart chunks: a field's stated default, enum values and flags, parsed
from the lines the chunker writes (`- page_size (query, integer, optional): Results per page Default: 25.`), and an
operation's facts from its chunk's fields."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.chunk import Chunk, FieldFacts

FLAG_WORDS = frozenset({"required", "optional", "nullable", "deprecated", "read-only", "write-only"})
LOCATIONS = frozenset({"query", "header", "path", "cookie"})


_WORD = re.compile(r"[a-z0-9]+")


def stated_facts(field: FieldFacts) -> tuple[str, dict[str, str]]:
    """A field's description and its facts by label. Facts its description states in `Label: value.` form
    (specs write "Default: 20. Maximum: 50." in prose) come first, then the schema's; the description
    returned ends where the first stated fact begins."""
    description, facts = _split_facts(field.description)
    for label, value in field.facts:
        facts.setdefault(label, value)
    return description, facts


def default_of(field: FieldFacts) -> str | None:
    """The default from `Default: X` or from a description's "(default value is X)"."""
    description, facts = stated_facts(field)
    if "Default" in facts:
        return facts["Default"]
    match = re.search(r"default value is ([^)\s,;]+)", description, re.IGNORECASE)
    return match.group(1).rstrip(".") if match else None


def enum_of(field: FieldFacts) -> list[str]:
    """Enum values, else item enum values (null and `unmapped_value` left out); an enum the description
    states wins, as it does for every stated fact."""
    stated = _split_facts(field.description)[1]
    values = _enum_values(stated["Enum"]) if "Enum" in stated else field.enum
    if not values:
        values = _enum_values(stated["Item enum"]) if "Item enum" in stated else field.item_enum
    return [v for v in values if v not in ("null", "unmapped_value")]


def _enum_values(shown: str) -> tuple[str, ...]:
    """`a, b, null` → (a, b, null): the values of an `Enum: …` fact written in a line."""
    return tuple(v.strip() for v in shown.split(", ") if v.strip())


_FACT = re.compile(
    r"\b(Default|Enum|Item enum|Minimum|Maximum|Exclusive minimum|Exclusive maximum|Min length|Max length|"
    r"Min items|Max items|Const|Example|Examples|Pattern|Format|Multiple of|Unique items): "
)


def _split_facts(rest: str) -> tuple[str, dict[str, str]]:
    """Split `description Default: 25. Maximum: 100.` into the description and {label: value}."""
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
        facts.setdefault(match.group(1), value.strip())
    return description, facts


def parse_field_line(line: str) -> FieldFacts | None:
    """Parse one `- name (…): …` line (the parentheses may nest, e.g. `string (date-time)`); None otherwise."""
    stripped = line.strip()
    if not stripped.startswith("- ") or " (" not in stripped:
        return None
    name, _, rest = stripped[2:].partition(" (")
    depth, close = 1, -1
    for position, char in enumerate(rest):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                close = position
                break
    if close < 0 or not name or " " in name:
        return None
    inner, tail = rest[:close], rest[close + 1 :]
    parts: list[str] = []
    depth, current = 0, ""
    for char in inner:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    location = parts[0] if parts and parts[0] in LOCATIONS else ""
    remaining = parts[1:] if location else parts
    flags = tuple(p for p in remaining if p in FLAG_WORDS)
    type_label = next((p for p in remaining if p not in FLAG_WORDS), "")
    description, facts = _split_facts(tail.removeprefix(":").strip())
    return FieldFacts(
        name=name,
        type=type_label,
        location=location,
        flags=flags,
        description=description,
        facts=tuple(facts.items()),
        enum=_enum_values(facts.get("Enum", "")),
        item_enum=_enum_values(facts.get("Item enum", "")),
    )


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
