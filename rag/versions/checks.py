"""The catalogue of diff checks: a stable id per kind of change and its level (error / warning / info).

Ids and levels follow oasdiff's checks (`oasdiff checks`): `error` is a change that breaks a client written
against the old version, `warning` one that may break it (a pattern added, a parameter removed, a value a
response can now return), `info` one that does not (an optional field added, a request type widened, a
response narrowed). A schema check's id joins where it applies (`request-parameter`, `request-property`,
`request-body`, `response-property`, `response-body`) with what changed (`max-length-increased`); the
same change has opposite levels in a request (sent by the client) and a response (read by it).
"""

from __future__ import annotations

from dataclasses import dataclass

LEVELS: tuple[str, ...] = ("error", "warning", "info")
FAIL_ON: tuple[str, ...] = ("error", "warning")


@dataclass(frozen=True)
class Check:
    """One kind of change: its id, level and a short description."""

    id: str
    level: str
    description: str

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level={self.level!r} is not allowed; allowed: {', '.join(LEVELS)}")


_FIXED: tuple[tuple[str, str, str], ...] = (
    ("endpoint-added", "info", "an operation was added"),
    ("api-removed-without-deprecation", "error", "an operation was removed without being deprecated first"),
    ("api-removed-before-sunset", "error", "a deprecated operation was removed before its x-sunset date"),
    ("api-removed-with-deprecation", "info", "a deprecated operation was removed (its x-sunset date, if any, past)"),
    ("endpoint-deprecated", "info", "an operation was deprecated with an x-sunset date"),
    ("api-deprecated-sunset-missing", "warning", "an operation was deprecated without an x-sunset date"),
    ("endpoint-reactivated", "info", "a deprecated operation is no longer deprecated"),
    ("new-required-request-parameter", "error", "a required parameter was added"),
    ("new-optional-request-parameter", "info", "an optional parameter was added"),
    ("request-parameter-removed", "warning", "a parameter was removed (clients still sending it may be refused)"),
    ("request-parameter-became-required", "error", "a parameter became required"),
    ("request-parameter-became-optional", "info", "a parameter became optional"),
    ("request-parameter-deprecated", "info", "a parameter was deprecated"),
    ("added-required-request-body", "error", "a required request body was added"),
    ("added-optional-request-body", "info", "an optional request body was added"),
    ("request-body-removed", "warning", "the request body was removed"),
    ("request-body-became-required", "error", "the request body became required"),
    ("request-body-became-optional", "info", "the request body became optional"),
    ("request-body-media-type-removed", "error", "a request media type is no longer accepted"),
    ("request-body-media-type-added", "info", "a request media type was added"),
    ("new-required-request-property", "error", "a required request field was added"),
    ("new-optional-request-property", "info", "an optional request field was added"),
    ("request-property-removed", "warning", "a request field was removed"),
    ("response-success-status-removed", "error", "a success response was removed"),
    ("response-non-success-status-removed", "warning", "an error response was removed"),
    ("response-success-status-added", "info", "a success response was added"),
    ("response-non-success-status-added", "info", "an error response was added"),
    ("response-media-type-removed", "error", "a response media type is no longer returned"),
    ("response-media-type-added", "info", "a response media type was added"),
    ("response-required-property-removed", "error", "a required response field was removed"),
    ("response-optional-property-removed", "warning", "an optional response field was removed"),
    ("response-required-property-added", "info", "a required response field was added"),
    ("response-optional-property-added", "info", "an optional response field was added"),
    ("required-response-header-removed", "error", "a required response header was removed"),
    ("optional-response-header-removed", "warning", "an optional response header was removed"),
    ("response-header-became-optional", "error", "a response header is no longer always returned"),
    ("response-header-added", "info", "a response header was added"),
    ("api-security-removed", "error", "a security alternative was removed: clients using it are refused"),
    ("api-security-added", "info", "a security alternative was added"),
    ("api-security-now-required", "error", "an operation that needed no authentication now needs it"),
    ("api-security-scope-added", "error", "an OAuth scope was added to a security requirement"),
    ("api-security-scope-removed", "info", "an OAuth scope was removed from a security requirement"),
    ("api-security-component-added", "info", "a security scheme was added"),
    ("api-security-component-removed", "info", "a security scheme was removed"),
    ("api-security-component-type-changed", "error", "a security scheme works differently (type, scheme, name)"),
    ("api-security-component-oauth-scope-added", "info", "a security scheme offers a new OAuth scope"),
    ("api-security-component-oauth-scope-removed", "info", "a security scheme no longer offers an OAuth scope"),
    ("api-security-component-changed", "info", "a security scheme's URLs or settings changed"),
)

