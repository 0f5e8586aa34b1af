"""Dry runs: the pipeline over a temporary copy of the index embedded with fake (hashing) embeddings, with
placeholder answers; no model and no network call."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.config import Config
from rag.index.store import Index, Snapshot
from rag.llm.spec import EXTRACTIVE, LLM
from rag.query import Query
from rag.rerank.base import Reranker, RerankerUnavailable
from rag.results import AnswerResult, RetrievedChunk
from rag.runner import Engine

DRY_RUN_ANSWER = "[dry run] placeholder answer: no model was called."
DRY_RUN_MODEL = "dry-run"
DRY_RUN_EMBEDDING_MODEL = "hashing-384"


class _SkippedReranker:
    """Stands in for model-backed rerankers during a dry run: says it was skipped, calls nothing."""

    def __init__(self, kind: str) -> None:
        self.name = f"dry-run:{kind}"
        self.kind = kind

    def score(self, query: Query | str, candidates: Sequence[RetrievedChunk]) -> list[float]:
        raise RerankerUnavailable(f"dry run: the {self.kind} reranker is not called; first-stage order kept")


class DryRunEngine(Engine):
    """An engine that never calls a model: every LLM stage resolves to the offline path."""

    def llm_spec(self, config: Config) -> str:
        """Always the extractive generator (no chat model)."""
        return EXTRACTIVE

    def reranker_for(self, config: Config, llm: LLM) -> Callable[[Snapshot], Reranker]:
        """Model-backed rerankers are skipped (said so, first-stage order kept); the learned ranker runs."""
        if config.reranker in ("cross-encoder", "llm"):
            return lambda snapshot: _SkippedReranker(config.reranker)
        return super().reranker_for(config, llm)


def dry_run_engine(index: Index, directory: Path) -> DryRunEngine:
    """An engine over a temporary index in `directory` holding the same chunks, embedded by HashingEmbedder."""
    from rag.index.deferred import chunks_of
    from rag.index.embedder import HashingEmbedder
    from rag.ingest.pipeline import ParsedDocument

    copy = Index(directory, HashingEmbedder())
    snapshot = index.snapshot()
    by_version: dict[str, list[Any]] = {}
    for chunk in snapshot.chunks.values():
        by_version.setdefault(chunk.doc_version, []).append(chunk)
    for record in snapshot.documents:
        set_aside = [chunk for strategy in record.pending
                     for chunk in chunks_of(index.registry.deferred(record.version, strategy))]
        chunks = tuple(
            replace(chunk, chunk_id=chunk.chunk_id.removeprefix(f"{record.version}/"), doc_version="")
            for chunk in sorted(by_version.get(record.version, []) + set_aside, key=lambda c: c.chunk_id)
        )
        document = ParsedDocument(
            source=record.source,
            api=record.api,
            doc_type=record.doc_type,
            content_hash=record.content_hash,
            chunks=chunks,
            size_bytes=record.size_bytes,
            title=record.title,
        )
        copy.add(document)
    return DryRunEngine(copy, default_llm=EXTRACTIVE)


@contextmanager
def temporary_dry_run_engine(index: Index) -> Iterator[DryRunEngine]:
    """`dry_run_engine` over a temporary folder that is removed when the block ends."""
    directory = Path(tempfile.mkdtemp(prefix="specrag-dry-run-"))
    try:
        yield dry_run_engine(index, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def mark_dry_run(result: AnswerResult, retrieval_only: bool) -> None:
    """Give a dry run's result without errors its placeholder answer (none when retrieval only) and generator."""
    if not result.errors:
        result.answer = "" if retrieval_only else DRY_RUN_ANSWER
        result.generator = DRY_RUN_MODEL
