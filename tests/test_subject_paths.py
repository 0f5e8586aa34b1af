"""Where a follow-up's words point from the conversation's subject (rag/subject_paths.py)."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk, FieldFacts, RequestBodyFacts
from rag.subject_paths import (
    action_operation,
    collection_create,
    done_by_another,
    member_operation,
    named_keys,
    named_under,
    points_to_owner,
    segment_keys,
    sibling_operation,
    state_operation,
    subresource_operation,
)
from tests.fakes import make_chunk


def operation(method: str, path: str) -> Chunk:
    chunk = make_chunk(f"api.paths.{path}.{method}", f"{method.upper()} {path}", kind="operation")
    return replace(chunk, method=method, path=path)


def test_a_follow_up_names_a_segment_by_its_words_in_any_of_their_forms() -> None:
    assert {"selling", "sell", "stuff", "hold"} <= named_keys("what about selling the stuff in its hold?")
    assert "list" not in named_keys("and how do I list them all?")  # a verb of HTTP's own vocabulary
    assert {"signed_url", "url", "urls"} <= segment_keys("signed-url")


def test_what_is_kept_under_the_subject_s_item_or_done_to_its_whole_collection() -> None:
    dock = operation("post", "/my/ships/{shipSymbol}/dock")
    refuel = operation("post", "/my/ships/{shipSymbol}/refuel")
    ships = [dock, refuel, operation("get", "/my/ships")]
    # An action on an item (nothing addresses one of a dock): what is kept under the ship.
    assert [op for _, op in named_under(dock, {"refuel"}, ships)] == [refuel]
    incidents = operation("get", "/api-reporting/v2/incidents")
    ack = operation("patch", "/api-public/v1/incidents/ack")
    by_user = operation("patch", "/api-public/v1/incidents/byUser/ack")
    assert [op for _, op in named_under(incidents, {"ack"}, [incidents, ack, by_user])] == [ack]
    # Named by its own verb, the action is taken whatever its method; a question's own method still decides.
    assert subresource_operation(incidents, {"ack"}, set(), [incidents, ack], action="ack") is ack
    # Described by it, not asked to do it: "only the merged ones" after listing pull requests.
    pulls = operation("get", "/pullrequests")
    merge = operation("post", "/pullrequests/{id}/merge")
    assert subresource_operation(pulls, named_keys("only the merged ones"), set(), [pulls, merge]) is None
    assert subresource_operation(pulls, named_keys("merge it"), set(), [pulls, merge], action="merge") is merge
    assert subresource_operation(incidents, {"ack"}, {"delete"}, [incidents, ack]) is None


def test_what_the_item_a_subject_s_collection_belongs_to_has_when_the_question_says_its() -> None:
    sweeps = operation("post", "/balanceAccounts/{balanceAccountId}/sweeps")
    instruments = operation("get", "/balanceAccounts/{id}/paymentInstruments")
    account = [sweeps, operation("get", "/balanceAccounts/{balanceAccountId}/sweeps/{sweepId}"), instruments]
    keys = named_keys("then list its payment instruments")
    assert points_to_owner("then list its payment instruments")
    assert subresource_operation(sweeps, keys, {"get"}, account, owner=True) is instruments
    assert subresource_operation(sweeps, keys, {"get"}, account) is None  # no possessive: not the owner's
    # The subject's own collection is not what its owner has besides it.
    logs = operation("get", "/report/{pk}/log/")
    report = [logs, operation("get", "/report/{pk}/log/{log_id}"), operation("get", "/report/{pk}")]
    assert named_under(logs, named_keys("its single log entry"), report, owner=True) == []


def test_one_member_of_a_collection_under_an_item_addressed_by_its_own_path() -> None:
    holders = operation("get", "/balancePlatforms/{id}/accountHolders")
    update = operation("patch", "/accountHolders/{id}")
    others = [holders, update, operation("patch", "/balanceAccounts/{id}")]
    assert member_operation(holders, {"patch"}, others) is update
    assert member_operation(holders, {"delete"}, [holders, update]) is None
    # One item is no collection whose members are addressed elsewhere.
    assert member_operation(operation("get", "/balancePlatforms/{id}/accountHolders/{holderId}"), {"patch"},
                            [update]) is None
    twice = [update, operation("patch", "/legalEntities/{id}/accountHolders/{holderId}/x/accountHolders/{id}")]
    assert member_operation(holders, {"patch"}, twice) is None  # more than one: none


def test_a_write_the_collection_under_an_item_takes_itself_is_done_to_its_members() -> None:
    """"remove one of them" after adding songs to a Jellyfin playlist: `DELETE /Playlists/{playlistId}/Items` removes
    entries; `DELETE /Items/{itemId}` would delete the file from the library."""
    add = operation("post", "/Playlists/{playlistId}/Items")
    remove, library = operation("delete", "/Playlists/{playlistId}/Items"), operation("delete", "/Items/{itemId}")
    assert member_operation(add, {"delete"}, [add, library, remove]) is remove
    assert member_operation(add, {"delete"}, [add, library]) is library  # none of its own: the member elsewhere
    # Reading one of them is no read of the whole collection.
    read = operation("get", "/Items/{itemId}")
    assert member_operation(add, {"get"}, [add, read, operation("get", "/Playlists/{playlistId}/Items")]) is read


def test_one_of_what_an_action_on_a_collection_acted_on_is_one_of_the_collection() -> None:
    """Crucible: "delete one of them" after "mark them all as read" (`POST …/comments/markAllAsRead`) deletes one
    comment; nothing is kept under the action's own path."""
    mark = operation("post", "/reviews-v1/{id}/comments/markAllAsRead")
    remove = operation("delete", "/reviews-v1/{id}/comments/{cId}")
    assert member_operation(mark, {"delete"}, [mark, remove]) is remove
    # A POST that creates has its members under its own path.
    create = operation("post", "/employees")
    assert member_operation(create, {"delete"}, [create, operation("delete", "/employees/{id}")]) is not None


