"""Build a generator from a spec string: `extractive`, or a chat-model spec for the LLM generator."""

from __future__ import annotations

from collections.abc import Callable

from rag.errors import ConfigError
from rag.generate.base import Generator
from rag.generate.compact import wants_compact
from rag.generate.extractive import ExtractiveGenerator
from rag.generate.llm import LLMGenerator
from rag.llm.base import ChatModel
from rag.llm.spec import EXTRACTIVE


def make_generator(spec: str, chat_model_factory: Callable[[str], ChatModel] | None = None) -> Generator:
    """The generator for `spec`.

    `extractive` → ExtractiveGenerator (no LLM); anything else (`openai:M`, `groq:M`, `local`,
    `local:PATH`) → LLMGenerator over `chat_model_factory(spec)`, by default
    `rag.llm.factory.make_chat_model`, which raises ConfigError for specs it does not know. Local models
    (in-process, or a server on a loopback address) get compact prompts unless `RAG_LLM_PROMPT` says
    otherwise (see `rag.generate.compact`).
    `auto` must be resolved by the caller first.
    """
    cleaned = (spec or "").strip()
    if not cleaned:
        raise ConfigError("generator is empty; allowed: extractive, openai:M, groq:M, local, local:PATH")
    if cleaned.lower() == "auto":
        raise ConfigError("generator 'auto' must be resolved to a concrete generator (e.g. with "
                          "rag.llm.factory.detect_default_llm) before make_generator")
    if cleaned.lower() == EXTRACTIVE:
        return ExtractiveGenerator()
    if chat_model_factory is None:
        from rag.llm.factory import make_chat_model

        chat_model_factory = make_chat_model
    chat_model = chat_model_factory(cleaned)
    return LLMGenerator(chat_model, compact=wants_compact(chat_model))
