"""The one analysis of a question: the methods its verbs point to, the write it requests, yes/no; and the
word lists it reads (rag/data/question_words.toml)."""

from __future__ import annotations

import pytest

from rag.query import Query
from rag.question_analysis import (
    POSSESSIVE,
    QuestionAnalysis,
    WriteRequest,
    acts_on_what_it_points_to,
    asked_action,
    asked_sentence,
    is_yes_no,
    opening_word,
    points_to_one,
    question_methods,
    requested_write,
    verb_methods,
    write_verbs,
)

HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


def test_get_back_and_get_rid_of_are_not_a_get_and_state_participles_are_not_writes() -> None:
    assert question_methods("What do I get back after creating an employee?") == {"post"}
    assert question_methods("how do I get rid of an on-call schedule?") == {"delete"}
    assert question_methods("list contacts that were updated after a certain date") == {"get"}
    assert question_methods("what training has been assigned to one learner?") == set()
    assert question_methods("How do I update a contact?") == {"patch", "put"}
    assert question_methods("how do I record that a learner finished a course?") == set()


def test_a_corpus_verb_counts_but_http_verbs_win_a_conflict() -> None:
    question = "how do I record that a learner finished a course?"
    assert question_methods(question, {"record": ("post",)}) == {"post"}
    assert question_methods("How do I delete a course?", {"delete": ("post",)}) == {"delete"}


def test_a_write_request_is_the_first_write_verb_in_any_word_form() -> None:
    assert requested_write("Can I remove or create a course?") == WriteRequest("remove", ("delete",), ("a", "course"))
    assert requested_write("Creating courses: is it possible?") == WriteRequest("create", ("post", "put"), ("courses",))
    upsert = WriteRequest("upsert", ("put", "post"), ("an", "employee"))
    assert requested_write("How do I upsert an employee?") == upsert
    assert requested_write("How do I list courses?") is None
    # Ranking verbs that are no write request: searching and submitting do not ask the write check anything.
    assert requested_write("How do I search or submit courses?") is None


def test_a_past_form_describes_what_was_done_and_requests_no_write() -> None:
    assert requested_write("Get rid of a joke I posted") is None
    assert requested_write("Which contacts were created last week?") is None
    assert requested_write("Show the deleted users") is None


def test_what_is_new_is_watched_for_not_created() -> None:
    """"how do I get notified of new transactions?" answered "There is no endpoint to create transaction records"."""
    assert requested_write("how do I get notified of new transactions in increase?") is None
    assert requested_write("is there a webhook for new orders?") is None
    assert requested_write("new employee via the api?") is not None
    assert requested_write("how do I create a new role?") is not None


@pytest.mark.parametrize(
    ("question", "written"),
    [
        ("Remove the first song from my playlist 'My Rock'", ("the", "first", "song")),
        ("How do I create a new interview note in the ATS API?", ("a", "new", "interview", "note")),
        ("How do I delete the employee's documents?", ("the", "employee", POSSESSIVE, "documents")),
        ("How do I delete an in-app template?", ("an", "in", "app", "template")),
        ("Make top tracks of Taylor Swift a new playlist", ("top", "tracks")),
        ("Add a joke I wrote to my collection", ("a", "joke")),
        ("How do I delete?", ()),
    ],
)
def test_the_object_of_a_write_ends_at_a_preposition_conjunction_or_punctuation(
    question: str, written: tuple[str, ...]
) -> None:
    request = requested_write(question)
    assert request is not None and request.object == written


def test_a_follow_up_applies_the_earlier_write_to_what_it_names() -> None:
    analysis = QuestionAnalysis.of("and for employees?", "and for employees? (regarding: How do I delete an order?)")
    assert analysis.write == WriteRequest("delete", ("delete",), ("employees",), carried=True)
    same = QuestionAnalysis.of("and then?", "and then? (regarding: How do I delete an order?)")
    assert same.write is not None and same.write.object == ("an", "order")


def test_a_creation_is_performed_by_post_or_put_but_asks_the_reranker_for_post() -> None:
    assert question_methods("How do I create a course?") == {"post"}
    assert requested_write("How do I create a course?") == WriteRequest("create", ("post", "put"), ("a", "course"))


