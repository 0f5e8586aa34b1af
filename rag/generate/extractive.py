"""The extractive generator: no LLM, an answer made of the best-matching documentation lines."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

from rag.chunk import Chunk, FieldFacts, ResponseFacts, schema_id
from rag.generate.base import ABSTAIN_MESSAGE, Generation, GenerationRequest, StreamEvent
from rag.generate.context import ContextBlock, whole_context
from rag.generate.lead import Lead, lead_for
from rag.generate.said import is_operation, operation_heading
from rag.generate.scored_lines import (
    MAX_BLOCKS,
    MAX_LINES,
    MIN_LINES,
    ScoredLine,
    block_header,
    clean_line,
    readable_json_line,
    score_lines,
    section_headings,
    select_lines,
)
from rag.ingest.operation_chunks import response_line
from rag.question_analysis import asked_kinds
from rag.results import Citation

# What an extractive answer is, for a view that explains it (the answer text itself starts with the facts).
EXTRACTIVE_LABEL = "Extractive answer (no LLM) — the most relevant lines from the documentation:"
PARTIAL_CAUTION = (
    "The documentation only partly covers this; the lines below are the closest matches, so check them "
    "against your question."
)
FACTS_LABEL = "Established facts:"
NO_MATCH_NOTE = "No line matched the question's terms; the best-ranked source begins:"
NO_CONTEXT_ANSWER = "The retrieval returned no documentation for this question, so there is nothing to quote."


MAX_CHILD_FIELDS = 8
_SUCCESS_CODE = re.compile(r"2\d\d")
_CITED = re.compile(r"\[(\d+)\]")


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


def success_of(block: ContextBlock) -> ResponseFacts | None:
    """An operation block's first 2xx response (None when it has none)."""
    return next((r for r in block.chunk.responses if _SUCCESS_CODE.fullmatch(r.code)), None)


def success_response(block: ContextBlock) -> str:
    """`200 → EmployeesPaginated: … Fields: next_page, next, data.` from an operation block's first 2xx
    response, or ""."""
    response = success_of(block)
    if response is None:
        return ""
    nested = [field.name for field in response.fields]
    text = clean_line(response_line(response))
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
    headings = section_headings(block.chunk)
    for position, line in enumerate(block.text.splitlines()):
        if position == 0 or not line.strip() or line.startswith("… (truncated)") or line.rstrip().endswith(":") \
                or clean_line(line).lower() in headings:
            continue
        picked.append(ScoredLine(block, position, line, 0.0))
        if len(picked) >= count:
            break
    return picked or [ScoredLine(block, 0, block.label, 0.0)]


def chosen_lines(question: str, blocks: Sequence[ContextBlock], lead: Lead) -> list[ScoredLine]:
    """The lines to quote, best first: a change chunk's opening lines first; with the lead's `scope` (one
    operation, an API-wide statement, an established absence) only lines of the blocks it cites, chosen among
    them; after a lead, no heading alone and no field line the lead states in full."""
    scoped = [block for block in blocks if block.number in lead.scope] if lead.scope else list(blocks)
    scored = [line for line in score_lines(question, scoped, under_an_operation=bool(lead.scope))
              if not (lead.sentence and line.position == 0) and not _stated_already(line, lead.described)]
    chosen = select_lines(scored)
    if blocks[0].chunk.kind == "change":  # what changed between versions: the change chunk's lines, in order
        return opening_lines(blocks[0], MAX_LINES) + [c for c in chosen if c.block is not blocks[0]]
    return chosen


def answer_opening(gate: str, lead: Lead, unstated: Sequence[str]) -> list[str]:
    """The lines above the quotes: the lead sentence and its facts line (a reader acts on these two), the
    partial caution, and the established facts the lead does not state (`unstated`)."""
    lines = [line for line in (lead.sentence, lead.detail) if line]
    if gate == "partial":
        lines.extend(["", PARTIAL_CAUTION] if lines else [PARTIAL_CAUTION])
    if unstated:
        lines.extend(["", *_fact_lines(unstated)])
    return lines


def related_blocks(blocks: Sequence[ContextBlock], shown: Collection[int]) -> list[str]:
    """The other operations among the blocks the answer does not quote, with what each does in words
    (`GET /unified/hris/employees (List Employees) [2]`): where to look when the first is not the one."""
    return [
        f"{operation_heading(block.chunk)} [{block.number}]"
        for block in blocks[:MAX_BLOCKS]
        if block.number not in shown and is_operation(block)
    ]


def quoted_line(line: ScoredLine, chunks: Sequence[Chunk]) -> str:
    """One quoted line (`- …`), a field line with the names of its nested fields, or of its schema's top-level
    fields when that schema is among the retrieved `chunks`."""
    block = line.block
    shown = readable_json_line(line.text) if block.chunk.strategy == "naive" else line.text
    text = f"- {clean_line(shown)}"
    field = line.field
    if field is None:
        return text
    nested = [child.name for child in field.fields]
    if not nested and (schema := _schema_type(field)):
        nested = schema_fields(schema, chunks)  # the schema was retrieved too (perhaps beyond the budget)
    if nested:
        shown = ", ".join(nested[:MAX_CHILD_FIELDS]) + (", …" if len(nested) > MAX_CHILD_FIELDS else "")
        text += f" Fields: {shown}."
    return text


