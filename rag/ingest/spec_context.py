"""What every part of chunking one OpenAPI spec shares: the document, its API name and source, the `$ref`
resolver, the security schemes, and which operations use each component schema (noted while the operations
are chunked, read when the schemas are)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rag.chunk import SecurityFacts
from rag.ingest.clean_text import clean_prose
from rag.ingest.refs import RefResolver, component_schema_name
from rag.ingest.spec import Operation, content_schemas, describe_scheme, security_schemes

EMBEDDING_TOKENS = 200  # the embedding text of a smart chunk (operation, schema, overview, conventions)


@dataclass
class SpecContext:
    """One spec being chunked (see the module docstring)."""

    document: dict[str, Any]
    api: str
    source: str
    resolver: RefResolver = field(init=False)
    schemes: dict[str, Any] = field(init=False)
    used_by: dict[str, list[str]] = field(default_factory=dict)  # schema → `METHOD /path` of its users
    payload_of: dict[str, list[str]] = field(default_factory=dict)  # schema → operations it is the payload of

    def __post_init__(self) -> None:
        self.resolver = RefResolver(self.document)
        self.schemes = security_schemes(self.document)

    def scheme_facts(self, name: str, scopes: Any = (), alternative: int = 0) -> SecurityFacts:
        """One security scheme of the spec as typed facts (`$ref`s resolved; an unknown name keeps its name)."""
        scheme, _ = self.resolver.deref(self.schemes.get(name))
        scheme = scheme if isinstance(scheme, dict) else {}
        kind = str(scheme.get("type", "unknown"))
        flows = scheme.get("flows") if isinstance(scheme.get("flows"), dict) else {}
        urls = [str(flow.get(key)) for flow in flows.values() if isinstance(flow, dict)
                for key in ("authorizationUrl", "tokenUrl") if flow.get(key)]
        if scheme.get("openIdConnectUrl"):
            urls.append(str(scheme["openIdConnectUrl"]))
        location = str(scheme.get("in", "")) if kind == "apiKey" else ("header" if kind in self._HEADER_TYPES else "")
        parameter = str(scheme.get("name", "")) if kind == "apiKey" else ("Authorization" if location else "")
        return SecurityFacts(
            name=name,
            type=kind,
            scheme=str(scheme.get("scheme", "")).lower(),
            bearer_format=str(scheme.get("bearerFormat", "")),
            location=location,
            parameter=parameter,
            flows=tuple(str(flow) for flow in flows),
            urls=tuple(dict.fromkeys(urls)),
            scopes=tuple(str(scope) for scope in scopes) if isinstance(scopes, list) else (),
            description=clean_prose(scheme.get("description")),
            alternative=alternative,
        )

    _HEADER_TYPES = ("http", "oauth2", "openIdConnect")

    def security_facts(self, requirement: Any) -> tuple[SecurityFacts, ...]:
        """A security requirement list resolved to its schemes, each numbered by its alternative."""
        if not isinstance(requirement, list):
            return ()
        return tuple(
            self.scheme_facts(str(name), scopes, position)
            for position, alternative in enumerate(requirement)
            if isinstance(alternative, dict)
            for name, scopes in alternative.items()
        )

    def scheme_alternatives(self, operations: Sequence[Operation]) -> tuple[SecurityFacts, ...]:
        """The ways the spec lets a request authenticate, the most used first: each distinct set of schemes a
        requirement names (the document's, each of the `operations`') is one alternative, its schemes all required
        (API2Cart's operations take `x-api-key` and `x-store-key`, seven of them `x-api-key` alone); a scheme no
        requirement names is an alternative of its own after them."""
        stated = [self.document.get("security"), *(op.node.get("security") for op in operations)]
        uses = Counter(tuple(name for name in alternative if name in self.schemes)
                       for requirement in stated if isinstance(requirement, list)
                       for alternative in requirement if isinstance(alternative, dict))
        uses.pop((), None)
        required = [names for names, _ in uses.most_common()]
        named = {name for names in required for name in names}
        alternatives = [*required, *((name,) for name in self.schemes if name not in named)]
        return tuple(self.scheme_facts(name, alternative=number)
                     for number, names in enumerate(alternatives) for name in names)

    def security_text(self, requirement: Any) -> str:
        """Describe a security requirement list, naming each scheme's type."""
        if not isinstance(requirement, list):
            return ""
        if not requirement:
            return "none (public)"
        names: list[str] = []
        for alternative in requirement:
            if isinstance(alternative, dict):
                if not alternative:
                    names.append("none (optional)")
                for name, scopes in alternative.items():
                    kind = describe_scheme(self.schemes.get(name))
                    scope_text = f", scopes: {', '.join(map(str, scopes))}" if scopes else ""
                    names.append(f"{name} ({kind}{scope_text})")
        return " or ".join(names)

    def payload_schemas(self, operation: Operation) -> list[str]:
        """Component schemas that are an operation's whole request body or success (2xx) response."""
        bodies: list[Any] = [operation.node.get("requestBody")]
        responses = operation.node.get("responses")
        if isinstance(responses, dict):
            bodies += [raw for code, raw in responses.items() if str(code).startswith("2")]
        names: list[str] = []
        for raw in bodies:
            body, _ = self.resolver.deref(raw)
            for schema in content_schemas(body):
                name = component_schema_name(schema.get("$ref", ""))
                if name and name not in names:
                    names.append(name)
        return names

    def note_users(self, operation: Operation, referenced: list[str], structural: str) -> None:
        """Remember which operations use each schema (`Used by:`) and whose whole payload it is (`payload_of`)."""
        label = f"{operation.method.upper()} {operation.path}"
        for name in referenced:
            users = self.used_by.setdefault(name, [])
            if label not in users:
                users.append(label)
        for name in self.payload_schemas(operation):
            payloads = self.payload_of.setdefault(name, [])
            if structural not in payloads:
                payloads.append(structural)
