"""What a diff compares of one version: its operations' parameters and the fields of request bodies and
responses, `$ref`s resolved as ingestion resolves them (`SchemaProse`: `allOf` merged, cycles cut), each field
keyed by the component schema it is defined in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag.ingest.refs import RefResolver, component_schema_name
from rag.ingest.schema_prose import SchemaProse, enum_values, show_value

MAX_FIELD_DEPTH = 6  # nested fields compared below a body or response (component schemas have their own rows)
# (keyword, label, narrowing direction in a request: +1 when a larger value narrows, -1 when a smaller one does)
LIMITS: tuple[tuple[str, str, int], ...] = (
    ("minimum", "minimum", +1),
    ("exclusiveMinimum", "exclusive minimum", +1),
    ("minLength", "min length", +1),
    ("minItems", "min items", +1),
    ("maximum", "maximum", -1),
    ("exclusiveMaximum", "exclusive maximum", -1),
    ("maxLength", "max length", -1),
    ("maxItems", "max items", -1),
)


@dataclass(frozen=True)
class FieldState:
    """What is compared of one field, and where it is defined (`owner`: a component schema, `local`: the
    field's path inside it)."""

    type: str
    required: bool
    enum: tuple[str, ...]
    default: str
    limits: tuple[tuple[str, str], ...]
    deprecated: bool
    owner: str = ""
    local: str = ""


@dataclass
class SpecReader:
    """Reads one document's operations, parameters and body/response fields, refs resolved as ingestion does."""

    document: dict[str, Any]
    prose: SchemaProse = field(init=False)

    def __post_init__(self) -> None:
        self.prose = SchemaProse(RefResolver(self.document), max_depth=2)

    def deref(self, node: Any) -> Any:
        """A node with its `$ref` chain followed ({} when broken)."""
        target, _ = self.prose.resolver.deref(node)
        return target if isinstance(target, dict) else {}

    def state(self, schema: Any, required: bool, owner: str = "", local: str = "") -> FieldState:
        """The compared facts of one schema node."""
        merged = self.prose.merged_keywords(schema)
        enum = enum_values(merged) if isinstance(merged.get("enum"), list) else ()
        items = self.deref(merged.get("items")) if isinstance(merged.get("items"), dict) else {}
        if not enum and isinstance(items.get("enum"), list):
            enum = enum_values(items)
        limits = tuple((label, show_value(merged[key])) for key, label, _ in LIMITS
                       if key in merged and isinstance(merged[key], (int, float)) and not isinstance(merged[key], bool))
        return FieldState(
            type=self.prose.type_label(schema),
            required=required,
            enum=tuple(sorted(enum)),
            default=show_value(merged["default"]) if "default" in merged else "",
            limits=limits,
            deprecated=merged.get("deprecated") is True,
            owner=owner,
            local=local,
        )

    def fields(self, schema: Any) -> dict[str, FieldState]:
        """Every field under a body or response schema (`data[].name`), the root itself as `""`."""
        found: dict[str, FieldState] = {"": self.state(schema, True)}
        self._walk(schema, "", "", "", (), 0, found)
        return found

    def _walk(self, schema: Any, prefix: str, owner: str, local: str, stack: tuple[str, ...], depth: int,
              found: dict[str, FieldState]) -> None:
        if depth > MAX_FIELD_DEPTH or not isinstance(schema, dict):
            return
        ref = schema.get("$ref")
        name = component_schema_name(ref) if isinstance(ref, str) else None
        if name:
            if name in stack:
                return
            stack, owner, local = (*stack, name), name, ""
        target = self.deref(schema)
        if target.get("type") == "array" or "items" in target:
            self._walk(target.get("items"), f"{prefix}[]", owner, f"{local}[]", stack, depth + 1, found)
            return
        properties, required = self.prose.merged_object(schema, stack[:-1] if name else stack)
        for keyword in ("oneOf", "anyOf"):
            for option in target.get(keyword) or [] if isinstance(target.get(keyword), list) else []:
                option_properties, _ = self.prose.merged_object(option, stack)
                for key, value in option_properties.items():
                    properties.setdefault(key, value)
        for key, value in properties.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            inner = f"{local}.{key}" if local else str(key)
            found[path] = self.state(value, key in required, owner, inner)
            self._walk(value, path, owner, inner, stack, depth + 1, found)

    def parameters(self, operation: Any) -> dict[str, dict[str, Any]]:
        """The operation's parameters (path-level ones included) by `location name`."""
        found: dict[str, dict[str, Any]] = {}
        for source in (operation.path_item.get("parameters"), operation.node.get("parameters")):
            for raw in source if isinstance(source, list) else []:
                parameter = self.deref(raw)
                if parameter.get("name"):
                    found[f"{parameter.get('in', '?')} {parameter['name']}"] = parameter
        return found

    def body_schema(self, node: Any) -> dict[str, Any] | None:
        """The schema of a request body or response (the JSON media type's, else the first one's)."""
        content = self.deref(node).get("content")
        if not isinstance(content, dict) or not content:
            return None
        key = next((k for k in content if "json" in str(k)), next(iter(content)))
        media = content[key] if isinstance(content[key], dict) else {}
        return media.get("schema") if isinstance(media.get("schema"), dict) else None

    def responses(self, operation: Any) -> dict[str, Any]:
        """Responses by status code."""
        responses = operation.node.get("responses")
        return {str(code): node for code, node in responses.items()} if isinstance(responses, dict) else {}

    def security(self, operation: Any) -> tuple[str, ...]:
        """The names of the security schemes the operation requires (the document's when it says none)."""
        requirements = operation.node.get("security", self.document.get("security"))
        names = {str(name) for requirement in requirements or [] if isinstance(requirement, dict)
                 for name in requirement}
        return tuple(sorted(names))
