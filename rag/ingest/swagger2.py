"""Swagger 2.0 → OpenAPI 3.0: the document every later stage reads, converted once on load.

What moves where: `definitions` → `components.schemas` (and every `#/definitions/…` ref with them); shared
`parameters` → `components.parameters` (body and formData ones are inlined where they are used, since 3.0 has
no such parameters); shared `responses` → `components.responses`; `securityDefinitions` → `securitySchemes`
(basic → HTTP Basic, apiKey, oauth2 with its flow renamed); `host`, `basePath` and `schemes` → `servers`; a
body parameter → `requestBody` with a media type per `consumes`; formData parameters → a `requestBody` object
schema (multipart/form-data when a file is sent, else the form types the operation consumes); a response's
`schema` → `content` per `produces`, its `examples` → each media type's `example`; `collectionFormat` →
`style`/`explode`; `type: file` → `string`/`binary`; `x-nullable` → `nullable`; a string `discriminator` →
`{propertyName}`. `x-` extensions stay where they were. Nothing is fetched; the input is not changed.
"""

from __future__ import annotations

import copy
from typing import Any

OPENAPI_VERSION = "3.0.3"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
DEFAULT_MEDIA_TYPE = "application/json"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# Keys of a 2.0 non-body parameter (or header, or items) that describe its value: they move into `schema`.
SCHEMA_KEYS = ("type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
               "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf")
OAUTH_FLOWS = {"implicit": "implicit", "password": "password", "application": "clientCredentials",
               "accessCode": "authorizationCode"}
# collectionFormat → (style, explode) in a query parameter; path and header ones use `simple` for csv.
QUERY_STYLES = {"csv": ("form", False), "multi": ("form", True), "ssv": ("spaceDelimited", False),
                "pipes": ("pipeDelimited", False), "tsv": ("pipeDelimited", False)}
REF_PREFIXES = (("#/definitions/", "#/components/schemas/"), ("#/parameters/", "#/components/parameters/"),
                ("#/responses/", "#/components/responses/"))


def is_swagger2(document: Any) -> bool:
    """Whether a parsed document is a Swagger 2.0 one (`swagger: "2.0"`, no `openapi`)."""
    return isinstance(document, dict) and "openapi" not in document and str(document.get("swagger")) == "2.0"


def rewrite_ref(ref: str) -> str:
    """A 2.0 local ref in its 3.0 place: `#/definitions/Pet` → `#/components/schemas/Pet` (others unchanged)."""
    for old, new in REF_PREFIXES:
        if ref.startswith(old):
            return new + ref[len(old):]
    return ref


