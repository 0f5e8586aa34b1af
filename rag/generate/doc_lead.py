"""The lead of an answer from documentation (guides, crawled pages, an API's own description in its overview):
what a section states about the question, then where it stands (the section's heading path and the page's URL).

Of the documentation blocks among the first `MAX_BLOCKS`, each statement (a paragraph, list item or table row; a
long one sentence by sentence) is scored by how many of the question's words it and its section's headings say
together (a section titled "Rate limits" is about "What is the rate limit?", whatever its sentences say), counting
again the words that ask for a kind of fact ("header" and "API key" in "Which header carries the API key?",
`QuestionAnalysis.asks`), and once a heading holding a word of the kind asked (Snyk's "Authorization" is about "how
do I authenticate?"). On a tie: the section whose headings hold more words of the kinds of fact asked for (the
table `[asks]` of question_words.toml: "Authorizing requests > Sending the token" for an API key), then the
statement saying more of those kinds' phrases, then one naming code or introducing it ("…in an `Authorization`
header…"), then the section whose headings say least besides ("Rate limits" before "Rate limits > Bursts"), then the
better-ranked block and its earlier statement (a section opens with what it is about). All of it reads only what
the chunk carries: its heading path and its text, or an overview's statements under their headings (`Chunk.prose`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.corpus.vocabulary import function_words
from rag.data import data_table
from rag.generate.context import ContextBlock
from rag.generate.named import question_words, shares_a_word
from rag.generate.said import cited
from rag.generate.scored_lines import MAX_BLOCKS, clean_line, section_headings
from rag.ingest.clean_text import code_span
from rag.query import Query
from rag.question_analysis import asked_cues

MAX_STATEMENT_CHARS = 320
MIN_OVERVIEW_WORDS = 4  # fewer: a heading flattened into an old overview's description ("Rate Limiting.")
DOCUMENTATION_KINDS = ("doc", "overview")  # prose: a guide's section, an API's description
FORM_KINDS = ("how_to", "endpoint", "which_apis")  # how a question is put, not what it is about
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")
_FENCE = re.compile(r"^\s*(```|~~~)")


def content_words(text: str) -> set[str]:
    """The words of a text that say something: no English function words, singular (`limits` → limit)."""
    return question_words(text) - function_words()


def statements(block: ContextBlock) -> list[str]:
    """What a documentation block states, in order: each paragraph, list item or table row of its text (a long one
    sentence by sentence), not its breadcrumb (the first line), its headings or its code; an API overview's, those
    of the API's description."""
    return [statement for _, statement in headed_statements(block)]


def headed_statements(block: ContextBlock) -> list[tuple[str, str]]:
    """`statements` each with the headings it sits under: a documentation section's title and heading path; in an
    API's description (an overview), the heading above the statement ("Rate Limiting"). An overview indexed
    before its description's statements were kept gives the description's sentences, under no heading."""
    return [(titles, statement) for titles, statement, code in _headed_parts(block) if not code]


def _headed_parts(block: ContextBlock) -> list[tuple[str, str, bool]]:
    """`headed_statements` with the code between them (a block of code as one code span, marked True)."""
    chunk = block.chunk
    if chunk.kind == "overview":
        if not chunk.prose:
            return [("", part.strip(), False) for part in SENTENCE_END.split(chunk.description)
                    if len(part.split()) >= MIN_OVERVIEW_WORDS]
        return [(p.heading, part, p.code) for p in chunk.prose
                for part in ([code_span(p.text)] if p.code else _sentences(p.text))]
    headings = section_headings(chunk)
    titles = " ".join(headings)
    found: list[tuple[str, str, bool]] = []
    code: list[str] | None = None
    for line in block.text.splitlines()[1:]:
        if _FENCE.match(line):
            if code is not None and (span := code_span("\n".join(code))):
                found.append((titles, span, True))
            code = [] if code is None else None
            continue
        if code is not None:
            code.append(line)
            continue
        text = clean_line(line)
        if not text or text.lower() in headings or text.startswith("… (truncated)"):
            continue
        found.extend((titles, part, False) for part in _sentences(text))
    return found


