"""The learned ranker: the final order of the candidates, from a model trained on labelled questions.

For each (question, candidate) pair the features of rag.rerank.features are computed from what the pipeline
already has (the retrievers' scores, the question's analysis, the chunk's typed facts) plus two short-text
similarities (the question against what the operation does, and against its name), and a gradient-boosted
ranking model (LightGBM's lambdarank, trained by scripts/train_ranker.py on the team's tuning sets, evaluated
leave-one-corpus-out) scores them. The model ships in rag/data/ranker/; nothing here is a hand-set weight.

What each feature added to rank 1's score says which features put it first (the trace shows the strongest): each
split on the path rank 1 takes through each tree credits its feature with the change of the tree's value there
(path attribution, as treeinterpreter's; the credits and the trees' first values sum to the score).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from rag.chunk import Chunk
from rag.corpus.profile import CorpusProfile
from rag.errors import RagError
from rag.rerank.base import apply_scores
from rag.rerank.features import (
    FEATURE_NAMES,
    CandidateInputs,
    ChunkWords,
    QuestionSignals,
    chunk_words,
    feature_matrix,
    lead_text,
    name_text,
)
from rag.results import RERANK_SCORE, RetrievedChunk
from rag.retrieve.short_texts import OperationTexts, ShortTexts

MODEL_DIR = Path(__file__).resolve().parent.parent / "data" / "ranker"
MODEL_FILE = MODEL_DIR / "model.txt"


@dataclass(frozen=True)
class QuestionVectors:
    """The question's own vector (compared with the short texts) and the one its chunk search used (the adapted
    vector, rag.retrieve.query_adapter, where the configuration adapts it; else the same)."""

    own: np.ndarray
    search: np.ndarray


@dataclass
class RankingInputs:
    """What the features of one question's candidates need from the index: the profile, each chunk's words
    (computed once per chunk), the short texts' vectors and the candidates' exact cosine similarities."""

    profile: CorpusProfile
    short_texts: ShortTexts
    similarities: Callable[[Sequence[Chunk], np.ndarray], list[float]]
    _words: dict[str, ChunkWords] = field(default_factory=dict)
    _short_rows: dict[str, int] = field(default_factory=dict)
    _leads: np.ndarray | None = None
    _names: np.ndarray | None = None
    _short_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _operations: OperationTexts | None = None

    def operations(self) -> OperationTexts:
        """Every operation of the generation with its short texts' vectors (made on first need)."""
        if self._operations is None:
            self._operations = OperationTexts.of(self.profile.operations, self.short_texts)
        return self._operations

    def words(self, chunk: Chunk) -> ChunkWords:
        """The chunk's word forms (remembered)."""
        found = self._words.get(chunk.chunk_id)
        if found is None:
            found = self._words[chunk.chunk_id] = chunk_words(chunk, self.profile.prefixes.get(chunk.api, frozenset()))
        return found

    def short_vectors(self, chunks: Sequence[Chunk]) -> tuple[np.ndarray, np.ndarray]:
        """The unit vectors of each chunk's lead text and of its name, a row per chunk each (remembered)."""
        self._remember_short(chunks)
        with self._short_lock:
            assert self._leads is not None and self._names is not None
            rows = [self._short_rows[c.chunk_id] for c in chunks]
            return self._leads[rows], self._names[rows]

    def _remember_short(self, chunks: Sequence[Chunk]) -> None:
        with self._short_lock:
            missing = list({c.chunk_id: c for c in chunks if c.chunk_id not in self._short_rows}.values())
        if not missing:
            return
        leads = np.asarray(self.short_texts.vectors([lead_text(c) for c in missing]))
        names = np.asarray(self.short_texts.vectors([name_text(c) for c in missing]))
        with self._short_lock:  # another thread may have remembered some of them meanwhile
            new = [n for n, c in enumerate(missing) if c.chunk_id not in self._short_rows]
            for number in new:
                self._short_rows[missing[number].chunk_id] = len(self._short_rows)
            self._leads = leads[new] if self._leads is None else np.vstack([self._leads, leads[new]])
            self._names = names[new] if self._names is None else np.vstack([self._names, names[new]])

    def prepare(self, chunks: Sequence[Chunk]) -> None:
        """Make the chunks' words and short-text vectors now (what a question would otherwise make for each
        candidate the first time it is one)."""
        for chunk in chunks:
            self.words(chunk)
        self._remember_short(chunks)

    def candidate_inputs(self, vectors: QuestionVectors, candidates: Sequence[RetrievedChunk]) -> CandidateInputs:
        """The inputs of `feature_matrix` for these candidates (a candidate the vector search did not score is
        compared with the vector the search used; the short texts with the question's own)."""
        chunks = [c.chunk for c in candidates]
        unscored = [c.chunk for c in candidates if "vector" not in c.scores]
        computed = iter(self.similarities(unscored, vectors.search) if unscored else ())
        vector = [float(c.scores["vector"]) if "vector" in c.scores else next(computed) for c in candidates]
        if not chunks:
            return CandidateInputs(candidates, [], vector, [], [])
        query = np.asarray(vectors.own, dtype=np.float32).ravel()
        query = query / (float(np.linalg.norm(query)) or 1.0)
        leads, names = self.short_vectors(chunks)
        return CandidateInputs(candidates, [self.words(c) for c in chunks], vector, list(map(float, leads @ query)),
                               list(map(float, names @ query)))

    def features(
        self, signals: QuestionSignals, vectors: QuestionVectors, candidates: Sequence[RetrievedChunk]
    ) -> tuple[np.ndarray, CandidateInputs]:
        """The feature rows of the candidates (`FEATURE_NAMES`) and what they were computed from."""
        found = self.candidate_inputs(vectors, candidates)
        return feature_matrix(signals, found, self.profile), found


