"""Every example button's claim, checked on StackOne's 7 specs with the real packaged embedder and the default
configurations (C0, C3, full), extractive: what the caption under each button says is what the product does.

The browser test (tests/app/test_browser.py) clicks the same buttons and checks what the page shows.
"""

from __future__ import annotations

import re

import pytest

from rag.config import DEFAULT_CONFIGS, PRESETS
from rag.index.store import Index
from rag.results import AnswerResult
from rag.runner import Engine
from webapp.asking import EXAMPLES, Example, ask_all, examples_for
from webapp.engine import apply_choices

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def engine(stackone_index: Index) -> Engine:
    return Engine(stackone_index, default_llm="extractive")


def example(label: str) -> Example:
    return next(e for e in EXAMPLES if e.label == label)


def answers(engine: Engine, label: str) -> dict[str, AnswerResult]:
    configs = apply_choices([PRESETS[name] for name in DEFAULT_CONFIGS], None, "extractive")
    return {r.config: r for r in ask_all(engine, example(label).question, configs)}


def top_ids(result: AnswerResult, k: int = 5) -> list[str]:
    return [result_chunk.chunk.covers[0] for result_chunk in result.chunks[:k]]


def cited(result: AnswerResult) -> list[str]:
    return [citation.structural_id for citation in result.citations]


def lead(result: AnswerResult) -> str:
    return result.answer.splitlines()[0]


def test_the_default_configurations_run_offline_and_every_example_is_offered(engine: Engine) -> None:
    assert DEFAULT_CONFIGS == ("C0", "C3", "full")
    assert examples_for({record.api for record in engine.index.documents()}) == list(EXAMPLES)
    for result in answers(engine, "Authentication").values():
        assert result.ok and not result.fallbacks, (result.config, result.fallbacks)


def test_out_of_scope_full_abstains_the_ungated_quote_unrelated_chunks(engine: Engine) -> None:
    results = answers(engine, "Out of scope")
    assert results["full"].abstained
    for name in ("C0", "C3"):
        assert not results[name].abstained and results[name].citations
        assert not any("weather" in c.chunk.covers[0].lower() for c in results[name].chunks)


def test_missing_endpoint_full_says_so_first_citing_the_course_operations(engine: Engine) -> None:
    results = answers(engine, "Missing endpoint")
    first = lead(results["full"])
    assert first.startswith("There is no endpoint to create course")
    assert re.search(r"\.\s\[\d+\]", first), "every sentence of the lead is cited"
    assert "GET /unified/lms/courses" in first
    assert all(c.startswith("lms.paths./unified/lms/courses") for c in cited(results["full"])), cited(results["full"])
    assert not re.search(r"^(POST|PUT|PATCH) ", results["full"].answer, re.M), "no write operation follows"
    for name in ("C0", "C3"):
        assert "no endpoint" not in results[name].answer.lower()
        assert "course" in results[name].answer.lower()


def test_cross_api_full_has_both_list_operations_in_its_top_5_and_answer(engine: Engine) -> None:
    results = answers(engine, "Cross-API")
    full = results["full"]
    for operation, structural_id in (("GET /unified/hris/employees", "hris.paths./unified/hris/employees.get"),
                                     ("GET /unified/ats/candidates", "ats.paths./unified/ats/candidates.get")):
        assert structural_id in top_ids(full), top_ids(full)
        assert re.search(rf"{re.escape(operation)}\b(?!/)", lead(full)), lead(full)
        assert structural_id in cited(full)
    assert len({i.split(".")[0] for i in top_ids(results["C0"])}) == 1, top_ids(results["C0"])


def test_authentication_full_opens_with_the_apis_statement_cited_to_its_overview(engine: Engine) -> None:
    results = answers(engine, "Authentication")
    full = results["full"]
    assert lead(full).startswith("The HRIS API uses HTTP Basic") and "Authorization: Basic" in lead(full)
    assert cited(full) == ["hris.overview"], "only the overview's lines follow"
    assert "HTTP Basic" not in results["C0"].answer


def test_shared_header_full_answers_from_the_conventions_not_one_operation(engine: Engine) -> None:
    results = answers(engine, "Shared header")
    full = results["full"]
    assert "`x-account-id`" in lead(full) and "operations" in lead(full)
    assert cited(full) == ["hris.conventions"]
    assert not re.search(r"^(GET|POST|PUT|PATCH|DELETE) ", full.answer, re.M), "no arbitrary operation"
    assert "hris.conventions" not in cited(results["C0"]) and len(cited(results["C0"])) >= 1
