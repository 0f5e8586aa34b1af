"""The generator interface: a question and its retrieved chunks in, an answer with citations out."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from rag.results import Citation, Confidence, RetrievedChunk

ABSTAIN_MESSAGE = "I don't have enough information in the indexed documentation to answer this question."


@dataclass(frozen=True)
class GenerationRequest:
    """Everything a generator may use.

    `chunks` are in final rank order; `abstain_allowed` adds the instruction to say when the
    context lacks the answer; `reasoning` asks for structured chain-of-thought
    (`reasoning_steps` + `answer`); `gate` is the retrieval-confidence tier; `facts` are
    statements established before generation (e.g. "no endpoint creates LMS courses") that the
    answer must respect. `question` is the standalone question (a follow-up with its earlier turn);
    `focus` the question itself, as asked or as an LLM rewrote it ("" means `question`).
    """

    question: str
    chunks: Sequence[RetrievedChunk]
    abstain_allowed: bool = False
    reasoning: bool = False
    context_tokens: int = 4000
    gate: Confidence = "answer"
    facts: Sequence[str] = ()
    focus: str = ""

    @property
    def asked(self) -> str:
        """The question itself, without the earlier turn a follow-up carries."""
        return self.focus or self.question


@dataclass
class Generation:
    """A generated answer."""

    answer: str
    abstained: bool = False
    citations: list[Citation] = field(default_factory=list)
    dropped_citations: int = 0
    reasoning_steps: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    generator: str = ""


@dataclass(frozen=True)
class StreamEvent:
    """One event of a streamed answer: text pieces, then the sources, then done (with the result)."""

    kind: Literal["token", "sources", "done"]
    text: str = ""
    citations: tuple[Citation, ...] = ()
    generation: Generation | None = None


@runtime_checkable
class Generator(Protocol):
    """Turns a request into an answer; `stream` yields StreamEvents ending with `done`."""

    name: str

    def generate(self, request: GenerationRequest) -> Generation:
        """Answer the question from the chunks."""
        ...

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        """Answer piece by piece (generators that cannot stream yield the whole answer once)."""
        ...
