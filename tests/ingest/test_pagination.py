"""Pagination recognised from an operation's structure (its query parameters and success response fields)."""

from __future__ import annotations

from pathlib import Path

from rag.chunk import BodyAlternative, FieldFacts, PaginationFacts, RequestBodyFacts, ResponseFacts
from rag.ingest.pagination import operation_paging, page_size_beside, pagination_of
from rag.ingest.pipeline import parse_path


def query(*names: str, deprecated: tuple[str, ...] = ()) -> tuple[FieldFacts, ...]:
    return tuple(FieldFacts(name, "string", "query", deprecated=name in deprecated) for name in names)


def ok(*fields: str, headers: tuple[str, ...] = ()) -> tuple[ResponseFacts, ...]:
    return (ResponseFacts("200", "Page", success=True, fields=tuple(FieldFacts(f, "string") for f in fields),
                          headers=tuple((h, "") for h in headers)),)


def test_a_cursor_and_the_field_that_carries_the_next_one() -> None:
    assert pagination_of(query("next", "page_size", "page", deprecated=("page",)), ok("next_page", "next", "data")) == (
        PaginationFacts("cursor", cursor="next", size="page_size", next_field="next")
    )
    assert pagination_of(query("marker", "limit"), ok("entries", "next_marker")).next_field == "next_marker"  # type: ignore[union-attr]


def test_offset_and_page_numbers_in_any_naming_style() -> None:
    offset = pagination_of(query("offset", "limit"), ok("items", "total", "next"))
    assert offset == PaginationFacts("offset", size="limit", offset="offset", next_field="next", total_field="total")
    page = pagination_of(query("pageNumber", "perPage"), ok("results", "totalCount"))
    assert page == PaginationFacts("page", size="perPage", page="pageNumber", total_field="totalCount")
    # Atlassian's APIs (Jira, Confluence) page by `startAt` and `maxResults`.
    jira = pagination_of(query("jql", "startAt", "maxResults"), ok("issues", "total"))
    assert jira == PaginationFacts("offset", size="maxResults", offset="startAt", total_field="total")
    # api.video pages by `currentPage` and `pageSize`, and says how many pages there are in `pagesTotal`.
    video = pagination_of(query("title", "currentPage", "pageSize"), ok("data", "pagination.pagesTotal"))
    assert video == PaginationFacts("page", size="pageSize", page="currentPage", total_field="pagination.pagesTotal")


def test_a_size_alone_is_no_paging_unless_the_response_says_where_to_go_on() -> None:
    assert pagination_of(query("limit"), ok("results")) is None
    assert pagination_of(query("limit"), ok("results", headers=("Link",))) == PaginationFacts("cursor", size="limit",
                                                                                             link_header=True)
    assert pagination_of(query("q"), ok("results", "next")) is None


def test_a_required_range_bound_is_no_paging_position() -> None:
    # Hetzner's server metrics take a required `start` and `end` (ISO-8601 times); Zoom's reports a required `from`.
    metrics = (FieldFacts("type", "string", "query", required=True),
               FieldFacts("start", "string", "query", required=True),
               FieldFacts("end", "string", "query", required=True), FieldFacts("step", "string", "query"))
    assert pagination_of(metrics, ok("metrics")) is None
    report = (FieldFacts("from", "string (date)", "query", required=True), FieldFacts("page_size", "integer", "query"),
              FieldFacts("page_token", "string", "query"))
    assert pagination_of(report, ok("users")) == PaginationFacts("cursor", cursor="page_token", size="page_size")
    # A required number is a position still (Discourse's user actions take a required `offset`).
    actions = (FieldFacts("offset", "integer", "query", required=True), FieldFacts("username", "string", "query"))
    assert pagination_of(actions, ok("user_actions")) == PaginationFacts("offset", offset="offset")


def test_bitbucket_pages_by_page_and_pagelen() -> None:
    # Bitbucket's search takes `page` and `pagelen` ("How many search results to retrieve per page").
    search = pagination_of(query("search_query", "page", "pagelen"), ok("values", "next", "size"))
    assert search == PaginationFacts("page", size="pagelen", page="page", next_field="next")


