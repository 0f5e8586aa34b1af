"""The lead of an answer about rate limits: a policy of the whole API, which no field's limit states.

"What's the rate limit of the Hetzner API?" is answered by what the documentation says of a rate limit (a guide's
section, the API's own description: `rag.generate.doc_lead`), else by an operation's description that states one
("The rate limit is three requests every 2 seconds."), else by how the operations signal it: a `429` response and
the response headers that count requests (`X-RateLimit-Limit`, `Retry-After`), read from the typed responses of the
best-ranked operation that has them. A field named `rate` or a `max length` of `rate_request_id` is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.generate.context import ContextBlock
from rag.generate.doc_lead import SENTENCE_END, docs_lead
from rag.generate.operation_facts import response_text
from rag.generate.said import api_name, cited, is_operation, operation_heading, operation_label
from rag.query import Query

TOO_MANY_REQUESTS = "429"
RATE_HEADER = re.compile(r"rate.?limit|retry.?after", re.I)
RATE_LIMIT_WORDS = re.compile(r"\brate.?limit", re.I)
MAX_HEADERS = 8  # limit, remaining, reset, reset-after, bucket, scope, global, retry-after


def rate_limit_lead(query: Query, blocks: Sequence[ContextBlock]) -> tuple[str, str, tuple[int, ...]]:
    """The sentence about the rate limit, the line under it and the blocks the lines below it may come from (none
    named: any); ("", "", ()) when neither the documentation nor an operation's responses say anything of one."""
    sentence, detail, number = docs_lead(query, blocks)
    if sentence and RATE_LIMIT_WORDS.search(f"{sentence} {detail}"):  # not "rates … with limited address info"
        return sentence, detail, (number,)
    if stated := described_rate_limit(blocks):
        block, said = stated
        return cited(f"{operation_heading(block.chunk)}: {said}", block), "", (block.number,)
    for block in blocks:
        if not is_operation(block):
            continue
        throttled = next((r for r in block.chunk.responses if r.code == TOO_MANY_REQUESTS), None)
        # Each header once: DigitalOcean's responses (200, 401, 429, 500 …) all carry the same three.
        first: dict[str, tuple[str, str]] = {}
        for response in block.chunk.responses:
            for name, text in response.headers:
                if RATE_HEADER.search(name):
                    first.setdefault(name.lower(), (name, text))
        headers = list(first.values())
        if throttled is None and not headers:
            continue
        said = [f"answers {response_text(throttled)} when requests come too fast"] if throttled is not None else []
        if headers:
            said.append("its responses carry " + "; ".join(
                f"`{name}`" + (f" ({text.rstrip('.')})" if text else "") for name, text in headers[:MAX_HEADERS]))
        return cited(f"{operation_label(block.chunk)} " + ", and ".join(said), block), "", ()
    return "", "", ()


def unstated_rate_limit(blocks: Sequence[ContextBlock]) -> str:
    """What a reader asking for the rate limit is told when nothing retrieved states one: that nothing does, of
    which APIs' documentation, and what was looked for."""
    apis = ", ".join(dict.fromkeys(api_name(block.chunk.api) for block in blocks if block.chunk.api))
    return (f"Nothing retrieved from the {apis} documentation states a rate limit: no page or operation description "
            f"mentions one, and no operation answers {TOO_MANY_REQUESTS} (Too Many Requests).")


def described_rate_limit(blocks: Sequence[ContextBlock]) -> tuple[ContextBlock, str] | None:
    """The first sentence of an operation's description that states a rate limit (SendGrid's `POST
    /contactdb/recipients`: "The rate limit is three requests every 2 seconds."), with its block; None when no
    operation among the blocks describes one."""
    for block in blocks:
        if not is_operation(block):
            continue
        for sentence in SENTENCE_END.split(" ".join(block.chunk.description.split())):
            if RATE_LIMIT_WORDS.search(sentence):
                return block, sentence.strip().rstrip(".")
    return None
