"""The write-operation check names what exists, with each operation's summary from its field."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk, RequestBodyFacts
from rag.corpus.profile import CorpusProfile
from rag.field_facts import FieldFacts
from rag.write_check import check_write_operation, write_target
from tests.fakes import make_chunk


def _operation(method: str, path: str, summary: str) -> Chunk:
    text = f"{method.upper()} {path}  [lms API]\nOperation ID: x"  # no "Summary:" line in the text
    chunk = make_chunk(f"lms.paths.{path}.{method}", text, kind="operation")
    return replace(chunk, method=method, path=path, summary=summary)


def test_the_fact_lists_existing_operations_with_the_summary_field() -> None:
    operations = [
        _operation("get", "/unified/lms/courses", "List Courses"),
        _operation("get", "/unified/lms/courses/{id}", ""),
    ]
    profile = CorpusProfile(generation=1, apis=["lms"], operations=operations)
    found = check_write_operation("How do I delete a course?", profile)
    assert found is not None
    fact = found.statement()
    assert "GET /unified/lms/courses (List Courses)" in fact
    assert "GET /unified/lms/courses/{id}; GET /unified/lms/courses (List Courses)." in fact  # item first, no summary


def _ops(*labels: str) -> CorpusProfile:
    operations = []
    for label in labels:
        method, path = label.split(" ", 1)
        operations.append(_operation(method.lower(), path, ""))
    return CorpusProfile(generation=1, apis=["lms"], operations=operations)


def _claimed(question: str, profile: CorpusProfile) -> str | None:
    """The resource the check says cannot be written, or None when it claims nothing."""
    found = check_write_operation(question, profile)
    return None if found is None else found.resource


def test_a_claim_is_about_what_the_object_names_not_a_container_after_a_preposition() -> None:
    profile = _ops("GET /playlists/{id}", "PUT /playlists/{id}", "DELETE /playlists/{id}/tracks")
    assert _claimed("Remove the first song from my playlist 'My Rock'", profile) is None
    assert _claimed("How do I delete a playlist?", profile) == "playlist"


def test_an_operation_s_effect_is_read_from_its_path_as_well_as_its_method() -> None:
    rpc = _ops("GET /words", "POST /words/add", "POST /words/delete")
    assert _claimed("Remove a word from my personal dictionary", rpc) is None
    # A POST to one item edits it (Twilio's `POST /ShortCodes/{Sid}.json`).
    twilio = _ops("GET /ShortCodes.json", "GET /ShortCodes/{Sid}.json", "POST /ShortCodes/{Sid}.json")
    assert _claimed("How can I edit an existing short code?", twilio) is None
    assert _claimed("How do I delete a short code?", twilio) == "short_code"
    # The last word of the segment: `POST /messages/bulk-delete` deletes messages.
    assert write_target("post", "/channels/{channel_id}/messages/bulk-delete") == ("message", frozenset({"delete"}))
    assert write_target("post", "/guilds/{guild_id}/bulk-ban") == ("bulk_ban", frozenset({"post"}))
    # A fragment's verb: `PUT /files/{file_id}#remove_shared_link` removes the file's shared link.
    assert write_target("put", "/files/{file_id}#remove_shared_link") == ("shared_link", frozenset({"delete"}))
    assert write_target("put", "/files/{file_id}#add_shared_link") == ("shared_link", frozenset({"post", "put"}))
    assert write_target("get", "/files/{file_id}#get_shared_link") == ("shared_link", frozenset({"get"}))
    box = _ops("PUT /files/{file_id}#add_shared_link", "PUT /files/{file_id}#remove_shared_link",
               "GET /files/{file_id}")
    assert _claimed("How do I remove the shared link of a file?", box) is None
    assert _claimed("How do I delete a file?", box) == "file"


def test_a_segment_that_starts_with_a_write_verb_writes_what_the_words_after_it_name() -> None:
    """Asana: "how do I add a dependency between two tasks?" was told "There is no endpoint to add dependency
    records" although `POST /tasks/{task_gid}/addDependencies` ranked first."""
    asana = _ops("GET /tasks/{task_gid}/dependencies", "POST /tasks/{task_gid}/addDependencies",
                 "POST /tasks/{task_gid}/removeDependencies", "GET /tasks/{task_gid}/followers",
                 "POST /tasks/{task_gid}/addFollowers")
    assert _claimed("how do I add a dependency between two tasks?", asana) is None
    assert _claimed("how do I delete a dependency?", asana) is None
    assert _claimed("how do I remove a follower from a task?", asana) == "follower"
    # Read by the check only: the ranker's reading of the path is unchanged.
    assert write_target("post", "/tasks/{task_gid}/addDependencies") == ("add_dependency", frozenset({"post"}))


