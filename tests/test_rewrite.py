"""Follow-ups: the conversation's subject (the operation the last answer names) and when a question starts anew."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, RequestBodyFacts, ResponseFacts
from rag.rewrite import (
    conversation_subject,
    field_words,
    is_follow_up,
    names_a_new_topic,
    recent_history,
    rewrite_query,
)
from tests.fakes import make_chunk


def operation(method: str, path: str, summary: str = "", **facts) -> object:  # type: ignore[no-untyped-def]
    chunk = make_chunk(f"box.paths.{path}.{method}", f"{method.upper()} {path}", kind="operation", **facts)
    return replace(chunk, method=method, path=path, summary=summary)


FILES = operation("get", "/folders/{folder_id}/items", "List items in folder",
                  parameters=(FieldFacts("marker", "string", "query"), FieldFacts("limit", "integer", "query")))
DELETE_FILE = operation("delete", "/files/{file_id}", "Delete file")
CANDIDATES = operation("get", "/candidates", "List candidates",
                       parameters=(FieldFacts("filter", "object", "query",
                                              fields=(FieldFacts("email", "string"),)),),
                       responses=(ResponseFacts("200", "Page", success=True),))
OPERATIONS = [FILES, DELETE_FILE, CANDIDATES]


def turns(question: str, answer: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


def test_the_subject_is_the_first_indexed_operation_the_last_answer_names() -> None:
    history = turns("How do I see what is in a folder?",
                    "Use GET /folders/{folder_id}/items (List items in folder). [1]\nAlso DELETE /files/{file_id}")
    assert conversation_subject(history, OPERATIONS) is FILES
    # Not named by the answer: the question's own path; nothing indexed: no subject.
    asked_by_path = turns("What does DELETE /files/{file_id} do?", "It deletes.")
    assert conversation_subject(asked_by_path, OPERATIONS) is DELETE_FILE
    assert conversation_subject(turns("Hello", "GET /nowhere"), OPERATIONS) is None


def test_a_paging_follow_up_keeps_the_subject_and_another_action_does_not() -> None:
    history = turns("How do I see what is in a folder?", "Use GET /folders/{folder_id}/items. [1]")
    paging = rewrite_query("and how do I page through them?", history, operations=OPERATIONS).query
    assert paging.subject == "box.paths./folders/{folder_id}/items.get" and paging.keeps_subject
    assert paging.standalone.startswith("and how do I page through them? (regarding: GET /folders/{folder_id}/items")
    deleting = rewrite_query("and how do I delete one?", history, operations=OPERATIONS).query
    assert deleting.subject and not deleting.keeps_subject and "List items" not in deleting.standalone
    # "the same for files" asks the earlier request again for something else: the subject only informs retrieval.
    same = rewrite_query("the same for files?", history, topics=frozenset({"files", "folders"}),
                         operations=OPERATIONS).query
    assert same.subject and not same.keeps_subject
    # It asks the earlier action of what it names now; the earlier question's resource is not searched for.
    assert same.focus == same.standalone == "List files"
    # Not so for a word that is no resource of the subject's API ("and in Dropbox?") or a narrowing ("the ones …").
    other = rewrite_query("what about Dropbox?", history, operations=OPERATIONS).query
    assert other.focus == "what about Dropbox?" and "List items" in other.standalone
    narrowed = rewrite_query("what about just the ones in one file?", history, operations=OPERATIONS).query
    assert narrowed.focus == "what about just the ones in one file?"
    # Something else of the subject's own resource: the subject informs retrieval, it need not lead.
    own = rewrite_query("what about a single item?", history, topics=frozenset({"items", "item", "folders"}),
                        operations=OPERATIONS).query
    assert own.subject == FILES.covers[0] and not own.keeps_subject and own.focus == "what about a single item?"


def test_another_action_of_an_rpc_subject_searches_its_resource_without_its_verb() -> None:
    """Airbyte's paths end in their verb: "rename it" after creating a workspace searched `/v1/workspaces/create`,
    which found the create again; what the subject acts on is `/v1/workspaces`."""
    create = operation("post", "/v1/workspaces/create", "Creates a workspace")
    rename = operation("post", "/v1/workspaces/update_name", "Update workspace name")
    history = turns("how do I create a workspace?", "Use POST /v1/workspaces/create (Creates a workspace). [1]")
    query = rewrite_query("rename it", history, operations=[create, rename]).query
    assert query.subject == create.covers[0] and not query.keeps_subject
    assert query.subject_words == "/v1/workspaces"


def test_adding_something_of_its_own_to_the_subject_is_another_action() -> None:
    """"add some songs to it" after creating a Jellyfin playlist adds to the playlist, it does not create one: the
    subject's path is searched for, not its create, and it need not lead."""
    body = RequestBodyFacts(("application/json",), False, "", fields=(FieldFacts("Name", "string"),))
    create = operation("post", "/Playlists", "Creates a new playlist", request_body=body)
    items = operation("post", "/Playlists/{playlistId}/Items", "Adds items to a playlist")
    history = turns("create a playlist", "Use POST /Playlists (Creates a new playlist). [1]")
    adding = rewrite_query("add some songs to it", history, operations=[create, items]).query
    assert adding.subject == create.covers[0] and not adding.keeps_subject and adding.subject_words == "/Playlists"
    # Writing a field of the subject is about the subject.
    naming = rewrite_query("add a name to it", history, operations=[create, items]).query
    assert naming.subject == create.covers[0] and naming.keeps_subject


def test_what_about_a_new_resource_with_a_request_of_its_own_is_a_new_question() -> None:
    """"what about firewalls, how do I create one?" after deleting a Hetzner volume searched the volume's delete;
    "what about firewalls?" asks the earlier request again, of firewalls."""
    history = turns("and delete the volume?", "Use DELETE /volumes/{id} (Delete a Volume). [1]")
    topics = frozenset({"volume", "volumes", "firewall", "firewalls"})
    assert not is_follow_up("what about firewalls, how do I create one?", history, topics)
    assert is_follow_up("what about firewalls?", history, topics)
    assert is_follow_up("what about the volume, how do I resize it?", history, topics)  # no new topic


def test_a_field_of_the_subject_named_by_a_question_pointing_back_is_no_new_topic() -> None:
    history = turns("How do I list candidates?", "Use GET /candidates (List candidates). [1]")
    topics = frozenset({"candidates", "email", "emails", "templates"})
    assert "email" in field_words(CANDIDATES)
    query = rewrite_query("can I narrow that down by email?", history, topics=topics, operations=OPERATIONS).query
    assert query.subject == "box.paths./candidates.get" and query.keeps_subject
    # A request of its own naming a new resource starts anew.
    assert not is_follow_up("How do I list email templates?", history, topics)
    assert rewrite_query("How do I list email templates?", history, topics=topics,
                         operations=OPERATIONS).query.subject == ""


