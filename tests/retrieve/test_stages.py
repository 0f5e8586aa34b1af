"""Retrieval stages on the small fixture index (hashing embedder)."""

from __future__ import annotations

from dataclasses import replace

from rag.config import Config
from rag.corpus.paths import resource_of
from rag.corpus.profile import CorpusProfile, profile_for
from rag.index.store import Index
from rag.query import Query
from rag.results import RetrievedChunk
from rag.retrieve.context import QueryContext
from rag.retrieve.intent import OfflineIntentDetector, api_names, is_multi_api_question, unsearched_words
from rag.retrieve.ordering import demote_repeated_covers, interleave_by_api
from rag.retrieve.retrievers import HybridRetriever, VectorRetriever, reciprocal_rank_fusion
from rag.rewrite import is_follow_up, offline_rewrite, recent_history, rewrite_query
from rag.write_check import check_write_operation
from tests.fakes import make_chunk as _make_chunk


def make_chunk(structural_id: str, *, path: str = "", method: str = "", **kwargs: object):  # type: ignore[no-untyped-def]
    """A chunk with optional path/method (operations)."""
    chunk = _make_chunk(structural_id, kwargs.pop("text", f"{method.upper()} {path} {structural_id}"), **kwargs)  # type: ignore[arg-type]
    return replace(chunk, path=path, method=method)


def api_of(index: Index, source: str) -> str:
    return next(r.api for r in index.documents() if r.source == source)


def test_rrf_formula() -> None:
    fused = dict(reciprocal_rank_fusion(["a", "b"], ["b", "c"], alpha=0.5, k=60))
    assert abs(fused["b"] - (0.5 / 62 + 0.5 / 61)) < 1e-12
    assert abs(fused["a"] - 0.5 / 61) < 1e-12 and abs(fused["c"] - 0.5 / 62) < 1e-12
    assert next(iter(dict(reciprocal_rank_fusion(["a"], ["c"], alpha=1.0)))) == "a"


def test_rrf_puts_equal_scores_in_order_of_the_ids_without_their_document_version() -> None:
    """Ranks (1, 2) and (2, 1) fuse to one score: which comes first must not hang on the hash of each spec's
    version, which every chunker version changes."""
    for hris, ats in (("0123456789ab", "fedcba987654"), ("fedcba987654", "0123456789ab")):
        first, second = f"{hris}/smart/hris.paths./employees.get", f"{ats}/smart/ats.paths./jobs.get"
        fused = reciprocal_rank_fusion([second, first], [first, second])
        assert [chunk_id for chunk_id, _ in fused] == [second, first]  # "smart/ats…" before "smart/hris…"


def test_rrf_default_lets_one_retrievers_first_place_count() -> None:
    """Over a pool of 20, a chunk one retriever ranks first (the other not at all) is not outweighed by one that
    both rank 20th: with the literature's k = 60 it was (1/61 < 2/80)."""
    pool = [f"filler{i}" for i in range(19)]
    vector = ["top", *pool, "both"]
    bm25 = [*pool, "both"]
    fused = [chunk_id for chunk_id, _ in reciprocal_rank_fusion(vector, bm25)]
    assert fused.index("top") < fused.index("both")
    assert Config("x", retriever="hybrid").rrf_k == HybridRetriever().rrf_k

def test_query_context_computes_each_pool_once(fixture_index: Index) -> None:
    ctx = QueryContext(fixture_index, "list employees")
    first = HybridRetriever().retrieve(ctx, ("smart", "docs"), 5)
    second = VectorRetriever().retrieve(ctx, ("smart", "docs"), 5)
    embeds = [key for key in ctx.computed if key[0] == "embed"]
    vector_pools = [key for key in ctx.computed if key[0] == "vector"]
    assert len(embeds) == 1 and len(vector_pools) == 2  # smart + docs, shared by both retrievers
    assert first and second
    assert {"fused", "vector"} <= set(first[0].scores) or {"fused", "bm25"} <= set(first[0].scores)


