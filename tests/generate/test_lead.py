"""The lead sentence of extractive answers: the fact asked for, stated first and cited."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import (
    BodyAlternative,
    Chunk,
    FieldFacts,
    PaginationFacts,
    RequestBodyFacts,
    RequestExample,
    ResponseFacts,
    SecurityFacts,
)
from rag.facts import Fact, MissingWrite, Statement
from rag.generate.base import GenerationRequest
from rag.generate.context import build_context
from rag.generate.extractive import ExtractiveGenerator
from rag.generate.lead import lead_for
from rag.ingest.clean_text import clean_description, clean_prose
from rag.query import Query
from rag.results import RERANK_SCORE, RetrievedChunk
from tests.fakes import make_chunk, retrieved

BASIC = SecurityFacts("basic", "http", scheme="basic", location="header", parameter="Authorization")
BEARER = SecurityFacts("bearer", "http", scheme="bearer", location="header", parameter="Authorization")
OVERVIEW = make_chunk(
    "stackone.overview",
    "API overview: StackOne  [stackone API]\nServers (base URLs): https://api.stackone.com",
    kind="overview",
    title="StackOne overview",
    security=(BASIC,),
)
EXPIRES = FieldFacts("expires_in", "number", nullable=True,
                     description="How long the session should be valid for in seconds", default="1800")
SESSION_TYPE = FieldFacts("type", "string", nullable=True,
                          description="The connect session account type",
                          default="production", enum=("production", "test", "null"))
SESSIONS = make_chunk(
    "stackone.paths./connect_sessions.post",
    "POST /connect_sessions  [stackone API]",
    kind="operation",
    method="post",
    path="/connect_sessions",
    summary="Create Connect Session",
    security=(BASIC,),
    request_body=RequestBodyFacts(("application/json",), True, "ConnectSessionCreate",
                                  fields=(FieldFacts("origin_owner_id", "string", required=True), EXPIRES,
                                          SESSION_TYPE)),
)
ACCOUNTS = make_chunk(
    "stackone.paths./accounts.get",
    "GET /accounts  [stackone API]",
    kind="operation",
    method="get",
    path="/accounts",
    summary="List Accounts",
    parameters=(
        FieldFacts("provider", "string", "query", description="The provider of the results to fetch"),
        FieldFacts("filter", "object", "query", description="Filter parameters"),
    ),
)
EMPLOYEES = make_chunk(
    "hris.paths./unified/hris/employees.get",
    "GET /unified/hris/employees  [hris API]",
    kind="operation",
    method="get",
    path="/unified/hris/employees",
    summary="List Employees",
    parameters=(
        FieldFacts("x-account-id", "string", "header", required=True, description="The account identifier"),
        FieldFacts("next", "string", "query", description="The unified cursor"),
        FieldFacts("page_size", "number", "query", description="The number of results per page",
                   default="25", maximum=100),
    ),
    responses=(ResponseFacts("200", "EmployeesPaginated", "The list of employees was retrieved.", success=True,
                             fields=(FieldFacts("next_page", "string", deprecated=True),
                                     FieldFacts("next", "string"), FieldFacts("data", "array of Employee"))),),
    pagination=PaginationFacts("cursor", cursor="next", size="page_size", next_field="next"),
)


def lead(question: Query | str, *chunks, facts: tuple[Fact, ...] = ()) -> str:
    return lead_for(question, build_context(retrieved(*chunks), 4000), facts).sentence


def test_authentication_is_stated_with_the_header_to_send() -> None:
    sentence = lead("How do I authenticate against the API?", SESSIONS, OVERVIEW)
    assert sentence == (
        "The StackOne API uses HTTP Basic: send the header `Authorization: Basic <base64 of username:password>`. [2]"
    )


def test_an_operation_states_its_own_security_scheme() -> None:
    assert lead("What auth does the create connect session endpoint use?", SESSIONS, OVERVIEW) == (
        "POST /connect_sessions uses HTTP Basic: send the header `Authorization: Basic <base64 of "
        "username:password>`. [1]"
    )


def test_required_parameters_and_headers_come_from_the_chunk_fields() -> None:
    operation = replace(
        ACCOUNTS,
        parameters=(
            FieldFacts("x-account-id", "string", "header", required=True),
            FieldFacts("id", "string", "path", required=True),
            FieldFacts("provider", "string", "query"),
        ),
    )
    assert lead("Which parameters must I always send to get an account?", operation) == (
        "GET /accounts requires `x-account-id` (header, string, required); `id` (path, string, required). [1]"
    )
    assert lead("Which HTTP headers does the request take?", operation) == (
        "GET /accounts takes the headers `x-account-id` (header, string, required). [1]"
    )


def test_required_fields_of_the_schema_the_question_names() -> None:
    schema = make_chunk(
        "stackone.components.ConnectSessionCreate",
        "Schema ConnectSessionCreate  [stackone API]",
        schema_fields=(FieldFacts("origin_owner_id", "string", required=True),
                       FieldFacts("origin_owner_name", "string", required=True), EXPIRES),
        used_by=("POST /connect_sessions",),
    )
    found = lead_for("Which fields are mandatory in a ConnectSessionCreate object?",
                     build_context(retrieved(SESSIONS, schema), 4000))
    assert found.sentence == (
        "In the ConnectSessionCreate schema, the required fields are `origin_owner_id`, `origin_owner_name`. [2]"
    )
    assert found.detail == "Used by POST /connect_sessions. [2]"


def test_a_default_is_stated_with_its_field_and_meaning() -> None:
    for question in ("What is the default expiry of a connect session?", "How long is a session valid by default?"):
        sentence = lead(question, SESSIONS)
        assert sentence == (
            "In POST /connect_sessions, `expires_in` (number): default 1800 "
            "— How long the session should be valid for in seconds. [1]"
        ), question


def test_allowed_values_leave_out_null() -> None:
    assert lead("Which values can the session type take?", SESSIONS) == (
        "In POST /connect_sessions, `type` (string): one of production, test, default production "
        "— The connect session account type. [1]"
    )


def test_a_limit_is_stated_first() -> None:
    assert lead("What's the biggest page_size I can ask for when listing employees?", EMPLOYEES) == (
        "In GET /unified/hris/employees, `page_size` (query, number): maximum 100, default 25 "
        "— The number of results per page. [1]"
    )


def test_a_yes_no_question_about_a_parameter_names_the_parameter_the_question_names() -> None:
    sentence = lead("Can I list accounts filtered by provider?", ACCOUNTS)
    assert sentence == (
        "Yes: GET /accounts takes the `provider` query parameter (The provider of the results to fetch). [1]"
    )
    # A field the request does not send is one the operation returns (a Google Calendar event's read-only
    # `updated` was said to be taken by the PATCH that updates the event).
    updated = FieldFacts("updated", "string", read_only=True, description="Last modification time of the event")
    patch = replace(make_chunk("calendar.paths./events/{eventId}.patch", "PATCH /events/{eventId}", kind="operation"),
                    method="patch", path="/events/{eventId}",
                    request_body=RequestBodyFacts(("application/json",), True, "Event", fields=(updated,)))
    assert lead("does it support the updated time?", patch).startswith(
        "PATCH /events/{eventId} returns the `updated` field (Last modification time of the event); its request "
        "does not send it")
    # No yes to "can I set a custom id?" of a field only the response has (Mux's asset `data.id`).
    asset_id = FieldFacts("data.id", "string", description="Unique identifier for the Asset. Max 255 characters.")
    create = replace(make_chunk("mux.paths./video/v1/assets.post", "POST /video/v1/assets", kind="operation"),
                     method="post", path="/video/v1/assets",
                     request_body=RequestBodyFacts(("application/json",), True, "CreateAssetRequest",
                                                   fields=(FieldFacts("passthrough", "string"),)),
                     responses=(ResponseFacts("201", "AssetResponse", success=True, fields=(asset_id,)),))
    assert lead("can I set a custom id on an asset?", create).startswith(
        "POST /video/v1/assets returns the `data.id` field")
    # Named with a field the request sends, that one answers ("can I filter by metadata?" of Pinecone's query named
    # the response's `matches.metadata` first: "its request does not send it", though it sends `filter`).
    query = replace(make_chunk("pinecone.paths./query.post", "POST /query", kind="operation"), method="post",
                    path="/query",
                    request_body=RequestBodyFacts(("application/json",), True, "QueryRequest", fields=(
                        FieldFacts("filter", "object", description="The filter to apply"),)),
                    responses=(ResponseFacts("200", "QueryResponse", success=True, fields=(
                        FieldFacts("matches.metadata", "object"),)),))
    assert lead("can I filter by metadata?", query) == (
        "Yes: POST /query takes the `filter` field (The filter to apply). [1]")



def test_no_yes_for_a_field_the_question_names_only_part_of() -> None:
    """GoDaddy: "is this domain name free to register?" answered "Yes: POST …/domains/register takes the
    `nameServers` field": "name" of "domain name" is one word of `nameServers`, whose servers the question does not
    name. A yes says the request takes a field only where the question says every word of its name."""
    register = replace(
        make_chunk("godaddy.paths./v1/domains/register.post", "POST /v1/domains/register", kind="operation"),
        method="post", path="/v1/domains/register",
        request_body=RequestBodyFacts(("application/json",), True, "DomainPurchase", fields=(
            FieldFacts("nameServers", "array of string"), FieldFacts("period", "integer"))))
    assert not lead("is this domain name free to register?", register).startswith("Yes")
    assert lead("can I choose the name servers when I register a domain?", register).startswith(
        "Yes: POST /v1/domains/register takes the `nameServers` field")

def test_the_success_response_lists_only_its_current_top_level_fields() -> None:
    sentence = lead("What does the list employees response look like?", EMPLOYEES)
    assert sentence == "GET /unified/hris/employees returns 200 with `EmployeesPaginated` (fields `next`, `data`). [1]"


def test_pagination_names_the_cursor_the_response_carries_and_the_page_size() -> None:
    found = lead_for(Query("and how do I page through them?", previous="How do I list employees?"),
                     build_context(retrieved(ACCOUNTS, EMPLOYEES), 4000))
    assert found.sentence == (
        "GET /unified/hris/employees pages by cursor: pass the response's `next` as the `next` query parameter to "
        "get the next page; `page_size` sets the page size (maximum 100, default 25). [2]"
    )
    assert found.detail == "Requires `x-account-id` (header). Returns 200 with `EmployeesPaginated` (fields `next`, " \
        "`data`). [2]"


def test_a_search_that_pages_by_its_body_says_so_and_its_page_size_answers_a_default_per_page() -> None:
    """Square: "what's the default page size when searching orders?" led with "Use POST /v2/orders/search"; its
    `limit` (in the body) says "Default: `500`"."""
    search = make_chunk(
        "square.paths./v2/orders/search.post", "POST /v2/orders/search", kind="operation", method="post",
        path="/v2/orders/search", summary="SearchOrders",
        request_body=RequestBodyFacts(("application/json",), True, "SearchOrdersRequest", fields=(
            FieldFacts("location_ids", "array of string", required=True),
            FieldFacts("cursor", "string", description="A pagination cursor returned by a previous call."),
            FieldFacts("limit", "integer", minimum=1, description=(
                "The maximum number of results to be returned in a single page. It is possible to receive fewer "
                "results than the specified limit on a given page. Default: `500` Max: `1000`")))),
        responses=(ResponseFacts("200", "SearchOrdersResponse", success=True, fields=(
            FieldFacts("orders", "array of Order"), FieldFacts("cursor", "string"))),),
        pagination=PaginationFacts("cursor", cursor="cursor", size="limit", next_field="cursor", location="body"),
    )
    assert lead("what's the default page size when searching orders?", search) == (
        "In POST /v2/orders/search, `limit` (integer): minimum 1 — Default: `500` Max: `1000`. [1]")
    assert lead("how do I page through order search results?", search).startswith(
        "POST /v2/orders/search pages by cursor: pass the response's `cursor` as the `cursor` body field to get the "
        "next page; `limit` sets the page size")


def test_a_body_of_one_of_several_objects_states_the_page_size_its_alternative_sets() -> None:
    """1Password's events take a `Cursor` or a `ResetCursor` (whose `limit` is 1 to 1000): the paging sentence states
    the page size's limits from the object that sends it."""
    events = make_chunk(
        "1p.paths./api/v1/auditevents.post", "POST /api/v1/auditevents", kind="operation", method="post",
        path="/api/v1/auditevents", summary="Retrieves audit events",
        request_body=RequestBodyFacts(("application/json",), False, "one of Cursor | ResetCursor", alternatives=(
            BodyAlternative("Cursor", (FieldFacts("cursor", "string"),)),
            BodyAlternative("ResetCursor", (FieldFacts("limit", "number", minimum=1, maximum=1000),)))),
        responses=(ResponseFacts("200", "AuditEventItems", success=True, fields=(
            FieldFacts("items", "array of AuditEvent"), FieldFacts("cursor", "string"),
            FieldFacts("has_more", "boolean"))),),
        pagination=PaginationFacts("cursor", cursor="cursor", size="limit", next_field="cursor",
                                   more_field="has_more", location="body"),
    )
    assert lead("how do I page through audit events?", events) == (
        "POST /api/v1/auditevents pages by cursor: pass the response's `cursor` as the `cursor` body field to get the "
        "next page; `limit` sets the page size (minimum 1, maximum 1000); `has_more` says whether more follow. [1]")


