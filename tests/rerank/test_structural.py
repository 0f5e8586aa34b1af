"""The structural reranker's features on hand-made operation chunks (pure, no index)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag.query import Query
from rag.rerank.base import apply_scores
from rag.rerank.structural import (
    StructuralReranker,
    container_nouns,
    fuse_with_first_stage,
    lift_payload_operations,
    operation_target,
    parent_words,
    resource_match,
)
from rag.results import RetrievedChunk
from rag.retrieve.synonyms import expand_query, load_glossary
from tests.fakes import make_chunk


def operation(method: str, path: str, api: str = "crm") -> RetrievedChunk:
    structural_id = f"{api}.paths.{path}.{method}"
    chunk = make_chunk(structural_id, f"{method.upper()} {path}", kind="operation")
    return RetrievedChunk(replace(chunk, path=path, method=method))


def schema(name: str, api: str = "crm", payload_of: tuple[str, ...] = ()) -> RetrievedChunk:
    chunk = make_chunk(f"{api}.components.{name}", f"{name} schema")
    return RetrievedChunk(replace(chunk, payload_of=payload_of))


def top(question: Query | str, candidates: list[RetrievedChunk]) -> str:
    ranked = apply_scores(candidates, StructuralReranker().evidence(question, candidates))
    return ranked[0].chunk.covers[0]


def test_one_item_or_the_collection_is_left_to_the_first_stage() -> None:
    """English grammatical number ("an account" / "accounts") is no evidence: between the item and the
    collection of the resource asked about, the retriever's order stands (it cost the blinded sets MRR)."""
    for question in ("How do I fetch an account from the CRM?", "How do I fetch accounts from the CRM?"):
        collection, item = operation("get", "/unified/crm/accounts"), operation("get", "/unified/crm/accounts/{id}")
        assert top(question, [collection, item]).endswith("accounts.get")
        collection, item = operation("get", "/unified/crm/accounts"), operation("get", "/unified/crm/accounts/{id}")
        assert top(question, [item, collection]).endswith("accounts/{id}.get")


def test_creating_one_item_uses_the_collection_path() -> None:
    """"Create an employee" is a POST on the collection, not a read of one employee."""
    candidates = [
        operation("get", "/unified/hris/employees/{id}", "hris"),
        operation("post", "/unified/hris/employees", "hris"),
    ]
    assert top("What do I get back after creating an employee?", candidates).endswith("employees.post")


def test_a_nested_path_needs_its_parent_named() -> None:
    """/connect_sessions/authenticate answers "session authentication", not "authenticate against HRIS"."""
    reranker = StructuralReranker()
    nested = operation("post", "/connect_sessions/authenticate", "stackone")
    unnested = operation("post", "/authenticate", "stackone")
    plain, penalised = reranker.evidence("How do I authenticate against the HRIS API?", [unnested, nested])
    named = reranker.evidence("How do I authenticate a connect session?", [unnested, nested])[1]
    assert penalised < named and penalised < plain
    nested = operation("post", "/connect_sessions/authenticate", "stackone")
    create = operation("post", "/connect_sessions", "stackone")
    assert top("Can you explain the connect session authentication?", [create, nested]).endswith("authenticate.post")
    assert parent_words("/unified/ats/jobs/{id}/application_stages", frozenset({"unified"})) == ("ats", "job")
    assert parent_words("/unified/ats/jobs/{id}/application_stages", frozenset({"unified", "ats"})) == ("job",)


def test_endpoint_questions_prefer_operations_over_schemas() -> None:
    candidates = [
        schema("CustomFieldDefinition", "hris"),
        operation("get", "/unified/hris/custom_field_definitions/employees", "hris"),
    ]
    assert top("Which APIs have custom field definition endpoints?", candidates).startswith("hris.paths.")


def test_glossary_words_count_less_than_the_users_own_words() -> None:
    """ "customer" adds account and contact; the user wrote "account", so accounts win."""
    question = expand_query("What API call should I use to retrieve customer account info?", (load_glossary("hr"),))
    assert question.expansions
    assert question.standalone == "What API call should I use to retrieve customer account info?"
    reranker = StructuralReranker()
    accounts = reranker.evidence(question, [operation("get", "/unified/crm/accounts/{id}")])[0]
    contacts = reranker.evidence(question, [operation("get", "/unified/crm/contacts/{id}")])[0]
    assert accounts > contacts


