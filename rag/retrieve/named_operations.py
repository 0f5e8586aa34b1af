"""The operations a question names exactly: by method and path, by path alone, by operationId, or by the
identifier that ends one path alone (`findByIngredients` of `/recipes/findByIngredients`).

A developer who writes `GET /unified/crm/lists/{id}` or `crm_get_list` has said which operation they mean. The
learned ranker reads such a name as one feature among many and, trained on questions in people's words (which
rarely name one), can still put a neighbour first (`GET /unified/crm/lists` for "what does crm_get_list
return?"). What a question names exactly is read here from the spec's own identifiers, so it holds for any spec.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from rag.chunk import Chunk
from rag.corpus.paths import METHOD_PATH, PATH_IN_TEXT, path_fits, path_shape
from rag.data import data_table

# An identifier as code writes it: words joined by `_`, `-` or `.` (`crm_get_list`, `get-user`), or a capital after
# small letters (`listUsers`, `ListUsers`); a plain word ("employees") names no operation on its own, even where an
# operationId is one.
_IDENTIFIER = re.compile(
    r"(?<![\w/{])(?:[A-Za-z][A-Za-z0-9]*(?:[_\-.][A-Za-z0-9]+)+|[A-Za-z][a-z0-9]+[A-Z][A-Za-z0-9]*)(?![\w/}])")
_CODE = re.compile(r"`([^`\s]+)`")
# The score a candidate the question names carries (the named-operations stage); the confidence shown for such a
# first place is how often named operations were right on the tuning sets (rag.rerank.calibration).
NAMED_SCORE = "named"


@dataclass(frozen=True)
class OperationNames:
    """An index's operations as a question may name them: by path shape (`/users/{}`), kept by their number of
    segments with the segments that hold no parameter, and by operationId (lower case). Made once per index
    generation (`CorpusProfile.remembered`); and by the identifier-shaped segment that ends one path shape alone
    (lower case)."""

    by_length: Mapping[int, tuple[tuple[tuple[str, ...], str, Chunk], ...]]
    by_id: Mapping[str, tuple[Chunk, ...]]
    by_last_segment: Mapping[str, tuple[Chunk, ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, operations: Sequence[Chunk]) -> OperationNames:
        """The names of `operations` (those with a path or an operationId)."""
        by_length: dict[int, list[tuple[tuple[str, ...], str, Chunk]]] = {}
        by_id: dict[str, list[Chunk]] = {}
        ending: dict[str, dict[str, list[Chunk]]] = {}  # an identifier-shaped last segment → path shape → operations
        for op in operations:
            if op.path:
                shape = path_shape(op.path)
                by_length.setdefault(shape.count("/"), []).append((tuple(shape.split("/")), shape, op))
                last = op.path.rstrip("/").rsplit("/", 1)[-1]
                if _IDENTIFIER.fullmatch(last):
                    ending.setdefault(last.lower(), {}).setdefault(shape, []).append(op)
            if op.operation_id:
                by_id.setdefault(op.operation_id.lower(), []).append(op)
        by_last = {segment: tuple(ops) for segment, shapes in ending.items() if len(shapes) == 1
                   for ops in shapes.values()}
        return cls({n: tuple(found) for n, found in by_length.items()}, {k: tuple(v) for k, v in by_id.items()},
                   by_last)

    def on_path(self, asked: str, method: str = "") -> list[Chunk]:
        """The operations whose path `asked` (a `path_shape`, with values or parameters) is, of `method` when
        given."""
        segments = asked.split("/")
        found = []
        for shape_segments, shape, op in self.by_length.get(asked.count("/"), ()):
            if method and op.method.lower() != method:
                continue
            if all(a == b for a, b in zip(segments, shape_segments, strict=True) if "{" not in b) and path_fits(
                    asked, shape):
                found.append(op)
        return found

    def written(self, method: str, path: str) -> Chunk | None:
        """The operation a method and path written elsewhere name: its parameters named otherwise (`{guild.id}`,
        `:file_id`) or given values (`/files/123`), behind a base path the spec's servers carry (`/2.0/files/{id}`);
        None when none fits."""
        segments = path_shape(_COLON_PARAMETER.sub("/{}", path)).split("/")[1:]
        for dropped in range(min(BASE_SEGMENTS, len(segments) - 1) + 1):
            found = self.on_path("/" + "/".join(segments[dropped:]), method.lower())
            if found:
                return found[0]
        return None


# A path parameter as other docs write it (`/files/:file_id`).
_COLON_PARAMETER = re.compile(r"/:[A-Za-z_][\w.]*")
# How many leading segments of a written path may be a base path the spec's servers carry (`/2.0`, `/api/v1`).
BASE_SEGMENTS = 2


@cache
def _precondition() -> re.Pattern[str]:
    openers = "|".join(re.escape(word) for word in data_table("question_words")["precondition_openers"])
    return re.compile(rf"\b(?:{openers})\b[^,;?]*[,;]", re.IGNORECASE)


def precondition_spans(question: str) -> list[tuple[int, int]]:
    """Where the question states what was done before what it asks: a clause opened by one of the
    `precondition_openers` of rag/data/question_words.toml and closed by a comma or semicolon, something asked after
    it ("After POST /files/upload_sessions, how do I upload a part?")."""
    return [m.span() for m in _precondition().finditer(question) if question[m.end():].strip(" ?.!")]


def named_operations(question: str, names: OperationNames, context: bool = False) -> list[tuple[Chunk, ...]]:
    """The operations of `names` that `question` names exactly, one group per name in the order it names
    them: a method and path (`GET /users/{id}`, or with values: `GET /users/42`), a path alone (every operation on
    it), an operationId written as an identifier or in backticks (compared without regard to case), else the
    identifier that ends one path alone (every operation on it: "what does findByIngredients return?"). A name in a
    clause saying what was done before (`precondition_spans`) names the question's context, not what it asks for:
    it is left out (with `context`, only those are given). An operation named twice is in the first group that
    names it; empty when the question names none."""
    spans = precondition_spans(question)
    mentions: list[tuple[int, Sequence[Chunk]]] = []
    taken: list[tuple[int, int]] = []
    for match in METHOD_PATH.finditer(question):
        method = match.group(0).split(None, 1)[0].lower()
        mentions.append((match.start(), names.on_path(path_shape(match.group(1).rstrip(".")), method)))
        taken.append(match.span())
    for match in PATH_IN_TEXT.finditer(question):
        if not any(start <= match.start() < end for start, end in taken):
            mentions.append((match.start(), names.on_path(path_shape(match.group(1).rstrip(".")))))
    words = [(m.start(), m.group(0).lower()) for m in _IDENTIFIER.finditer(question)]
    words += [(m.start(1), m.group(1).lower()) for m in _CODE.finditer(question)]
    mentions += [(start, names.by_id.get(word) or names.by_last_segment[word]) for start, word in words
                 if word in names.by_id or word in names.by_last_segment]
    mentions = [m for m in mentions if any(start <= m[0] < end for start, end in spans) == context]
    named: list[tuple[Chunk, ...]] = []
    seen: set[str] = set()
    for _, found in sorted(mentions, key=lambda mention: mention[0]):
        group = []
        for op in found:
            if op.chunk_id not in seen:
                seen.add(op.chunk_id)
                group.append(op)
        if group:
            named.append(tuple(group))
    return named