def test_an_operation_question_gets_the_operation_and_what_a_request_needs() -> None:
    found = lead_for("How do I start a connect session?", build_context(retrieved(SESSIONS), 4000))
    assert found.sentence == "Use POST /connect_sessions (Create Connect Session). [1]"
    assert found.detail == ("Body `ConnectSessionCreate` (required: `origin_owner_id`; also `expires_in` (default "
                            "1800), `type` (default production, one of production, test)). [1]")
    # Without a summary the operation id is said in words.
    unnamed = replace(SESSIONS, summary="", operation_id="createConnectSession")
    assert lead("How do I start a connect session?", unnamed) == (
        "Use POST /connect_sessions (create connect session). [1]"
    )


def list_courses() -> Chunk:
    """The one operation LMS courses have (a read)."""
    chunk = make_chunk("lms.paths./unified/lms/courses.get",
                       "GET /unified/lms/courses  [lms API]\n- Summary: List Courses", kind="operation")
    return replace(chunk, method="get", path="/unified/lms/courses", summary="List Courses")


def test_a_missing_operation_answers_no_and_how_to_names_the_operation() -> None:
    fact = MissingWrite("create", "course", ("post", "put"), (list_courses(),))
    assert lead("Can I create a course?", EMPLOYEES, facts=(fact,)) == f"No. {fact.statement()}"
    # Only a missing write leads: another fact (stated in words) leaves the lead to the chunks' rules.
    assert lead("Can I create a course?", EMPLOYEES, facts=(Statement("Courses are read-only."),)) == ""
    assert lead("How do I list employees?", EMPLOYEES).startswith("Use GET /unified/hris/employees")
    assert lead("and how do I list employees?", EMPLOYEES).startswith("Use GET /unified/hris/employees")


def test_a_typed_query_is_answered_by_its_focus_and_its_analysis() -> None:
    fact = MissingWrite("create", "course", ("post", "put"), (list_courses(),))
    # An LLM's standalone version decides whether it is a yes/no question, not the words the user typed.
    rewritten = Query("can it be created?", rewritten="How do I create a course?")
    assert lead(rewritten, EMPLOYEES, facts=(fact,)) == fact.statement()
    follow_up = Query("Can I create one?", previous="How do I list courses?")
    assert lead(follow_up, EMPLOYEES, facts=(fact,)) == f"No. {fact.statement()}"
    assert lead("Tell me something", EMPLOYEES) == "Use GET /unified/hris/employees (List Employees). [1]"
    context = build_context(retrieved(EMPLOYEES), 4000)
    assert lead_for("Tell me something", context, gate="partial").sentence == (
        "The closest match is GET /unified/hris/employees (List Employees). [1]"
    )


def test_the_extractive_answer_opens_with_the_lead_and_states_a_fact_once() -> None:
    fact = MissingWrite("create", "course", ("post", "put"), (list_courses(),))
    request = GenerationRequest(query=Query("Can I create a course?"), chunks=retrieved(EMPLOYEES), facts=[fact])
    answer = ExtractiveGenerator().generate(request).answer
    assert answer.splitlines()[0] == f"No. {fact.statement()}"
    assert answer.count(fact.statement()) == 1


def music_operation(method: str, path: str, summary: str, parameters: tuple[FieldFacts, ...] = ()):  # type: ignore[no-untyped-def]
    chunk = make_chunk(f"music.paths.{path}.{method}", f"{method.upper()} {path}  [music API]", kind="operation")
    return replace(chunk, method=method, path=path, summary=summary, parameters=parameters)


def test_a_request_naming_values_starts_with_the_lookup_operation() -> None:
    query = FieldFacts(name="q", type="string", location="query", required=True)
    search = music_operation("get", "/search", "Search for Item", (query,))
    album = music_operation("get", "/albums/{id}", "Get Album")
    sentence = lead("Play the album Kind of Blue by Miles Davis", search, album)
    assert sentence == (
        "First find Kind of Blue and Miles Davis with GET /search (`q`) [1]; then GET /albums/{id} (Get Album) [2]."
    )
    # No values named, or no lookup operation first: no such sentence.
    assert not lead("Play an album", search, album).startswith("First find")
    assert not lead("Play the album Kind of Blue by Miles Davis", album, search).startswith("First find")


AUTHENTICATE = make_chunk(
    "stackone.paths./connect_sessions/authenticate.post",
    "POST /connect_sessions/authenticate  [stackone API]\nSecurity: basic (HTTP Basic)\n"
    "- categories (array of string, optional): Item enum: ats, hris, stackone.",
    kind="operation",
    method="post",
    path="/connect_sessions/authenticate",
    security=(BASIC,),
)
ACCOUNT_HEADER = FieldFacts("x-account-id", "string", "header", required=True, description="The account identifier")
HRIS_BENEFIT = make_chunk(
    "hris.paths./unified/hris/benefits/{id}.get",
    "GET /unified/hris/benefits/{id}  [hris API]",
    kind="operation",
    method="get",
    path="/unified/hris/benefits/{id}",
    parameters=(ACCOUNT_HEADER,),
)
HRIS_CONVENTIONS = make_chunk(
    "hris.conventions",
    "Conventions shared by the operations of the hris API  [hris API]",
    kind="overview",
    parameters=(
        replace(ACCOUNT_HEADER, shared_by=74, operations=74),
        FieldFacts("raw", "boolean", "query", description="Indicates that the raw request result should be returned",
                   shared_by=59, operations=74),
    ),
)


def test_without_a_security_scheme_authentication_is_the_credential_header_the_operations_take() -> None:
    """ElevenLabs' spec declares no security scheme; its operations take `xi-api-key`. "how do I authenticate?" offered
    the likeliest operations; Discourse's answered "Use POST /users.json (Creates a user)"."""
    user = make_chunk("voices.paths./v1/user.get", "GET /v1/user", kind="operation", method="get", path="/v1/user",
                      summary="Get User Info", parameters=(
                          FieldFacts("xi-api-key", "string", "header", description="Your API key. Required by most.",
                                     shared_by=18, operations=19),
                          FieldFacts("X-Request-Id", "string", "header", shared_by=19, operations=19)))
    found = lead_for("how do I authenticate?", build_context(retrieved(user), 4000))
    assert found.sentence == ("The voices API's operations declare no security scheme; they take the `xi-api-key` "
                              "header (your API key; on 18 of 19 operations). [1]"), found.sentence
    # The first operation logs in ("Use POST /auth/login"): it answers, not the header its token goes in.
    login = make_chunk("voices.paths./auth/login.post", "POST /auth/login", kind="operation", method="post",
                       path="/auth/login", summary="Log In")
    assert lead_for("how do I authenticate?", build_context(retrieved(login, user), 4000)).sentence.startswith(
        "Use POST /auth/login (Log In)")
    # No header reads as a credential: no lead of this kind.
    plain = replace(user, parameters=(FieldFacts("X-Request-Id", "string", "header"),))
    assert "security scheme" not in lead_for("how do I authenticate?", build_context(retrieved(plain), 4000)).sentence


def test_the_credentials_an_api_without_a_scheme_asks_for_are_its_own_not_another_apis_scheme() -> None:
    """Oxford Dictionaries declares no security scheme; every operation takes `app_id` and `app_key` ("app Key
    Authentication Parameter"). With Keycloak in the same index, "how do I authenticate with the oxford api?" was told
    Keycloak's bearer token (an operation of Keycloak's that logs in ranked below Oxford's conventions)."""
    shared = dict(shared_by=26, operations=26, required=True)
    conventions = make_chunk("oxford.conventions", "Conventions shared by the operations of the oxford API",
                             kind="overview", parameters=(
                                 FieldFacts("app_id", "string", "header", description="app ID Authentication Parameter",
                                            **shared),
                                 FieldFacts("app_key", "string", "header",
                                            description="app Key Authentication Parameter", **shared)))
    keycloak_flows = make_chunk("keycloak.paths./{realm}/authentication/flows.post", "POST flows", kind="operation",
                                method="post", path="/{realm}/authentication/flows", summary="Create a new flow",
                                security=(BEARER,))
    found = lead_for("how do I authenticate with the oxford api?",
                     build_context(retrieved(conventions, keycloak_flows), 4000))
    assert found.sentence == (
        "The oxford API's operations declare no security scheme; they take the headers `app_id` (app ID "
        "Authentication Parameter; required on 26 of 26 operations) and `app_key` (app Key Authentication Parameter; "
        "required on 26 of 26 operations). [1]"), found.sentence


def test_an_api_defining_no_scheme_and_no_credential_header_is_said_to_define_none() -> None:
    """Anchore's spec defines no security scheme and its operations take no credential header (`x-anchore-account`
    changes "the resource scope of the request": a scope, not a credential). "how do I log in to the anchore api?" was
    told "they take the `x-anchore-account` header"; "how do I authenticate to anchore?" got its blocks listed."""
    overview = make_chunk("anchore.overview", "API overview: Anchore Engine API Server  [anchore API]", kind="overview",
                          title="Anchore Engine API Server overview",
                          description="This is the Anchore Engine API. Provides the primary external API.")
    account = FieldFacts("x-anchore-account", "string", "header", description="An account name to change the resource "
                         "scope of the request to that account, if permissions allow (admin only)", shared_by=80,
                         operations=112)
    conventions = make_chunk("anchore.conventions", "Conventions shared by the operations of the anchore API",
                             kind="overview", parameters=(account,))
    credentials = make_chunk("anchore.paths./user/credentials.post", "POST /user/credentials", kind="operation",
                             method="post", path="/user/credentials", summary="add/replace credential")
    found = lead_for("how do I log in to the anchore api?",
                     build_context(retrieved(overview, conventions, credentials), 4000))
    assert found.sentence == ("The Anchore Engine API Server spec defines no security scheme, and none of the "
                              "operations found takes a credential header. [1]"), found.sentence
    assert found.related  # the closest operations are listed after it
    # Without the spec's overview (the conventions chunk lists no scheme, whatever the spec defines), nothing is said.
    assert "security scheme" not in lead_for("how do I log in to the anchore api?",
                                             build_context(retrieved(conventions, credentials), 4000)).sentence
    # Where the overview's prose says how, it answers (Postman's "in the form of an `X-Api-Key` request header").
    documented = replace(overview, title="Postman API overview", description=(
        "To authenticate, an API Key is required to be sent as part of every request to the Postman API, in the form "
        "of an X-Api-Key request header."))
    assert "defines no security scheme" not in lead_for(
        "how do I authenticate with the postman api?", build_context(retrieved(documented, credentials), 4000)).sentence


