"""How an operation pages through its results, recognised from its structure: the query parameters it takes
(a cursor, a page size, an offset, a page number; a search sent as a `POST` may take them in its body) and the
success response's fields that carry the next position or the total. The names come from
rag/data/pagination.toml."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from rag.chunk import FieldFacts, PaginationFacts, RequestBodyFacts, ResponseFacts
from rag.data import data_table


def _key(name: str) -> str:
    """`page_size`, `pageSize`, `page-size` → `pagesize` (the last part of a dotted name: `links.next` → next)."""
    return name.rsplit(".", 1)[-1].lower().replace("_", "").replace("-", "")


@cache
def _names(kind: str) -> frozenset[str]:
    return frozenset(data_table("pagination")[kind])


def _first(names: Sequence[str], kind: str) -> str:
    """The first of `names` that is a `kind` name, by the table's order (`next` before `next_page`)."""
    keyed = {_key(name): name for name in reversed(names)}
    return next((keyed[key] for key in data_table("pagination")[kind] if key in keyed), "")


def pagination_of(parameters: Sequence[FieldFacts], responses: Sequence[ResponseFacts],
                  body: Sequence[FieldFacts] = ()) -> PaginationFacts | None:
    """The paging of an operation from its query parameters and responses, else (a search sent as a `POST`) from
    its request `body`'s top-level fields; None when it takes no paging input.

    A size alone (`limit`) is no paging unless the response says where the next page starts or how many
    results there are; a cursor or an offset or a page number is."""
    query = [p for p in parameters if p.location == "query"]
    return _paging(query, responses, "query") or (_paging(body, responses, "body") if body else None)


def operation_paging(method: str, parameters: Sequence[FieldFacts], body: RequestBodyFacts | None,
                     responses: Sequence[ResponseFacts]) -> PaginationFacts | None:
    """How an operation pages: a GET by its query parameters, a POST (a search) by its body's fields (those of the
    objects a body of one of several allows too); an operation of another method does not page."""
    if method.lower() == "get":
        return pagination_of(parameters, responses)
    if method.lower() == "post" and body is not None:
        return pagination_of((), responses, body.top_fields())
    return None


def _paging(inputs: Sequence[FieldFacts], responses: Sequence[ResponseFacts], location: str
            ) -> PaginationFacts | None:
    """`pagination_of` from one place's inputs (`location`: `query` or `body`)."""
    names = [p.name for p in inputs if not p.deprecated]
    # A first page needs no position: a required `from` or `start` that is no number bounds a range (a date).
    positions = [p.name for p in inputs if not p.deprecated
                 and not (p.required and not p.type.startswith(("integer", "number")))]
    success = [f.name for response in responses if response.success for f in response.fields if not f.deprecated]
    headers = [name for response in responses if response.success for name, _ in response.headers]
    cursor, size = _first(positions, "cursor_parameters"), _first(names, "size_parameters")
    offset, page = _first(positions, "offset_parameters"), _first(names, "page_parameters")
    next_field, total_field = _first(success, "next_fields"), _first(success, "total_fields")
    more_field = _first(success, "more_fields")
    link_header = any(name.lower() == "link" for name in headers)
    said = bool(next_field or total_field or more_field or link_header)  # the response says results go on
    # A body's `page` or `offset` may be content (a wiki page to create): there the response must say so too.
    if not (cursor or offset or page or size) or not (said or (location == "query" and (cursor or offset or page))):
        return None
    follows = bool(next_field or link_header)
    style = "cursor" if cursor or (follows and not (offset or page)) else "offset" if offset else "page"
    return PaginationFacts(style, cursor, size, offset, page, next_field, total_field, more_field, link_header,
                           location)


def page_size_beside(name: str, names: Sequence[str]) -> str:
    """The field of `names` beside `name` (the same parent) that holds the page size, when `name` is a page number
    (`page` → `pagelen` of a paginated response, `itemsPerPage`); "" otherwise."""
    if _key(name) not in _names("page_parameters"):
        return ""
    siblings = [n for n in names if n.rpartition(".")[0] == name.rpartition(".")[0] and n != name]
    # In a response `size` or `count` may count every result; a name that says "page" (`pagelen`) does not, nor one
    # ending in a page size's name (setlist.fm's `itemsPerPage`).
    paged = [n for n in siblings if "page" in _key(n)]
    return _first(paged, "size_parameters") or next(
        (n for n in paged if any(_key(n).endswith(size) for size in _names("size_parameters") if len(size) > 5)), "")
