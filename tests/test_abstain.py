"""The confidence gate on hand-made profiles (pure)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.abstain import (
    GateThresholds,
    calibrate,
    decide,
    identifiers_in,
    named_paths,
    out_of_scope_prototypes,
    rare_terms,
    salient_terms,
    unindexed_api_names,
)
from rag.corpus.paths import path_shape
from rag.corpus.profile import CorpusProfile
from rag.lexicon import Lexicon, load_lexicon
from rag.names import names_and_values
from rag.query import Query
from tests.fakes import write_wordnet


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
    assert decide("How much does StackOne cost?", 0.42, profile(), out_of_scope_similarity=0.55).tier == "abstain"
    assert decide("How much does StackOne cost?", 0.42, profile(), out_of_scope_similarity=0.44).tier == "answer"


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


def test_a_question_presupposing_an_unmentioned_technology_abstains() -> None:
    decision = decide("What's the GraphQL endpoint for querying HRIS data?", 0.62, rich_profile())
    assert decision.tier == "abstain"
    assert any("graphql" in reason for reason in decision.reasons)
    # A yes/no question about it can be answered from what the docs do say.
    assert decide("Does the HRIS API have a GraphQL endpoint?", 0.62, rich_profile()).tier == "partial"


def test_compounds_of_common_words_and_adverbs_are_not_exotic_terms() -> None:
    assert rare_terms(["graphql", "timeout", "workflow", "kubernetes"]) == ["graphql", "kubernetes"]
    assert decide("How do I programmatically list employees?", 0.6, rich_profile()).tier == "answer"


def test_ordinary_words_are_never_evidence_and_foreign_ones_only_make_a_weak_match_partial() -> None:
    decision = decide("Does the HRIS API host employee data in an Australian data centre?", 0.44, rich_profile())
    assert decision.tier == "partial"
    assert "australian" not in decision.unknown_terms  # a name, not a topic
    assert decide("How do I see everyone on vacation?", 0.5, rich_profile()).tier == "answer"
    assert decide("How do I restrict the list to three employees under one header?", 0.5, rich_profile()).tier in (
        "answer",
        "partial",
    )


def test_naming_a_known_identifier_keeps_a_question_in_scope() -> None:
    question = "How can I integrate crm_list_lists into our orchestration pipeline?"
    assert decide(question, 0.46, rich_profile()).tier == "answer"
    assert decide("How can I integrate lists into our orchestration pipeline?", 0.44, rich_profile()).tier == "abstain"


def test_a_rate_the_docs_never_state_abstains() -> None:
    question = "How many requests per minute can I send to the HRIS API?"
    assert decide(question, 0.55, rich_profile()).tier == "abstain"
    stated = rich_profile()
    stated.rate_units.add("minute")
    assert decide(question, 0.55, stated).tier == "answer"


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


def test_real_out_of_scope_questions_abstain() -> None:
    profile = spec_profile()
    assert decide("What's the weather in Berlin?", 0.12, profile, calibrate(GateThresholds(), [0.2] * 10)).tier == (
        "abstain"
    )
    assert decide("How do I mint an NFT for an employee?", 0.5, profile).tier == "abstain"
    assert decide("How do I deploy it with the Kubernetes Helm SDK?", 0.5, profile).tier == "abstain"
    assert decide("How much does it cost?", 0.3, profile, out_of_scope_similarity=0.7).tier == "abstain"


def test_calibration_follows_the_index_and_never_gets_stricter_than_the_defaults() -> None:
    base = GateThresholds(abstain_below=0.25, partial_below=0.40)
    small = calibrate(base, [0.08, 0.09, 0.13, 0.14, 0.17, 0.18, 0.19, 0.22, 0.22, 0.23])
    assert small.abstain_below == 0.18 and small.partial_below == 0.23
    wordy = calibrate(base, [0.3, 0.5, 0.6, 0.7])
    assert wordy.abstain_below == 0.25 and wordy.partial_below == 0.40
    assert calibrate(base, []) == base
    assert len(out_of_scope_prototypes()) >= 5


def tiny_lexicon(directory: Path, **tables: Any) -> Lexicon:
    """A WordNet of the given tables (see tests.fakes.write_wordnet), read back."""
    lexicon = load_lexicon(write_wordnet(directory, **tables))
    assert lexicon is not None
    return lexicon


def english(tmp_path: Path) -> Lexicon:
    return tiny_lexicon(
        tmp_path / "wordnet",
        nouns={
            "room": [("noun.artifact", ["chamber"], 40)],
            "ledger": [("noun.possession", ["book"], 3)],
            "hour": [("noun.time", ["hr"], 20)],
            "scenario": [("noun.communication", ["script"], 2)],
            "listing": [("noun.communication", ["list"], 1)],
            "album": [("noun.communication", [], 5)],
        },
        verbs={"extend": 18},
        adjectives={"mandatory": 2, "certain": 8},
    )


def test_a_thing_the_docs_never_mention_abstains_in_a_docs_question(tmp_path: Path) -> None:
    lexicon = english(tmp_path)
    decision = decide("How do I book a meeting room through the HRIS API?", 0.5, profile(), lexicon=lexicon)
    assert decision.tier == "abstain"
    assert any("room" in reason for reason in decision.reasons)
    # Without the lexicon the same question is only a weak match: the rule needs English.
    assert decide("How do I book a meeting room through the HRIS API?", 0.5, profile()).tier != "abstain"


def test_words_that_say_how_or_when_are_never_things_asked_for(tmp_path: Path) -> None:
    lexicon = english(tmp_path)
    for question in (
        "Which fields are mandatory when I list employees?",  # an adjective
        "How do I extend an employee session?",  # a verb
        "What employees were listed in the last hour?",  # a noun of time
        "In what scenario would I list employees?",  # the kind of answer asked for
        "How do I list employee listings?",  # a synonym the docs use (list)
        "Which employee room fields exist?",  # a modifier, not the head of its phrase
    ):
        assert decide(question, 0.5, profile(), lexicon=lexicon).tier != "abstain", question


def test_a_task_request_naming_its_own_values_is_not_refused_for_a_foreign_noun(tmp_path: Path) -> None:
    lexicon = english(tmp_path)
    assert decide("What is the album of the employee Mariah Carey?", 0.5, profile(), lexicon=lexicon).tier != "abstain"
    # A name the index itself uses (its API's title) is no value of the user's world.
    decision = decide("Which endpoint writes employees to a ledger in HRIS?", 0.5, profile(), lexicon=lexicon)
    assert decision.tier == "abstain"


def test_is_there_a_thing_the_docs_never_mention_abstains_but_a_derived_word_is_known(tmp_path: Path) -> None:
    lexicon = english(tmp_path)
    assert decide("Is there a way to book a meeting room for employees?", 0.5, profile(), lexicon=lexicon).tier == (
        "abstain"
    )
    invited = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"hris": Counter()},
        vocabulary={"employee", "employees", "invite", "send", "hire"}, api_titles={"hris": "HRIS"},
    )  # fmt: skip
    with_invitation = load_lexicon(
        write_wordnet(tmp_path / "wordnet-2", nouns={"invitation": [("noun.communication", [], 9)]})
    )
    question = "Is there an endpoint to send a new hire their invitation?"
    assert decide(question, 0.5, invited, lexicon=with_invitation).tier != "abstain"


def things_lexicon(tmp_path: Path) -> Lexicon:
    return tiny_lexicon(
        tmp_path / "wordnet-things",
        nouns={
            "drone": [("noun.artifact", ["pilotless_aircraft"], 2)],
            "delivery": [("noun.act", ["bringing"], 9)],
            "ledger": [("noun.possession", ["book"], 3)],
            "staff": [("noun.group", ["faculty"], 12)],
        },
        verbs={"schedule": 20},
    )


def test_two_things_the_docs_never_mention_abstain_even_when_none_heads_its_phrase(tmp_path: Path) -> None:
    lexicon = things_lexicon(tmp_path)
    # `blockchain` is in no lexicon (common words joined), `drone` modifies the next word.
    question = "Which endpoint sends employees through a blockchain drone relay?"
    decision = decide(question, 0.5, profile(), lexicon=lexicon)
    assert decision.tier == "abstain"
    assert "blockchain" in decision.reasons[-1] and "drone" in decision.reasons[-1]
    # One modifier of a head naming part of the API is no evidence to abstain on ("hiring pipeline stages"
    # is in scope).
    delivering = profile()
    delivering.vocabulary |= {"delivery", "schedule"}
    delivering.structural_terms |= {"delivery"}
    single = decide("How do I schedule a drone delivery for an employee?", 0.5, delivering, lexicon=lexicon)
    assert single.tier != "abstain", single.reasons
    # A task request is never judged this way: its unfamiliar words are values.
    assert decide("Send employees through a blockchain drone relay", 0.5, profile(), lexicon=lexicon).tier != "abstain"


def test_a_synonym_counts_only_where_it_names_part_of_the_api(tmp_path: Path) -> None:
    lexicon = things_lexicon(tmp_path)
    wordy = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"hris": Counter()}, api_titles={"hris": "HRIS"},
        vocabulary={"employee", "employees", "list", "book", "write", "writes", "endpoint"},
    )  # fmt: skip
    question = "Which endpoint writes employees to a ledger?"
    # A description somewhere uses `book`: that says nothing of ledgers.
    assert decide(question, 0.5, wordy, lexicon=lexicon).tier == "abstain"
    named = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"hris": Counter()}, api_titles={"hris": "HRIS"},
        vocabulary=wordy.vocabulary, structural_terms={"book", "employee"},
    )  # fmt: skip
    assert decide(question, 0.5, named, lexicon=lexicon).tier != "abstain"


class StaffMeansEmployee:
    """The index's naming vocabulary as a fake: `staff` is close to `employee`, nothing else is."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def close(self, terms: Sequence[str], threshold: float) -> set[str]:
        self.asked.append(list(terms))
        return {t for t in terms if t == "staff" and threshold <= 0.63}


