"""The request example of an operation, built at ingest from the resolved spec: the server URL, the path with its
parameters filled, the required query and header parameters, and a request body holding the required fields of
its schema (`RequestExample`, stored with the operation's chunk; `rag.request_example` renders it as curl and
Python).

Values come from the spec where it gives them (a `const`, an `example`, a `default`, the first `enum` value),
else from the type: a sample for a known `format` (date-time, email, uri, uuid …), the smallest number the limits
allow, `true`, one item of an array, and `<name>` for a string (else a string of its `pattern`:
`rag.ingest.pattern_sample`); `oneOf` / `anyOf` take their first alternative,
`allOf` parts are merged, and a `$ref` seen again on the way down is cut short instead of looping."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from rag.chunk import RequestExample, SecurityFacts
from rag.ingest.given_values import fits
from rag.ingest.pattern_sample import pattern_sample
from rag.ingest.refs import RefResolver
from rag.ingest.spec import Operation, parameter_schema
from rag.request_example import JSON_MEDIA, matches_pattern

PLACEHOLDER_HOST = "https://<host>"
MAX_DEPTH = 12  # nesting of a body sample; deeper required objects are left empty
SHOWN_OPTIONAL_FIELDS = 3  # a body that requires no field shows its first fields
WRAPPER_DEPTH = 2  # how deep a body that requires nothing shows the first fields of objects inside it
# Header parameters a request example does not list: OpenAPI ignores them as parameters (auth and the media type
# say them), and a client sets them itself.
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
FORMAT_SAMPLES: dict[str, str] = {
    "date-time": "2024-01-15T09:30:00Z",
    "date": "2024-01-15",
    "time": "09:30:00Z",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "uri": "https://example.com",
    "url": "https://example.com",
    "uri-reference": "https://example.com",
    "iri": "https://example.com",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
    "byte": "U3BlY1JBRw==",
    "binary": "<file>",
    "duration": "P1D",
}
_MISSING = object()
_TEMPLATE = re.compile(r"\{([^{}]+)\}")


@dataclass
class Sampler:
    """Sample values of the schemas of one document (its `$ref`s followed by `resolver`)."""

    resolver: RefResolver

    def flattened(self, schema: Any, stack: tuple[str, ...] = ()) -> tuple[dict[str, Any], tuple[str, ...]]:
        """The schema with its `$ref` followed and its `allOf` parts merged (their properties and required names
        joined; keywords written on the schema itself win), and the refs followed so far."""
        target, name = self.resolver.deref(schema)
        if not isinstance(target, dict) or "x-unresolved-ref" in target or (name and name in stack):
            return {}, stack
        stack = (*stack, name) if name else stack
        merged: dict[str, Any] = {}
        properties: dict[str, Any] = {}
        required: list[str] = []
        parts = target.get("allOf")
        for part in parts if isinstance(parts, list) else []:
            flat, _ = self.flattened(part, stack)
            properties.update(flat.pop("properties", {}))
            required += flat.pop("required", [])
            merged.update(flat)
        merged.update({key: value for key, value in target.items() if key != "allOf"})
        if isinstance(target.get("properties"), dict):
            properties.update(target["properties"])
        if isinstance(target.get("required"), list):
            required += [str(name) for name in target["required"]]
        if properties:
            merged["properties"] = properties
        if required:
            merged["required"] = list(dict.fromkeys(required))
        return merged, stack

    def value(self, schema: Any, name: str = "value", stack: tuple[str, ...] = (), depth: int = 0) -> Any:
        """A value valid against `schema` (see the module docstring)."""
        target, ref = self.resolver.deref(schema)
        if ref and ref in stack:  # a schema within itself: its empty value ends the recursion
            return _empty(self.flattened(target)[0])
        flat, stack = self.flattened(schema, stack)
        given = given_value(flat)
        if given is not _MISSING and self.holds(given, flat, stack):
            return given
        if depth > MAX_DEPTH:
            return _empty(flat)
        alternative = first_alternative(flat)
        if alternative is not None:
            own = {key: value for key, value in flat.items() if key not in ("oneOf", "anyOf")}
            chosen, inner = self.flattened(alternative, stack)
            if _structured(own) and schema_type(chosen) in ("object", ""):
                chosen = joined(own, chosen)  # `anyOf: [{required: [a]}, …]` names fields of the schema itself
            return self.value(chosen, name, inner, depth + 1)
        return self.typed(flat, name, stack, depth)

    def typed(self, flat: dict[str, Any], name: str, stack: tuple[str, ...], depth: int) -> Any:
        """A value of the schema's type when the spec gives none."""
        kind = schema_type(flat)
        if kind == "object":
            properties: dict[str, Any] = flat["properties"] if isinstance(flat.get("properties"), dict) else {}
            sent = {
                field: self.value(properties.get(field, {}), field, stack, depth + 1)
                for field in flat.get("required", [])
                if not (isinstance(properties.get(field), dict) and self.read_only(properties[field], stack))
            }
            return self.least_properties(flat, sent, stack, depth)
        if kind == "array":
            if flat.get("maxItems") == 0:
                return []
            count = max(1, int(flat.get("minItems") or 0))
            return [self.value(flat.get("items", {}), name, stack, depth + 1) for _ in range(count)]
        if kind in ("integer", "number"):
            return smallest_number(flat, integer=kind == "integer")
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        return sample_string(flat, name)

    def holds(self, value: Any, flat: dict[str, Any], stack: tuple[str, ...], depth: int = 0) -> bool:
        """Whether a whole array or object the spec gives as an example holds what the schema says of its items and
        fields too (`fits` of each, all the way down: BeezUP's `orders` example carries `"accountId": "1234"` for an
        integer); any other value has been checked by `fits`."""
        if depth > MAX_DEPTH or not isinstance(value, list | dict):
            return True
        if isinstance(value, list):
            items = flat.get("items")
            return not isinstance(items, dict) or all(self._holds_as(item, items, stack, depth) for item in value)
        fields = flat.get("properties") if isinstance(flat.get("properties"), dict) else {}
        return all(self._holds_as(item, fields[name], stack, depth) for name, item in value.items() if name in fields)

    def _holds_as(self, value: Any, schema: Any, stack: tuple[str, ...], depth: int) -> bool:
        flat, stack = self.flattened(schema, stack)
        return fits(value, flat) and self.holds(value, flat, stack, depth + 1)

    def least_properties(self, flat: dict[str, Any], sent: dict[str, Any], stack: tuple[str, ...], depth: int
                         ) -> dict[str, Any]:
        """`sent` with as many more fields as the object's `minProperties` asks (AWS's `"Actions": {…}` must hold
        one): its first optional fields (`first_fields`), else, for a map, one entry `"<key>"` of its values'
        schema."""
        least = flat.get("minProperties")
        if not isinstance(least, int) or isinstance(least, bool) or len(sent) >= least:
            return sent
        filled = dict(sent)
        for field, value in self.first_fields(flat, least, stack, depth + 1).items():
            if len(filled) >= least:
                break
            filled.setdefault(field, value)
        extra = flat.get("additionalProperties")
        if len(filled) < least and extra is not False:
            values = extra if isinstance(extra, dict) else {}
            for number in range(least - len(filled)):
                filled[f"<key{number + 1 if number else ''}>"] = self.value(values, "value", stack, depth + 1)
        return filled

    def first_fields(self, schema: Any, count: int, stack: tuple[str, ...] = (), depth: int = 0) -> dict[str, Any]:
        """The first `count` fields of an object a request may send (neither read-only nor deprecated), sampled, those
        whose sample is empty last; one that is itself an object requiring nothing shows its own first fields
        (Jumpseller's `{"customer": {…}}`)."""
        flat, stack = self.flattened(schema, stack)
        properties: dict[str, Any] = flat["properties"] if isinstance(flat.get("properties"), dict) else {}
        sendable = [name for name, field in properties.items()
                    if not self.read_only(field, stack) and not self.flattened(field, stack)[0].get("deprecated")]
        shown: dict[str, Any] = {}
        empty: dict[str, Any] = {}  # shows nothing of what it takes (Postmark's `Attachments`: `[{}]`)
        for name in sendable:
            value = self.value(properties[name], name, stack, depth + 1)
            if value == {} and depth < WRAPPER_DEPTH:
                value = self.first_fields(properties[name], count, stack, depth + 1)
            (empty if value in ({}, [], [{}]) else shown)[name] = value
            if len(shown) == count:
                break
        return shown or dict(list(empty.items())[:count])

    def read_only(self, schema: Any, stack: tuple[str, ...]) -> bool:
        """Whether a property is read-only: a request does not send it, even when the schema requires it."""
        flat, _ = self.flattened(schema, stack)
        return flat.get("readOnly") is True


