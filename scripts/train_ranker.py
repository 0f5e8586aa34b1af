"""Train the learned ranker and its calibration from the team's tuning sets, and measure them leave-one-corpus-out.

Reads eval_data/ranker.toml (the sets it trains on and the specs each corpus indexes), indexes each corpus as
`rag suite` does (index_store/suite/), writes each set's candidate lists once per version of the code that makes
them (index_store/ranker/), ranks every corpus with a model trained only on corpora that share no spec with it,
and writes:
- rag/data/ranker/query_adapter.npy/.json (the query adapter, learned from every corpus's first-turn questions),
  model.txt (LightGBM, trained on every set) and calibration.json (fitted on the out-of-corpus first places), which
  the `full` configuration reads. A corpus's candidate lists are made with an adapter learned without it (and, in a
  leave-one-corpus-out fold, without the held-out corpus too), so the ranker learns from vectors as good as an
  unseen spec's;
- rag/data/ranker/report.json and docs/ranker.md: the leave-one-corpus-out figures per set and corpus.

usage: python scripts/train_ranker.py [--config eval_data/ranker.toml] [--rounds 100] [--out DIR] [--report FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.cache import source_digest  # noqa: E402
from rag.errors import ConfigError  # noqa: E402
from rag.evaluate.adapter_training import AdapterPairs, adapter_pairs, train_adapter  # noqa: E402
from rag.evaluate.follow_ups import follow_up_questions  # noqa: E402
from rag.evaluate.ranker_data import (  # noqa: E402
    CandidateList,
    candidate_lists,
    first_place_outcomes,
    load_lists,
    save_lists,
)
from rag.evaluate.ranker_training import (  # noqa: E402
    ROUNDS,
    FoldReport,
    apart,
    feature_importance,
    fit_calibrator,
    loco_report,
    order_figures,
    out_of_corpus,
    train_model,
)
from rag.evaluate.suite import SetSpec, Suite, corpus_index, corpus_key, load_suite, set_questions  # noqa: E402
from rag.rerank.calibration import Calibrator, load_calibrator  # noqa: E402
from rag.rerank.learned import MODEL_DIR, load_model  # noqa: E402
from rag.retrieve.query_adapter import ADAPTER_FILE, save_adapter, set_adapter_override  # noqa: E402
from rag.runner import Engine  # noqa: E402
from rag.settings import Settings  # noqa: E402

DEFAULT_CONFIG = ROOT / "eval_data" / "ranker.toml"
DEFAULT_REPORT = ROOT / "docs" / "ranker.md"


@dataclass(frozen=True)
class FollowUps:
    """Template follow-ups to train on: the corpora, how many per API, the seed."""

    corpora: tuple[str, ...] = ()
    per_api: int = 10
    seed: int = 0


def read_config(path: Path) -> tuple[Suite, list[SetSpec], dict[str, frozenset[str]], FollowUps]:
    """The suite, the sets to train on, each corpus's spec families and the follow-ups to make, checked."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    suite = load_suite((path.parent / raw.get("suite", "suite.toml")).resolve())
    by_name = {spec.name: spec for spec in suite.sets}
    unknown = [name for name in raw.get("sets", []) if name not in by_name]
    if unknown:
        raise ConfigError(f"{path}: unknown set(s) {', '.join(unknown)}; allowed: {', '.join(by_name)}")
    chosen = [by_name[name] for name in raw["sets"]]
    not_tuning = [spec.name for spec in chosen if spec.role != "tuning"]
    if not_tuning:
        raise ConfigError(f"{path}: the ranker trains on tuning sets only; not tuning: {', '.join(not_tuning)}")
    families = {corpus: frozenset(specs) for corpus, specs in raw.get("families", {}).items()}
    table = raw.get("follow_ups", {})
    follow_ups = FollowUps(tuple(table.get("corpora", ())), int(table.get("per_api", 10)), int(table.get("seed", 0)))
    missing = sorted(({spec.corpus for spec in chosen} | set(follow_ups.corpora)) - set(families))
    if missing:
        raise ConfigError(f"{path}: [families] lacks the corpora {', '.join(missing)}")
    return suite, chosen, families, follow_ups


