"""Results read back from saved conversations and records, including those older versions wrote."""

from __future__ import annotations

from rag.results import AnswerResult, RetrievedChunk
from tests.fakes import make_chunk


def test_a_saved_result_round_trips_and_keys_no_longer_written_are_ignored() -> None:
    chunk = make_chunk("api.paths./x.get", "GET /x", kind="operation")
    result = AnswerResult("full", "q", chunks=[RetrievedChunk(chunk, {"fused": 0.5}, rank=1, rank_before_rerank=2)])
    saved = result.to_dict()
    assert "from_expansion" not in saved["chunks"][0]
    saved["chunks"][0]["from_expansion"] = True  # what records written before reference expansion's removal hold
    restored = AnswerResult.from_dict(saved, {chunk.chunk_id: chunk}.get)
    assert restored.chunks == result.chunks
    assert restored.chunks[0].scores == {"fused": 0.5} and restored.chunks[0].rank_before_rerank == 2