def given_value(flat: dict[str, Any]) -> Any:
    """The value the spec gives for a schema: its `const`, an `example` (or the first of `examples`) or `default`
    of its type, else its first `enum` value; `_MISSING` when it gives none."""
    if "const" in flat:
        return flat["const"]
    examples = flat.get("examples")
    candidates = [flat["example"]] if "example" in flat else []
    candidates += examples[:1] if isinstance(examples, list) else []
    candidates += [flat["default"]] if "default" in flat else []
    for candidate in candidates:
        if candidate is not None and fits(candidate, flat) and _plain(candidate, flat):
            return candidate
    enum = flat.get("enum")
    if isinstance(enum, list) and enum:
        return next((value for value in enum if value is not None), None)
    return _MISSING


def _plain(value: Any, flat: dict[str, Any]) -> bool:
    """An object is given as a whole only by a schema without properties (a free-form map); an object with
    properties is built from them, so that only its required fields are sent."""
    return not (isinstance(value, dict) and flat.get("properties"))


def first_alternative(flat: dict[str, Any]) -> Any | None:
    """The first alternative of a `oneOf` / `anyOf` that is not just `null`."""
    for keyword in ("oneOf", "anyOf"):
        options = flat.get(keyword)
        if isinstance(options, list):
            kept = [option for option in options if not (isinstance(option, dict) and option.get("type") == "null")]
            if kept:
                return kept[0]
    return None


