"""Naive chunks of an OpenAPI spec: the raw JSON of each path (all its methods) and of each component schema,
nothing resolved: the baseline the smart chunks are compared with."""

from __future__ import annotations

import json
from typing import Any

from rag.chunk import Chunk, schema_id
from rag.ingest.clean_text import clean_prose
from rag.ingest.refs import json_pointer
from rag.ingest.spec import HTTP_METHODS, component_schemas, is_cors_preflight
from rag.tokens import estimate_tokens, truncate_to_tokens

NAIVE_EMBEDDING_CHARS = 800  # ≈ the 256 word pieces the packaged embedder reads of JSON
NAIVE_EMBEDDING_TOKENS = 256  # dense JSON (punctuation, ids) can estimate above 256 in 800 chars
PROSE_KEYS = frozenset({"description", "summary"})
VALUE_KEYS = frozenset({"example", "examples", "default", "enum", "const"})  # data: kept exactly as written
NAMED_KEYS = frozenset({"properties", "patternProperties", "responses", "headers", "content", "encoding", "callbacks",
                        "links", "schemas"})


def prose_cleaned(node: Any, names: bool = False) -> Any:
    """A copy of a spec node whose descriptions and summaries are clean text (`clean_prose`: no HTML, no escape
    sequences); examples, defaults, enums and every other value stay exactly as written. `names`: the node's keys
    are names (an object's `properties`), so a field called `default` or `description` is still a schema."""
    if isinstance(node, list):
        return [prose_cleaned(item) for item in node]
    if not isinstance(node, dict):
        return node
    cleaned: dict[Any, Any] = {}
    for key, value in node.items():
        if names:
            cleaned[key] = prose_cleaned(value)
        elif key in PROSE_KEYS and isinstance(value, str):
            cleaned[key] = clean_prose(value)
        else:
            cleaned[key] = value if key in VALUE_KEYS else prose_cleaned(value, names=key in NAMED_KEYS)
    return cleaned


def naive_chunks(document: dict[str, Any], api: str, source: str) -> list[Chunk]:
    """Raw JSON per path (all its methods) and per schema; nothing resolved, the prose cleaned (`prose_cleaned`). A
    path covers its operations, not its CORS preflight (`is_cors_preflight`), though its JSON shows it."""
    chunks: list[Chunk] = []
    for section in ("paths", "webhooks"):
        items = document.get(section)
        for path, path_item in (items or {}).items() if isinstance(items, dict) else []:
            if not isinstance(path_item, dict):
                continue
            methods = dict.fromkeys(str(m).lower() for m, node in path_item.items()
                                    if isinstance(node, dict) and not is_cors_preflight(str(m).lower(), node))
            covers = tuple(f"{api}.{section}.{path}.{m}" for m in methods if m in HTTP_METHODS)
            raw = json.dumps({path: prose_cleaned(path_item)}, indent=1, ensure_ascii=False, default=str)
            pointer = json_pointer(section, str(path))
            chunks.append(_naive(api, source, f"{section}.{path}", raw, covers, pointer, "operation", str(path)))
    for name, schema in component_schemas(document).items():
        raw = json.dumps({name: prose_cleaned(schema)}, indent=1, ensure_ascii=False, default=str)
        pointer = json_pointer("components", "schemas", str(name))
        chunks.append(_naive(api, source, f"components.{name}", raw, (schema_id(api, name),), pointer, "schema", ""))
    return chunks


def _naive(api: str, source: str, local: str, raw: str, covers: tuple[str, ...], pointer: str, kind: str,
           path: str) -> Chunk:
    """One naive chunk: `raw` JSON as text, its first characters as the embedding text."""
    return Chunk(
        chunk_id=f"naive/{api}.{local}",
        strategy="naive",
        api=api,
        kind=kind,  # type: ignore[arg-type]
        text=raw,
        embedding_text=truncate_to_tokens(raw[:NAIVE_EMBEDDING_CHARS], NAIVE_EMBEDDING_TOKENS),
        covers=covers,
        source=source,
        json_pointer=pointer,
        path=path,
        tokens=estimate_tokens(raw),
        title=local,
    )
