"""The extractive generator: no LLM, an answer made of the best-matching documentation lines."""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from rag.chunk import Chunk, FieldFacts, schema_id
from rag.corpus.vocabulary import tokenize
from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, StreamEvent
from rag.generate.context import ContextBlock, build_context
from rag.generate.lead import Lead, lead_for
from rag.generate.named import spells_field
from rag.generate.said import LIMIT_LABELS, operation_heading
from rag.ingest.operation_chunks import response_line
from rag.ingest.schema_prose import field_line
from rag.question_analysis import asked_kinds
from rag.results import Citation
from rag.tokens import truncate_to_tokens

# What an extractive answer is, for a view that explains it (the answer text itself starts with the facts).
EXTRACTIVE_LABEL = "Extractive answer (no LLM) — the most relevant lines from the documentation:"
PARTIAL_CAUTION = (
    "The documentation only partly covers this; the lines below are the closest matches, so check them "
    "against your question."
)
FACTS_LABEL = "Established facts:"
NO_MATCH_NOTE = "No line matched the question's terms; the best-ranked source begins:"
NO_CONTEXT_ANSWER = "The retrieval returned no documentation for this question, so there is nothing to quote."

MAX_LINES = 6
MIN_LINES = 3
MAX_BLOCKS = 5
LINE_TOKENS = 90
RELATIVE_CUTOFF = 0.35

MAX_CHILD_FIELDS = 8
_SUCCESS_CODE = re.compile(r"2\d\d")
# Words that say what kind of fact is asked for but match too many lines to select by.
_QUESTION_NOISE = frozenset(
    {"value", "values", "field", "fields", "property", "properties", "use", "used", "using", "get", "set",
     "api", "apis"}
)
_CITED = re.compile(r"\[(\d+)\]")
_CITED_MARK = re.compile(r" ?\[\d+\]")


@dataclass
class ScoredLine:
    """A candidate line of a context block with its relevance score; `field` the typed field it shows (None for
    a line of text: a guide's, a raw JSON chunk's, a summary)."""

    block: ContextBlock
    position: int
    text: str
    score: float
    field: FieldFacts | None = None


def _stem(term: str) -> str:
    """A light matching key for plain words: `creates`, `created`, `creating` → `creat`; identifiers stay whole."""
    if not term.isalpha() or len(term) <= 3:
        return term
    for suffix in ("ing", "ed", "es", "s"):
        if term.endswith(suffix) and len(term) - len(suffix) >= 3 and not term.endswith("ss"):
            term = term[: -len(suffix)]
            break
    return term[:-1] if term.endswith("e") and len(term) > 3 else term


def _terms(text: str) -> set[str]:
    return {_stem(term) for term in tokenize(text)}


def _term_weight(term: str) -> float:
    """Identifiers (`expires_in`, `/connect_sessions`, `createdAt`) weigh more than plain words."""
    if any(mark in term for mark in "_/.{}-") or len(term) >= 12:
        return 3.0
    return 1.0 if len(term) > 2 else 0.5


def _fact_bonus(field: FieldFacts | None, asks: frozenset[str], question: str) -> float:
    """Bonus for a line showing a typed field: the field the question names, a field carrying the kind of fact
    the question asks for (`QuestionAnalysis.asks`), a little for any default or allowed values."""
    if field is None:
        return 0.0
    bonus = 3.0 if spells_field(field.name, question) else 0.0
    carries = {
        "default": field.default is not None,
        "limit": any(label in LIMIT_LABELS for label, _ in field.facts),
        "allowed_values": bool(field.enum or field.item_enum),
        "required": field.required,
        "deprecated": field.deprecated,
    }
    bonus += sum(3.0 if kind != "required" else 1.5 for kind, has in carries.items() if has and kind in asks)
    return bonus + (0.5 if carries["default"] or carries["allowed_values"] else 0.0)


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


def block_lines(block: ContextBlock) -> list[tuple[int, str, FieldFacts | None]]:
    """The candidate lines of a block with their position (0 is the heading) and the typed field each shows:
    for a smart operation or schema chunk, lines made from its facts (never parsed back from its text); for
    other chunks, the lines of their text."""
    chunk = block.chunk
    if not _typed(chunk):
        return [(position, line, None) for position, line in enumerate(block.text.splitlines())]
    items: list[tuple[str, FieldFacts | None]] = []
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
        items.append(("- " + response_line(response), None))
        items.extend(_field_items(response.fields))
    required = [field.name for field in chunk.schema_fields if field.required]
    if required:
        items.append(("Required fields: " + ", ".join(required), None))
    items.extend(_field_items(chunk.schema_fields))
    return [(0, block_header(block), None), *((position, text, field) for position, (text, field) in
                                              enumerate(items, start=1))]