class RankerUnavailable(RagError):
    """The learned ranker's model file is missing or unreadable (the message says how to build it)."""


class RankingModel(Protocol):
    """What the learned ranker needs of its model: the raw score of each feature row, with what each feature added
    to a row's score (`Scored`)."""

    def score(self, features: np.ndarray) -> Scored: ...


def tree_leaves(model: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """Each leaf of a dumped LightGBM model (`Booster.dump_model()`), in one walk of its trees: the leaf's value,
    `[tree, leaf]` (0 past a tree's last leaf), and its path credits, `[tree, leaf, feature]`: what each feature
    added on the way from the root to that leaf (a split credits its feature with the change of the tree's value
    from the node to the child taken), the root's value in the last column."""
    trees, features = model["tree_info"], int(model["max_feature_idx"]) + 1
    width = max(int(t["num_leaves"]) for t in trees)
    values, credits = np.zeros((len(trees), width)), np.zeros((len(trees), width, features + 1))

    def value(node: Mapping[str, Any]) -> float:
        return float(node["leaf_value"] if "leaf_value" in node else node["internal_value"])

    for number, tree in enumerate(trees):
        root = tree["tree_structure"]
        start = np.zeros(features + 1)
        start[features] = value(root)
        stack = [(root, start)]
        while stack:
            node, gained = stack.pop()
            if "split_feature" not in node:
                leaf = int(node.get("leaf_index", 0))
                values[number, leaf], credits[number, leaf] = float(node["leaf_value"]), gained
                continue
            for side in ("left_child", "right_child"):
                child, taken = node[side], gained.copy()
                taken[int(node["split_feature"])] += value(child) - value(node)
                stack.append((child, taken))
    return values, credits


@dataclass(frozen=True)
class TreeModel:
    """The shipped LightGBM model with each leaf's value and path credits (`tree_leaves`), both `[tree, leaf]`."""

    booster: Any = field(repr=False)
    leaf_values: np.ndarray = field(repr=False)
    credits: np.ndarray = field(repr=False)

    def score(self, features: np.ndarray) -> Scored:
        """Each row's raw score, from one look-up of the leaf each row reaches in each tree (LightGBM's
        `pred_leaf`, one call: its set-up costs more than the trees): the leaves' values added tree after tree, as
        LightGBM adds them; a row's contributions are its leaves' path credits."""
        rows = np.asarray(features, dtype=np.float32).reshape(-1, self.credits.shape[2] - 1)
        if not len(rows):
            return Scored(np.zeros(0), lambda row: np.zeros(self.credits.shape[2]))
        leaves = np.asarray(self.booster.predict(rows, pred_leaf=True, num_threads=1), dtype=np.int64)
        leaves = leaves.reshape(len(rows), len(self.leaf_values))
        trees = np.arange(len(self.leaf_values))
        # tree by tree (a sum down the first axis adds the rows in order)
        scores = np.ascontiguousarray(self.leaf_values[trees, leaves].T).sum(axis=0)
        return Scored(scores, lambda row: self.credits[trees, leaves[row]].sum(axis=0))


@cache
def load_model(path: Path = MODEL_FILE) -> TreeModel:
    """The LightGBM model at `path` with its path credits (read once)."""
    if not path.is_file():
        raise RankerUnavailable(f"no ranker model at {path}; build it with `make ranker`")
    import lightgbm

    booster = lightgbm.Booster(model_file=str(path))
    names = tuple(booster.feature_name())
    if names != FEATURE_NAMES:
        raise RankerUnavailable(
            f"the ranker model at {path} was trained on other features ({len(names)} vs {len(FEATURE_NAMES)}); "
            "rebuild it with `make ranker`"
        )
    return TreeModel(booster, *tree_leaves(booster.dump_model()))


@dataclass(frozen=True)
class Scored:
    """A candidate list's model scores, and what each feature added to one candidate's score (`contributions`, by
    row: the last entry is what no feature explains; they sum to its score)."""

    scores: np.ndarray
    contributions: Callable[[int], np.ndarray] = field(repr=False)

    def deciding_features(self, row: int, count: int = 3) -> list[tuple[str, float]]:
        """The features that added most to one candidate's score, with what each added."""
        values = self.contributions(row)[: len(FEATURE_NAMES)]
        order = np.argsort(-values)[:count]
        return [(FEATURE_NAMES[i], float(values[i])) for i in order if values[i] > 0]


@dataclass(frozen=True)
class Explanation:
    """Why the first candidate leads: its score, the runner-up's, and the features that added most to it."""

    first: str
    score: float
    runner_up: float | None
    features: tuple[tuple[str, float], ...]

    def note(self) -> str:
        """`learned ranker: GET /users first (2.31; next 1.05): lead_similarity +0.92, method_match +0.41`."""
        gap = f"; next {self.runner_up:.2f}" if self.runner_up is not None else ""
        why = ", ".join(f"{name} +{value:.2f}" for name, value in self.features) or "no single feature stood out"
        return f"learned ranker: {self.first} first ({self.score:.2f}{gap}): {why}"


@dataclass
class LearnedRanker:
    """Orders candidates by the learned model's score (`model`), from the features `inputs` gives for one index
    generation."""

    inputs: RankingInputs
    model: RankingModel

    def _scored_copies(
        self, signals: QuestionSignals, vectors: QuestionVectors, candidates: Sequence[RetrievedChunk]
    ) -> tuple[list[RetrievedChunk], Scored]:
        """Copies of the candidates, in their order, with their exact `vector` similarity and short-text
        similarities (`lead`, `name`), and the model's scores."""
        matrix, found = self.inputs.features(signals, vectors, candidates)
        scored = self.model.score(matrix)
        copies = [c.copy(own_scores=True) for c in candidates]
        for copy, vector, lead, name in zip(copies, found.vector, found.lead, found.name, strict=True):
            copy.scores.update({"vector": vector, "lead": lead, "name": name})
        return copies, scored

    def rank(
        self, signals: QuestionSignals, vectors: QuestionVectors, candidates: Sequence[RetrievedChunk],
        explain: bool = True,
    ) -> tuple[list[RetrievedChunk], Explanation | None]:
        """The candidates (copies) best first, each with its `rerank` score, its exact `vector` similarity and
        its short texts' similarities (`lead`, `name`); and, with `explain`, why the first leads."""
        if not candidates:
            return [], None
        copies, scored = self._scored_copies(signals, vectors, candidates)
        ordered = apply_scores(copies, [float(s) for s in scored.scores])
        if not explain:
            return ordered, None
        best = int(np.argmax(scored.scores))
        others = [float(s) for i, s in enumerate(scored.scores) if i != best]
        explanation = Explanation(
            ordered[0].chunk.title, float(scored.scores[best]), max(others) if others else None,
            tuple(scored.deciding_features(best)),
        )
        return ordered, explanation

    def scored(
        self, signals: QuestionSignals, vectors: QuestionVectors, candidates: Sequence[RetrievedChunk]
    ) -> list[RetrievedChunk]:
        """The candidates (copies) in their given order, each with the scores `rank` gives it: what the model
        makes of an order another stage chose."""
        if not candidates:
            return []
        copies, scored = self._scored_copies(signals, vectors, candidates)
        for copy, score in zip(copies, scored.scores, strict=True):
            copy.scores[RERANK_SCORE] = float(score)
        return copies