def engine_for(corpus: str, suite: Suite, settings: Settings, engines: dict[str, Engine]) -> Engine:
    """The engine over the corpus's suite index (built on first use, as `rag suite` does)."""
    from rag.index.build import open_index

    if corpus not in engines:
        folder = Path(settings.index_dir) / "suite" / corpus_key(suite.corpora[corpus], settings.embedding_model)
        scoped = replace(settings, index_dir=folder, cache_dir=Path(settings.index_dir) / "cache", chroma_url="")
        engines[corpus] = Engine(corpus_index(suite.corpora[corpus], folder, lambda _: open_index(scoped), log))
    return engines[corpus]


def cached_lists(name: str, corpus: str, extra: bytes, settings: Settings, suite: Suite,
                 make: Callable[[], list[CandidateList]]) -> list[CandidateList]:
    """The candidate lists `make` makes, kept per version of the code, the corpus and `extra` (the questions)."""
    key = corpus_key(suite.corpora[corpus], settings.embedding_model)
    digest = hashlib.sha256(f"{source_digest(ROOT / 'rag', skip=('data/ranker',))}{key}".encode() + extra)
    cached = Path(settings.index_dir) / "ranker" / f"{name}-{digest.hexdigest()[:12]}.npz"
    found = load_lists(str(cached)) if cached.is_file() else None
    if found is not None:
        return found
    lists = make()
    cached.parent.mkdir(parents=True, exist_ok=True)
    save_lists(lists, str(cached))
    return lists


def set_lists(spec: SetSpec, suite: Suite, settings: Settings, engines: dict[str, Engine], adapter: np.ndarray
              ) -> list[CandidateList]:
    """The set's candidate lists, its questions searched with `adapter`."""
    def make() -> list[CandidateList]:
        engine = engine_for(spec.corpus, suite, settings, engines)
        return list(candidate_lists(engine, set_questions(spec, engine.index, []), spec.name, spec.corpus))

    extra = spec.questions.read_bytes() if spec.questions is not None else repr(spec.generate).encode()
    return adapted_lists(adapter, lambda: cached_lists(spec.name, spec.corpus, extra + adapter.tobytes(), settings,
                                                       suite, make))


def follow_up_lists(corpus: str, follow_ups: FollowUps, suite: Suite, settings: Settings,
                    engines: dict[str, Engine], adapter: np.ndarray) -> list[CandidateList]:
    """The candidate lists of the corpus's template follow-ups (every API of its index), searched with `adapter`."""
    name = f"follow-ups-{corpus}"

    def make() -> list[CandidateList]:
        engine = engine_for(corpus, suite, settings, engines)
        questions = [q for api in engine.index.snapshot().apis()
                     for q in follow_up_questions(engine.index, api, follow_ups.per_api, follow_ups.seed)]
        return list(candidate_lists(engine, questions, name, corpus))

    extra = repr(follow_ups).encode() + adapter.tobytes()
    return adapted_lists(adapter, lambda: cached_lists(name, corpus, extra, settings, suite, make))


def adapted_lists(adapter: np.ndarray, make: Callable[[], list[CandidateList]]) -> list[CandidateList]:
    """What `make` makes while every query context searches with `adapter`."""
    set_adapter_override(adapter)
    try:
        return make()
    finally:
        set_adapter_override(None, active=False)