_JSON_MEMBER = re.compile(r'^\s*"([^"]+)"\s*:\s*(.*?)\s*,?\s*$')


def readable_json_line(line: str) -> str:
    """A line of a raw JSON chunk as `key: value` (`"default": 25,` → `default: 25`); other lines unchanged."""
    match = _JSON_MEMBER.match(line)
    if not match:
        return line.strip().rstrip(",")
    key, value = match.groups()
    value = value.rstrip(",").strip()
    if value in ("{", "[", "{}", "[]"):
        return f"{key}:"
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
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


def _clean_line(line: str) -> str:
    """Strip indentation and list markers; cut very long lines."""
    text = line.strip()
    text = re.sub(r"^[-*•]\s+", "", text)
    cut = truncate_to_tokens(text, LINE_TOKENS)
    return cut if cut == text else cut.rstrip() + " …"


def score_lines(question: str, blocks: Sequence[ContextBlock]) -> list[ScoredLine]:
    """Every non-header line of the blocks scored by weighted overlap with the question's terms.

    Terms are weighted by kind (identifiers count more) and by rarity among the context lines;
    lines carrying facts (defaults, enums, required) get a bonus when they match at all, and
    earlier-ranked blocks get a small edge. Only lines with some overlap are returned.
    """
    all_terms = set(tokenize(question))
    # The APIs' own names scope the question ("… in the HRIS API"); a line sharing only them says nothing.
    api_names = {block.chunk.api.lower() for block in blocks if block.chunk.api}
    # A lone letter ("What's" → "s") matches every possessive; it selects nothing.
    question_terms = {_stem(term) for term in all_terms - _QUESTION_NOISE - api_names if len(term) > 1}
    if not question_terms:
        return []
    asks = asked_kinds(question)
    candidates: list[tuple[ContextBlock, int, str, FieldFacts | None, set[str]]] = []
    for block in blocks[:MAX_BLOCKS]:
        for position, line, field in block_lines(block):
            if not line.strip() or line.startswith("… (truncated)"):
                continue
            candidates.append((block, position, line, field, _terms(line)))
    if not candidates:
        return []
    document_frequency: dict[str, int] = {}
    for *_, terms in candidates:
        for term in terms & question_terms:
            document_frequency[term] = document_frequency.get(term, 0) + 1
    total = len(candidates)
    average_terms = max(1.0, sum(len(terms) for *_, terms in candidates) / total)
    scored: list[ScoredLine] = []
    for block, position, line, field, terms in candidates:
        overlap = terms & question_terms
        if not overlap:
            continue
        score = sum(_term_weight(t) * math.log(1.0 + total / document_frequency[t]) for t in overlap)
        score /= 0.6 + 0.4 * max(1.0, len(terms) / average_terms)  # long lines match more by chance
        score += _fact_bonus(field, asks, question)
        score *= 1.0 / (1.0 + 0.1 * (block.number - 1))
        if position == 0:
            score *= 0.8  # the header is shown anyway; prefer the facts below it
        scored.append(ScoredLine(block, position, line, score, field))
    return scored


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
        key = _clean_line(line.text).lower()
        if key in seen:
            continue
        seen.add(key)
        chosen.append(line)
    return chosen


def required_headers(block: ContextBlock) -> list[str]:
    """The header parameters an operation block's chunk marks required (`x-apideck-consumer-id`, `x-account-id`)."""
    return [p.name for p in block.chunk.parameters if p.location == "header" and p.required]


def schema_fields(name: str, chunks: Sequence[Chunk]) -> list[str]:
    """Top-level field names of the schema `name` when one of the retrieved chunks is that schema's (the
    fields of the first such chunk, a part of a split schema showing its own)."""
    for chunk in chunks:
        if chunk.kind == "schema" and chunk.covers and chunk.covers[0] == schema_id(chunk.api, name):
            return [field.name for field in chunk.schema_fields]
    return []


def success_response(block: ContextBlock) -> str:
    """`200 → EmployeesPaginated: … Fields: next_page, next, data.` from an operation block's first 2xx
    response, or ""."""
    response = next((r for r in block.chunk.responses if _SUCCESS_CODE.fullmatch(r.code)), None)
    if response is None:
        return ""
    nested = [field.name for field in response.fields]
    text = _clean_line(response_line(response))
    return text + (f" Fields: {', '.join(nested[:MAX_CHILD_FIELDS])}." if nested else "")