def convert_swagger2(swagger: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI 3.0 document of a Swagger 2.0 one (see the module docstring); the input is left as it is."""
    source = copy.deepcopy(swagger)
    converter = _Converter(source)
    document: dict[str, Any] = {"openapi": OPENAPI_VERSION}
    for key, value in source.items():
        if key in ("info", "tags", "externalDocs", "security") or key.startswith("x-"):
            document[key] = value
    document.setdefault("info", {"title": "", "version": ""})
    servers = converter.servers()
    if servers:
        document["servers"] = servers
    document["paths"] = converter.paths()
    components = converter.components()
    if components:
        document["components"] = components
    return document


class _Converter:
    """The conversion of one document: the global defaults (`consumes`, `produces`) and shared parameters."""

    def __init__(self, source: dict[str, Any]) -> None:
        self.source = source
        self.consumes = _media_list(source.get("consumes"))
        self.produces = _media_list(source.get("produces"))
        shared = source.get("parameters")
        self.shared_parameters: dict[str, Any] = shared if isinstance(shared, dict) else {}

    # ------------------------------------------------------------------ top level
    def servers(self) -> list[dict[str, Any]]:
        """`host`, `basePath` and `schemes` as server URLs (a relative URL when there is no host)."""
        host = str(self.source.get("host") or "").strip()
        base = str(self.source.get("basePath") or "").strip()
        if base and not base.startswith("/"):
            base = "/" + base
        if not host:
            return [{"url": base}] if base else []
        schemes = [s for s in self.source.get("schemes") or [] if isinstance(s, str)] or ["https"]
        return [{"url": f"{scheme}://{host}{base}"} for scheme in schemes]

    def components(self) -> dict[str, Any]:
        """`components`: schemas, parameters (not body/formData ones), responses and security schemes."""
        components: dict[str, Any] = {}
        definitions = self.source.get("definitions")
        if isinstance(definitions, dict) and definitions:
            components["schemas"] = {str(name): convert_schema(schema) for name, schema in definitions.items()}
        parameters = {str(name): convert_parameter(p) for name, p in self.shared_parameters.items()
                      if isinstance(p, dict) and p.get("in") not in ("body", "formData")}
        if parameters:
            components["parameters"] = parameters
        responses = self.source.get("responses")
        if isinstance(responses, dict) and responses:
            components["responses"] = {str(code): self.response(r, self.produces) for code, r in responses.items()}
        schemes = self.source.get("securityDefinitions")
        if isinstance(schemes, dict) and schemes:
            components["securitySchemes"] = {str(name): convert_security_scheme(s) for name, s in schemes.items()}
        return components

    # ------------------------------------------------------------------ paths and operations
    def paths(self) -> dict[str, Any]:
        """Every path item with its operations converted (path-level body and formData parameters are given
        to each operation, where 3.0 keeps the request body)."""
        paths = self.source.get("paths")
        converted: dict[str, Any] = {}
        for path, item in (paths.items() if isinstance(paths, dict) else ()):
            if not isinstance(item, dict):
                converted[path] = item
                continue
            shared = [self.resolve_parameter(p) for p in item.get("parameters") or []]
            out: dict[str, Any] = {}
            for key, value in item.items():
                if key == "parameters":
                    kept = [convert_parameter(p) for p in shared if not _is_payload(p)]
                    if kept:
                        out["parameters"] = kept
                elif key in HTTP_METHODS and isinstance(value, dict):
                    out[key] = self.operation(value, [p for p in shared if _is_payload(p)])
                elif key == "$ref" and isinstance(value, str):
                    out[key] = rewrite_ref(value)
                else:
                    out[key] = value
            converted[path] = out
        return converted

    def resolve_parameter(self, parameter: Any) -> Any:
        """A parameter as written, except that a ref to a shared body or formData parameter is replaced by that
        parameter (3.0 has no place for them in `components.parameters`)."""
        if isinstance(parameter, dict) and isinstance(parameter.get("$ref"), str):
            ref = parameter["$ref"]
            name = ref[len("#/parameters/"):] if ref.startswith("#/parameters/") else None
            target = self.shared_parameters.get(name) if name else None
            if isinstance(target, dict) and _is_payload(target):
                return target
        return parameter

    def operation(self, operation: dict[str, Any], path_payload: list[dict[str, Any]]) -> dict[str, Any]:
        """One operation: its parameters split into parameters and a request body, its responses with content."""
        consumes = _media_list(operation.get("consumes")) or self.consumes
        produces = _media_list(operation.get("produces")) or self.produces
        own = [self.resolve_parameter(p) for p in operation.get("parameters") or []]
        names = {(p.get("name"), p.get("in")) for p in own if isinstance(p, dict)}
        payload = [p for p in path_payload if (p.get("name"), p.get("in")) not in names]
        payload += [p for p in own if _is_payload(p)]
        out: dict[str, Any] = {}
        for key, value in operation.items():
            if key in ("consumes", "produces", "schemes"):
                continue
            if key == "parameters":
                kept = [convert_parameter(p) for p in own if not _is_payload(p)]
                if kept:
                    out["parameters"] = kept
                body = request_body(payload, consumes)
                if body is not None:
                    out["requestBody"] = body
            elif key == "responses" and isinstance(value, dict):
                out["responses"] = {str(code): self.response(r, produces) for code, r in value.items()}
            else:
                out[key] = value
        if "parameters" not in operation and payload:
            out["requestBody"] = request_body(payload, consumes)
        return out

    def response(self, response: Any, produces: list[str]) -> Any:
        """A response: `schema` → `content` per media type produced, `examples` → each one's `example`,
        headers with their schemas."""
        if not isinstance(response, dict):
            return response
        if isinstance(response.get("$ref"), str):
            return {"$ref": rewrite_ref(response["$ref"])}
        out: dict[str, Any] = {"description": response.get("description", "")}
        headers = response.get("headers")
        if isinstance(headers, dict) and headers:
            out["headers"] = {str(name): convert_header(h) for name, h in headers.items()}
        schema = response.get("schema")
        examples = response.get("examples") if isinstance(response.get("examples"), dict) else {}
        if isinstance(schema, dict):
            media_types = list(produces or [DEFAULT_MEDIA_TYPE])
            media_types += [m for m in examples if m not in media_types]
            out["content"] = {media: _media(convert_schema(schema), examples.get(media)) for media in media_types}
        for key, value in response.items():
            if key.startswith("x-"):
                out[key] = value
        return out


# ---------------------------------------------------------------------- parameters and bodies
def _is_payload(parameter: Any) -> bool:
    """Whether a (resolved) 2.0 parameter is sent in the body: `in: body` or `in: formData`."""
    return isinstance(parameter, dict) and parameter.get("in") in ("body", "formData")


def _media_list(value: Any) -> list[str]:
    """A `consumes`/`produces` list as media type strings ([] when absent or malformed)."""
    return [str(item) for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _media(schema: dict[str, Any], example: Any = None) -> dict[str, Any]:
    """A media type object with its schema (and example when there is one)."""
    media: dict[str, Any] = {"schema": schema}
    if example is not None:
        media["example"] = example
    return media


def _extensions(node: dict[str, Any]) -> dict[str, Any]:
    """A node's `x-` extensions."""
    return {key: value for key, value in node.items() if isinstance(key, str) and key.startswith("x-")}


def value_schema(node: dict[str, Any]) -> dict[str, Any]:
    """The schema of a 2.0 non-body parameter, header or items object (its type keys; `file` → binary)."""
    schema: dict[str, Any] = {}
    for key in SCHEMA_KEYS:
        if key in node:
            value = node[key]
            schema[key] = value_schema(value) if key == "items" and isinstance(value, dict) else value
    if schema.get("type") == "file":
        schema.update(type="string", format="binary")
    if node.get("x-nullable") is True:
        schema["nullable"] = True
    return schema


def convert_parameter(parameter: Any) -> Any:
    """A 2.0 query, header or path parameter as a 3.0 one (schema, `collectionFormat` → style/explode); a
    ref is moved to its 3.0 place."""
    if not isinstance(parameter, dict):
        return parameter
    if isinstance(parameter.get("$ref"), str):
        return {"$ref": rewrite_ref(parameter["$ref"])}
    out = {key: parameter[key] for key in ("name", "in", "description", "required", "allowEmptyValue")
           if key in parameter}
    if out.get("in") == "path":
        out["required"] = True
    out["schema"] = value_schema(parameter)
    if out["schema"].get("type") == "array":
        fmt = str(parameter.get("collectionFormat") or "csv")
        if out.get("in") == "query":
            style, explode = QUERY_STYLES.get(fmt, ("form", False))
            out.update(style=style, explode=explode)
        else:
            out.update(style="simple", explode=False)
    out.update(_extensions(parameter))
    return out


def convert_header(header: Any) -> Any:
    """A 2.0 response header: its type keys become its schema."""
    if not isinstance(header, dict):
        return header
    out: dict[str, Any] = {"description": header["description"]} if "description" in header else {}
    out["schema"] = value_schema(header)
    out.update(_extensions(header))
    return out


def request_body(payload: list[dict[str, Any]], consumes: list[str]) -> dict[str, Any] | None:
    """The request body of an operation's body parameter, or of its formData parameters (None without either)."""
    body = next((p for p in payload if p.get("in") == "body"), None)
    if body is not None:
        schema = convert_schema(body.get("schema") if isinstance(body.get("schema"), dict) else {})
        media_types = [m for m in consumes if m not in FORM_TYPES] or consumes or [DEFAULT_MEDIA_TYPE]
        out: dict[str, Any] = {"content": {media: _media(schema) for media in media_types}}
        if "description" in body:
            out["description"] = body["description"]
        if body.get("required"):
            out["required"] = True
        out.update(_extensions(body))
        return out
    fields = [p for p in payload if p.get("in") == "formData"]
    return form_body(fields, consumes) if fields else None


def form_body(fields: list[dict[str, Any]], consumes: list[str]) -> dict[str, Any]:
    """formData parameters as one object schema (with their descriptions and `x-` extensions), sent as the form
    types the operation consumes (multipart/form-data when a file is sent)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    encoding: dict[str, Any] = {}
    for field in fields:
        name = str(field.get("name", ""))
        schema = value_schema(field)
        if "description" in field:
            schema["description"] = field["description"]
        schema.update(_extensions(field))
        properties[name] = schema
        if field.get("required"):
            required.append(name)
        if schema.get("type") == "array":
            style, explode = QUERY_STYLES.get(str(field.get("collectionFormat") or "csv"), ("form", False))
            encoding[name] = {"style": style, "explode": explode}
    schema_object: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema_object["required"] = required
    sends_file = any(p.get("type") == "file" for p in fields)
    media_types = [m for m in consumes if m in FORM_TYPES]
    if sends_file and "multipart/form-data" not in media_types:
        media_types = ["multipart/form-data"]
    media_types = media_types or ["application/x-www-form-urlencoded"]
    content = {media: _media(schema_object) for media in media_types}
    for media in content:
        if encoding and media == "application/x-www-form-urlencoded":
            content[media]["encoding"] = encoding
    return {"content": content, "required": bool(required)} if required else {"content": content}


# ---------------------------------------------------------------------- schemas and security
def convert_schema(schema: Any) -> Any:
    """A 2.0 schema as 3.0 reads it: refs to `definitions` moved, `type: file` → binary string, `x-nullable` →
    `nullable`, a string `discriminator` → `{propertyName}`; walked without recursion (shared nodes once)."""
    pending: list[Any] = [schema]
    seen: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen or not isinstance(node, (dict, list)):
            continue
        seen.add(id(node))
        if isinstance(node, list):
            pending.extend(node)
            continue
        if isinstance(node.get("$ref"), str):
            node["$ref"] = rewrite_ref(node["$ref"])
        if node.get("type") == "file":
            node.update(type="string", format="binary")
        if node.get("x-nullable") is True:
            node["nullable"] = True
        if isinstance(node.get("discriminator"), str):
            node["discriminator"] = {"propertyName": node["discriminator"]}
        pending.extend(value for key, value in node.items() if key not in ("example", "enum", "default"))
    return schema


def convert_security_scheme(scheme: Any) -> Any:
    """A 2.0 security definition as a 3.0 security scheme: basic → HTTP Basic, apiKey as it is, oauth2 with
    its flow (`accessCode` → `authorizationCode`, `application` → `clientCredentials`)."""
    if not isinstance(scheme, dict):
        return scheme
    kind = scheme.get("type")
    out: dict[str, Any] = {}
    if kind == "basic":
        out = {"type": "http", "scheme": "basic"}
    elif kind == "apiKey":
        out = {key: scheme[key] for key in ("type", "name", "in") if key in scheme}
    elif kind == "oauth2":
        flow = {key: scheme[key] for key in ("authorizationUrl", "tokenUrl") if key in scheme}
        flow["scopes"] = scheme.get("scopes") if isinstance(scheme.get("scopes"), dict) else {}
        out = {"type": "oauth2", "flows": {OAUTH_FLOWS.get(str(scheme.get("flow")), "implicit"): flow}}
    else:
        out = {key: value for key, value in scheme.items() if not key.startswith("x-")}
    if "description" in scheme:
        out["description"] = scheme["description"]
    out.update(_extensions(scheme))
    return out
