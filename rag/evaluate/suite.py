"""An evaluation suite: many question sets, each with the specs it needs and a role (tuning or validation).

A suite file (TOML) names corpora (lists of spec files or folders, each indexed once under
`index_store/suite/<corpus>-<hash>`) and question sets. A set either loads a question file (any format
`load_questions` reads) or is generated from its corpus with the template generator, with unanswerable
distractors. Every set runs through the chosen configs (retrieval only by default); the report has per
set hit@k, MRR, recall@k, false-abstention rate and out-of-scope abstention, the macro average of the
validation sets, and whether `full` beats C2 on each set.

    [suite]
    k = 5
    configs = ["C2", "full"]

    [corpora.stackone]
    specs = ["../../shared/specs/stackone"]      # relative to the suite file
    # fetch = "make public-specs"                 # for downloaded specs: named when they are missing

    [[sets]]
    name = "dev"
    role = "tuning"                               # tuning | validation
    corpus = "stackone"
    questions = "dev_set.jsonl"
    unknown_ids = "error"                         # error | warn

    [[sets]]
    name = "generated-stackone"
    role = "validation"
    corpus = "stackone"
    generate = { per_api = 30, seed = 7, distractors = "fresh" }
"""

from __future__ import annotations

import hashlib
import json
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.config import Config
from rag.errors import ConfigError, allowed
from rag.evaluate.generate import DISTRACTOR_POOLS
from rag.evaluate.history import replayed_history
from rag.evaluate.metrics import by_api
from rag.evaluate.questions import UNKNOWN_ID_POLICIES, Question, load_questions
from rag.evaluate.records import build_record
from rag.evaluate.runner import with_k
from rag.evaluate.suite_results import SetResult, SuiteReport, set_metrics, suite_markdown
from rag.index.store import Index
from rag.runner import Engine

ROLES = ("tuning", "validation")
LATEST_JSON = "latest.json"
LATEST_TABLE = "latest.md"


@dataclass(frozen=True)
class Corpus:
    """The specs one or more question sets are asked against (indexed together)."""

    name: str
    specs: tuple[Path, ...]
    # Older versions of the same APIs, indexed beside them under a label: ((label, (spec files or folders)), …)
    versions: tuple[tuple[str, tuple[Path, ...]], ...] = ()


@dataclass(frozen=True)
class Generation:
    """How a generated set is made: questions per indexed API and the generator's seed."""

    per_api: int = 30
    seed: int = 7
    distractors: str = "fresh"


@dataclass(frozen=True)
class SetSpec:
    """One question set of the suite."""

    name: str
    role: str
    corpus: str
    questions: Path | None = None
    generate: Generation | None = None
    unknown_ids: str = "error"

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise allowed(f"sets.{self.name}.role", self.role, ROLES)
        if self.unknown_ids not in UNKNOWN_ID_POLICIES:
            raise allowed(f"sets.{self.name}.unknown_ids", self.unknown_ids, UNKNOWN_ID_POLICIES)
        if (self.questions is None) == (self.generate is None):
            raise ConfigError(f"sets.{self.name}: give exactly one of 'questions' (a file) or 'generate' (a table)")


@dataclass(frozen=True)
class Suite:
    """A parsed suite file."""

    path: Path
    corpora: dict[str, Corpus]
    sets: tuple[SetSpec, ...]
    configs: tuple[str, ...] = ("C2", "full")
    k: int = 5

    def select(self, names: Sequence[str]) -> Suite:
        """The suite with only the named sets (unknown names fail, listing the allowed ones)."""
        known = [s.name for s in self.sets]
        missing = [n for n in names if n not in known]
        if missing:
            raise ConfigError(f"unknown set(s) {', '.join(missing)}; allowed: {', '.join(known)}")
        return Suite(self.path, self.corpora, tuple(s for s in self.sets if s.name in names), self.configs, self.k)


