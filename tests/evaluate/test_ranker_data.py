"""The ranker's data beyond its candidate lists (rag/evaluate/ranker_data.py): the first places a stage after the
learned ranker chose or the question named, counted right or wrong for the calibration."""

from __future__ import annotations

import json
from pathlib import Path

from rag.evaluate.questions import Question
from rag.evaluate.ranker_data import first_place_outcomes
from rag.index.build import ingest_paths
from rag.index.store import Index
from rag.runner import Engine
from tests.fakes import MUSIC_SPEC


def test_first_places_the_lookup_lift_chose_or_the_question_named_are_counted_right_or_wrong(
    empty_index: Index, tmp_path: Path
) -> None:
    spec = tmp_path / "music.json"
    spec.write_text(json.dumps(MUSIC_SPEC))
    assert ingest_paths(empty_index, [spec])[0].status == "added"
    engine = Engine(empty_index, default_llm="extractive")
    named = "Get the album Kind of Blue by Miles Davis"  # the lift puts GET /search ahead of the album operation
    questions = [
        Question("search", named, relevant_ids=("music.paths./search.get",)),
        Question("album", named, relevant_ids=("music.paths./albums/{id}.get",)),
        Question("plain", "Start playing an album", relevant_ids=("music.paths./me/player/play.put",)),
        Question("off", named, answerable=False),
        Question("named", "What does GET /albums/{id} return?", relevant_ids=("music.paths./albums/{id}.get",)),
        Question("misnamed", "What does GET /albums/{id} return?", relevant_ids=("music.paths./albums.get",)),
    ]
    assert list(first_place_outcomes(engine, questions)) == [
        ("lookup", True), ("lookup", False), ("named", True), ("named", False)]
