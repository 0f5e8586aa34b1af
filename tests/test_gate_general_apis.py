"""The gate with the real packaged embedder (slow) on small specs of its own: general-purpose APIs (a calculator,
a dictionary) whose own descriptions say they do what a generic off-topic request asks, and a spec without
prose (operationIds and paths only) asked in words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rag.config import PRESETS
from rag.runner import Engine
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow

OK = {"200": {"description": "OK"}}


def _spec(title: str, description: str, paths: dict[str, Any]) -> dict[str, Any]:
    info = {"title": title, "version": "1", **({"description": description} if description else {})}
    return {"openapi": "3.0.3", "info": info, "paths": paths}


def _operation(operation_id: str, *parameters: str, summary: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {"operationId": operation_id, "responses": OK}
    if summary:
        found["summary"] = summary
    found["parameters"] = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}} for name in parameters
    ]
    return found


CALCULATOR = _spec(
    "MathJS", "A calculator service: evaluate mathematical expressions such as square roots, powers and unit "
    "conversions.",
    {"/v4/": {"get": {**_operation("evaluateExpression", summary="Evaluate an expression"), "parameters": [
        {"name": "expr", "in": "query", "required": True, "schema": {"type": "string"}}]}}},
)
DICTIONARY = _spec(
    "Free Dictionary", "Look up English words: definitions, phonetics, synonyms and example sentences.",
    {"/entries/en/{word}": {"get": _operation("getEntry", "word", summary="Get the definitions of a word")}},
)
# No summaries, no descriptions: operationIds in snake_case and camelCase, and paths.
CHAT = _spec("Chat servers", "", {
    "/guilds/{guild_id}/members/{user_id}": {
        "delete": _operation("delete_guild_member", "guild_id", "user_id"),
        "get": _operation("get_guild_member", "guild_id", "user_id"),
        "patch": _operation("update_guild_member", "guild_id", "user_id"),
    },
    "/guilds/{guild_id}/members": {"get": _operation("list_guild_members", "guild_id")},
    "/guilds/{guild_id}/bans/{user_id}": {
        "put": _operation("banUserFromGuild", "guild_id", "user_id"),
        "delete": _operation("unbanUserFromGuild", "guild_id", "user_id"),
    },
    "/channels/{channel_id}/messages": {
        "post": _operation("createChannelMessage", "channel_id"),
        "get": _operation("listChannelMessages", "channel_id"),
    },
    "/guilds/{guild_id}/roles": {"post": _operation("createGuildRole", "guild_id")},
})

GENERAL_REQUESTS = ["What is the square root of 144?", "Define the word serendipity"]


def _engine(directory: Path, specs: dict[str, dict[str, Any]], files: tuple[Path, ...] = ()) -> Engine:
    from rag.index.build import ingest_paths, open_index
    from rag.settings import Settings

    paths = list(files)
    for name, spec in specs.items():
        paths.append(directory / f"{name}.json")
        paths[-1].write_text(json.dumps(spec), encoding="utf-8")
    index = open_index(Settings(index_dir=directory / "index", cache_dir=directory / "cache"))
    assert {r.status for r in ingest_paths(index, paths)} == {"added"}
    return Engine(index, default_llm="extractive")


@pytest.fixture(scope="module")
def general(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _engine(tmp_path_factory.mktemp("general"), {"calc": CALCULATOR, "dictionary": DICTIONARY, "chat": CHAT})


@pytest.fixture(scope="module")
def workforce(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _engine(tmp_path_factory.mktemp("workforce"), {}, (FIXTURES / "specs" / "workforce-3.1.json",))


@pytest.mark.parametrize("question", GENERAL_REQUESTS)
def test_a_request_an_indexed_api_says_it_does_is_not_abstained(general: Engine, question: str) -> None:
    result = general.run(question, PRESETS["full"], retrieval_only=True)
    assert not result.abstained, result.notes
    assert result.chunks[0].chunk.api in ("calc", "dictionary"), [c.chunk.chunk_id for c in result.chunks]


@pytest.mark.parametrize("question", GENERAL_REQUESTS)
def test_the_same_request_is_abstained_on_an_index_without_such_an_api(workforce: Engine, question: str) -> None:
    result = workforce.run(question, PRESETS["full"], retrieval_only=True)
    assert result.abstained, result.notes


def test_the_prototype_set_aside_is_named_in_the_notes(general: Engine, workforce: Engine) -> None:
    notes = general.run(GENERAL_REQUESTS[0], PRESETS["full"], retrieval_only=True).notes
    aside = [note for note in notes if note.startswith("off-topic prototypes set aside")]
    assert len(aside) == 1 and '"What is the square root of 144' in aside[0] and "to calc:" in aside[0]
    assert not any("set aside" in note for note in workforce.run("Who won?", PRESETS["full"]).notes)


def test_off_topic_requests_stay_abstained_beside_general_apis(general: Engine) -> None:
    for question in ("What's the weather in Berlin tomorrow?", "How do I cook pasta?", "Write me a poem"):
        assert general.run(question, PRESETS["full"], retrieval_only=True).abstained, question


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("How do I remove a member from my server?", "chat.paths./guilds/{guild_id}/members/{user_id}.delete"),
        ("How do I ban someone from a guild?", "chat.paths./guilds/{guild_id}/bans/{user_id}.put"),
        ("How can I post a message in a channel?", "chat.paths./channels/{channel_id}/messages.post"),
    ],
)
def test_an_operation_without_prose_is_found_in_words_and_not_abstained(
    general: Engine, question: str, operation: str
) -> None:
    result = general.run(question, PRESETS["full"], retrieval_only=True)
    assert not result.abstained, result.notes
    assert operation in [cover for c in result.chunks[:3] for cover in c.chunk.covers]
