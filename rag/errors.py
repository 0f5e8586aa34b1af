"""Errors the library raises, each naming the bad value and what is allowed."""

from __future__ import annotations


class RagError(Exception):
    """Base class for every error the library raises on purpose."""


class IngestError(RagError):
    """A file could not be ingested; the message names the file and the problem."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


class DuplicateDocumentError(IngestError):
    """A document with this source is already indexed and the duplicate policy is `reject`."""


class ConfigError(RagError, ValueError):
    """A setting or configuration has a value that is not allowed."""


class IndexUnavailableError(RagError):
    """The index is missing or unreadable; the message says how to rebuild it."""


class EvaluationError(RagError):
    """An evaluation cannot start or continue (existing results, a mismatched resume, bad arguments)."""


def allowed(name: str, value: object, choices: object) -> ConfigError:
    """Build a ConfigError for `name=value` that lists the allowed `choices`."""
    if isinstance(choices, (list, tuple, set, frozenset)):
        shown = ", ".join(repr(c) for c in sorted(choices, key=str))
    else:
        shown = str(choices)
    return ConfigError(f"{name}={value!r} is not allowed; allowed: {shown}")
