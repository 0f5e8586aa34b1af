"""The conversation of a browser session, kept across page reloads.

The Ask page puts a conversation id in its URL (`?conversation=…`) and saves the turns after each question
to `<index dir>/conversations/<id>.json`; a reload (or the same URL in another tab) reads them back, with
each chunk taken from the index again. Writes are atomic, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.chunk import Chunk
from rag.results import AnswerResult
from webapp.asking import Turn

URL_PARAM = "conversation"
_ID = re.compile(r"^[0-9a-f]{16}$")
MAX_TURNS = 50


def new_conversation_id() -> str:
    """A fresh random id (16 hex digits)."""
    return secrets.token_hex(8)


def valid_id(value: object) -> bool:
    """Whether a URL value is an id this module made (nothing else may name a file)."""
    return isinstance(value, str) and bool(_ID.match(value))


def conversations_dir(index_dir: Path) -> Path:
    """Where an index's saved conversations live."""
    return Path(index_dir) / "conversations"


def turn_to_dict(turn: Turn) -> dict[str, Any]:
    """A JSON-ready turn (results without chunk texts: they are read from the index again)."""
    return {
        "question": turn.question,
        "configs": list(turn.configs),
        "retrieval_only": turn.retrieval_only,
        "generator": turn.generator,
        "k": turn.k,
        "seconds": round(turn.seconds, 3),
        "results": [result.to_dict(include_text=False) for result in turn.results],
    }


def turn_from_dict(data: dict[str, Any], chunk_for: Callable[[str], Chunk | None]) -> Turn:
    """The turn `turn_to_dict` wrote."""
    return Turn(
        question=str(data["question"]),
        configs=[str(name) for name in data.get("configs", [])],
        retrieval_only=bool(data.get("retrieval_only")),
        generator=str(data.get("generator", "")),
        k=int(data.get("k") or 5),
        results=[AnswerResult.from_dict(item, chunk_for) for item in data.get("results", [])],
        seconds=float(data.get("seconds") or 0.0),
    )


def save_conversation(directory: Path, conversation_id: str, turns: Sequence[Turn]) -> Path:
    """Write the turns (the last MAX_TURNS) atomically; returns the file."""
    if not valid_id(conversation_id):
        raise ValueError(f"conversation id {conversation_id!r} is not allowed; ids are 16 hex digits")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{conversation_id}.json"
    payload = {"version": 1, "turns": [turn_to_dict(turn) for turn in list(turns)[-MAX_TURNS:]]}
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(payload, stream)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def load_conversation(
    directory: Path, conversation_id: str, chunk_for: Callable[[str], Chunk | None]
) -> tuple[list[Turn], str]:
    """The saved turns of a conversation and a note ("" when all is well, or why nothing was restored)."""
    if not valid_id(conversation_id):
        return [], ""
    path = directory / f"{conversation_id}.json"
    if not path.is_file():
        return [], ""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        return [turn_from_dict(item, chunk_for) for item in payload["turns"]], ""
    except (OSError, ValueError, KeyError, TypeError) as error:
        return [], f"the saved conversation {path.name} could not be read ({type(error).__name__}: {error})"


def open_conversation(
    state: MutableMapping[str, Any],
    url: MutableMapping[str, Any],
    directory: Path,
    chunk_for: Callable[[str], Chunk | None],
    configs: Sequence[str],
) -> tuple[str, str]:
    """The page's conversation: the id in the URL (a new one put there when it has none) and its turns
    in `state["turns"]`, read from disk when the session does not hold them yet (a reload). A restored
    conversation brings back the last question's configurations (those in `configs`), k and
    retrieval-only choice unless the session already has choices. Returns the id and a problem note."""
    conversation_id = url.get(URL_PARAM)
    if not valid_id(conversation_id):
        conversation_id = state.get("conversation_id") or new_conversation_id()
        url[URL_PARAM] = conversation_id
    if state.get("conversation_id") == conversation_id and "turns" in state:
        return conversation_id, ""
    restored, problem = load_conversation(directory, conversation_id, chunk_for)
    state["turns"] = restored
    state["conversation_id"] = conversation_id
    if restored and "ask_configs" not in state:
        last = restored[-1]
        state["ask_configs"] = [name for name in last.configs if name in configs]
        state["ask_k"] = last.k
        state["ask_retrieval_only"] = last.retrieval_only
    return conversation_id, problem


def start_new_conversation(state: MutableMapping[str, Any], url: MutableMapping[str, Any]) -> str:
    """Forget the turns and put a new conversation id in the session and the URL."""
    state.setdefault("turns", []).clear()
    state["conversation_id"] = new_conversation_id()
    url[URL_PARAM] = state["conversation_id"]
    return state["conversation_id"]


@dataclass(frozen=True)
class SavedConversation:
    """A saved conversation as the list of recent ones shows it."""

    conversation_id: str
    first_question: str
    questions: int
    modified: float  # seconds since the epoch

    def __post_init__(self) -> None:
        if not valid_id(self.conversation_id):
            raise ValueError(f"conversation id {self.conversation_id!r} is not allowed; ids are 16 hex digits")
        if self.questions < 1:
            raise ValueError(f"questions={self.questions!r} is not allowed; allowed: 1 or more")


def recent_conversations(directory: Path, limit: int = 5, skip: str = "") -> list[SavedConversation]:
    """The `limit` most recently saved conversations (newest first), leaving out `skip` (the open one) and
    files that cannot be read or hold no question."""
    if limit < 1:
        raise ValueError(f"limit={limit!r} is not allowed; allowed: 1 or more")
    try:
        files = [p for p in Path(directory).glob("*.json") if valid_id(p.stem) and p.stem != skip]
        dated = sorted(((p.stat().st_mtime, p) for p in files), reverse=True)
    except OSError:
        return []
    found: list[SavedConversation] = []
    for modified, path in dated:
        try:
            turns = json.loads(path.read_text(encoding="utf-8"))["turns"]
            found.append(SavedConversation(path.stem, str(turns[0]["question"]), len(turns), modified))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue
        if len(found) >= limit:
            break
    return found


def switch_to(url: MutableMapping[str, Any], conversation_id: str) -> None:
    """Open a saved conversation: its id goes into the URL and `open_conversation` reads it on the next run."""
    if not valid_id(conversation_id):
        raise ValueError(f"conversation id {conversation_id!r} is not allowed; ids are 16 hex digits")
    url[URL_PARAM] = conversation_id