def test_what_is_kept_behind_a_segment_that_only_groups() -> None:
    group = operation("post", "/v1/betaGroups")
    add = operation("post", "/v1/betaGroups/{id}/relationships/builds")
    listed = operation("get", "/v1/betaGroups/{id}/builds")
    deeper = operation("post", "/v1/betaGroups/{id}/relationships/builds/{buildId}/notes")
    others = [operation("get", f"/v1/{owner}/{{id}}/relationships/apps") for owner in ("users", "builds")]
    keys = named_keys("add some builds to it")
    assert subresource_operation(group, keys, {"post"}, [group, add, listed, deeper, *others]) is add
    assert subresource_operation(group, keys, {"post"}, [group, add, listed, deeper]) is None  # one owner's own
    # Of two that do what is asked, the one kept directly: "which builds can I see?" reads `…/builds`; adding one
    # is done behind the grouping segment, though `…/builds` is kept more directly.
    grouped_get = operation("get", "/v1/betaGroups/{id}/relationships/builds")
    everything = [group, add, listed, grouped_get, *others]
    assert subresource_operation(group, named_keys("which builds are in it?"), {"get"}, everything) is listed
    assert subresource_operation(group, keys, {"post"}, everything) is add
    # A segment of one resource's own is no grouping: "can I record it?" names no `…/Usage/Records.json`.
    call = operation("get", "/Accounts/{AccountSid}/Calls/{CallSid}")
    usage = operation("get", "/Accounts/{AccountSid}/Calls/{CallSid}/Usage/Records")
    assert named_under(call, named_keys("can I record it?"), [call, usage]) == []


def test_an_item_addressed_by_two_parameters() -> None:
    """Bitbucket addresses a repository by its workspace and its slug, and a snippet likewise."""
    snippets = operation("post", "/snippets/{workspace}")
    comments = operation("post", "/snippets/{workspace}/{encoded_id}/comments")
    keys = named_keys("add a comment to it")
    assert subresource_operation(snippets, keys, {"post"}, [snippets, comments]) is comments
    environments = operation("get", "/repositories/{workspace}/{repo_slug}/environments")
    deployments = operation("get", "/repositories/{workspace}/{repo_slug}/deployments")
    one = operation("get", "/repositories/{workspace}/{repo_slug}/environments/{id}")
    repository = [environments, deployments, one]
    keys = named_keys("what about its deployments?")
    assert subresource_operation(environments, keys, set(), repository, owner=True) is deployments


