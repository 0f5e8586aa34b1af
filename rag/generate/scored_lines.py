"""The candidate lines of the context blocks and how well each matches a question: for a typed operation or
schema chunk, lines made from its facts (never parsed back from its text); for other chunks, their text's lines.
The extractive generator quotes the best of them under its lead."""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.chunk import Chunk, FieldFacts, ResponseFacts
from rag.corpus.vocabulary import singular, tokenize
from rag.data import data_table
from rag.field_facts import field_line
from rag.generate.context import ContextBlock
from rag.generate.named import path_words, spells_field
from rag.ingest.clean_text import one_line
from rag.ingest.operation_chunks import response_line
from rag.question_analysis import asked_kinds, verb_methods
from rag.tokens import truncate_to_tokens

MAX_LINES = 6
MIN_LINES = 3
MAX_BLOCKS = 5
RELATIVE_CUTOFF = 0.35
LINE_TOKENS = 90
# Words that say what kind of fact is asked for but match too many lines to select by (question_words.toml).
_QUESTION_NOISE = frozenset(data_table("question_words")["line_noise"])


@dataclass
class ScoredLine:
    """A candidate line of a context block with its relevance score; `field` the typed field it shows, `response`
    the typed response (None for a line of text: a guide's, a raw JSON chunk's, a summary)."""

    block: ContextBlock
    position: int
    text: str
    score: float
    field: FieldFacts | None = None
    response: ResponseFacts | None = None


def _stem(term: str) -> str:
    """A light matching key for plain words: the word's singular (`statuses` and `status` meet) without a verb's
    ending (`creates`, `created`, `creating` → `creat`); identifiers stay whole."""
    if not term.isalpha() or len(term) <= 3:
        return term
    one = singular(term)
    for suffix in ("ing", "ed") if one == term else ():  # one ending only (`succeeds` → succeed)
        if term.endswith(suffix) and len(term) - len(suffix) >= 3:
            one = term[: -len(suffix)]
            break
    return one[:-1] if one.endswith("e") and len(one) > 3 else one


def _terms(text: str) -> set[str]:
    return {_stem(term) for term in tokenize(text)}


def _term_weight(term: str) -> float:
    """Identifiers (`expires_in`, `/connect_sessions`, `createdAt`) weigh more than plain words."""
    if any(mark in term for mark in "_/.{}-") or len(term) >= 12:
        return 3.0
    return 1.0 if len(term) > 2 else 0.5


def _fact_bonus(field: FieldFacts | None, asks: frozenset[str], question: str) -> float:
    """Bonus for a line showing a typed field: the field the question names, a field carrying the kind of fact
    the question asks for (`QuestionAnalysis.asks`), a little for any default or enum."""
    if field is None:
        return 0.0
    bonus = 3.0 if spells_field(field.name, question) else 0.0
    carries = {
        "default": field.default is not None,
        "limit": bool(field.limits),
        "allowed_values": field.allows,
        "required": field.required,
        "deprecated": field.deprecated,
    }
    bonus += sum(3.0 if kind != "required" else 1.5 for kind, has in carries.items() if has and kind in asks)
    return bonus + (0.5 if carries["default"] or field.enum or field.item_enum else 0.0)


def _typed(chunk: Chunk) -> bool:
    """Whether the chunk carries its content as typed facts (a smart operation or schema chunk)."""
    return chunk.strategy == "smart" and (
        (chunk.kind == "operation" and bool(chunk.method)) or (chunk.kind == "schema" and bool(chunk.schema_fields))
    )


def _field_items(fields: Sequence[FieldFacts], parameter: bool = False) -> list[tuple[str, FieldFacts]]:
    """A field line for each field (a parameter's shows its location) and, indented, its own fields."""
    items: list[tuple[str, FieldFacts]] = []
    for field in fields:
        items.append((field_line(field, parameter=parameter), field))
        items.extend(("  " + field_line(child), child) for child in field.fields)
    return items


