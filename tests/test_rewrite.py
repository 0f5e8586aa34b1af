"""Follow-ups: the conversation's subject (the operation the last answer names) and when a question starts anew."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import FieldFacts, ResponseFacts
from rag.rewrite import conversation_subject, field_words, is_follow_up, rewrite_query
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
