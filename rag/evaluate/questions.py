"""Question sets for evaluation: one `Question` type and loaders for four file formats.

Formats (detected from the file):

- native JSONL (`eval_data/dev_set.jsonl`): one object per line with `id`, `question`, `category`,
  `answerable`, `relevant_ids`, `required_keywords`, `ground_truth` and optional `history`; other fields
  (`absent_write`, `absent_terms`, …) are allowed and ignored;
- JSON `{"questions": [...]}` with `relevant_structural_ids`, `required_keywords`, `ground_truth_answer`
  (category `out_of_scope` means unanswerable unless `answerable` says otherwise);
- experiment `queries.jsonl`: `query_id`, `query_type` (direct | multi_hop | negative; negative is
  unanswerable), `query`, `ground_truth`, `context_reference` (kept as relevant ids when they look like
  structural ids);
- the StackOne benchmark: a JSON list of `{id, query, expected_function, …}` (or the combined file with
  `test_cases`), where `expected_function` is an operationId mapped to its structural id through the index.

Every problem (bad JSON, missing fields, wrong types, duplicate ids, structural ids the index does not
know) is collected and raised together as one `QuestionSetError` naming `file:line`; nothing is skipped.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rag.errors import RagError

ROLES = ("user", "assistant", "system")
QUERY_TYPES = ("direct", "multi_hop", "negative")
FORMATS = ("native", "questions-json", "experiment", "benchmark")
_HTTP_METHODS = "get|put|post|delete|options|head|patch|trace"
STRUCTURAL_ID = re.compile(
    rf"^[A-Za-z0-9_-]+\.(?:(?:paths|webhooks)\..+\.(?:{_HTTP_METHODS})|components\..+|overview)$"
)
MAX_PROBLEMS_SHOWN = 50
# What loading does with a relevant id the index does not know: fail the whole set, or name it and keep
# the question (the id then never matches, so the question scores as a miss).
UNKNOWN_ID_POLICIES = ("error", "warn")


class QuestionSetError(RagError):
    """A question file has problems; `problems` lists every one as `file:line: problem`."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        shown = self.problems[:MAX_PROBLEMS_SHOWN]
        more = len(self.problems) - len(shown)
        text = f"{len(self.problems)} problem(s) in the question set:\n" + "\n".join(f"  {p}" for p in shown)
        if more > 0:
            text += f"\n  … and {more} more"
        super().__init__(text)


@dataclass(frozen=True)
class Question:
    """One evaluation question: what to ask, what counts as relevant and what a correct answer contains."""

    id: str
    question: str
    category: str = "general"
    answerable: bool = True
    relevant_ids: tuple[str, ...] = ()
    required_keywords: tuple[str, ...] = ()
    ground_truth: str = ""
    history: tuple[dict[str, str], ...] = field(default=(), hash=False)

    def to_dict(self) -> dict[str, Any]:
        """The native JSONL form (history only when there is one)."""
        data: dict[str, Any] = {
            "id": self.id,
            "question": self.question,
            "category": self.category,
            "answerable": self.answerable,
            "relevant_ids": list(self.relevant_ids),
            "required_keywords": list(self.required_keywords),
            "ground_truth": self.ground_truth,
        }
        if self.history:
            data["history"] = [dict(turn) for turn in self.history]
        return data


