"""The REST API's request bodies: typed, validated at the edge, each field documented in /openapi.json."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rag.query import MAX_QUESTION_CHARS

MAX_HISTORY_MESSAGES = 50


class Message(BaseModel):
    """One earlier message of the conversation."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"] = Field(description="who wrote it: user or assistant")
    content: str = Field(description="its text")
    subject: str | None = Field(
        default=None, description="an answer's `subject` as its result gave it (the structural id of the operation it "
        "is about, \"\" for none): a follow-up continues that operation; without it, the operation the text names"
    )


class AskRequest(BaseModel):
    """A question for one or more configurations."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description=f"the question (not empty; at most {MAX_QUESTION_CHARS:,} characters)")
    configs: list[str] | None = Field(
        default=None, description="configuration names (GET /configs); default: the app's default configurations"
    )
    history: list[Message] | None = Field(
        default=None, max_length=MAX_HISTORY_MESSAGES,
        description=f"earlier messages of the conversation, oldest first (at most {MAX_HISTORY_MESSAGES})",
    )
    api_version: str | None = Field(
        default=None, description="search this indexed version (LABEL, or API@LABEL; GET /apis) instead of the newest"
    )
    retrieval_only: bool = Field(default=False, description="retrieve and rank only; no answer generation")


class SpecUrlRequest(BaseModel):
    """A spec to fetch from its URL and index."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="an http(s) URL of an OpenAPI 3.x or Swagger 2.0 spec (.json, .yaml, .yml) or of a "
                     ".zip of a spec split over files; private, loopback and link-local addresses are refused")
    version: str | None = Field(default=None, description="version label (default: the spec's info.version; fetched "
                                "again with new content: a new version, labelled so or by its info.version or date)")