REQUEST_PLACES = ("request-parameter", "request-property", "request-body")
RESPONSE_PLACES = ("response-property", "response-body")
_LIMITS = ("max", "max-length", "max-items", "min", "min-length", "min-items")

# what changed in a schema → (level in a request, level in a response, description)
_SCHEMA: dict[str, tuple[str, str, str]] = {
    "type-changed": ("error", "error", "the type or format changed"),
    "type-generalized": ("info", "error", "the type or format widened (integer → number, int32 → int64)"),
    "type-specialized": ("error", "info", "the type or format narrowed (number → integer, int64 → int32)"),
    "became-nullable": ("info", "error", "null became allowed"),
    "became-not-nullable": ("error", "info", "null is no longer allowed"),
    "became-enum": ("error", "info", "values became restricted to an enum"),
    "enum-removed": ("info", "warning", "values are no longer restricted to an enum"),
    "enum-value-removed": ("error", "info", "an enum value was removed"),
    "enum-value-added": ("info", "warning", "an enum value was added"),
    "pattern-added": ("warning", "info", "a pattern was added"),
    "pattern-changed": ("warning", "info", "the pattern changed"),
    "pattern-removed": ("info", "info", "the pattern was removed"),
    "default-value-changed": ("warning", "info", "the default value changed"),
    "became-required": ("error", "info", "the field became required"),
    "became-optional": ("info", "error", "the field became optional"),
    "deprecated": ("info", "info", "the field was deprecated"),
    "one-of-removed": ("error", "info", "a oneOf/anyOf alternative was removed"),
    "one-of-added": ("info", "error", "a oneOf/anyOf alternative was added"),
}
for _limit in _LIMITS:
    _narrows = "decreased" if _limit.startswith("max") else "increased"
    _widens = "increased" if _narrows == "decreased" else "decreased"
    _SCHEMA[f"{_limit}-{_narrows}"] = ("error", "info", f"{_limit} {_narrows} (fewer values allowed)")
    _SCHEMA[f"{_limit}-{_widens}"] = ("info", "error", f"{_limit} {_widens} (more values allowed)")
    _SCHEMA[f"{_limit}-set"] = ("warning", "info", f"{_limit} set where there was none")
    _SCHEMA[f"{_limit}-removed"] = ("info", "error", f"{_limit} removed (any value allowed)")


# where a place differs from its direction: a changed default of a request field is no contract change (a
# parameter's default is what a client that leaves it out gets, so a warning)
_PLACE_LEVELS = {"request-property-default-value-changed": "info", "request-body-default-value-changed": "info"}


def _catalogue() -> dict[str, Check]:
    checks = {id_: Check(id_, level, description) for id_, level, description in _FIXED}
    for suffix, (request, response, description) in _SCHEMA.items():
        for places, level in ((REQUEST_PLACES, request), (RESPONSE_PLACES, response)):
            for place in places:
                id_ = f"{place}-{suffix}"
                checks[id_] = Check(id_, _PLACE_LEVELS.get(id_, level), f"{place.replace('-', ' ')}: {description}")
    return checks


CHECKS: dict[str, Check] = _catalogue()
SCHEMA_SUFFIXES: tuple[str, ...] = tuple(_SCHEMA)


def check(id_: str) -> Check:
    """The check of an id; ValueError naming the id when it is not in the catalogue."""
    found = CHECKS.get(id_)
    if found is None:
        raise ValueError(f"check {id_!r} is not a known check id; `rag diff --checks` lists them")
    return found


def level_rank(level: str) -> int:
    """0 for error, 1 for warning, 2 for info (sort order)."""
    return LEVELS.index(level)