def test_an_api_wide_authentication_question_is_answered_by_the_overview_not_the_first_operation() -> None:
    generation = ExtractiveGenerator().generate(
        GenerationRequest(query=Query("How do I authenticate with the StackOne API?"),
                          chunks=retrieved(AUTHENTICATE, OVERVIEW))
    )
    first = generation.answer.splitlines()[0]
    assert first.startswith("The StackOne API uses HTTP Basic: send the header `Authorization: Basic")
    assert first.endswith("[2]")
    assert "categories" not in generation.answer and "/connect_sessions/authenticate" not in generation.answer
    assert generation.answer.count("Authorization: Basic") == 1  # stated once: no quoted line repeats it
    assert [c.structural_id for c in generation.citations] == ["stackone.overview"]
    # Naming the operation keeps its own scheme.
    assert lead("What auth does authenticating a connect session use?", AUTHENTICATE, OVERVIEW).startswith(
        "POST /connect_sessions/authenticate uses HTTP Basic"
    )


def test_an_api_wide_authentication_lead_holds_for_any_spec_and_names_no_raw_scheme_id() -> None:
    oauth = SecurityFacts("oauth_2_0", "oauth2", location="header", parameter="Authorization",
                          flows=("authorizationCode",), urls=("https://accounts.example.com/authorize",
                                                              "https://accounts.example.com/api/token"))
    playlists = make_chunk("music.paths./users/{user_id}/playlists.post", "POST /users/{user_id}/playlists",
                           kind="operation", method="post", path="/users/{user_id}/playlists", security=(oauth,))
    overview = make_chunk("music.overview", "API overview: Music Web API", kind="overview",
                          title="Music Web API overview", security=(oauth,))
    found = lead_for("How do I authenticate with the Music Web API?",
                     build_context(retrieved(playlists, overview), 4000))
    assert found.sentence == (
        "The Music Web API uses OAuth2 (authorization code): send the access token in the header "
        "`Authorization: Bearer <access token>`. [2]"
    )
    assert "https://accounts.example.com/api/token" in found.detail
    assert "oauth_2_0" not in found.sentence and "/playlists" not in found.sentence
    # Without the overview among the blocks the API's scheme still comes from an operation's typed facts.
    assert lead("How do I authenticate with the Music Web API?", playlists).startswith("The music API uses OAuth2")
    # A title naming the API with its version ("Forem API V1", dev.to's) is not called "… V1 API".
    versioned = replace(overview, title="Forem API V1 overview")
    assert lead_for("How do I authenticate?", build_context(retrieved(versioned), 4000)).sentence.startswith(
        "The Forem API V1 uses OAuth2")


def test_a_header_question_naming_no_operation_is_answered_by_the_conventions() -> None:
    generation = ExtractiveGenerator().generate(
        GenerationRequest(query=Query("Which header selects the account on the HRIS endpoints?"),
                          chunks=retrieved(HRIS_BENEFIT, HRIS_CONVENTIONS))
    )
    first = generation.answer.splitlines()[0]
    assert first == (
        "The HRIS API's operations share the header `x-account-id` (the account identifier; required on 74 of 74 "
        "operations). [2]"
    )
    assert "benefits" not in generation.answer
    assert [c.structural_id for c in generation.citations] == ["hris.conventions"]
    # A question naming the operation is about that operation, not the conventions.
    assert "share" not in lead("Which headers does getting a benefit take?", HRIS_BENEFIT, HRIS_CONVENTIONS)
    # A question about a kind of header no shared header is gets no shared header as its answer, though the shared
    # header's description says "header" too (PagerDuty's `Accept`: "used as a versioning header"), nor an
    # operation's header of another kind.
    assert "share" not in lead("What's the rate-limit header?", HRIS_CONVENTIONS, HRIS_BENEFIT)
    versioning = replace(ACCOUNT_HEADER, name="Accept", shared_by=18, operations=18,
                         description="The `Accept` header is used as a versioning header")
    conventions = replace(HRIS_CONVENTIONS, parameters=(versioning,))
    benefit = replace(HRIS_BENEFIT, parameters=(replace(versioning, shared_by=0, operations=0),))
    assert "Accept" not in lead("What's the rate-limit header?", conventions, benefit)
    assert "Accept" not in lead("What's the rate-limit header of getting a benefit?", benefit)
    assert lead("Which headers does getting a benefit take?", benefit).startswith(
        "GET /unified/hris/benefits/{id} takes the headers `Accept`")
    assert lead("Which shared header do I need?", HRIS_CONVENTIONS).startswith("The HRIS API's operations share")


def test_headers_that_are_the_operations_own_resource_are_not_asked_as_its_header_parameters() -> None:
    """"can I add custom headers to webhook requests in svix?" of `PUT …/endpoint/{endpoint_id}/headers/`, which
    sets them: the lead said it "takes the headers `idempotency-key`", a header parameter of the request."""
    headers = make_chunk(
        "svix.paths./api/v1/app/{app_id}/endpoint/{endpoint_id}/headers/.put",
        "PUT /api/v1/app/{app_id}/endpoint/{endpoint_id}/headers/  [svix API]", kind="operation", method="put",
        path="/api/v1/app/{app_id}/endpoint/{endpoint_id}/headers/", summary="Update Endpoint Headers",
        description="Set the additional headers to be sent with the webhook",
        parameters=(FieldFacts("app_id", "string", "path", required=True),
                    FieldFacts("endpoint_id", "string", "path", required=True),
                    FieldFacts("idempotency-key", "string", "header", description="The request's idempotency key")),
        request_body=RequestBodyFacts(("application/json",), True, "EndpointHeadersIn",
                                      fields=(FieldFacts("headers", "map of string to string", required=True),)))
    sentence = lead("can I add custom headers to webhook requests in svix?", headers)
    assert sentence.startswith("Use PUT /api/v1/app/{app_id}/endpoint/{endpoint_id}/headers/ (Update Endpoint Headers)")
    assert "idempotency-key" not in sentence
    # Asked which headers the same operation takes, it names them.
    assert "takes the headers `idempotency-key`" in lead("which header parameters does updating endpoint headers "
                                                         "take?", replace(headers, path="/endpoint/{id}/settings"))


def test_words_asking_for_what_an_operation_returns_or_how_it_pages_may_name_its_resource() -> None:
    """"how do I create a return label?" of ShipEngine's `POST /v1/labels/{label_id}/return` led "… returns 200
    with …"; "inject a script into the head of every page" led with how Mailchimp's landing pages page."""
    returns = make_chunk(
        "ship.paths./v1/labels/{label_id}/return.post", "POST /v1/labels/{label_id}/return  [ship API]",
        kind="operation", method="post", path="/v1/labels/{label_id}/return", summary="Create a return label",
        parameters=(FieldFacts("label_id", "string", "path", required=True),),
        responses=(ResponseFacts("200", "ReturnLabel", success=True, fields=(FieldFacts("label_id", "string"),)),))
    assert lead("how do I create a return label?", returns).startswith(
        "Use POST /v1/labels/{label_id}/return (Create a return label)")
    assert "returns 200 with `ReturnLabel`" in lead("what does creating a label return?", replace(
        returns, path="/v1/labels/{label_id}/copy"))  # its path does not say "return": the response is asked
    pages = make_chunk("mc.paths./landing-pages.get", "GET /landing-pages  [mc API]", kind="operation", method="get",
                       path="/landing-pages", summary="List landing pages",
                       parameters=(FieldFacts("count", "integer", "query", maximum=1000, default="10"),),
                       pagination=PaginationFacts("page", size="count"))
    assert "pages by" not in lead("which landing pages do I have on every page of my site?", pages)
    assert "pages by" in lead("how do I get the next page of landing pages?", replace(pages, path="/landings"))


def test_asked_for_errors_the_lead_names_the_responses_that_are_not_the_success() -> None:
    """"what error codes can purchasing a label return?" led with the 200 response; its 400, 404 and 500 are
    typed from the spec like the success."""
    labels = make_chunk(
        "ship.paths./v1/labels.post", "POST /v1/labels  [ship API]", kind="operation", method="post",
        path="/v1/labels", summary="Purchase Label",
        responses=(ResponseFacts("200", "create_label_response_body", success=True),
                   ResponseFacts("400", "error_response_body", "The request contained errors."),
                   ResponseFacts("404", "error_response_body", "The specified resource does not exist."),
                   ResponseFacts("429", "no body", "Too Many Requests")))
    assert lead("what error codes can purchasing a label return?", labels) == (
        "POST /v1/labels can fail with 400 (`error_response_body`: The request contained errors); 404 "
        "(`error_response_body`: The specified resource does not exist); 429 (Too Many Requests). [1]")
    assert lead("what does purchasing a label return?", labels).startswith("POST /v1/labels returns 200")
    # The line under the errors still says what succeeds.
    found = lead_for("what error codes can purchasing a label return?", build_context(retrieved(labels), 4000))
    assert "Returns 200 with `create_label_response_body`" in found.detail
    # A spec naming no error code but a `default` response (Linode's): any error status, not "Use …".
    domains = replace(labels, responses=(ResponseFacts("200", "object", success=True),
                                         ResponseFacts("default", "object", "Error")))
    assert lead("what errors can purchasing a label give me?", domains) == (
        "POST /v1/labels can fail with any error status (Error). [1]")
    # A spec documenting only the success says so (ClickSend's "what errors can sending an sms return?" led
    # "POST /sms/send returns 200."), the success still said below.
    quiet = replace(labels, responses=(ResponseFacts("200", "object", success=True),))
    assert lead("what errors can purchasing a label give me?", quiet) == (
        "POST /v1/labels documents no error response. [1]")


def test_a_word_naming_a_path_parameter_spells_no_field_of_the_body() -> None:
    """"how do I add a user to realm acme in keycloak?" led with `composites.realm` of the body of `POST
    /{realm}/users/{id}/role-mappings/realm`: "realm acme" names the `{realm}` the request goes to."""
    mappings = make_chunk(
        "kc.paths./{realm}/users/{id}/role-mappings/realm.post", "POST /{realm}/users/{id}/role-mappings/realm",
        kind="operation", method="post", path="/{realm}/users/{id}/role-mappings/realm",
        summary="Add realm-level role mappings to the user",
        parameters=(FieldFacts("realm", "string", "path", required=True), FieldFacts("id", "string", "path")),
        request_body=RequestBodyFacts(("application/json",), True, "array of RoleRepresentation", fields=(
            FieldFacts("composites.realm", "array of string"), FieldFacts("description", "string"))))
    assert lead("how do I add a user to realm acme in keycloak?", mappings).startswith(
        "Use POST /{realm}/users/{id}/role-mappings/realm")
    assert "`description`" in lead("how do I set the description of a role mapping?", mappings)


def test_a_question_naming_allowed_values_is_answered_by_the_field_that_takes_them() -> None:
    """"can I get it as a png instead of pdf?" of ShipEngine's label purchase said "deprecated: `test_label`" (by
    "instead"), then "returns the `label_download.pdf` field"; the request's `label_format` takes pdf, png or zpl."""
    labels = make_chunk(
        "ship.paths./v1/labels.post", "POST /v1/labels  [ship API]", kind="operation", method="post",
        path="/v1/labels", summary="Purchase Label",
        request_body=RequestBodyFacts(("application/json",), True, "", fields=(
            FieldFacts("label_format", "string", enum=("pdf", "png", "zpl"), default="pdf"),
            FieldFacts("display_scheme", "string", enum=("label", "qr_code")),
            FieldFacts("test_label", "boolean", deprecated=True))),
        responses=(ResponseFacts("200", "Label", success=True, fields=(
            FieldFacts("label_download.pdf", "string", read_only=True),)),))
    assert lead("can I get the label as a png instead of pdf?", labels) == (
        "POST /v1/labels takes the `label_format` field, one of pdf, png, zpl. [1]")
    assert "deprecated" in lead("which fields are deprecated?", labels)


