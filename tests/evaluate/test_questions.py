"""Question loaders: every format, auto-detection, and validation errors that name file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.errors import RagError
from rag.evaluate.questions import (
    Question,
    QuestionSetError,
    detect_format,
    load_questions,
    question_set_hash,
    write_questions,
)
from tests.conftest import FIXTURES, SHARED

EVAL = FIXTURES / "eval"
BENCHMARK = SHARED / "eval" / "stackone-benchmark"
DEV_SET = Path(__file__).resolve().parents[2] / "eval_data" / "dev_set.jsonl"


def test_native_jsonl_with_extra_fields_and_history(fixture_index) -> None:  # type: ignore[no-untyped-def]
    questions = load_questions(EVAL / "fixture_questions.jsonl", fixture_index)
    assert detect_format(EVAL / "fixture_questions.jsonl") == "native"
    assert [q.id for q in questions] == [f"fx-00{n}" for n in range(1, 9)]
    first = questions[0]
    assert first == Question(
        id="fx-001",
        question="How do I list the employees of the company?",
        category="endpoint",
        answerable=True,
        relevant_ids=("people-3_1.paths./unified/hris/employees.get",),
        required_keywords=("GET /unified/hris/employees",),
        ground_truth="Call GET /unified/hris/employees (List Employees).",
    )
    follow_up = questions[5]
    assert follow_up.history == (
        {"role": "user", "content": "How do I list employees?"},
        {"role": "assistant", "content": "Use GET /unified/hris/employees."},
    )
    assert [q.answerable for q in questions[-2:]] == [False, False]


def test_the_dev_set_loads() -> None:
    questions = load_questions(DEV_SET)
    assert len(questions) == 86
    assert sum(not q.answerable for q in questions) >= 12
    assert any(q.history for q in questions)


def test_questions_json_format(fixture_index) -> None:  # type: ignore[no-untyped-def]
    assert detect_format(EVAL / "questions.json") == "questions-json"
    questions = load_questions(EVAL / "questions.json", fixture_index)
    assert [q.id for q in questions] == ["q1", "q2", "q3"]
    assert questions[0].relevant_ids == ("shop-3_0.components.securitySchemes.basicAuth",)
    assert questions[0].ground_truth == "HTTP Basic auth with the API key as the username."
    assert questions[0].answerable and questions[1].answerable
    assert questions[2].category == "out_of_scope" and questions[2].answerable is False


def test_experiment_queries_format(fixture_index) -> None:  # type: ignore[no-untyped-def]
    assert detect_format(EVAL / "queries.jsonl") == "experiment"
    questions = load_questions(EVAL / "queries.jsonl", fixture_index)
    assert [(q.id, q.category, q.answerable) for q in questions] == [
        ("e-1", "direct", True),
        ("e-2", "multi_hop", True),
        ("e-3", "negative", False),
    ]
    # "see the Employees section" does not look like a structural id, so it is not a relevant id
    assert questions[1].relevant_ids == (
        "people-3_1.paths./unified/hris/employees.get",
        "people-3_1.components.Employee",
    )


@pytest.fixture
def crm_index(empty_index):  # type: ignore[no-untyped-def]
    """The real crm and stackone specs (the benchmark's operations) with the hashing embedder."""
    from rag.index.build import ingest_paths
    from tests.conftest import STACKONE_SPECS

    reports = ingest_paths(empty_index, [STACKONE_SPECS / "crm.json", STACKONE_SPECS / "stackone.json"])
    assert all(r.status == "added" for r in reports), reports
    return empty_index


def test_stackone_benchmark_maps_operation_ids(crm_index) -> None:  # type: ignore[no-untyped-def]
    path = BENCHMARK / "benchmark-dataset-test.json"
    assert detect_format(path) == "benchmark"
    questions = load_questions(path, crm_index)
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert len(questions) == len(raw) == 30
    by_id = {q.id: q for q in questions}
    update = by_id["tc_000077"]
    assert update.question == "How do I update a contact in the CRM?"
    assert update.relevant_ids == ("crm.paths./unified/crm/contacts/{id}.patch",)
    assert update.required_keywords == ("PATCH /unified/crm/contacts/{id}",)
    assert all(q.answerable and q.relevant_ids for q in questions)
    # the combined file (with splits and test_cases) loads every case
    assert len(load_questions(BENCHMARK / "benchmark-dataset.json", crm_index)) == 257


def test_benchmark_needs_an_index_and_known_ids(tmp_path: Path, fixture_index) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(QuestionSetError, match="an index is needed"):
        load_questions(BENCHMARK / "benchmark-dataset-test.json")
    path = tmp_path / "bench.json"
    item = {"id": "b1", "query": "list contacts", "expected_function": "crm_list_contacts"}
    path.write_text(json.dumps([item], indent=2))
    with pytest.raises(QuestionSetError) as caught:
        load_questions(path, fixture_index)
    assert caught.value.problems == [
        "bench.json:2: expected_function 'crm_list_contacts' is no operationId in the index"
    ]


def test_every_problem_is_listed_with_its_line(tmp_path: Path, fixture_index) -> None:  # type: ignore[no-untyped-def]
    lines = [
        {"id": "a", "question": "ok?", "category": "endpoint", "answerable": True,
         "relevant_ids": ["shop-3_0.paths./orders.get"], "required_keywords": [], "ground_truth": "x"},
        {"id": "b", "category": "endpoint", "answerable": True},
        {"id": "a", "question": "again?", "answerable": True},
        {"id": "c", "question": "unknown?", "answerable": True, "relevant_ids": ["shop-3_0.paths./nope.get"]},
        {"id": "d", "question": "typed?", "answerable": "yes", "relevant_ids": "shop-3_0.paths./orders.get"},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n{not json\n"
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(QuestionSetError) as caught:
        load_questions(path, fixture_index)
    problems = caught.value.problems
    assert problems[0].startswith("bad.jsonl:6: not valid JSON")
    assert problems[1:] == [
        "bad.jsonl:2: missing field 'question'",
        "bad.jsonl:3: duplicate id 'a' (first on line 1)",
        "bad.jsonl:4: unknown structural id(s) shop-3_0.paths./nope.get (not in the index); "
        "pass --unknown-ids warn to keep the question and score those ids as unmatched",
        "bad.jsonl:5: field 'answerable' must be true or false, not 'yes'",
    ]
    assert isinstance(caught.value, RagError)
    assert "5 problem(s)" in str(caught.value) and "bad.jsonl:4" in str(caught.value)
    # without an index, structural ids are not checked
    path.write_text("\n".join(json.dumps(line) for line in (lines[0], lines[3])) + "\n")
    assert [q.id for q in load_questions(path)] == ["a", "c"]


def test_line_numbers_in_json_files(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text(
        '{\n  "questions": [\n    {"id": "x", "question": "fine?"},\n\n    {"id": "y"},\n'
        '    {"id": "x", "question": "twice?"}\n  ]\n}\n',
        encoding="utf-8",
    )
    with pytest.raises(QuestionSetError) as caught:
        load_questions(path)
    assert caught.value.problems == [
        "set.json:5: missing field 'question'",
        "set.json:6: duplicate id 'x' (first on line 3)",
    ]
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "questions": [\n    {"id": "x",,}\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(QuestionSetError, match=r"broken.json:3: not valid JSON"):
        load_questions(broken)


def test_experiment_validation(tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl"
    path.write_text(
        json.dumps({"query_id": "1", "query_type": "sideways", "query": "q?"}) + "\n"
        + json.dumps({"query_id": "2", "query_type": "direct"}) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(QuestionSetError) as caught:
        load_questions(path)
    assert caught.value.problems == [
        "queries.jsonl:1: query_type='sideways' is not allowed; allowed: direct, multi_hop, negative",
        "queries.jsonl:2: missing field 'query'",
    ]


def test_empty_and_unknown_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(QuestionSetError, match="empty"):
        load_questions(empty)
    odd = tmp_path / "odd.json"
    odd.write_text('{"rows": []}', encoding="utf-8")
    with pytest.raises(QuestionSetError, match="unknown question format"):
        load_questions(odd)
    with pytest.raises(QuestionSetError, match="cannot read"):
        load_questions(tmp_path / "missing.jsonl")


def test_round_trip_and_hash(tmp_path: Path) -> None:
    questions = load_questions(EVAL / "fixture_questions.jsonl")
    path = write_questions(questions, tmp_path / "out" / "copy.jsonl")
    again = load_questions(path)
    assert again == questions
    assert question_set_hash(again) == question_set_hash(questions)
    assert len(question_set_hash(questions)) == 16
    changed = [*questions[:-1], Question(id="fx-008", question="Something else?", answerable=False)]
    assert question_set_hash(changed) != question_set_hash(questions)