def test_a_word_close_in_meaning_to_a_naming_word_is_no_foreign_thing(tmp_path: Path) -> None:
    lexicon = things_lexicon(tmp_path)
    question = "How do I list the staff of the HRIS?"
    assert decide(question, 0.5, profile(), lexicon=lexicon).tier == "abstain"
    meanings = StaffMeansEmployee()
    assert decide(question, 0.5, profile(), lexicon=lexicon, meanings=meanings).tier != "abstain"
    assert ["staff"] in meanings.asked
    strict = GateThresholds(synonym_similarity=0.9)
    assert decide(question, 0.5, profile(), strict, lexicon=lexicon, meanings=meanings).tier == "abstain"


def test_a_foreign_modifier_of_an_unknown_head_and_a_foreign_action_beside_a_thing_abstain(tmp_path: Path) -> None:
    lexicon = tiny_lexicon(
        tmp_path / "wordnet-phrases",
        nouns={"crossword": [("noun.communication", [], 1)], "vinyl": [("noun.substance", [], 2)],
               "drone": [("noun.artifact", [], 2)]},
        verbs={"generate": 9, "press": 12, "puzzle": 3, "schedule": 20},
    )  # fmt: skip
    # `crossword` modifies `puzzle`, which the docs do not use either: the whole phrase is foreign.
    crossword = decide("What endpoint generates a crossword puzzle from employees?", 0.5, profile(), lexicon=lexicon)
    assert crossword.tier == "abstain" and "crossword" in crossword.reasons[-1], crossword.reasons
    # An action the docs never describe (`press`) beside a foreign thing (`vinyl`).
    pressed = decide("Does the HRIS API press employees onto vinyl records?", 0.5, profile(), lexicon=lexicon)
    assert pressed.tier == "abstain", pressed.reasons
    # An unknown verb alone is how a question is put, not evidence.
    assert decide("Does the HRIS API press employees?", 0.5, profile(), lexicon=lexicon).tier != "abstain"


