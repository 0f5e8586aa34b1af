"""Answers a reader can use as they are: on a spec that describes in HTML and Markdown the way PagerDuty's, Box's and
Stripe's do (tests/fixtures/specs/incidents-markup-3.0.json: `<!-- theme: info -->` callouts, `> **Important
note:**`, `<p>`, `<a href>`, `<code>`, lists, tables, `&nbsp;`, doubly escaped `\\n`), no extractive answer of C0, C2
or `full`, no citation and no chunk shown holds a tag, a comment or a literal `\\n` — and the facts are still there."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.pipeline.features import without_feature
from rag.results import AnswerResult
from rag.runner import Engine
from tests.ingest.test_clean_text import MARKUP

SPEC = Path(__file__).parent / "fixtures" / "specs" / "incidents-markup-3.0.json"
# The hashing embedder's similarities mean nothing to the gate's calibration: these tests are about the answers.
CONFIGS = {"C0": PRESETS["C0"], "C2": PRESETS["C2"], "full": without_feature(PRESETS["full"], "abstention")}
QUESTIONS = (
    "How do I delete a schedule?",
    "What is the maximum page size when listing schedules?",
    "What urgency values can an incident have?",
    "How do I authenticate with the Incident Desk API?",
    "What does the status of an incident mean?",
    "Which header is required to create an incident?",
    "How is the title of an incident shown?",
)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[AnswerResult]:
    from rag.index.build import ingest_paths

    index = Index(tmp_path_factory.mktemp("markup") / "index", HashingEmbedder())
    assert all(report.status == "added" for report in ingest_paths(index, [SPEC]))
    engine = Engine(index, default_llm="extractive")
    return [engine.run(question, config) for question in QUESTIONS for config in CONFIGS.values()]


def shown(result: AnswerResult) -> list[str]:
    """Everything a reader of the result sees: the answer, each citation's label and each chunk's text and title."""
    return [result.answer, *(c.label for c in result.citations),
            *(text for item in result.chunks for text in (item.chunk.text, item.chunk.title))]


def test_no_answer_citation_or_chunk_shows_markup(results: list[AnswerResult]) -> None:
    assert all(result.ok and result.answer for result in results)
    for result in results:
        for text in shown(result):
            found = MARKUP.search(text)
            assert found is None, f"{result.config}: {result.question!r} shows {found.group(0)!r} in:\n{text}"


def test_the_facts_survive_the_cleaning(results: list[AnswerResult]) -> None:
    texts = "\n".join(text for result in results for text in shown(result))
    for fact in ("Important note: Deleting a schedule also removes its layers", "Default: 25", "Maximum: 100",
                 "Enum: high, low", "Default: high", "`schedules.write`", "Enum: triggered, acknowledged, resolved",
                 "Send `Token token=<your API key>` in the `Authorization` header", "Max length: 255"):
        assert fact in texts, fact


def test_c0s_raw_json_answers_read_as_text(results: list[AnswerResult]) -> None:
    naive = [result for result in results if result.config == "C0"]
    assert all(item.chunk.strategy == "naive" for result in naive for item in result.chunks if item.chunk.kind != "doc")
    answered = "\n".join(result.answer for result in naive)
    assert "description: The urgency of the incident. One of: `high`: pages at once; `low`: pages in" in answered
    assert "\\n" not in answered and "<" not in answered.replace("<your API key>", "")