@dataclass
class Corpora:
    """The sets to train on, by corpus, with what makes their candidate lists and the query adapters learned
    from their questions (one per group of corpora, learned once)."""

    chosen: list[SetSpec]
    families: dict[str, frozenset[str]]
    follow_ups: FollowUps
    suite: Suite
    settings: Settings
    engines: dict[str, Engine] = field(default_factory=dict)
    _pairs: dict[str, AdapterPairs] = field(default_factory=dict)
    _adapters: dict[frozenset[str], np.ndarray] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """Every corpus with a set or follow-ups to train on."""
        return sorted({spec.corpus for spec in self.chosen} | set(self.follow_ups.corpora))

    def pairs(self, corpus: str) -> AdapterPairs:
        """The corpus's question pairs for the adapter (its sets' first-turn questions)."""
        if corpus not in self._pairs:
            engine = engine_for(corpus, self.suite, self.settings, self.engines)
            questions = [q for spec in self.chosen if spec.corpus == corpus
                         for q in set_questions(spec, engine.index, [])]
            self._pairs[corpus] = adapter_pairs(engine.index, questions, corpus)
        return self._pairs[corpus]

    def adapter(self, corpora: frozenset[str]) -> np.ndarray:
        """The adapter learned from `corpora`'s questions (rounded as it is shipped, in float16)."""
        if corpora not in self._adapters:
            learned = train_adapter([self.pairs(c) for c in sorted(corpora)])
            self._adapters[corpora] = learned.astype(np.float16).astype(np.float32)
        return self._adapters[corpora]

    def lists(self, corpus: str, adapter: np.ndarray) -> list[CandidateList]:
        """The corpus's candidate lists (its sets', then its follow-ups'), searched with `adapter`."""
        found = [item for spec in self.chosen if spec.corpus == corpus
                 for item in set_lists(spec, self.suite, self.settings, self.engines, adapter)]
        if corpus in self.follow_ups.corpora:
            found += follow_up_lists(corpus, self.follow_ups, self.suite, self.settings, self.engines, adapter)
        return found

    def embedder_name(self) -> str:
        """The name of the embedder the corpora are indexed with (what the adapter is learned for)."""
        return engine_for(self.names[0], self.suite, self.settings, self.engines).index.embedder.name

    def unseen(self, *corpora: str) -> frozenset[str]:
        """The corpora that share no spec with any of `corpora` (what an adapter that never saw them learns from)."""
        left = set(self.names)
        for corpus in corpora:
            left &= apart(corpus, self.families)
        return frozenset(left)


def count_placed_firsts(args: argparse.Namespace, chosen: list[SetSpec], suite: Suite, settings: Settings,
                        engines: dict[str, Engine]) -> Calibrator:
    """The calibration just written with its counts, over the sets trained on, of the first places the question
    names exactly and of those a stage after the ranker chose (the lookup lift, a follow-up's subject), and of each
    how many were right, as `full` answers with the model just written (the confidence shown for such first places);
    written back."""
    if args.out.resolve() != MODEL_DIR.resolve():
        log(f"note: `full` reads its model from {MODEL_DIR}, not {args.out}: the first places other stages chose are "
            "counted with that model")
    load_model.cache_clear()
    load_calibrator.cache_clear()
    outcomes: list[tuple[str, str, bool]] = []
    for spec in chosen:
        engine = engine_for(spec.corpus, suite, settings, engines)
        outcomes += [(kind, spec.corpus, right)
                     for kind, right in first_place_outcomes(engine, set_questions(spec, engine.index, []))]
    placed = [right for kind, _, right in outcomes if kind != "named"]
    named = [right for kind, _, right in outcomes if kind == "named"]
    questions, right = Counter(), Counter()
    for kind, corpus, was_right in outcomes:
        if kind != "named":
            questions[kind, corpus] += 1
            right[kind, corpus] += was_right
    by_stage = tuple((kind, corpus, right[kind, corpus], count) for (kind, corpus), count in sorted(questions.items()))
    path = args.out / "calibration.json"
    calibrator = replace(load_calibrator(path), placed_right=sum(placed), placed_questions=len(placed),
                         named_right=sum(named), named_questions=len(named), placed_by_stage=by_stage)
    path.write_text(json.dumps(calibrator.to_dict(), indent=1) + "\n", encoding="utf-8")
    return calibrator


def placed_firsts_text(calibrator: Calibrator) -> str:
    """What the report says of the first places the question names or a stage after the ranker chose: how many were
    right, per stage over how many corpora, and the confidence shown for each."""
    rows = calibrator.placed_by_stage

    def counted(stage: str) -> str:
        mine = [(right, questions) for name, _, right, questions in rows if name == stage]
        where = "1 corpus" if len(mine) == 1 else f"{len(mine)} corpora"
        return (f"{stage}: {sum(r for r, _ in mine)} of {sum(q for _, q in mine)} right in {where}, shown as "
                f"{calibrator.placed_probability_of(stage):.2f}")

    stages = "; ".join(counted(stage) for stage in dict.fromkeys(row[0] for row in rows))
    return (f"The lookup lift or a follow-up's subject chose the first place of {calibrator.placed_questions} of "
            f"these questions; {calibrator.placed_right} were right. The confidence shown for such a first place is "
            f"how often the first places of its stage were right in each corpus (one right and one wrong added), "
            f"averaged over the corpora ({stages}). {calibrator.named_questions} questions named their first place "
            f"exactly (a method and path, or an operationId); {calibrator.named_right} were right: the confidence "
            f"shown for such a first place is {calibrator.named_probability:.2f}.")


