"""Safe resolution of local `$ref`s: cycles never loop, external refs are never fetched."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from rag.ingest.loader import document_nodes

LOCAL_PREFIX = "#/"
SCHEMA_PREFIX = "#/components/schemas/"
MISSING = object()  # what `follow_pointer` returns for a place a document does not have


def escape_pointer_token(token: str) -> str:
    """Escape one JSON-pointer token (RFC 6901: `~` → `~0`, `/` → `~1`)."""
    return token.replace("~", "~0").replace("/", "~1")


def follow_pointer(node: Any, pointer: str) -> Any:
    """The node a JSON pointer (`/components/schemas/Pet`; "" for `node` itself) names below `node`, each token
    unescaped (RFC 6901); `MISSING` when there is no such place."""
    for raw in pointer.split("/")[1:] if pointer else []:
        token = unescape_pointer_token(raw)
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return MISSING
    return node


def unescape_pointer_token(token: str) -> str:
    """Undo `escape_pointer_token`."""
    return token.replace("~1", "/").replace("~0", "~")


def json_pointer(*tokens: str) -> str:
    """Build a JSON pointer such as `/paths/~1unified~1hris~1employees/get`."""
    return "".join("/" + escape_pointer_token(str(token)) for token in tokens)


def _last_token(ref: str) -> str:
    token = ref.rstrip("/").rsplit("/", 1)[-1]
    if "%" in token:  # a URI fragment may be percent-encoded (RFC 6901, section 6)
        token = unquote(token)
    return unescape_pointer_token(token)


def ref_name(ref: str) -> str:
    """The readable name of a ref: the last pointer token (`#/components/schemas/Employee` → `Employee`)."""
    return _last_token(ref) or ref


# Pointer tokens that are the structure of a schema or an operation, not a name: a ref into another operation's
# response (`…/responses/200/content/application~1json/schema/properties/ssh_keys/items`) names nothing.
STRUCTURE_TOKENS = frozenset({
    "items", "schema", "schemas", "properties", "additionalProperties", "allOf", "anyOf", "oneOf", "not", "content",
    "responses", "requestBody", "parameters", "prefixItems", "patternProperties",
})
# A ref to a definition itself (`#/components/schemas/items`, `#/definitions/Pet`): its last token is its name.
_DEFINITION = re.compile(r"^#/(?:components/[^/]+|definitions)/[^/]+/?$")


def names_a_definition(ref: str) -> bool:
    """Whether a ref's last token names what it points to (a component, `#/components/schemas/Employee`, whatever
    its name; else a token that is not a place in a structure: `items`, an index, a media type)."""
    token = _last_token(ref)
    if _DEFINITION.match(ref):
        return bool(token)
    return bool(token) and token not in STRUCTURE_TOKENS and not token.isdigit() and "/" not in token


def component_schema_name(ref: str) -> str | None:
    """The component schema a ref names (`#/components/schemas/Employee` → `Employee`), else None
    (external refs and refs into other places, such as a property of a schema, name none)."""
    if not isinstance(ref, str) or not ref.startswith(SCHEMA_PREFIX):
        return None
    token = ref[len(SCHEMA_PREFIX) :]
    return ref_name(ref) if token and "/" not in token else None


def is_local(ref: str) -> bool:
    """Whether `ref` points inside the same document."""
    return ref.startswith(LOCAL_PREFIX) or ref == "#"


@dataclass
class RefResolver:
    """Looks up local refs in one document and records the ones it cannot or will not follow."""

    document: dict[str, Any]
    unresolved: set[str] = field(default_factory=set)
    _cache: dict[str, Any] = field(default_factory=dict)

    def lookup(self, ref: str) -> Any | None:
        """Return the node a local ref points to, or None (recorded) for external or broken refs."""
        if not isinstance(ref, str) or not is_local(ref):
            self.unresolved.add(str(ref))
            return None
        if ref in self._cache:
            return self._cache[ref]
        node = self._walk(ref)
        if node is MISSING and "%" in ref:  # a URI fragment may be percent-encoded (RFC 6901, section 6)
            node = self._walk(unquote(ref))
        if node is MISSING:
            self.unresolved.add(ref)
            return None
        self._cache[ref] = node
        return node

    def _walk(self, ref: str) -> Any:
        return follow_pointer(self.document, ref[1:])

    def check_all(self) -> None:
        """Look up every `$ref` in the document once, so that each external or broken ref is
        recorded in `unresolved` even where no chunk renders it (nothing is ever fetched)."""
        for node in document_nodes(self.document):
            if isinstance(node, dict) and isinstance(node.get("$ref"), str):
                self.lookup(node["$ref"])

    def deref(self, node: Any, max_hops: int = 20) -> tuple[Any, str | None]:
        """Follow a chain of `$ref`s (at most `max_hops`) and return (target, first ref name)."""
        name: str | None = None
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and max_hops > 0:
            ref = node["$ref"]
            if ref in seen:
                return {}, name
            seen.add(ref)
            if name is None and names_a_definition(ref):
                name = ref_name(ref)
            target = self.lookup(ref)
            if target is None:
                return {"x-unresolved-ref": ref}, name
            node = target
            max_hops -= 1
        return node, name
