"""run.json (what a resumed run must match) and the manifest saved with the metrics."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.errors import EvaluationError
from rag.evaluate.judge import Judge
from rag.evaluate.manifest import (
    RUN_FILE,
    build_manifest,
    git_commit,
    git_dirty,
    index_fingerprint,
    pin_run,
    pinned_settings,
    write_json,
)
from rag.evaluate.questions import Question
from tests.fakes import FakeChatModel

QUESTIONS = [Question("q1", "How do I list orders?"), Question("q2", "How do I delete a cart?")]


def pinned(**changes: object) -> dict[str, object]:
    settings = {"k": 5, "retrieval_only": True, "dry_run": False, "history_mode": "replay", **changes}
    return pinned_settings(QUESTIONS, [PRESETS["C0"], PRESETS["full"]], **settings)  # type: ignore[arg-type]


def test_pinned_settings_round_trip_through_run_json(tmp_path: Path) -> None:
    run_file = tmp_path / RUN_FILE
    first = pinned()
    assert set(first) == {"question_set_hash", "k", "retrieval_only", "dry_run", "history_mode", "configs"}
    assert first["configs"] == {"C0": PRESETS["C0"].to_dict(), "full": PRESETS["full"].to_dict()}
    pin_run(run_file, first, resume=False)
    assert json.loads(run_file.read_text(encoding="utf-8")) == first
    # resuming with the same settings and fewer configs keeps the configs pinned before
    again = pinned_settings(QUESTIONS, [PRESETS["full"]], k=5, retrieval_only=True, dry_run=False,
                            history_mode="replay")
    assert pin_run(run_file, again, resume=True)["configs"] == first["configs"]
    assert json.loads(run_file.read_text(encoding="utf-8")) == first


@pytest.mark.parametrize(("change", "key"), [
    ({"k": 3}, "k"),
    ({"retrieval_only": False}, "retrieval_only"),
    ({"dry_run": True}, "dry_run"),
    ({"history_mode": "given"}, "history_mode"),
])  # fmt: skip
def test_a_resume_must_match_what_was_pinned(tmp_path: Path, change: dict[str, object], key: str) -> None:
    run_file = tmp_path / RUN_FILE
    pin_run(run_file, pinned(), resume=False)
    with pytest.raises(EvaluationError, match=f"cannot resume: {key} was"):
        pin_run(run_file, pinned(**change), resume=True)
    pin_run(run_file, pinned(**change), resume=False)  # not resuming: pinned anew


def test_a_resume_needs_the_same_questions_and_unchanged_configs(tmp_path: Path) -> None:
    run_file = tmp_path / RUN_FILE
    pin_run(run_file, pinned(), resume=False)
    other = pinned_settings(QUESTIONS[:1], [PRESETS["C0"]], k=5, retrieval_only=True, dry_run=False,
                            history_mode="replay")
    with pytest.raises(EvaluationError, match="question_set_hash"):
        pin_run(run_file, other, resume=True)
    changed = replace(PRESETS["full"], candidate_pool=PRESETS["full"].candidate_pool + 1)
    edited = pinned_settings(QUESTIONS, [changed], k=5, retrieval_only=True, dry_run=False, history_mode="replay")
    with pytest.raises(EvaluationError, match="config 'full' changed"):
        pin_run(run_file, edited, resume=True)
    run_file.write_text("{broken", encoding="utf-8")
    with pytest.raises(EvaluationError, match="unreadable"):
        pin_run(run_file, pinned(), resume=True)


def test_runs_pinned_before_history_modes_existed_resume_as_given(tmp_path: Path) -> None:
    run_file = tmp_path / RUN_FILE
    old = pinned(history_mode="given")
    del old["history_mode"]
    write_json(run_file, old)
    pin_run(run_file, pinned(history_mode="given"), resume=True)
    with pytest.raises(EvaluationError, match="history_mode was None and is now 'replay'"):
        write_json(run_file, old)
        pin_run(run_file, pinned(), resume=True)


def test_write_json_is_indented_and_keeps_non_ascii(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    write_json(path, {"name": "é", "when": datetime(2024, 1, 2, tzinfo=UTC)})
    assert path.read_text(encoding="utf-8") == '{\n  "name": "é",\n  "when": "2024-01-02 00:00:00+00:00"\n}\n'


def test_index_fingerprint_lists_the_documents(fixture_index) -> None:  # type: ignore[no-untyped-def]
    fingerprint = index_fingerprint(fixture_index)
    assert len(fingerprint["index_hash"]) == 16 and fingerprint["embedding_model"] == "hashing-384"
    assert [d["api"] for d in fingerprint["documents"]] == ["people-3_1", "shop-3_0"]
    assert index_fingerprint(fixture_index) == fingerprint


def test_build_manifest(fixture_index) -> None:  # type: ignore[no-untyped-def]
    started = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    judge = Judge("openai:judge", runs=2, chat_model=FakeChatModel([]))
    manifest = build_manifest(
        pinned(dry_run=True), questions=2, questions_source="eval_data/dev_set.jsonl",
        fingerprint=index_fingerprint(fixture_index), configs=[PRESETS["full"]], models={"full": "dry-run"},
        judge=judge, started_at=started, finished_at=started, max_text_chars=None, resumed=1, parallel=False,
        warnings=["w"],
    )  # fmt: skip
    assert list(manifest)[:4] == ["question_set_hash", "questions", "questions_source", "index_hash"]
    assert manifest["dry_run_embedding_model"] == "hashing-384" and manifest["dry_run"] is True
    assert manifest["configs"] == {"full": PRESETS["full"].to_dict()} and manifest["models"] == {"full": "dry-run"}
    assert manifest["judge"] == "openai:judge" and manifest["judge_runs"] == 2
    assert manifest["started_at"] == "2024-01-02T03:04:05+00:00" and manifest["k"] == 5
    assert manifest["resumed_records"] == 1 and manifest["warnings"] == ["w"]
    assert manifest["git_commit"] == git_commit() and manifest["git_dirty"] in (True, False, None)
    assert isinstance(git_dirty(), (bool, type(None)))
