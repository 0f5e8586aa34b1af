"""Compact prompts for local models: the lines that bear on the question, a short system prompt, plain text."""

from __future__ import annotations

import pytest

from rag.chunk import FieldFacts, ResponseFacts
from rag.errors import ConfigError
from rag.facts import Statement
from rag.generate.base import ABSTAIN_MESSAGE, GenerationRequest
from rag.generate.compact import (
    COMPACT_ANSWER_TOKENS,
    compact_blocks,
    is_local_model,
    prompt_style,
    wants_compact,
)
from rag.generate.context import build_context
from rag.generate.factory import make_generator
from rag.generate.llm import LLMGenerator
from rag.query import Query
from rag.results import Citation
from rag.tokens import estimate_tokens
from tests.fakes import FakeChatModel, make_chunk, retrieved

FILLER = "\n".join(
    f"- field_{n} (string, optional, nullable): Something about the record that has nothing to do with it."
    for n in range(60)
)
SCHEMA = make_chunk(
    "stackone.components.ConnectSessionCreate",
    "Schema ConnectSessionCreate  [stackone API]\n"
    + FILLER
    + "\n- expires_in (number, optional, nullable): How long the session should be valid for in seconds Default: 1800.",
)
OPERATION = make_chunk(
    "hris.paths./unified/hris/employees.get",
    "GET /unified/hris/employees  [hris API]\nSummary: List Employees\n"
    "- x-account-id (header, string, required): The account identifier\n"
    + FILLER
    + "\n- 200 → EmployeesPaginated: The list of employees was retrieved.\n"
    "  - next (string, optional)\n  - data (array of Employee, required)",
    kind="operation",
    parameters=(FieldFacts("x-account-id", "string", "header", required=True, description="The account identifier"),),
    responses=(
        ResponseFacts("200", "EmployeesPaginated", "The list of employees was retrieved.", success=True, fields=(
            FieldFacts("next", "string"),
            FieldFacts("data", "array of Employee", required=True),
        )),
    ),
)
OTHER = make_chunk("crm.components.Contact", "Schema Contact  [crm API]\n" + FILLER)


def _request(question: str, *chunks, **options) -> GenerationRequest:  # type: ignore[no-untyped-def]
    return GenerationRequest(query=Query(question), chunks=retrieved(*chunks), **options)


def test_compact_blocks_keep_the_matching_lines_renumbered_within_budget() -> None:
    blocks = build_context(retrieved(OTHER, SCHEMA), 8000)
    assert sum(block.tokens for block in blocks) > 2000
    compact = compact_blocks("What is the default of expires_in?", blocks)
    assert [block.number for block in compact] == list(range(1, len(compact) + 1))
    assert compact[0].chunk is SCHEMA  # the block without a matching line is gone
    assert compact[0].text.splitlines()[0] == "Schema ConnectSessionCreate  [stackone API]"
    assert any("Default: 1800" in line for line in compact[0].text.splitlines())
    assert sum(estimate_tokens(block.text) for block in compact) <= 300


def test_compact_blocks_add_the_response_and_required_headers_where_asked() -> None:
    blocks = build_context(retrieved(OPERATION), 8000)
    response = compact_blocks("What does the response of listing employees look like?", blocks)[0].text
    assert "- Response 200 → EmployeesPaginated: The list of employees was retrieved. Fields: next, data." in response
    how_to = compact_blocks("How do I list employees?", blocks)[0].text
    assert "- Required headers: x-account-id" in how_to


def test_compact_blocks_without_a_matching_line_show_the_top_block_opening() -> None:
    blocks = build_context(retrieved(SCHEMA), 8000)
    compact = compact_blocks("zzz qqq?", blocks)
    assert len(compact) == 1 and compact[0].text.startswith("Schema ConnectSessionCreate")
    assert compact_blocks("anything", []) == []


