"""Read OpenAPI documents from JSON or YAML with errors that name the file, line and column."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from rag.errors import IngestError
from rag.ingest.swagger2 import convert_swagger2, is_swagger2

MAX_EXPANDED_NODES = 2_000_000
MAX_DEPTH = 500  # well inside Python's recursion limit, which the chunker's recursive rendering needs
SPEC_EXTENSIONS = (".json", ".yaml", ".yml")

try:
    _SafeBase: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - the C loader ships with PyYAML wheels
    _SafeBase = yaml.SafeLoader


class _YamlLoader(_SafeBase):  # type: ignore[misc, valid-type]
    """The safe loader, except that timestamps stay strings: OpenAPI is JSON, where
    `example: 2024-01-31T10:00:00Z` is the string as written, not a datetime."""


_YamlLoader.add_constructor("tag:yaml.org,2002:timestamp", lambda loader, node: loader.construct_scalar(node))


def decode_text(source: str, data: bytes) -> str:
    """Decode UTF-8 (with or without BOM) or fail with a message naming the byte offset."""
    if b"\x00" in data[:8192]:
        raise IngestError(source, "looks like a binary file (NUL bytes); expected UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise IngestError(
            source, f"not UTF-8 text (invalid byte at offset {error.start}); save the file as UTF-8"
        ) from None


def parse_structured(source: str, text: str) -> Any:
    """Parse JSON or YAML text (JSON first when the name or content says so)."""
    looks_json = source.lower().endswith(".json") or text.lstrip().startswith(("{", "["))
    if looks_json:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            if source.lower().endswith(".json"):
                raise IngestError(
                    source,
                    f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}",
                ) from None
        except RecursionError:
            raise IngestError(source, "JSON is nested too deeply to read safely") from None
        else:
            check_expansion(source, data, limit=sys.maxsize)  # no aliases in JSON; the depth limit still applies
            return data
    try:
        data = yaml.load(text, Loader=_YamlLoader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = error.problem or error.context or "syntax error"
        raise IngestError(source, f"invalid YAML{where}: {problem}") from None
    except yaml.YAMLError as error:
        raise IngestError(source, f"invalid YAML: {error}") from None
    except RecursionError:
        raise IngestError(source, "YAML is nested too deeply to read safely") from None
    check_expansion(source, data)
    string_keys(data)
    return data


def document_nodes(document: Any) -> Iterator[dict[Any, Any] | list[Any]]:
    """Every mapping and list of a parsed document, each once (depth first, without recursion), so that YAML
    aliases that share a node or loop back to one never make the walk repeat or run forever. A mapping's keys
    may be changed in place before the walk moves on: its children are read after it is yielded."""
    pending: list[Any] = [document]
    seen: set[int] = set()
    while pending:
        node = pending.pop()
        if not isinstance(node, (dict, list)) or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        pending.extend(node.values() if isinstance(node, dict) else node)


def string_keys(data: Any) -> None:
    """Turn non-string mapping keys into strings in place (YAML reads `200:` as an int and
    `2020-01-01:` as a date; JSON documents and the chunker expect string keys)."""
    for node in document_nodes(data):
        if isinstance(node, dict) and not all(isinstance(key, str) for key in node):
            items = [(key if isinstance(key, str) else _key_text(key), value) for key, value in node.items()]
            node.clear()
            node.update(items)


def _key_text(key: Any) -> str:
    if isinstance(key, bool) or key is None:
        return json.dumps(key)  # true, false, null, as a JSON reader would have seen them
    return str(key)


def check_expansion(source: str, data: Any, limit: int = MAX_EXPANDED_NODES) -> None:
    """Reject YAML whose aliases expand into a huge or recursive tree ("billion laughs"), and any
    document nested more than MAX_DEPTH levels deep (counted through aliases, as the chunker sees it)."""
    sizes: dict[int, tuple[int, int]] = {}  # id -> (expanded nodes, levels below)
    in_progress: set[int] = set()

    def too_deep() -> IngestError:
        return IngestError(source, f"nested too deeply (more than {MAX_DEPTH} levels)")

    def size(node: Any, depth: int) -> tuple[int, int]:
        if not isinstance(node, (dict, list)):
            return 1, 0
        key = id(node)
        if key in sizes:
            if depth + sizes[key][1] > MAX_DEPTH:  # a shared node seen higher up can sit deeper here
                raise too_deep()
            return sizes[key]
        if key in in_progress:
            raise IngestError(source, "YAML aliases form a recursive structure; not allowed")
        if depth > MAX_DEPTH:
            raise too_deep()
        in_progress.add(key)
        children = node.values() if isinstance(node, dict) else node
        total, height = 1, 0
        for child in children:
            child_total, child_height = size(child, depth + 1)
            total += child_total
            height = max(height, child_height + 1)
            if total > limit:
                raise IngestError(
                    source,
                    f"YAML aliases expand to more than {limit:,} nodes (an alias bomb?); not allowed",
                )
        in_progress.discard(key)
        sizes[key] = (total, height)
        return total, height

    size(data, 0)


def validate_openapi(source: str, data: Any) -> dict[str, Any]:
    """Check that `data` is an OpenAPI 3.x document, or raise an IngestError saying why not."""
    if data is None:  # YAML with nothing but comments, or JSON `null`
        raise IngestError(source, "the file is empty (no content besides comments or null)")
    if not isinstance(data, dict):
        raise IngestError(
            source, f"not an OpenAPI document: top level is {type(data).__name__}, expected an object"
        )
    if "swagger" in data and "openapi" not in data:
        raise IngestError(
            source,
            f"Swagger {data.get('swagger')} is not supported; allowed: Swagger 2.0, OpenAPI 3.0.x and 3.1.x",
        )
    missing = [key for key in ("openapi", "paths") if key not in data]
    if "paths" in missing and ("webhooks" in data or "components" in data) and "openapi" in data:
        missing = []
    if missing:
        raise IngestError(
            source, "not an OpenAPI document: missing " + " and ".join(f"'{key}'" for key in missing)
        )
    version = str(data["openapi"])
    if not re.match(r"^3\.[0-9]+(\.[0-9]+)?", version):
        raise IngestError(
            source, f"OpenAPI version {version!r} is not supported; allowed: 3.0.x, 3.1.x"
        )
    paths = data.get("paths") or {}
    if not isinstance(paths, dict):
        raise IngestError(source, "'paths' must be an object mapping paths to operations")
    return data


def openapi_document(source: str, data: Any) -> tuple[dict[str, Any], str]:
    """A parsed document as a validated OpenAPI 3.x one, and the version it was converted from: a Swagger 2.0
    document is converted to OpenAPI 3.0 (`rag.ingest.swagger2`) and "2.0" returned beside it, else ""."""
    if is_swagger2(data):
        if not isinstance(data.get("paths"), dict):
            raise IngestError(source, "not a Swagger 2.0 document: missing 'paths' (an object of paths)")
        return validate_openapi(source, convert_swagger2(data)), "2.0"
    return validate_openapi(source, data), ""


def load_openapi(path: Path | str, data: bytes | None = None, name: str | None = None) -> dict[str, Any]:
    """Load and validate an OpenAPI 3.x document from a file (or its bytes); Swagger 2.0 is converted to 3.0."""
    path = Path(path)
    source = name or path.name
    raw = data if data is not None else path.read_bytes()
    text = decode_text(source, raw)
    if not text.strip():
        raise IngestError(source, "the file is empty")
    return openapi_document(source, parse_structured(source, text))[0]


def looks_like_openapi(source: str, text: str) -> bool:
    """Cheap check used to route .json/.yaml files: does the text mention an OpenAPI version?"""
    head = text[:4096]
    return bool(re.search(r"""["']?(openapi|swagger)["']?\s*:""", head))