def test_the_page_size_beside_a_page_number() -> None:
    # Bitbucket's paginated responses return `page` beside `pagelen` (the page size) and `size` (every result).
    returned = ["next", "page", "pagelen", "previous", "size", "values"]
    assert page_size_beside("page", returned) == "pagelen"
    assert page_size_beside("data.page", ["data.page", "data.per_page", "page_size"]) == "data.per_page"
    assert page_size_beside("next", returned) == ""  # no page number
    assert page_size_beside("page", ["page", "size", "values"]) == ""  # `size` may count every result
    # setlist.fm returns `itemsPerPage` beside `page`; a `pageCount` counts pages.
    assert page_size_beside("page", ["itemsPerPage", "page", "setlist", "total"]) == "itemsPerPage"
    assert page_size_beside("page", ["page", "pageCount", "items"]) == ""


def test_ingest_stores_pagination_and_security_with_each_operation() -> None:
    spec = Path(__file__).parents[1] / "fixtures" / "specs" / "notes-3.1.yaml"
    chunks = {c.title: c for c in parse_path(spec).chunks if c.strategy == "smart"}
    notes = chunks["GET /notes"]
    assert notes.pagination == PaginationFacts("cursor", cursor="cursor", size="limit", next_field="next_cursor")
    assert chunks["POST /notes"].pagination is None
    (key,) = notes.security
    assert (key.type, key.location, key.parameter, key.kind) == ("apiKey", "header", "X-Jotter-Key", "an API key")
    overview = next(c for c in chunks.values() if c.kind == "overview" and c.security)
    assert overview.security[0].description == "Create a key on the account settings page."
    # The facts survive the index's metadata round trip.
    from rag.chunk import Chunk

    again = Chunk.from_metadata(notes.chunk_id, notes.text, notes.to_metadata())
    assert again.pagination == notes.pagination and again.security == notes.security
    assert again.responses[0].fields[0].fields  # `items` keeps the Note's own fields


def test_a_search_sent_as_a_post_pages_by_its_body_where_the_response_says_results_go_on() -> None:
    """Square's `POST /v2/orders/search` takes `cursor` and `limit` in its body and returns `cursor`; a body that
    creates something may have a `page` (a wiki page) or an `offset` and a response that says nothing of more."""
    body = (FieldFacts("cursor", "string"), FieldFacts("limit", "integer", description="Default: `500`"),
            FieldFacts("location_ids", "array of string", required=True))
    assert pagination_of((), ok("orders", "cursor"), body) == PaginationFacts(
        "cursor", cursor="cursor", size="limit", next_field="cursor", location="body")
    assert pagination_of((), ok("page", "id"), (FieldFacts("page", "object"), FieldFacts("title", "string"))) is None
    # Query parameters page as before, before any body field.
    assert pagination_of(query("cursor"), ok("orders", "cursor"), body) == PaginationFacts(
        "cursor", cursor="cursor", next_field="cursor")


def test_a_post_whose_body_is_one_of_several_objects_pages_by_their_fields() -> None:
    """1Password's events: `POST /api/v1/auditevents` takes a `Cursor` (`cursor`) or a `ResetCursor` (`limit`, 1 to
    1000, `start_time`) and returns `cursor` and `has_more`: "how do I page through audit events?" was told nothing
    of paging."""
    body = RequestBodyFacts(("application/json",), False, schema="one of Cursor | ResetCursor", alternatives=(
        BodyAlternative("Cursor", (FieldFacts("cursor", "string"),)),
        BodyAlternative("ResetCursor", (FieldFacts("limit", "number", minimum=1, maximum=1000),
                                        FieldFacts("start_time", "string")))))
    assert [f.name for f in body.top_fields()] == ["cursor", "limit", "start_time"]
    assert operation_paging("post", (), body, ok("items", "cursor", "has_more")) == PaginationFacts(
        "cursor", cursor="cursor", size="limit", next_field="cursor", more_field="has_more", location="body")


def test_kubernetes_pages_by_continue_and_limit() -> None:
    """Kubernetes' lists take `limit` and `continue` and return `metadata.continue`: "how do I page through a long
    list of pods?" was told nothing of paging."""
    assert pagination_of(query("labelSelector", "limit", "continue"), ok("items", "metadata.continue")) == (
        PaginationFacts("cursor", cursor="continue", size="limit", next_field="metadata.continue"))
