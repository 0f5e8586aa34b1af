"""The extractive (no LLM) generator."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, RequestBodyFacts, ResponseFacts
from rag.facts import Statement
from rag.generate.base import ABSTAIN_MESSAGE, GenerationRequest, Generator
from rag.generate.context import whole_context
from rag.generate.extractive import EXTRACTIVE_LABEL, ExtractiveGenerator, lines_to_quote
from rag.generate.lead import lead_for
from rag.query import Query
from rag.results import Citation
from tests.fakes import make_chunk, retrieved

EXPIRES_LINE = (
    "- expires_in (number, optional, nullable): How long the session should be valid for in seconds Default: 1800."
)
SCHEMA = make_chunk(
    "stackone.components.ConnectSessionCreate",
    "\n".join([
        "Schema ConnectSessionCreate  [stackone API]",
        "Type: object.",
        "Required fields: origin_owner_id, origin_owner_name",
        "Fields:",
        "- provider (string, optional, nullable): The provider to connect to",
        "- origin_owner_id (string, required): The origin owner identifier",
        "- origin_owner_name (string, required): The origin owner name",
        EXPIRES_LINE,
        "- type (string, optional, nullable): The connect session account type Default: production. "
        "Enum: production, test, null.",
    ]),
    json_pointer="/components/schemas/ConnectSessionCreate",
    schema_fields=(
        FieldFacts("provider", "string", nullable=True, description="The provider to connect to"),
        FieldFacts("origin_owner_id", "string", required=True, description="The origin owner identifier"),
        FieldFacts("origin_owner_name", "string", required=True, description="The origin owner name"),
        FieldFacts("expires_in", "number", nullable=True,
                   description="How long the session should be valid for in seconds", default="1800"),
        FieldFacts("type", "string", nullable=True, description="The connect session account type",
                   default="production", enum=("production", "test", "null")),
    ),
)
OPERATION = make_chunk(
    "stackone.paths./connect_sessions.post",
    "\n".join([
        "POST /connect_sessions  [stackone API]",
        "Operation ID: stackone_create_connect_session",
        "Summary: Create Connect Session",
        "Security: basic (HTTP Basic)",
        "Request body (application/json, required) → ConnectSessionCreate",
    ]),
    kind="operation",
    method="post",
    path="/connect_sessions",
)
UNRELATED = make_chunk(
    "hris.components.Employee",
    "\n".join([
        "Schema Employee  [hris API]",
        "- first_name (string, optional): The employee first name",
        "- work_email (string, optional): The employee work email",
    ]),
)


def _ask(question: str, *chunks, **options) -> GenerationRequest:
    return GenerationRequest(query=Query(question), chunks=retrieved(*chunks), **options)


def test_is_a_generator_with_its_name() -> None:
    generator = ExtractiveGenerator()
    assert isinstance(generator, Generator)
    assert generator.name == "extractive (no LLM)"


def test_default_of_expires_in_is_quoted_and_cited() -> None:
    result = ExtractiveGenerator().generate(_ask("what is the default of expires_in", UNRELATED, SCHEMA))
    assert EXTRACTIVE_LABEL not in result.answer  # the generator is named beside the answer, not in it
    assert "1800" in result.answer
    lead, *rest = result.answer.splitlines()
    assert lead == (
        "In the ConnectSessionCreate schema, `expires_in` (number): default 1800 "
        "— How long the session should be valid for in seconds. [2]"
    )
    # The lead states the field; it is not quoted again, the schema's other lines are.
    assert not any("expires_in" in line for line in rest)
    assert any(line.startswith("- type (string") and line.endswith("[2]") for line in rest)  # SCHEMA is block 2
    assert Citation.of(SCHEMA) in result.citations
    assert Citation.of(UNRELATED) not in result.citations
    # The cited chunk's header line is kept.
    assert "Schema ConnectSessionCreate  [stackone API] [2]" in result.answer
    assert not result.abstained
    assert (result.tokens_in, result.tokens_out) == (0, 0)
    assert result.generator == "extractive (no LLM)"


def test_picks_a_handful_of_lines_each_cited() -> None:
    result = ExtractiveGenerator().generate(
        _ask("Which fields are required to create a connect session?", SCHEMA, OPERATION)
    )
    lead, *body = [line for line in result.answer.splitlines() if line.strip()]
    assert lead == (
        "In the ConnectSessionCreate schema, the required fields are `origin_owner_id`, `origin_owner_name`. [1]"
    )
    content = [line for line in body if line.startswith("- ")]
    assert 1 <= len(content) <= 6
    assert all(line.rstrip().endswith(("[1]", "[2]")) for line in body)
    assert {c.structural_id for c in result.citations} <= {
        "stackone.components.ConnectSessionCreate", "stackone.paths./connect_sessions.post"}


def test_enum_question_finds_the_enum_line() -> None:
    result = ExtractiveGenerator().generate(_ask("What values can the type of a connect session take?", SCHEMA))
    assert result.answer.startswith("In the ConnectSessionCreate schema, `type` (string): one of production, test")
    assert "Enum: production, test, null." not in result.answer  # stated by the lead, not quoted again


def test_facts_are_stated_first() -> None:
    result = ExtractiveGenerator().generate(
        _ask("how do I create an LMS course", OPERATION, facts=[Statement("No endpoint creates LMS courses.")])
    )
    lines = [line for line in result.answer.splitlines() if line.strip()]
    assert lines[0] == "Established facts:"
    assert lines[1] == "- No endpoint creates LMS courses."


def test_gate_abstain_abstains_with_closest_matches() -> None:
    result = ExtractiveGenerator().generate(
        _ask("what is the weather on mars", SCHEMA, OPERATION, gate="abstain", abstain_allowed=True)
    )
    assert result.abstained
    assert result.answer.startswith(ABSTAIN_MESSAGE)
    assert "Closest matches: Schema ConnectSessionCreate; POST /connect_sessions." in result.answer
    assert result.citations == []


def test_gate_abstain_without_permission_still_answers() -> None:
    result = ExtractiveGenerator().generate(
        _ask("what is the default of expires_in", SCHEMA, gate="abstain", abstain_allowed=False)
    )
    assert not result.abstained
    assert "1800" in result.answer


def test_partial_gate_adds_a_caution() -> None:
    result = ExtractiveGenerator().generate(_ask("what is the default of expires_in", SCHEMA, gate="partial"))
    lines = [line for line in result.answer.splitlines() if line]
    # The lead comes first (a reader acts on it), the caution right under it.
    assert "1800" in lines[0] and lines[1].startswith("The documentation only partly covers this;")


def test_no_matching_line_falls_back_to_the_top_chunk() -> None:
    result = ExtractiveGenerator().generate(_ask("zebra quantum", SCHEMA, OPERATION))
    assert not result.abstained
    assert result.citations == [Citation.of(SCHEMA)]
    assert "Schema ConnectSessionCreate" in result.answer


def test_no_chunks() -> None:
    generator = ExtractiveGenerator()
    assert generator.generate(_ask("anything", abstain_allowed=True)).abstained
    result = generator.generate(_ask("anything"))
    assert not result.abstained and result.citations == []


def test_stream_yields_lines_then_sources_then_done() -> None:
    request = _ask("what is the default of expires_in", SCHEMA)
    events = list(ExtractiveGenerator().stream(request))
    kinds = [event.kind for event in events]
    assert kinds[-2:] == ["sources", "done"]
    assert set(kinds[:-2]) == {"token"} and len(kinds) > 3
    streamed = "".join(event.text for event in events if event.kind == "token")
    done = events[-1].generation
    assert done is not None
    assert streamed == done.answer
    assert events[-2].citations == tuple(done.citations)
    assert done.answer == ExtractiveGenerator().generate(request).answer


LIST_EMPLOYEES = make_chunk(
    "people.paths./hris/employees.get",
    "\n".join([
        "GET /hris/employees  [people API]",
        "Summary: List Employees",
        "Parameters:",
        "- x-vendor-consumer-id (header, string, required): ID of the consumer",
        "- x-vendor-app-id (header, string, required): The ID of your application",
        "- x-vendor-service-id (header, string, optional): The service to call",
        "- limit (query, integer, optional): Number of results Default: 20.",
    ]),
    kind="operation",
    method="get",
    path="/hris/employees",
    parameters=(
        FieldFacts("x-vendor-consumer-id", "string", "header", required=True, description="ID of the consumer"),
        FieldFacts("x-vendor-app-id", "string", "header", required=True, description="The ID of your application"),
        FieldFacts("x-vendor-service-id", "string", "header", description="The service to call"),
        FieldFacts("limit", "integer", "query", description="Number of results", default="20"),
    ),
)
EMPLOYEE_DETAIL = make_chunk(
    "people.paths./hris/employees/{id}.get",
    "\n".join([
        "GET /hris/employees/{id}  [people API]",
        "Summary: Get Employee",
        "Responses:",
        "- 200 → Employee",
        "  - compensations (array of EmployeeCompensation, optional, nullable)",
        "  - jobs (array of EmployeeJob, optional)",
        "    - title (string, optional): Job title",
        "    - pay (number, optional): Pay",
    ]),
    kind="operation",
    method="get",
    path="/hris/employees/{id}",
    responses=(ResponseFacts("200", "Employee", success=True, fields=(
        FieldFacts("compensations", "array of EmployeeCompensation", nullable=True),
        FieldFacts("jobs", "array of EmployeeJob", fields=(
            FieldFacts("title", "string", description="Job title"),
            FieldFacts("pay", "number", description="Pay"))),
    )),),
)
COMPENSATION = make_chunk(
    "people.components.EmployeeCompensation",
    "\n".join([
        "Schema EmployeeCompensation  [people API]",
        "Fields:",
        "- rate (number, optional): The amount paid",
        "- payment_unit (string, optional): Enum: hour, week, month.",
        "- currency (string, optional): ISO 4217 currency code",
    ]),
    schema_fields=(
        FieldFacts("rate", "number", description="The amount paid"),
        FieldFacts("payment_unit", "string", enum=("hour", "week", "month")),
        FieldFacts("currency", "string", description="ISO 4217 currency code"),
    ),
)


def test_how_to_questions_name_the_required_headers_and_headings_never_stand_alone() -> None:
    answer = ExtractiveGenerator().generate(_ask("How do I list employees?", LIST_EMPLOYEES, EMPLOYEE_DETAIL)).answer
    # The lead's second line names the required headers; no quoted line repeats them.
    assert ("Requires `x-vendor-consumer-id` (header), `x-vendor-app-id` (header). Query parameters `limit` "
            "(default 20). [1]" in answer)
    assert "Required headers" not in answer and "x-vendor-service-id" not in answer.splitlines()[1]
    for position, line in enumerate(lines := answer.splitlines()):
        if line.startswith("GET "):  # a heading is followed by at least one line of its own
            assert position + 1 < len(lines) and lines[position + 1].startswith("- "), answer
    # A question that is not "how do I" gets no header list.
    plain = ExtractiveGenerator().generate(_ask("What is the default limit of the employee list?", LIST_EMPLOYEES))
    assert "Required headers" not in plain.answer


def test_a_field_asked_about_lists_its_fields_inline_or_from_its_schema_in_the_context() -> None:
    answer = ExtractiveGenerator().generate(
        _ask("What compensations does an employee have?", EMPLOYEE_DETAIL, COMPENSATION)
    ).answer
    line = next(line for line in answer.splitlines() if line.startswith("- compensations"))
    assert "Fields: rate, payment_unit, currency." in line
    jobs = ExtractiveGenerator().generate(_ask("Which jobs does an employee hold?", EMPLOYEE_DETAIL)).answer
    assert "Fields: title, pay." in next(line for line in jobs.splitlines() if line.startswith("- jobs"))


def test_a_question_about_the_response_gets_the_success_response_and_its_fields() -> None:
    operation = make_chunk(
        "people.paths./hris/people.get",
        "\n".join([
            "GET /hris/people  [people API]",
            "Summary: List People",
            "Responses:",
            "- 200 → PeoplePaginated: The list of people was retrieved.",
            "  - next (string, optional, nullable)",
            "  - data (array of Person, required)",
            "    - id (string, optional)",
        ]),
        kind="operation",
    method="get",
    path="/hris/people",
        responses=(ResponseFacts("200", "PeoplePaginated", "The list of people was retrieved.", success=True, fields=(
            FieldFacts("next", "string", nullable=True),
            FieldFacts("data", "array of Person", required=True),
        )),),
    )
    query = Query("what does the response look like?", previous="How do I list people?")
    request = replace(_ask(query.standalone, operation), query=query)
    answer = ExtractiveGenerator().generate(request).answer
    assert answer == "GET /hris/people returns 200 with `PeoplePaginated` (fields `next`, `data`). [1]"


def test_raw_json_chunks_read_as_key_value_lines() -> None:
    from dataclasses import replace

    from rag.generate.scored_lines import readable_json_line

    naive = replace(
        make_chunk(
            "shop.paths./orders.get",
            '{\n  "get": {\n    "operationId": "listOrders",\n    "parameters": [\n      {\n'
            '        "name": "page_size",\n        "schema": {"type": "integer", "default": 25}\n'
            '      }\n    ]\n  }\n}',
            title="paths./orders",
        ),
        strategy="naive",
    )
    question = "What is the default page_size of the orders list?"
    answer = ExtractiveGenerator().generate(_ask(question, naive)).answer
    assert "- name: page_size [1]" in answer
    assert '"' not in answer.replace("[1]", "")  # no JSON shards
    assert readable_json_line('    "default": 25,') == "default: 25"
    assert readable_json_line('  "parameters": [') == "parameters:"


def test_required_headers_and_the_success_response_are_read_from_the_chunk_fields_not_its_text() -> None:
    bare = replace(LIST_EMPLOYEES, parameters=())  # the same text, without the parameter facts
    answer = ExtractiveGenerator().generate(_ask("How do I list employees?", bare, EMPLOYEE_DETAIL)).answer
    assert "Required headers" not in answer
    with_headers = replace(EMPLOYEE_DETAIL, responses=(
        replace(EMPLOYEE_DETAIL.responses[0], description="OK", headers=(("X-Rate-Limit", "requests left"),
                                                                          ("Retry-After", ""))),
    ))
    query = Query("what does the response look like?", previous="How do I get an employee?")
    answer = ExtractiveGenerator().generate(replace(_ask(query.standalone, with_headers), query=query)).answer
    response = "Response 200 → Employee: OK Headers: X-Rate-Limit (requests left); Retry-After."
    assert f"{response} Fields: compensations, jobs. [1]" in answer


# A summary-less operation, as generated specs have them; what the reader needs is in its typed facts.
BULK_DELETE = make_chunk(
    "chat.paths./channels/{channel_id}/messages/bulk-delete.post", "POST /channels/{channel_id}/messages/bulk-delete",
    kind="operation", method="post", path="/channels/{channel_id}/messages/bulk-delete",
    operation_id="bulk_delete_messages",
    parameters=(FieldFacts("channel_id", "string", "path", required=True),),
    request_body=RequestBodyFacts(("application/json",), True, "", fields=(
        FieldFacts("messages", "array of string", required=True,
                   min_items=2, max_items=100),
        FieldFacts("created_at", "string", description="When the messages were created"),
    )),
)
def test_lines_sharing_only_the_verb_or_the_path_s_words_are_not_quoted_but_a_field_spelt_out_is() -> None:
    # "create" is the question's verb and "channel" its operation's own resource: `created_at` ("When the messages
    # were created") and `channel_id` match only through them. (The verb as written: "posts" may be a noun.)
    question = "I create a channel per event: how do I clean one up?"
    plain = ExtractiveGenerator().generate(_ask(question, BULK_DELETE)).answer
    assert plain.startswith("Use POST /channels/{channel_id}/messages/bulk-delete (bulk delete messages). [1]")
    quoted = [line for line in plain.splitlines() if line.startswith("- ")]
    assert not any("created_at" in line or "channel_id" in line for line in quoted)
    # A field the question spells (`messages`, named like the resource) is quoted with its limits.
    spelt = ExtractiveGenerator().generate(_ask("How do I delete many messages in a channel?", BULK_DELETE)).answer
    assert "- messages (array of string, required): Min items: 2. Max items: 100. [1]" in spelt


def test_a_long_first_chunk_leaves_the_others_to_be_named_and_a_field_lead_lists_them() -> None:
    """No prompt is sent, so no token budget cuts the context: the operations ranked after a very long first
    chunk are still listed as also relevant, under a lead stating a field's default too."""
    long_schema = replace(SCHEMA, text=SCHEMA.text + "\n" + "\n".join(f"- filler_{n} (string, optional)"
                                                                        for n in range(3000)))
    other = replace(OPERATION, chunk_id="smart/stackone.paths./connect_sessions/{id}.get",
                    covers=("stackone.paths./connect_sessions/{id}.get",), method="get", path="/connect_sessions/{id}",
                    title="GET /connect_sessions/{id}", text="GET /connect_sessions/{id}  [stackone API]")
    result = ExtractiveGenerator().generate(
        _ask("What is the default of expires_in?", long_schema, other, context_tokens=500))
    assert "Default: 1800" in result.answer or "default 1800" in result.answer
    assert "Also relevant: GET /connect_sessions/{id}" in result.answer, result.answer


def test_a_success_response_quoted_among_the_lines_is_not_added_again() -> None:
    """The section adds the success response a response question asks for unless a quoted line shows that very
    response (the typed response the line was made from; no quoted text is read back)."""
    with_headers = replace(EMPLOYEE_DETAIL, responses=(
        replace(EMPLOYEE_DETAIL.responses[0], description="The Employee", headers=(("Retry-After", ""),)),
    ))
    request = _ask("What does the response look like, with its Retry-After header?", with_headers)
    blocks = whole_context(request.chunks)
    lead = lead_for(request.asked, blocks)
    quoted = lines_to_quote(request, blocks, lead)
    assert any(line.response is with_headers.responses[0] for line in quoted)
    answer = ExtractiveGenerator().generate(request).answer
    assert sum("200 → Employee" in line for line in answer.splitlines()[2:]) == 1, answer