def test_a_field_of_another_api_than_the_one_named_does_not_lead() -> None:
    """"how many orders can I get per page from ebay?" led with Shutterstock's `per_page`, a block below eBay's
    orders, whose page size is `limit` ("If a limit is not set, the limit defaults to 50 …", after an example's
    numbers)."""
    catalog = make_chunk(
        "shutterstock.paths./v2/catalog/collections.get", "GET /v2/catalog/collections", api="shutterstock",
        kind="operation", method="get", path="/v2/catalog/collections",
        parameters=(FieldFacts("per_page", "integer", "query", minimum=2, maximum=50, default="20"),))
    limit = FieldFacts("limit", "string", "query", description=(
        "The number of orders to return per page. For example, if offset is set to 10 and limit is set to 10, the "
        "call retrieves orders 11 thru 20 from the result set. If a limit is not set, the limit defaults to 50 and "
        "returns up to 50 orders. If a requested limit is more than 200, the call fails and returns an error."))
    orders = make_chunk(
        "ebay.paths./order.get", "GET /order", api="ebay", kind="operation", method="get", path="/order",
        summary="get orders", parameters=(limit, FieldFacts("offset", "string", "query")),
        pagination=PaginationFacts("offset", offset="offset", size="limit"),
        responses=(ResponseFacts("200", "Orders", success=True, fields=(FieldFacts("orders.tax", "boolean"),)),))
    sentence = lead("how many orders can I get per page from ebay?", orders, catalog)
    assert sentence.startswith("In GET /order, `limit` (query, string) — If a limit is not set, the limit defaults "
                               "to 50") and "orders.tax" not in sentence
    assert lead("how many orders can I get per page?", catalog, orders).startswith("In GET /v2/catalog/collections")


def test_a_bracketed_field_named_by_the_resource_is_not_spelt_by_it() -> None:
    """"how do I list the builds of my app?" of App Store Connect's `GET /v1/apps/{id}/builds` led with its
    `fields[builds]` (which fields of each build to return); `filter[status]` is still spelt by "status"."""
    builds = make_chunk(
        "asc.paths./v1/apps/{id}/builds.get", "GET /v1/apps/{id}/builds", kind="operation", method="get",
        path="/v1/apps/{id}/builds", summary="apps builds get to many related",
        parameters=(FieldFacts("id", "string", "path", required=True),
                    FieldFacts("fields[builds]", "array of string", "query", item_enum=("version", "uploadedDate")),
                    FieldFacts("filter[status]", "string", "query", enum=("VALID", "EXPIRED"))))
    assert lead("how do I list the builds of my app?", builds).startswith("Use GET /v1/apps/{id}/builds")
    from rag.generate.named import field_classes

    blocks = build_context(retrieved(builds), 4000)
    exact, _, by_path, _ = field_classes("how do I list builds by their status?", blocks)
    assert [f.name for _, f in exact] == ["filter[status]"] and [f.name for _, f in by_path] == ["fields[builds]"]


def test_a_nested_field_whose_own_name_is_the_resource_is_not_spelt_by_it() -> None:
    """Vercel: "which fields are required to create a vercel project?" detailed `permissions.project` first, and
    Gitea's "fork someone else's repo" `parent.fork`: the words name the operation's resource, not those fields."""
    from rag.generate.named import field_classes

    projects = make_chunk(
        "vercel.paths./v9/projects.post", "POST /v9/projects", kind="operation", method="post", path="/v9/projects",
        request_body=RequestBodyFacts(("application/json",), False, "object", fields=(
            FieldFacts("name", "string", required=True), FieldFacts("permissions.project", "array of string"))))
    blocks = build_context(retrieved(projects), 4000)
    exact, _, by_path, _ = field_classes("which fields are required to create a vercel project?", blocks)
    assert not exact and [f.name for _, f in by_path] == ["permissions.project"]
    exact, _, _, _ = field_classes("who can see `permissions.project`?", blocks)
    assert [f.name for _, f in exact] == ["permissions.project"]


def test_a_question_naming_two_apis_gets_an_operation_of_each() -> None:
    candidates = make_chunk("ats.paths./unified/ats/candidates.get", "GET /unified/ats/candidates  [ats API]",
                            kind="operation", method="get", path="/unified/ats/candidates")
    sentence = lead("How do I list employees in the HRIS API and candidates in the ATS API?", candidates, EMPLOYEES)
    assert sentence == (
        "In the ATS API use GET /unified/ats/candidates [1]; in the HRIS API use GET /unified/hris/employees "
        "(List Employees) [2]."
    )


def test_a_missing_operation_is_cited_to_the_operations_that_exist_and_nothing_else_follows() -> None:
    courses = list_courses()
    assignments = make_chunk("lms.paths./unified/lms/users/{id}/assignments.post",
                             "POST /unified/lms/users/{id}/assignments  [lms API]\n- Create a course assignment",
                             kind="operation")
    fact = MissingWrite("create", "course", ("post", "put"), (courses,))
    question = Query("How do I create a course in the LMS API?")
    generation = ExtractiveGenerator().generate(
        GenerationRequest(query=question, chunks=retrieved(assignments, courses), facts=[fact])
    )
    first = generation.answer.splitlines()[0]
    assert first == (
        "There is no endpoint to create course records in the lms API (no POST/PUT operation on a course path). [2] "
        "The operations that exist for course are: GET /unified/lms/courses (List Courses). [2]"
    )
    assert "assignments" not in generation.answer and "Established facts" not in generation.answer
    assert [c.structural_id for c in generation.citations] == ["lms.paths./unified/lms/courses.get"]


def test_which_apis_lists_the_best_operation_of_each_api_among_the_blocks() -> None:
    ats = make_chunk("ats.paths./unified/ats/users.get", "GET /unified/ats/users", kind="operation", method="get",
                     path="/unified/ats/users", summary="List Users")
    lms = make_chunk("lms.paths./unified/lms/users.get", "GET /unified/lms/users", kind="operation", method="get",
                     path="/unified/lms/users", summary="List Users")
    ats_one = replace(ats, path="/unified/ats/users/{id}", summary="Get User")
    assert lead("Which APIs let me list users?", ats, ats_one, lms) == (
        "In the ATS API use GET /unified/ats/users (List Users) [1]; in the LMS API use GET /unified/lms/users "
        "(List Users) [3]."
    )


def test_a_plural_in_the_question_names_the_nested_field_that_carries_allowed_values() -> None:
    status = FieldFacts("status", "string", enum=("pending", "in_progress", "completed"))
    assignments = make_chunk(
        "lms.paths./unified/lms/assignments.get", "GET /unified/lms/assignments", kind="operation", method="get",
        path="/unified/lms/assignments",
        parameters=(FieldFacts("filter", "object", "query", description="LMS Assignment Filter", fields=(status,)),),
    )
    assert lead("Which statuses can I filter LMS assignments by?", assignments) == (
        "In GET /unified/lms/assignments, `filter[status]` (query, string): one of pending, in_progress, completed. [1]"
    )


def test_a_partial_match_offers_the_likeliest_operations_up_front() -> None:
    context = build_context(retrieved(EMPLOYEES, ACCOUNTS), 4000)
    found = lead_for("Tell me something", context, gate="partial")
    assert found.sentence == (
        "The likeliest operations are GET /unified/hris/employees (List Employees) [1] and GET /accounts "
        "(List Accounts) [2]."
    )
    assert found.detail.startswith("Requires `x-account-id` (header)")
    three = lead_for("Tell me something", build_context(retrieved(EMPLOYEES, ACCOUNTS, SESSIONS), 4000),
                     gate="partial")
    assert three.sentence == (
        "The likeliest operations are GET /unified/hris/employees (List Employees) [1], GET /accounts "
        "(List Accounts) [2] and POST /connect_sessions (Create Connect Session) [3]."
    )
    assert three.scope == (1, 2, 3)


def test_the_operation_to_use_is_said_with_the_first_sentence_of_its_description() -> None:
    said = "Creates a session a customer links an account with. Expires after an hour."
    described = replace(SESSIONS, description=said, opening=said)
    assert lead("How do I start a connect session?", described) == (
        "Use POST /connect_sessions (Create Connect Session): Creates a session a customer links an account with. [1]"
    )
    same = replace(described, description="Create Connect Session.", opening="Create Connect Session.")
    assert lead("How do I start a connect session?", same) == "Use POST /connect_sessions (Create Connect Session). [1]"


def test_the_first_sentence_said_is_the_description_s_first_paragraph_past_its_headings() -> None:
    """Trakt: "Use GET /search/{type} (Get text query results): 📄 Pagination ✨ Extended Info 🎚 Filters." quoted the
    Markdown heading its descriptions open with; ingest keeps the first paragraph past the headings (`opening`)."""
    raw = ("#### &#128196; Pagination &#10024; Extended Info &#127898; Filters\n\nSearch all text fields that a media "
           "object contains (i.e. title, overview, etc). Results are ordered by the most relevant score.\n\n#### "
           "Special Characters\n\nOur search engine gives some characters special meaning.")
    search = make_chunk(
        "trakt.paths./search/{type}.get", "GET /search/{type}  [trakt API]", kind="operation", method="get",
        path="/search/{type}", summary="Get text query results", description=clean_prose(raw),
        opening=clean_description(raw)[1])
    assert lead("search for a movie by its title", search) == (
        "Use GET /search/{type} (Get text query results): Search all text fields that a media object contains (i.e. "
        "title, overview, etc). [1]")


# An operation of a spec without prose (no summary, no description), as generated specs have them.
QUEUE_SIZE = FieldFacts("MaxSize", "integer", description="The maximum number of calls allowed to be in the queue. "
                        "The default is 1000. The maximum is 5000.")
ACCOUNT_SID = FieldFacts("account_sid", "string", description="The SID of the Account that created this Queue resource",
                         min_length=34, max_length=34)
QUEUES = make_chunk(
    "phone.paths./Accounts/{AccountSid}/Queues.json.post", "POST /Accounts/{AccountSid}/Queues.json", kind="operation",
    method="post", path="/Accounts/{AccountSid}/Queues.json", operation_id="CreateQueue",
    parameters=(FieldFacts("AccountSid", "string", "path", required=True),),
    request_body=RequestBodyFacts(("application/x-www-form-urlencoded",), True, "",
                                  fields=(FieldFacts("FriendlyName", "string", required=True), QUEUE_SIZE)),
    responses=(ResponseFacts("201", "queue", success=True, fields=(ACCOUNT_SID,)),),
)
PARTICIPANT = make_chunk(
    "phone.paths./Conferences/{ConferenceSid}/Participants/{CallSid}.json.post",
    "POST /Conferences/{ConferenceSid}/Participants/{CallSid}.json", kind="operation", method="post",
    path="/Conferences/{ConferenceSid}/Participants/{CallSid}.json", operation_id="UpdateParticipant",
    parameters=(FieldFacts("ConferenceSid", "string", "path", required=True, description="The SID of the conference"),
                FieldFacts("CallSid", "string", "path", required=True, description="The Call SID of the participant")),
    request_body=RequestBodyFacts(("application/x-www-form-urlencoded",), False, "",
                                  fields=(FieldFacts("Muted", "boolean", description="Whether to mute the participant"),
                                          FieldFacts("EndConferenceOnExit", "boolean"))),
)
KEYS = make_chunk(
    "phone.paths./Keys.json.post", "POST /Keys.json", kind="operation", method="post", path="/Keys.json",
    operation_id="CreateNewKey", security=(BASIC,),
)
MESSAGES = make_chunk(
    "phone.paths./Messages.json.get", "GET /Messages.json", kind="operation", method="get", path="/Messages.json",
    operation_id="ListMessage",
    parameters=(FieldFacts("To", "string", "query", description="Filter by recipient"),
                FieldFacts("DateSent", "string", "query", description="Filter by the date sent")),
    responses=(ResponseFacts("200", "page", success=True, fields=(FieldFacts("messages", "array"),)),),
)


