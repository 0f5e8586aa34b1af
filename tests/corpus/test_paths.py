"""Paths as the stages read them: resources, shared prefixes, shapes."""

from rag.corpus.path_words import is_item_path, path_action, resource_segments, segment_words
from rag.corpus.paths import (
    acted_on_path,
    named_paths,
    path_fits,
    path_prefixes,
    path_shape,
    resource_of,
    resource_words_of,
    top_segment,
)


def test_resource_of_is_the_last_non_parameter_segment_singular() -> None:
    assert resource_of("/unified/hris/employees/{id}") == "employee"
    assert resource_of("/unified/hris/employees/{id}/documents") == "document"
    assert resource_of("/{id}") == ""


def test_any_naming_style_and_a_format_extension_read_the_same() -> None:
    twilio = "/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/{Sid}.json"
    assert resource_segments(twilio) == ["2010-04-01", "Accounts", "IncomingPhoneNumbers"]
    assert is_item_path(twilio) and not is_item_path("/2010-04-01/Accounts/{AccountSid}/Calls.json")
    assert resource_of(twilio) == "incoming_phone_number"
    assert resource_of("/browse/new-releases") == "new_release"
    assert resource_of("/unified/hris/time_off") == "time_off"
    assert segment_words("IpAccessControlListMappings") == ["ip", "access", "control", "list", "mappings"]
    # A segment that is a format names no resource: Docker lists images at `/images/json`.
    assert resource_segments("/images/json") == ["images"] and resource_of("/containers/{id}/json") == "container"


def test_a_segment_standing_for_an_id_is_no_resource() -> None:
    # Discord writes the current user's or the original message's id as `@me` / `@original`.
    assert resource_segments("/users/@me/guilds") == ["users", "guilds"]
    assert resource_of("/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me") == "reaction"
    assert resource_of("/webhooks/{webhook_id}/{webhook_token}/messages/@original") == "message"
    assert resource_of("/users/@me") == "user"
    assert resource_segments("/@me") == ["@me"]  # nothing else names the path


def test_a_fragment_names_what_the_operation_does_on_its_path() -> None:
    # Box tells operations on one path apart by a fragment: its words, less the verb, are the resource.
    assert resource_segments("/files/{file_id}#add_shared_link") == ["files", "shared_link"]
    assert resource_of("/folders/{folder_id}#get_shared_link") == "shared_link"
    assert resource_of("/shared_items#web_links") == "web_link"  # no verb: the whole fragment
    assert path_action("/files/{file_id}#remove_shared_link") == ("remove", "shared_link")
    assert path_action("/shared_items#folders") == ("", "")
    assert path_action("/files/{file_id}") == ("", "")


def test_named_paths_are_read_with_or_without_a_method() -> None:
    assert named_paths("Call GET /users/{id} then /mcp.") == ["/users/{id}", "/mcp"]


def test_prefixes_are_the_segments_most_paths_share() -> None:
    paths = ["/unified/hris/employees", "/unified/hris/employees/{id}", "/unified/hris/companies"]
    prefixes = path_prefixes(paths)
    assert prefixes == frozenset({"unified", "hris"})
    assert top_segment("hris", "/unified/hris/employees/{id}/documents", prefixes) == "employees"
    assert path_prefixes(["/one"]) == frozenset()


def test_path_shape_writes_every_parameter_the_same_way() -> None:
    assert path_shape("/users/{user_id}/") == "/users/{}"
    assert path_shape("/Users/{id}") == "/users/{}"
    assert path_shape("/") == "/"


def test_a_path_written_with_values_fits_the_operation_path() -> None:
    shape = path_shape("/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json")
    assert path_fits(path_shape("/2010-04-01/Accounts/AC1/Calls/CA9.json"), shape)
    assert path_fits(shape, shape)
    assert not path_fits(path_shape("/2010-04-01/Accounts/AC1/Calls.json"), shape)
    assert not path_fits("/users/me", "/users")


def test_the_words_naming_a_segment_s_resource_leave_out_a_version() -> None:
    assert resource_words_of("environmentsV2") == ["environments"]
    assert resource_words_of("listV2") == ["list"]
    assert resource_words_of("v2") == ["v2"]  # a version alone stays what the segment says
    assert resource_words_of("time_off") == ["time", "off"]


def test_an_rpc_path_acts_on_the_path_before_the_verb_that_ends_it() -> None:
    assert acted_on_path("/v1/connections/create") == "/v1/connections"
    assert acted_on_path("/v1/workspaces/update_name") == "/v1/workspaces"
    assert acted_on_path("/v1/sources/check_connection/") == "/v1/sources"
    assert acted_on_path("/templates/add.json") == "/templates"
    # A path ending in a resource or an item, or a verb that is all the path has, acts on itself.
    for path in ("/v1/connections", "/users/{id}", "/repos/{owner}/pulls", "/createPad", "/v1/jobs/{id}/cancel/{x}",
                 "/files/{file_id}#add_shared_link", "/images/json"):
        assert acted_on_path(path) == path
