"""The lead of an answer about rate limits: a policy of the whole API, which no field's limit states.

"What's the rate limit of the Hetzner API?" is answered by what the documentation says (a guide's section, the
API's own description: `rag.generate.doc_lead`), else by how the operations signal it: a `429` response and the
response headers that count requests (`X-RateLimit-Limit`, `Retry-After`), read from the typed responses of the
best-ranked operation that has them. A field named `rate` or a `max length` of `rate_request_id` is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.generate.context import ContextBlock
from rag.generate.doc_lead import docs_lead
from rag.generate.operation_facts import response_text
from rag.generate.said import cited, is_operation, operation_label
from rag.query import Query

TOO_MANY_REQUESTS = "429"
RATE_HEADER = re.compile(r"rate.?limit|retry.?after", re.I)
MAX_HEADERS = 8  # limit, remaining, reset, reset-after, bucket, scope, global, retry-after


def rate_limit_lead(query: Query, blocks: Sequence[ContextBlock]) -> tuple[str, str, tuple[int, ...]]:
    """The sentence about the rate limit, the line under it and the blocks the lines below it may come from (none
    named: any); ("", "", ()) when neither the documentation nor an operation's responses say anything of one."""
    sentence, detail, number = docs_lead(query, blocks)
    if sentence:
        return sentence, detail, (number,)
    for block in blocks:
        if not is_operation(block):
            continue
        throttled = next((r for r in block.chunk.responses if r.code == TOO_MANY_REQUESTS), None)
        headers = [(name, text) for r in block.chunk.responses for name, text in r.headers if RATE_HEADER.search(name)]
        if throttled is None and not headers:
            continue
        said = [f"answers {response_text(throttled)} when requests come too fast"] if throttled is not None else []
        if headers:
            said.append("its responses carry " + "; ".join(
                f"`{name}`" + (f" ({text.rstrip('.')})" if text else "") for name, text in headers[:MAX_HEADERS]))
        return cited(f"{operation_label(block.chunk)} " + ", and ".join(said), block), "", ()
    return "", "", ()