def test_a_limit_question_names_the_field_by_its_words_and_its_description_states_the_limit() -> None:
    # `MaxSize` carries no typed maximum; its description says it. A field described in similar words but
    # named otherwise (`account_sid`, whose length is limited) is not what is asked.
    found = lead("what's the max number of callers a queue can hold?", QUEUES)
    assert found.startswith("In POST /Accounts/{AccountSid}/Queues.json, `MaxSize` (integer) — The maximum number")
    assert "account_sid" not in found


def test_a_path_parameter_is_not_what_a_question_naming_its_resource_asks_for() -> None:
    found = lead_for("Can I mute someone in a conference call?", build_context(retrieved(PARTICIPANT), 4000))
    assert "takes the `Muted` field (Whether to mute the participant)" in found.sentence
    assert "ConferenceSid` path parameter" not in found.sentence


def test_an_api_key_that_is_the_operation_s_resource_is_no_authentication_question() -> None:
    assert lead("How do I create a new API key?", KEYS).startswith("Use POST /Keys.json")
    assert lead("How do I authenticate when I create a key?", KEYS).startswith("POST /Keys.json uses HTTP Basic")


def test_a_question_for_the_call_to_make_gets_the_operation_not_its_response_and_english_words_are_no_fields() -> None:
    # "which call returns them" asks for the operation; "to" in "I need to see" does not name the `To` parameter.
    found = lead_for("I need to see all the texts we sent last week, which call returns them?",
                     build_context(retrieved(MESSAGES), 4000))
    assert found.sentence.startswith("Use GET /Messages.json")
    assert found.detail.startswith("`DateSent` (query, string).") and "`To` (" not in found.detail
    assert "Query parameters `To`." in found.detail  # listed with what the operation takes, not as named
    # Naming the resource ("messages") names no field of it either.
    assert "`messages`" not in lead("list messages", MESSAGES).splitlines()[0]


def test_a_limit_question_naming_no_field_gets_the_page_size_not_a_path_parameter() -> None:
    history = make_chunk(
        "chat.paths./channels/{channel_id}/messages.get", "GET /channels/{channel_id}/messages", kind="operation",
        method="get", path="/channels/{channel_id}/messages", operation_id="list_messages",
        parameters=(FieldFacts("channel_id", "string", "path", required=True),
                    FieldFacts("before", "string", "query"),
                    FieldFacts("limit", "integer", "query", minimum=1, maximum=100)),
        pagination=PaginationFacts("cursor", cursor="before", size="limit"),
    )
    found = lead("How many messages can I get per request when reading a channel's history?", history)
    assert found == "In GET /channels/{channel_id}/messages, `limit` (query, integer): minimum 1, maximum 100. [1]"


def test_a_limit_per_page_is_the_page_size_though_the_question_spells_the_page_parameter() -> None:
    """"how many volumes can I list per page in linode?" spells `page` (minimum 1, default 1), which the rule for a
    field spelt anywhere among the blocks stated; per page, the page size is the limit asked for."""
    volumes = make_chunk(
        "linode.paths./volumes.get", "GET /volumes", kind="operation", method="get", path="/volumes",
        parameters=(FieldFacts("page", "integer", "query", minimum=1, default="1",
                               description="The page of a collection to return."),
                    FieldFacts("page_size", "integer", "query", minimum=25, maximum=500, default="100",
                               description="The number of items to return per page.")),
        pagination=PaginationFacts("page", page="page", size="page_size"),
    )
    found = lead("how many volumes can I list per page in linode?", volumes)
    assert found.startswith("In GET /volumes, `page_size` (query, integer): minimum 25, maximum 500, default 100")
    # Asked of the page itself, not per page, the field spelt is the answer.
    assert lead("what is the default page in linode?", volumes).startswith("In GET /volumes, `page` (query")


def test_a_default_per_page_is_the_page_size_default_and_a_response_page_beside_its_size() -> None:
    """"what's the default number of results per page in bitbucket?" stated `page` (default 1), the page number the
    question spells; "how many pull requests can I get per page?" stated the response's `page` (minimum 1) where
    Bitbucket's paginated response says of `pagelen` beside it "The default value is 10 with 100 being the maximum
    allowed value"."""
    search = make_chunk(
        "bitbucket.paths./workspaces/{workspace}/search/code.get", "GET /workspaces/{workspace}/search/code",
        kind="operation", method="get", path="/workspaces/{workspace}/search/code",
        parameters=(FieldFacts("page", "integer (int32)", "query", default="1",
                               description="Which page of the search results to retrieve"),
                    FieldFacts("pagelen", "integer (int32)", "query", default="10",
                               description="How many search results to retrieve per page")),
        pagination=PaginationFacts("page", size="pagelen", page="page"),
    )
    found = lead("what's the default number of results per page in bitbucket?", search)
    assert found.startswith(
        "In GET /workspaces/{workspace}/search/code, `pagelen` (query, integer (int32)): default 10")
    # The default page is the page number's.
    assert lead("what is the default page in bitbucket?", search).startswith(
        "In GET /workspaces/{workspace}/search/code, `page` (query")
    pulls = make_chunk(
        "bitbucket.paths./repositories/{workspace}/{repo_slug}/pullrequests.get",
        "GET /repositories/{workspace}/{repo_slug}/pullrequests", kind="operation", method="get",
        path="/repositories/{workspace}/{repo_slug}/pullrequests",
        parameters=(FieldFacts("state", "string", "query", enum=("OPEN", "MERGED")),),
        responses=(ResponseFacts("200", "paginated_pullrequests", success=True, fields=(
            FieldFacts("page", "integer", minimum=1, description="Page number of the current results."),
            FieldFacts("pagelen", "integer", minimum=1, description=(
                "Current number of objects on the existing page. The default value is 10 with 100 being the maximum "
                "allowed value.")),
            FieldFacts("size", "integer", minimum=0, description="Total number of objects in the response."))),),
    )
    found = lead("how many pull requests can I get per page?", pulls)
    assert found.startswith("In GET /repositories/{workspace}/{repo_slug}/pullrequests, `pagelen` (integer): minimum 1")


def test_asked_how_a_path_parameter_the_question_names_is_no_field_asked() -> None:
    """"how do I create a repository in a workspace?" led, below the 0.5 line, with "In POST
    /repositories/{workspace}/{repo_slug}/environments, `workspace` (path, string, required) — This can either be the
    workspace ID …": the question names the workspace the operation acts in, and asks nothing of `{workspace}`."""
    environments = make_chunk(
        "bitbucket.paths./repositories/{workspace}/{repo_slug}/environments.post",
        "POST /repositories/{workspace}/{repo_slug}/environments", kind="operation", method="post",
        path="/repositories/{workspace}/{repo_slug}/environments", summary="Create an environment",
        parameters=(FieldFacts("workspace", "string", "path", required=True,
                               description="This can either be the workspace ID (slug) or the workspace UUID."),
                    FieldFacts("repo_slug", "string", "path", required=True)),
    )
    found = lead("how do I create a repository in a workspace?", environments)
    assert "`workspace` (path" not in found and found.startswith("Use POST /repositories/{workspace}/{repo_slug}")
    # Asked of the parameter itself, it answers.
    assert lead("what do I put for workspace?", environments).startswith(
        "In POST /repositories/{workspace}/{repo_slug}/environments, `workspace` (path, string, required)")


def test_asked_how_a_field_spelt_by_a_word_of_what_the_operation_does_is_no_field_asked() -> None:
    """"how do I create a database cluster?" led with "In POST /v2/databases, `connection.database` (string) — The
    name of the default database": the question spells `database` of "Create a New Database Cluster", and the
    request does not send `connection` (read-only)."""
    databases = make_chunk(
        "do.paths./v2/databases.post", "POST /v2/databases", kind="operation", method="post", path="/v2/databases",
        summary="Create a New Database Cluster",
        request_body=RequestBodyFacts(("application/json",), True, "", fields=(
            FieldFacts("name", "string", required=True), FieldFacts("engine", "string", required=True),
            FieldFacts("connection", "object", read_only=True, fields=(
                FieldFacts("database", "string", description="The name of the default database."),)))),
    )
    assert lead("how do I create a database cluster?", databases).startswith(
        "Use POST /v2/databases (Create a New Database Cluster)")


def test_a_body_of_one_of_several_objects_is_read_by_its_alternatives() -> None:
    """DigitalOcean's Droplet create takes one Droplet or several: "what fields are required to create a droplet?"
    answered "Use POST /v2/droplets … Body `one of object`", and "can I enable backups when creating a droplet?" that
    it returns `backups` and its request does not send it."""
    shared = (FieldFacts("image", "string", required=True), FieldFacts("size", "string", required=True),
              FieldFacts("backups", "boolean", default="false",
                         description="A boolean indicating whether automated backups should be enabled."))
    droplets = make_chunk(
        "do.paths./v2/droplets.post", "POST /v2/droplets", kind="operation", method="post", path="/v2/droplets",
        summary="Create a New Droplet", request_body=RequestBodyFacts(("application/json",), True, "one of object",
            alternatives=(BodyAlternative("object", (FieldFacts("name", "string", required=True), *shared)),
                          BodyAlternative("object", (FieldFacts("names", "array of string", required=True),
                                                     *shared)))),
    )
    assert lead("what fields are required to create a droplet?", droplets) == (
        "POST /v2/droplets takes one of 2 bodies: `name`, `image`, `size` required (also `backups`); or `names`, "
        "`image`, `size` required (also `backups`). [1]")
    assert lead("can I enable backups when creating a droplet?", droplets).startswith(
        "Yes: POST /v2/droplets takes the `backups` field")
    # Objects requiring the same fields are said once, named as the spec names them.
    record = (FieldFacts("type", "string", required=True), FieldFacts("data", "string", required=True))
    records = make_chunk(
        "do.paths./v2/records.post", "POST /v2/records", kind="operation", method="post", path="/v2/records",
        request_body=RequestBodyFacts(("application/json",), True, "any of object", alternatives=(
            BodyAlternative("object", record, "A"), BodyAlternative("object", record, "AAAA"),
            BodyAlternative("object", (*record, FieldFacts("priority", "integer", required=True)), "MX"),
            BodyAlternative("object", record), BodyAlternative("object", record))),
    )
    assert lead("what fields are required to add a record?", records) == (
        "POST /v2/records takes one of 5 bodies: A, AAAA: `type`, `data` required; or MX: `type`, `data`, "
        "`priority` required. [1]")


