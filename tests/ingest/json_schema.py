"""OpenAPI schemas as JSON Schema (draft 2020-12), for validating generated request bodies with `jsonschema`.

OpenAPI 3.0's schema object is not JSON Schema: `nullable: true` becomes a `null` type (or a `null` alternative),
a boolean `exclusiveMinimum` / `exclusiveMaximum` becomes the bound itself, and a read-only property is not
required of a request. 3.1 schemas (`type: [..., "null"]`) pass through. `$ref`s are resolved with the project's
resolver (`rag.ingest.refs.RefResolver`); every referenced schema becomes one `$defs` entry, so recursive schemas
stay finite.
"""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from rag.ingest.refs import RefResolver

# Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
        "unevaluatedProperties", "unevaluatedItems")
_MANY = ("allOf", "oneOf", "anyOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
_DROPPED = ("nullable", "discriminator", "xml", "externalDocs", "example", "deprecated")


class OpenAPISchemas:
    """Converts the schemas of one document, collecting every `$ref` target once in `defs`."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.resolver = RefResolver(document)
        self.defs: dict[str, Any] = {}

    def validator(self, schema: Any) -> Draft202012Validator:
        """A validator for `schema` (format checks on), with every schema it references."""
        root = self.convert(schema)
        return Draft202012Validator({**root, "$defs": dict(self.defs)}, format_checker=FormatChecker())

    def convert(self, node: Any) -> Any:
        """One schema node as JSON Schema (see the module docstring)."""
        if isinstance(node, bool) or not isinstance(node, dict):
            return node if isinstance(node, bool) else {}
        if isinstance(node.get("$ref"), str):
            reference = {"$ref": "#/$defs/" + self._define(node["$ref"])}
            siblings = {key: value for key, value in node.items() if key != "$ref"}
            return self._nullable({"allOf": [reference], **self._converted(siblings)}, siblings) if siblings \
                else reference
        return self._nullable(self._converted(node), node)

    def _define(self, ref: str) -> str:
        key = re.sub(r"[^A-Za-z0-9_.-]", "_", ref)
        if key not in self.defs:
            self.defs[key] = {}
            target, _ = self.resolver.deref({"$ref": ref})
            self.defs[key] = self.convert(target)
        return key

    def _converted(self, node: dict[str, Any]) -> dict[str, Any]:
        converted: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED or key.startswith("x-"):
                continue
            if key in _ONE:
                converted[key] = self.convert(value)
            elif key in _MANY and isinstance(value, list):
                converted[key] = [self.convert(item) for item in value]
            elif key in _MAP and isinstance(value, dict):
                converted[key] = {name: self.convert(item) for name, item in value.items()}
            else:
                converted[key] = value
        for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if isinstance(node.get(bound), bool):  # OpenAPI 3.0: a flag on `minimum` / `maximum`
                converted.pop(bound)
                if node[bound] and limit in node:
                    converted[bound] = converted.pop(limit)
        if isinstance(converted.get("required"), list) and isinstance(node.get("properties"), dict):
            read_only = {name for name, prop in node["properties"].items() if self._read_only(prop)}
            converted["required"] = [name for name in converted["required"] if name not in read_only]
        return converted

    def _read_only(self, schema: Any) -> bool:
        target, _ = self.resolver.deref(schema)
        return isinstance(target, dict) and target.get("readOnly") is True

    @staticmethod
    def _nullable(converted: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
        """`nullable: true` (OpenAPI 3.0) as JSON Schema: `null` joins the type and the enum, else an alternative."""
        if node.get("nullable") is not True:
            return converted
        kind = converted.get("type")
        if isinstance(kind, str) and "$ref" not in converted and not any(k in converted for k in _MANY):
            converted = {**converted, "type": [kind, "null"]}
            if isinstance(converted.get("enum"), list) and None not in converted["enum"]:
                converted["enum"] = [*converted["enum"], None]
            return converted
        return {"anyOf": [converted, {"type": "null"}]}