def test_renaming_is_an_update() -> None:
    """Postman: "rename it" after creating a collection kept `POST /collections`; Hetzner's "rename it" after
    uploading an SSH key did too (`PUT /ssh_keys/{id}` fourth). An action path named so performs the update."""
    from rag.write_check import write_target

    assert question_methods("rename it") == {"patch", "put"}
    assert requested_write("rename the payee") == WriteRequest("rename", ("patch", "put"), ("the", "payee"))
    assert write_target("post", "/admin/users/{username}/rename") == ("user", frozenset({"patch", "put"}))


@pytest.mark.parametrize(
    ("question", "yes_no"),
    [
        ("Can I filter accounts by provider?", True),
        ("  is there an endpoint for courses?", True),
        ("DOES the API support webhooks?", True),
        ("How do I create a course?", False),
        ("Which fields can I filter by?", False),
        ("Candidates: can I list them?", False),
        ("Isolation levels?", False),  # "is" must be a whole word
    ],
)
def test_a_yes_no_question_opens_with_an_auxiliary(question: str, yes_no: bool) -> None:
    assert is_yes_no(question) is yes_no


@pytest.mark.parametrize(
    ("question", "acts"),
    [
        ("revoke it", True),
        ("and power it back on", True),
        ("now take it off the list", True),
        ("turn them off again", True),
        ("oops, wrong amount. can I stop it?", True),  # the sentence that asks
        ("is it paginated?", False),
        ("what does it return?", False),
        ("what about them?", False),
        ("which fields does it take?", False),  # "fields" opens it: no verb
        ("only the archived ones though", False),
        ("how do I cancel one of them?", False),
    ],
)
def test_a_follow_up_opening_with_a_verb_on_what_it_points_to_acts_on_it(question: str, acts: bool) -> None:
    assert acts_on_what_it_points_to(question) is acts
    assert QuestionAnalysis.of(question, question).acts_on_pointed is acts


def test_the_new_question_decides_and_the_earlier_turn_fills_in_when_it_has_no_verb() -> None:
    follow_up = Query("and how do I remove one of them?", previous="How do I list users?")
    assert follow_up.analysis.methods() == {"delete"}
    elliptical = Query("and for contacts?", previous="How do I create a deal?")
    assert elliptical.analysis.methods() == {"post"}
    # The earlier turn's write, applied to what the follow-up names.
    assert elliptical.analysis.write == WriteRequest("create", ("post", "put"), ("contacts",), carried=True)
    assert not elliptical.analysis.yes_no and Query("Can I?", previous="x").analysis.yes_no


def test_a_rewritten_question_is_analysed_and_glossary_words_join_the_write_request() -> None:
    rewritten = Query("can you remove it", rewritten="How do I delete the employee?")
    assert rewritten.analysis.methods() == {"delete"} and not rewritten.analysis.yes_no
    expanded = Query("How do I see my team?").expanded(("erase",))
    # A glossary's write verb applies to what the question names.
    assert expanded.analysis.write == WriteRequest("erase", ("delete",), ("see", "my", "team"), carried=True)
    assert Query("How do I see my team?").analysis.write is None


def test_a_query_is_analysed_once() -> None:
    query = Query("Can I create a course?")
    assert query.analysis is query.analysis
    assert query.analysis == QuestionAnalysis.of(query.focus, query.text)


def test_the_verb_table_names_only_http_methods_and_write_verbs_are_writes() -> None:
    assert verb_methods() and write_verbs()
    for methods in (*verb_methods().values(), *write_verbs().values()):
        assert methods and set(methods) <= HTTP_METHODS
    assert all("get" not in methods for methods in write_verbs().values())
    assert verb_methods()["create"] == ("post",) and verb_methods()["list"] == ("get",)


