"""Operation chunks carry the operation's facts as fields, the same facts their text states."""

from __future__ import annotations

import json

from rag.chunk import Chunk, FieldFacts, RequestBodyFacts, ResponseFacts
from rag.ingest.openapi import chunk_openapi
from rag.ingest.operation_chunks import response_line
from rag.ingest.schema_prose import field_line
from tests.ingest.test_openapi import chunk_file, line_of, one


def test_summary_description_and_parameters_are_fields() -> None:
    _, result = chunk_file("shop-3.0.yaml", "shop")
    chunk = one(result, "shop.paths./orders.get")
    assert chunk.summary == "List orders"
    assert chunk.description == "Returns the orders of the account, newest first."
    by_name = {p.name: p for p in chunk.parameters}
    page_size = by_name["page_size"]
    assert page_size == FieldFacts(
        name="page_size", type="integer (int32)", location="query",
        description="Results per page", default="25", minimum=1, maximum=100,
    )
    assert page_size.default == "25" and page_size.maximum == 100 and not page_size.required
    assert by_name["status"].enum == ("pending", "paid", "shipped", "cancelled")
    assert by_name["status"].default == "pending"
    assert by_name["cursor"].deprecated and by_name["cursor"].nullable
    assert by_name["x-account-id"].location == "header" and by_name["x-account-id"].required
    assert by_name["expand"].item_enum == ("items", "customer") and by_name["expand"].enum == ()
    # the text is rendered from the same facts
    for parameter in chunk.parameters:
        assert line_of(chunk.text, f"- {parameter.name} ") == field_line(parameter, parameter=True)


def test_request_body_and_responses_are_fields() -> None:
    _, result = chunk_file("shop-3.0.yaml", "shop")
    post = one(result, "shop.paths./orders.post")
    body = post.request_body
    assert isinstance(body, RequestBodyFacts)
    assert (body.media_types, body.required, body.schema, body.name) == (
        ("application/json",), True, "OrderCreateRequest", "OrderCreate"
    )
    assert body.description == "The order to create"
    assert [(f.name, f.required, f.type) for f in body.fields] == [
        ("items", True, "array of object"), ("coupon", False, "string")
    ]
    created = next(r for r in post.responses if r.code == "201")
    assert (created.schema, created.description, created.success) == ("Order", "The created order", True)
    assert created.headers == (("Location", "URL of the new order"),)
    assert ResponseFacts("422", "Error", "Validation failed", success=False) in post.responses
    get = one(result, "shop.paths./orders.get")
    assert get.request_body is None
    assert [(r.code, r.success) for r in get.responses] == [("200", True), ("400", False)]


def test_schema_and_overview_chunks_have_no_operation_facts() -> None:
    _, result = chunk_file("shop-3.0.yaml", "shop")
    for chunk in result.smart + result.naive:
        if chunk.kind != "operation" or chunk.strategy == "naive":
            assert (chunk.summary, chunk.parameters, chunk.request_body, chunk.responses) == ("", (), None, ())


def test_responses_carry_their_headers_and_a_main_response_its_top_level_fields() -> None:
    _, result = chunk_file("shop-3.0.yaml", "shop")
    listing = one(result, "shop.paths./orders.get")
    ok, bad = listing.responses
    assert [(f.name, f.required) for f in ok.fields] == [("next", False), ("data", True)]
    assert bad.fields == () and not bad.success  # only main responses are inlined, so only they list fields
    # the text shows each response's line, rendered from the same facts, and the fields nested under it
    for chunk in (listing, one(result, "shop.paths./orders.post")):
        for response in chunk.responses:
            assert line_of(chunk.text, f"- {response.code} ") == "- " + response_line(response)
    lines = listing.text.splitlines()
    below = lines[lines.index("- " + response_line(ok)) + 1 :]
    assert [line.strip().split(" (")[0] for line in below if line.startswith("  - ")] == ["- next", "- data"]


def test_schema_chunks_carry_their_top_level_fields_and_users() -> None:
    _, result = chunk_file("shop-3.0.yaml", "shop")
    money = one(result, "shop.components.Money")
    assert [f.name for f in money.schema_fields] == ["amount", "currency"]
    assert money.used_by == ("GET /orders", "POST /orders", "GET /orders/{id}")
    assert money.text.splitlines()[-1] == "Used by: GET /orders; POST /orders; GET /orders/{id}"
    for field in money.schema_fields:
        assert line_of(money.text, f"- {field.name} ") == field_line(field)
    assert one(result, "shop.components.AliasB").used_by == ()


