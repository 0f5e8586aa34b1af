"""The confidence gate on hand-made profiles (pure)."""

from __future__ import annotations

from collections import Counter

from rag.abstain import (
    GateThresholds,
    calibrate,
    decide,
    identifiers_in,
    named_paths,
    out_of_scope_prototypes,
    salient_terms,
    unindexed_api_names,
)
from rag.corpus.paths import path_shape
from rag.corpus.profile import CorpusProfile
from rag.names import names_and_values
from rag.query import Query


def profile() -> CorpusProfile:
    vocabulary = {"employee", "employees", "list", "session", "expires_in", "expires", "connect", "default", "hris"}
    return CorpusProfile(
        generation=1,
        apis=["hris", "stackone"],
        term_apis={"hris": Counter()},
        vocabulary=vocabulary,
        api_titles={"hris": "HRIS", "stackone": "StackOne"},
    )


def test_salient_terms_and_identifiers() -> None:
    assert salient_terms("How do I list the employees?") == ["employees"]
    assert identifiers_in("What does `blood_type` mean, or createdAt and x-account-id?") == [
        "blood_type",
        "createdAt",
        "x-account-id",
    ]


def test_well_matched_question_is_answered() -> None:
    decision = decide("What is the default expires_in of a connect session?", 0.55, profile())
    assert decision.tier == "answer" and decision.score > 0.5


def test_low_similarity_abstains_and_middle_is_partial() -> None:
    thresholds = GateThresholds(abstain_below=0.25, partial_below=0.40)
    assert decide("list employees", 0.10, profile(), thresholds).tier == "abstain"
    assert decide("list employees", 0.33, profile(), thresholds).tier == "partial"


def test_unknown_identifier_abstains_even_when_similar() -> None:
    decision = decide("What does the employee blood_type field contain?", 0.6, profile())
    assert decision.tier == "abstain"
    assert any("blood_type" in reason for reason in decision.reasons)


def test_out_of_scope_prototype_wins_only_above_the_floor_and_margin() -> None:
    assert decide("How much does StackOne cost?", 0.42, profile(), out_of_scope_similarity=0.62).tier == "abstain"
    # Closer to the prototype, but not by the margin: a paraphrase may sit near a prototype.
    assert decide("How much does StackOne cost?", 0.42, profile(), out_of_scope_similarity=0.55).tier == "answer"
    assert decide("How much does StackOne cost?", 0.30, profile(), out_of_scope_similarity=0.38).tier != "abstain"


def test_the_prototype_rule_compares_with_the_closest_summary_too() -> None:
    # A request naming a song sits near "lyrics of a famous song" and far from every long chunk, but an
    # operation's summary ("Get a track") is close enough: not out of scope.
    question = "Who sings Take On Me?"
    assert decide(question, 0.26, profile(), out_of_scope_similarity=0.47).tier == "abstain"
    assert decide(question, 0.26, profile(), out_of_scope_similarity=0.47, summary_similarity=0.34).tier != "abstain"


def test_no_operation_close_abstains_only_when_every_signal_is_weak() -> None:
    question = "How do I book a flight from London to Madrid?"
    far = decide(question, 0.30, profile(), out_of_scope_similarity=0.30, summary_similarity=0.15)
    assert far.tier == "abstain" and any("no operation does this" in reason for reason in far.reasons)
    # An operation's summary close to the question: answered (0.25 - 0.15 is above the cut).
    assert decide(question, 0.30, profile(), out_of_scope_similarity=0.30, summary_similarity=0.25).tier != "abstain"
    # A chunk that matches strongly (a schema, a change between versions) though no summary does.
    assert decide(question, 0.60, profile(), out_of_scope_similarity=0.30, summary_similarity=0.15).tier != "abstain"
    # Without operations (a docs-only index) there is no summary to compare with: the check is off.
    assert decide(question, 0.30, profile(), out_of_scope_similarity=0.30).tier != "abstain"
    # Off where the model has no calibrated figures for it.
    switched_off = GateThresholds(no_operation_below=None)
    assert decide(question, 0.30, profile(), switched_off, 0.30, summary_similarity=0.15).tier != "abstain"


def test_what_changed_since_a_named_version_is_no_operation_s_so_no_summary_is_evidence() -> None:
    """"What changed in the LMS API since the 2025-02 version?" is answered by a change chunk, and no operation's
    summary describes a change: searched without "LMS", it was abstained as far from every summary."""
    question = "What changed in the LMS API since the 2025-02 version?"
    assert decide(question, 0.40, profile(), out_of_scope_similarity=0.30, summary_similarity=0.15).tier == "abstain"
    assert decide(question, 0.40, profile(), out_of_scope_similarity=0.30, summary_similarity=0.15,
                  asks_changes=True).tier != "abstain"


