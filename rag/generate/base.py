"""The generator interface: a question and its retrieved chunks in, an answer with citations out."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from rag.chunk import RequestExample
from rag.facts import Fact
from rag.query import Query
from rag.results import Citation, Confidence, RetrievedChunk

ABSTAIN_MESSAGE = "I don't have enough information in the indexed documentation to answer this question."


@dataclass(frozen=True)
class GenerationRequest:
    """Everything a generator may use.

    `query` is the typed query the pipeline ran (a plain question is taken as asked); `chunks` are in final
    rank order; `abstain_allowed` adds the instruction to say when the context lacks the answer; `reasoning`
    asks for structured chain-of-thought (`reasoning_steps` + `answer`); `gate` is the retrieval-confidence
    tier; `facts` are typed facts established before generation (e.g. no endpoint creates LMS courses) that
    the answer must respect.
    """

    query: Query
    chunks: Sequence[RetrievedChunk]
    abstain_allowed: bool = False
    reasoning: bool = False
    context_tokens: int = 4000
    gate: Confidence = "answer"
    facts: Sequence[Fact] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "query", Query.of(self.query))

    @property
    def question(self) -> str:
        """The standalone question (a follow-up with the earlier turn it continues)."""
        return self.query.standalone

    @property
    def asked(self) -> str:
        """The question itself, as asked or as an LLM rewrote it, without the earlier turn."""
        return self.query.focus

    @property
    def with_earlier_question(self) -> str:
        """The question, then the earlier question a follow-up continues (not its answer): where the values a
        request example takes are named ("how do I stop it?" after "start container web-1")."""
        return f"{self.asked} {self.query.earlier_question}".strip()

    def stated_facts(self, besides: Sequence[Fact] = ()) -> list[str]:
        """The facts as the sentences an answer or a prompt states (empty ones left out), but those `besides` (the
        facts a lead states already)."""
        return [text for text in (fact.statement().strip() for fact in self.facts if fact not in besides) if text]


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
    request_example: RequestExample | None = None  # a request that calls the operation the answer is about
    subject: str = ""  # the structural id of that operation ("" when none): what a follow-up continues
    lead_rule: str = ""  # the rule of the extractive lead that said what the answer is about ("" when none fired)


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
