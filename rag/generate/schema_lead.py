"""The lead of a question about a schema (named, or retrieved first): its required fields, the asked fact of one of
its fields, or its fields, and the operations that use it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import Chunk
from rag.corpus.vocabulary import schema_name
from rag.generate.context import ContextBlock
from rag.generate.named import name_parts, named_fields, question_words
from rag.generate.operation_facts import MAX_FIELDS
from rag.generate.said import cited, field_facts_text
from rag.query import Query


def schema_lead(query: Query, blocks: Sequence[ContextBlock]) -> tuple[str, str]:
    """The sentence about the schema the question names (else the first block, when a schema the question is
    about) and the line naming the operations that use it; ("", "") when the question is about no schema."""
    question = query.focus
    schemas = [b for b in blocks if b.chunk.kind == "schema" and b.chunk.schema_fields]
    named = [b for b in schemas if re.search(rf"\b{re.escape(schema_title(b.chunk))}\b", question)]
    first = schemas[0] if schemas and blocks[0] is schemas[0] else None
    if first is not None and not name_parts(schema_title(first.chunk)) & question_words(question):
        first = None  # retrieved first, but nothing in the question is about it
    chosen = named[0] if named else first
    if chosen is None:
        return "", ""
    name, fields = schema_title(chosen.chunk), chosen.chunk.schema_fields
    asks = query.analysis.asks
    if "required" in asks:
        required = [f"`{f.name}`" for f in fields if f.required]
        sentence = (f"In the {name} schema, the required fields are {', '.join(required)}" if required
                    else f"The {name} schema marks no field as required")
    else:
        asked = [f for _, f in named_fields(question, [chosen]) if asks & {"default", "limit", "allowed_values"}]
        if asked:
            sentence = f"In the {name} schema, {field_facts_text(asked[0], asks, about=True)}"
        else:
            listed = ", ".join(f"`{f.name}`" for f in fields[:MAX_FIELDS]) + (", …" if len(fields) > MAX_FIELDS else "")
            sentence = f"The {name} schema has the fields {listed}"
    used = f"Used by {', '.join(chosen.chunk.used_by[:4])}" if chosen.chunk.used_by else ""
    return cited(sentence, chosen), cited(used, chosen) if used else ""


def schema_title(chunk: Chunk) -> str:
    """The schema's name (`Employee` of `hris.components.Employee`), else the chunk's title."""
    return (schema_name(chunk.covers[0]) if chunk.covers else "") or chunk.title