def test_no_operation_close_never_overrules_a_named_known_identifier() -> None:
    question = "What is the default `expires_in` of a connect session?"
    decision = decide(question, 0.30, profile(), out_of_scope_similarity=0.30, summary_similarity=0.10)
    assert decision.tier != "abstain"


def test_a_follow_up_is_never_abstained_for_a_weak_summary_match() -> None:
    decision = decide("and the orders?", 0.30, profile(), out_of_scope_similarity=0.30, elliptical=True,
                      summary_similarity=0.10)
    assert decision.tier != "abstain"


def test_unindexed_api_names() -> None:
    assert unindexed_api_names("How do I list tickets from the StackOne ticketing API?", profile()) == ["ticketing"]
    assert unindexed_api_names("Does the HRIS API paginate?", profile()) == []
    assert unindexed_api_names("Show me the REST API", profile()) == []


def rich_profile() -> CorpusProfile:
    vocabulary = {
        "employee", "employees", "list", "endpoint", "hris", "data", "query", "querying", "api", "crm_list_lists",
        "crm", "lists", "request", "requests", "header", "session", "workflow", "user", "users", "remove",
    }  # fmt: skip
    return CorpusProfile(generation=1, apis=["hris", "crm"], term_apis={}, vocabulary=vocabulary)


def test_ordinary_words_are_never_evidence_and_foreign_ones_only_make_a_weak_match_partial() -> None:
    decision = decide("Does the HRIS API host employee data in an Australian data centre?", 0.44, rich_profile())
    assert decision.tier == "partial"
    assert "australian" not in decision.unknown_terms  # a name, not a topic
    assert decide("How do I see everyone on vacation?", 0.5, rich_profile()).tier == "answer"
    # One word the docs never use is no evidence at all; the gate names it.
    restricted = decide("How do I restrict the list to three employees under one header?", 0.5, rich_profile())
    assert restricted.tier == "answer" and restricted.unknown_terms == ("restrict",)


def test_a_follow_up_is_judged_on_its_own_words() -> None:
    query = Query(
        "and how do I remove one of them?",
        previous="How do I list the users of a SaaS app? | earlier answer: GET /users returns UsersPaginated.",
    )
    assert decide(query, 0.63, rich_profile()).tier == "answer"


def spec_profile() -> CorpusProfile:
    """A profile with real paths, as `build_profile` makes them."""
    paths = ["/unified/hris/time_off_policies", "/unified/hris/employees/{id}", "/mcp", "/users/{user_id}/playlists"]
    vocabulary = {
        "time_off_policies", "time", "off", "policies", "policy", "employees", "employee", "mcp", "users", "user",
        "playlists", "playlist", "add", "track", "tracks", "songs", "song", "search", "album", "list", "hris",
        "expires_in", "expires", "x-account-id", "account", "hris_list_employees", "spotify", "queue", "play",
    }  # fmt: skip
    profile = CorpusProfile(generation=1, apis=["hris", "spotify"], term_apis={}, vocabulary=vocabulary)
    profile.path_shapes = frozenset(path_shape(p) for p in paths)
    profile.structural_terms = {"hris", "spotify", "employee", "playlist", "user", "mcp", "time_off_policies"}
    return profile


def test_paths_that_exist_are_recognised_in_every_form() -> None:
    profile = spec_profile()
    for question in (
        "What does GET /unified/hris/time_off_policies return?",
        "Which scopes does `/unified/hris/employees/{employee_id}` need?",
        "What is the /mcp endpoint for?",
        "Can I call /users/smedjan/playlists to see someone's playlists?",
        "What does `hris_list_employees` return?",
    ):
        decision = decide(question, 0.5, profile)
        assert decision.tier == "answer", (question, decision.reasons)
    assert named_paths("Call GET /unified/hris/employees/{id} then /mcp.") == ["/unified/hris/employees/{id}", "/mcp"]


def test_a_path_or_identifier_that_does_not_exist_abstains() -> None:
    profile = spec_profile()
    decision = decide("What does GET /unified/hris/payslips return?", 0.6, profile)
    assert decision.tier == "abstain" and any("/unified/hris/payslips" in r for r in decision.reasons)
    assert decide("What does the `blood_type` field of an employee hold?", 0.6, profile).tier == "abstain"
    # Every word of the identifier is known: unsure, so partial rather than abstain.
    assert decide("What does the employee_time field hold?", 0.6, profile).tier == "partial"


