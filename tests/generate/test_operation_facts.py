"""The facts of one operation a lead states (rag/generate/operation_facts.py)."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, PaginationFacts, RequestBodyFacts, ResponseFacts
from rag.generate.context import build_context
from rag.generate.operation_facts import (
    body_text,
    brief,
    field_asked,
    names_a_schema,
    operation_detail,
    performs,
    returns_text,
    spelt_fields,
)
from rag.generate.paging import paging
from rag.query import Query
from tests.fakes import make_chunk, retrieved

MEMBERS = make_chunk(
    "chat.paths./guilds/{guild_id}/members.get", "GET /guilds/{guild_id}/members", kind="operation", method="get",
    path="/guilds/{guild_id}/members", operation_id="list_guild_members",
    parameters=(FieldFacts("guild_id", "string", "path", required=True, description="The server's id"),
                FieldFacts("after", "string", "query"),
                FieldFacts("limit", "integer", "query", minimum=1, maximum=1000)),
    pagination=PaginationFacts("cursor", cursor="after", size="limit"),
    responses=(ResponseFacts("200", "GuildMemberList", success=True, fields=(FieldFacts("id", "string"),)),),
)
ROLE = make_chunk(
    "chat.paths./guilds/{guild_id}/roles.post", "POST /guilds/{guild_id}/roles", kind="operation", method="post",
    path="/guilds/{guild_id}/roles", operation_id="create_guild_role",
    request_body=RequestBodyFacts(("application/json",), True, "", fields=(
        FieldFacts("name", "string", required=True),
        FieldFacts("color", "integer", minimum=0, maximum=16777215),
    )),
)


def _anchor(chunk):  # type: ignore[no-untyped-def]
    return build_context(retrieved(chunk), 4000)[0]


def test_a_fact_question_gets_the_field_it_names_else_the_page_size_never_a_path_parameter() -> None:
    sentence, fields = field_asked(Query("what is the max page size when listing members?"), _anchor(MEMBERS))
    assert [f.name for f in fields] == ["limit"] and "maximum 1000" in sentence
    sentence, fields = field_asked(Query("What's the largest color value a role can have?"), _anchor(ROLE))
    assert [f.name for f in fields] == ["color"] and "maximum 16777215" in sentence
    # A default asked of an operation with no default: nothing to state.
    assert field_asked(Query("What is the default of the role?"), _anchor(ROLE)) == ("", [])


def test_a_limit_per_page_is_the_page_size_before_another_limit_the_question_names_as_well() -> None:
    """"what's the max number of events returned per page?" of Google Calendar's event list shares "max" with
    `maxAttendees` and `maxResults` alike; the lead stated `maxAttendees` first."""
    events = make_chunk(
        "calendar.paths./calendars/{calendarId}/events.get", "GET /calendars/{calendarId}/events", kind="operation",
        method="get", path="/calendars/{calendarId}/events",
        parameters=(FieldFacts("maxAttendees", "integer", "query", minimum=1,
                               description="The maximum number of attendees to include in the response."),
                    FieldFacts("maxResults", "integer", "query", minimum=1,
                               description="Maximum number of events returned on one result page."),
                    FieldFacts("pageToken", "string", "query")),
        pagination=PaginationFacts("cursor", cursor="pageToken", size="maxResults"),
    )
    question = "what's the max number of events returned per page?"
    assert [f.name for f in field_asked(Query(question), _anchor(events))[1]] == ["maxResults", "maxAttendees"]
    # Not asked per page, the field the question names comes first.
    question = "what's the max number of attendees it includes?"
    assert field_asked(Query(question), _anchor(events))[1][0].name == "maxAttendees"



def test_how_many_per_page_is_the_page_size_though_the_question_names_only_another_paging_field() -> None:
    """"how many videos can I list per page?" of api.video named only `currentPage` (sharing "page"), whose spec
    describes it as "the number of search results to return per page"; the page size is what is asked."""
    videos = make_chunk(
        "apivideo.paths./videos.get", "GET /videos", kind="operation", method="get", path="/videos",
        parameters=(FieldFacts("currentPage", "integer", "query", default="1", minimum=1,
                               description="Choose the number of search results to return per page."),
                    FieldFacts("pageSize", "integer", "query", default="25",
                               description="Results per page. Allowed values 1-100, default is 25.")),
        pagination=PaginationFacts("page", size="pageSize", page="currentPage"),
    )
    sentence, fields = field_asked(Query("how many videos can I list per page?"), _anchor(videos))
    assert [f.name for f in fields] == ["pageSize", "currentPage"] and "Allowed values 1-100" in sentence
    # A field the question's other words name, without the asked fact, says nothing of pages (Mailchimp's
    # `lists.campaign_defaults` of "listing members of an audience: … what's the most per page?").
    members = make_chunk(
        "mc.paths./lists/{list_id}/members.get", "GET /lists/{list_id}/members", kind="operation", method="get",
        path="/lists/{list_id}/members", parameters=(FieldFacts("count", "integer", "query", default="10"),),
        pagination=PaginationFacts("offset", size="count"),
        responses=(ResponseFacts("200", "Members", success=True, fields=(
            FieldFacts("members.audience_defaults", "object"),)),))
    question = "listing members of an audience: how many do I get per page at most?"
    assert [f.name for f in field_asked(Query(question), _anchor(members))[1]] == ["count"]


def test_a_field_spelt_out_is_stated_though_another_sharing_a_word_has_the_fact() -> None:
    """"what are the allowed values for the event visibility?" spells `items.visibility`, whose description states
    them; `eventTypes`, which shares only "event" but has an enum, led. A part of the field spelt still carries
    the fact ("which statuses can I filter by?": `filter[status]` of `filter`)."""
    visibility = FieldFacts("items.visibility", "string", description='Possible values are: "default", "public".')
    events = make_chunk(
        "calendar.paths./calendars/{calendarId}/events.get", "GET /calendars/{calendarId}/events", kind="operation",
        method="get", path="/calendars/{calendarId}/events",
        parameters=(FieldFacts("eventTypes", "array of string", "query", enum=("default", "focusTime")),),
        responses=(ResponseFacts("200", "Events", success=True, fields=(visibility,)),),
    )
    question = "what are the allowed values for the event visibility?"
    assert [f.name for f in field_asked(Query(question), _anchor(events))[1]] == ["items.visibility"]
    filters = replace(events, parameters=(FieldFacts("filter", "object", "query"),
                                          FieldFacts("filter[status]", "string", "query", enum=("open", "closed"))))
    assert [f.name for f in field_asked(Query("which statuses can I filter by?"), _anchor(filters))[1]] == [
        "filter[status]"]


def test_a_field_whose_name_only_begins_like_the_one_spelt_is_no_part_of_it() -> None:
    """"can I limit the memory of a container?" spells Docker's `HostConfig.Memory` ("Memory limit in bytes");
    `HostConfig.MemorySwappiness` has a minimum and a maximum, and led as if it were a part of it."""
    create = make_chunk(
        "docker.paths./containers/create.post", "POST /containers/create", kind="operation", method="post",
        path="/containers/create", request_body=RequestBodyFacts(("application/json",), True, "", fields=(
            FieldFacts("HostConfig.Memory", "integer", description="Memory limit in bytes.", default="0"),
            FieldFacts("HostConfig.MemorySwappiness", "integer", minimum=0, maximum=100))))
    question = "can I limit the memory of a container when creating it?"
    assert [f.name for f in field_asked(Query(question), _anchor(create))[1]] == ["HostConfig.Memory"]


def test_the_second_line_says_what_a_request_needs_and_what_both_lines_name() -> None:
    detail, named = operation_detail(_anchor(ROLE), set(), ())
    assert (detail, named) == (
        "Takes a request body (required: `name`; also `color` (minimum 0, maximum 16777215)). [1]", {"name"})
    # No field required: the fields a request may send are named all the same (Discord's `max_age` of an invite).
    optional = replace(ROLE, request_body=replace(ROLE.request_body, schema="object", fields=(
        FieldFacts("max_age", "integer"), FieldFacts("id", "string", read_only=True))))
    assert operation_detail(_anchor(optional), set(), ())[0] == "Takes a request body (fields `max_age`). [1]"
    # A name the request sends and the response returns is stated once (Asana's `data.followers`).
    sent, returned = FieldFacts("data.followers", "array of string", required=True), FieldFacts(
        "data.followers", "array of UserCompact")
    followers = make_chunk("asana.paths./tasks/{task_gid}/removeFollowers.post", "POST …/removeFollowers",
                           kind="operation", method="post", path="/tasks/{task_gid}/removeFollowers",
                           request_body=RequestBodyFacts(("application/json",), True, "object", fields=(sent,)))
    assert operation_detail(_anchor(followers), set(), (returned, sent))[0] == (
        "`data.followers` (array of string, required). Takes a request body. [1]")
    detail, named = operation_detail(_anchor(MEMBERS), {"limit"}, ())
    assert detail == ("Requires `guild_id` (path). Query parameters `after`. Returns 200 with `GuildMemberList` "
                      "(fields `id`). [1]")  # `limit` is stated already
    assert named == {"limit", "guild_id", "returns"}


def test_an_operation_s_effect_is_read_from_its_method_and_path() -> None:
    bulk = make_chunk("chat.paths./channels/{id}/messages/bulk-delete.post", "POST", kind="operation", method="post",
                      path="/channels/{id}/messages/bulk-delete")
    assert performs(bulk) == {"delete"} and performs(MEMBERS) == {"get"}


def test_a_field_named_briefly_carries_its_default_bounds_and_a_short_enum_never_a_pattern() -> None:
    assert brief(FieldFacts("limit", "integer", default="25", maximum=100)) == \
        "`limit` (default 25, maximum 100)"
    assert brief(FieldFacts("sid", "string", pattern="^SM[0-9a-f]{32}$")) == "`sid`"
    many = tuple(f"v{n}" for n in range(6))
    assert brief(FieldFacts("kind", "string", enum=many)) == "`kind`"
    assert brief(FieldFacts("sort", "string", enum=("asc", "desc"))) == \
        "`sort` (one of asc, desc)"


def test_a_body_of_one_object_is_named_down_to_its_fields() -> None:
    """Box's `PUT /files/{file_id}#add_shared_link` takes one `shared_link` object: its fields are what to send."""
    shared_link = FieldFacts("shared_link", "object", fields=(
        FieldFacts("access", "string", enum=("open", "company", "collaborators")),
        FieldFacts("password", "string"), FieldFacts("url", "string", read_only=True)))
    body = RequestBodyFacts(("application/json",), False, "object", fields=(shared_link,))
    assert body_text(body, [], set()) == ("Takes a request body (fields `shared_link` (fields `access` (one of open, "
                                          "company, collaborators), `password`))")
    # A body of more fields is named field by field, without their insides.
    wide = replace(body, fields=(shared_link, FieldFacts("name", "string"), FieldFacts("tags", "array")))
    assert body_text(wide, [], set()) == "Takes a request body (fields `shared_link`, `name`, `tags`)"


