"""The done-when measure of request examples on a fixture index: of the `full` answers that name an operation, at
least 95 % carry a request example (`request_examples` in the metrics, over the records `build_record` writes);
an out-of-scope question's abstention carries none."""

from __future__ import annotations

from rag.config import PRESETS
from rag.evaluate.metrics import names_an_operation, request_example_rate, summarize
from rag.evaluate.questions import Question
from rag.evaluate.records import build_record
from rag.index.store import Index
from rag.runner import Engine

# One question per operation of the fixture specs (people-3.1.json, shop-3.0.yaml), in a developer's words.
QUESTIONS = (
    "How do I list employees?", "How do I create an employee?", "How do I get one employee by id?",
    "How do I update an employee?", "How can I list the orders?", "How do I place a new order?",
    "How do I fetch a single order?", "How do I delete an order?", "How do I get a category tree?",
    "Which endpoint checks that the service is up?", "What is the page size limit when listing orders?",
    "Which header does listing employees require?",
)


def test_answers_naming_an_operation_carry_a_request_example(fixture_index: Index) -> None:
    engine = Engine(fixture_index, default_llm="extractive")
    records = []
    for number, text in enumerate(QUESTIONS):
        result = engine.run(text, PRESETS["full"])
        records.append(build_record(Question(f"q{number}", text), PRESETS["full"], result, retrieval_only=False,
                                    dry_run=False, model="extractive"))
    naming = [record for record in records if record["answered"] and not record["abstained"]
              and names_an_operation(record, lead=True)]
    assert len(naming) >= 10, [record["llm_answer"][:80] for record in records]
    rate = request_example_rate(records)
    assert rate is not None and rate >= 0.95, [r["query"] for r in naming if not r["request_example"]]
    assert summarize(records)["request_examples"] == rate
    example = next(record["request_example"] for record in naming if record["request_example"])
    assert example["curl"].startswith("curl") and "import httpx" in example["python"]


def test_an_out_of_scope_question_has_no_request_example(fixture_index: Index) -> None:
    result = Engine(fixture_index, default_llm="extractive").run("What's the weather like in Paris today?",
                                                                 PRESETS["full"])
    assert result.abstained and result.request_example is None
    assert result.to_dict()["request_example"] is None


def test_records_from_before_request_examples_have_no_rate() -> None:
    old = {"answered": True, "abstained": False, "llm_answer": "Use GET /orders [1].",
           "retrieved_chunks": [{"kind": "operation", "title": "GET /orders"}]}
    assert names_an_operation(old) and request_example_rate([old]) is None
    assert request_example_rate([{**old, "request_example": None}]) == 0.0


def test_the_rate_counts_answers_that_lead_with_an_operation_not_an_absence_or_a_closing_list() -> None:
    chunks = [{"kind": "operation", "title": "GET /courses"}, {"kind": "operation", "title": "POST /orders"}]
    base = {"answered": True, "abstained": False, "retrieved_chunks": chunks, "request_example": None}
    absence = {**base, "llm_answer": "There is no endpoint to create courses. The operations that exist for course "
                                     "are: GET /courses [1].", "facts": ["There is no endpoint to create courses."]}
    listed = {**base, "llm_answer": "The documentation only partly covers this.\n\n- a line [1]\n\nAlso relevant: "
                                    "GET /courses [1]"}
    leading = {**base, "llm_answer": "Use POST /orders (Create an order). [2]", "request_example": {"method": "POST"}}
    assert [names_an_operation(r) for r in (absence, listed, leading)] == [True, True, True]
    assert [names_an_operation(r, lead=True) for r in (absence, listed, leading)] == [False, False, True]
    assert request_example_rate([absence, listed, leading]) == 1.0
    assert request_example_rate([absence, listed, leading], lead=False) == round(1 / 3, 4)