def test_one_table_says_what_kind_of_fact_a_question_asks_for() -> None:
    from rag.question_analysis import asked_kinds

    assert asked_kinds("What's the biggest page_size I can ask for?") == {"limit"}
    assert asked_kinds("and how do I page through them?") == {"pagination", "how_to"}
    assert asked_kinds("How do I authenticate with the Music API?") == {"auth", "how_to"}
    assert asked_kinds("which header takes my api token?") == {"auth", "header"}  # Snyk's, Jira's word for a key
    assert asked_kinds("Which headers are required?") == {"header", "required"}
    assert asked_kinds("What does it return?") == {"response"}
    assert asked_kinds("what fields come back?") == {"response"}  # Plaid's accounts: the lead named no response
    assert asked_kinds("Is `provider` still the right query param?") == {"deprecated"}
    assert asked_kinds("How do I list employees?") == {"how_to"}
    assert asked_kinds("Which call lists employees?") == {"endpoint"}
    assert asked_kinds("List employees") == frozenset()
    # Whole words only: "paged" is no "page", "limitless" no "limit".
    assert asked_kinds("a limitless, paged world") == frozenset()


def test_the_action_a_how_to_question_asks_is_the_word_after_its_cue() -> None:
    assert asked_action("how do I reactivate one?") == "reactivate"
    assert asked_action("So, how can I  delete one") == "delete"
    assert asked_action("and a single one?") == ""
    assert asked_action("how do I") == ""
    # A request that opens with its verb, done to what it points back to.
    assert asked_action("revoke one") == "revoke"
    assert asked_action("and now, cancel it") == "cancel"
    assert asked_action("comment on it") == "comment"
    # GitLab: "protect the main one" after listing branches read no action, and the branch's GET led.
    assert asked_action("protect the main one") == "protect"
    assert asked_action("and delete the old ones") == "delete"
    assert asked_action("does that work?") == asked_action("is it paginated?") == ""
    assert asked_action("only the distribution ones") == asked_action("what about it?") == ""


def test_the_asked_sentence_is_the_last_one() -> None:
    assert asked_sentence("ok it works. now how do I compress some files?") == "now how do I compress some files?"
    assert asked_sentence("oops, wrong amount. can I stop it?") == "can I stop it?"
    assert asked_sentence("one of them went on the wrong invoice, how do I reverse it?") == (
        "one of them went on the wrong invoice, how do I reverse it?")
    assert asked_sentence("version 1.2 of it?") == "version 1.2 of it?"


def test_one_points_to_a_member_there_not_to_one_yet_to_be_made() -> None:
    for question in ("how do I get a single one?", "delete one", "fetch one by its id", "one of them"):
        assert points_to_one(question), question
    for question in ("add a new one", "how do I create another one?", "New one please", "in one call", "one file"):
        assert not points_to_one(question), question


def test_the_word_a_request_opens_with() -> None:
    assert opening_word("approve the one from alice") == "approve"
    assert opening_word("and now archive it") == "archive"
    for question in ("how do I page through them?", "the same for folders", "is it paginated?"):
        assert opening_word(question) == "", question


def test_who_is_doing_a_write_requests_none() -> None:
    """Etherpad: "who is editing it?" after creating a pad was read as a request to edit the pad, and the answer said
    there is no endpoint to edit one."""
    assert requested_write("who is editing it?") is None
    assert requested_write("we are creating a user, which fields are required?") is not None


def test_an_rpc_segment_names_its_verb_and_the_resource_after_it() -> None:
    """Etherpad's `/createPad`, `/deletePad`: "delete it" after creating a pad wrote "create pad" records."""
    from rag.corpus.paths import segment_action

    assert segment_action("createPad") == ("create", ["pad"])
    assert segment_action("product.delete") == ("delete", ["product"])
    assert segment_action("new-releases") == ("", ["new", "releases"])  # a noun, its words joined by a hyphen
    assert segment_action("pads") == ("", ["pads"])


def test_a_state_after_as_and_all_of_what_is_pointed_back_to_ask_no_method() -> None:
    """Crucible: "mark them all as read" after reading a review's comments read as a GET ("all", "read"), so the
    comments' GET kept leading over `POST …/comments/markAllAsRead`."""
    from rag.question_analysis import question_methods

    assert question_methods("mark them all as read") == set()
    assert question_methods("delete all of them") == {"delete"}
    assert question_methods("list all employees") == {"get"}