def _table(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table")
    return raw


def _strings(raw: Any, where: str) -> list[str]:
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not raw or not all(isinstance(item, str) and item.strip() for item in raw):
        raise ConfigError(f"{where} must be a non-empty list of paths or names")
    return [item.strip() for item in raw]


def _set_spec(
    raw: dict[str, Any], position: int, base: Path, corpora: dict[str, Corpus], check_files: bool = True
) -> SetSpec:
    where = f"sets[{position}]"
    known_keys = {"name", "role", "corpus", "questions", "generate", "unknown_ids"}
    extra = sorted(set(raw) - known_keys)
    if extra:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(extra)}; allowed: {', '.join(sorted(known_keys))}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}: needs a 'name'")
    corpus = raw.get("corpus")
    if corpus not in corpora:
        raise allowed(f"sets.{name}.corpus", corpus, tuple(corpora))
    questions = None
    if "questions" in raw:
        questions = (base / str(raw["questions"])).resolve()
        if check_files and not questions.is_file():
            raise ConfigError(f"sets.{name}.questions: {questions} is not a file")
    generation = None
    if "generate" in raw:
        table = _table(raw["generate"], f"sets.{name}.generate")
        bad = sorted(set(table) - {"per_api", "seed", "distractors"})
        if bad:
            raise ConfigError(
                f"sets.{name}.generate: unknown key(s) {', '.join(bad)}; allowed: per_api, seed, distractors"
            )
        per_api, seed = table.get("per_api", 30), table.get("seed", 7)
        pool = table.get("distractors", "fresh")
        if pool not in DISTRACTOR_POOLS:
            raise allowed(f"sets.{name}.generate.distractors", pool, tuple(DISTRACTOR_POOLS))
        if not isinstance(per_api, int) or isinstance(per_api, bool) or not 1 <= per_api <= 500:
            raise ConfigError(f"sets.{name}.generate.per_api={per_api!r} is not allowed; allowed: 1 to 500")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ConfigError(f"sets.{name}.generate.seed={seed!r} is not allowed; allowed: a whole number")
        generation = Generation(per_api, seed, str(pool))
    return SetSpec(
        name.strip(),
        str(raw.get("role", "")),
        str(corpus),
        questions,
        generation,
        str(raw.get("unknown_ids", "error")),
    )


def load_suite(path: Path | str, check_files: bool = True) -> Suite:
    """Parse and check a suite file; every path is resolved against the file's folder and must exist (unless
    `check_files` is False: reading the sets' roles needs no spec or question file)."""
    path = Path(path).resolve()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the suite ({error})") from None
    base = path.parent
    header = _table(raw.get("suite", {}), "[suite]")
    corpora: dict[str, Corpus] = {}
    for name, table in _table(raw.get("corpora"), "[corpora]").items():
        specs = tuple((base / item).resolve() for item in _strings(_table(table, f"corpora.{name}").get("specs"),
                                                                   f"corpora.{name}.specs"))
        raw_versions = _table(table.get("versions", {}), f"corpora.{name}.versions")
        versions = tuple((str(label), tuple((base / item).resolve() for item in _strings(
            paths, f"corpora.{name}.versions.{label}"))) for label, paths in raw_versions.items())
        missing = [str(spec) for spec in specs + tuple(p for _, paths in versions for p in paths) if not spec.exists()]
        if missing and check_files:  # downloaded specs name the command that fetches them
            hint = f"; fetch them with `{table['fetch']}`" if isinstance(table.get("fetch"), str) else ""
            raise ConfigError(f"corpora.{name}.specs: not found: {', '.join(missing)}{hint}")
        corpora[name] = Corpus(name, specs, versions)
    items = raw.get("sets")
    if not isinstance(items, list) or not items:
        raise ConfigError(f"{path}: expected one or more [[sets]] tables")
    sets = tuple(
        _set_spec(_table(item, f"sets[{n}]"), n, base, corpora, check_files) for n, item in enumerate(items, start=1)
    )
    names = [s.name for s in sets]
    if len(set(names)) != len(names):
        raise ConfigError(f"{path}: set names repeat: {', '.join(names)}")
    k = header.get("k", 5)
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
        raise ConfigError(f"[suite].k={k!r} is not allowed; allowed: a whole number from 1 to 50")
    configs = tuple(_strings(header.get("configs", ["C2", "full"]), "[suite].configs"))
    return Suite(path, corpora, sets, configs, k)


# ---------------------------------------------------------------------- indexes
def corpus_files(corpus: Corpus) -> list[Path]:
    """The spec files of a corpus (folders expanded), sorted."""
    from rag.index.build import expand_paths

    return expand_paths(corpus.specs)


def _version_files(corpus: Corpus) -> list[tuple[str, list[Path]]]:
    """The spec files of each older version of a corpus, by label."""
    from rag.index.build import expand_paths

    return [(label, expand_paths(paths)) for label, paths in corpus.versions]


def corpus_key(corpus: Corpus, embedding_model: str) -> str:
    """A folder name that changes when a spec file's content or the embedding model changes."""
    digest = hashlib.sha256(embedding_model.encode("utf-8"))
    for file in corpus_files(corpus):
        digest.update(file.name.encode("utf-8") + b"\0" + hashlib.sha256(file.read_bytes()).digest())
    for label, files in _version_files(corpus):
        for file in files:
            digest.update(f"{label}@{file.name}".encode() + b"\0" + hashlib.sha256(file.read_bytes()).digest())
    return f"{corpus.name}-{digest.hexdigest()[:12]}"