def test_the_action_asked_done_to_what_the_subject_is_under() -> None:
    """"approve it" after commenting on a pull request approves the pull request (`POST …/approve`, not the
    `DELETE` that withdraws an approval); without the action asked, nothing of the owner is taken."""
    comments = operation("post", "/pullrequests/{pull_request_id}/comments")
    approve = operation("post", "/pullrequests/{id}/approve")
    withdraw = operation("delete", "/pullrequests/{id}/approve")
    pull = [comments, operation("get", "/pullrequests/{pull_request_id}/comments/{comment_id}"), approve, withdraw]
    keys = named_keys("approve it")
    assert subresource_operation(comments, keys, set(), pull, action="approve") is approve
    assert subresource_operation(comments, keys, set(), pull) is None


def test_the_write_that_sets_the_state_the_action_names() -> None:
    """Adyen: "close it" after reading a balance account sets its `status` to closed; "suspend one" after listing a
    balance account's payment instruments sets one instrument's (addressed at `/paymentInstruments/{id}`)."""
    status = FieldFacts("status", "string", enum=("active", "closed", "inactive", "suspended"))
    body = RequestBodyFacts(("application/json",), False, fields=(FieldFacts("data", "object", fields=(status,)),))
    read = operation("get", "/balanceAccounts/{id}")
    update = replace(operation("patch", "/balanceAccounts/{id}"), request_body=body)
    listed = operation("get", "/balanceAccounts/{id}/paymentInstruments")
    instrument = replace(operation("patch", "/paymentInstruments/{id}"), request_body=body)
    account = [read, update, listed, instrument]
    assert state_operation(read, "close", account) is update
    assert state_operation(listed, "suspend", account, one=True) is instrument
    assert state_operation(listed, "suspend", account) is update  # "suspend it": the account they belong to
    assert state_operation(read, "rename", account) is None  # no value is a form of it
    assert state_operation(read, "delete", account) is None  # a verb of HTTP's own: its method says it


def test_one_added_to_a_collection_is_made_by_its_post() -> None:
    listing = operation("get", "/projects/{id}/environments")
    create = operation("post", "/projects/{id}/environments")
    update = operation("put", "/projects/{id}/environments/{environment_id}")
    environments = [listing, create, update]
    assert collection_create(listing, {"post", "put"}, environments) is create
    assert collection_create(listing, {"put"}, environments) is None  # no POST asked
    assert collection_create(update, {"post"}, environments) is None  # the subject acts on an item
    assert collection_create(listing, {"post"}, [listing, update]) is None  # nothing makes one


def test_an_action_is_another_operation_s_when_its_summary_opens_with_it() -> None:
    enable = replace(operation("post", "/projects/{id}/runners"), summary="Enable a runner for a project")
    disable = replace(operation("delete", "/projects/{id}/runners/{runner_id}"), summary="Disable project's runner")
    assert done_by_another(enable, "disable", [enable, disable])
    assert not done_by_another(enable, "enable", [enable, disable])  # the subject's own
    assert not done_by_another(enable, "page", [enable, disable])  # no operation's
    assert not done_by_another(enable, "", [enable, disable])
    other_api = replace(disable, api="other")
    assert not done_by_another(enable, "disable", [enable, other_api])
    # A verb written with a hyphen is one word: AppVeyor's `PUT /builds` ("Re-run build") is asked by "rerun it".
    cancel = replace(operation("delete", "/builds/{account}/{project}/{version}"), summary="Cancel build")
    rerun = replace(operation("put", "/builds"), summary="Re-run build")
    assert done_by_another(cancel, "rerun", [cancel, rerun])