def test_a_write_on_an_item_is_also_named_with_the_item() -> None:
    """Hetzner: "can I change the server type of an existing server?" was told "There is no endpoint to change server
    type records" although `POST /servers/{id}/actions/change_type` ranked first (`/server_types` is read-only)."""
    hetzner = _ops("GET /server_types", "GET /server_types/{id}", "GET /servers", "PUT /servers/{id}",
                   "POST /servers/{id}/actions/change_type", "POST /servers/{id}/actions/reboot")
    assert _claimed("can I change the server type of an existing server?", hetzner) is None
    assert _claimed("how do I delete a server type?", hetzner) == "server_type"


def test_a_write_verb_run_together_with_what_it_writes() -> None:
    """Billbee: "how do I update the stock of a product?" was told "There is no endpoint to update stock records"
    although `POST /api/v1/products/updatestock` ranked first; a word that only begins like a verb (`addresses`,
    `settings`, `created`) writes nothing."""
    billbee = _ops("GET /api/v1/products/stocks", "POST /api/v1/products/updatestock",
                   "POST /api/v1/products/updatestockcode", "POST /api/v1/customers/addresses",
                   "POST /api/v1/orders/created")
    assert _claimed("how do I update the stock of a product?", billbee) is None
    assert _claimed("how do I delete a stock?", billbee) == "stock"
    assert _claimed("how do I update an address?", billbee) is not None  # `addresses` adds no "resses"
    # Read by the check only: the ranker's reading of the path is unchanged.
    assert write_target("post", "/api/v1/products/updatestock") == ("updatestock", frozenset({"post"}))


def test_a_parameter_after_a_segment_s_words_is_the_format_not_the_resource() -> None:
    """Buffer writes every path with its format after it (`/updates/create{mediaTypeExtension}`): "what does buffer
    return when I create an update?" was told "There is no endpoint to create update records"."""
    buffer = _ops("GET /updates/{id}{mediaTypeExtension}", "POST /updates/create{mediaTypeExtension}",
                  "POST /updates/{id}/destroy{mediaTypeExtension}", "GET /profiles{mediaTypeExtension}")
    assert _claimed("what does buffer return when I create an update?", buffer) is None
    assert _claimed("how do I delete an update?", buffer) is None
    assert _claimed("how do I delete a profile?", buffer) == "profile"
    # Read by the check only: the ranker's reading of the path is unchanged.
    assert write_target("post", "/updates/create{mediaTypeExtension}") == (
        "create{media_type_extension}", frozenset({"post"}))


def test_the_resource_is_the_last_word_of_the_object_its_parent_or_an_owner() -> None:
    templates = _ops("GET /templates/sms", "GET /templates/sms/{id}", "DELETE /templates/email/{id}")
    assert _claimed("How do I delete an SMS template?", templates) == "sms"
    notes = _ops("GET /interviews/{id}", "POST /interviews/{id}/notes")
    assert _claimed("How do I create a new interview note?", notes) is None
    accounts = _ops("GET /accounts", "GET /accounts/{id}")
    assert _claimed("How can I update a CRM account's details?", accounts) == "account"


def test_a_resource_named_word_for_word_wins_over_one_named_by_a_stem() -> None:
    profile = _ops("GET /Usage/Records.json", "GET /Recordings.json", "GET /Recordings/{Sid}.json")
    assert _claimed("How do I remove a recording from my account?", profile) == "recording"