def test_a_foreign_modifier_of_a_word_naming_no_part_of_the_api_abstains(tmp_path: Path) -> None:
    lexicon = tiny_lexicon(tmp_path / "wordnet-moon", nouns={"moon": [("noun.object", [], 5)]}, verbs={"tell": 40})
    wordy = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"hris": Counter()}, api_titles={"hris": "HRIS"},
        vocabulary={"employee", "employees", "phase", "field", "tell"}, structural_terms={"employee"},
    )  # fmt: skip
    question = "Which field tells the moon phase of an employee?"
    # A description says `phase`, yet nothing in the API is a phase: "moon phase" is one foreign thing.
    decision = decide(question, 0.5, wordy, lexicon=lexicon)
    assert decision.tier == "abstain" and "moon, phase" in decision.reasons[-1], decision.reasons
    # Where the API names a phase, a moon phase is a known thing of a new kind: not enough to abstain.
    phased = replace(wordy, structural_terms={"employee", "phase"})
    assert decide(question, 0.5, phased, lexicon=lexicon).tier != "abstain"


def test_an_english_compound_the_docs_never_use_is_a_foreign_thing(tmp_path: Path) -> None:
    lexicon = tiny_lexicon(
        tmp_path / "wordnet-compounds",
        nouns={"sign_language": [("noun.communication", [], 1)], "morse_code": [("noun.communication", [], 1)],
               "miles_davis": [("noun.person", [], 1)], "time_off": [("noun.time", [], 1)]},
    )  # fmt: skip
    wordy = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"hris": Counter()}, api_titles={"hris": "HRIS"},
        vocabulary={"employee", "employees", "sign", "language", "code", "time", "render", "read", "reads"},
    )  # fmt: skip
    # The docs say `sign` and `language` apart, never "sign language".
    signed = decide("Can the HRIS API render employees in sign language?", 0.5, wordy, lexicon=lexicon)
    assert signed.tier == "abstain" and "sign language" in signed.reasons[-1], signed.reasons
    said = replace(wordy, word_pairs={("sign", "language")})
    assert decide("Can the HRIS API render employees in sign language?", 0.5, said, lexicon=lexicon).tier != "abstain"
    # "Morse" is capitalised, yet as part of an English compound it names no value of the user's.
    morse = decide("Is there an endpoint that reads employees aloud in Morse code?", 0.5, wordy, lexicon=lexicon)
    assert morse.tier == "abstain", morse.reasons
    # A person's name and a time are no foreign things.
    named = decide("Which endpoint lists employees named Miles Davis?", 0.5, wordy, lexicon=lexicon)
    assert named.tier != "abstain", named.reasons
    assert decide("Which endpoint lists employees on time off?", 0.5, wordy, lexicon=lexicon).tier != "abstain"


