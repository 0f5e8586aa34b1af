"""The extractive generator: no LLM, an answer made of the best-matching documentation lines."""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from rag.chunk import Chunk, schema_id
from rag.corpus.vocabulary import tokenize
from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, StreamEvent
from rag.generate.chunk_lines import FIELD_LINE, child_fields
from rag.generate.context import ContextBlock, build_context
from rag.generate.lead import Lead, lead_for, operation_heading
from rag.ingest.operation_chunks import response_line
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

_HEADER = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|Webhook)\s+\S", re.IGNORECASE)
# (line pattern, bonus when the question asks for that kind of fact, bonus otherwise, question words)
_FACT_MARKERS: tuple[tuple[re.Pattern[str], float, float, frozenset[str]], ...] = (
    (re.compile(r"\bDefault:"), 3.0, 0.5, frozenset({"default", "defaults", "defaulted"})),
    (
        re.compile(r"\b(?:Item )?[Ee]num:"),
        3.0,
        0.5,
        frozenset({"enum", "enums", "values", "allowed", "options", "possible", "accepted", "valid", "kinds"}),
    ),
    (re.compile(r"^Required fields:"), 4.0, 0.5, frozenset({"required", "mandatory", "need", "needed", "must"})),
    (re.compile(r"\(\S[^)]*\brequired\b"), 1.5, 0.25, frozenset({"required", "mandatory", "need", "needed", "must"})),
    (
        re.compile(r"^(?:Security:|Authentication|Authenticate|- \w+: (?:HTTP|API key|OAuth))"),
        3.0,
        0.5,
        frozenset({"auth", "authenticate", "authentication", "authorization", "security", "credentials", "token"}),
    ),
    (re.compile(r"^Servers \(base URLs\):"), 3.0, 0.25, frozenset({"base", "server", "servers", "host", "url"})),
    (re.compile(r"^Deprecated:"), 3.0, 0.25, frozenset({"deprecated", "deprecation"})),
    (re.compile(r"\bExample:"), 1.0, 0.1, frozenset({"example", "examples", "sample", "format"})),
)
_ENDPOINT_WORDS = frozenset({"endpoint", "endpoints", "path", "route", "method", "operation", "call", "url"})
# "How do I list employees?", "How can I create …", "Show me how to call …": the reader will send the request.
_HOW_TO = re.compile(r"^\s*(?:how\s+(?:do|can|should|would)\s+(?:i|we|you)|how\s+to|show\s+me\s+how)\b", re.I)
MAX_CHILD_FIELDS = 8
# "What does the response look like?", "what do I get back": the reader wants the success response's shape.
_ASKS_RESPONSE = re.compile(r"\b(respon[sd]\w*|returns?|returned|get back|payload|output)\b", re.I)
_SUCCESS_CODE = re.compile(r"2\d\d")
# Words that say what kind of fact is asked for but match too many lines to select by.
_QUESTION_NOISE = frozenset(
    {"value", "values", "field", "fields", "property", "properties", "use", "used", "using", "get", "set",
     "api", "apis"}
)
# "Operation ID: hris_list_employee_skills" repeats the words of the path; shown only when asked for.
_OPERATION_ID = re.compile(r"^\s*(?:[-*]\s+)?Operation ID:")
_ASKS_OPERATION_ID = re.compile(r"\boperation[\s_-]?ids?\b", re.I)
_CITED = re.compile(r"\[(\d+)\]")
_CITED_MARK = re.compile(r" ?\[\d+\]")


@dataclass
class ScoredLine:
    """A candidate line of a context block with its relevance score."""

    block: ContextBlock
    position: int
    text: str
    score: float


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


def _fact_bonus(line: str, question_terms: set[str]) -> float:
    """Bonus for lines carrying facts, larger when the question asks for that kind of fact."""
    stripped = line.strip()
    bonus = 0.0
    for pattern, asked, otherwise, words in _FACT_MARKERS:
        if pattern.search(stripped):
            bonus += asked if question_terms & words else otherwise
    if _HEADER.match(stripped):
        bonus += 2.0 if question_terms & _ENDPOINT_WORDS else 0.5
    field = FIELD_LINE.match(line)
    if field and field.group(1).lower() in question_terms:
        bonus += 3.0  # the line documents exactly the field the question names
    return bonus


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
    operation_ids = bool(_ASKS_OPERATION_ID.search(question))
    candidates: list[tuple[ContextBlock, int, str, set[str]]] = []
    for block in blocks[:MAX_BLOCKS]:
        lines = block.text.splitlines()
        for position, line in enumerate(lines):
            if not line.strip() or line.startswith("… (truncated)"):
                continue
            if not operation_ids and _OPERATION_ID.match(line):
                continue
            candidates.append((block, position, line, _terms(line)))
    if not candidates:
        return []
    document_frequency: dict[str, int] = {}
    for _, _, _, terms in candidates:
        for term in terms & question_terms:
            document_frequency[term] = document_frequency.get(term, 0) + 1
    total = len(candidates)
    average_terms = max(1.0, sum(len(terms) for *_, terms in candidates) / total)
    scored: list[ScoredLine] = []
    for block, position, line, terms in candidates:
        overlap = terms & question_terms
        if not overlap:
            continue
        score = sum(_term_weight(t) * math.log(1.0 + total / document_frequency[t]) for t in overlap)
        score /= 0.6 + 0.4 * max(1.0, len(terms) / average_terms)  # long lines match more by chance
        score += _fact_bonus(line, all_terms)
        score *= 1.0 / (1.0 + 0.1 * (block.number - 1))
        if position == 0:
            score *= 0.8  # the header is shown anyway; prefer the facts below it
        scored.append(ScoredLine(block, position, line, score))
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


_SCHEMA_TYPE = re.compile(r"\((?:array of )?([A-Z][A-Za-z0-9_]+)[,)]")


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
    is_field = bool(FIELD_LINE.match(line.text))
    nested = child_fields(block.text.splitlines(), line.position) if is_field else []
    if not nested and is_field and (typed := _SCHEMA_TYPE.search(line.text)):
        nested = schema_fields(typed.group(1), chunks)  # the schema was retrieved too (perhaps beyond the budget)
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
    headers = required_headers(block) if first and _HOW_TO.match(request.asked) else []
    response = success_response(block) if first and _ASKS_RESPONSE.search(request.asked) else ""
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
        chosen = chosen_lines(request.question, blocks, found.scope)
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