def test_no_claim_for_a_past_write_a_named_path_or_an_object_that_is_no_resource() -> None:
    profile = _ops("GET /jokes", "GET /jokes/{id}", "DELETE /jokes/{id}", "GET /codes")
    assert _claimed("Show a joke I posted", profile) is None
    assert _claimed("Which parameters does DELETE /codes/{id} take?", profile) is None
    assert _claimed("Create a QR image for my website", profile) is None


def test_the_fact_names_the_write_as_a_verb_and_the_resource_in_words() -> None:
    profile = _ops("GET /job_postings", "GET /job_postings/{id}")
    found = check_write_operation("fire off a new job posting on the ATS: what's the endpoint?", profile)
    assert found is not None and found.statement().startswith("There is no endpoint to create job posting records")


def test_the_earlier_turn_s_write_is_not_claimed_missing_of_what_a_follow_up_points_back_to() -> None:
    """"and scale it down to 2 nodes?" after adding a node pool does something of its own to the pool (scaling is
    no verb of the table): DigitalOcean has no POST on a node path, which the earlier turn's "add" would have
    claimed missing. A follow-up naming a thing of its own still carries the earlier write."""
    from rag.query import Query

    profile = _ops("POST /clusters/{id}/node_pools", "PUT /clusters/{id}/node_pools/{pool_id}",
                   "DELETE /clusters/{id}/node_pools/{pool_id}/nodes/{node_id}")
    earlier = "how do I add another node pool?"
    assert check_write_operation(Query("and scale it down to 2 nodes?", previous=earlier), profile) is None
    carried = check_write_operation(Query("and for nodes?", previous=earlier), profile)
    assert carried is not None and carried.resource == "node"
    # Vercel: "read one item" after "add an item to it" was told "There is no endpoint to add item records".
    assert check_write_operation(Query("read one node", previous=earlier), profile) is None


def test_an_update_of_a_part_of_an_item_is_an_update_but_a_sub_item_s_write_is_not() -> None:
    """"how do I update it?" of a Mux playback restriction was told there is no endpoint to update one ("no
    PATCH/PUT operation on a playback restriction path") though `PUT …/{id}/referrer` updates its referrer."""
    mux = _ops("POST /playback-restrictions", "GET /playback-restrictions/{id}", "DELETE /playback-restrictions/{id}",
               "PUT /playback-restrictions/{id}/referrer")
    assert _claimed("How do I update a playback restriction?", mux) is None
    # Deleting or updating an item below the restriction's does neither to the restriction itself.
    courses = _ops("GET /courses/{id}", "DELETE /courses/{id}/enrollments/{enrollment_id}",
                   "PUT /courses/{id}/enrollments/{enrollment_id}")
    assert _claimed("How do I delete a course?", courses) == "course"
    assert _claimed("How do I update a course?", courses) == "course"


def _with_body(operation: Chunk, *fields: FieldFacts) -> Chunk:
    return replace(operation, request_body=RequestBodyFacts(media_types=("application/json",), required=True,
                                                            fields=fields))


def test_an_update_that_sends_the_resource_as_a_field_performs_the_write() -> None:
    """Jumpseller: "how do I change an order's status to shipped?" was told "There is no endpoint to change statu
    records" (`GET /orders/status/{status}.json` only reads) though `PUT /orders/{id}.json` sends `order.status`."""
    order = FieldFacts(name="order", type="object", fields=(FieldFacts(name="status", type="string"),))
    jumpseller = _ops("GET /orders/status/{status}.json", "GET /orders/{id}.json")
    jumpseller.operations.append(_with_body(_operation("put", "/orders/{id}.json", "Modify an existing Order"), order))
    assert _claimed("how do I change an order's status to shipped?", jumpseller) is None
    assert _claimed("how do I change the status of an order?", jumpseller) is None
    # An owner the update does not write is no such update; a delete is no field's.
    assert _claimed("how do I change a product's status?", jumpseller) == "statu"
    assert _claimed("how do I delete a status?", jumpseller) == "statu"