def test_a_body_of_many_kinds_is_read_by_the_kinds_the_question_names() -> None:
    """Vonage's "Send a message" takes one of 22 bodies (text / sms, image / whatsapp, …; the WhatsApp template one
    has a `whatsapp` object): "how do I send a whatsapp message?" led with "In POST /, `whatsapp` (object,
    required)" and listed the SMS bodies first."""
    def kind(name: str, *own: FieldFacts) -> BodyAlternative:
        return BodyAlternative("object", (*own, FieldFacts("channel", "string", required=True),
                                          FieldFacts("to", "string", required=True)), name)
    text, image = FieldFacts("text", "string", required=True), FieldFacts("image", "object", required=True)
    send = make_chunk(
        "vonage.paths./.post", "POST /", kind="operation", method="post", path="/",
        summary="Send a message to the given channel.",
        request_body=RequestBodyFacts(("application/json",), True, "one of one of all of Text", alternatives=(
            kind("text / sms", text), kind("image / mms", image), kind("text / whatsapp", text),
            kind("template / whatsapp", FieldFacts("template", "object", required=True),
                 FieldFacts("whatsapp", "object", required=True)))),
    )
    found = lead_for("how do I send a whatsapp message?", build_context(retrieved(send), 4000), ())
    assert found.sentence.startswith("Use POST / (Send a message to the given channel)")
    answer = found.detail
    assert ("one of 4 bodies; those for whatsapp: text / whatsapp: `text`, `channel`, `to` required; or "
            "template / whatsapp: `template`, `whatsapp`, `channel`, `to` required") in answer
    assert "text / sms" not in answer
    # Naming none of the kinds, every kind is said.
    every = lead_for("how do I send a message?", build_context(retrieved(send), 4000), ()).detail
    assert "one of 4 bodies: text / sms, text / whatsapp: " in every
    # The request example sends the first object the question names, else the first of all.
    body = send.request_body
    assert body is not None
    kinds = tuple(replace(kind, example=f'{{"kind": "{kind.name}"}}') for kind in body.alternatives)
    send = replace(send, request_body=replace(body, alternatives=kinds), request_example=RequestExample(
        "POST", "https://api.nexmo.com/v1/messages", media_type="application/json", body='{"kind": "text / sms"}'))
    blocks = build_context(retrieved(send), 4000)
    for question, sent in (("how do I send a whatsapp message?", "text / whatsapp"),
                           ("how do I send an image over mms?", "image / mms"),
                           ("how do I send a message?", "text / sms")):
        example = lead_for(question, blocks, ()).request_example(blocks, question)
        assert example is not None and example.body == f'{{"kind": "{sent}"}}', question


def test_which_values_a_field_spelt_after_which_takes_is_its_allowed_values() -> None:
    """ConfigCat: "which setting types can a flag have?" led with "Use POST /v1/configs/{configId}/settings" and left
    `settingType`'s values to the second line: no word of the question asks for allowed values, but it asks which
    setting types, and `settingType` has an enum."""
    flags = make_chunk(
        "configcat.paths./v1/configs/{configId}/settings.post", "POST /v1/configs/{configId}/settings",
        kind="operation", method="post", path="/v1/configs/{configId}/settings", summary="Create Flag",
        request_body=RequestBodyFacts(("application/json",), True, "CreateSettingInitialValues", fields=(
            FieldFacts("key", "string", required=True), FieldFacts("name", "string", required=True),
            FieldFacts("settingType", "SettingType", required=True, enum=("boolean", "string", "int", "double")))),
    )
    assert lead("which setting types can a flag have?", flags) == (
        "In POST /v1/configs/{configId}/settings, `settingType` (SettingType, required): one of boolean, string, int, "
        "double. [1]")
    # Spelling no field with allowed values, it is a question of which operation.
    assert lead("which flags can I create?", flags).startswith("Use POST /v1/configs/{configId}/settings")


def test_a_name_sent_and_returned_is_said_once_as_the_request_sends_it() -> None:
    """Zuora's "which statuses can an invoice have?" stated the request's `status` and then the created invoice's
    `status` again; Increase's "list transactions for an account" named the `account_id` filter and the response's
    `data.account_id`."""
    invoices = make_chunk(
        "zuora.paths./v1/invoices.post", "POST /v1/invoices", kind="operation", method="post", path="/v1/invoices",
        summary="Create a standalone invoice",
        request_body=RequestBodyFacts(("application/json",), True, "PostInvoiceType", fields=(
            FieldFacts("accountId", "string", required=True),
            FieldFacts("status", "string", enum=("Draft", "Posted"), default="Draft",
                       description="The status of invoice."))),
        responses=(ResponseFacts("200", "PostInvoiceResponse", success=True, fields=(
            FieldFacts("status", "string", enum=("Draft", "Posted"), description="The status of the invoice."),)),),
    )
    found = lead("which statuses can an invoice have in zuora?", invoices)
    assert found.startswith("In POST /v1/invoices, `status` (string): one of Draft, Posted, default Draft")
    assert found.count("`status`") == 1
    transactions = make_chunk(
        "increase.paths./transactions.get", "GET /transactions", kind="operation", method="get",
        path="/transactions", summary="List Transactions",
        parameters=(FieldFacts("account_id", "string", "query", description="Filter Transactions for those belonging "
                                                                           "to the specified Account."),),
        responses=(ResponseFacts("200", "transaction_list", success=True, fields=(FieldFacts("data", "array", fields=(
            FieldFacts("account_id", "string", required=True),)),)),),
    )
    detail = lead_for("how do I list transactions for an account in the last week?",
                      build_context(retrieved(transactions), 4000), ()).detail
    assert detail.startswith("`account_id` (query, string).") and "data.account_id" not in detail


def test_security_words_naming_a_field_of_the_operation_ask_for_that_field_stated_once() -> None:
    """"which scopes can I give it?" after creating a SendGrid API key answered with the API's security scheme
    (the words "scopes" and "api key" ask for auth) and named `scopes` twice (the request's and the response's):
    the operation's own field is what is asked, once."""
    keys = make_chunk(
        "sendgrid.paths./api_keys.post", "POST /api_keys", kind="operation", method="post", path="/api_keys",
        summary="Create API keys", security=(SecurityFacts("api_key", "apiKey", location="header",
                                                           parameter="Authorization"),),
        request_body=RequestBodyFacts(("application/json",), True, "", fields=(
            FieldFacts("name", "string", required=True),
            FieldFacts("scopes", "array of string",
                       description="The individual permissions that you are giving to this API Key"))),
        responses=(ResponseFacts("201", "object", success=True, fields=(
            FieldFacts("api_key", "string"), FieldFacts("scopes", "array of string"))),),
    )
    question = Query("which scopes can I give it?", previous="how do I create an api key in sendgrid?")
    assert lead(question, keys, OVERVIEW) == (
        "In POST /api_keys, `scopes` (array of string) — The individual permissions that you are giving to this API "
        "Key. [1]")
    # Asked how to authenticate ("authenticate" is no field), the scheme answers as before.
    assert lead("how do I authenticate with an api key?", keys, OVERVIEW).startswith("POST /api_keys uses an API key")


def test_a_question_naming_an_allowed_value_gets_the_field_that_takes_it() -> None:
    """"only the ones that are running?" after listing GitLab pipelines offered three operations; it names one of
    `scope`'s values. "deploy a new version" names no `state` of `new`: "new" asks to create."""
    pipelines = make_chunk(
        "gitlab.paths./projects/{id}/pipelines.get", "GET /projects/{id}/pipelines", kind="operation", method="get",
        path="/projects/{id}/pipelines", summary="Get all Pipelines of the project",
        parameters=(FieldFacts("id", "string", "path", required=True),
                    FieldFacts("scope", "string", "query", description="Either running, branches, or tags",
                               enum=("running", "branches", "tags"))),
    )
    question = Query("only the ones that are running?", previous="how do I list the pipelines of a project?")
    assert lead(question, pipelines) == (
        "GET /projects/{id}/pipelines takes the `scope` query parameter (Either running, branches, or tags), one of "
        "running, branches, tags. [1]")
    deploys = make_chunk(
        "netlify.paths./sites/{site_id}/deploys.post", "POST /sites/{site_id}/deploys", kind="operation",
        method="post", path="/sites/{site_id}/deploys", summary="create site deploy",
        parameters=(FieldFacts("state", "string", "query", enum=("new", "pending_review", "ready")),),
    )
    assert lead("deploy a new version of my site", deploys).startswith("Use POST /sites/{site_id}/deploys")


def test_security_words_naming_the_first_operation_s_resource_ask_about_that_operation() -> None:
    """"how do I rotate an ably api key?" answered with Ably's Bearer scheme: "api key" names the keys the first
    operation updates. Asked how to authenticate, a path saying "authenticate" changes nothing."""
    keys = make_chunk("ably.paths./apps/{app_id}/keys/{key_id}.patch", "PATCH /apps/{app_id}/keys/{key_id}",
                      kind="operation", method="patch", path="/apps/{app_id}/keys/{key_id}", summary="Updates a key")
    assert lead("how do I rotate an api key?", OVERVIEW, keys).startswith("Use PATCH /apps/{app_id}/keys/{key_id}")
    authenticate = make_chunk("stackone.paths./connect_sessions/authenticate.post",
                              "POST /connect_sessions/authenticate", kind="operation", method="post",
                              path="/connect_sessions/authenticate", summary="Authenticate Connect Session")
    assert lead("How do I authenticate against the API?", authenticate, OVERVIEW).startswith(
        "The StackOne API uses HTTP Basic")


def test_a_limit_asked_of_what_an_operation_returns_is_the_limit_its_request_sets() -> None:
    """"how many tweets can I fetch per request when searching?" spells the response's `includes.tweets` (min items
    1), which both the rule for a field spelt anywhere and the operation's asked fact stated; the page size answers."""
    search = make_chunk(
        "twitter.paths./2/tweets/search/recent.get", "GET /2/tweets/search/recent", kind="operation", method="get",
        path="/2/tweets/search/recent", summary="Recent search",
        parameters=(FieldFacts("query", "string", "query", required=True),
                    FieldFacts("max_results", "integer", "query", minimum=10, maximum=100, default="10"),
                    FieldFacts("next_token", "string", "query")),
        pagination=PaginationFacts("cursor", cursor="next_token", size="max_results"),
        responses=(ResponseFacts("200", "Get2TweetsSearchRecentResponse", success=True, fields=(
            FieldFacts("includes.tweets", "array of Tweet", min_items=1),)),))
    assert lead("how many tweets can I fetch per request when searching?", search) == (
        "In GET /2/tweets/search/recent, `max_results` (query, integer): minimum 10, maximum 100, default 10. [1]")


def test_how_its_collection_s_list_pages_keeps_the_conversation_on_the_operation_asked_about() -> None:
    """"is that paginated?" after creating a Discord invite is answered by the invites' list, but the conversation
    stays with the invite: "Can I limit how many people use it?" was read of the list and lost `max_uses`."""
    create = make_chunk("chat.paths./channels/{channel_id}/invites.post", "POST /channels/{channel_id}/invites",
                        kind="operation", method="post", path="/channels/{channel_id}/invites",
                        operation_id="create_channel_invite")
    listed = make_chunk("chat.paths./channels/{channel_id}/invites.get", "GET /channels/{channel_id}/invites",
                        kind="operation", method="get", path="/channels/{channel_id}/invites",
                        operation_id="list_channel_invites")
    blocks = build_context(retrieved(create, listed), 4000)
    found = lead_for(Query("is that paginated?", previous="How do I create an invite link for a channel?"), blocks)
    assert found.sentence == "GET /channels/{channel_id}/invites takes no paging parameters. [2]"
    assert found.scope == (2,) and found.subject(blocks) == "chat.paths./channels/{channel_id}/invites.post"


def test_the_second_line_lists_the_fields_of_the_operation_whose_paging_answers() -> None:
    """Asana: "how do I paginate through tasks in a project?" ranked `POST /tasks/{task_gid}/addProject` first and
    the lead answered from `GET /projects/{project_gid}/tasks`, whose second line began with the first operation's
    body field "`data.project` (string, required)", cited [2]."""
    add_project = make_chunk("asana.paths./tasks/{task_gid}/addProject.post", "POST /tasks/{task_gid}/addProject",
                             kind="operation", method="post", path="/tasks/{task_gid}/addProject",
                             summary="Add a project to a task",
                             request_body=RequestBodyFacts(("application/json",), True, "object", fields=(
                                 FieldFacts("data.project", "string", required=True),)))
    tasks = make_chunk("asana.paths./projects/{project_gid}/tasks.get", "GET /projects/{project_gid}/tasks",
                       kind="operation", method="get", path="/projects/{project_gid}/tasks",
                       summary="Get tasks from a project",
                       parameters=(FieldFacts("project_gid", "string", "path", required=True),
                                   FieldFacts("limit", "integer", "query"), FieldFacts("offset", "string", "query")),
                       pagination=PaginationFacts("offset", size="limit", offset="offset"))
    context = build_context(retrieved(add_project, tasks), 4000)
    found = lead_for("how do I paginate through tasks in a project?", context)
    assert found.sentence.startswith("GET /projects/{project_gid}/tasks pages by offset"), found.sentence
    assert "data.project" not in found.detail and found.detail.endswith("[2]"), found.detail