def test_a_follow_up_takes_its_verb_from_the_new_question() -> None:
    query = Query(
        "and how do I remove one of them?",
        previous="How do I list the users of the IAM API? | earlier answer: GET /unified/iam/users returns "
        "IamUsersPaginated.",
    )
    candidates = [operation("get", "/unified/iam/users", "iam"), operation("delete", "/unified/iam/users/{id}", "iam")]
    assert top(query, candidates).endswith("users/{id}.delete")


def test_a_schema_that_is_one_operations_payload_lifts_that_operation() -> None:
    """ProxyResponseApiModel is only POST /unified/proxy's response: asked "can I call the provider's
    own API?", the operation (which holds the schema's fields too) goes above the schema."""
    question = "Can I hit the provider's own API through StackOne?"
    proxy = "stackone.paths./unified/proxy.post"

    def order(payload_of: tuple[str, ...]) -> list[str]:
        candidates = [
            schema("ProxyResponseApiModel", "stackone", payload_of=payload_of),
            *(schema(f"Other{n}", "stackone") for n in range(5)),
            operation("get", "/accounts", "stackone"),
            operation("post", "/unified/proxy", "stackone"),
        ]
        scores = StructuralReranker().evidence(question, candidates)
        return [c.chunk.covers[0] for c in apply_scores(candidates, scores)]

    response = "stackone.components.ProxyResponseApiModel"
    lifted, unlifted = order((proxy,)), order(())
    assert lifted.index(proxy) < lifted.index(response)
    assert unlifted.index(proxy) > unlifted.index(response)


def test_no_lift_for_shared_payloads_low_schemas_or_field_questions() -> None:
    first, second = "crm.paths./unified/crm/contacts.get", "crm.paths./unified/crm/contacts/{id}.get"
    shared = [schema("Contact", payload_of=(first, second)), operation("get", "/unified/crm/contacts")]
    scores = [2.0, 1.0]
    lift_payload_operations(shared, scores, depth=3)
    assert scores == [2.0, 1.0]
    page = schema("ContactsPaginated", payload_of=(first,))
    deep = [schema("A"), schema("B"), page, operation("get", "/unified/crm/contacts")]
    scores = [4.0, 3.0, 2.0, 1.0]
    lift_payload_operations(deep, scores, depth=2)
    assert scores == [4.0, 3.0, 2.0, 1.0]
    lift_payload_operations(deep, scores, depth=3)
    assert scores[3] == pytest.approx(2.01)
    page = schema("ContactsPaginated", payload_of=(first,))
    candidates = [page, operation("get", "/unified/crm/contacts")]
    assert top("Which fields does ContactsPaginated have?", candidates) == "crm.components.ContactsPaginated"


def test_product_names_are_not_identifiers_and_generated_suffixes_are_not_words() -> None:
    """ "StackOne" must not count as an identifier found in every chunk, and "model" in a question
    must not match the `ApiModel` suffix of generated schema names."""
    reranker = StructuralReranker()
    prior_gap = 1.0 - 1 / 1.25  # first vs second place, nothing else differs
    suffixed = [schema("ProxyResponseApiModel", "stackone"), schema("UnifiedLogs", "stackone")]
    first, second = reranker.evidence("The unified model lacks a field; what can I do?", suffixed)
    assert first - second == pytest.approx(prior_gap - 0.4)  # "unified" names UnifiedLogs; "model" names nothing
    mentions = RetrievedChunk(make_chunk("stackone.components.A", "Accounts linked in StackOne"))
    first, second = reranker.evidence("How does StackOne link accounts?", [mentions, schema("B", "stackone")])
    assert first - second == pytest.approx(prior_gap)
    header = RetrievedChunk(make_chunk("stackone.components.A", "the x-account-id header"))
    first, second = reranker.evidence("where does x-account-id go?", [header, schema("B", "stackone")])
    assert first - second == pytest.approx(prior_gap + 0.5)