def test_the_claim_names_the_resource_in_the_question_s_words() -> None:
    profile = _ops("GET /orders/status/{status}.json")
    found = check_write_operation("how do I delete the statuses?", profile)
    assert found is not None and found.statement().startswith("There is no endpoint to delete status records")


def test_a_dotted_segment_ending_in_a_verb_is_that_action_on_the_words_before_it() -> None:
    """API2Cart: after `GET /product.list.json`, "how do I delete one?" was told "There is no endpoint to delete product
    list records" though `DELETE /product.delete.json` deletes products."""
    from rag.query import Query

    api2cart = _ops("GET /product.list.json", "GET /product.info.json", "DELETE /product.delete.json",
                    "POST /product.add.json")
    assert _claimed("how do I delete a product?", api2cart) is None
    assert _claimed("how do I add a product?", api2cart) is None
    assert _claimed("how do I update a product?", _ops("GET /product.list.json", "DELETE /product.delete.json")) == (
        "product")
    deleting = Query("how do I delete one?", previous="how do I list products?",
                     subject="api2cart.paths./product.list.json.get")
    assert deleting.analysis.write is not None and deleting.analysis.write.object == ("product",)
    assert check_write_operation(deleting, api2cart) is None


def test_an_action_on_a_collection_is_no_record_type_where_the_collection_s_items_are_written() -> None:
    """Postmark: "how do I delete it?" after "can I validate it before saving?" (`POST /templates/validate`) was told
    "There is no endpoint to delete validate records"; a resource that is only created stays claimed
    (StackOne's `POST /connect_sessions`)."""
    from rag.query import Query

    postmark = _ops("GET /templates", "POST /templates", "DELETE /templates/{templateIdOrAlias}",
                    "POST /templates/validate")
    deleting = Query("how do I delete it?", previous="can I validate it before saving?",
                     subject="lms.paths./templates/validate.post")
    assert deleting.analysis.write is not None and deleting.analysis.write.object == ("validate",)
    assert check_write_operation(deleting, postmark) is None
    sessions = _ops("POST /connect_sessions", "POST /connect_sessions/authenticate")
    assert _claimed("How do I delete a connect session?", sessions) == "connect_session"


def test_an_action_or_one_view_of_an_item_is_no_record_type() -> None:
    """GitLab: "remove them" after approving an access request (`PUT …/access_requests/{user_id}/approve`) and
    "delete it" after reading a snippet's raw content (`GET …/snippets/{snippet_id}/raw`) were told "There is no
    endpoint to remove approve records" / "to delete raw records" although the DELETE ranked first; the request is
    of the item above (a parent of several words matched only word by word). A set of records read under an item
    (`GET …/projects/{id}/pipelines`) stays claimed."""
    from rag.query import Query

    gitlab = _ops("PUT /projects/{id}/access_requests/{user_id}/approve",
                  "DELETE /projects/{id}/access_requests/{user_id}",
                  "GET /projects/{id}/snippets/{snippet_id}/raw", "DELETE /projects/{id}/snippets/{snippet_id}",
                  "GET /projects/{id}/pipelines", "DELETE /projects/{id}")
    removing = Query("remove them", previous="change their access level",
                     subject="lms.paths./projects/{id}/access_requests/{user_id}/approve.put")
    assert check_write_operation(removing, gitlab) is None
    deleting = Query("delete it", previous="get the raw content of one",
                     subject="lms.paths./projects/{id}/snippets/{snippet_id}/raw.get")
    assert deleting.analysis.write is not None and deleting.analysis.write.object == ("raw",)
    assert check_write_operation(deleting, gitlab) is None
    pipelines = Query("delete them", previous="list the pipelines of my project",
                      subject="lms.paths./projects/{id}/pipelines.get")
    claimed = check_write_operation(pipelines, gitlab)
    assert claimed is not None and claimed.resource == "pipeline"