def test_a_question_pointing_back_is_about_the_subject_whatever_resource_it_names() -> None:
    """"can I attach a photo of the receipt to it?" after recording a Xero bank transaction, "one of them went on the
    wrong invoice, how do I reverse it?" after listing payments: read as new requests (Xero has receipts and
    invoices), they lost the transaction and the payment."""
    history = turns("How do I list candidates?", "Use GET /candidates (List candidates). [1]")
    topics = frozenset({"candidates", "candidate", "templates", "template"})
    for question in ("can I attach a template to it?", "one of them got the wrong template, how do I undo it?"):
        query = rewrite_query(question, history, topics=topics, operations=OPERATIONS).query
        assert query.subject == "box.paths./candidates.get", question
    # Without pointing back, a resource of its own is a new request; so it is after a sentence that points back but
    # asks nothing ("ok it works.").
    for question in ("How do I attach a template?", "ok it works. now how do I attach a template?"):
        assert rewrite_query(question, history, topics=topics, operations=OPERATIONS).query.subject == "", question


def test_the_same_for_another_resource_is_the_operation_doing_the_same_on_its_path() -> None:
    """Box offers each action on files, folders and web links alike: "what about folders?" after adding a shared
    link to a file asks for the folder's operation, which becomes the subject."""
    on_file = operation("put", "/files/{file_id}#add_shared_link", "Add shared link to file")
    on_folder = operation("put", "/folders/{folder_id}#add_shared_link", "Add shared link to folder")
    removal = operation("put", "/folders/{folder_id}#remove_shared_link", "Remove shared link from folder")
    operations = [on_file, on_folder, removal, DELETE_FILE]
    history = turns("How do I create a shared link for a file?", "Use PUT /files/{file_id}#add_shared_link. [1]")
    for question in ("What about for a folder?", "the same for folders?"):
        query = rewrite_query(question, history, topics=frozenset({"files", "folders"}), operations=operations).query
        assert (query.focus, query.subject, query.keeps_subject) == (
            "Add shared link to folder", "box.paths./folders/{folder_id}#add_shared_link.put", True)
    # Twilio's paths end in a format: "the same for calls?" after listing messages is the list of calls.
    messages = operation("get", "/Accounts/{AccountSid}/Messages.json", "List messages")
    calls = operation("get", "/Accounts/{AccountSid}/Calls.json", "List calls")
    history = turns("How do I list my messages?", "Use GET /Accounts/{AccountSid}/Messages.json. [1]")
    query = rewrite_query("the same for calls?", history, operations=[messages, calls]).query
    assert query.subject == "box.paths./Accounts/{AccountSid}/Calls.json.get" and query.focus == "List calls"
    # No operation does it there (calls are only created): the earlier action, asked of what it names.
    create_call = operation("post", "/Accounts/{AccountSid}/Calls.json", "Create call")
    query = rewrite_query("the same for calls?", history, topics=frozenset({"calls"}),
                          operations=[messages, create_call]).query
    assert query.focus == "List calls" and not query.keeps_subject
    assert query.subject == "box.paths./Accounts/{AccountSid}/Messages.json.get"


def unified(api: str, method: str, path: str, summary: str) -> object:  # type: ignore[no-untyped-def]
    chunk = make_chunk(f"{api}.paths.{path}.{method}", f"{method.upper()} {path}", kind="operation")
    return replace(chunk, method=method, path=path, summary=summary)


EMPLOYEES = unified("hris", "get", "/unified/hris/employees", "List Employees")
EMPLOYEE = unified("hris", "get", "/unified/hris/employees/{id}", "Get Employee")
ATS_CANDIDATES = unified("ats", "get", "/unified/ats/candidates", "List Candidates")
ATS_USERS = unified("ats", "get", "/unified/ats/users", "List Users")
TWO_APIS = [EMPLOYEES, EMPLOYEE, ATS_CANDIDATES, ATS_USERS]
TWO_API_TOPICS = frozenset({"hris", "ats", "employees", "candidates", "users"})


