"""The lead of an answer from documentation (guides, crawled pages): what a section states about the question,
then where it stands (the section's heading path and the page's URL).

Of the documentation blocks among the first `MAX_BLOCKS`, each statement (a paragraph, list item or table row; a
long one sentence by sentence) is scored by how many of the question's words it and its section's headings say
together (a section titled "Rate limits" is about "What is the rate limit?", whatever its sentences say), counting
again the words that ask for a kind of fact ("header" and "API key" in "Which header carries the API key?",
`QuestionAnalysis.asks`). On a tie: the section whose headings hold more words of the kinds of fact asked for (the
table `[asks]` of question_words.toml: "Authorizing requests > Sending the token" for an API key), then the one
whose headings say least besides ("Rate limits" before "Rate limits > Bursts"), then the better-ranked block and
its earlier statement (a section opens with what it is about). All of it reads only what the chunk carries: its
heading path and its text.
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
from rag.query import Query
from rag.question_analysis import asked_cues

MAX_STATEMENT_CHARS = 320
FORM_KINDS = ("how_to", "endpoint", "which_apis")  # how a question is put, not what it is about
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")
_FENCE = re.compile(r"^\s*(```|~~~)")


def content_words(text: str) -> set[str]:
    """The words of a text that say something: no English function words, singular (`limits` → limit)."""
    return question_words(text) - function_words()


def statements(block: ContextBlock) -> list[str]:
    """What a documentation block states, in order: each paragraph, list item or table row of its text (a long one
    sentence by sentence), not its breadcrumb (the first line), its headings or its code."""
    headings = section_headings(block.chunk)
    found: list[str] = []
    in_code = False
    for line in block.text.splitlines()[1:]:
        if _FENCE.match(line):
            in_code = not in_code
            continue
        text = clean_line(line)
        if in_code or not text or text.lower() in headings or text.startswith("… (truncated)"):
            continue
        found.extend([text] if len(text) <= MAX_STATEMENT_CHARS else
                     [part.strip() for part in _SENTENCE_END.split(text) if part.strip()])
    return found


def docs_lead(query: Query, blocks: Sequence[ContextBlock]) -> tuple[str, str, int]:
    """The statement that answers the question from the documentation blocks (see the module docstring), the line
    saying where it stands, and the block's number; ("", "", 0) when no documentation block states anything."""
    asked = content_words(query.focus)
    kinds = [kind for kind in query.analysis.asks if kind not in FORM_KINDS]
    vocabulary = {word for kind in kinds for phrase in data_table("question_words")["asks"][kind]
                  for word in content_words(phrase)}
    cues = {cue for kind in kinds for cue in asked_cues(query.focus, kind)}
    best: tuple[tuple[int, ...], str, ContextBlock] | None = None
    for block in blocks[:MAX_BLOCKS]:
        if block.chunk.kind != "doc":
            continue
        titles = " ".join(section_headings(block.chunk))
        heading = content_words(titles)
        # How many words of the kinds of fact asked for its headings hold, and what else they say.
        kind_titled, beside = len(shares_a_word(vocabulary, heading)), len(heading - shares_a_word(asked, heading))
        for position, statement in enumerate(statements(block)):
            said = len(shares_a_word(heading | content_words(statement), asked)) + sum(
                1 for cue in cues if re.search(rf"(?<!\w){re.escape(cue)}", f"{titles} {statement}".lower()))
            rank = (said, kind_titled, -beside, -block.number, -position)
            if best is None or rank > best[0]:
                best = (rank, statement, block)
    if best is None:
        return "", "", 0
    _, statement, block = best
    if len(statement) > MAX_STATEMENT_CHARS:
        statement = statement[:MAX_STATEMENT_CHARS].rsplit(" ", 1)[0] + " …"
    return cited(statement, block), f"{where(block)} [{block.number}]", block.number


def where(block: ContextBlock) -> str:
    """Where a documentation block stands: "From Authentication > API keys, https://docs.acme.test/auth.html"."""
    chunk = block.chunk
    place = chunk.section_path or chunk.title
    return f"From {place}, {chunk.source}" if chunk.source and chunk.source != place else f"From {place}"