def log(line: str) -> None:
    """Progress on standard error."""
    print(line, file=sys.stderr, flush=True)


def table(reports: list[FoldReport]) -> str:
    """A Markdown table of fold reports."""
    columns = list(reports[0].figures) if reports else []
    lines = ["| | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    lines += [f"| {r.name} | " + " | ".join("—" if v is None else str(v) for v in r.figures.values()) + " |"
              for r in reports]
    return "\n".join(lines)


def write_outputs(args: argparse.Namespace, corpora: Corpora) -> str:
    """Learn the shipped query adapter, make every corpus's candidate lists with an adapter learned without it,
    train the shipped model and calibration on them, write them and report.json; returns the report's text (`main`
    writes it once the first places other stages chose are counted)."""
    started = time.perf_counter()
    lists: dict[str, list[CandidateList]] = {}
    training: dict[str, list[CandidateList]] = {}
    for corpus in corpora.names:
        lists[corpus] = corpora.lists(corpus, corpora.adapter(corpora.unseen(corpus)))
        training[corpus] = [item for other in sorted(corpora.unseen(corpus))
                            for item in corpora.lists(other, corpora.adapter(corpora.unseen(corpus, other)))]
        log(f"{corpus}: {len(lists[corpus])} questions, its fold trains on {len(training[corpus])} "
            f"({time.perf_counter() - started:.0f} s)")
    every = [item for corpus in corpora.names for item in lists[corpus]]
    ranked = out_of_corpus(every, corpora.families, args.rounds, training)
    per_set = loco_report(ranked, corpora.families)
    per_corpus = loco_report(ranked, corpora.families, by="corpus")
    overall = {f"first-stage {k}": v for k, v in order_figures([r.first_stage for r in ranked]).items()}
    overall.update({f"learned {k}": v for k, v in order_figures([r.learned for r in ranked]).items()})
    model, calibrator = train_model(every, args.rounds), fit_calibrator(ranked)
    args.out.mkdir(parents=True, exist_ok=True)
    adapter = corpora.adapter(frozenset(corpora.names))
    save_adapter(adapter, corpora.embedder_name(), args.out / ADAPTER_FILE.name)
    model.save_model(str(args.out / "model.txt"))
    (args.out / "calibration.json").write_text(json.dumps(calibrator.to_dict(), indent=1) + "\n", encoding="utf-8")
    importance = feature_importance(model)
    report = {"questions": len(ranked), "rounds": args.rounds, "overall": overall,
              "sets": {r.name: r.figures for r in per_set}, "corpora": {r.name: r.figures for r in per_corpus},
              "importance": dict(importance[:15])}
    (args.out / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    text = "\n\n".join([
        "# The learned ranker: leave-one-corpus-out figures",
        "Written by `make ranker` (scripts/train_ranker.py). Each corpus is ranked by a model trained only on the "
        "corpora that share no spec with it, and searched with a query adapter learned without it (the fold's "
        "training lists with one learned without either corpus); hit@1, MRR and hit@5 (k = 5) of the first-stage "
        "order (hybrid, per-API k) and of the learned order, over the answerable questions whose candidates hold an "
        "answer or not; ECE and 'right at 0.9' are the calibration's (fitted, for each corpus, on the other "
        f"corpora's first places). {len(ranked)} questions; {args.rounds} rounds; "
        f"{time.perf_counter() - started:.0f} s to make the lists and train.",
        "## Overall\n\n" + " · ".join(f"{k} {v}" for k, v in overall.items()),
        "## Per corpus\n\n" + table(per_corpus),
        "## Per set\n\n" + table(per_set),
        "## The features that carry the model (share of its gain)\n\n"
        + "\n".join(f"- {name}: {share:.3f}" for name, share in importance[:15]),
    ])
    return text


def main(argv: list[str] | None = None) -> int:
    """Make the data, train, write."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--out", type=Path, default=MODEL_DIR)
    parser.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    args = parser.parse_args(argv)
    try:
        suite, chosen, families, follow_ups = read_config(args.config)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    corpora = Corpora(chosen, families, follow_ups, suite, Settings.from_env())
    text = write_outputs(args, corpora)
    calibrator = count_placed_firsts(args, chosen, suite, corpora.settings, corpora.engines)
    text += "\n\n## First places a stage after the ranker chose\n\n" + placed_firsts_text(calibrator)
    args.report.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