def joined(own: dict[str, Any], alternative: dict[str, Any]) -> dict[str, Any]:
    """A schema and one of its alternatives as one schema: their properties and required names together (the
    alternative's keywords win)."""
    properties = {**own.get("properties", {}), **alternative.get("properties", {})}
    required = list(dict.fromkeys([*own.get("required", []), *alternative.get("required", [])]))
    return {**own, **alternative, **({"properties": properties} if properties else {}),
            **({"required": required} if required else {})}


def _structured(flat: dict[str, Any]) -> bool:
    return bool(flat.get("properties") or flat.get("required") or flat.get("type"))


def _empty(flat: dict[str, Any]) -> Any:
    kind = schema_type(flat)
    return {} if kind == "object" else [] if kind == "array" else None if kind == "null" else ""


def schema_type(flat: dict[str, Any]) -> str:
    """The schema's type (the first that is not `null` of a list), or what its keywords imply; "" for any."""
    kind = flat.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if isinstance(kind, str):
        return kind
    if flat.get("properties") or flat.get("required") or "additionalProperties" in flat:
        return "object"
    return "array" if "items" in flat else ""


def smallest_number(flat: dict[str, Any], integer: bool) -> int | float:
    """1, moved inside the schema's bounds and onto its `multipleOf`."""
    value: float = 1
    low, high = flat.get("minimum"), flat.get("maximum")
    step = 1 if integer else 0.5
    if isinstance(flat.get("exclusiveMinimum"), (int, float)) and not isinstance(flat["exclusiveMinimum"], bool):
        low, low_open = flat["exclusiveMinimum"], True
    else:
        low_open = flat.get("exclusiveMinimum") is True
    if isinstance(low, (int, float)) and (value < low or (low_open and value <= low)):
        value = low + step if low_open else low
    if isinstance(flat.get("exclusiveMaximum"), (int, float)) and not isinstance(flat["exclusiveMaximum"], bool):
        high, high_open = flat["exclusiveMaximum"], True
    else:
        high_open = flat.get("exclusiveMaximum") is True
    if isinstance(high, (int, float)) and (value > high or (high_open and value >= high)):
        value = high - step if high_open else high
    multiple = flat.get("multipleOf")
    if isinstance(multiple, (int, float)) and multiple > 0:
        value = math.ceil(value / multiple) * multiple
    return math.ceil(value) if integer else value