def test_intent_detects_explicit_and_distinctive_apis(fixture_index: Index) -> None:
    profile = profile_for(fixture_index.snapshot())
    people = api_of(fixture_index, "people-3.1.json")
    named = OfflineIntentDetector().detect(f"in the {people} api, list employees", profile)
    assert named.apis == (people,)
    unsure = OfflineIntentDetector().detect("what is this", profile)
    assert unsure.apis == ()
    assert is_multi_api_question("Which APIs let me list users?")
    assert is_multi_api_question("Do all the services support webhooks?")
    assert not is_multi_api_question("How do I list users?")
    # Categories and products are things an API has, not APIs: one API's question stays one API's.
    assert not is_multi_api_question("Which bestseller categories does the Times publish?")
    assert not is_multi_api_question("What products are in the garden category?")
    # Words the glossary appended are hints, not names: only the user's own words name an API.
    hinted = OfflineIntentDetector().detect(Query("how do I list the staff?", expansions=(people,)), profile)
    assert not hinted.explicit


def test_an_api_name_written_with_dots_or_hyphens_names_the_api() -> None:
    """"what's the rate limit for api.video?" searched every API (a Mux page-size parameter led): the index names
    that API `apivideo`."""
    profile = CorpusProfile(generation=1, apis=["apivideo", "mux"], term_apis={})
    assert OfflineIntentDetector().detect("what's the rate limit for api.video?", profile).apis == ("apivideo",)
    assert OfflineIntentDetector().detect("how do I list api-video players?", profile).explicit
    assert OfflineIntentDetector().detect("how do I list videos?", profile).apis == ()


def test_an_api_is_named_by_the_domain_its_file_is_named_after() -> None:
    """`asana.com.json` is indexed as `asana_com`: "what's the max page size for asana list endpoints?" searched every
    API and a dev.to parameter led; `dev.to.json` is `dev_to`, which "dev.to" names."""
    profile = CorpusProfile(1, ["asana_com", "dev_to"], api_aliases={"asana": "asana_com"})
    detector = OfflineIntentDetector()
    assert detector.detect("what's the max page size for asana list endpoints?", profile).apis == ("asana_com",)
    assert detector.detect("how do I publish an article on dev.to?", profile).apis == ("dev_to",)
    assert detector.detect("how do I list tasks?", profile).apis == ()


def test_write_check_reports_missing_operations(fixture_index: Index) -> None:
    profile = profile_for(fixture_index.snapshot())
    resources = {resource_of(op.path) for op in profile.operations}
    assert "employee" in resources
    assert check_write_operation("How do I create an employee?", profile) is None  # POST exists
    missing = check_write_operation("How do I delete an employee?", profile)
    assert missing is not None
    assert "no endpoint to delete employee" in missing.statement()
    assert "GET /unified/hris/employees" in missing.statement()
    # Deleting acts on one item, so the item operations are listed first.
    assert missing.existing[0].path.endswith("}")


def test_interleave_and_demote_repeats() -> None:
    a1, a2 = RetrievedChunk(make_chunk("a.x")), RetrievedChunk(make_chunk("a.y"))
    b1 = RetrievedChunk(make_chunk("b.x", api="b"))
    merged = interleave_by_api({"a": [a1, a2], "b": [b1]}, 3)
    assert {m.chunk.api for m in merged[:2]} == {"a", "b"}
    part1 = RetrievedChunk(make_chunk("s.components.Big", chunk_id="big#1"))
    part2 = RetrievedChunk(make_chunk("s.components.Big", chunk_id="big#2"))
    other = RetrievedChunk(make_chunk("s.components.Small"))
    assert demote_repeated_covers([part1, part2, other]) == [part1, other, part2]


