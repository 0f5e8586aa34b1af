"""How an extractive answer says a field's description (rag/generate/said.py)."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, SecurityFacts
from rag.generate.context import ContextBlock
from rag.generate.said import (
    ABOUT_CHARS,
    asked_part,
    cited,
    cut_at_word,
    field_facts_text,
    first_sentence,
    operation_heading,
    schemes_text,
    value_facts,
)
from rag.ingest.clean_text import clean_description
from rag.results import RetrievedChunk
from tests.fakes import make_chunk

COUNT = ("The number of results to return. The default is 20 if this parameter is omitted, with a minimum of 1 and a "
         "maximum of 100. Larger values are rejected.")


def test_a_cut_description_never_ends_inside_a_number_or_a_word() -> None:
    cut = cut_at_word(COUNT, COUNT.index("100") + 1)  # the limit falls inside "100"
    assert cut.endswith("a maximum of 100.") and "10…" not in cut
    text = "The ID of an existing invoice to add this item to; when left blank it goes on the next upcoming invoice"
    assert cut_at_word(text, text.index("upcoming") + 2).endswith("the next upcoming…")
    assert cut_at_word("short enough", 120) == "short enough"


def test_a_word_that_runs_on_is_cut_before() -> None:
    text = "see " * 28 + "https://example.com/" + "x" * 80
    cut = cut_at_word(text, 120)
    assert cut.endswith("see…") and "https" not in cut


def test_the_answer_quotes_the_descriptions_limit_whole() -> None:
    said = field_facts_text(FieldFacts("count", "integer", location="query", description=COUNT), about=True)
    assert "a maximum of 100" in said and len(COUNT) > ABOUT_CHARS


INVOICE = ("The ID of an existing invoice to add this invoice item to. When left blank, the invoice item will be "
           "added to the next upcoming scheduled invoice. This is useful when adding invoice items in response to an "
           "invoice.created webhook. You can only add invoice items to draft invoices and there is a maximum of 250 "
           "items per invoice.")


def test_asked_for_a_limit_the_answer_quotes_the_sentence_that_states_it() -> None:
    field = FieldFacts("invoice", "string", description=INVOICE)
    assert "maximum of 250 items per invoice" in field_facts_text(field, frozenset({"limit"}), about=True)
    assert field_facts_text(field, frozenset(), about=True).endswith("the next upcoming…")
    short = "The maximum number of calls in the queue. The default is 1000. The maximum is 5000."
    assert asked_part(short, frozenset({"limit"})) == short  # it fits: said from its start


def test_a_cut_sentence_keeps_its_ellipsis_when_cited() -> None:
    block = ContextBlock(1, RetrievedChunk(make_chunk("a.paths./x.get", "GET /x")), "GET /x", "GET /x")
    assert cited("a maximum of…", block) == "a maximum of… [1]"
    assert cited("a maximum of 100.", block) == "a maximum of 100. [1]"


def test_two_schemes_said_alike_are_said_once() -> None:
    """Telnyx declares `BearerAuth` and `bearerAuth`, both HTTP Bearer: "The Telnyx API uses HTTP Bearer: send the
    header `Authorization: Bearer <token>` or HTTP Bearer: send the header `Authorization: Bearer <token>`"."""
    upper = SecurityFacts("BearerAuth", "http", scheme="bearer", location="header", parameter="Authorization")
    lower = SecurityFacts("bearerAuth", "http", scheme="bearer", location="header", parameter="Authorization",
                          alternative=1)
    key = SecurityFacts("api_key", "apiKey", location="query", parameter="api_key", alternative=2)
    said = schemes_text([upper, lower, key])
    assert said.count("Authorization: Bearer") == 1 and " or " in said and "api_key" in said