def test_the_query_parameters_listed_are_the_operation_s_own_before_those_most_operations_share() -> None:
    """Google's APIs give every operation `$.xgafv`, `access_token`, `alt`, `callback`, `fields` and `key`: Gmail's
    message list showed those six and not `q`, the search it takes."""
    common = tuple(FieldFacts(name, "string", "query", shared_by=120, operations=128)
                   for name in ("$.xgafv", "access_token", "alt", "callback", "fields", "key"))
    messages = make_chunk("gmail.paths./users/{userId}/messages.get", "GET /users/{userId}/messages", kind="operation",
                          method="get", path="/users/{userId}/messages",
                          parameters=(*common, FieldFacts("maxResults", "integer", "query"),
                                      FieldFacts("q", "string", "query")))
    detail, _ = operation_detail(_anchor(messages), set(), [])
    assert "Query parameters `maxResults`, `q`, `$.xgafv`" in detail


def test_asked_a_limit_naming_no_field_the_one_limit_that_is_no_part_of_another_is_it() -> None:
    """"how many beta testers can I list per request?" of App Store Connect's `GET /v1/betaTesters`, which pages by
    its response's links: `limit` (maximum 200) beside `limit[apps]` and `limit[builds]` (maximum 50 each, the
    related items included)."""
    testers = make_chunk(
        "asc.paths./v1/betaTesters.get", "GET /v1/betaTesters", kind="operation", method="get", path="/v1/betaTesters",
        parameters=(FieldFacts("limit", "integer", "query", maximum=200, description="maximum resources per page"),
                    FieldFacts("limit[apps]", "integer", "query", maximum=50),
                    FieldFacts("limit[builds]", "integer", "query", maximum=50)))
    sentence, fields = field_asked(Query("how many beta testers can I list per request?"), _anchor(testers))
    assert [f.name for f in fields] == ["limit"] and sentence.startswith("In GET /v1/betaTesters, `limit`")