def test_an_action_is_the_one_operation_that_says_it_does_it_to_what_the_subject_acts_on() -> None:
    """A CI platform's API in Harness's shape runs a pipeline and interrupts an execution at paths of their own:
    "execute it" after fetching a pipeline, "abort it" after reading an execution, "test it" after reading a
    connector. Its summary says so anywhere (`Interrupt a pipeline execution (abort, pause, resume)`), not as a noun
    of the act (`Fetch Execution Details`); the path names the subject's resource (a version's segment passed over)
    or ends in its item's parameter."""
    fetch = replace(operation("get", "/pipeline/api/pipelines/v2/{pipelineIdentifier}"), summary="Fetch a Pipeline")
    execute = replace(operation("post", "/pipeline/api/pipeline/execute/{identifier}"),
                      summary="Execute a Pipeline with Runtime Input YAML")
    details = replace(operation("get", "/pipeline/api/pipelines/execution/v2/{planExecutionId}"),
                      summary="Fetch Execution Details")
    interrupt = replace(operation("put", "/pipeline/api/pipeline/execute/interrupt/{planExecutionId}"),
                        summary="Interrupt a pipeline execution (abort, pause, resume)")
    connector = replace(operation("get", "/ng/api/connectors/{identifier}"), summary="Get a Connector")
    test = replace(operation("post", "/ng/api/connectors/testConnection/{identifier}"),
                   summary="Test a Connector's connection")
    operations = [fetch, execute, details, interrupt, connector, test]
    assert action_operation(fetch, "execute", operations) is execute
    assert action_operation(details, "abort", operations) is interrupt
    assert action_operation(connector, "test", operations) is test
    assert action_operation(fetch, "fetch", operations) is None  # the subject's own
    assert action_operation(fetch, "delete", operations) is None  # a verb of HTTP's own vocabulary
    assert action_operation(connector, "abort", operations) is None  # not on what the subject acts on
    # Plaid: a refund named after an article is not made by `Retrieve a refund`; an RPC path's verb names no resource
    payment = replace(operation("post", "/payment_initiation/payment/get"), summary="Get payment details")
    refund = replace(operation("post", "/transfer/refund/get"), summary="Retrieve a refund")
    assert action_operation(payment, "refund", [payment, refund]) is None
    cancel = replace(operation("post", "/transfer/get"), summary="Cancel a transfer and get it")
    assert action_operation(payment, "cancel", [payment, cancel]) is None
    secret = replace(operation("get", "/ng/api/v2/secrets/{identifier}"), summary="Get a Secret")
    assert action_operation(secret, "test", [*operations, secret]) is None  # `{identifier}` ends any item's path
    assert action_operation(fetch, "execute", [fetch, execute, replace(execute, chunk_id="again")]) is None  # two
    assert action_operation(fetch, "execute", [fetch, replace(execute, api="other")]) is None
    # Docker lists images at `/images/json`: a format's segment names no resource, the images do ("tag one").
    images = replace(operation("get", "/images/json"), summary="List Images")
    tag = replace(operation("post", "/images/{name}/tag"), summary="Tag an image")
    assert action_operation(images, "tag", [images, tag]) is tag


def test_a_sibling_for_another_owner_or_of_another_resource() -> None:
    """Adyen's Management API keeps webhooks under companies and merchants, and a company's merchants: "what about
    for a merchant?" after listing a company's webhooks asks for a merchant's webhooks, "what about merchants?" for
    the company's merchants; both fit the words, so what the follow-up says it is for chooses."""
    company_webhooks = operation("get", "/companies/{companyId}/webhooks")
    merchant_webhooks = operation("get", "/merchants/{merchantId}/webhooks")
    company_merchants = operation("get", "/companies/{companyId}/merchants")
    operations = [company_webhooks, merchant_webhooks, company_merchants]
    assert sibling_operation(company_webhooks, {"merchant"}, operations, owner=True) is merchant_webhooks
    assert sibling_operation(company_webhooks, {"merchant"}, operations) is company_merchants
    assert sibling_operation(company_webhooks, {"merchant"}, [company_webhooks, merchant_webhooks]) is merchant_webhooks


def test_a_verb_turns_on_or_off_the_flag_that_shares_its_stem() -> None:
    from rag.subject_paths import switched_by

    for verb, flag in (("disable", "enabled"), ("deactivate", "isActive"), ("unpublish", "published"),
                       ("lock", "locked"), ("suspend", "suspended")):
        assert switched_by(verb, flag), (verb, flag)
    for verb, flag in (("activate", "actionRequired"), ("disable", "active"), ("archive", "arrived")):
        assert not switched_by(verb, flag), (verb, flag)


def test_an_rpc_path_without_summary_or_operation_id_says_what_it_does_in_its_last_segment() -> None:
    """Mandrill: "publish it" after "how do I create a template?" kept `POST /templates/add.json` (its `publish`
    field led) although `POST /templates/publish.json` publishes one: no operation has a summary or operationId, the
    action is the path's last segment, and the resource the segment before it."""
    add, publish = operation("post", "/templates/add.json"), operation("post", "/templates/publish.json")
    send = operation("post", "/messages/send.json")
    operations = [add, publish, send]
    assert action_operation(add, "publish", operations) is publish
    assert action_operation(add, "send", operations) is None  # not on what the subject acts on
    assert done_by_another(add, "send", operations)
    assert not done_by_another(add, "add", operations)  # the subject's own
    item = operation("get", "/templates/{name}")  # a path ending in an item says no action
    assert not done_by_another(add, "template", [add, item])