def test_an_action_filed_under_an_item_s_actions_acts_on_that_item() -> None:
    """Hetzner Cloud: "now delete it" after "reboot it" (`POST /servers/{id}/actions/reboot`) was told "There is no
    endpoint to delete reboot records" although `DELETE /servers/{id}` ranked first: a segment between the item and
    the action (`actions`) hid the server the action acts on. Where the item has no such write, it stays claimed."""
    from rag.query import Query

    hetzner = _ops("POST /servers", "DELETE /servers/{id}", "POST /servers/{id}/actions/reboot",
                   "POST /volumes/{id}/actions/attach", "GET /volumes/{id}")
    deleting = Query("now delete it", previous="reboot it", subject="lms.paths./servers/{id}/actions/reboot.post")
    assert deleting.analysis.write is not None and deleting.analysis.write.object == ("reboot",)
    assert check_write_operation(deleting, hetzner) is None
    volume = Query("now delete it", previous="attach it", subject="lms.paths./volumes/{id}/actions/attach.post")
    assert check_write_operation(volume, hetzner) is not None


def test_what_a_pronoun_points_to_is_the_subject_s_own_path_not_another_of_its_name() -> None:
    """Vercel: "remove it" after "verify it" (`POST …/domains/{domain}/verify`) was told "There is no endpoint to
    remove verify records" although `DELETE …/domains/{domain}` ranked first: `GET /registration/verify`, a read of
    the same name elsewhere, made "verify" look like records of their own."""
    from rag.query import Query

    vercel = _ops("POST /v10/projects/{idOrName}/domains", "DELETE /v9/projects/{idOrName}/domains/{domain}",
                  "POST /v9/projects/{idOrName}/domains/{domain}/verify", "GET /registration/verify")
    removing = Query("remove it", previous="verify it",
                     subject="lms.paths./v9/projects/{idOrName}/domains/{domain}/verify.post")
    assert removing.analysis.write is not None
    assert removing.analysis.write.pointed == "/v9/projects/{idOrName}/domains/{domain}/verify"
    assert check_write_operation(removing, vercel) is None
    # Asked by name, the verify records are claimed: nothing removes one.
    assert _claimed("how do I remove a verify?", vercel) == "verify"


def test_an_api_version_is_no_kind_of_record() -> None:
    """Kubernetes: "how do I delete one?" after `GET /apis/apps/v1/` (the API group's resources) was told "There is no
    endpoint to delete v1 records"."""
    from rag.query import Query

    kubernetes = _ops("GET /api/v1/", "GET /apis/apps/v1/",
                      "DELETE /apis/apps/v1/namespaces/{namespace}/deployments/{name}")
    deleting = Query("how do I delete one?", previous="only the ones with label app=web?",
                     subject="lms.paths./apis/apps/v1/.get")
    assert check_write_operation(deleting, kubernetes) is None
    assert _claimed("how do I delete a v2beta1?", _ops("GET /apis/autoscaling/v2beta1/")) is None


def test_an_operation_whose_summary_says_it_performs_the_write_performs_it() -> None:
    """SpaceTraders: "how do I register a new agent?" was told "There is no endpoint to create agent records" although
    `POST /register` ("Register New Agent") ranked first. Only the same write counts ("Update Agent" adds none), and
    only a write's summary (a GET's does nothing) about the resource (not "Register a ship for an agent")."""
    def profile(*operations: tuple[str, str, str]) -> CorpusProfile:
        return CorpusProfile(generation=1, apis=["lms"], operations=[_operation(*op) for op in operations])

    details = ("get", "/my/agent", "My Agent Details")
    registering = profile(details, ("post", "/register", "Register New Agent"))
    assert _claimed("how do I register a new agent?", registering) is None
    assert _claimed("how do I create an agent?", registering) is None
    assert _claimed("how do I delete my agent?", registering) == "agent"
    assert _claimed("how do I add an agent?", profile(details, ("patch", "/my/agent", "Update Agent"))) == "agent"
    elsewhere = profile(details, ("get", "/register", "Register New Agent"),
                        ("post", "/ships", "Register a ship for an agent"))
    assert _claimed("how do I register a new agent?", elsewhere) == "agent"


