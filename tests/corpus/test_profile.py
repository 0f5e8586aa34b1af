"""The corpus profile of an index snapshot: vocabulary, prefixes, summary verbs, main resources."""

from __future__ import annotations

from dataclasses import replace

from rag.corpus.profile import CorpusProfile, build_profile, profile_for, summary_verbs, topic_names
from rag.index.store import Index
from tests.fakes import make_chunk


def test_the_profile_knows_the_vocabulary_and_paths_of_the_fixture_specs(fixture_index: Index) -> None:
    snapshot = fixture_index.snapshot()
    profile = build_profile(snapshot)
    assert len(profile.apis) == 2
    assert profile.knows("employees") and profile.knows("listing")
    assert not profile.knows("horoscope")
    assert profile.knows_path("/unified/hris/employees/42")
    assert profile.knows_path("/unified/hris")
    assert not profile.knows_path("/unified/crm/contacts")
    main = dict(profile.main_resources)
    assert "employees" in main.values() and "orders" in main.values()
    assert profile_for(snapshot) is profile_for(snapshot)


def test_summary_verbs_read_the_summary_field_not_the_text() -> None:
    operations = [
        replace(make_chunk(f"a.paths./courses/{n}/enrollments.post", "POST /courses  [a API]\nno summary line here",
                           kind="operation"), method="post", path=f"/courses/{n}/enrollments", summary="Enroll User")
        for n in range(2)
    ]
    assert summary_verbs(operations) == {"enroll": ("post",)}
    assert summary_verbs([replace(c, summary="") for c in operations]) == {}
    # Without a summary, the operationId says what an operation does: `ban_user_from_guild` → put.
    banning = [replace(c, method="put", summary="", operation_id=f"ban_user_from_guild_{n}")
               for n, c in enumerate(operations)]
    assert summary_verbs(banning) == {"ban": ("put",)}


def test_topics_are_resources_and_apis_not_the_actions_paths_name() -> None:
    paths = ("/channels/{channel_id}/messages/bulk-delete", "/guilds/{guild_id}/members/search", "/guilds/{guild_id}")
    operations = [replace(make_chunk(f"chat.paths.{path}.post", f"POST {path}", kind="operation"),
                          method="post", path=path) for path in paths]
    topics = topic_names(CorpusProfile(1, ["chat"], operations=operations))
    assert {"channel", "messages", "message", "guild", "members", "bulk_delete", "chat"} <= topics
    assert not {"delete", "search"} & topics  # "and how do I delete one?" goes on with the conversation
    assert "bulk" not in topics  # a word of a resource named by several is no resource alone


def test_a_compound_resource_ending_in_a_word_that_names_nothing_is_named_whole() -> None:
    path = "/v1/appInfos/{id}/primarySubcategoryOne"
    operation = replace(make_chunk(f"store.paths.{path}.get", f"GET {path}", kind="operation"), method="get", path=path)
    topics = topic_names(CorpusProfile(1, ["store"], operations=[operation]))
    assert "primary_subcategory_one" in topics
    assert "one" not in topics  # "delete one" goes on with the conversation's subject


def test_a_version_written_into_a_segment_names_no_part_of_its_resource() -> None:
    """Harness writes versions into its segments (`/gateway/ng/api/environmentsV2`): "and list the environments"
    after deleting a service was read as going on with the service, as `environments` named no topic."""
    path = "/gateway/ng/api/environmentsV2"
    operation = replace(make_chunk(f"ci.paths.{path}.get", f"GET {path}", kind="operation"), method="get", path=path)
    topics = topic_names(CorpusProfile(1, ["ci"], operations=[operation]))
    assert {"environments", "environment"} <= topics
    assert "environments_v2" not in topics