def test_a_body_of_one_of_several_objects_keeps_each_objects_fields() -> None:
    """DigitalOcean's Droplet create takes one Droplet (`name`) or several (`names`), both with `image` and `size`:
    the body has no fields of its own, and each alternative keeps its own, with what it requires (also through a
    metadata round trip)."""
    shared = {"type": "object", "required": ["image", "size"], "properties": {
        "image": {"type": "string"}, "size": {"type": "string"}, "backups": {"type": "boolean", "default": False}}}
    one_droplet = {"allOf": [{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
                             shared]}
    several = {"allOf": [{"type": "object", "required": ["names"],
                          "properties": {"names": {"type": "array", "items": {"type": "string"}}}}, shared]}
    spec = {"openapi": "3.0.0", "info": {"title": "Droplets", "version": "1"}, "paths": {"/v2/droplets": {"post": {
        "summary": "Create a New Droplet", "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"oneOf": [one_droplet, several]}}}}, "responses": {"202": {"description": "Accepted"}}}}}}
    post = one(chunk_openapi(spec, "droplets", "droplets.json"), "droplets.paths./v2/droplets.post")
    body = post.request_body
    assert body is not None and body.fields == ()
    required = [sorted(f.name for f in alternative.fields if f.required) for alternative in body.alternatives]
    assert required == [["image", "name", "size"], ["image", "names", "size"]]
    assert next(f for f in body.alternatives[0].fields if f.name == "backups").default == "false"
    again = Chunk.from_metadata(post.chunk_id, post.text, post.to_metadata())
    assert again.request_body == body
    # A body of one object has none.
    assert one(chunk_openapi(spec | {"paths": {"/v2/droplets": {"post": {
        "requestBody": {"content": {"application/json": {"schema": one_droplet}}},
        "responses": {"202": {"description": "Accepted"}}}}}}, "droplets", "droplets.json"),
        "droplets.paths./v2/droplets.post").request_body.alternatives == ()  # type: ignore[union-attr]


def test_each_alternative_is_named_as_the_spec_names_it() -> None:
    """A DNS record body is one of several record types: each alternative is named by the discriminator value that
    maps to its `$ref`, else by the one value its discriminator property allows, else by its title."""
    record = {"type": "object", "required": ["type", "data"], "properties": {
        "type": {"type": "string"}, "data": {"type": "string"}, "ttl": {"type": "integer"}}}
    spec = {"openapi": "3.0.0", "info": {"title": "DNS", "version": "1"}, "components": {"schemas": {
        "a_record": {"allOf": [record, {"properties": {"name": {"type": "string"}}, "required": ["name"]}]},
        "mx_record": {"allOf": [record, {"properties": {"priority": {"type": "integer"}}, "required": ["priority"]}]},
    }}, "paths": {"/records": {"post": {"requestBody": {"content": {"application/json": {"schema": {
        "oneOf": [{"$ref": "#/components/schemas/a_record"}, {"$ref": "#/components/schemas/mx_record"},
                  {"title": "TXT record", "allOf": [record]},
                  {"allOf": [record, {"properties": {"type": {"type": "string", "enum": ["SRV"]}}}]}],
        "discriminator": {"propertyName": "type", "mapping": {
            "A": "#/components/schemas/a_record", "MX": "#/components/schemas/mx_record"}}}}}},
        "responses": {"201": {"description": "Created"}}}}}}
    post = one(chunk_openapi(spec, "dns", "dns.json"), "dns.paths./records.post")
    alternatives = post.request_body.alternatives  # type: ignore[union-attr]
    assert [a.name for a in alternatives] == ["A", "MX", "TXT record", "SRV"]
    assert [sorted(f.name for f in a.fields if f.required) for a in alternatives][:2] == [
        ["data", "name", "type"], ["data", "priority", "type"]]


def test_a_choice_among_choices_gives_the_objects_inside_named_by_their_one_allowed_values() -> None:
    """Vonage's message body is one of its channels (SMS, WhatsApp), each one of its message types (text, image),
    each an `allOf` of a type and a channel, with no discriminator or title: the objects inside are the
    alternatives, each named by the values its one-value properties allow."""
    channel = {"sms": {"type": "object", "properties": {
        "channel": {"type": "string", "enum": ["sms"]}, "to": {"type": "string"}}, "required": ["channel", "to"]},
        "whatsapp": {"type": "object", "required": ["channel", "to"], "properties": {
            "channel": {"type": "string", "const": "whatsapp"}, "to": {"type": "string"}}}}
    kind = {"text": {"type": "object", "required": ["message_type", "text"], "properties": {
        "message_type": {"type": "string", "enum": ["text"]}, "text": {"type": "string"}}},
        "image": {"type": "object", "required": ["message_type", "image"], "properties": {
            "message_type": {"type": "string", "enum": ["image"]}, "image": {"type": "string"}}}}
    spec = {"openapi": "3.0.0", "info": {"title": "Messages", "version": "1"}, "paths": {"/": {"post": {
        "summary": "Send a message", "requestBody": {"content": {"application/json": {"schema": {"oneOf": [
            {"oneOf": [{"allOf": [kind["text"], channel["sms"]]}]},
            {"oneOf": [{"allOf": [kind["text"], channel["whatsapp"]]},
                       {"allOf": [kind["image"], channel["whatsapp"]]}]}]}}}},
        "responses": {"202": {"description": "Accepted"}}}}}}
    post = one(chunk_openapi(spec, "messages", "messages.json"), "messages.paths./.post")
    alternatives = post.request_body.alternatives  # type: ignore[union-attr]
    assert [a.name for a in alternatives] == ["text / sms", "text / whatsapp", "image / whatsapp"]
    assert [sorted(f.name for f in a.fields if f.required) for a in alternatives] == [
        ["channel", "message_type", "text", "to"], ["channel", "message_type", "text", "to"],
        ["channel", "image", "message_type", "to"]]
    # Each carries a body of its own object, as the request example's body is made.
    assert [(body["channel"], body["message_type"]) for body in (json.loads(a.example) for a in alternatives)] == [
        ("sms", "text"), ("whatsapp", "text"), ("whatsapp", "image")]
