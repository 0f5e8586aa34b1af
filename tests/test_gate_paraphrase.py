"""The gate with the real packaged embedder on a spec that uses none of the user's words (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.runner import Engine
from tests.conftest import FIXTURES, ONNX_DIR

SPEC = FIXTURES / "specs" / "workforce-3.1.json"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    from rag.index.build import ingest_paths, open_index
    from rag.settings import Settings

    directory = tmp_path_factory.mktemp("workforce")
    index = open_index(Settings(index_dir=directory / "index", cache_dir=directory / "cache", onnx_dir=ONNX_DIR))
    assert [r.status for r in ingest_paths(index, [SPEC])] == ["added"]
    return Engine(index, default_llm="extractive")


def test_the_spec_uses_none_of_the_paraphrases_words() -> None:
    text = json.loads(Path(SPEC).read_text()).__repr__().lower()
    assert not any(word in text for word in ("personnel", "vacation", "holiday", "staff", "weather"))


@pytest.mark.parametrize(
    "question",
    [
        "Where do I find the personnel file of one staff member?",
        "How do I see who is on vacation next week?",
        "How do I book a holiday for one of my people?",
    ],
)
def test_a_paraphrase_of_an_existing_operation_is_never_abstained(engine: Engine, question: str) -> None:
    result = engine.run(question, PRESETS["full"], retrieval_only=True)
    assert not result.abstained, result.notes


@pytest.mark.parametrize(
    "question",
    ["What's the weather in Berlin tomorrow?", "What does the `blood_type` field of an employee hold?"],
)
def test_the_weather_and_a_field_the_spec_lacks_are_abstained(engine: Engine, question: str) -> None:
    result = engine.run(question, PRESETS["full"], retrieval_only=True)
    assert result.abstained, result.notes
