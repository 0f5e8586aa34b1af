"""A multi-API question keeps every API it asks about in the top k after reranking; schemas come last."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, SecurityFacts
from rag.retrieve.ordering import balance_by_api, names_schema, schemas_last, schemes_in_top, shared_headers_in_top
from tests.fakes import make_chunk, retrieved


def test_the_top_k_is_shared_among_the_apis_after_reranking() -> None:
    ats = [make_chunk(f"ats.paths./c{i}.get", f"ats {i}", api="ats", kind="operation") for i in range(4)]
    hris = [make_chunk(f"hris.paths./e{i}.get", f"hris {i}", api="hris", kind="operation") for i in range(2)]
    pool = retrieved(*ats, *hris)
    balanced = balance_by_api(pool, ("hris", "ats"), 4)
    assert [c.chunk.api for c in balanced[:4]] == ["ats", "hris", "ats", "hris"]
    assert [c.chunk for c in balanced[:4]] == [ats[0], hris[0], ats[1], hris[1]]
    assert len(balanced) == len(pool) and {id(c) for c in balanced} == {id(c) for c in pool}


def test_an_api_without_candidates_gives_its_share_to_the_others() -> None:
    ats = [make_chunk(f"ats.paths./c{i}.get", f"ats {i}", api="ats", kind="operation") for i in range(3)]
    pool = retrieved(*ats)
    assert [c.chunk for c in balance_by_api(pool, ("ats", "lms"), 3)] == ats


def test_schemas_follow_every_other_kind_each_in_its_own_order() -> None:
    schema_a = make_chunk("big.components.MessageText", "text, type, annotations")
    op = make_chunk("sms.paths./messages.post", "POST /messages Send a message", kind="operation")
    schema_b = make_chunk("big.components.Content", "content parts")
    guide = make_chunk("docs.guide#sending", "Sending your first message", kind="doc")
    op_2 = make_chunk("sms.paths./messages.get", "GET /messages List messages", kind="operation")
    ordered = schemas_last(retrieved(schema_a, op, schema_b, guide, op_2))
    assert [c.chunk for c in ordered] == [op, guide, op_2, schema_a, schema_b]


def test_a_pool_of_schemas_alone_keeps_its_order() -> None:
    schemas = [make_chunk(f"a.components.S{i}", f"s {i}") for i in range(3)]
    assert [c.chunk for c in schemas_last(retrieved(*schemas))] == schemas


def test_a_schema_the_question_names_by_its_identifier_keeps_its_place() -> None:
    named = make_chunk("tw.components.api.v2010.account.message", "status: queued, sent, delivered")
    other = make_chunk("tw.components.api.v2010.account", "status: active, suspended")
    op = make_chunk("tw.paths./Messages.json.post", "POST /Messages.json Send a message", kind="operation")
    question = "What values are allowed for `status` in api.v2010.account.message?"
    ordered = schemas_last(retrieved(named, other, op), question)
    assert [c.chunk for c in ordered] == [named, op, other]


def test_only_an_identifier_names_a_schema_not_a_plain_word() -> None:
    def schema(name: str) -> tuple[str, ...]:
        return (f"hr.components.{name}",)

    assert names_schema("Which fields are mandatory in a ListsPaginated object?", schema("ListsPaginated"))
    assert names_schema("What is the default of sort_by in employee_filter?", schema("employee_filter"))
    assert names_schema("What does the `Employee` object hold?", schema("Employee"))
    assert not names_schema("Employee records: how do I read one?", schema("Employee"))
    assert not names_schema("what statuses can a linked account be in?", schema("LinkedAccount"))
    assert not names_schema("the status of api.v2010.account.message", schema("api.v2010.account"))
    assert not names_schema("listspaginated", schema("ListsPaginated"))


def test_a_header_question_gets_the_chunk_of_shared_headers_into_the_top_k() -> None:
    """The conventions chunk (an overview stating a header every operation takes) takes the last place of the top
    k when it ranked below; one already in the top k, or none in the pool, leaves the order as it was."""
    header = FieldFacts("x-account-id", "string", "header", required=True)
    conventions = make_chunk("hris.conventions", "hris API conventions", kind="overview", parameters=(header,))
    overview = make_chunk("hris.overview", "hris API", kind="overview")
    ops = [make_chunk(f"hris.paths./things/{n}.get", f"GET /things/{n}", kind="operation") for n in range(5)]
    ranked = retrieved(*ops[:4], overview, ops[4], conventions)
    moved = [c.chunk for c in shared_headers_in_top(ranked, 5)]
    assert moved == [*ops[:4], conventions, overview, ops[4]]
    assert [c.chunk for c in shared_headers_in_top(retrieved(conventions, *ops), 5)] == [conventions, *ops]
    assert [c.chunk for c in shared_headers_in_top(retrieved(*ops, overview), 3)] == [*ops, overview]


def test_an_authentication_question_gets_the_overview_stating_the_schemes_into_the_top_k() -> None:
    """SalesLoft defines an OAuth2 scheme but applies it to no operation: "which auth header does the api want?" had
    five operations on top that say nothing of how to authenticate, and the overview ninth. An operation that states
    its scheme in the top k, or no overview with schemes, leaves the order as it was."""
    oauth = SecurityFacts("OAuth2", "oauth2", flows=("clientCredentials",))
    overview = make_chunk("crm.overview", "crm API", kind="overview", security=(oauth,))
    ops = [make_chunk(f"crm.paths./things/{n}.get", f"GET /things/{n}", kind="operation") for n in range(6)]
    assert [c.chunk for c in schemes_in_top(retrieved(*ops, overview), 5)] == [*ops[:4], overview, *ops[4:]]
    secured = replace(ops[2], security=(oauth,))
    ranked = retrieved(ops[0], ops[1], secured, *ops[3:], overview)
    assert [c.chunk for c in schemes_in_top(ranked, 5)] == [c.chunk for c in ranked]
    plain = replace(overview, security=())
    assert [c.chunk for c in schemes_in_top(retrieved(*ops, plain), 5)] == [*ops, plain]