def test_the_words_around_a_word_tell_a_noun_from_a_verb(tmp_path: Path) -> None:
    lexicon = tiny_lexicon(
        tmp_path / "wordnet-context",
        nouns={"submarine": [("noun.artifact", ["sub"], 1)], "ship": [("noun.artifact", [], 1)]},
        verbs={"submarine": 3, "ship": 5},
    )
    # `sub` names part of this API (`subResourceId`), but an abbreviation says nothing of submarines.
    named = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"hris": Counter()}, api_titles={"hris": "HRIS"},
        vocabulary={"employee", "employees", "sub"}, structural_terms={"employee", "sub"},
    )  # fmt: skip
    # English uses `submarine` mostly as a verb; after "by" it is a thing, and "I ship" is an action.
    shipped = decide("How do I ship employees by submarine through the HRIS API?", 0.5, named, lexicon=lexicon)
    assert shipped.tier == "abstain" and "submarine" in shipped.reasons[-1], shipped.reasons
    # A verb the docs never use, alone, is still only how the question is put.
    assert decide("How do I ship employees with the HRIS API?", 0.5, named, lexicon=lexicon).tier != "abstain"


def test_an_activity_counts_only_beside_another_foreign_thing(tmp_path: Path) -> None:
    lexicon = tiny_lexicon(
        tmp_path / "wordnet-acts",
        nouns={"karate": [("noun.act", [], 0)], "belt": [("noun.artifact", [], 5)], "workflow": [("noun.act", [], 1)]},
    )
    leveled = CorpusProfile(
        generation=1, apis=["hris"], term_apis={"hris": Counter()}, api_titles={"hris": "HRIS"},
        vocabulary={"employee", "employees", "level", "add"}, structural_terms={"employee", "level"},
    )  # fmt: skip
    # `belt` modifies a level the API names (one foreign thing); `karate` is an activity beside it.
    karate = decide("What is the karate belt level of an employee?", 0.5, leveled, lexicon=lexicon)
    assert karate.tier == "abstain" and "karate" in karate.reasons[-1], karate.reasons
    assert decide("What is the belt level of an employee?", 0.5, leveled, lexicon=lexicon).tier != "abstain"
    # An activity alone says how something is done.
    assert decide("How do I add employees into our workflow?", 0.5, leveled, lexicon=lexicon).tier != "abstain"


def test_a_weak_match_abstains_on_unknown_names_not_on_ordinary_words(tmp_path: Path) -> None:
    lexicon = tiny_lexicon(
        tmp_path / "wordnet-weak",
        nouns={"ledger": [("noun.possession", [], 3)], "abacus": [("noun.artifact", [], 1)]},
        verbs={"do": 90},
        adjectives={"latest": 5},
    )
    weak = GateThresholds(abstain_below=0.1, partial_below=0.4)
    # "did" and "latest" say how the question is put; a weak match alone is no reason to abstain.
    plain = decide("When did the latest employee list change?", 0.3, profile(), weak, lexicon=lexicon)
    assert plain.tier == "partial", plain.reasons
    named = decide("When did the employee ledger abacus change?", 0.3, profile(), weak, lexicon=lexicon)
    assert named.tier == "abstain", named.reasons
    # Without a lexicon every unknown word counts, as before.
    assert decide("When did the latest employee list change?", 0.3, profile(), weak).tier == "abstain"