def test_the_main_resource_is_the_example_when_no_resource_is_named() -> None:
    """ "Which header … the HRIS endpoints" names no resource: every operation has the header, and the
    API's main resource (the one with the most operations) is the example; a named resource wins."""
    prefixes = (("hris", frozenset({"unified", "hris"})),)
    knows_main = StructuralReranker(main_resources=frozenset({("hris", "employees")}), prefixes=prefixes)
    plain = StructuralReranker(prefixes=prefixes)

    def bonus(question: str) -> list[float]:
        candidates = [
            operation("get", "/unified/hris/benefits", "hris"),
            operation("get", "/unified/hris/employees", "hris"),
        ]
        with_main, without = knows_main.evidence(question, candidates), plain.evidence(question, candidates)
        return [round(a - b, 6) for a, b in zip(with_main, without, strict=True)]

    assert bonus("Which header tells the HRIS endpoints which account to use?") == [0.0, 0.2]
    assert bonus("How do I list benefits?") == [0.0, 0.0]
    assert bonus("How do I list employees?") == [0.0, 0.0]
    # Only a tie-breaker near the top: an operation deep in the first-stage pool is left where it is.
    deep = [*(schema(f"S{n}", "hris") for n in range(10)), operation("get", "/unified/hris/employees", "hris")]
    question = "Which header tells the HRIS endpoints which account to use?"
    assert knows_main.evidence(question, deep)[-1] == plain.evidence(question, deep)[-1]


@pytest.mark.parametrize(
    ("question", "containers"),
    [
        ("Add the song Hey Jude to my playlist Sixties Gems", {"playlist"}),
        ("How do I add a note to an application?", {"application"}),
        ("Move the candidate into the new stage", {"stage"}),
        ("Delete all albums by Nickelback from my saved albums", set()),  # the albums are what is deleted
        ("Set my player to repeat the current track", set()),  # an infinitive, not a container
    ],
)
def test_containers_are_nouns_things_are_put_into_or_taken_from(question: str, containers: set[str]) -> None:
    assert container_nouns(question) == containers


def test_adding_to_a_container_prefers_the_containers_items_over_creating_it() -> None:
    candidates = [
        operation("post", "/users/{user_id}/playlists", api="music"),
        operation("post", "/playlists/{playlist_id}/tracks", api="music"),
    ]
    assert top("Add the song Hey Jude to my playlist Sixties Gems", candidates) == (
        "music.paths./playlists/{playlist_id}/tracks.post"
    )
    # Creating the playlist itself is still the playlist's own operation.
    assert top("Create a new playlist called Sixties Gems", candidates) == "music.paths./users/{user_id}/playlists.post"


def test_one_word_of_a_kebab_case_resource_is_named_like_one_of_a_snake_case_one() -> None:
    candidates = [
        operation("get", "/albums/{id}", "spotify"),
        operation("get", "/artists/{id}/related-artists", "spotify"),
    ]
    assert top("Which endpoint gives the artists related to an artist?", candidates).endswith("related-artists.get")
    assert resource_match("new-release", set(), {"release", "releases"}, set(), set(), 0.75) == 0.5
    assert resource_match("new-release", set(), {"album"}, set(), set(), 0.75) == 0.0


def test_a_schema_named_as_one_compound_word_beats_operations_on_its_resource() -> None:
    candidates = [
        operation("get", "/hris/time-off-requests", "hris"),
        operation("patch", "/hris/time-off-requests/{id}", "hris"),
        schema("TimeOffRequestsFilter", "hris"),
    ]
    question = "What values are allowed for `time_off_request_status` in TimeOffRequestsFilter?"
    assert top(question, candidates) == "hris.components.TimeOffRequestsFilter"
    # A plain word names the resource, not its schema: "create a campaign" wants the operation.
    campaigns = [operation("post", "/marketing/campaigns", "marketing"), schema("Campaign", "marketing")]
    assert top("How do I create a new campaign?", campaigns).startswith("marketing.paths.")


def test_a_path_the_question_names_is_the_operation_it_asks_about() -> None:
    base = "/2010-04-01/Accounts/{AccountSid}/Usage/Records"
    candidates = [operation("get", f"{base}.json", "twilio"), operation("get", f"{base}/Today.json", "twilio")]
    question = f"Which parameters must I always send to call GET {base}/Today.json?"
    assert top(question, candidates).endswith("Records/Today.json.get")