def sample_string(flat: dict[str, Any], name: str) -> str:
    """A sample for a known `format`, else `<name>`, fitted to the length limits; a string of the schema's
    `pattern` when that does not match it (`pattern_sample`: `^AC[0-9a-fA-F]{32}$`, the same string every time)."""
    fmt = flat.get("format")
    value = FORMAT_SAMPLES.get(fmt, f"<{name}>") if isinstance(fmt, str) else f"<{name}>"
    pattern = flat.get("pattern")
    low, high = flat.get("minLength"), flat.get("maxLength")
    low, high = (low if isinstance(low, int) else 0), (high if isinstance(high, int) else None)
    if isinstance(pattern, str) and not matches_pattern(pattern, value, unreadable=True):
        sampled = pattern_sample(pattern, low, high)
        if sampled is not None:
            return sampled
    if high is not None and len(value) > high:
        value = "x" * max(high, low)
    if len(value) < low:
        value += "x" * (low - len(value))
    return value


# --- the request ----------------------------------------------------------------------------------------------


def request_example(
    resolver: RefResolver,
    document: dict[str, Any],
    operation: Operation,
    parameters: list[dict[str, Any]],
    security: tuple[SecurityFacts, ...],
) -> RequestExample | None:
    """The request that calls an operation (None for a webhook: the API sends it, nobody calls it); `parameters`
    are the operation's, `$ref`s resolved, and `security` its requirement's schemes."""
    if operation.section != "paths":
        return None
    sampler = Sampler(resolver)
    base = server_url(operation, document)
    by_location: dict[str, list[dict[str, Any]]] = {}
    for parameter in parameters:
        if "x-unresolved-ref" not in parameter:
            by_location.setdefault(str(parameter.get("in", "")), []).append(parameter)
    path = fill_path(operation.path, by_location.get("path", []), sampler)
    query = [pair for p in by_location.get("query", []) if is_required(p)
             for pair in query_pairs(p, parameter_value(p, sampler))]
    headers = [(str(p.get("name")), as_text(parameter_value(p, sampler))) for p in by_location.get("header", [])
               if is_required(p) and str(p.get("name", "")).lower() not in IGNORED_HEADERS]
    media_type, body, files = request_body(resolver, operation, sampler)
    first = min((scheme.alternative for scheme in security), default=0)
    return RequestExample(
        method=operation.method.upper(),
        url=base.rstrip("/") + path,
        query=tuple(query),
        headers=tuple(headers),
        media_type=media_type,
        body=body,
        files=files,
        auth=tuple(s for s in security if s.alternative == first and s.type != "unknown"),
        credential=credential_name(base, document),
    )


def is_required(parameter: dict[str, Any]) -> bool:
    """Whether a parameter is required (`required: true`, or the string "true" some specs write)."""
    flag = parameter.get("required")
    return flag is True or (isinstance(flag, str) and flag.strip().lower() == "true")


def server_url(operation: Operation, document: dict[str, Any]) -> str:
    """The first server of the operation, else of its path, else of the spec, its variables filled with their
    defaults (`<name>` without one); a scheme-relative URL (`//host`) over https; a relative URL or none is put under
    `https://<host>`."""
    for node in (operation.node, operation.path_item, document):
        servers = node.get("servers")
        server = next((s for s in servers if isinstance(s, dict) and s.get("url")), None) if isinstance(
            servers, list) else None
        if server is not None:
            break
    else:
        return PLACEHOLDER_HOST
    variables: dict[str, Any] = server["variables"] if isinstance(server.get("variables"), dict) else {}

    def filled(match: re.Match[str]) -> str:
        variable = variables.get(match.group(1))
        default = variable.get("default") if isinstance(variable, dict) else None
        return str(default) if default is not None else f"<{match.group(1)}>"

    url = _TEMPLATE.sub(filled, str(server["url"])).strip()
    if url.startswith("//"):  # scheme-relative (Postmark's `//api.postmarkapp.com`): the host is given
        return "https:" + url
    return url if re.match(r"^[a-z][a-z0-9+.-]*://", url, re.I) else PLACEHOLDER_HOST + "/" + url.lstrip("/")


def credential_name(base: str, document: dict[str, Any]) -> str:
    """The prefix of the variables that hold the secrets: the name of the server's domain (`api.stackone.com` →
    STACKONE), else the first word of the spec's title, else API."""
    host = urlsplit(base).hostname or ""
    labels = [label for label in host.split(".") if label]
    name = labels[-2] if len(labels) >= 2 and not host.replace(".", "").isdigit() else ""
    if not name or "<" in base.split("/")[2]:
        info: dict[str, Any] = document["info"] if isinstance(document.get("info"), dict) else {}
        words = re.findall(r"[A-Za-z][A-Za-z0-9]*", str(info.get("title", "")))
        name = words[0] if words else "API"
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_") or "API"