def question_set_hash(questions: Iterable[Question]) -> str:
    """A short, order-sensitive sha256 of the questions' content (identifies a question set in manifests)."""
    payload = json.dumps([q.to_dict() for q in questions], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def write_questions(questions: Iterable[Question], path: Path | str) -> Path:
    """Write questions as native JSONL (creating the folder)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(q.to_dict(), ensure_ascii=False) for q in questions]
    path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return path


# ---------------------------------------------------------------------- reading items with line numbers
def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _array_items(text: str, position: int) -> list[tuple[int, Any]]:
    """Decode the JSON array starting at `position` (a `[`), returning (line, item) pairs."""
    decoder = json.JSONDecoder()
    items: list[tuple[int, Any]] = []
    position = _skip_space(text, position + 1)
    if position < len(text) and text[position] == "]":
        return items
    while position < len(text):
        item, end = decoder.raw_decode(text, position)
        items.append((_line_of(text, position), item))
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position = _skip_space(text, position + 1)
            continue
        break
    return items


def _top_level_array(text: str, key: str | None) -> list[tuple[int, Any]]:
    """Items with their line numbers of the top-level array, or of the array under a top-level `key`."""
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    if key is None:
        return _array_items(text, position)
    position = _skip_space(text, position + 1)  # past "{"
    while position < len(text) and text[position] != "}":
        name, position = decoder.raw_decode(text, position)
        position = _skip_space(text, position)
        position = _skip_space(text, position + 1)  # past ":"
        if name == key and text[position] == "[":
            return _array_items(text, position)
        _, position = decoder.raw_decode(text, position)
        position = _skip_space(text, position)
        if position < len(text) and text[position] == ",":
            position = _skip_space(text, position + 1)
    return []


def _jsonl_items(name: str, text: str, problems: list[str]) -> list[tuple[int, Any]]:
    items: list[tuple[int, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append((number, json.loads(line)))
        except json.JSONDecodeError as error:
            problems.append(f"{name}:{number}: not valid JSON ({error.msg} at column {error.colno})")
    return items


# ---------------------------------------------------------------------- field checks
class _Item:
    """Reads typed fields of one raw item, recording problems with the item's line."""

    def __init__(self, name: str, line: int, raw: Any, problems: list[str]) -> None:
        self.where = f"{name}:{line}"
        self.raw = raw if isinstance(raw, dict) else {}
        self.problems = problems
        self.ok = isinstance(raw, dict)
        if not self.ok:
            problems.append(f"{self.where}: expected a JSON object, got {type(raw).__name__}")

    def problem(self, text: str) -> None:
        self.problems.append(f"{self.where}: {text}")
        self.ok = False

    def text(self, key: str, required: bool = True, default: str = "") -> str:
        if key not in self.raw or self.raw[key] is None:
            if required:
                self.problem(f"missing field {key!r}")
            return default
        value = self.raw[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key.endswith("id"):
            value = str(value)
        if not isinstance(value, str):
            self.problem(f"field {key!r} must be text, not {type(value).__name__}")
            return default
        if required and not value.strip():
            self.problem(f"field {key!r} is empty")
        return value.strip()

    def boolean(self, key: str, required: bool = True, default: bool = True) -> bool:
        if key not in self.raw:
            if required:
                self.problem(f"missing field {key!r}")
            return default
        value = self.raw[key]
        if not isinstance(value, bool):
            self.problem(f"field {key!r} must be true or false, not {value!r}")
            return default
        return value

    def strings(self, key: str, required: bool = False) -> tuple[str, ...]:
        if key not in self.raw or self.raw[key] is None:
            if required:
                self.problem(f"missing field {key!r}")
            return ()
        value = self.raw[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            self.problem(f"field {key!r} must be a list of non-empty strings")
            return ()
        return tuple(dict.fromkeys(v.strip() for v in value))

    def history(self, key: str = "history") -> tuple[dict[str, str], ...]:
        value = self.raw.get(key)
        if value is None:
            return ()
        if not isinstance(value, list):
            self.problem(f"field {key!r} must be a list of {{role, content}} messages")
            return ()
        turns: list[dict[str, str]] = []
        for position, turn in enumerate(value, start=1):
            if (
                not isinstance(turn, dict)
                or turn.get("role") not in ROLES
                or not isinstance(turn.get("content"), str)
                or not turn["content"].strip()
            ):
                self.problem(
                    f"{key}[{position}] must be {{role: user|assistant|system, content: non-empty text}}"
                )
                continue
            turns.append({"role": str(turn["role"]), "content": str(turn["content"])})
        return tuple(turns)


# ---------------------------------------------------------------------- one converter per format
def _native(item: _Item) -> Question | None:
    question = Question(
        id=item.text("id"),
        question=item.text("question"),
        category=item.text("category", required=False, default="general") or "general",
        answerable=item.boolean("answerable"),
        relevant_ids=item.strings("relevant_ids"),
        required_keywords=item.strings("required_keywords"),
        ground_truth=item.text("ground_truth", required=False),
        history=item.history(),
    )
    return question if item.ok else None


def _questions_json(item: _Item) -> Question | None:
    category = item.text("category", required=False, default="general") or "general"
    answerable = item.boolean("answerable", required=False, default=category != "out_of_scope")
    relevant = item.strings("relevant_structural_ids") or item.strings("relevant_ids")
    question = Question(
        id=item.text("id"),
        question=item.text("question"),
        category=category,
        answerable=answerable,
        relevant_ids=relevant,
        required_keywords=item.strings("required_keywords"),
        ground_truth=item.text("ground_truth_answer", required=False) or item.text("ground_truth", required=False),
        history=item.history(),
    )
    return question if item.ok else None


def _experiment(item: _Item) -> Question | None:
    query_type = item.text("query_type")
    if query_type and query_type not in QUERY_TYPES:
        item.problem(f"query_type={query_type!r} is not allowed; allowed: {', '.join(QUERY_TYPES)}")
    references = item.strings("context_reference")
    question = Question(
        id=item.text("query_id"),
        question=item.text("query"),
        category=query_type or "direct",
        answerable=query_type != "negative",
        relevant_ids=tuple(r for r in references if STRUCTURAL_ID.match(r)),
        required_keywords=item.strings("required_keywords"),
        ground_truth=item.text("ground_truth", required=False),
        history=item.history(),
    )
    return question if item.ok else None


def operation_id_map(index: Any) -> dict[str, list[tuple[str, str, str]]]:
    """operationId → [(structural id, METHOD, path)] from the index's smart operation chunks."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for chunk in index.snapshot().chunks.values():
        if chunk.strategy == "smart" and chunk.kind == "operation" and chunk.operation_id and chunk.covers:
            entry = (chunk.covers[0], chunk.method.upper(), chunk.path)
            if entry not in found.setdefault(chunk.operation_id, []):
                found[chunk.operation_id].append(entry)
    return found


def _benchmark(
    item: _Item, operations: Mapping[str, list[tuple[str, str, str]]] | None, lenient: list[str] | None = None
) -> Question | None:
    function = item.text("expected_function")
    relevant: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    truth = ""
    if function and operations is not None:
        matches = operations.get(function, [])
        if not matches and lenient is not None:
            lenient.append(f"{item.where}: expected_function {function!r} is no operationId in the index; "
                           "scored as unmatched")
            relevant = (f"operationId:{function}",)
        elif not matches:
            item.problem(f"expected_function {function!r} is no operationId in the index")
        relevant = tuple(structural for structural, _, _ in matches)
        keywords = tuple(f"{method} {path}" for _, method, path in matches)
        truth = "; ".join(f"Use {method} {path} (operationId {function})." for _, method, path in matches)
    query_type = item.text("query_type", required=False) or item.text("difficulty", required=False)
    question = Question(
        id=item.text("id"),
        question=item.text("query"),
        category=query_type or "benchmark",
        answerable=True,
        relevant_ids=relevant,
        required_keywords=keywords,
        ground_truth=truth,
    )
    return question if item.ok else None


# ---------------------------------------------------------------------- detection and loading
def detect_format(path: Path | str, text: str | None = None) -> str:
    """Which of FORMATS a file holds (from its extension and first item); raises QuestionSetError."""
    path = Path(path)
    text = path.read_text(encoding="utf-8") if text is None else text
    stripped = text.lstrip()
    if not stripped:
        raise QuestionSetError([f"{path.name}:1: the file is empty"])
    lines = [line.strip() for line in stripped.splitlines() if line.strip()]
    one_object_per_line = len(lines) > 1 and all(line.startswith("{") and line.endswith("}") for line in lines)
    if path.suffix.lower() == ".jsonl" or one_object_per_line:
        try:
            first = json.loads(lines[0])
        except json.JSONDecodeError:
            first = {}
        if isinstance(first, dict) and "questions" not in first and "test_cases" not in first:
            return "experiment" if "query_id" in first or "query_type" in first else "native"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise QuestionSetError([f"{path.name}:{error.lineno}: not valid JSON ({error.msg})"]) from None
    if isinstance(data, list):
        first_item = next((x for x in data if isinstance(x, dict)), {})
        if "expected_function" in first_item:
            return "benchmark"
        if "query_id" in first_item:
            return "experiment"
        return "native"
    if isinstance(data, dict):
        if isinstance(data.get("questions"), list):
            return "questions-json"
        if isinstance(data.get("test_cases"), list):
            return "benchmark"
    raise QuestionSetError(
        [
            f"{path.name}:1: unknown question format; expected native JSONL, {{\"questions\": [...]}}, "
            "an experiment queries.jsonl or the StackOne benchmark JSON list"
        ]
    )


def resolve_alias(structural_id: str, known: set[str]) -> str | None:
    """The indexed id a foreign label means, when it names the same thing another way.

    A security scheme labelled `iam.components.basic` (as some published sets do) is the scheme the
    index covers as `iam.components.securitySchemes.basic` (in the API's overview chunk).
    """
    api, dot, rest = structural_id.partition(".components.")
    if dot and "." not in rest:
        for section in ("securitySchemes", "schemas"):
            candidate = f"{api}.components.{section}.{rest}"
            if candidate in known:
                return candidate
    return None


def _raw_items(name: str, text: str, fmt: str, problems: list[str]) -> list[tuple[int, Any]]:
    """(line, item) of every question in the file: JSON lines, or the top-level list of a JSON document
    (under `questions` or `test_cases` when it is an object)."""
    if fmt in ("native", "experiment") and not text.lstrip().startswith("["):
        return _jsonl_items(name, text, problems)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise QuestionSetError([f"{name}:{error.lineno}: not valid JSON ({error.msg})"]) from None
    key = None
    if isinstance(data, dict):
        key = "questions" if fmt == "questions-json" else "test_cases"
        if not isinstance(data.get(key), list):
            raise QuestionSetError([f"{name}:1: expected a {key!r} list"])
    elif not isinstance(data, list):
        raise QuestionSetError([f"{name}:1: expected a JSON list of questions"])
    return _top_level_array(text, key)


def _known_ids(question: Question, known: set[str], item: _Item, lenient: list[str] | None) -> Question | None:
    """The question with its relevant ids resolved against the index; an id it does not know is a problem
    (None), or with `lenient` a warning, the id kept and scored as unmatched."""
    resolved = tuple(r if r in known else resolve_alias(r, known) or r for r in question.relevant_ids)
    if resolved != question.relevant_ids:
        question = replace(question, relevant_ids=tuple(dict.fromkeys(resolved)))
    unknown = [r for r in question.relevant_ids if r not in known and not r.startswith("operationId:")]
    if unknown and lenient is not None:
        lenient.append(f"{item.where}: unknown structural id(s) {', '.join(unknown)} (not in the index); "
                       "scored as unmatched")
    elif unknown:
        item.problem(f"unknown structural id(s) {', '.join(unknown)} (not in the index); pass "
                     "--unknown-ids warn to keep the question and score those ids as unmatched")
        return None
    return question


def _read_question_file(path: Path, fmt: str | None) -> tuple[str, str, str]:
    """A question file's name, text and format (detected unless `fmt` is given); QuestionSetError when it cannot
    be read or the format is not one of FORMATS."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise QuestionSetError([f"{path}: cannot read the file ({error})"]) from None
    fmt = fmt or detect_format(path, text)
    if fmt not in FORMATS:
        raise QuestionSetError([f"{path.name}:1: format {fmt!r} is not allowed; allowed: {', '.join(FORMATS)}"])
    return path.name, text, fmt


def load_questions(
    path: Path | str,
    index: Any | None = None,
    fmt: str | None = None,
    unknown_ids: str = "error",
    warnings: list[str] | None = None,
) -> list[Question]:
    """Load a question file in any supported format (auto-detected unless `fmt` is given).

    With an `index`, every relevant structural id must be one the index covers, and benchmark
    operationIds are mapped to structural ids. Raises QuestionSetError listing every problem.
    With `unknown_ids="warn"` an id the index does not know is named in `warnings` and kept, so the
    question scores as unmatched; ids that name an indexed thing another way are resolved first.
    """
    if unknown_ids not in UNKNOWN_ID_POLICIES:
        raise QuestionSetError(
            [f"unknown_ids={unknown_ids!r} is not allowed; allowed: {', '.join(UNKNOWN_ID_POLICIES)}"]
        )
    lenient = (warnings if warnings is not None else []) if unknown_ids == "warn" else None
    name, text, fmt = _read_question_file(Path(path), fmt)
    problems: list[str] = []
    raw_items = _raw_items(name, text, fmt, problems)
    operations = operation_id_map(index) if index is not None and fmt == "benchmark" else None
    if fmt == "benchmark" and index is None:
        raise QuestionSetError(
            [f"{name}:1: the StackOne benchmark names operationIds; an index is needed to map them to structural ids"]
        )
    known = index.structural_ids() if index is not None else None
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for line, raw in raw_items:
        item = _Item(name, line, raw, problems)
        if not item.ok:
            continue
        if fmt == "native":
            question = _native(item)
        elif fmt == "questions-json":
            question = _questions_json(item)
        elif fmt == "experiment":
            question = _experiment(item)
        else:
            question = _benchmark(item, operations, lenient)
        if question is None:
            continue
        if question.id in seen:
            item.problem(f"duplicate id {question.id!r} (first on line {seen[question.id]})")
            continue
        seen[question.id] = line
        checked = _known_ids(question, known, item, lenient) if known is not None else question
        if checked is not None:
            questions.append(checked)
    if not raw_items and not problems:
        problems.append(f"{name}:1: no questions in the file")
    if problems:
        raise QuestionSetError(problems)
    return questions