def test_an_update_below_an_item_that_its_summary_says_it_does_updates_the_resource() -> None:
    """Adyen's Checkout API modifies a payment by POSTs below it: "change the amount before capturing" after starting
    a payment was told "There is no endpoint to change payment records" although `POST
    /payments/{paymentPspReference}/amountUpdates` ("Update an authorised amount") ranked third. Not a read below the
    item, nor a write whose summary says it does something else ("Capture an authorised payment")."""
    def profile(*operations: tuple[str, str, str]) -> CorpusProfile:
        return CorpusProfile(generation=1, apis=["lms"], operations=[_operation(*op) for op in operations])

    start = ("post", "/payments", "Start a transaction")
    update = ("post", "/payments/{paymentPspReference}/amountUpdates", "Update an authorised amount")
    capture = ("post", "/payments/{paymentPspReference}/captures", "Capture an authorised payment")
    assert _claimed("how do I change a payment?", profile(start, capture, update)) is None
    assert _claimed("how do I change a payment?", profile(start, capture)) == "payment"
    assert _claimed("how do I change a payment?", profile(start, ("get", update[1], update[2]))) == "payment"
    assert _claimed("how do I delete a payment?", profile(start, capture, update)) == "payment"  # no update asked


def test_a_version_written_into_the_resource_s_segment_names_no_other_resource() -> None:
    """Crucible: "how do I start a new code review?" was told there is no endpoint to create reviews, only `GET
    /rest-service/search-v1/reviews`, while `POST /rest-service/reviews-v1` (create review) ranked first: its resource
    was read as `reviews_v1`."""
    crucible = _ops("POST /rest-service/reviews-v1", "GET /rest-service/reviews-v1/{id}",
                    "GET /rest-service/search-v1/reviews")
    assert _claimed("how do I start a new code review?", crucible) is None
    assert _claimed("how do I delete a review?", crucible) == "review"


def test_an_rpc_path_deletes_what_its_segment_names_after_the_verb() -> None:
    """Etherpad: "delete it" after creating a pad (`POST /createPad`) was told there is no endpoint to delete "create
    pad" records; `GET /deletePad` and `POST /deletePad` delete pads."""
    etherpad = _ops("POST /createPad", "GET /deletePad", "POST /deletePad", "GET /getText")
    assert _claimed("how do I delete a pad?", etherpad) is None
    from rag.query import Query

    assert check_write_operation(Query("delete it", subject="lms.paths./createPad.post"), etherpad) is None


def test_a_segment_before_an_item_s_parameter_names_a_collection_not_an_act() -> None:
    """Rudder: "how do I delete a change request?" was told there is no endpoint to delete "change request requests"
    though `DELETE /changeRequests/{changeRequestId}` does: `POST /changeRequests/{changeRequestId}` was read as
    changing requests, as Asana's `POST /tasks/{task_gid}/addDependencies` adds dependencies."""
    rudder = _ops("GET /api/changeRequests", "GET /changeRequests/{changeRequestId}",
                  "POST /changeRequests/{changeRequestId}", "DELETE /changeRequests/{changeRequestId}")
    assert _claimed("how do I delete a change request?", rudder) is None
    asana = _ops("GET /tasks/{task_gid}", "POST /tasks/{task_gid}/addDependencies")
    assert _claimed("how do I add a dependency to a task?", asana) is None


def test_an_operation_on_an_item_acts_on_what_its_identifier_names() -> None:
    """Clever Cloud: "now delete the app" after creating one was told "There is no endpoint to delete app records"
    (only `/vendor/apps` paths are named "apps") although `DELETE /self/applications/{appId}` deletes one: the
    identifier ending a path names its item too. An identifier that names nothing (`{id}`) adds nothing."""
    clever = _ops("GET /vendor/apps", "PUT /vendor/apps/{addonId}", "POST /self/applications",
                  "DELETE /self/applications/{appId}")
    assert _claimed("now delete the app", clever) is None
    unnamed = _ops("GET /vendor/apps", "PUT /vendor/apps/{addonId}", "DELETE /self/applications/{id}")
    assert _claimed("now delete the app", unnamed) == "app"