def _sentences(text: str) -> list[str]:
    """A statement as it is, a long one sentence by sentence."""
    if len(text) <= MAX_STATEMENT_CHARS:
        return [text]
    return [part.strip() for part in SENTENCE_END.split(text) if part.strip()]


def docs_lead(query: Query, blocks: Sequence[ContextBlock]) -> tuple[str, str, int]:
    """The statement that answers the question from the documentation blocks (see the module docstring), the line
    saying where it stands, and the block's number; ("", "", 0) when no documentation block states anything."""
    asked = content_words(query.focus)
    kinds = [kind for kind in query.analysis.asks if kind not in FORM_KINDS]
    phrases = {phrase.lower() for kind in kinds for phrase in data_table("question_words")["asks"][kind]}
    vocabulary = {word for phrase in phrases for word in content_words(phrase)}
    cues = {cue for kind in kinds for cue in asked_cues(query.focus, kind)}
    best: tuple[tuple[int, ...], int, ContextBlock] | None = None
    for block in blocks[:MAX_BLOCKS]:
        if block.chunk.kind not in DOCUMENTATION_KINDS:
            continue
        # An API's description says its name (and "API") everywhere: only what it says besides is about the question.
        overview = block.chunk.kind == "overview"
        about = asked - content_words(f"{block.chunk.title} {block.chunk.api} API") if overview else asked
        for position, (titles, statement, code) in enumerate(_headed_parts(block)):
            if code:
                continue
            heading = content_words(titles)
            # How many words of the kinds of fact asked for its headings hold, and what else they say.
            kind_titled, beside = len(shares_a_word(vocabulary, heading)), len(heading - shares_a_word(asked, heading))
            # A section titled with a word of the kind asked ("Authorization") is about it ("how do I authenticate?").
            said = len(shares_a_word(heading | content_words(statement), about)) + sum(
                1 for cue in cues if re.search(rf"(?<!\w){re.escape(cue)}", f"{titles} {statement}".lower())
            ) + bool(kind_titled)
            if overview and said * 2 <= len(about):  # "does it support webhooks?": "… support of the API, contact …"
                continue
            lowered = statement.lower()
            kind_said = sum(1 for phrase in phrases if re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", lowered))
            # Of statements saying as much, one naming code (`Authorization`) or introducing it says how.
            concrete = "`" in statement or statement.endswith(":")
            rank = (said, kind_titled, kind_said, concrete, -beside, -block.number, -position)
            if best is None or rank > best[0]:
                best = (rank, position, block)
    if best is None:
        return "", "", 0
    _, position, block = best
    titles, statement = _with_its_list(_headed_parts(block), position)
    if len(statement) > MAX_STATEMENT_CHARS:
        statement = statement[:MAX_STATEMENT_CHARS].rsplit(" ", 1)[0] + " …"
    return cited(statement, block), f"{where(block, titles)} [{block.number}]", block.number


def _with_its_list(found: Sequence[tuple[str, str, bool]], position: int) -> tuple[str, str]:
    """The statement at `position` with its headings; one that introduces a list or an example ("Current rate
    limits:", "JSON in the following format:") with the items or the code that follow it under the same
    headings, as long as they fit in `MAX_STATEMENT_CHARS`; an example is one block of code (what follows it is said
    of something else: "Otherwise, a 401 is returned")."""
    titles, statement, _ = found[position]
    if not statement.endswith(":"):
        return titles, statement
    items: list[str] = []
    for following_titles, following, code in found[position + 1:]:
        if following_titles != titles or len(statement) + len("; ".join([*items, following])) > MAX_STATEMENT_CHARS:
            break
        items.append(following.rstrip(".;"))
        if code and len(items) == 1:
            break
    return titles, f"{statement} " + "; ".join(items) if items else statement


def where(block: ContextBlock, heading: str = "") -> str:
    """Where a documentation block stands: "From Authentication > API keys, https://docs.acme.test/auth.html"; a
    statement of an API's description, under its heading: "From Hetzner Cloud API overview > Rate Limiting,
    hetzner.json"."""
    chunk = block.chunk
    place = chunk.section_path or chunk.title
    if chunk.kind == "overview" and heading:
        place = f"{place} > {heading}"
    return f"From {place}, {chunk.source}" if chunk.source and chunk.source != place else f"From {place}"