def parameter_value(parameter: dict[str, Any], sampler: Sampler, placeholder: bool = False) -> Any:
    """A parameter's value: its own `example` (or first of `examples`), else its schema's (see `Sampler`); with
    `placeholder`, only a value the spec gives, else `<name>` (a path parameter names what to fill in)."""
    if parameter.get("example") is not None:
        return parameter["example"]
    examples = parameter.get("examples")
    if isinstance(examples, dict):
        for example in examples.values():
            resolved, _ = sampler.resolver.deref(example)
            if isinstance(resolved, dict) and resolved.get("value") is not None:
                return resolved["value"]
    name = str(parameter.get("name", "value"))
    schema = parameter_schema(parameter)
    if placeholder:
        given = given_value(sampler.flattened(schema)[0])
        return f"<{name}>" if given is _MISSING or given is None else given
    return sampler.value(schema, name)


def fill_path(path: str, parameters: list[dict[str, Any]], sampler: Sampler) -> str:
    """The path with each `{name}` replaced by its parameter's value (URL-encoded) or `<name>`."""
    by_name = {str(p.get("name")): p for p in parameters}

    def filled(match: re.Match[str]) -> str:
        parameter = by_name.get(match.group(1))
        value = parameter_value(parameter, sampler, placeholder=True) if parameter else f"<{match.group(1)}>"
        text = as_text(value)
        return text if text == f"<{match.group(1)}>" else quote(text, safe="")

    return _TEMPLATE.sub(filled, path.partition("#")[0])


def as_text(value: Any) -> str:
    """A parameter value as sent: `true` for True, JSON for an object or list, the text of anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def query_pairs(parameter: dict[str, Any], value: Any) -> list[tuple[str, str]]:
    """The (name, value) pairs a query parameter adds: one per item of an array (`explode`, the default) or the
    items joined by commas; an object's fields as `name[field]` (`deepObject`) or by their own names."""
    name = str(parameter.get("name"))
    style = parameter.get("style", "form")
    explode = parameter.get("explode", style == "form")
    if isinstance(value, list):
        return [(name, as_text(item)) for item in value] if explode else [(name, ",".join(map(as_text, value)))]
    if isinstance(value, dict):
        if style == "deepObject":
            return [(f"{name}[{key}]", as_text(item)) for key, item in value.items()]
        if explode:
            return [(str(key), as_text(item)) for key, item in value.items()]
        return [(name, ",".join(f"{key},{as_text(item)}" for key, item in value.items()))]
    return [(name, as_text(value))]


def body_sample(sampler: Sampler, schema: Any) -> Any:
    """The sample a request body of `schema` sends: its required fields filled, or (a body that requires nothing)
    its first fields, which show what it takes."""
    value = sampler.value(schema, "body")
    return sampler.first_fields(schema, SHOWN_OPTIONAL_FIELDS) if value == {} else value


def request_body(resolver: RefResolver, operation: Operation, sampler: Sampler) -> tuple[str, str, tuple[str, ...]]:
    """The body's media type (a JSON one first), its sample as JSON text and the fields that are files (a
    `binary` string of a multipart or form body); ("", "", ()) when the operation takes no body."""
    body, _ = resolver.deref(operation.node.get("requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return "", "", ()
    media_type = next((str(m) for m in content if JSON_MEDIA.search(str(m))), str(next(iter(content))))
    media = content[media_type] if isinstance(content[media_type], dict) else {}
    schema = media.get("schema") if isinstance(media.get("schema"), dict) else {}
    value = body_sample(sampler, schema)
    files: tuple[str, ...] = ()
    if isinstance(value, dict) and not JSON_MEDIA.search(media_type):
        properties = sampler.flattened(schema)[0].get("properties", {})
        fields = {name: sampler.flattened(properties.get(name, {}))[0] for name in value}
        files = tuple(name for name, field in fields.items()
                      if field.get("format") in ("binary", "base64") or field.get("contentMediaType"))
    return media_type, json.dumps(value, ensure_ascii=False), files