def test_an_indefinite_pronoun_after_the_verb_points_to_nothing_said_before() -> None:
    """SalesLoft: "remove someone from it" after listing cadences was told "There is no endpoint to remove cadence
    records" although the ranker put `DELETE /v2/cadence_memberships/{id}.json` first: "someone" was read as
    pointing back like "one" or "them", so the cadence became what is removed."""
    from rag.query import Query

    salesloft = _ops("GET /v2/cadences.json", "GET /v2/cadences/{id}.json", "POST /v2/cadence_memberships.json",
                     "DELETE /v2/cadence_memberships/{id}.json")
    subject = "lms.paths./v2/cadences.json.get"
    someone = Query("remove someone from it", previous="list cadences", subject=subject)
    assert someone.analysis.write is not None and someone.analysis.write.object == ("someone",)
    assert check_write_operation(someone, salesloft) is None
    them = Query("remove them", previous="list cadences", subject=subject)
    assert them.analysis.write is not None and them.analysis.write.pointed == "/v2/cadences.json"
    assert check_write_operation(them, salesloft) is not None


def test_a_write_sending_a_field_named_for_the_verb_and_the_resource_performs_it() -> None:
    """Stream Chat: "add a member to one" after listing channels was told "There is no endpoint to add member
    records" (`GET /members` only reads) though `POST /channels/{type}/{id}` (Update channel) takes `add_members`."""
    stream = _ops("GET /members", "GET /channels")
    update = _with_body(_operation("post", "/channels/{type}/{id}", "Update channel"),
                        FieldFacts(name="add_members", type="array of object"),
                        FieldFacts(name="remove_members", type="array of string"))
    stream.operations.append(update)
    assert _claimed("add a member to a channel", stream) is None
    assert _claimed("remove a member", stream) is None
    assert _claimed("delete a member", stream) == "member"  # no field is named for deleting one


def test_a_pronoun_after_acting_on_an_item_s_setting_points_to_the_item() -> None:
    """SwaggerHub: "delete it" after "publish it" (`PUT /apis/{owner}/{api}/{version}/settings/lifecycle`) was told
    "There is no endpoint to delete lifecycle records" although `DELETE /apis/{owner}/{api}/{version}` ranked first:
    a setting keeps no records of its own. A collection below an item does, and stays claimed."""
    from rag.query import Query

    hub = _ops("POST /apis/{owner}/{api}", "DELETE /apis/{owner}/{api}/{version}",
               "PUT /apis/{owner}/{api}/{version}/settings/lifecycle", "GET /apis/{owner}/{api}/{version}/comments",
               "GET /apis/{owner}/{api}/{version}/settings/default")
    lifecycle = Query("delete it", previous="publish it",
                      subject="lms.paths./apis/{owner}/{api}/{version}/settings/lifecycle.put")
    assert lifecycle.analysis.write is not None and lifecycle.analysis.write.pointed.endswith("/lifecycle")
    assert check_write_operation(lifecycle, hub) is None
    comments = Query("delete them", previous="list the comments of a version",
                     subject="lms.paths./apis/{owner}/{api}/{version}/comments.get")
    claimed = check_write_operation(comments, hub)
    assert claimed is not None and claimed.resource == "comment"


def test_an_aws_operation_writes_what_its_name_says_on_the_resource_after_its_verb() -> None:
    # CloudWatch Logs creates a metric filter with `PutMetricFilter`: every operation is a POST to `/#X-Amz-Target=…`.
    target = "/#X-Amz-Target=Logs_20140328."
    profile = _ops(f"POST {target}PutMetricFilter", f"POST {target}DeleteMetricFilter",
                   f"POST {target}DescribeMetricFilters", f"POST {target}CreateLogGroup")
    assert write_target("post", f"{target}DeleteMetricFilter") == ("metric_filter", frozenset({"delete"}))
    assert _claimed("How do I create a metric filter?", profile) is None
    assert _claimed("How do I delete a log group?", profile) == "log_group"
