"""The candidate lines of the context blocks and how each matches a question (rag/generate/scored_lines.py)."""

from __future__ import annotations

from rag.chunk import FieldFacts
from rag.generate.context import build_context
from rag.generate.scored_lines import block_lines, score_lines
from tests.fakes import make_chunk, retrieved

COURSES = make_chunk(
    "lms.paths./courses.post", "POST /courses", kind="operation", method="post", path="/courses",
    summary="Create Course",
    parameters=(FieldFacts("course_id", "string", "query", description="The course to copy"),
                FieldFacts("created_at", "string", "query", description="When it was created"),
                FieldFacts("title", "string", "query", description="The course title")),
)


def test_a_lone_letter_of_the_question_selects_no_line() -> None:
    part = make_chunk("ats.components.InterviewPart",
                      "Schema InterviewPart  [ats API]\n- start_at (string, optional): The interview part's start date")
    assert score_lines("What's the weather in Berlin?", build_context(retrieved(part), 4000)) == []
    assert score_lines("What's the interview's start date?", build_context(retrieved(part), 4000))


def test_under_an_operation_lines_match_on_more_than_the_verb_or_the_path_s_resource() -> None:
    blocks = build_context(retrieved(COURSES), 4000)
    texts = [text for _, text, _ in block_lines(blocks[0])]
    assert texts[0].startswith("POST /courses") and any(text.startswith("- title") for text in texts)
    # "create" (the verb) and "course" (the path's resource) select nothing: `course_id`, `created_at` and the
    # summary "Create Course" share only them; "title" selects its field.
    question = "How do I create a course with a title?"
    scored = score_lines(question, blocks, under_an_operation=True)
    assert [line.field.name for line in scored if line.field is not None] == ["title"]
    assert not any(line.text.startswith("Summary") for line in scored)
    # Without a lead naming the operation, its own words are what shows which operation the block is.
    assert any(line.text.startswith("Summary") for line in score_lines(question, blocks))


def test_a_plural_in_the_question_meets_the_field_named_in_the_singular() -> None:
    """Issue 45: "statuses" met no field called `status` (the generator's three word normalizers disagreed);
    "employees" met no `employee` either. One normalizer (`rag.corpus.vocabulary.singular`) meets them."""
    orders = make_chunk(
        "shop.paths./orders.get", "GET /orders", kind="operation", method="get", path="/orders",
        parameters=(FieldFacts("status", "string", "query", enum=("open", "paid")),
                    FieldFacts("employee", "string", "query", description="Who took it"),
                    FieldFacts("page", "integer", "query")),
    )
    blocks = build_context(retrieved(orders), 4000)
    fields = {line.field.name for line in score_lines("Which order statuses and employees are there?", blocks,
                                                      under_an_operation=True) if line.field is not None}
    assert fields == {"status", "employee"}