def test_paging_asked_of_a_write_answers_for_its_own_collection_even_when_that_list_does_not_page() -> None:
    """"is that paginated?" after Mailchimp's `POST /lists/{list_id}/webhooks` answered how `GET /batch-webhooks`
    pages (another resource's list, the first block that paged); the list of the webhooks takes no paging
    parameters, and says so."""
    add = make_chunk("mc.paths./lists/{list_id}/webhooks.post", "POST /lists/{list_id}/webhooks", kind="operation",
                     method="post", path="/lists/{list_id}/webhooks")
    listed = make_chunk("mc.paths./lists/{list_id}/webhooks.get", "GET /lists/{list_id}/webhooks",
                        kind="operation", method="get", path="/lists/{list_id}/webhooks")
    one = make_chunk("mc.paths./lists/{list_id}/webhooks/{webhook_id}.delete",
                     "DELETE /lists/{list_id}/webhooks/{webhook_id}", kind="operation", method="delete",
                     path="/lists/{list_id}/webhooks/{webhook_id}")
    batch = make_chunk("mc.paths./batch-webhooks.get", "GET /batch-webhooks", kind="operation", method="get",
                       path="/batch-webhooks", parameters=(FieldFacts("offset", "integer", "query"),),
                       pagination=PaginationFacts("offset", offset="offset"))
    blocks = build_context(retrieved(add, batch, listed), 4000)
    block, sentence, stated = paging(blocks[0], blocks)
    assert block.chunk is listed and sentence == "GET /lists/{list_id}/webhooks takes no paging parameters"
    assert not stated
    # An item's operation asks of the collection it belongs to; one whose list pages says how.
    paged = replace(listed, parameters=(FieldFacts("offset", "integer", "query"),),
                    pagination=PaginationFacts("offset", offset="offset"))
    blocks = build_context(retrieved(one, paged, batch), 4000)
    block, sentence, _ = paging(blocks[0], blocks)
    assert block.chunk is paged and sentence.startswith("GET /lists/{list_id}/webhooks pages by offset")
    # Without the collection's list among the blocks, the first that pages.
    blocks = build_context(retrieved(add, batch), 4000)
    assert paging(blocks[0], blocks)[0].chunk is batch
    # A list first that takes no paging parameters: of a new question, the first block that pages (the list may be
    # the wrong one); of the conversation's subject, the list is what is asked about.
    blocks = build_context(retrieved(listed, batch), 4000)
    assert paging(blocks[0], blocks)[0].chunk is batch
    assert paging(blocks[0], blocks, settled=True)[1] == "GET /lists/{list_id}/webhooks takes no paging parameters"