def test_task_requests_full_of_names_and_values_are_answered() -> None:
    profile = spec_profile()
    for request in (
        "Make me a playlist containing three songs of Mariah Carey and name it 'Love Mariah'",
        "Add the first song of The Dark Side of the Moon to my playback queue",
        'Search for "Bohemian Rhapsody" and play it',
        "Add 2 tracks by Daft Punk to the playlist called Friday Night Vibes",
    ):
        decision = decide(request, 0.45, profile)
        assert decision.tier != "abstain", (request, decision.reasons)
    assert names_and_values("Add the first song of The Dark Side of the Moon") == ["The", "Dark", "Side", "Moon"]


def test_calibration_follows_the_index_and_never_gets_stricter_than_the_defaults() -> None:
    base = GateThresholds(abstain_below=0.25, partial_below=0.40)
    small = calibrate(base, [0.08, 0.09, 0.13, 0.14, 0.17, 0.18, 0.19, 0.22, 0.22, 0.23])
    assert small.abstain_below == 0.13 and small.partial_below == 0.23  # the lower quartile; the highest
    wordy = calibrate(base, [0.3, 0.5, 0.6, 0.7])
    assert wordy.abstain_below == 0.25 and wordy.partial_below == 0.40
    assert calibrate(base, []) == base
    assert len(out_of_scope_prototypes()) >= 5


def test_out_of_scope_questions_abstain_on_evidence_about_the_index() -> None:
    profile = spec_profile()
    calibrated = calibrate(GateThresholds(), [0.2] * 10)
    assert decide("What's the weather in Berlin?", 0.12, profile, calibrated).tier == "abstain"
    assert decide("How much does it cost?", 0.3, profile, out_of_scope_similarity=0.7).tier == "abstain"
    # An unknown identifier is named: the index does not have it.
    assert decide("What does the employee `payslip_pdf_url` field hold?", 0.6, profile).tier == "abstain"


def test_paraphrases_in_words_the_spec_never_uses_are_never_abstained() -> None:
    """People do not use a spec's vocabulary: unknown English words are at most a reason for `partial`."""
    profile = rich_profile()
    for question in (
        "Where do I find the personnel file of a staff member?",
        "How do I see who is on vacation next week?",
        "How do I hand over a worker's records to their new manager?",
        "What's the GraphQL endpoint for querying HRIS data?",
        "How many requests per minute can I send to the HRIS API?",
        "How do I book a meeting room through the HRIS API?",
    ):
        decision = decide(question, 0.45, profile)
        assert decision.tier in ("answer", "partial"), (question, decision.reasons)


def test_values_the_user_names_are_no_identifiers() -> None:
    assert identifiers_in("Email jane_doe@example.com the report at https://x.io/a_b for user_42") == []
    assert identifiers_in("Rename the playlist 'road_trip_mix'") == []
    assert identifiers_in("What does `user_42` mean and blood_type?") == ["user_42", "blood_type"]


def test_a_question_asked_of_the_whole_api_is_not_abstained_for_being_far_from_every_operation() -> None:
    """"what's the rate limit of hetzner?" abstained ("no operation does this") though Hetzner's description has a
    Rate Limiting section: no operation does what a rate limit or authentication question asks."""
    for question in ("what's the rate limit of stackone?", "how do I authenticate to stackone?"):
        decision = decide(question, 0.50, profile(), out_of_scope_similarity=0.26, summary_similarity=0.17)
        assert decision.tier != "abstain", decision.reasons
    # Nothing similar enough still abstains.
    assert decide("what's the rate limit of stackone?", 0.10, profile(), summary_similarity=0.17).tier == "abstain"


def test_a_question_asking_only_how_to_authenticate_is_asked_of_the_indexed_apis() -> None:
    """Seven of ten public specs uploaded alone declare a security scheme, yet "how do I authenticate?" abstained:
    far from every operation's summary, and closer to the out-of-scope request about a dashboard's login. Naming
    nothing but how to authenticate, it asks it of the indexed APIs; a request of its own still abstains."""
    asked = {"out_of_scope_similarity": 0.46, "summary_similarity": 0.20}
    for question in ("how do I authenticate?", "how do I get an access token?", "what auth does it use?"):
        decision = decide(question, 0.30, profile(), **asked)
        assert decision.tier != "abstain", (question, decision.reasons)
    for question in ("how do I authenticate with facebook?", "How do I reset my password?",
                     "How do I turn on two-factor authentication?"):
        assert decide(question, 0.30, profile(), **asked).tier == "abstain", question
