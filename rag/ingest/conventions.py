"""The conventions chunk of a spec: what most of its operations share, stated once.

Common parameters (e.g. a required account header), the paging parameters of list operations,
pagination extensions, common error responses and retry policies. Vague questions ("pagination?",
"errors?", "what if I send too many requests?") are answered here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rag.corpus.path_words import is_item_path
from rag.ingest.clean_text import clean_prose
from rag.ingest.refs import RefResolver
from rag.ingest.schema_prose import SchemaProse
from rag.ingest.spec import Operation, content_schemas

CONVENTION_SHARE = 0.5  # what at least half of the operations (or list operations) have is a convention
CONVENTION_LINE_CHARS = 240
EXTENSIONS = ("x-speakeasy-retries", "x-speakeasy-pagination", "x-retries")
RETRY_EXTENSIONS = ("x-speakeasy-retries", "x-retries")

ParameterKey = tuple[str, str]  # (name, location)


@dataclass
class ConventionCounts:
    """How many operations (and list operations) have each parameter, response and extension."""

    total: int
    lists: int
    parameters: Counter[ParameterKey] = field(default_factory=Counter)
    list_parameters: Counter[ParameterKey] = field(default_factory=Counter)
    examples: dict[ParameterKey, dict[str, Any]] = field(default_factory=dict)  # the first of each parameter
    responses: Counter[str] = field(default_factory=Counter)
    response_labels: dict[str, str] = field(default_factory=dict)  # the first response of each code
    extensions: Counter[str] = field(default_factory=Counter)
    extension_values: dict[str, Any] = field(default_factory=dict)


def response_label(resolver: RefResolver, raw: Any, prose: SchemaProse) -> str:
    """`TooManyRequestsResponse: Too many requests.` for a response object or reference."""
    response, name = resolver.deref(raw)
    schemas = content_schemas(response)
    label = prose.type_label(schemas[0]) if schemas else (name or "no body")
    description = clean_prose(response.get("description")) if isinstance(response, dict) else ""
    return label + (f": {description}" if description else "")


def count_conventions(
    operations: list[Operation],
    parameters_of: Callable[[Operation], list[dict[str, Any]]],
    label_of: Callable[[Any], str],
) -> ConventionCounts:
    """Count the parameters (`parameters_of` an operation, refs resolved), responses (labelled by
    `label_of`) and retry/pagination extensions of every operation."""
    lists = [op for op in operations if op.method == "get" and not is_item_path(op.path)]
    list_pointers = {op.pointer for op in lists}
    counts = ConventionCounts(total=len(operations), lists=len(lists))
    for operation in operations:
        for parameter in parameters_of(operation):
            key = (str(parameter.get("name", "?")), str(parameter.get("in", "?")))
            counts.examples.setdefault(key, parameter)
            counts.parameters[key] += 1
            if operation.pointer in list_pointers:
                counts.list_parameters[key] += 1
    for operation in operations:
        responses = operation.node.get("responses")
        for code, raw in responses.items() if isinstance(responses, dict) else ():
            counts.responses[str(code)] += 1
            if str(code) not in counts.response_labels:
                counts.response_labels[str(code)] = label_of(raw)
        for name, value in operation.node.items():
            if name in EXTENSIONS:
                counts.extensions[name] += 1
                counts.extension_values.setdefault(name, value)
    return counts


def shared_by_most(count: int, out_of: int) -> bool:
    """Whether `count` of `out_of` operations is enough to call what they share a convention."""
    return out_of > 0 and count >= CONVENTION_SHARE * out_of


def _short(line: str) -> str:
    return line if len(line) <= CONVENTION_LINE_CHARS else line[: CONVENTION_LINE_CHARS - 1] + "…"


def parameter_lines(
    counts: ConventionCounts, parameter_line: Callable[[dict[str, Any]], str]
) -> tuple[list[str], list[ParameterKey]]:
    """Lines for the parameters most operations take and the (paging, filtering) parameters most list
    operations take; also the common ones' keys."""
    total, lists = counts.total, counts.lists
    lines: list[str] = []
    common = [key for key, count in counts.parameters.items() if shared_by_most(count, total) and key[1] != "path"]
    if common:
        lines.append("Parameters on most operations:")
        for key in common:
            text = _short(parameter_line(counts.examples[key]))
            lines.append(f"{text} — on {counts.parameters[key]} of {total} operations.")
    paging = [
        key
        for key, count in counts.list_parameters.items()
        if key not in common and key[1] == "query" and lists >= 2 and shared_by_most(count, lists)
    ]
    if paging:
        lines.append("Parameters of list operations (paging, filtering):")
        for key in paging:
            text = _short(parameter_line(counts.examples[key]))
            lines.append(f"{text} — on {counts.list_parameters[key]} of {lists} list operations.")
    return lines, common


def response_and_extension_lines(counts: ConventionCounts) -> list[str]:
    """Lines for the pagination extension, the non-success responses most operations have and retries."""
    lines: list[str] = []
    if "x-speakeasy-pagination" in counts.extensions:
        lines.append(
            f"Pagination (x-speakeasy-pagination on {counts.extensions['x-speakeasy-pagination']} operations): "
            + _short(json.dumps(counts.extension_values["x-speakeasy-pagination"], default=str))
        )
    total = counts.total
    responses = [code for code, count in counts.responses.items() if shared_by_most(count, total) and code[:1] != "2"]
    if responses:
        lines.append("Error and other non-success responses on most operations:")
        for code in sorted(responses):
            counted = f" — on {counts.responses[code]} of {total}."
            lines.append(_short(f"- {code} → {counts.response_labels[code]}") + counted)
    for name in RETRY_EXTENSIONS:
        if name in counts.extensions:
            policy = _retry_policy(counts.extension_values[name])
            lines.append(f"Retries ({name} on {counts.extensions[name]} operations): {policy}.")
    return lines


def _retry_policy(value: Any) -> str:
    """`retry status codes 429, 503 with strategy backoff`, or the extension's JSON."""
    if isinstance(value, dict) and value.get("statusCodes"):
        return f"retry status codes {', '.join(map(str, value['statusCodes']))}" + (
            f" with strategy {value['strategy']}" if value.get("strategy") else ""
        )
    return json.dumps(value, default=str)


def conventions_text(
    api: str, counts: ConventionCounts, parameter_line: Callable[[dict[str, Any]], str]
) -> tuple[str, str] | None:
    """The conventions chunk's text and embedding text; None when the operations share nothing."""
    title = f"Conventions shared by the operations of the {api} API  [{api} API]"
    lines = [title, f"Derived from its {counts.total} operations ({counts.lists} of them list collections)."]
    shared_parameters, common = parameter_lines(counts, parameter_line)
    lines += shared_parameters + response_and_extension_lines(counts)
    if len(lines) == 2:
        return None
    topics = ", ".join(f"{name} {where}" for name, where in common[:4])
    embedding = (
        f"{api} API conventions common to all operations: headers and parameters ({topics}), "
        "pagination and page size of list endpoints, next cursor, error responses and status codes, "
        "too many requests, retries and backoff."
    )
    return "\n".join(lines), embedding