def corpus_index(
    corpus: Corpus,
    root: Path,
    open_index: Callable[[Path], Index],
    log: Callable[[str], None] = lambda _: None,
) -> Index:
    """The corpus's own index under `root` (built on first use, refreshed when the chunker changed)."""
    from rag.index.build import ingest_paths

    index = open_index(root)
    files = corpus_files(corpus)
    started = time.perf_counter()
    reports = ingest_paths(index, files, on_duplicate="replace")
    for label, version_files in _version_files(corpus):
        reports += ingest_paths(index, version_files, on_duplicate="replace", version=label)
        files = files + version_files
    bad = [r for r in reports if r.status in ("error", "rejected")]
    if bad:
        raise ConfigError(f"corpus {corpus.name}: " + "; ".join(r.message or r.source for r in bad))
    changed = [r for r in reports if r.status in ("added", "replaced")]
    if changed:
        seconds = time.perf_counter() - started
        log(f"indexed corpus {corpus.name}: {len(changed)} of {len(files)} file(s) in {seconds:.0f} s")
    return index


# ---------------------------------------------------------------------- questions
def set_questions(spec: SetSpec, index: Index, warnings: list[str]) -> list[Question]:
    """The questions of a set: loaded (lenient with `unknown_ids = "warn"`) or generated for every API."""
    if spec.questions is not None:
        found: list[str] = []
        questions = load_questions(spec.questions, index, unknown_ids=spec.unknown_ids, warnings=found)
        warnings.extend(f"{spec.name}: {w}" for w in found)
        return questions
    from rag.evaluate.generate import make_questions

    assert spec.generate is not None
    questions: list[Question] = []
    for api in index.snapshot().apis():
        questions.extend(
            make_questions(
                index, api, limit=spec.generate.per_api, seed=spec.generate.seed,
                distractors=spec.generate.distractors,
            )
        )
    return questions


# ---------------------------------------------------------------------- running
def run_set(
    engine: Engine,
    spec: SetSpec,
    questions: Sequence[Question],
    configs: Sequence[Config],
    k: int,
    records_dir: Path | None = None,
    retrieval_only: bool = True,
) -> SetResult:
    """Run one set through every config; optionally write `<records_dir>/<set>/<config>.jsonl`."""
    result = SetResult(
        spec.name,
        spec.role,
        spec.corpus,
        len(questions),
        sum(1 for q in questions if q.answerable),
        sum(1 for q in questions if not q.answerable),
    )
    for config in configs:
        sized = with_k(config, k)
        records = []
        for question in questions:
            history = replayed_history(engine, question.history, sized, retrieval_only)
            answer = engine.run(question.question, sized, history, retrieval_only)
            records.append(
                build_record(question, sized, answer, retrieval_only=retrieval_only, dry_run=False,
                             model=engine.default_llm, max_text_chars=0)
            )
        result.metrics[config.name] = set_metrics(records, k)
        if per_api := by_api(records, k):
            result.by_api[config.name] = per_api
        if records_dir is not None:
            folder = records_dir / spec.name
            folder.mkdir(parents=True, exist_ok=True)
            lines = (json.dumps(r, ensure_ascii=False) for r in records)
            (folder / f"{config.name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return result


def run_suite(
    suite: Suite,
    configs: Sequence[Config],
    engine_for: Callable[[Corpus], Engine],
    out_dir: Path | None = None,
    log: Callable[[str], None] = lambda _: None,
    retrieval_only: bool = True,
) -> SuiteReport:
    """Run every set of the suite; with `out_dir`, write `latest.json`, `latest.md` and the records."""
    started = time.perf_counter()
    report = SuiteReport(str(suite.path), [c.name for c in configs], suite.k, [])
    engines: dict[str, Engine] = {}
    for spec in suite.sets:
        if spec.corpus not in engines:
            engines[spec.corpus] = engine_for(suite.corpora[spec.corpus])
        engine = engines[spec.corpus]
        questions = set_questions(spec, engine.index, report.warnings)
        set_started = time.perf_counter()
        result = run_set(engine, spec, questions, configs, suite.k,
                         out_dir / "records" if out_dir else None, retrieval_only)
        report.sets.append(result)
        log(f"{spec.name} ({spec.role}, {len(questions)} questions): {time.perf_counter() - set_started:.0f} s")
    report.seconds = time.perf_counter() - started
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write(out_dir / LATEST_JSON, json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
        _atomic_write(out_dir / LATEST_TABLE, suite_markdown(report) + "\n")
    return report


def _atomic_write(path: Path, text: str) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