def test_a_response_field_named_like_the_resource_is_spelt_by_no_question() -> None:
    """"and get their recent tweets?" led with the response's `includes.tweets` (min items 1) of `GET
    /2/tweets/search/recent`; Gitea's "fork someone else's repo" with the response's `parent.fork`. A field the
    request sends is spelt as before."""
    search = make_chunk(
        "twitter.paths./2/tweets/search/recent.get", "GET /2/tweets/search/recent", kind="operation", method="get",
        path="/2/tweets/search/recent", summary="Recent search",
        parameters=(FieldFacts("query", "string", "query", required=True),
                    FieldFacts("tweet.fields", "array of string", "query")),
        responses=(ResponseFacts("200", "Get2TweetsSearchRecentResponse", success=True, fields=(
            FieldFacts("includes.tweets", "array of Tweet", min_items=1),
            FieldFacts("meta.result_count", "integer"))),),
    )
    assert spelt_fields(Query("and get their recent tweets?"), _anchor(search)) == []
    assert [f.name for f in spelt_fields(Query("which tweet fields can I ask for?"), _anchor(search))] == [
        "tweet.fields"]


def test_a_response_of_one_object_field_names_that_objects_fields() -> None:
    """YNAB wraps every response in `data`: "what fields does it return?" of its account list said only `data`."""
    wrapped = FieldFacts("data", "object", required=True,
                         fields=(FieldFacts("accounts", "array of Account", required=True),
                                 FieldFacts("server_knowledge", "integer", required=True)))
    accounts = make_chunk(
        "budget.paths./budgets/{budget_id}/accounts.get", "GET /budgets/{budget_id}/accounts", kind="operation",
        method="get", path="/budgets/{budget_id}/accounts",
        responses=(ResponseFacts("200", "AccountsResponse", success=True, fields=(wrapped,)),))
    assert returns_text(accounts) == (
        "200 with `AccountsResponse` (fields `data` (fields `accounts`, `server_knowledge`))")
    assert returns_text(MEMBERS) == "200 with `GuildMemberList` (fields `id`)"


