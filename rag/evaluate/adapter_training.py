"""Learning the query adapter (rag.retrieve.query_adapter) from the tuning questions of many corpora.

Each answerable first-turn question with relevant ids is a pair: its own vector, and the row of the first smart
chunk that covers one of its relevant ids among all the smart chunks of its corpus's index. The adapter is a square
matrix, started at the identity, trained with a softmax over the corpus's chunks (cosine × 20, the question's chunk
the target) and a pull back towards the identity, so that a corpus nobody trained on keeps most of the embedder's own
geometry. Deterministic: one thread, fixed seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag.evaluate.questions import Question
from rag.index.embedder import embed_queries
from rag.index.store import Index

SCALE = 20.0
PULL = 0.01
EPOCHS = 5
BATCH = 32
LEARNING_RATE = 1e-3


@dataclass(frozen=True)
class AdapterPairs:
    """One corpus's questions (their own vectors, a row each), the row of each one's answering chunk in `chunks`,
    and the vectors of every smart chunk of the corpus's index."""

    corpus: str
    questions: np.ndarray
    answers: np.ndarray
    chunks: np.ndarray

    def __post_init__(self) -> None:
        if len(self.questions) != len(self.answers):
            raise ValueError(f"{self.corpus}: {len(self.questions)} question vectors but {len(self.answers)} answers; "
                             "allowed: one answer row per question")


def adapter_pairs(index: Index, questions: Sequence[Question], corpus: str) -> AdapterPairs:
    """The pairs of the answerable first-turn questions whose relevant ids a smart chunk of `index` covers."""
    snapshot = index.snapshot()
    ids, vectors, _ = index.stored_vectors("smart", snapshot)
    row_of: dict[str, int] = {}
    for row, chunk_id in enumerate(ids):
        for covered in snapshot.chunks[chunk_id].covers:
            row_of.setdefault(covered, row)
    asked, answers = [], []
    for question in questions:
        if question.history or not question.answerable:
            continue
        rows = sorted(row_of[i] for i in question.relevant_ids if i in row_of)
        if rows:
            asked.append(question.question)
            answers.append(rows[0])
    embedded = embed_queries(index.embedder, asked) if asked else np.zeros((0, vectors.shape[1]), np.float32)
    return AdapterPairs(corpus, np.asarray(embedded, np.float32), np.asarray(answers, np.int64),
                        np.asarray(vectors, np.float32))


def train_adapter(corpora: Sequence[AdapterPairs], epochs: int = EPOCHS, pull: float = PULL, seed: int = 0
                  ) -> np.ndarray:
    """The adapter learned from the pairs of `corpora` (the identity when they hold no pair)."""
    import torch

    usable = sorted((c for c in corpora if len(c.questions)), key=lambda c: c.corpus)
    dimension = next((c.chunks.shape[1] for c in corpora), 0)
    if not usable:
        return np.eye(dimension, dtype=np.float32)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(seed)
        order = torch.Generator().manual_seed(seed)
        identity = torch.eye(dimension)
        matrix = torch.nn.Parameter(identity.clone())
        optimizer = torch.optim.Adam([matrix], lr=LEARNING_RATE)
        tensors = [(torch.from_numpy(c.questions), torch.from_numpy(c.chunks), torch.from_numpy(c.answers))
                   for c in usable]
        for _ in range(epochs):
            for questions, chunks, answers in tensors:
                shuffled = torch.randperm(len(questions), generator=order)
                for start in range(0, len(questions), BATCH):
                    batch = shuffled[start:start + BATCH]
                    moved = torch.nn.functional.normalize(questions[batch] @ matrix, dim=-1)
                    loss = torch.nn.functional.cross_entropy(moved @ chunks.T * SCALE, answers[batch])
                    loss = loss + pull * ((matrix - identity) ** 2).sum()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
        return matrix.detach().numpy().astype(np.float32)
    finally:
        torch.set_num_threads(threads)


def rank_of_answers(pairs: AdapterPairs, matrix: np.ndarray | None = None) -> np.ndarray:
    """The 1-based rank of each question's answering chunk among the corpus's chunks by cosine (through `matrix`
    when given)."""
    questions = pairs.questions if matrix is None else pairs.questions @ matrix
    norms = np.linalg.norm(questions, axis=1, keepdims=True)
    scores = (questions / np.where(norms == 0, 1.0, norms)) @ pairs.chunks.T
    best = scores[np.arange(len(scores)), pairs.answers]
    return (scores > best[:, None]).sum(axis=1) + 1
