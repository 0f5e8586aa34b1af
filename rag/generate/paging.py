"""How an operation pages, in an answer's words: whether a question asks the page size's fact, the input that sets
the page size (a query parameter, or a body field of a search sent as a `POST`), and the sentence that says how to
get the next page (`PaginationFacts`, recognised at ingest by `rag.ingest.pagination`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import Chunk, FieldFacts
from rag.generate.context import ContextBlock
from rag.generate.said import is_operation, operation_label, value_facts
from rag.ingest.pagination import page_size_beside
from rag.retrieve.ordering import collection_listing

# "the default number of results per page", "the default page size": what each page holds, its size (not "the
# default page", its number).
_PER_PAGE = re.compile(r"\b(?:(?:per|each|every|a) page|page size)\b", re.IGNORECASE)


def asks_page_size(question: str, asks: frozenset[str]) -> bool:
    """Whether a question about pages asks the page size's fact, whatever field it spells: a limit per page
    ("how many volumes can I list per page?" spells `page`), or a default per page ("what's the default number of
    results per page?", "the default page size"; "what is the default page?" asks the page number's)."""
    return "pagination" in asks and ("limit" in asks or ("default" in asks and bool(_PER_PAGE.search(question))))


def page_size_in_response(field: FieldFacts, chunk: Chunk) -> FieldFacts | None:
    """The success response's page size beside a page number it returns (`pagelen` beside `page`): what a limit or
    default asked per page means where no query parameter sets the page size; None otherwise."""
    fields = [f for response in chunk.responses if response.success for f in response.fields]
    if field not in fields:
        return None
    size = page_size_beside(field.name, [f.name for f in fields])
    return next((f for f in fields if f.name == size), None) if size else None


def paging_inputs(chunk: Chunk) -> list[FieldFacts]:
    """The inputs that page an operation that pages: its query parameters, or its request body's fields where it
    takes them there (`PaginationFacts.location`)."""
    if chunk.pagination is not None and chunk.pagination.location == "body":
        return chunk.request_body.top_fields() if chunk.request_body else []
    return [f for f in chunk.parameters if f.location == "query"]


def page_size_field(chunk: Chunk) -> FieldFacts | None:
    """The query parameter (or body field) that sets the page size of an operation that pages
    (`PaginationFacts.size`); None when it has none."""
    size = chunk.pagination.size if chunk.pagination else ""
    return next((f for f in paging_inputs(chunk) if f.name == size), None) if size else None


def paging(anchor: ContextBlock, blocks: Sequence[ContextBlock], settled: bool = False
           ) -> tuple[ContextBlock, str, set[str]] | None:
    """How the operation pages: the anchor, else the listing of the anchor's own collection among the blocks
    ("is that paginated?" of `POST /lists/{list_id}/webhooks` asks of `GET /lists/{list_id}/webhooks`, which may
    take no paging parameters: then it says so, not how another resource's list pages), else the first block that
    pages: the sentence and the names it states. A list that takes none is said to only when it is another
    operation than the anchor or the conversation's subject (`settled`): a new question's first list may be the
    wrong one where another block pages."""
    listing = anchor if anchor.chunk.pagination else own_listing(anchor, blocks)
    if listing is not None and listing.chunk.pagination is None:
        if listing is not anchor or settled:
            return listing, f"{operation_label(listing.chunk)} takes no paging parameters", set()
        listing = None
    block = listing or next((b for b in blocks if b.chunk.pagination), None)
    if block is None or block.chunk.pagination is None:
        return None
    pages = block.chunk.pagination
    by_name = {p.name: p for p in paging_inputs(block.chunk)}
    label = operation_label(block.chunk)
    parts: list[str] = []
    where = "body field" if pages.location == "body" else "query parameter"
    if pages.cursor and pages.next_field:
        parts.append(f"pass the response's `{pages.next_field}` as the `{pages.cursor}` {where} "
                     "to get the next page")
    elif pages.cursor:
        parts.append(f"pass the position to continue from as the `{pages.cursor}` {where}")
    elif pages.offset:
        parts.append(f"set the `{pages.offset}` {where} to skip the results already read")
    elif pages.page:
        parts.append(f"set the `{pages.page}` {where} to the page number")
    elif pages.next_field:
        parts.append(f"follow the response's `{pages.next_field}`")
    if pages.size:
        size = by_name.get(pages.size)
        limits = ", ".join(value_facts(size, frozenset({"limit"}))) if size else ""
        parts.append(f"`{pages.size}` sets the page size" + (f" ({limits})" if limits else ""))
    if pages.total_field:
        parts.append(f"`{pages.total_field}` counts all results")
    if pages.more_field:
        parts.append(f"`{pages.more_field}` says whether more follow")
    if pages.link_header:
        parts.append("the `Link` response header points to the next page")
    sentence = f"{label} pages by {pages.style}: " + "; ".join(parts)
    stated = {name for name in (*pages.parameters, pages.next_field) if name}
    return block, sentence, stated


def own_listing(anchor: ContextBlock, blocks: Sequence[ContextBlock]) -> ContextBlock | None:
    """The block listing the collection the anchor operation acts on: a GET of the anchor's path without a last
    parameter (`POST /webhooks`, `DELETE /webhooks/{id}` → `GET /webhooks`); None when none is among the blocks."""
    listing = collection_listing(anchor.chunk, [block.chunk for block in blocks if is_operation(block)])
    return next((block for block in blocks if block.chunk is listing), None) if listing is not None else None
