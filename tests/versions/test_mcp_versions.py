"""MCP: `diff_versions`, and `ask_api` / `search_api` on a chosen version."""

from __future__ import annotations

from rag.index.store import Index
from rag.mcp_server import build_server
from rag.runner import Engine
from tests.index.test_versions import two_versions  # noqa: F401  (the fixture)
from tests.test_mcp_server import call, error_text


def test_diff_versions_defaults_to_the_two_newest(two_versions: Index) -> None:  # noqa: F811
    server = build_server(Engine(two_versions))
    result = call(server, "diff_versions", {"api": "courses"})
    assert not result.is_error, result
    data = result.structured_content
    assert data["old"] == "2025-02" and data["new"] == "2025-12"  # type: ignore[index]
    assert data["removed_operations"] == ["PUT /courses"]  # type: ignore[index]
    assert data["changes"][0]["breaking"]  # type: ignore[index]
    assert "'2024-01' of courses is not indexed" in error_text(
        call(server, "diff_versions", {"api": "courses", "old": "2024-01"}))


def test_search_and_ask_on_a_chosen_version(two_versions: Index) -> None:  # noqa: F811
    server = build_server(Engine(two_versions))
    pinned = call(server, "search_api", {"query": "Upsert Course PUT /courses", "version": "2025-02"})
    assert "courses.paths./courses.put" in {h["structural_id"] for h in pinned.structured_content["results"]}  # type: ignore[index]
    newest = call(server, "search_api", {"query": "Upsert Course PUT /courses"})
    assert "courses.paths./courses.put" not in {h["structural_id"] for h in newest.structured_content["results"]}  # type: ignore[index]
    assert "not an indexed version" in error_text(call(server, "ask_api", {"question": "Upsert?", "version": "1999"}))
