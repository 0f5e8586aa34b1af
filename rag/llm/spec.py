"""A generator spec parsed once (`extractive`, `openai:M`, `groq:M`, `local`, `local:PATH`, or a test's own), and the
LLM a pipeline is built with: the spec and its chat model, made once."""

from __future__ import annotations

from dataclasses import dataclass

from rag.llm.base import ChatModel

EXTRACTIVE = "extractive"
# Providers whose model is fast enough to read a question's intent (a local model is not).
HOSTED_PROVIDERS = ("openai", "groq")
LOCAL_PROVIDER = "local"


@dataclass(frozen=True)
class ModelSpec:
    """A generator spec: `text` as given, its provider (the part before `:`) and model (the part after)."""

    text: str

    @property
    def provider(self) -> str:
        """`openai` for `openai:gpt-4o-mini`; the whole spec when it has no `:`."""
        return self.text.partition(":")[0]

    @property
    def is_extractive(self) -> bool:
        """Whether this is the extractive (no-LLM) generator."""
        return self.text == EXTRACTIVE

    @property
    def is_hosted(self) -> bool:
        """Whether the model runs at a hosted API (OpenAI, Groq)."""
        return self.provider in HOSTED_PROVIDERS and ":" in self.text

    @property
    def is_local(self) -> bool:
        """Whether the model runs in this process (`local`, `local:PATH`): its prompts are kept short."""
        return self.provider == LOCAL_PROVIDER

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class LLM:
    """The LLM a pipeline is built with: its spec and its chat model, made once (None for the extractive
    generator). A model that could not be made keeps the error (`problem`): `model()` raises it where a stage
    needs the model, so each stage fails, or notes the failure, exactly where it needs the model."""

    spec: ModelSpec
    chat_model: ChatModel | None = None
    problem: Exception | None = None

    def model(self) -> ChatModel | None:
        """The chat model (None for the extractive generator); raises the error that stopped it being made."""
        if self.problem is not None:
            raise self.problem
        return self.chat_model
