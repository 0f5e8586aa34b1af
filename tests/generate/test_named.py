"""The fields a question names (rag/generate/named.py)."""

from __future__ import annotations

from rag.chunk import FieldFacts, RequestBodyFacts, ResponseFacts
from rag.generate.context import build_context
from rag.generate.named import field_classes, spells_field
from rag.generate.operation_facts import field_asked
from rag.query import Query
from tests.fakes import make_chunk, retrieved

COLOR = FieldFacts("color", "integer", minimum=0, maximum=16777215)
# A created role comes back with the fields it was created with: the same `color` is sent and returned.
CREATE_ROLE = make_chunk(
    "chat.paths./guilds/{guild_id}/roles.post", "POST /guilds/{guild_id}/roles", kind="operation", method="post",
    path="/guilds/{guild_id}/roles", operation_id="create_guild_role",
    request_body=RequestBodyFacts(("application/json",), True, "", fields=(FieldFacts("name", "string", required=True),
                                                                           COLOR)),
    responses=(ResponseFacts("200", "Role", success=True, fields=(FieldFacts("id", "string"), COLOR)),),
)
STATUS_FILTER = FieldFacts("status", "array of string", "query", description="The statuses to fetch")
STATUS = FieldFacts("status", "string", required=True, enum=("active", "inactive"))
LIST_ACCOUNTS = make_chunk(
    "hub.paths./accounts.get", "GET /accounts", kind="operation", method="get", path="/accounts",
    parameters=(STATUS_FILTER,), responses=(ResponseFacts("200", "Account", success=True, fields=(STATUS,)),),
)


def test_a_field_sent_and_returned_alike_is_named_once_and_two_fields_of_one_name_twice() -> None:
    blocks = build_context(retrieved(CREATE_ROLE), 4000)
    exact, *_ = field_classes("What's the largest color value a role can have?", blocks)
    assert [field for _, field in exact] == [COLOR]
    sentence, fields = field_asked(Query("What's the largest color value a role can have?"), blocks[0])
    assert fields == [COLOR] and sentence.count("`color`") == 1
    # A filter and the response field it filters on say different things: both are the question's.
    blocks = build_context(retrieved(LIST_ACCOUNTS), 4000)
    exact, *_ = field_classes("Which values can the status of an account have?", blocks)
    assert [field for _, field in exact] == [STATUS_FILTER, STATUS]


def test_the_api_s_name_in_a_question_names_no_field() -> None:
    """"how many recipients can a postmark email have?" led with Postmark's `X-Postmark-Server-Token` header, which
    shares only the API's name with the question."""
    token = FieldFacts("X-Postmark-Server-Token", "string", "header", required=True,
                       description="The token associated with the Server on which this request will operate.")
    send = make_chunk("postmark.paths./email.post", "POST /email", kind="operation", method="post", path="/email",
                      parameters=(token,),
                      request_body=RequestBodyFacts(("application/json",), True, "SendEmailRequest",
                                                    fields=(FieldFacts("To", "string"),)))
    blocks = build_context(retrieved(send), 4000)
    assert not any(field_classes("how many recipients can a postmark email have?", blocks))
    # Named by its own words, the header is a field asked about.
    assert field_classes("which server token header does postmark want?", blocks)[1][0][1] == token


def test_a_word_the_tokenizer_drops_names_no_field() -> None:
    """"what statuses can an envelope have?" led with DocuSign's `signerCanSignOnMobile`, which shares only "can"
    with the question; a field the question names by its own words still leads."""
    on_mobile = FieldFacts("envelopes.signerCanSignOnMobile", "string", description="When true, recipients can sign.")
    status = FieldFacts("envelopes.status", "string", description="Indicates the envelope status.")
    update = make_chunk("docusign.paths./v2.1/accounts/{accountId}/envelopes/status.put", "PUT …/envelopes/status",
                        kind="operation", method="put", path="/v2.1/accounts/{accountId}/envelopes/status",
                        request_body=RequestBodyFacts(("application/json",), True, "envelopeIdsRequest",
                                                      fields=(on_mobile, status)))
    blocks = build_context(retrieved(update), 4000)
    exact, shared, by_path, _ = field_classes("what statuses can an envelope have?", blocks)
    assert not exact and not shared and status in [field for _, field in by_path]
    assert [field for _, field in field_classes("can a signer sign on mobile?", blocks)[1]] == [on_mobile]


def test_a_name_written_as_code_is_spelt_or_names_no_field() -> None:
    """"do I need the accountId for every call?" answered "Yes: POST /v2.1/accounts takes the `accountName` field":
    `accountId` shares five letters with it. Written as code, a name names the field it spells; in words, "account
    name" still names `accountName`."""
    name = FieldFacts("accountName", "string", description="The account name for the new account.")
    create = make_chunk("docusign.paths./v2.1/accounts.post", "POST /v2.1/accounts", kind="operation", method="post",
                        path="/v2.1/accounts", request_body=RequestBodyFacts(("application/json",), True,
                                                                             "newAccountDefinition", fields=(name,)))
    blocks = build_context(retrieved(create), 4000)
    assert not any(field_classes("do I need the accountId for every call?", blocks))
    assert [field for _, field in field_classes("is the account name required?", blocks)[0]] == [name]


def test_a_field_sent_as_an_array_is_spelt_by_its_name_and_no_question_spells_an_empty_name() -> None:
    """PagerDuty's `statuses[]`, `urgencies[]`: the name left after the bracket was empty, which every question
    "spelt" ("what's the rate-limit header?" led with `service_ids[]` and `urgencies[]`)."""
    assert not spells_field("urgencies[]", "what's the rate-limit header?")
    assert spells_field("urgencies[]", "can I filter by urgencies?")
    assert spells_field("filter[status]", "which status can I filter by?")


def test_a_camel_case_name_is_spelt_by_its_words() -> None:
    """Velo's "what's the default page size for listing payees?" stated `page` (default 1): "page size" did not spell
    `pageSize` (its name was lower-cased before it was read as words), so only `page` was spelt."""
    assert spells_field("pageSize", "what's the default page size for listing payees?")
    assert spells_field("expiresIn", "what does expires in mean?")
    assert spells_field("Contacts.EmailAddress", "find a contact by email address")
    assert not spells_field("pagesize", "what's the page size?")  # one word as written: spelt only as written
