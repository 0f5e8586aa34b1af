"""The lead of an answer about rate limits (`rag.generate.rate_limits`): the documentation's statement, else how an
operation signals one (its 429 and rate headers), never a field's limit."""

from __future__ import annotations

from rag.chunk import FieldFacts, RequestBodyFacts, ResponseFacts
from rag.question_analysis import asked_kinds
from tests.fakes import make_chunk
from tests.generate.test_doc_lead import CLOUD, lead, overview

RATES = make_chunk(
    "ship.paths./v1/rates.post", "POST /v1/rates  [ship API]", api="ship", kind="operation", method="post",
    path="/v1/rates", summary="Get Shipping Rates",
    request_body=RequestBodyFacts(("application/json",), True, "", fields=(
        FieldFacts("rate_request_id", "string", max_length=25),)),
    responses=(ResponseFacts("200", "Rates", success=True),
               ResponseFacts("429", "TooManyRequestsResponse", "Too many requests",
                             headers=(("Retry-After", "Seconds to wait."), ("Content-Type", "")))))


def test_a_rate_limit_is_asked_by_its_own_words_not_as_a_field_s_limit() -> None:
    assert asked_kinds("what's the rate limit of the shipengine api?") == frozenset({"rate_limit"})
    assert asked_kinds("what happens if I send too many requests?") == frozenset({"rate_limit"})
    assert "limit" in asked_kinds("what's the max length of rate_request_id?")


def test_the_documentation_states_the_rate_limit_before_any_operation() -> None:
    sentence, detail = lead("what's the rate limit of the cloud api?", RATES, CLOUD)
    assert sentence.startswith("All requests are rate limited. Current limits: 3600 requests per hour")
    assert detail.startswith("From Cloud API overview > Rate Limiting")


def test_without_documentation_the_429_and_the_rate_headers_answer_never_a_field() -> None:
    """ShipEngine's "what's the rate limit?" led with `rate_request_id` (max length 25)."""
    sentence, _ = lead("what's the rate limit for ship?", RATES)
    assert sentence == ("POST /v1/rates answers 429 (`TooManyRequestsResponse`: Too many requests) when requests "
                        "come too fast, and its responses carry `Retry-After` (Seconds to wait). [1]")
    assert "rate_request_id" in lead("what's the max length of rate_request_id?", RATES)[0]


def test_every_rate_header_is_named() -> None:
    headers = tuple((f"X-RateLimit-{part}", "") for part in ("Limit", "Remaining", "Reset", "Reset-After", "Bucket"))
    limited = make_chunk(
        "chat.paths./channels/{id}/messages.post", "POST /channels/{id}/messages", api="chat", kind="operation",
        method="post", path="/channels/{id}/messages",
        responses=(ResponseFacts("200", "Message", success=True, headers=headers),))
    sentence, _ = lead("what are the rate limits on sending messages?", limited)
    assert all(f"`{name}`" in sentence for name, _ in headers)


def test_a_rate_header_every_response_carries_is_named_once() -> None:
    """DigitalOcean's responses (200, 401, 429) each carry `ratelimit-limit`, `ratelimit-remaining` and
    `ratelimit-reset`: the answer named the three three times over."""
    headers = (("ratelimit-limit", "The default limit."), ("ratelimit-remaining", "The requests that remain."),
               ("ratelimit-reset", "The time when the oldest request will expire."))
    metrics = make_chunk(
        "do.paths./v2/apps/metrics.post", "POST /v2/apps/metrics", api="do", kind="operation", method="post",
        path="/v2/apps/metrics", responses=tuple(ResponseFacts(code, "object", success=code == "200", headers=headers)
                                                 for code in ("200", "401", "429")))
    sentence, _ = lead("which header tells me when the rate limit resets?", metrics)
    assert sentence.endswith("its responses carry `ratelimit-limit` (The default limit); `ratelimit-remaining` (The "
                             "requests that remain); `ratelimit-reset` (The time when the oldest request will expire)."
                             " [1]")


def test_an_operation_s_description_stating_a_rate_limit_answers_before_a_429() -> None:
    """SendGrid states no API-wide rate limit; `POST /contactdb/recipients` says "The rate limit is three requests
    every 2 seconds." in its description, which the answer quoted only below a random operation's 429."""
    recipients = make_chunk(
        "ship.paths./contactdb/recipients.post", "POST /contactdb/recipients  [ship API]", api="ship",
        kind="operation", method="post", path="/contactdb/recipients", summary="Add recipients",
        description="This endpoint allows you to add a recipient. The rate limit is three requests every 2 seconds. "
                    "You can upload 1000 contacts per request.")
    sentence, _ = lead("what's the rate limit for ship?", RATES, recipients)
    assert sentence == ("POST /contactdb/recipients (Add recipients): The rate limit is three requests every 2 "
                        "seconds. [2]")


def test_documentation_saying_rates_and_limited_apart_states_no_rate_limit() -> None:
    """ShipEngine's description: "comparing rates across carriers … rate estimates with limited address info" was
    quoted for "what's the rate limit of the shipengine api?"."""
    shipping = overview("Compare rates.", ("Compare Shipping Costs", "Compare rates across carriers, or get rate "
                                          "estimates with limited address info."))
    sentence, _ = lead("what's the rate limit of the ship api?", RATES, shipping)
    assert sentence.startswith("POST /v1/rates answers 429")