def block_lines(block: ContextBlock) -> list[tuple[int, str, FieldFacts | ResponseFacts | None]]:
    """The candidate lines of a block with their position (0 is the heading) and the typed field or response each
    shows:
    for a smart operation or schema chunk, lines made from its facts (never parsed back from its text); for
    other chunks, the lines of their text but a documentation section's headings."""
    chunk = block.chunk
    if not _typed(chunk):  # a guide's heading alone (its breadcrumb, the first line, names it) is no evidence
        headings = section_headings(chunk)
        return [(position, line, None) for position, line in enumerate(block.text.splitlines())
                if position == 0 or clean_line(line).lower() not in headings]
    items: list[tuple[str, FieldFacts | ResponseFacts | None]] = []
    if chunk.summary:
        items.append((f"Summary: {chunk.summary}", None))
    if chunk.description and chunk.description != chunk.summary:
        items.append((f"Description: {chunk.description}", None))
    if chunk.security:
        items.append(("Security: " + " or ".join(scheme.kind for scheme in chunk.security), None))
    items.extend(_field_items(chunk.parameters, parameter=True))
    body = chunk.request_body
    if body is not None:
        flags = ", ".join([*body.media_types, "required" if body.required else "optional"])
        items.append((f"Request body ({flags})" + (f" → {body.schema}" if body.schema else ""), None))
        items.extend(_field_items(body.fields))
    for response in chunk.responses:
        items.append(("- " + response_line(response), response))
        items.extend(_field_items(response.fields))
    required = [field.name for field in chunk.schema_fields if field.required]
    if required:
        items.append(("Required fields: " + ", ".join(required), None))
    items.extend(_field_items(chunk.schema_fields))
    return [(0, block_header(block), None), *((position, text, field) for position, (text, field) in
                                              enumerate(items, start=1))]


def section_headings(chunk: Chunk) -> frozenset[str]:
    """The lower-case headings a documentation chunk sits under (its title and its heading path); none for others."""
    if chunk.kind != "doc":
        return frozenset()
    return frozenset(part.strip().lower() for part in (chunk.title, *chunk.section_path.split(" > ")) if part.strip())


_JSON_MEMBER = re.compile(r'^\s*"([^"]+)"\s*:\s*(.*?)\s*,?\s*$')


def readable_json_line(line: str) -> str:
    """A line of a raw JSON chunk as `key: value` (`"default": 25,` → `default: 25`, a string's escapes decoded);
    other lines unchanged."""
    match = _JSON_MEMBER.match(line)
    if not match:
        return line.strip().rstrip(",")
    key, value = match.groups()
    value = value.rstrip(",").strip()
    if value in ("{", "[", "{}", "[]"):
        return f"{key}:"
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        try:
            value = one_line(json.loads(value))  # its escapes decoded: never a literal `\n` in an answer
        except ValueError:
            value = value[1:-1]
    elif value.startswith(("{", "[")):
        with contextlib.suppress(ValueError):
            value = _inline(json.loads(value))
    return f"{key}: {value}"