def block_section(
    group: Sequence[ScoredLine], request: GenerationRequest, first: bool, alone: bool,
    stated: frozenset[str] = frozenset(),
) -> tuple[list[str], str]:
    """The lines quoting one block (its heading, the chosen lines in order, for the first block the success
    response or required headers when asked), or ([], its heading) when only its heading would be shown and
    other blocks are quoted: it is then listed as also relevant."""
    block = group[0].block
    number = block.number
    header = block_header(block)
    body = [line for line in sorted(group, key=lambda item: item.position) if line.position != 0]
    headers, response = section_extras(block, asked_kinds(request.asked), stated) if first else ([], "")
    if not body and not headers and not response and not alone:
        return [], f"{header.split('  [')[0]} [{number}]"  # a heading alone says only where to look
    chunks = [item.chunk for item in request.chunks]
    lines = ["", f"{header} [{number}]", *(f"{quoted_line(line, chunks)} [{number}]" for line in body)]
    if response and not any(line.response is success_of(block) for line in body):  # not quoted already
        lines.append(f"- Response {response} [{number}]")
    if headers:
        lines.append(f"- Required headers: {', '.join(headers)} [{number}]")
    return lines, ""


def lines_to_quote(request: GenerationRequest, blocks: Sequence[ContextBlock], lead: Lead) -> list[ScoredLine]:
    """The lines quoted under the lead (`chosen_lines`); the anchor's heading alone when its section adds what was
    asked (`section_extras`)."""
    if not lead.quoted:
        return []
    chosen = chosen_lines(request.question, blocks, lead)
    anchor = next((block for block in blocks if lead.scope and block.number == lead.scope[0]), None)
    if anchor is not None and lead.stated and not chosen and any(
            section_extras(anchor, asked_kinds(request.asked), lead.stated)):
        return [ScoredLine(anchor, 0, block_header(anchor), 0.0)]
    return chosen


def section_extras(block: ContextBlock, asks: frozenset[str], stated: frozenset[str]) -> tuple[list[str], str]:
    """What the first quoted section adds when asked for and the lead's two lines (`stated`) do not say it: the
    required headers (a "how do I" question) and the success response (a response question)."""
    headers = required_headers(block) if "how_to" in asks else []
    response = success_response(block) if "response" in asks else ""
    success = success_of(block)
    if "returns" in stated and not (success and success.headers):
        response = ""  # the lead's second line says what it returns
    return ([] if set(headers) <= stated else headers), response


def _stated_already(line: ScoredLine, described: frozenset[str]) -> bool:
    """Whether the lead's two lines state all a quoted field line says: the field is `described` in full (its
    own fields, or its schema's, are listed only by the quote)."""
    field = line.field
    return field is not None and field.name in described and not field.fields and not _schema_type(field)


def _schema_type(field: FieldFacts) -> str:
    """The schema a field's type names (`array of Employee` → Employee), "" for a plain type."""
    schema = field.type.removeprefix("array of ")
    return schema if schema.isidentifier() and schema[:1].isupper() else ""


def quoted_blocks(
    chosen: Sequence[ScoredLine], request: GenerationRequest, stated: frozenset[str] = frozenset()
) -> tuple[list[str], list[str]]:
    """The sections quoting the chosen lines block by block (ordered by each block's best line) and the
    headings of the blocks listed as also relevant; `stated`: what the lead's two lines state already."""
    groups: dict[int, list[ScoredLine]] = {}
    for line in chosen:  # best first, so groups are ordered by their best line
        groups.setdefault(line.block.number, []).append(line)
    lines: list[str] = []
    related: list[str] = []
    for position, group in enumerate(groups.values()):
        section, heading = block_section(group, request, first=position == 0, alone=len(groups) == 1,
                                         stated=stated)
        lines.extend(section)
        related.extend([heading] if heading else [])
    return lines, related


class ExtractiveGenerator:
    """Answers without an LLM by quoting the documentation lines that best match the question."""

    name = "extractive (no LLM)"

    def generate(self, request: GenerationRequest) -> Generation:
        """Compose an answer from the best-matching lines of the top chunks, each line cited `[n]`."""
        blocks = whole_context(request.chunks)  # no prompt is sent: every retrieved chunk may be quoted
        facts = request.stated_facts()
        if request.abstain_allowed and (request.gate == "abstain" or not blocks):
            return Generation(answer=abstention(facts, blocks), abstained=True, generator=self.name)
        if not blocks:
            answer = "\n".join([*_fact_lines(facts), NO_CONTEXT_ANSWER])
            return Generation(answer=answer, generator=self.name)
        found = lead_for(request.query, blocks, request.facts, request.gate)
        chosen = lines_to_quote(request, blocks, found)
        # The generator's name is shown beside the answer; the facts the lead states are not said twice.
        lines = answer_opening(request.gate, found, request.stated_facts(besides=found.facts))
        matched = bool(chosen or found.sentence)
        if not matched:
            lines.extend(["", NO_MATCH_NOTE])
            chosen = opening_lines(blocks[0])
        quoted, related = quoted_blocks(chosen, request, found.stated)
        lines.extend(quoted)
        if found.related and matched:  # the other operations among the top blocks: where to look if not the first
            others = related_blocks(blocks, {*found.scope, *(line.block.number for line in chosen)})
            related = others if found.scope else related + others
        if related and found.related:
            lines.extend(["", "Also relevant: " + "; ".join(related)])
        answer = "\n".join(lines).strip("\n")
        return found.applied(Generation(answer=answer, citations=cited_blocks(answer, blocks), generator=self.name),
                             blocks, request.with_earlier_question)

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        """The answer line by line as token events, then the sources, then done."""
        generation = self.generate(request)
        lines = generation.answer.split("\n")
        for index, line in enumerate(lines):
            yield StreamEvent("token", text=line + ("\n" if index < len(lines) - 1 else ""))
        yield StreamEvent("sources", citations=tuple(generation.citations))
        yield StreamEvent("done", generation=generation)
