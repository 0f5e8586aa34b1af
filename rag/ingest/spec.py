"""Reading an OpenAPI 3.x document: its operations, parameters, schemas and security schemes."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rag.ingest.refs import json_pointer

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_API_NAME = re.compile(r"[^a-z0-9_-]+")


def api_name_from_source(source: str) -> str:
    """Spec name from a file name: `hris.json` → `hris`, `My Spec.v2.yaml` → `my_spec_v2`."""
    stem = source.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".json", ".yaml", ".yml"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    name = _API_NAME.sub("_", stem.lower()).strip("_")
    return name or "spec"


_DOMAIN = re.compile(r"(?:[a-z0-9-]+\.)*([a-z0-9-]{4,})\.[a-z]{2,}")


def api_alias_from_source(source: str) -> str:
    """How people name an API whose file is named after its domain: `asana.com.json` (indexed as `asana_com`) →
    `asana`, `api.getpostman.com.yaml` → `getpostman`; "" for any other file name (a page of documentation, a spec
    not named after a domain) or a name under four letters (`dev.to.json`)."""
    name = source.replace("\\", "/").rsplit("/", 1)[-1].lower()
    stem = next((name.removesuffix(suffix) for suffix in (".json", ".yaml", ".yml") if name.endswith(suffix)), "")
    found = _DOMAIN.fullmatch(stem)
    return found.group(1) if found else ""


@dataclass(frozen=True)
class Operation:
    """One operation (or webhook) found in the document."""

    section: str  # "paths" or "webhooks"
    path: str
    method: str
    node: dict[str, Any]
    path_item: dict[str, Any]
    key: str = ""  # the method key exactly as written in the document (for the JSON pointer)

    @property
    def structural_id(self) -> str:
        """`{api}.paths.{path}.{method}` without the api prefix."""
        return f"{self.section}.{self.path}.{self.method}"

    @property
    def pointer(self) -> str:
        """JSON pointer of the operation object."""
        return json_pointer(self.section, self.path, self.key or self.method)


def is_cors_preflight(method: str, node: dict[str, Any]) -> bool:
    """Whether an operation is only a CORS preflight, as API gateways generate one beside every path: an OPTIONS
    with no summary, description or operationId whose responses declare nothing but `Access-Control-*` headers. It
    documents nothing a developer calls."""
    if method != "options" or any(node.get(key) for key in ("summary", "description", "operationId")):
        return False
    responses = node.get("responses")
    headers = [str(name).lower() for response in (responses.values() if isinstance(responses, dict) else ())
               if isinstance(response, dict) and isinstance(response.get("headers"), dict)
               for name in response["headers"]]
    return bool(headers) and all(name.startswith("access-control-") for name in headers)


def iter_operations(document: dict[str, Any]) -> list[Operation]:
    """Every operation under `paths` and `webhooks`, in document order (CORS preflights left out:
    `is_cors_preflight`)."""
    found: list[Operation] = []
    for section in ("paths", "webhooks"):
        items = document.get(section)
        if not isinstance(items, dict):
            continue
        for path, path_item in items.items():
            if not isinstance(path_item, dict):
                continue
            seen: set[str] = set()
            for key, node in path_item.items():
                method = str(key).lower()
                # "GET" beside "get" (not valid OpenAPI) would give two chunks the same id: the first wins.
                if method in HTTP_METHODS and method not in seen and isinstance(node, dict):
                    seen.add(method)
                    if is_cors_preflight(method, node):
                        continue
                    found.append(Operation(section, str(path), method, node, path_item, str(key)))
    return found


def parameter_schema(parameter: Any) -> dict[str, Any]:
    """A parameter's schema, from `schema` or else from its first `content` entry ({} when none)."""
    if not isinstance(parameter, dict):
        return {}
    schema = parameter.get("schema")
    if not isinstance(schema, dict):
        content = parameter.get("content")
        if isinstance(content, dict) and content:
            first = next(iter(content.values()))
            schema = first.get("schema") if isinstance(first, dict) else None
    return schema if isinstance(schema, dict) else {}


def component_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """The `components.schemas` mapping (empty when absent or malformed)."""
    components = document.get("components")
    schemas = components.get("schemas") if isinstance(components, dict) else None
    return schemas if isinstance(schemas, dict) else {}


def security_schemes(document: dict[str, Any]) -> dict[str, Any]:
    """The `components.securitySchemes` mapping."""
    components = document.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, dict) else None
    return schemes if isinstance(schemes, dict) else {}


def describe_scheme(scheme: Any) -> str:
    """Readable security scheme type: `HTTP Basic`, `API key in header X-Key`, `OAuth2 …`."""
    if not isinstance(scheme, dict):
        return "unknown"
    kind = str(scheme.get("type", "unknown"))
    if kind == "http":
        name = str(scheme.get("scheme", "")).lower()
        text = {"basic": "HTTP Basic", "bearer": "HTTP Bearer"}.get(name, f"HTTP {name}".strip())
        if scheme.get("bearerFormat"):
            text += f" ({scheme['bearerFormat']})"
        return text
    if kind == "apiKey":
        return f"API key in {scheme.get('in', '?')} '{scheme.get('name', '?')}'"
    if kind == "oauth2":
        flows = scheme.get("flows")
        names = ", ".join(flows) if isinstance(flows, dict) else ""
        return f"OAuth2 ({names})" if names else "OAuth2"
    if kind == "openIdConnect":
        return f"OpenID Connect ({scheme.get('openIdConnectUrl', '')})"
    return kind


def content_schemas(node: Any) -> list[dict[str, Any]]:
    """The schemas of a request body's or response's `content`, one per media type that has one."""
    content = node.get("content") if isinstance(node, dict) else None
    if not isinstance(content, dict):
        return []
    media_types = [media for media in content.values() if isinstance(media, dict)]
    return [media["schema"] for media in media_types if isinstance(media.get("schema"), dict)]