def _inline(value: object) -> str:
    """A small JSON value as words: `{"type": "integer", "default": 25}` → `type integer, default 25`."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {_inline(item)}" for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(_inline(item) for item in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def clean_line(line: str) -> str:
    """Strip indentation and list markers; cut very long lines."""
    text = line.strip()
    text = re.sub(r"^[-*•]\s+", "", text)
    cut = truncate_to_tokens(text, LINE_TOKENS)
    return cut if cut == text else cut.rstrip() + " …"


def score_lines(question: str, blocks: Sequence[ContextBlock], under_an_operation: bool = False) -> list[ScoredLine]:
    """Every non-header line of the blocks scored by weighted overlap with the question's terms.

    Terms are weighted by kind (identifiers count more) and by rarity among the context lines;
    lines carrying facts (defaults, enums, required) get a bonus when they match at all, and
    earlier-ranked blocks get a small edge. Only lines with some overlap are returned. `under_an_operation`:
    the lines go under a lead that names the blocks it cites (an operation, an absent write's existing
    operations), so the question's verb and the operation's own path words select nothing (without such a
    lead they are what shows which operation a block is).
    """
    all_terms = set(tokenize(question))
    # The APIs' own names scope the question ("… in the HRIS API"); a line sharing only them says nothing.
    api_names = {block.chunk.api.lower() for block in blocks if block.chunk.api}
    # A lone letter ("What's" → "s") matches every possessive; it selects nothing.
    question_terms = {_stem(term) for term in all_terms - _QUESTION_NOISE - api_names if len(term) > 1}
    if not question_terms:
        return []
    asks = asked_kinds(question)
    candidates: list[tuple[ContextBlock, int, str, FieldFacts | ResponseFacts | None, set[str]]] = []
    for block in blocks[:MAX_BLOCKS]:
        for position, line, shown in block_lines(block):
            if not line.strip() or line.startswith("… (truncated)"):
                continue
            candidates.append((block, position, line, shown, _terms(line)))
    if not candidates:
        return []
    document_frequency: dict[str, int] = {}
    for *_, terms in candidates:
        for term in terms & question_terms:
            document_frequency[term] = document_frequency.get(term, 0) + 1
    total = len(candidates)
    average_terms = max(1.0, sum(len(terms) for *_, terms in candidates) / total)
    # A line sharing only the question's verb ("create" → `created_at`) or the words of its own operation's path
    # (the resource the question names: `course_id` under "How do I create a course?") says nothing more, unless
    # the question spells its field ("the most `messages` one bulk delete takes").
    verbs = {_stem(term) for term in all_terms if term in verb_methods()}
    scored: list[ScoredLine] = []
    for block, position, line, shown, terms in candidates:
        field = shown if isinstance(shown, FieldFacts) else None
        # (A raw JSON or guide line is all an answer without a lead has: it keeps every word.)
        plain = (not under_an_operation or not _typed(block.chunk)
                 or (field is not None and spells_field(field.name, question)))
        overlap = terms & question_terms - (set() if plain else verbs | _path_terms(block.chunk.path))
        if not overlap:
            continue
        score = sum(_term_weight(t) * math.log(1.0 + total / document_frequency[t]) for t in overlap)
        score /= 0.6 + 0.4 * max(1.0, len(terms) / average_terms)  # long lines match more by chance
        score += _fact_bonus(field, asks, question)
        score *= 1.0 / (1.0 + 0.1 * (block.number - 1))
        if position == 0:
            score *= 0.8  # the header is shown anyway; prefer the facts below it
        scored.append(ScoredLine(block, position, line, score, field,
                                 shown if isinstance(shown, ResponseFacts) else None))
    return scored


@lru_cache(maxsize=65536)
def _path_terms(path: str) -> frozenset[str]:
    """The matching keys of a path's fixed words (`/courses/{id}/contents` → cours, content)."""
    return frozenset(_stem(word) for word in path_words(path))


def select_lines(scored: Sequence[ScoredLine]) -> list[ScoredLine]:
    """Pick ~3–6 lines: the best ones, each at least a fraction of the best score, without repeats."""
    ranked = sorted(scored, key=lambda line: (-line.score, line.block.number, line.position))
    if not ranked:
        return []
    best = ranked[0].score
    chosen: list[ScoredLine] = []
    seen: set[str] = set()
    for line in ranked:
        if len(chosen) >= MAX_LINES:
            break
        if len(chosen) >= MIN_LINES and line.score < RELATIVE_CUTOFF * best:
            break
        key = clean_line(line.text).lower()
        if key in seen:
            continue
        seen.add(key)
        chosen.append(line)
    return chosen


def block_header(block: ContextBlock) -> str:
    """The heading a block's quotes go under: its first line, or its title when that is raw JSON (`{`)."""
    first = block.text.splitlines()[:1]
    header = clean_line(first[0]) if first else block.label
    if len(re.findall(r"[A-Za-z0-9]", header)) < 3:  # raw JSON chunks open with "{"
        header = block.chunk.title or block.label
    return header
