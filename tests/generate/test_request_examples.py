"""The request example goes with an answer about an operation: the operation the extractive lead decides the answer
is about (`Lead.operation`), for the extractive generator and an LLM alike (whose prompt gets the curl command as
a key fact); none for an answer about no operation, an absence or an abstention."""

from __future__ import annotations

import json
from dataclasses import replace

from rag.chunk import FieldFacts, RequestExample
from rag.facts import MissingWrite
from rag.generate.base import GenerationRequest
from rag.generate.context import build_context
from rag.generate.extractive import ExtractiveGenerator
from rag.generate.lead import lead_for
from rag.generate.llm import LLMGenerator
from rag.generate.prompts import REQUEST_FACT
from rag.query import Query
from rag.request_example import curl_command
from tests.fakes import FakeChatModel, make_chunk, retrieved
from tests.generate.test_lead import AUTHENTICATE, BASIC, EMPLOYEES, OVERVIEW, SESSIONS, list_courses


def with_example(chunk, body: str = ""):  # type: ignore[no-untyped-def]
    """The chunk with a request example of its own method and path."""
    example = RequestExample(chunk.method.upper(), f"https://api.stackone.com{chunk.path}", auth=(BASIC,),
                             media_type="application/json" if body else "", body=body, credential="STACKONE")
    return replace(chunk, request_example=example)


CREATE = with_example(SESSIONS, '{"origin_owner_id": "<origin_owner_id>"}')
LIST = with_example(EMPLOYEES)
AUTH = with_example(AUTHENTICATE, '{"token": "<token>"}')


def answer(question: str, *chunks, **options):  # type: ignore[no-untyped-def]
    return ExtractiveGenerator().generate(GenerationRequest(query=Query(question), chunks=retrieved(*chunks),
                                                            **options))


def test_an_answer_about_an_operation_carries_that_operations_example() -> None:
    # Below an overview that supports it, the operation is the second block: its example, not the first block's.
    found = lead_for("How do I create a connect session?", build_context(retrieved(OVERVIEW, CREATE), 4000))
    assert found.operation == 2 and found.sentence.startswith("Use POST /connect_sessions")
    assert answer("How do I create a connect session?", OVERVIEW, CREATE).request_example == CREATE.request_example
    # A fact of one field is still about its operation.
    generation = answer("What is the default of expires_in?", CREATE, LIST)
    assert generation.answer.startswith("In POST /connect_sessions, `expires_in`")
    assert generation.request_example == CREATE.request_example


def test_the_lookup_operation_is_the_request_to_send_first() -> None:
    search = with_example(make_chunk("music.paths./search.get", "GET /search", kind="operation", method="get",
                                     path="/search", summary="Search for Item", parameters=(
                                         FieldFacts("q", "string", "query", required=True),)))
    album = with_example(make_chunk("music.paths./albums/{id}.get", "GET /albums/{id}", kind="operation",
                                    method="get", path="/albums/{id}", summary="Get Album"))
    generation = answer("Play the album Kind of Blue by Miles Davis", search, album)
    assert generation.answer.startswith("First find") and generation.request_example == search.request_example


def test_no_example_for_an_api_wide_answer_an_absence_or_an_abstention() -> None:
    assert answer("How do I authenticate with the StackOne API?", AUTH, OVERVIEW).request_example is None
    missing = MissingWrite("create", "course", ("post", "put"), (with_example(list_courses()),))
    absent = answer("Can I create a course?", LIST, facts=(missing,))
    assert absent.answer.startswith("No.") and absent.request_example is None
    abstained = answer("How do I start a connect session?", CREATE, gate="abstain", abstain_allowed=True)
    assert abstained.abstained and abstained.request_example is None


def test_an_operation_from_an_index_without_examples_gives_none() -> None:
    assert answer("How do I start a connect session?", SESSIONS).request_example is None


def test_an_llm_is_given_the_curl_command_as_a_key_fact_and_the_result_carries_the_example() -> None:
    model = FakeChatModel([json.dumps({"abstained": False, "answer": "Use POST /connect_sessions [1].",
                                       "citations": [1]})])
    request = GenerationRequest(query=Query("How do I start a connect session?"), chunks=retrieved(CREATE, LIST))
    generation = LLMGenerator(model).generate(request)
    assert f"{REQUEST_FACT}\n```sh\n{curl_command(CREATE.request_example)}\n```" in model.user_prompt
    assert generation.request_example == CREATE.request_example
    abstaining = FakeChatModel([json.dumps({"abstained": True, "answer": "Not covered.", "citations": []})])
    refused = LLMGenerator(abstaining).generate(replace(request, abstain_allowed=True))
    assert refused.abstained and refused.request_example is None


def test_a_compact_prompt_leaves_the_command_out_but_the_result_carries_it() -> None:
    model = FakeChatModel(["ANSWERABLE: yes\nUse POST /connect_sessions [1]."])
    request = GenerationRequest(query=Query("How do I start a connect session?"), chunks=retrieved(CREATE))
    generation = LLMGenerator(model, compact=True).generate(request)
    assert REQUEST_FACT not in model.user_prompt and "curl" not in model.user_prompt
    assert generation.request_example == CREATE.request_example


def test_the_example_calls_the_item_the_question_names() -> None:
    """"how do I get employee E-77?": the example's path carries E-77, for the extractive answer and in the curl
    command an LLM is given as a key fact."""
    one = with_example(make_chunk("hris.paths./unified/hris/employees/{id}.get", "GET /unified/hris/employees/{id}",
                                  kind="operation", method="get", path="/unified/hris/employees/{id}",
                                  summary="Get Employee"))
    generation = answer("how do I get employee E-77?", one)
    assert generation.request_example is not None
    assert generation.request_example.url == "https://api.stackone.com/unified/hris/employees/E-77"
    model = FakeChatModel([json.dumps({"abstained": False, "answer": "Use GET /unified/hris/employees/{id} [1].",
                                       "citations": [1]})])
    LLMGenerator(model).generate(GenerationRequest(query=Query("how do I get employee E-77?"),
                                                   chunks=retrieved(one)))
    assert "https://api.stackone.com/unified/hris/employees/E-77" in model.user_prompt


def test_a_follow_up_s_example_takes_the_value_its_earlier_question_named_not_its_answer_s() -> None:
    """"how do I delete it?" after "how do I get employee E-77?": the example deletes E-77; the earlier answer's
    words ("… [1]") name no value."""
    one = with_example(make_chunk("hris.paths./unified/hris/employees/{id}.delete",
                                  "DELETE /unified/hris/employees/{id}", kind="operation", method="delete",
                                  path="/unified/hris/employees/{id}", summary="Delete Employee"))
    query = Query("how do I delete it?", previous="how do I get employee E-77? | earlier answer: Use GET "
                                                   "/unified/hris/employees/{id} (Get Employee) [1]")
    generation = ExtractiveGenerator().generate(GenerationRequest(query=query, chunks=retrieved(one)))
    assert generation.request_example is not None
    assert generation.request_example.url == "https://api.stackone.com/unified/hris/employees/E-77"
    earlier = Query("how do I delete it?", previous="Use GET /unified/hris/employees/{id} (Get Employee) [1]")
    assert ExtractiveGenerator().generate(GenerationRequest(query=earlier, chunks=retrieved(one))).request_example == (
        one.request_example)