def found_no_match(answer: str) -> bool:
    """Whether an extractive answer says no line matched the question (it then quotes the best source's opening
    lines, or had nothing to quote): the badge says "no match", not "answered"."""
    return NO_MATCH_NOTE in answer or NO_CONTEXT_ANSWER in answer


def cited_blocks(answer: str, blocks: Sequence[ContextBlock]) -> list[Citation]:
    """The citation of every block the answer cites `[n]`, in the order the answer first cites them."""
    by_number = {block.number: block for block in blocks}
    numbers = dict.fromkeys(int(mark) for mark in _CITED.findall(answer))
    return [by_number[number].citation for number in numbers if number in by_number]


def _closest_matches(blocks: Sequence[ContextBlock]) -> str:
    titles = [block.chunk.title or block.label for block in blocks[:2]]
    return "Closest matches: " + "; ".join(titles) + "." if titles else ""


def _fact_lines(facts: Sequence[str]) -> list[str]:
    """The established facts under their label ([] when there are none)."""
    return [FACTS_LABEL, *(f"- {fact}" for fact in facts)] if facts else []


def abstention(facts: Sequence[str], blocks: Sequence[ContextBlock]) -> str:
    """The abstention: the message, the established facts and the closest matches' titles."""
    closest = _closest_matches(blocks)
    return "\n".join([ABSTAIN_MESSAGE, *_fact_lines(facts), *([closest] if closest else [])])


def opening_lines(block: ContextBlock, count: int = MIN_LINES) -> list[ScoredLine]:
    """When nothing matches (or the block is a change chunk): the first `count` informative lines of a block."""
    picked: list[ScoredLine] = []
    for position, line in enumerate(block.text.splitlines()):
        if position == 0 or not line.strip() or line.startswith("… (truncated)") or line.rstrip().endswith(":"):
            continue
        picked.append(ScoredLine(block, position, line, 0.0))
        if len(picked) >= count:
            break
    return picked or [ScoredLine(block, 0, block.label, 0.0)]


def chosen_lines(question: str, blocks: Sequence[ContextBlock], scope: Collection[int]) -> list[ScoredLine]:
    """The lines to quote, best first: a change chunk's opening lines first; with a `scope` (an API-wide
    statement or an established absence) only the lines of the blocks it cites."""
    chosen = select_lines(score_lines(question, blocks))
    if blocks[0].chunk.kind == "change":  # what changed between versions: the change chunk's lines, in order
        return opening_lines(blocks[0], MAX_LINES) + [c for c in chosen if c.block is not blocks[0]]
    if scope:
        return [line for line in chosen if line.block.number in scope]
    return chosen


def answer_opening(gate: str, lead: Lead, facts: Sequence[str]) -> list[str]:
    """The lines above the quotes: the lead sentence and its facts line (a reader acts on these two), the
    partial caution, and the established facts the lead does not state."""
    lines = [line for line in (lead.sentence, lead.detail) if line]
    if gate == "partial":
        lines.extend(["", PARTIAL_CAUTION] if lines else [PARTIAL_CAUTION])
    stated = _CITED_MARK.sub("", lead.sentence)
    unstated = [fact for fact in facts if fact not in stated]  # the lead states one fact; the others follow
    if unstated:
        lines.extend(["", *_fact_lines(unstated)])
    return lines


def related_blocks(blocks: Sequence[ContextBlock], shown: Collection[int]) -> list[str]:
    """The other operations among the blocks the answer does not quote, with what each does in words
    (`GET /unified/hris/employees (List Employees) [2]`): where to look when the first is not the one."""
    return [
        f"{operation_heading(block.chunk)} [{block.number}]"
        for block in blocks[:MAX_BLOCKS]
        if block.number not in shown and block.chunk.kind == "operation" and block.chunk.method
    ]


def block_header(block: ContextBlock) -> str:
    """The heading a block's quotes go under: its first line, or its title when that is raw JSON (`{`)."""
    first = block.text.splitlines()[:1]
    header = _clean_line(first[0]) if first else block.label
    if len(re.findall(r"[A-Za-z0-9]", header)) < 3:  # raw JSON chunks open with "{"
        header = block.chunk.title or block.label
    return header