def test_follow_up_rewriting_offline_and_fallback() -> None:
    history = [{"role": "user", "content": "How do I list employees?"}, {"role": "assistant", "content": "GET …"}]
    assert is_follow_up("and how do I page through them?", history)
    assert not is_follow_up("How do I create a candidate in the ATS?", [])
    assert is_follow_up("Which fields are required?", history)  # short: leans on the earlier question
    assert not is_follow_up("What's the weather in Berlin?", history)  # short, but names a place of its own
    rewritten_offline = offline_rewrite("and page through them?", history)
    previous = "How do I list employees? | earlier answer: GET …"
    assert rewritten_offline == Query("and page through them?", previous=previous)
    assert rewritten_offline.standalone == (
        "and page through them? (regarding: How do I list employees? | earlier answer: GET …)"
    )
    assert rewritten_offline.focus == "and page through them?"
    # A question that merely contains brackets is taken as asked.
    assert Query.of("no rewrite here (regarding: really)").focus == "no rewrite here (regarding: really)"
    long = [{"role": "user", "content": "x" * 1500}] * 12
    assert sum(len(m["content"]) for m in recent_history(long)) <= 2000

    class Broken:
        name = "broken"

        def complete(self, *args: object, **kwargs: object) -> None:
            raise TimeoutError("slow")

    rewritten = rewrite_query("and them?", history, Broken())
    assert rewritten.query == Query("and them?") and rewritten.method == "fallback"

    class Rewriter:
        name = "rewriter"

        def complete(self, *args: object, **kwargs: object) -> object:
            return type("Reply", (), {"text": "How do I page through the employees?"})()

    by_llm = rewrite_query("and them?", history, Rewriter())
    assert by_llm.method == "llm" and by_llm.query.asked == "and them?"
    assert by_llm.query.focus == by_llm.query.standalone == "How do I page through the employees?"


def test_a_question_naming_a_new_api_or_resource_is_not_rewritten() -> None:
    history = [{"role": "user", "content": "Can I create a course in the LMS API?"},
               {"role": "assistant", "content": "There is no endpoint to create courses."}]  # fmt: skip
    topics = frozenset({"lms", "hris", "courses", "course", "employees", "employee"})
    switched = rewrite_query("and how do I list employees in HRIS?", history, topics=topics)
    assert switched.query == Query("and how do I list employees in HRIS?") and "new topic" in switched.note
    assert rewrite_query("what does the response look like?", history, topics=topics).method == "offline"
    # Naming the same resource again is still a follow-up.
    assert is_follow_up("and can I delete a course?", history, topics)


def test_the_words_that_name_an_api_are_its_id_a_term_of_it_or_its_published_name() -> None:
    profile = CorpusProfile(1, ["pocketsmith_com", "hris", "api_video"], api_aliases={"pocketsmith": "pocketsmith_com"})
    assert api_names("how do I get a PocketSmith transaction?", profile) == {"pocketsmith_com": ("pocketsmith",)}
    assert api_names("list employees in the HRIS API", profile) == {"hris": ("hris",)}
    assert api_names("upload to api.video or apivideo", profile) == {"api_video": ("api.video", "apivideo")}
    assert api_names("how do I list employees?", profile) == {}
    several = CorpusProfile(1, ["app-store-connect", "legal_entity"])
    assert api_names("invite a user to my App Store Connect team", several) == {
        "app-store-connect": ("app", "connect", "store")}
    assert api_names("which legal  entity?", several) == {"legal_entity": ("entity", "legal")}
    assert api_names("connect the app to the store", several) == {}  # the words, not in the id's order


def test_a_word_naming_an_api_is_unsearched_unless_a_path_acts_on_it() -> None:
    """An API named `courses` whose paths act on courses: "how do I upsert a course?" names it, and searched without
    "course" it asks nothing; "pocketsmith" names no resource."""
    from tests.fakes import make_chunk

    courses = replace(make_chunk("courses.paths./courses.put", "PUT /courses", kind="operation"), method="put",
                      path="/courses", api="courses")
    profile = CorpusProfile(1, ["courses", "pocketsmith_com"], api_aliases={"pocketsmith": "pocketsmith_com"},
                            operations=[courses])
    assert api_names("how do I upsert a course?", profile) == {"courses": ("course",)}
    assert unsearched_words("how do I upsert a course?", profile) == ()
    assert unsearched_words("how do I get a PocketSmith transaction?", profile) == ("pocketsmith",)
    # A word of a compound resource's name is no resource: "box" names the Box API though it keeps boxSkillsCards.
    cards = replace(courses, path="/files/{file_id}/metadata/global/boxSkillsCards", api="box")
    assert unsearched_words("how do I upload a file to box?", CorpusProfile(1, ["box"], operations=[cards])) == ("box",)