def test_a_type_that_names_no_schema_is_not_shown() -> None:
    """"Returns 202 with `one of object`", "Returns 200 with `any`", "Body `object`": an inline object, a choice
    among inline objects and any value name nothing a reader can look up."""
    for label in ("object", "one of object", "any of object", "any", ""):
        chunk = make_chunk("v.paths./calls.post", "POST /calls", kind="operation", method="post", path="/calls",
                           responses=(ResponseFacts("202", label, success=True),))
        assert returns_text(chunk) == "202", label
    assert names_a_schema("array of object") and names_a_schema("one of SMS | Error")


def test_a_limit_asked_of_a_field_with_no_bound_says_the_schema_sets_none() -> None:
    """Mux: "what's the max number of assets per page?" was answered with `limit`'s default of 25 alone, which reads
    as the maximum; a field whose schema or description states a bound is quoted as it is."""
    assets = make_chunk(
        "video.paths./video/v1/assets.get", "GET /video/v1/assets", kind="operation", method="get",
        path="/video/v1/assets", parameters=(
            FieldFacts("limit", "integer", "query", default="25", description="Number of items to include"),
            FieldFacts("page", "integer", "query", default="1")),
        pagination=PaginationFacts("page", size="limit", page="page"))
    sentence, _ = field_asked(Query("what's the max number of assets per page?"), _anchor(assets))
    assert "default 25" in sentence and sentence.endswith("its schema sets no minimum or maximum")
    sentence, _ = field_asked(Query("what is the max page size when listing members?"), _anchor(MEMBERS))
    assert "maximum 1000" in sentence and "sets no" not in sentence
    said = replace(assets, parameters=(FieldFacts("limit", "integer", "query", description="At most 100 per page"),))
    sentence, _ = field_asked(Query("what's the max number of assets per page?"), _anchor(said))
    assert "At most 100" in sentence and "sets no" not in sentence


def test_a_limit_a_description_states_in_words_answers_a_limit_asked_of_what_it_describes() -> None:
    """Postmark: "how many recipients can one email have?" led with "Use POST /email"; `To` says "Max 50." in words.
    A described field whose description states no number is no answer to a limit."""
    email = make_chunk(
        "postmark.paths./email.post", "POST /email", kind="operation", method="post", path="/email",
        request_body=RequestBodyFacts(("application/json",), True, "SendEmailRequest", fields=(
            FieldFacts("From", "string", description="The sender email address."),
            FieldFacts("To", "string", description="Recipient email address. Multiple addresses are comma "
                                                   "separated. Max 50."))))
    sentence, fields = field_asked(Query("how many recipients can one email have?"), _anchor(email))
    assert [f.name for f in fields] == ["To"] and sentence.endswith("Max 50")
    unstated = replace(email, request_body=RequestBodyFacts(("application/json",), True, "SendEmailRequest", fields=(
        FieldFacts("To", "string", description="Recipient email address, comma separated."),)))
    assert field_asked(Query("how many recipients can one email have?"), _anchor(unstated)) == ("", [])


def test_the_page_size_a_response_returns_beside_the_page_answers_per_page() -> None:
    """setlist.fm: "how many results per page does the setlist search return?" was answered with `page` ("the current
    page"); no input sets the page size, the response's `itemsPerPage` says it."""
    search = make_chunk(
        "setlist.paths./1.0/search/setlists.get", "GET /1.0/search/setlists", kind="operation", method="get",
        path="/1.0/search/setlists", parameters=(FieldFacts("p", "integer", "query", default="1"),),
        responses=(ResponseFacts("200", "json_Setlists", success=True, fields=(
            FieldFacts("itemsPerPage", "number", description="the amount of items you get per page"),
            FieldFacts("page", "number", description="the current page. starts at 1"),
            FieldFacts("total", "number"))),))
    sentence, fields = field_asked(Query("how many results per page does the setlist search return?"),
                                   _anchor(search))
    assert [f.name for f in fields] == ["itemsPerPage"] and "the amount of items you get per page" in sentence