def test_a_rate_limit_nothing_retrieved_states_is_said_to_be_unstated_not_answered_by_a_rate_operation() -> None:
    """"what's the rate limit?" on VocaDB's spec alone led "Use POST /api/songs/{id}/ratings" (confidence 0.67), on a
    metals price API "Use GET /api/v1/Currencies/rate": a path that says `rate` states no rate limit."""
    ratings = make_chunk("vocadb.paths./api/songs/{id}/ratings.post", "POST /api/songs/{id}/ratings", kind="operation",
                         method="post", path="/api/songs/{id}/ratings", summary="Rate a song")
    found = lead_for("what's the rate limit?", build_context(retrieved(ratings), 4000))
    assert found.sentence == ("Nothing retrieved from the vocadb documentation states a rate limit: no page or "
                              "operation description mentions one, and no operation answers 429 (Too Many Requests).")
    assert found.rule == "rate_limits" and not found.related


def test_the_generator_reads_the_lead_of_the_whole_query_its_subject_included() -> None:
    """"is that paginated?" of a list that takes no paging parameters, the conversation's subject, said "Use GET
    /ppa/predicted": the generator gave the lead the question's words alone, so the subject was never known there."""
    predicted = make_chunk("football.paths./ppa/predicted.get", "GET /ppa/predicted", kind="operation", method="get",
                           path="/ppa/predicted", summary="Predicted Points",
                           parameters=(FieldFacts("down", "integer", "query", required=True),))
    query = Query("is that paginated?", previous="how do I delete one?", subject="football.paths./ppa/predicted.get",
                  subject_words="GET /ppa/predicted Predicted Points", keeps_subject=True)
    answer = ExtractiveGenerator().generate(GenerationRequest(query=query, chunks=retrieved(predicted))).answer
    assert answer.splitlines()[0] == "GET /ppa/predicted takes no paging parameters. [1]", answer


def test_yes_or_no_a_parameter_named_by_a_word_is_sent_before_a_field_spelt_out_is_returned() -> None:
    """GoDaddy: "does the domain list endpoint support filtering by status?" answered "GET /v1/domains returns the
    `status` field"; the request sends `statuses`."""
    domains = make_chunk("godaddy.paths./v1/domains.get", "GET /v1/domains", kind="operation", method="get",
                         path="/v1/domains", summary="Retrieve a list of Domains",
                         parameters=(FieldFacts("statuses", "array of string", "query",
                                                description="Only include results with `status` value in the set"),),
                         responses=(ResponseFacts("200", "array of DomainSummary", success=True, fields=(
                             FieldFacts("status", "string", description="Processing status of the domain"),)),))
    found = lead_for("does the domain list endpoint support filtering by status?",
                     build_context(retrieved(domains), 4000))
    assert found.sentence == ("Yes: GET /v1/domains takes the `statuses` query parameter (Only include results with "
                              "`status` value in the set). [1]"), found.sentence


def test_asked_whether_a_field_it_spells_is_required_the_answer_is_of_that_field() -> None:
    """GoDaddy: "is the period required when renewing a domain?" answered "POST /v1/domains/{domain}/renew requires
    `domain`"; "which field is required?" still lists what the operation requires (it spells no field)."""
    renew = make_chunk("godaddy.paths./v1/domains/{domain}/renew.post", "POST /v1/domains/{domain}/renew",
                       kind="operation", method="post", path="/v1/domains/{domain}/renew", summary="Renew a Domain",
                       parameters=(FieldFacts("domain", "string", "path", required=True),),
                       request_body=RequestBodyFacts(("application/json",), True, "DomainRenew", fields=(
                           FieldFacts("period", "integer", minimum=1, maximum=10),
                           FieldFacts("consent", "object", required=True))))
    context = build_context(retrieved(renew), 4000)
    assert lead_for("is the period required when renewing a domain?", context).sentence == (
        "No: in POST /v1/domains/{domain}/renew, `period` is optional, minimum 1, maximum 10. [1]")
    assert lead_for("is consent required to renew a domain?", context).sentence == (
        "Yes: in POST /v1/domains/{domain}/renew, `consent` is required. [1]")
    assert lead_for("which field is required to renew a domain?", context).sentence.startswith(
        "POST /v1/domains/{domain}/renew requires `domain`")


def test_the_required_fields_of_a_body_the_spec_leaves_optional_are_required() -> None:
    """Vercel: "which fields are required to create a vercel project?" led with "Use POST /v9/projects" because the
    spec does not mark the body required, although the body requires `name`."""
    projects = make_chunk("vercel.paths./v9/projects.post", "POST /v9/projects", kind="operation", method="post",
                          path="/v9/projects", summary="Create a new project",
                          parameters=(FieldFacts("teamId", "string", "query"),),
                          request_body=RequestBodyFacts(("application/json",), False, "object", fields=(
                              FieldFacts("name", "string", required=True, max_length=100),
                              FieldFacts("framework", "string"))))
    context = build_context(retrieved(projects), 4000)
    assert lead_for("which fields are required to create a vercel project?", context).sentence.startswith(
        "POST /v9/projects requires `name`")


def test_a_confident_answer_names_one_operation_however_close_the_next_scores() -> None:
    candidates = retrieved(SESSIONS, ACCOUNTS)
    candidates[0].scores["rerank"], candidates[1].scores["rerank"] = 0.0328, 0.0326
    found = lead_for("How do I start a connect session?", build_context(candidates, 4000))
    assert found.sentence == "Use POST /connect_sessions (Create Connect Session). [1]" and found.scope == (1,)



def pagerduty(method: str, path: str, summary: str) -> Chunk:
    chunk = make_chunk(f"pagerduty.paths.{path}.{method}", f"{method.upper()} {path}  [pagerduty API]",
                       kind="operation")
    return replace(chunk, method=method, path=path, summary=summary)


DELETE_OVERRIDE = pagerduty("delete", "/schedules/{id}/overrides/{override_id}", "Delete an override")
DELETE_SCHEDULE = pagerduty("delete", "/schedules/{id}", "Delete a schedule")
GET_SCHEDULE = pagerduty("get", "/schedules/{id}", "Get a schedule")
LIST_OVERRIDES = pagerduty("get", "/schedules/{id}/overrides", "List overrides")


def test_a_partial_answer_offers_the_likeliest_operations_in_rank_order() -> None:
    """A partial answer offers the first operation and at most two others, another structural id each, in the
    ranking's order (offering only those on the resource the question names was measured and removed)."""
    context = build_context(retrieved(DELETE_OVERRIDE, LIST_OVERRIDES, DELETE_SCHEDULE, GET_SCHEDULE), 4000)
    found = lead_for("How do I remove a schedule?", context, gate="partial")
    assert found.sentence == ("The likeliest operations are DELETE /schedules/{id}/overrides/{override_id} (Delete an "
                              "override) [1], GET /schedules/{id}/overrides (List overrides) [2] and DELETE "
                              "/schedules/{id} (Delete a schedule) [3].")
    assert found.operation == 1


def test_the_rule_that_made_the_lead_is_named() -> None:
    """The lead's rules are a named table; the lead says which one made it (the generate stage notes it)."""
    from rag.generate.lead import LEAD_RULES

    names = [name for name, _ in LEAD_RULES]
    assert len(names) == len(set(names)) and names[-1] == "from_documentation"
    context = build_context(retrieved(SESSIONS), 4000)
    assert lead_for("What is the default of expires_in?", context).rule == "asked_field"
    assert lead_for("How do I start a connect session?", context).rule == "about_an_operation"
    assert lead_for("How do I create a course?", build_context(retrieved(list_courses()), 4000),
                    (MissingWrite("create", "course", ("post",), (list_courses(),)),)).rule == "missing_operation"
    assert lead_for("Tell me something", []).rule == ""


def test_an_operation_below_a_guide_does_not_lead_for_sharing_only_its_apis_name() -> None:
    guide = make_chunk("lms.doc.guide/changes", "Changes\n\nWhat changed in the LMS API since 2025-02: four operations "
                       "were removed.", api="lms", kind="doc", title="Changes", section_path="Changes")
    users = make_chunk("lms.paths./unified/lms/users.get", "GET /unified/lms/users", api="lms", kind="operation",
                       method="get", path="/unified/lms/users", operation_id="lms_list_users", summary="List Users")
    assert not lead("What changed in the LMS API since 2025-02?", guide, users).startswith("Use GET /unified/lms/users")
    # A word of its own resource still makes the question about it.
    assert lead("What changed for users in the LMS API?", guide, users).startswith("Use GET /unified/lms/users")


def test_asked_how_to_do_something_a_response_field_the_question_spells_does_not_lead() -> None:
    """"how do I merge it once approved?" spells Bitbucket's response fields `participants.approved` and
    `links.merge`, which say nothing of how to merge: the operation leads. Asked of a response field ("what currency
    is it in?"), the field does."""
    merged = ResponseFacts("200", "pullrequest", success=True, fields=(
        FieldFacts("participants", "array", fields=(FieldFacts("approved", "boolean"),)),
        FieldFacts("links", "object", fields=(FieldFacts("merge", "object"),))))
    merge = replace(make_chunk("bitbucket.paths./pullrequests/{id}/merge.post", "POST /pullrequests/{id}/merge",
                               kind="operation"), method="post", path="/pullrequests/{id}/merge",
                    summary="Merge a pull request", responses=(merged,))
    assert lead("how do I merge it once approved?", merge).startswith("Use POST /pullrequests/{id}/merge")
    balance = replace(make_chunk("twilio.paths./Balance.json.get", "GET /Balance.json", kind="operation"),
                      method="get", path="/Balance.json", summary="fetch balance", responses=(ResponseFacts(
                          "200", "balance", success=True, fields=(FieldFacts(
                              "currency", "string", description="The units of currency for the account balance"),)),))
    assert lead("what currency is it in?", balance).startswith("In GET /Balance.json, `currency` (string)")
    # A write asked in the imperative asks how to do it too: Mux's "create a signed playback id for asset x7y8"
    # led with the response's `data.id`.
    created = ResponseFacts("201", "CreatePlaybackIDResponse", success=True, fields=(
        FieldFacts("data.id", "string", description="Unique identifier for the PlaybackID."),))
    playback = replace(make_chunk("mux.paths./video/v1/assets/{ASSET_ID}/playback-ids.post",
                                  "POST /video/v1/assets/{ASSET_ID}/playback-ids", kind="operation"),
                       method="post", path="/video/v1/assets/{ASSET_ID}/playback-ids", summary="Create a playback ID",
                       responses=(created,))
    assert lead("create a signed playback id for asset x7y8", playback).startswith(
        "Use POST /video/v1/assets/{ASSET_ID}/playback-ids")


def test_a_search_asked_for_is_no_first_step_before_another_search() -> None:
    """"how do I search issues with JQL?" names `JQL` like a value, and Jira's `GET /api/2/search` and `POST
    /api/2/search` rank first: the lead was "First find JQL with GET /api/2/search; then POST /api/2/search"."""
    jql = FieldFacts("jql", "string", "query", description="a JQL query string")
    search = replace(make_chunk("jira.paths./api/2/search.get", "GET /api/2/search", kind="operation"),
                     method="get", path="/api/2/search", summary="search", parameters=(jql,))
    posted = replace(make_chunk("jira.paths./api/2/search.post", "POST /api/2/search", kind="operation"),
                     method="post", path="/api/2/search", summary="search using search request")
    sentence = lead("how do I search issues with JQL?", search, posted)
    assert sentence.startswith("Use GET /api/2/search (search), with `jql`")