def test_schemes_one_requirement_names_of_a_kind_are_said_as_one() -> None:
    """API2Cart requires `x-api-key` and `x-store-key` together ("an API key: send … and an API key: send …"); seven
    operations take `x-api-key` alone, another alternative."""
    api_key = SecurityFacts("api_key", "apiKey", location="header", parameter="x-api-key")
    store_key = SecurityFacts("store_key", "apiKey", location="header", parameter="x-store-key")
    assert schemes_text([api_key, store_key, replace(api_key, alternative=1)]) == (
        "an API key: send the header `x-api-key: <your API key>` and the header `x-store-key: <your API key>` or an "
        "API key: send the header `x-api-key: <your API key>`")
    bearer = SecurityFacts("token", "http", scheme="bearer", location="header", parameter="Authorization")
    assert schemes_text([api_key, bearer]) == (
        "an API key: send the header `x-api-key: <your API key>` and HTTP Bearer: send the header "
        "`Authorization: Bearer <token>`")


def test_an_operation_id_that_writes_out_its_path_is_said_by_what_follows_the_path() -> None:
    """HubSpot's webhooks have no summaries and operationIds like `post-/webhooks/v3/{appId}/subscriptions_create`:
    the heading showed that whole."""
    create = make_chunk("h.paths./webhooks/v3/{appId}/subscriptions.post", "POST /webhooks/v3/{appId}/subscriptions",
                        kind="operation", method="post",
                        path="/webhooks/v3/{appId}/subscriptions",
                        operation_id="post-/webhooks/v3/{appId}/subscriptions_create")
    assert operation_heading(create) == "POST /webhooks/v3/{appId}/subscriptions (subscriptions create)"
    by_id = replace(create, operation_id="get-/webhooks/v3/{appId}/subscriptions/{subscriptionId}_getById")
    assert operation_heading(by_id).endswith("(get by id)")
    complete = replace(create, operation_id="post-/marketing/v3/events/{externalEventId}/complete_complete")
    assert operation_heading(complete).endswith("(complete)")


def test_an_empty_string_default_is_shown_as_one() -> None:
    """Appwrite's `search` (default "") was shown "`search` (default )"."""
    assert value_facts(FieldFacts("search", "string", default=""), frozenset()) == ['default ""']
    assert value_facts(FieldFacts("limit", "integer", default="25"), frozenset()) == ["default 25"]


def test_a_summary_written_as_a_call_is_spelled_out_in_the_heading() -> None:
    """Trello's summaries are calls (`addCardsLabelsByIdCard()`): the heading showed "(addCardsLabelsByIdCard())"."""
    labels = make_chunk("trello.paths./cards/{idCard}/labels.post", "POST /cards/{idCard}/labels", kind="operation",
                        method="post", path="/cards/{idCard}/labels", operation_id="addCardsLabelsByIdCard",
                        summary="addCardsLabelsByIdCard()")
    assert operation_heading(labels) == "POST /cards/{idCard}/labels (add cards labels by id card)"


def test_the_first_sentence_of_a_description_is_past_the_heading_it_opens_with() -> None:
    """ThreatJammer: "Use GET /v1/assess/ip/{ip_address} (Get a risk score …): What." — its descriptions open with
    `### What`, which the one-line description reads as a sentence of one word; the operation's `opening` is the
    paragraph below it."""
    raw = "### What\n\nObtain a numerical score of the IP. More.\n\n### Parameters\n\nThe only argument."
    assert first_sentence(clean_description(raw)[1]) == "Obtain a numerical score of the IP"
    described = clean_description("### Description:\nReturns the list of users.")[1]
    assert first_sentence(described) == "Returns the list of users"
    # A labelled note says nothing of what the operation does (trash nothing's "NOTE: When paging through …").
    assert first_sentence("NOTE: When paging, at most 1,000 posts are returned. Lists posts.") == ""
    assert first_sentence("Deletes a key. It cannot be undone.") == "Deletes a key"
    # A sentence opening a list says nothing by itself (Snyk's "Deactivating a project will:").
    assert first_sentence(clean_description("Deactivating a project will:\n\n- Disable pull request tests.")[1]) == ""
    assert first_sentence("Deprecated.") == "Deprecated"
