"""An offline reranker that reads the structure of API chunks.

It adds to the first-stage score evidence a developer would use: does the operation's HTTP
method match the verb in the question (create → POST, update → PATCH/PUT, delete → DELETE,
list/get → GET), does the resource in the path match the noun asked about, is it the
collection or a single item (`{id}`), do exact identifiers of the question (`expires_in`,
`x-account-id`) occur in the chunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.index.bm25 import tokenize
from rag.results import RetrievedChunk
from rag.retrieve.profile import normalize_term, resource_of, word_forms

VERB_METHODS: dict[str, tuple[str, ...]] = {
    "create": ("post",),
    "add": ("post",),
    "new": ("post",),
    "make": ("post",),
    "register": ("post",),
    "submit": ("post",),
    "upload": ("post",),
    "generate": ("post",),
    "invite": ("post",),
    "enroll": ("post",),
    "update": ("patch", "put"),
    "change": ("patch", "put"),
    "modify": ("patch", "put"),
    "edit": ("patch", "put"),
    "upsert": ("put", "post"),
    "replace": ("put",),
    "set": ("patch", "put"),
    "delete": ("delete",),
    "remove": ("delete",),
    "deactivate": ("delete",),
    "cancel": ("delete", "post"),
    "list": ("get",),
    "get": ("get",),
    "retrieve": ("get",),
    "fetch": ("get",),
    "find": ("get",),
    "search": ("get", "post"),
    "show": ("get",),
    "read": ("get",),
    "view": ("get",),
    "lookup": ("get",),
    "all": ("get",),
    "download": ("get",),
    "see": ("get",),
    "check": ("get",),
}
_SINGLE = re.compile(r"\b(a single|one|specific|particular|by id|by its id|details? (of|for|about)|an? \w+'s)\b", re.I)
_MANY = re.compile(r"\b(all|list|every|many|multiple|paginat\w*|page|collection)\b", re.I)
_IDENTIFIER = re.compile(r"[A-Za-z]+[_\-][A-Za-z0-9_\-]+|[a-z]+[A-Z][A-Za-z]+")


def question_methods(question: str) -> set[str]:
    """HTTP methods the verbs of a question point to."""
    words = re.findall(r"[a-z]+", question.lower())
    return {method for word in words for form in word_forms(word) for method in VERB_METHODS.get(form, ())}


@dataclass(frozen=True)
class StructuralReranker:
    """Feature-weighted reranking over the first-stage order (no model)."""

    name: str = "structural"
    method_weight: float = 0.6
    resource_weight: float = 0.8
    arity_weight: float = 0.3
    identifier_weight: float = 0.5
    kind_weight: float = 0.15

    def score(self, query: str, candidates: Sequence[RetrievedChunk]) -> list[float]:
        """First-stage rank prior plus structural evidence."""
        methods = question_methods(query)
        nouns = {normalize_term(t) for t in tokenize(query)}
        identifiers = {match.lower() for match in _IDENTIFIER.findall(query)}
        wants_single = bool(_SINGLE.search(query))
        wants_many = bool(_MANY.search(query))
        asks_fields = bool(
            re.search(r"\b(field|fields|property|properties|schema|model|object|enum|type)\b", query, re.I)
        )
        scores: list[float] = []
        for position, candidate in enumerate(candidates, start=1):
            chunk = candidate.chunk
            score = 1.0 / (1.0 + 0.25 * (position - 1))
            if chunk.kind == "operation" and chunk.path:
                if methods:
                    score += self.method_weight if chunk.method in methods else -self.method_weight / 2
                resource = resource_of(chunk.path)
                if resource and resource in nouns:
                    score += self.resource_weight
                elif resource and any(resource in noun or noun in resource for noun in nouns if len(noun) > 3):
                    score += self.resource_weight / 2
                ends_with_param = chunk.path.rstrip("/").endswith("}")
                if (wants_single and ends_with_param) or (wants_many and not ends_with_param and not wants_single):
                    score += self.arity_weight
                score += -self.kind_weight if asks_fields else self.kind_weight
            elif chunk.kind == "schema":
                name = chunk.covers[0].rsplit(".", 1)[-1].lower() if chunk.covers else ""
                if any(noun in name for noun in nouns if len(noun) > 3):
                    score += self.resource_weight / 2
                score += self.kind_weight if asks_fields else -self.kind_weight
            if identifiers:
                text = chunk.text.lower()
                score += self.identifier_weight * sum(1 for ident in identifiers if ident in text) / len(identifiers)
            scores.append(score)
        return scores