def test_asked_how_to_do_something_a_field_named_by_what_the_operation_does_does_not_lead() -> None:
    """"how do I upload a video to vimeo?" spells the `upload` object Vimeo's "Upload a video" takes: the question
    names the operation, which leads ("In POST /users/{user_id}/videos, `upload` (object, required)" before)."""
    upload = FieldFacts("upload", "object", required=True)
    videos = replace(make_chunk("vimeo.paths./users/{user_id}/videos.post", "POST /users/{user_id}/videos",
                                kind="operation"), method="post", path="/users/{user_id}/videos",
                     summary="Upload a video",
                     request_body=RequestBodyFacts(("application/json",), True, "", fields=(upload,)))
    assert lead("how do I upload a video to vimeo?", videos).startswith("Use POST /users/{user_id}/videos")


def test_the_first_operation_leads_though_a_lower_one_does_the_question_s_verb() -> None:
    """"how do I check if someone is free between 2 and 4pm?": a calendar's POST /freeBusy ranks first, an email
    service's GET below it; "check" reads as a GET, and the lead was "Use GET /stats/outbound/opens". A reranker
    (here the learned ranker, its `rerank` score) has weighed the verb against each method: its first leads.
    Ordered by retrieval alone, the first of the top three doing what the verb asks still does."""
    free_busy = replace(make_chunk("calendar.paths./freeBusy.post", "POST /freeBusy", kind="operation"),
                        method="post", path="/freeBusy", summary="Returns free/busy information for a set of calendars")
    opens = replace(make_chunk("mail.paths./stats/outbound/opens.get", "GET /stats/outbound/opens", kind="operation"),
                    method="get", path="/stats/outbound/opens", summary="Get email open counts")
    question = "how do I check if someone is free between 2 and 4pm?"
    reranked = [RetrievedChunk(chunk, {RERANK_SCORE: score}, rank=rank)
                for rank, (chunk, score) in enumerate(((free_busy, 1.2), (opens, 0.4)), start=1)]
    assert lead_for(question, build_context(reranked, 4000)).sentence.startswith("Use POST /freeBusy")
    assert lead(question, free_busy, opens).startswith("Use GET /stats/outbound/opens")


def test_a_path_parameter_the_question_names_is_neither_the_fact_asked_nor_a_yes() -> None:
    """"what's the max number of data points I can get per request from a feed?" led with Adafruit IO's `feed_key`
    ("a valid feed key"); "is there a length limit on a card comment?" with "Yes: … takes the `idCard` path
    parameter". A path parameter identifies what the question names: the operation leads."""
    feed_key = FieldFacts("feed_key", "string", "path", required=True, description="a valid feed key")
    chart = replace(make_chunk("adafruit.paths./feeds/{feed_key}/data/chart.get", "GET /feeds/{feed_key}/data/chart",
                               kind="operation"), method="get", path="/feeds/{feed_key}/data/chart",
                    summary="Chart data for current feed", parameters=(feed_key,))
    question = "what's the max number of data points I can get per request from a feed?"
    assert lead(question, chart).startswith("Use GET /feeds/{feed_key}/data/chart")
    id_card = FieldFacts("idCard", "string", "path", required=True, description="card id or shortlink")
    comment = replace(make_chunk("trello.paths./cards/{idCard}/actions/comments.post",
                                 "POST /cards/{idCard}/actions/comments", kind="operation"),
                      method="post", path="/cards/{idCard}/actions/comments", parameters=(id_card,),
                      operation_id="addCardsActionsCommentsByIdCard")
    assert lead("is there a length limit on a card comment?", comment).startswith(
        "Use POST /cards/{idCard}/actions/comments")


SEARCH_RECIPES = make_chunk(
    "recipes.paths./recipes/complexSearch.get", "GET /recipes/complexSearch  [recipes API]", kind="operation",
    method="get", path="/recipes/complexSearch", summary="Search Recipes",
    parameters=(FieldFacts("query", "string", "query"), FieldFacts("maxCalories", "number", "query"),
                FieldFacts("number", "integer", "query", minimum=1, maximum=100, default="10",
                           description="The maximum number of items to return")),
    responses=(ResponseFacts("200", "object", success=True, fields=(
        FieldFacts("results", "array of object", required=True, min_items=0),
        FieldFacts("results.calories", "number", required=True))),),
)
EVENTS_BY_YEAR = make_chunk(
    "events.paths./events/{year}.get", "GET /events/{year}  [events API]", kind="operation", method="get",
    path="/events/{year}", summary="Get events by year",
    parameters=(FieldFacts("year", "integer", "path", required=True, description="Competition Year"),),
)


def test_a_limit_of_0_on_a_count_is_no_limit_so_the_field_with_a_bound_answers_a_max() -> None:
    """Spoonacular: "what's the max number of results I can get per search?" stated the response's `results` with
    "min items 0" (a bound every list meets) instead of the `number` parameter's maximum of 100."""
    assert lead("what's the max number of results I can get per search?", SEARCH_RECIPES) == (
        "In GET /recipes/complexSearch, `number` (query, integer): minimum 1, maximum 100, default 10 — The maximum "
        "number of items to return. [1]"
    )


def test_a_request_opening_with_its_verb_gets_the_operation_not_a_field_it_spells() -> None:
    """The Blue Alliance: "list all events in a year" led with the `{year}` path parameter that only identifies
    them; Spoonacular: "search for recipes under 500 calories" with the response's `results.calories`. Asked what a
    field is, the field still answers."""
    assert lead("list all events in a year", EVENTS_BY_YEAR).startswith("Use GET /events/{year} (Get events by year)")
    assert lead("search for recipes under 500 calories", SEARCH_RECIPES).startswith(
        "Use GET /recipes/complexSearch (Search Recipes)")
    assert lead("what is the year in events by year?", EVENTS_BY_YEAR).startswith("In GET /events/{year}, `year`")


def test_an_api_whose_title_has_its_own_the_is_not_named_with_two() -> None:
    overview = replace(OVERVIEW, title="The Blue Alliance API v3 overview")
    assert lead("How do I authenticate?", overview) == (
        "The Blue Alliance API v3 uses HTTP Basic: send the header `Authorization: Basic <base64 of "
        "username:password>`. [1]"
    )


def test_the_values_a_number_allows_are_its_range() -> None:
    """TVmaze: "what values can the vote have?" after voting for an episode repeated "Use PUT …": `vote` is named
    like the resource and has no enum, but its minimum and maximum are the values it allows."""
    vote = make_chunk(
        "tv.paths./user/votes/episodes/{episode_id}.put", "PUT /user/votes/episodes/{episode_id}  [tv API]",
        kind="operation", method="put", path="/user/votes/episodes/{episode_id}", summary="Vote for an episode",
        parameters=(FieldFacts("episode_id", "integer", "path", required=True),),
        request_body=RequestBodyFacts(("application/json",), True, "EpisodeVote", fields=(
            FieldFacts("vote", "integer", minimum=1, maximum=10, description="The vote number"),)),
    )
    assert lead("what values can the vote have?", vote) == (
        "In PUT /user/votes/episodes/{episode_id}, `vote` (integer): minimum 1, maximum 10 — The vote number. [1]")
    assert FieldFacts("vote", "integer", minimum=1).allows and not FieldFacts("name", "string", max_length=5).allows


def test_a_question_saying_all_an_operation_does_gets_the_operation_not_the_field_named_like_it() -> None:
    """AWS WorkMail: "reset a user's password" led with the `Password` field of ResetPassword ("reset" is no verb of
    the verb table); asked about the field, it still answers."""
    reset = make_chunk(
        "mail.paths./#X-Amz-Target=WorkMailService.ResetPassword.post",
        "POST /#X-Amz-Target=WorkMailService.ResetPassword  [mail API]", kind="operation", method="post",
        path="/#X-Amz-Target=WorkMailService.ResetPassword", operation_id="ResetPassword",
        request_body=RequestBodyFacts(("application/json",), True, "ResetPasswordRequest", fields=(
            FieldFacts("UserId", "string", required=True), FieldFacts("Password", "string", required=True,
                                                                     max_length=256))),
    )
    assert lead("reset a user's password", reset).startswith(
        "Use POST /#X-Amz-Target=WorkMailService.ResetPassword (reset password)")
    assert lead("how long can the password be?", reset).startswith(
        "In POST /#X-Amz-Target=WorkMailService.ResetPassword, `Password` (string, required): max length 256")


WRITE_POINTS = make_chunk(
    "influx.paths./write.post", "POST /write  [influx API]", kind="operation", method="post", path="/write",
    summary="Write data",
    parameters=(FieldFacts("bucket", "string", "query", required=True,
                           description="The destination bucket for writes"),
                FieldFacts("precision", "string", "query", enum=("ms", "s", "us", "ns"))),
)
SEND_MESSAGE = make_chunk(
    "mail.paths./messages/send.json.post", "POST /messages/send.json  [mail API]", kind="operation", method="post",
    path="/messages/send.json", description="Send a new transactional message through Mandrill.",
    request_body=RequestBodyFacts(("application/json",), True, "messages_send", fields=(
        FieldFacts("key", "string", required=True), FieldFacts("message", "object", required=True))),
    responses=(ResponseFacts("200", "array of object", success=True, fields=(
        FieldFacts("email", "string"), FieldFacts("status", "string"))),),
)


def test_asked_how_the_lead_names_the_operation_before_the_inputs_the_question_spells() -> None:
    """InfluxDB: "how do I write data points into a bucket?" led "In POST /write, `bucket` …", which never says to
    use it. Asked what a field is, the field still leads."""
    assert lead("how do I write data points into a bucket?", WRITE_POINTS) == (
        "Use POST /write (Write data), with `bucket` (query, string, required) — The destination bucket for "
        "writes. [1]")
    assert lead("what precision can the timestamps be in?", WRITE_POINTS).startswith("In POST /write, `precision`")


def test_a_request_opening_with_the_operation_s_own_action_asks_how_to_do_it() -> None:
    """Mandrill: "send a transactional email" (no verb of the verb table; the path's last segment is `send.json`)
    led with the response's `email`."""
    assert lead("send a transactional email", SEND_MESSAGE) == (
        "Use POST /messages/send.json: Send a new transactional message through Mandrill. [1]")


def test_a_follow_up_naming_nothing_of_its_own_is_asked_of_its_subject_s_fields() -> None:
    """Nordigen: "can I limit them to a date range?" after "how do I get transactions for an account?" kept the
    transactions as its subject but led with another operation's `limit` parameter, ranked third."""
    transactions = make_chunk(
        "bank.paths./accounts/{id}/transactions.get", "GET /accounts/{id}/transactions  [bank API]",
        kind="operation", method="get", path="/accounts/{id}/transactions", summary="Account transactions",
        parameters=(FieldFacts("id", "string", "path", required=True), FieldFacts("date_from", "string", "query"),
                    FieldFacts("date_to", "string", "query")),
    )
    payments = make_chunk(
        "bank.paths./payments.get", "GET /payments  [bank API]", kind="operation", method="get", path="/payments",
        summary="List payments", parameters=(FieldFacts("limit", "integer", "query", minimum=1, default="100"),),
    )
    follow_up = Query("can I limit them to a date range?", previous="how do I get transactions for an account?",
                      subject="bank.paths./accounts/{id}/transactions.get", keeps_subject=True)
    assert lead(follow_up, transactions, payments).startswith("In GET /accounts/{id}/transactions, `date_from`")
    assert lead("can I limit the payments?", transactions, payments).startswith("In GET /payments, `limit`")