def test_compact_generator_streams_a_short_plain_text_prompt_and_cites_the_compact_blocks() -> None:
    model = FakeChatModel(["ANSWERABLE: yes\n`expires_in` defaults to `1800` seconds [1]."], name="local:tiny")
    generator = LLMGenerator(model, compact=True)
    result = generator.generate(_request("What is the default of expires_in?", OTHER, SCHEMA, abstain_allowed=True))
    call = model.calls[0]
    assert call.method == "stream" and call.max_tokens == COMPACT_ANSWER_TOKENS
    assert sum(estimate_tokens(m.content) for m in call.messages) < 450
    assert "Default: 1800" in model.user_prompt and "field_10" not in model.user_prompt
    assert "ANSWERABLE: yes" in model.system_prompt and "ANSWERABLE: no" in model.system_prompt
    assert result.answer == "`expires_in` defaults to `1800` seconds [1]."
    assert result.citations == [Citation.of(SCHEMA, 1)]
    assert not result.abstained and result.generator == "local:tiny"


def test_compact_generator_abstains_on_answerable_no() -> None:
    model = FakeChatModel(["ANSWERABLE: no"], name="local:tiny")
    result = LLMGenerator(model, compact=True).generate(_request("How do I delete a session?", SCHEMA,
                                                                 abstain_allowed=True))
    assert result.abstained and result.answer.startswith(ABSTAIN_MESSAGE)


def test_compact_generator_answers_with_the_verified_facts_when_the_model_says_no() -> None:
    facts = [Statement("No endpoint deletes sessions.")]
    model = FakeChatModel(["ANSWERABLE: no", "ANSWERABLE: no\nNo endpoint deletes sessions [1]."], name="local:tiny")
    generator = LLMGenerator(model, compact=True)
    bare = generator.generate(_request("How do I delete a session?", SCHEMA, abstain_allowed=True, facts=facts))
    assert "Verified facts (true):\n- No endpoint deletes sessions." in model.user_prompt
    assert not bare.abstained and bare.answer == "No endpoint deletes sessions."
    worded = generator.generate(_request("How do I delete a session?", SCHEMA, abstain_allowed=True, facts=facts))
    assert not worded.abstained and worded.answer == "No endpoint deletes sessions [1]."


def test_compact_reasoning_asks_for_json_steps() -> None:
    reply = {"reasoning_steps": ["1800 is the default [1]"], "abstained": False, "answer": "1800 [1]", "citations": [1]}
    model = FakeChatModel([reply], name="local:tiny")
    result = LLMGenerator(model, compact=True).generate(_request("Default of expires_in?", SCHEMA, reasoning=True))
    assert model.calls[0].method == "complete" and model.calls[0].json_mode
    assert "reasoning_steps" in model.system_prompt
    assert result.reasoning_steps == ["1800 is the default [1]"] and result.citations == [Citation.of(SCHEMA, 1)]


class _Hosted:
    def __init__(self, name: str, base_url: str) -> None:
        self.name = name
        self.base_url = base_url


@pytest.mark.parametrize(
    ("name", "base_url", "local"),
    [
        ("local:qwen", "", True),
        ("openai:qwen", "http://127.0.0.1:8080/v1", True),
        ("openai:qwen", "http://localhost:11434/v1/", True),
        ("openai:qwen", "http://[::1]:8080/v1", True),
        ("openai:gpt-4o-mini", "https://api.openai.com/v1", False),
        ("groq:llama", "https://api.groq.com/openai/v1", False),
    ],
)
def test_local_models_are_recognised(name: str, base_url: str, local: bool) -> None:
    assert is_local_model(_Hosted(name, base_url)) is local


def test_prompt_style_follows_the_environment_and_names_the_allowed_values() -> None:
    hosted = _Hosted("openai:gpt-4o-mini", "https://api.openai.com/v1")
    local = _Hosted("local:qwen", "")
    assert prompt_style({}) == "auto"
    assert wants_compact(local, {}) and not wants_compact(hosted, {})
    assert wants_compact(hosted, {"RAG_LLM_PROMPT": "compact"})
    assert not wants_compact(local, {"RAG_LLM_PROMPT": "FULL"})
    with pytest.raises(ConfigError, match=r"RAG_LLM_PROMPT='short'.*'auto', 'compact', 'full'"):
        prompt_style({"RAG_LLM_PROMPT": "short"})


def test_factory_gives_local_models_compact_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAG_LLM_PROMPT", raising=False)
    local = make_generator("local", lambda spec: FakeChatModel(name="local:tiny"))
    hosted = make_generator("openai:m", lambda spec: FakeChatModel(name="openai:m"))
    assert isinstance(local, LLMGenerator) and local.compact
    assert isinstance(hosted, LLMGenerator) and not hosted.compact
