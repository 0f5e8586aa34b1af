"""Facts the checks establish before generation, typed: the generators read their fields and state them
with `statement()`; nothing downstream matches their sentences."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from rag.chunk import Chunk


class Fact(Protocol):
    """Something established about the question that the answer must respect."""

    def statement(self) -> str:
        """The fact as one or more sentences for the answer or the prompt."""
        ...


@dataclass(frozen=True)
class Statement:
    """A fact known only as its sentence (one a caller supplies)."""

    text: str

    def statement(self) -> str:
        """The sentence itself."""
        return self.text


@dataclass(frozen=True)
class MissingWrite:
    """The question asks for a write (`verb` → `methods`) on a resource that has no such operation;
    `existing` are the operations it does have, the closest first; `name` the resource in the question's words
    (`status` for the key `statu`), the key's words when empty."""

    verb: str
    resource: str
    methods: tuple[str, ...]
    existing: tuple[Chunk, ...]
    name: str = ""

    def sentences(self) -> tuple[str, str]:
        """The absence, then the operations that do exist: "There is no endpoint to create course records in
        the lms API (…).", "The operations that exist for course are: …"."""
        apis = ", ".join(sorted({c.api for c in self.existing}))
        listed = "; ".join(f"{operation_label(c)}" + (f" ({c.summary})" if c.summary else "") for c in self.existing)
        wanted = "/".join(m.upper() for m in self.methods)
        thing = self.name or self.resource.replace("_", " ")
        return (
            f"There is no endpoint to {self.verb} {thing} records in the {apis} API (no {wanted} operation on "
            f"a {thing} path).",
            f"The operations that exist for {thing} are: {listed}.",
        )

    def statement(self) -> str:
        """Both sentences in one."""
        return " ".join(self.sentences())

    def operation_labels(self) -> frozenset[str]:
        """`GET /path` of every operation that exists for the resource."""
        return frozenset(operation_label(chunk) for chunk in self.existing)


@dataclass(frozen=True)
class RemovedWrite:
    """The write the question asks for existed in an older version of the API: `removed` are the change
    chunks of the removed operations (each ends with the sentence saying when it was removed)."""

    removed: tuple[Chunk, ...]

    def statement(self) -> str:
        """"PUT /unified/lms/courses was removed from the LMS API in version …" for each removed operation."""
        return " ".join(chunk.text.splitlines()[-1] for chunk in self.removed)


def operation_label(chunk: Chunk) -> str:
    """`GET /unified/lms/courses`: how answers and facts name an operation."""
    return f"{chunk.method.upper()} {chunk.path}"