def quoted_line(line: ScoredLine, chunks: Sequence[Chunk]) -> str:
    """One quoted line (`- …`), a field line with the names of its nested fields, or of its schema's top-level
    fields when that schema is among the retrieved `chunks`."""
    block = line.block
    shown = readable_json_line(line.text) if block.chunk.strategy == "naive" else line.text
    text = f"- {_clean_line(shown)}"
    field = line.field
    if field is None:
        return text
    nested = [child.name for child in field.fields]
    schema = field.type.removeprefix("array of ")
    if not nested and schema.isidentifier() and schema[:1].isupper():
        nested = schema_fields(schema, chunks)  # the schema was retrieved too (perhaps beyond the budget)
    if nested:
        shown = ", ".join(nested[:MAX_CHILD_FIELDS]) + (", …" if len(nested) > MAX_CHILD_FIELDS else "")
        text += f" Fields: {shown}."
    return text


def block_section(
    group: Sequence[ScoredLine], request: GenerationRequest, first: bool, alone: bool
) -> tuple[list[str], str]:
    """The lines quoting one block (its heading, the chosen lines in order, for the first block the success
    response or required headers when asked), or ([], its heading) when only its heading would be shown and
    other blocks are quoted: it is then listed as also relevant."""
    block = group[0].block
    number = block.number
    header = block_header(block)
    body = [line for line in sorted(group, key=lambda item: item.position) if line.position != 0]
    asks = asked_kinds(request.asked)
    headers = required_headers(block) if first and "how_to" in asks else []
    response = success_response(block) if first and "response" in asks else ""
    if not body and not headers and not response and not alone:
        return [], f"{header.split('  [')[0]} [{number}]"  # a heading alone says only where to look
    chunks = [item.chunk for item in request.chunks]
    lines = ["", f"{header} [{number}]", *(f"{quoted_line(line, chunks)} [{number}]" for line in body)]
    if response and not any(line.text.strip().startswith(response.split(" Fields:")[0][:20]) for line in body):
        lines.append(f"- Response {response} [{number}]")
    if headers:
        lines.append(f"- Required headers: {', '.join(headers)} [{number}]")
    return lines, ""


def quoted_blocks(chosen: Sequence[ScoredLine], request: GenerationRequest) -> tuple[list[str], list[str]]:
    """The sections quoting the chosen lines block by block (ordered by each block's best line) and the
    headings of the blocks listed as also relevant."""
    groups: dict[int, list[ScoredLine]] = {}
    for line in chosen:  # best first, so groups are ordered by their best line
        groups.setdefault(line.block.number, []).append(line)
    lines: list[str] = []
    related: list[str] = []
    for position, group in enumerate(groups.values()):
        section, heading = block_section(group, request, first=position == 0, alone=len(groups) == 1)
        lines.extend(section)
        related.extend([heading] if heading else [])
    return lines, related


class ExtractiveGenerator:
    """Answers without an LLM by quoting the documentation lines that best match the question."""

    name = "extractive (no LLM)"

    def generate(self, request: GenerationRequest) -> Generation:
        """Compose an answer from the best-matching lines of the top chunks, each line cited `[n]`."""
        blocks = build_context(request.chunks, request.context_tokens)
        facts = request.stated_facts()
        if request.abstain_allowed and (request.gate == "abstain" or not blocks):
            return Generation(answer=abstention(facts, blocks), abstained=True, generator=self.name)
        if not blocks:
            answer = "\n".join([*_fact_lines(facts), NO_CONTEXT_ANSWER])
            return Generation(answer=answer, generator=self.name)
        found = lead_for(request.asked, blocks, request.facts, request.gate)
        chosen = chosen_lines(request.question, blocks, found.scope) if found.quoted else []
        lines = answer_opening(request.gate, found, facts)  # the generator's name is shown beside it
        if not chosen and not found.sentence:
            lines.extend(["", NO_MATCH_NOTE])
            chosen = opening_lines(blocks[0])
        quoted, related = quoted_blocks(chosen, request)
        lines.extend(quoted)
        if found.scope and found.related:
            related = related_blocks(blocks, {*found.scope, *(line.block.number for line in chosen)})
        if related and found.related:
            lines.extend(["", "Also relevant: " + "; ".join(related)])
        answer = "\n".join(lines).strip("\n")
        return Generation(answer=answer, citations=cited_blocks(answer, blocks), generator=self.name)

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        """The answer line by line as token events, then the sources, then done."""
        generation = self.generate(request)
        lines = generation.answer.split("\n")
        for index, line in enumerate(lines):
            yield StreamEvent("token", text=line + ("\n" if index < len(lines) - 1 else ""))
        yield StreamEvent("sources", citations=tuple(generation.citations))
        yield StreamEvent("done", generation=generation)
