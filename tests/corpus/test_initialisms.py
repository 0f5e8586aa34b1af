"""Initialisms read from a corpus's own operations (rag/corpus/initialisms.py)."""

from __future__ import annotations

from typing import Any

from rag.corpus.initialisms import corpus_initialisms, initialism_words
from rag.ingest.openapi import chunk_openapi


def forge_spec() -> dict[str, Any]:
    """A code-hosting API: six operations on pull requests, two that check if something exists, two on purchase
    orders."""
    ok = {"200": {"description": "ok"}}

    def op(summary: str) -> dict[str, Any]:
        return {"summary": summary, "responses": ok}

    pulls, pull = "/repos/{repo}/pulls", "/repos/{repo}/pulls/{number}"
    return {
        "openapi": "3.0.3", "info": {"title": "Forge", "version": "1"},
        "paths": {
            pulls: {"get": op("List pull requests"), "post": op("Create a pull request")},
            pull: {"get": op("Get a pull request"), "patch": op("Update a pull request")},
            f"{pull}/merge": {"post": op("Merge a pull request")},
            f"{pull}/approve": {"post": op("Approve a pull request"), "delete": op("Withdraw a pull request approval")},
            "/repos/{repo}/branches/{name}": {"get": op("Check if a branch exists")},
            "/repos/{repo}/tags/{name}": {"get": op("Check if a tag exists")},
            "/orders": {"get": op("List purchase orders"), "post": op("Create a purchase order")},
        },
    }


def forge_operations() -> list[Any]:
    return [c for c in chunk_openapi(forge_spec(), "forge", "forge.json").smart if c.kind == "operation"]


def test_an_initialism_stands_for_a_phrase_most_of_its_operations_use() -> None:
    """"pull request" names seven operations: PR. "check if" is no phrase (function words), "purchase order" names
    two operations (too few to be sure of), "list pull request" opens with a verb, "pull request approval" four
    words of which only one operation says all."""
    table = corpus_initialisms(forge_operations(), verbs={"list", "create", "get", "update"})
    assert table == {"pr": "pull request"}


def test_a_question_s_initialism_in_capitals_is_spelled_out_unless_the_corpus_uses_it() -> None:
    table = {"pr": "pull request", "po": "purchase order"}

    def unknown(word: str) -> bool:
        return False

    assert initialism_words("withdraw my approval on a PR", table, unknown) == ("pull request",)
    assert initialism_words("who reviews new PRs? and a PR of mine", table, unknown) == ("pull request",)
    assert initialism_words("I need a PO and a PR", table, unknown) == ("purchase order", "pull request")
    assert initialism_words("a pr in lower case is a word", table, unknown) == ()
    assert initialism_words("withdraw my approval on a PR", table, lambda word: word == "pr") == ()
    assert initialism_words("send it as a PDF", table, unknown) == ()
