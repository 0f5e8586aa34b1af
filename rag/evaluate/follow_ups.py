"""Template follow-ups for any indexed spec: an exchange about one operation, then a short question asking for
another operation on the same resource ("How can I add a new order?" → "Use POST /orders …" → "and how do I get
rid of one?" → DELETE /orders/{id}).

People's follow-ups name little of their own: the conversation's subject and the verb of the new question decide.
The learned ranker trains on these (eval_data/ranker.toml) so that it sees that shape on every corpus, not only on
the few follow-ups the team wrote. The first turn's wording comes from the operation's summary
(`rag.evaluate.generate.paraphrase`); the earlier answer names the operation in one of several styles.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from rag.corpus.path_words import resource_segments
from rag.errors import ConfigError
from rag.evaluate.generate import paraphrase
from rag.evaluate.questions import Question
from rag.evaluate.spec_facts import OperationFacts, operation_facts

# What the new question asks, by the method of the operation it wants and whether that addresses one item.
ASKS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("GET", False): ("and how do I list them all?", "can I see all of them?", "how do I get every one of those?"),
    ("GET", True): ("how do I fetch a single one?", "and look one up by its id?", "can I read one back later?"),
    ("POST", False): ("how do I make a new one?", "and create one?", "can I add another one?"),
    ("PUT", True): ("can I change it afterwards?", "how do I update one?", "and edit it later?"),
    ("PATCH", True): ("can I change it afterwards?", "how do I update one?", "and edit it later?"),
    ("DELETE", True): ("how do I get rid of one?", "and delete it?", "can I remove it again?"),
}
ANSWERS: tuple[str, ...] = (
    "Use `{label}` ({summary}).",
    "Send a {method} request to `{path}`.",
    "You can use the {summary} endpoint: {label}.",
)


def _kind(operation: OperationFacts) -> tuple[str, bool]:
    return operation.method, operation.path.rstrip("/").endswith("}")


def _groups(operations: Sequence[OperationFacts]) -> dict[str, list[OperationFacts]]:
    """Operations by resource (the collection and its item share one: `/orders`, `/orders/{id}`)."""
    groups: dict[str, list[OperationFacts]] = {}
    for operation in operations:
        if _kind(operation) in ASKS:
            groups.setdefault("/".join(resource_segments(operation.path)), []).append(operation)
    return {key: group for key, group in groups.items() if len({_kind(op) for op in group}) >= 2}


def follow_up_questions(index: object, api: str, limit: int = 20, seed: int = 0) -> list[Question]:
    """Up to `limit` follow-ups about one indexed API (one per resource and pair of actions, shuffled by `seed`)."""
    snapshot = index.snapshot()  # type: ignore[attr-defined]
    if api not in snapshot.apis():
        raise ConfigError(f"api={api!r} is not indexed; indexed: {', '.join(snapshot.apis()) or 'none'}")
    chunks = sorted((c for c in snapshot.chunks.values() if c.api == api and c.strategy == "smart"
                     and c.kind == "operation" and c.method and c.covers), key=lambda c: c.chunk_id)
    rng = random.Random(seed)
    found: list[Question] = []
    for key, group in sorted(_groups([operation_facts(c) for c in chunks]).items()):
        first = rng.choice(group)
        wanted = rng.choice([op for op in group if _kind(op) != _kind(first)])
        phrase = paraphrase(first.summary, rng) or f"call {first.label}"
        summary = first.summary or first.label
        answer = rng.choice(ANSWERS).format(label=first.label, summary=summary, method=first.method, path=first.path)
        relevant = [op.structural_id for op in group if _kind(op) == _kind(wanted)]
        found.append(Question(
            id=f"fu-{api}-{key}", question=rng.choice(ASKS[_kind(wanted)]), category="follow_up", answerable=True,
            relevant_ids=tuple(relevant), required_keywords=(wanted.method, wanted.path), ground_truth="",
            history=({"role": "user", "content": f"How can I {phrase}?"}, {"role": "assistant", "content": answer}),
        ))
    rng.shuffle(found)
    return [replace(q, id=f"gen-fu-{api}-{n:03d}") for n, q in enumerate(found[:limit], start=1)]