def test_a_follow_up_naming_another_api_and_its_resource_starts_a_new_subject() -> None:
    """Issue 45: "what about candidates in ATS?" after listing HRIS employees asks the earlier action of the ATS's
    candidates; nothing of the HRIS subject is kept, for retrieval or for ranking."""
    history = [*turns("How do I list employees in the HRIS API?", "Use GET /unified/hris/employees. [1]")]
    history[1]["subject"] = EMPLOYEES.covers[0]
    rewrite = rewrite_query("what about candidates in ATS?", history, topics=TWO_API_TOPICS, operations=TWO_APIS)
    query = rewrite.query
    assert (query.focus, query.subject, query.previous) == ("List candidates in ATS", "", "")
    assert not query.keeps_subject
    assert query.standalone == "List candidates in ATS" and "a new subject" in rewrite.note
    # Naming only the other API asks the earlier request there; naming nothing the index knows keeps the subject.
    there = rewrite_query("and what about in the ATS?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert (there.focus, there.subject) == ("List Employees in the ATS", "")
    unknown = rewrite_query("what about Dropbox?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert unknown.subject == EMPLOYEES.covers[0] and unknown.keeps_subject
    # A resource of the subject's own API stays the same-API case: the subject informs retrieval.
    same_api = rewrite_query("what about employees?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert same_api.subject == EMPLOYEES.covers[0]


def test_a_follow_up_deleting_one_writes_the_subjects_resource() -> None:
    """"how do I delete one?" after candidates: the write is of candidates (the write check then finds there is no
    DELETE); with no conversation, "one" names nothing."""
    history = [*turns("what about candidates in ATS?", "Use GET /unified/ats/candidates. [1]")]
    history[1]["subject"] = ATS_CANDIDATES.covers[0]
    query = rewrite_query("how do I delete one?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert query.subject == ATS_CANDIDATES.covers[0] and not query.keeps_subject
    assert query.analysis.write is not None and query.analysis.write.object == ("candidates",)


def test_the_subject_kept_with_an_answer_is_read_not_its_text() -> None:
    """The app and the REST API keep each answer's subject (a structural id): its text is then not parsed; a
    subject of "" says the answer was about no operation (the question's own path may still name one). A history
    from outside, without subjects, is read from the text."""
    named_in_text = turns("How do I see what is in a folder?", "Use GET /folders/{folder_id}/items. [1]")
    assert conversation_subject(named_in_text, OPERATIONS) is FILES
    kept = [named_in_text[0], {**named_in_text[1], "subject": CANDIDATES.covers[0]}]
    assert conversation_subject(kept, OPERATIONS) is CANDIDATES
    assert conversation_subject([named_in_text[0], {**named_in_text[1], "subject": ""}], OPERATIONS) is None
    asked_by_path = turns("What does DELETE /files/{file_id} do?", "It deletes.")
    asked_by_path[1]["subject"] = ""
    assert conversation_subject(asked_by_path, OPERATIONS) is DELETE_FILE
    # A REST history leaves `subject` out (None): the text is read.
    assert conversation_subject([named_in_text[0], {**named_in_text[1], "subject": None}], OPERATIONS) is FILES


def test_an_operation_written_as_other_docs_write_it_is_the_conversations_subject() -> None:
    """A history from outside (a REST or MCP client's) names operations as other docs write them: a parameter named
    otherwise (`{file.id}`, `:file_id`) or given a value, a full URL behind the servers' base path, "a DELETE request
    to …". Only the spec's own spelling was found: the follow-up lost its subject."""
    written = [
        "Send a DELETE request to `https://api.box.com/2.0/files/12345`.",
        "Call DELETE /files/:file_id.",
        "Use DELETE /files/{file.id} and you are done.",
        "DELETE /2.0/files/{file_id}",
    ]
    for answer in written:
        history = turns("How do I remove a file?", answer)
        history[1]["subject"] = None  # a REST history: the text is read
        assert conversation_subject(history, OPERATIONS) is DELETE_FILE, answer
    # A method the path has no operation of names none; nor does a path of another shape.
    assert conversation_subject(turns("How do I remove a file?", "POST /files/12345"), OPERATIONS) is None
    assert conversation_subject(turns("How do I remove a file?", "DELETE /files/1/versions/2"), OPERATIONS) is None


def test_a_long_answer_keeps_the_conversations_subject_and_its_question() -> None:
    """An answer longer than the history's 2,000 characters (a large spec's field lists) used to drop the whole last
    exchange: the follow-up lost its subject and the question it follows. The older turns go first; the last
    question and its answer stay, cut to fit (the question to its end, the answer to its start)."""
    answer = "Use GET /folders/{folder_id}/items (List items in folder). [1]\n" + "- a field line\n" * 300
    history = [*turns("How do I delete a file?", "DELETE /files/{file_id}"),
               *turns("How do I see what is in a folder?", answer)]
    history[-1]["subject"] = FILES.covers[0]
    assert conversation_subject(history, OPERATIONS) is FILES
    paging = rewrite_query("and how do I page through them?", history, operations=OPERATIONS).query
    assert paging.subject == FILES.covers[0] and "How do I see what is in a folder?" in paging.standalone
    kept = recent_history([{"role": "user", "content": "x" * 900 + " and what is in a folder?"},
                           {"role": "assistant", "content": answer}])
    assert [m["role"] for m in kept] == ["user", "assistant"] and sum(len(m["content"]) for m in kept) <= 2000
    assert kept[0]["content"].endswith("what is in a folder?") and kept[1]["content"].startswith("Use GET /folders")


def test_getting_a_single_one_after_a_list_moves_the_subject_to_the_operation_on_one_member() -> None:
    """Issue 45: "how do I get a single one?" after listing employees is about `GET /employees/{id}`, not the list;
    the same verb of "one file" (a number, not the pronoun) keeps the list; a member operation that does not exist
    leaves the subject as it was."""
    history = [*turns("How do I list employees in the HRIS API?", "Use GET /unified/hris/employees. [1]")]
    history[1]["subject"] = EMPLOYEES.covers[0]
    single = rewrite_query("how do I get a single one?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert (single.subject, single.keeps_subject) == (EMPLOYEE.covers[0], True)
    assert "GET /unified/hris/employees/{id}" in single.standalone
    by_id = rewrite_query("can I fetch one by its id?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert by_id.subject == EMPLOYEE.covers[0]
    paging = rewrite_query("can I get them in one call?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert paging.subject == EMPLOYEES.covers[0]
    # Named by the collection's own word ("a single employee", as bunq's "show me a single payment"), the same.
    named = rewrite_query("show me a single employee", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert (named.subject, named.keeps_subject) == (EMPLOYEE.covers[0], True)
    # No DELETE on one employee is indexed: the subject's resource is what the write is of, as before.
    deleting = rewrite_query("how do I delete one?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert deleting.subject == EMPLOYEES.covers[0] and not deleting.keeps_subject


def test_an_action_on_one_member_that_http_s_verbs_do_not_name_moves_no_get_to_the_lead() -> None:
    """"how do I reactivate one?" after listing Postmark's bounces led with `GET /bounces/{bounceid}` (Get a single
    bounce) at confidence 0.74: the subject moved to the member operation of the list's own method. An action no
    verb of HTTP names searches one member's path and no operation leads."""
    history = [*turns("How do I list employees in the HRIS API?", "Use GET /unified/hris/employees. [1]")]
    history[1]["subject"] = EMPLOYEES.covers[0]
    query = rewrite_query("how do I reactivate one?", history, topics=TWO_API_TOPICS, operations=TWO_APIS).query
    assert (query.subject, query.keeps_subject, query.moved_subject) == (EMPLOYEE.covers[0], False, False)
    assert "/unified/hris/employees/{id}" in query.standalone and "GET /unified/hris/employees/{id}" not in (
        query.standalone)


def test_a_word_of_a_compound_resource_is_no_new_topic_when_a_question_points_back() -> None:
    """Issue 45: "what fields does it return?" names no `custom_field_definitions` (only all its words, or its last,
    name that resource), so it goes on about the subject; "custom field definitions" itself is a new topic."""
    from rag.corpus.profile import CorpusProfile, topic_names

    definitions = unified("hris", "get", "/unified/hris/custom_field_definitions", "List Custom Field Definitions")
    topics = topic_names(CorpusProfile(1, ["hris", "ats"], operations=[*TWO_APIS, definitions]))
    assert {"custom_field_definitions", "custom_field_definition", "definitions", "definition"} <= topics
    assert not {"custom", "field", "fields"} & topics
    history = [*turns("how do I delete one?", "There is no endpoint to delete candidate records [1]")]
    history[1]["subject"] = ATS_CANDIDATES.covers[0]
    assert is_follow_up("what fields does it return?", history, topics)
    query = rewrite_query("what fields does it return?", history, topics=topics, operations=TWO_APIS).query
    assert query.subject == ATS_CANDIDATES.covers[0] and query.keeps_subject
    assert not is_follow_up("How do I list the custom field definitions?", history, topics)


def test_a_question_asking_only_a_fact_of_an_operation_is_a_follow_up_whatever_its_length() -> None:
    """"how do I get the next page?" (seven words, no pronoun) asks a fact of the operation the conversation is
    about; a request of the same length asking no fact, or one naming a resource of its own, starts anew."""
    history = turns("How do I list candidates?", "Use GET /candidates (List candidates). [1]")
    topics = frozenset({"candidates", "candidate", "templates", "template"})
    assert is_follow_up("how do I get the next page?", history, topics)
    assert is_follow_up("what is the largest number of results I can ask for?", history, topics)
    assert not is_follow_up("how do I upload a new resume for somebody?", history, topics)
    assert not is_follow_up("what is the largest number of templates I can ask for?", history, topics)
    assert not is_follow_up("how do I get the next page?", [], topics)


def test_a_word_that_asks_a_fact_of_an_operation_names_no_new_topic() -> None:
    """"and how do I page through them?" asks how the subject pages, even in an index where another API has wiki
    `pages` (Gitea beside a chat API): the words that ask for a fact (`[asks]` of question_words.toml) name no
    resource. A resource the question names besides them still starts anew."""
    history = turns("How do I list the members of a guild?", "Use GET /guilds/{guild_id}/members.")
    topics = frozenset({"guild", "guilds", "member", "members", "page", "pages", "repo", "repos"})
    assert is_follow_up("and how do I page through them?", history, topics)
    assert is_follow_up("what is the largest page size?", history, topics)
    assert not is_follow_up("how do I list the pages of a repo?", history, topics)
    assert not is_follow_up("and how do I page through the repos?", history, topics)


def test_a_part_of_any_operation_named_by_a_question_pointing_back_is_no_new_topic() -> None:
    """"which fields does it take?" and "does it need any special permission?" ask about the subject even where
    another API of the index has merge `fields` or `permissions` of its own (Mailchimp, Discord): what any
    operation has (`parts_of_an_operation` of question_words.toml) names no new topic in a question pointing back.
    A request that points nowhere and names such a resource starts anew."""
    history = turns("How do I list candidates?", "Use GET /candidates (List candidates). [1]")
    topics = frozenset({"candidates", "candidate", "merge_fields", "fields", "field", "permissions", "permission",
                        "tokens", "token"})
    for question in ("ok, which fields does it take?", "does it need any special permission?",
                     "what permissions does my token need for that?"):
        query = rewrite_query(question, history, topics=topics, operations=OPERATIONS).query
        assert query.subject == "box.paths./candidates.get" and query.keeps_subject, question
    for question in ("How do I list the merge fields of an audience?", "how do I change a role's permissions?",
                     "how do I create a new token?"):
        assert not rewrite_query(question, history, topics=topics, operations=OPERATIONS).query.subject, question


def test_a_fact_asked_of_what_any_operation_has_is_a_follow_up_without_pointing_back() -> None:
    """"what fields are required?" after creating an issue asks about that operation, though Jira has a `/field`
    resource; "How do I create a custom field?" asks no fact and starts anew."""
    history = turns("How do I list candidates?", "Use GET /candidates (List candidates). [1]")
    topics = frozenset({"candidates", "candidate", "field", "fields"})
    query = rewrite_query("what fields are required?", history, topics=topics, operations=OPERATIONS).query
    assert query.subject == "box.paths./candidates.get" and query.keeps_subject
    assert not rewrite_query("How do I create a custom field?", history, topics=topics,
                             operations=OPERATIONS).query.subject


def test_the_request_its_body_and_its_filters_are_parts_of_any_operation() -> None:
    """Velo has `fundingRequest`s, Billbee `webhooks/filters`: "what does the request body look like?" after submitting
    a payout, "how many at most per request?" after listing a user's tracks and "can I filter them by state?" after
    listing orders were read as new topics (and answered about SoundCloud's OAuth token, Billbee's events and its
    webhook filters). Asking how to create a funding request still starts anew."""
    history = turns("How do I list candidates?", "Use GET /candidates (List candidates). [1]")
    topics = frozenset({"candidates", "candidate", "request", "requests", "filter", "filters", "body"})
    for question in ("what does the request body look like?", "how many at most per request?",
                     "can I filter them by state?"):
        query = rewrite_query(question, history, topics=topics, operations=OPERATIONS).query
        assert query.subject == "box.paths./candidates.get", question
    assert not rewrite_query("How do I create a funding request?", history, topics=topics,
                             operations=OPERATIONS).query.subject


def test_a_part_of_any_operation_named_as_another_api_s_resource_is_no_new_topic() -> None:
    """1Password's audit events beside Apacta (whose `/custom_fields` make `fields` a topic of the index): "what fields
    does each event have?" after "how do I get audit events?" went to Apacta's events; a resource of its own still
    starts anew."""
    history = turns("how do I get audit events from 1password?", "Use POST /api/v1/auditevents. [1]")
    topics = frozenset({"field", "fields", "event", "events", "project", "projects", "1password"})
    assert is_follow_up("what fields does each event have?", history, topics)
    assert not is_follow_up("what fields does a project have?", history, topics)


def test_a_question_spelling_a_field_of_the_subject_whole_is_about_the_subject() -> None:
    """HubSpot: after creating a webhook subscription, "which event types can I subscribe to?" went to the marketing
    events (`event` names their resource); it spells the subscription's `eventType`. A field of one word spelt alone
    names no field ("how do I create a folder?" after a note with a `folder_id`)."""
    from rag.chunk import FieldFacts, RequestBodyFacts

    subscriptions = replace(unified("webhooks", "post", "/webhooks/v3/{appId}/subscriptions", "Create"),
                            request_body=RequestBodyFacts(("application/json",), True, fields=(
                                FieldFacts("eventType", "string"), FieldFacts("folder_id", "string"))))
    events = unified("marketing", "get", "/marketing/v3/events", "List events")
    folders = unified("files", "post", "/files/v3/folders", "Create folder")
    history = turns("how do I create a webhook subscription?", "Use POST /webhooks/v3/{appId}/subscriptions. [1]")
    history[1]["subject"] = subscriptions.covers[0]
    topics = frozenset({"event", "events", "folder", "folders", "subscription", "subscriptions"})
    operations = [subscriptions, events, folders]
    query = rewrite_query("which event types can I subscribe to?", history, topics=topics, operations=operations).query
    assert query.subject == subscriptions.covers[0]
    query = rewrite_query("how do I create a folder?", history, topics=topics, operations=operations).query
    assert query.subject != subscriptions.covers[0]


def test_a_value_written_key_equals_value_names_no_topic() -> None:
    """Kubernetes: "only the ones with label app=web?" after listing pods read `app` as the `apps` API group's and
    started anew."""
    history = turns("how do I list pods in a namespace?", "Use GET /api/v1/namespaces/{namespace}/pods. [1]")
    topics = frozenset({"app", "apps", "pod", "pods", "namespace", "namespaces"})
    assert is_follow_up("only the ones with label app=web?", history, topics)
    assert not is_follow_up("only the ones in apps?", history, topics)


QUOTE = operation("get", "/Quotes/{QuoteID}", "Retrieves a specific quote")
QUOTE_PDF = operation("get", "/Quotes/{QuoteID}/pdf", "Retrieves a specific quote as a PDF file")
QUOTE_HISTORY = operation("get", "/Quotes/{QuoteID}/History", "Retrieves history records of a quote")
CREATE_INVOICES = operation("put", "/Invoices", "Creates one or more sales invoices")
INVOICE_PDF = operation("get", "/Invoices/{InvoiceID}/pdf", "Retrieves invoices as PDF files")
EMAIL_INVOICE = operation("post", "/Invoices/{InvoiceID}/Email", "Sends a copy of a specific invoice to its contact")
ADD_LIST = operation("post", "/boards/{idBoard}/lists", "Create a new List on a Board")
ADD_CARD_TO_LIST = operation("post", "/lists/{idList}/cards", "Add a card to a list")
ADD_CARD = operation("post", "/cards", "Create a new Card")
NESTED = [QUOTE, QUOTE_PDF, QUOTE_HISTORY, CREATE_INVOICES, INVOICE_PDF, EMAIL_INVOICE, ADD_LIST, ADD_CARD_TO_LIST,
          ADD_CARD]
NESTED_TOPICS = frozenset({"quote", "quotes", "pdf", "history", "invoice", "invoices", "email", "board", "boards",
                           "list", "lists", "card", "cards"})


def test_what_an_api_keeps_under_the_subject_is_asked_of_the_subject() -> None:
    """"and as a pdf?" after reading a quote names Xero's `/Quotes/{QuoteID}/pdf`: no new topic, and that
    operation becomes the subject (the quote itself no longer leads)."""
    history = turns("how do I get one quote?", "getQuote: GET /Quotes/{QuoteID}.")
    rewrite = rewrite_query("and as a pdf?", history, topics=NESTED_TOPICS, operations=NESTED)
    assert rewrite.method == "offline"
    assert rewrite.query.subject == QUOTE_PDF.covers[0] and rewrite.query.moved_subject
    # After creating invoices (a collection): what is kept under one invoice, by the question's verb ("email" names
    # what Xero keeps there too, no topic of its own).
    history = turns("how do I create an invoice?", "PUT /Invoices with `Type` ACCREC.")
    query = rewrite_query("how do I get it as a PDF to attach to my own email?", history, topics=NESTED_TOPICS,
                          operations=NESTED).query
    assert query.subject == INVOICE_PDF.covers[0]


def test_a_resource_kept_under_the_subject_and_at_the_top_level_is_asked_of_the_subject() -> None:
    """Trello keeps cards under a list and at `/cards`: "and then put a card in it?" after adding a list to a board
    adds a card to that list (`POST /lists/{idList}/cards`, by the subject's method: "put" is no HTTP verb here)."""
    history = turns("how do I add a list to a board?", "POST /boards/{idBoard}/lists with the list's `name`.")
    rewrite = rewrite_query("and then put a card in it?", history, topics=NESTED_TOPICS, operations=NESTED)
    assert rewrite.query.subject == ADD_CARD_TO_LIST.covers[0]


def test_an_action_the_api_does_not_do_under_the_subject_names_a_topic_of_its_own() -> None:
    """Gitea reads a user's repositories (`GET /users/{username}/repos`) but creates them elsewhere: "how do I
    create a repo?" after reading a user is a new request, not one about the user."""
    user = operation("get", "/users/{username}", "Get a user")
    user_repos = operation("get", "/users/{username}/repos", "List the repos owned by the given user")
    create_repo = operation("post", "/user/repos", "Create a repository")
    history = turns("how do I look up a user?", "GET /users/{username}")
    rewrite = rewrite_query("how do I create a repo?", history, topics=frozenset({"user", "users", "repo", "repos"}),
                            operations=[user, user_repos, create_repo])
    assert rewrite.method == "none" and not rewrite.query.subject


def test_of_a_collection_and_its_items_under_the_subject_the_collection_is_asked() -> None:
    """Akeneo's `/attributes/{attribute_code}/options` and `…/options/{code}`: "and its options?" asks the list."""
    attributes = operation("get", "/api/rest/v1/attributes", "Get list of attributes")
    options = operation("get", "/api/rest/v1/attributes/{attribute_code}/options", "Get list of attribute options")
    option = operation("get", "/api/rest/v1/attributes/{attribute_code}/options/{code}", "Get an attribute option")
    history = turns("how do I list attributes?", "Use GET /api/rest/v1/attributes.")
    query = rewrite_query("and its options?", history, topics=frozenset({"attributes", "options", "option"}),
                          operations=[attributes, options, option]).query
    assert query.subject == options.covers[0]


def test_a_verb_names_nothing_kept_under_the_subject() -> None:
    """"and how do I list them all?" after reading one board asks for the boards: the verb "list" names no
    `/boards/{idBoard}/lists`."""
    board = operation("get", "/boards/{idBoard}", "Get a board")
    boards = operation("get", "/boards", "List boards")
    lists = operation("get", "/boards/{idBoard}/lists", "Get the lists on a board")
    history = turns("how do I get a board?", "GET /boards/{idBoard}")
    topics = frozenset({"board", "boards", "list", "lists"})
    query = rewrite_query("and how do I list them all?", history, topics=topics,
                          operations=[board, boards, lists]).query
    assert query.subject != lists.covers[0]


def test_what_is_kept_under_the_subject_named_as_the_action_asked_is_searched_for_not_read() -> None:
    """"how do I scale it?" after creating a Kubernetes deployment asks to change its `…/scale`: the path is
    searched for and no operation leads (not `GET …/scale`, which reads it)."""
    base = "/apis/apps/v1/namespaces/{namespace}/deployments"
    create = operation("post", base, "create apps V 1 namespaced deployment")
    read_scale = operation("get", base + "/{name}/scale", "read scale of the specified Deployment")
    replace_scale = operation("put", base + "/{name}/scale", "replace scale of the specified Deployment")
    patch_scale = operation("patch", base + "/{name}/scale", "partially update scale of the specified Deployment")
    history = turns("how do I create a deployment?", f"POST {base}")
    query = rewrite_query("how do I scale it?", history, topics=frozenset({"deployment", "deployments", "scale"}),
                          operations=[create, read_scale, replace_scale, patch_scale]).query
    assert query.subject_words == base + "/{name}/scale" and not query.keeps_subject
    # Where the segment the action names has one write, that write is asked: "comment on it" after reading a pull
    # request is `POST …/comments`.
    pull = operation("get", "/pullrequests/{id}", "get a pull request")
    comments = operation("get", "/pullrequests/{id}/comments", "list comments")
    comment = operation("post", "/pullrequests/{id}/comments", "create a comment")
    commented = rewrite_query("comment on it", turns("get a pull request", "Use GET /pullrequests/{id}."),
                              topics=frozenset({"pullrequests", "comments", "comment"}),
                              operations=[pull, comments, comment]).query
    assert commented.subject == comment.covers[0] and commented.keeps_subject


def test_an_action_on_the_collection_asked_by_its_own_verb_leads() -> None:
    """"ack them" after listing VictorOps incidents is done by `PATCH /api-public/v1/incidents/ack`, which leads;
    "only the merged ones" after listing pull requests describes them (no `POST …/merge`)."""
    incidents = operation("get", "/api-public/v1/incidents", "Get current incident information")
    ack = operation("patch", "/api-public/v1/incidents/ack", "Acknowledge an incident")
    history = turns("list incidents", "Use GET /api-public/v1/incidents. [1]")
    query = rewrite_query("ack them", history, topics=frozenset({"incidents", "incident", "ack"}),
                          operations=[incidents, ack]).query
    assert query.subject == ack.covers[0] and query.keeps_subject
    pulls = operation("get", "/pullrequests")
    merge = operation("post", "/pullrequests/{id}/merge")
    merged = rewrite_query("only the merged ones", turns("list pull requests", "Use GET /pullrequests. [1]"),
                           topics=frozenset({"pullrequests", "merge"}), operations=[pulls, merge]).query
    assert merged.subject == pulls.covers[0] and merged.keeps_subject


def test_after_an_action_on_an_item_what_is_kept_under_that_item_is_asked() -> None:
    """SpaceTraders: "and refuel it?" after docking a ship (`POST /my/ships/{shipSymbol}/dock`, an action: nothing
    addresses one of a dock) refuels the ship (`…/refuel`), and "what about selling the stuff in its hold?" names
    `…/sell` by a form of its word; after reading a sub-collection with members (a list's cards), what is under one
    member is asked, not a sibling of the collection."""
    ships = operation("get", "/my/ships", "List Ships")
    dock = operation("post", "/my/ships/{shipSymbol}/dock", "Dock Ship")
    refuel = operation("post", "/my/ships/{shipSymbol}/refuel", "Refuel Ship")
    sell = operation("post", "/my/ships/{shipSymbol}/sell", "Sell Cargo")
    operations = [ships, dock, refuel, sell]
    topics = frozenset({"ship", "ships", "dock", "refuel", "sell"})
    history = turns("how do I dock my ship?", "Use POST /my/ships/{shipSymbol}/dock (Dock Ship).")
    assert rewrite_query("and refuel it?", history, topics=topics, operations=operations).query.subject == \
        refuel.covers[0]
    history = turns("and refuel it?", "Use POST /my/ships/{shipSymbol}/refuel (Refuel Ship).")
    query = rewrite_query("what about selling the stuff in its hold?", history, topics=topics,
                          operations=operations).query
    assert query.subject == sell.covers[0]
    cards = operation("get", "/lists/{idList}/cards", "Get the cards in a list")
    card = operation("get", "/lists/{idList}/cards/{idCard}", "Get a card in a list")
    archive = operation("post", "/lists/{idList}/archive", "Archive the list")
    history = turns("how do I see a list's cards?", "Use GET /lists/{idList}/cards.")
    query = rewrite_query("and archive it?", history, topics=frozenset({"list", "card", "cards", "archive"}),
                          operations=[cards, card, archive]).query
    assert query.subject != archive.covers[0]


def test_an_action_on_the_whole_collection_named_by_its_verb_is_asked_whatever_its_method() -> None:
    """VictorOps: "ack them" after listing incidents (`GET /api-reporting/v2/incidents`) acknowledges them with `PATCH
    /api-public/v1/incidents/ack`; a segment after another API's `…/messages/` that the question does not name
    (Discord's `…/messages/@original`) is not taken for "only the ones before a given message?"."""
    incidents = operation("get", "/api-reporting/v2/incidents", "Get/search incident history")
    ack = operation("patch", "/api-public/v1/incidents/ack", "Acknowledge an incident or list of incidents")
    by_user = operation("patch", "/api-public/v1/incidents/byUser/ack", "Acknowledge all incidents of a user")
    history = turns("how do I see current incidents?", "Use GET /api-reporting/v2/incidents.")
    query = rewrite_query("ack them", history, topics=frozenset({"incident", "incidents", "ack"}),
                          operations=[incidents, ack, by_user]).query
    assert query.subject == ack.covers[0]
    messages = operation("get", "/channels/{channel_id}/messages", "list messages")
    message = operation("get", "/channels/{channel_id}/messages/{message_id}", "get message")
    original = operation("get", "/webhooks/{application_id}/{interaction_token}/messages/@original",
                         "get original webhook message")
    history = turns("how do I read a channel's messages?", "Use GET /channels/{channel_id}/messages.")
    query = rewrite_query("only the ones before a given message?", history, topics=frozenset({"message", "messages"}),
                          operations=[messages, message, original]).query
    assert query.subject == messages.covers[0]


def test_a_word_used_as_the_question_s_verb_names_no_topic() -> None:
    """"update one" after listing a repository's webhooks, where another API of the index has `/amountUpdates`."""
    history = turns("list webhooks of a repository", "Use GET /repositories/{workspace}/{repo_slug}/hooks. [1]")
    topics = frozenset({"hooks", "hook", "amount_updates", "updates", "update"})
    assert not names_a_new_topic("update one", history, topics)
    assert names_a_new_topic("what about updates?", history, topics)  # the noun still names the resource


def test_adding_one_to_the_listed_collection_is_the_collection_s_post() -> None:
    """GitLab's environments: "how do I add one?" and "add a new one" after listing them led with `PUT
    …/environments/{environment_id}` (the verb "add" asks for a POST or a PUT, and a member's PUT was taken as the
    one pointed to); adding one is the collection's `POST`. "delete one" still points to a member."""
    listing = operation("get", "/projects/{id}/environments", "Get all environments of the project")
    create = operation("post", "/projects/{id}/environments", "Creates a new environment")
    update = operation("put", "/projects/{id}/environments/{environment_id}", "Updates an existing environment")
    delete = operation("delete", "/projects/{id}/environments/{environment_id}", "Deletes an existing environment")
    history = turns("show me the environments of a project", "Use GET /projects/{id}/environments. [1]")
    topics = frozenset({"environments", "environment", "projects", "project"})
    for question in ("how do I add one?", "add a new one", "create another one"):
        query = rewrite_query(question, history, topics=topics, operations=[listing, create, update, delete]).query
        assert query.subject == create.covers[0] and query.keeps_subject, question
    deleting = rewrite_query("delete one", history, topics=topics, operations=[listing, create, update, delete])
    assert deleting.query.subject == delete.covers[0]


def test_an_action_another_operation_does_is_not_the_subject_s() -> None:
    """GitLab: "and disable it again" after enabling a runner for a project (`POST /projects/{id}/runners`, "Enable
    a runner for a project") kept the subject first ("names nothing of its own"), over the ranker's `DELETE
    …/runners/{runner_id}` ("Disable project's runner"). An action that opens what another operation of the API
    does is not the subject's: the subject's path is searched for and does not lead (where two operations do it on
    runners); where one does, it becomes the subject. An action the subject does ("and enable another?") or none of
    the API's operations does ("and page through them?") keeps it."""
    enable = operation("post", "/projects/{id}/runners", "Enable a runner for a project")
    disable = operation("delete", "/projects/{id}/runners/{runner_id}", "Disable project's runner")
    disable_shared = operation("delete", "/groups/{id}/runners/{runner_id}", "Disable a group's runner")
    history = turns("enable a runner for my project", "Use POST /projects/{id}/runners. [1]")
    topics = frozenset({"runners", "runner", "projects", "project", "groups", "group"})
    operations = [enable, disable, disable_shared]
    query = rewrite_query("and disable it again", history, topics=topics, operations=operations).query
    assert query.subject == enable.covers[0] and not query.keeps_subject
    assert query.subject_words == enable.path
    query = rewrite_query("and disable it again", history, topics=topics, operations=[enable, disable]).query
    assert query.subject == disable.covers[0] and query.keeps_subject
    for kept in ("enable it again", "and how do I page through them?"):
        assert rewrite_query(kept, history, topics=topics, operations=operations).query.keeps_subject, kept


def test_and_the_other_resource_asks_the_earlier_request_of_it() -> None:
    """Adyen's Management API: "and the users?" after listing a merchant account's webhooks was read as a question
    of its own ("users" names a resource the earlier question did not), and GitLab's `GET /users` led in a
    two-API index; "and the …" asks the earlier request again for something else, as "what about the users?" does:
    the same action on the merchant account's users."""
    webhooks = operation("get", "/merchants/{merchantId}/webhooks", "List all webhooks")
    webhook = operation("get", "/merchants/{merchantId}/webhooks/{webhookId}", "Get a webhook")
    users = operation("get", "/merchants/{merchantId}/users", "Get a list of users")
    history = turns("how do I list the webhooks of my merchant account?", "Use GET /merchants/{merchantId}/webhooks.")
    gitlab_users = replace(operation("get", "/v3/users", "Get the list of users"), api="gitlab",
                           covers=("gitlab.paths./v3/users.get",))
    topics = frozenset({"webhooks", "webhook", "users", "user", "merchants", "merchant", "gitlab"})
    for question in ("and the users?", "what about the users?"):
        query = rewrite_query(question, history, topics=topics,
                              operations=[webhooks, webhook, users, gitlab_users]).query
        assert query.subject == users.covers[0], question


def test_a_request_opening_with_another_operation_s_verb_is_not_the_subject_s() -> None:
    """GitLab: "approve the one from alice" after listing a project's access requests led with the list itself
    ("names nothing of its own"); `Approves an access request for the given user` opens with a form of its verb,
    so the subject does not lead and its path is searched for."""
    listing = operation("get", "/projects/{id}/access_requests", "Gets a list of access requests for a project")
    approve = operation("put", "/projects/{id}/access_requests/{user_id}/approve",
                        "Approves an access request for the given user")
    history = turns("list the access requests of my project", "Use GET /projects/{id}/access_requests. [1]")
    topics = frozenset({"access_requests", "access_request", "projects", "project", "approve"})
    query = rewrite_query("approve the one from alice", history, topics=topics, operations=[listing, approve]).query
    assert not query.keeps_subject


def test_the_earlier_request_again_in_other_words_of_ellipsis() -> None:
    """GitLab: "same thing but for a group" after listing a project's members, and "now the tags" after listing its
    branches, were read as questions of their own (`POST /groups` and `GET /version` led); they ask the earlier
    request again for something else."""
    project_members = operation("get", "/projects/{id}/members", "Gets a list of project members")
    group_members = operation("get", "/groups/{id}/members", "Gets a list of group members")
    create_group = operation("post", "/groups", "Create a group")
    branches = operation("get", "/projects/{id}/repository/branches", "Get a project repository branches")
    tags = operation("get", "/projects/{id}/repository/tags", "Get a project repository tags")
    operations = [project_members, group_members, create_group, branches, tags]
    topics = frozenset({"projects", "project", "groups", "group", "members", "member", "branches", "branch", "tags",
                        "tag", "repository"})
    members = turns("how do I list the members of a project?", "Use GET /projects/{id}/members. [1]")
    query = rewrite_query("same thing but for a group", members, topics=topics, operations=operations).query
    assert query.subject == group_members.covers[0]
    listed = turns("list the branches of my repo", "Use GET /projects/{id}/repository/branches. [1]")
    assert rewrite_query("now the tags", listed, topics=topics, operations=operations).query.subject == tags.covers[0]
    assert rewrite_query("and a tag?", listed, topics=topics, operations=operations).query.subject == tags.covers[0]


def test_one_pointed_to_makes_a_follow_up_whatever_else_it_names() -> None:
    """GitLab: "update one to also fire on tag pushes" after listing a project's hooks was read as a question of
    its own ("tag" and "push" name resources of the API) and a tag's release note led; "one" points back to the
    listed hooks."""
    hooks = operation("get", "/projects/{id}/hooks", "Get project hooks")
    update = operation("put", "/projects/{id}/hooks/{hook_id}", "Update an existing project hook")
    release = operation("put", "/projects/{id}/repository/tags/{tag_name}/release", "Update a tag's release note")
    history = turns("how do I list the hooks of a project?", "Use GET /projects/{id}/hooks. [1]")
    topics = frozenset({"hooks", "hook", "tags", "tag", "pushes", "push", "projects", "project"})
    query = rewrite_query("update one to also fire on tag pushes", history, topics=topics,
                          operations=[hooks, update, release]).query
    assert query.subject == update.covers[0]


def test_creating_another_resource_for_the_subject_is_a_request_of_its_own() -> None:
    """A CI platform's API in Harness's shape: "add a trigger for it" after creating a pipeline led with `POST
    /pipelines` again (the subject kept first, its words searched); the API creates triggers on a collection of their
    own (`POST /triggers`), so the follow-up is a request of its own. Not so for what the subject has ("update its
    release type"), nor for a resource no collection of the API creates ("add a reviewer to it")."""
    create = operation("post", "/pipeline/api/pipelines/v2", "Create a Pipeline")
    trigger = operation("post", "/pipeline/api/triggers", "Create a Trigger")
    reviewers = operation("put", "/repositories/{id}/default-reviewers/{username}", "Add a default reviewer")
    operations = [create, trigger, reviewers]
    topics = frozenset({"pipelines", "pipeline", "triggers", "trigger", "reviewers", "reviewer", "releases"})
    history = turns("how do I create a pipeline?", "Use POST /pipeline/api/pipelines/v2. [1]")
    query = rewrite_query("add a trigger for it", history, topics=topics, operations=operations).query
    assert not query.subject and not query.previous and query.standalone == "add a trigger for it"
    for kept in ("add a reviewer to it", "update its release type"):
        assert rewrite_query(kept, history, topics=topics, operations=operations).query.subject == create.covers[0]


def test_reading_another_resource_the_subject_has_is_a_request_of_its_own() -> None:
    """A CI platform's API in Harness's shape lists a pipeline's triggers and input sets at collections of their own
    (`GET /triggers`, `GET /inputSets`, filtered by a query parameter): "what triggers does it have?" and "list its
    input sets" after fetching a pipeline kept the fetch first (its words searched). They are requests of their own;
    not a fact of the subject ("what does it return?"), nor where the subject is ("which trigger is it in?"), nor what
    the subject's own path names ("and its pipelines?")."""
    fetch = operation("get", "/pipeline/api/pipelines/v2/{pipelineIdentifier}", "Fetch a Pipeline")
    triggers = operation("get", "/pipeline/api/triggers", "List Triggers")
    input_sets = operation("get", "/pipeline/api/inputSets", "List Input Sets")
    pipelines = operation("get", "/pipeline/api/pipelines/v2", "List Pipelines")
    root = operation("get", "/", "API root")
    operations = [root, fetch, triggers, input_sets, pipelines]
    topics = frozenset({"pipelines", "pipeline", "triggers", "trigger", "input_sets", "input_set"})
    history = turns("how do I fetch a pipeline?", "Use GET /pipeline/api/pipelines/v2/{pipelineIdentifier}. [1]")
    for own in ("what triggers does it have?", "list its input sets"):
        query = rewrite_query(own, history, topics=topics, operations=operations).query
        assert not query.subject and not query.previous and query.standalone == own
    for kept in ("what does it return?", "which trigger is it in?", "and its pipelines?"):
        assert rewrite_query(kept, history, topics=topics, operations=operations).query.subject == fetch.covers[0]


def test_a_listing_at_a_version_segment_is_read_as_its_resource() -> None:
    """Where the API lists triggers at a path that ends in its version (`GET /pipeline/api/triggers/v2`), "what
    triggers does it have?" after fetching a pipeline is a request of its own as it is at `GET /triggers`: the
    version's segment names no resource."""
    fetch = operation("get", "/pipeline/api/pipelines/v2/{pipelineIdentifier}", "Fetch a Pipeline")
    triggers = operation("get", "/pipeline/api/triggers/v2", "List Triggers")
    topics = frozenset({"pipelines", "pipeline", "triggers", "trigger"})
    history = turns("how do I fetch a pipeline?", "Use GET /pipeline/api/pipelines/v2/{pipelineIdentifier}. [1]")
    query = rewrite_query("what triggers does it have?", history, topics=topics, operations=[fetch, triggers]).query
    assert not query.subject and query.standalone == "what triggers does it have?"

def test_an_action_another_operation_says_it_does_to_the_subject_moves_the_subject_there() -> None:
    """A CI platform's API in Harness's shape: "execute it" after fetching a pipeline and "abort it" after reading an
    execution kept the read first (the action is done at a path of its own: `POST …/execute/{identifier}`, `PUT
    …/interrupt/{planExecutionId}`, whose summary says "abort" among others)."""
    fetch = operation("get", "/pipeline/api/pipelines/v2/{pipelineIdentifier}", "Fetch a Pipeline")
    execute = operation("post", "/pipeline/api/pipeline/execute/{identifier}", "Execute a Pipeline with Runtime Input")
    details = operation("get", "/pipeline/api/pipelines/execution/v2/{planExecutionId}", "Fetch Execution Details")
    interrupt = operation("put", "/pipeline/api/pipeline/execute/interrupt/{planExecutionId}",
                          "Interrupt a pipeline execution (abort, pause, resume)")
    operations = [fetch, execute, details, interrupt]
    topics = frozenset({"pipelines", "pipeline", "executions", "execution"})
    fetched = turns("how do I fetch a pipeline?", "Use GET /pipeline/api/pipelines/v2/{pipelineIdentifier}. [1]")
    query = rewrite_query("execute it", fetched, topics=topics, operations=operations).query
    assert query.subject == execute.covers[0] and query.keeps_subject
    read = turns("how do I get the details of an execution?",
                 "Use GET /pipeline/api/pipelines/execution/v2/{planExecutionId}. [1]")
    query = rewrite_query("abort it", read, topics=topics, operations=operations).query
    assert query.subject == interrupt.covers[0] and query.keeps_subject


def test_which_of_what_the_subject_keeps_is_a_read() -> None:
    """Adyen's Management API: "and which origins are allowed?" after generating a client key for an API credential
    pointed to `POST …/allowedOrigins` (the subject's method); asking which there are is the list's `GET`."""
    generate = operation("post", "/apiCredentials/{apiCredentialId}/generateClientKey", "Generate new client key")
    listing = operation("get", "/apiCredentials/{apiCredentialId}/allowedOrigins", "Get a list of allowed origins")
    create = operation("post", "/apiCredentials/{apiCredentialId}/allowedOrigins", "Create an allowed origin")
    history = turns("generate a client key for it", "Use POST /apiCredentials/{apiCredentialId}/generateClientKey.")
    topics = frozenset({"origins", "origin", "allowed_origins", "credentials", "credential"})
    query = rewrite_query("and which origins are allowed?", history, topics=topics,
                          operations=[generate, listing, create]).query
    assert query.subject == listing.covers[0]


def test_an_action_on_the_one_described_is_an_action_on_one_member() -> None:
    """GitLab: "protect the main one" after listing a project's branches read no action ("the main one" is no
    pronoun the verb was looked for before), so the branch's `GET` led; the branch's `PUT …/protect` does it."""
    branches = operation("get", "/v3/projects/{id}/repository/branches", "Get a project repository branches")
    branch = operation("get", "/v3/projects/{id}/repository/branches/{branch}", "Get a single branch")
    protect = operation("put", "/v3/projects/{id}/repository/branches/{branch}/protect", "Protect a single branch")
    history = turns("get a project's branches", "Use GET /v3/projects/{id}/repository/branches. [1]")
    query = rewrite_query("protect the main one", history, topics=frozenset({"branches", "branch"}),
                          operations=[branches, branch, protect]).query
    assert query.subject == protect.covers[0] and query.keeps_subject


def test_a_verb_that_turns_a_flag_off_points_to_the_write_that_sets_it() -> None:
    """Adyen's Management API: "now deactivate it" after testing a webhook kept the test first; the webhook's `PATCH`
    sends `active`. Where another operation says it does the verb ("Disable project's runner"), that one leads,
    not a write of some `…_enabled` flag."""
    from rag.chunk import RequestBodyFacts

    def body(*flags: str) -> RequestBodyFacts:
        return RequestBodyFacts(("application/json",), True, fields=tuple(FieldFacts(f, "boolean") for f in flags))

    test = operation("post", "/companies/{companyId}/webhooks/{webhookId}/test", "Test a webhook")
    update = operation("patch", "/companies/{companyId}/webhooks/{webhookId}", "Update a webhook",
                       request_body=body("active", "acceptsExpiredCertificate"))
    history = turns("send a test event to it", "Use POST /companies/{companyId}/webhooks/{webhookId}/test. [1]")
    query = rewrite_query("now deactivate it", history, topics=frozenset({"webhooks", "webhook"}),
                          operations=[test, update]).query
    assert query.subject == update.covers[0] and query.keeps_subject

    enable = operation("post", "/projects/{id}/runners", "Enable a runner for a project")
    disable = operation("delete", "/projects/{id}/runners/{runner_id}", "Disable project's runner")
    project = operation("put", "/projects/{id}", "Update an existing project", request_body=body("builds_enabled"))
    history = turns("enable one for it", "Use POST /projects/{id}/runners. [1]")
    query = rewrite_query("and disable it again", history, topics=frozenset({"runners", "runner", "projects"}),
                          operations=[enable, disable, project]).query
    assert query.subject != project.covers[0]