def test_a_schema_name_with_dots_named_whole_beats_operations_on_its_resource() -> None:
    candidates = [
        operation("get", "/2010-04-01/Accounts/{AccountSid}/Recordings/{Sid}.json", "twilio"),
        schema("api.v2010.account.recording", "twilio"),
    ]
    question = "What values are allowed for `status` in api.v2010.account.recording?"
    assert top(question, candidates) == "twilio.components.api.v2010.account.recording"


def test_how_to_authenticate_is_answered_by_the_security_schemes_unless_a_resource_is_named() -> None:
    overview = make_chunk("twilio.overview", "Twilio API: HTTP basic auth with the account SID", kind="overview")
    overview = replace(overview, covers=("twilio.overview", "twilio.components.securitySchemes.accountSid_authToken"))
    calls = operation("post", "/Accounts/{AccountSid}/Calls.json", "twilio")
    assert top("How do I authenticate my requests to the Twilio API?", [calls, RetrievedChunk(overview)]) == (
        "twilio.overview"
    )
    sessions = operation("post", "/connect_sessions/authenticate", "stackone")
    question = "Which call authenticates a connect session?"
    assert top(question, [sessions, RetrievedChunk(overview)]).endswith("authenticate.post")


def test_the_evidence_reorders_the_first_stage_only_through_rank_fusion() -> None:
    """Evidence that swaps two neighbours ties (the first stage keeps its order); evidence that ranks the
    third candidate first lifts it above the second, not above the first it only narrowly beats."""
    assert fuse_with_first_stage([0.1, 0.9], 60)[0] == fuse_with_first_stage([0.1, 0.9], 60)[1]
    fused = fuse_with_first_stage([0.8, 0.2, 0.9], 60)
    assert sorted(range(3), key=lambda i: -fused[i]) == [0, 2, 1]
    candidates = [operation("get", "/contacts"), operation("post", "/contacts"), operation("delete", "/contacts/{id}")]
    scores = StructuralReranker().score("How do I create a contact?", candidates)
    assert scores == fuse_with_first_stage(StructuralReranker().evidence("How do I create a contact?", candidates), 60)


def test_a_post_to_a_verb_segment_is_that_write_on_the_segment_before_it() -> None:
    """RPC-style paths: `POST /words/delete` deletes words, `POST /joke/tags/add` adds tags; a GET that ends in
    a verb-like word (`/domains/updates/added`) and a plain collection keep their own method and resource."""
    assert operation_target(operation("post", "/words/delete").chunk) == ("word", frozenset({"delete"}))
    assert operation_target(operation("post", "/joke/tags/add").chunk) == ("tag", frozenset({"post", "put"}))
    assert operation_target(operation("get", "/domains/updates/added").chunk) == ("added", frozenset({"get"}))
    assert operation_target(operation("post", "/words").chunk) == ("word", frozenset({"post"}))
    assert operation_target(operation("post", "/check").chunk) == ("check", frozenset({"post"}))
    listing, deleting = operation("get", "/words", "spell"), operation("post", "/words/delete", "spell")
    assert top("Remove a word from my personal dictionary", [listing, deleting]).endswith("/words/delete.post")


def test_an_id_written_as_a_name_and_a_fragment_leave_the_resource_readable() -> None:
    """Discord's `…/reactions/{emoji_name}/@me` acts on reactions (the `@me` stands for the caller's id), and
    Box's `PUT /files/{file_id}#add_shared_link` adds a shared link to a file."""
    reactions = "/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}"
    candidates = [
        operation("get", "/channels/{channel_id}/messages/{message_id}", "discord"),
        operation("delete", reactions, "discord"),
        operation("put", reactions + "/@me", "discord"),
    ]
    assert top("How do I add a reaction to a message?", candidates).endswith("/@me.put")
    candidates = [
        operation("put", "/files/{file_id}", "box"),
        operation("put", "/files/{file_id}#remove_shared_link", "box"),
        operation("put", "/files/{file_id}#add_shared_link", "box"),
    ]
    assert top("How do I create a shared link for a file?", candidates).endswith("#add_shared_link.put")
    assert top("How can I remove the shared link from a file?", candidates).endswith("#remove_shared_link.put")
