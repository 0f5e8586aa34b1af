"""Named pipeline configurations: a frozen, validated `Config` and the presets.

Presets: C0–C5 (the cumulative study: naive chunks + vector; smart chunks; + hybrid;
+ intent filter; + rerank; + unknown detection), E2 (vector top-5 + LLM), E3 (top-20 →
cross-encoder → top-5), E4 (E3 + chain of thought) and `full` (the best combination, the default).
Users add their own in a TOML or YAML file (`[configs.NAME]` tables, each may `base` on another).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import yaml

from rag.chunk import STRATEGIES
from rag.errors import ConfigError, allowed

CHUNKINGS = ("smart", "naive")
RETRIEVERS = ("vector", "bm25", "hybrid")
RERANKERS = ("none", "learned", "cross-encoder", "llm")
INTENT_EVIDENCE = ("terms", "explicit")
DEFAULT_CROSS_ENCODER = "cross-encoder/ms-marco-MiniLM-L-6-v2"
# An ablation is named `BASE-minus-FEATURE`: the config BASE with one feature switched off.
ABLATION_MARK = "-minus-"
# Reciprocal rank fusion's k in 1/(k + rank). The literature's 60 suits long lists from many systems; here it left a
# retriever's rank 1 and rank 20 within a third of each other (1/61 vs 1/80), so the retriever that ranks a chunk first
# barely counted. 15 measured better on tuning, validation and all three blinded sets (README).
DEFAULT_RRF_K = 15


@dataclass(frozen=True)
class Config:
    """Every choice a pipeline makes; invalid values fail at construction."""

    name: str
    chunking: str = "smart"
    retriever: str = "vector"
    alpha: float = 0.5
    rrf_k: int = DEFAULT_RRF_K
    k: int = 5
    candidate_pool: int = 20
    # Operations whose summary or name (short texts) is closest to the question, added to the candidates when
    # the retriever missed them (rag.retrieve.short_texts); 0: none.
    operation_search: int = 0
    # The vector search compares chunks with the question's vector through the embedder's query adapter, a linear map
    # learned from questions in people's words (rag.retrieve.query_adapter); ignored for an embedder it was not
    # learned for.
    query_adapter: bool = False
    intent_filter: bool = False
    intent_evidence: str = "terms"
    dynamic_k: bool = False
    query_expansion: bool = False
    # An initialism of the question the corpus does not use ("PR") is also searched for as the phrase of the corpus's
    # own operations it spells ("pull request": rag.corpus.initialisms).
    initialisms: bool = False
    reranker: str = "none"
    reranker_model: str = DEFAULT_CROSS_ENCODER
    abstention: bool = False
    write_check: bool = False
    # Put the API's lookup (search) operation first for a request that names things by value.
    lookup: bool = False
    # The operations a question names exactly (`GET /users/{id}`, an operationId) lead its candidates
    # (rag.retrieve.named_operations).
    named_operations: bool = False
    # Component-schema chunks after the operations and guides in the ranked pool (rag.retrieve.ordering).
    schemas_last: bool = False
    reasoning: bool = False
    rewrite: bool = True
    generator: str = "auto"
    # The most tokens of context an LLM is sent (the extractive generator sends none: it reads every chunk).
    context_tokens: int = 4000
    # Glossaries for query expansion (shipped names such as "hr", or TOML paths); each applies only to an
    # index whose vocabulary fits it (rag/retrieve/synonyms.py).
    glossaries: tuple[str, ...] = ()
    # The indexed version of each API to search (`2025-02`, or `lms@2025-02` for one API); "" the newest.
    api_version: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name or not self.name.strip():
            raise ConfigError("a config needs a non-empty name")
        if self.chunking not in CHUNKINGS:
            raise allowed(f"{self.name}.chunking", self.chunking, CHUNKINGS)
        if self.retriever not in RETRIEVERS:
            raise allowed(f"{self.name}.retriever", self.retriever, RETRIEVERS)
        if self.intent_evidence not in INTENT_EVIDENCE:
            raise allowed(f"{self.name}.intent_evidence", self.intent_evidence, INTENT_EVIDENCE)
        if self.reranker not in RERANKERS:
            raise allowed(f"{self.name}.reranker", self.reranker, RERANKERS)
        if not 0.0 <= self.alpha <= 1.0:
            raise ConfigError(f"{self.name}.alpha={self.alpha!r} is not allowed; allowed: a number from 0 to 1")
        limits = (("k", 1, 50), ("candidate_pool", 1, 200), ("rrf_k", 1, 1000), ("operation_search", 0, 50))
        for key, low, high in limits:
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise ConfigError(
                    f"{self.name}.{key}={value!r} is not allowed; allowed: a whole number from {low} to {high}"
                )
        if self.candidate_pool < self.k:
            raise ConfigError(f"{self.name}.candidate_pool={self.candidate_pool} must be at least k={self.k}")
        if not 200 <= self.context_tokens <= 32000:
            raise ConfigError(
                f"{self.name}.context_tokens={self.context_tokens!r} is not allowed; allowed: 200 to 32000"
            )
        if isinstance(self.glossaries, str) or not isinstance(self.glossaries, (tuple, list)):
            raise ConfigError(
                f"{self.name}.glossaries={self.glossaries!r} is not allowed; allowed: a list of glossary names or paths"
            )
        object.__setattr__(self, "glossaries", tuple(self.glossaries))
        from rag.retrieve.synonyms import load_glossary

        for glossary in self.glossaries:
            load_glossary(str(glossary))  # raises ConfigError naming the allowed glossaries
        if not self.generator.strip():
            raise ConfigError(f"{self.name}.generator is empty; allowed: auto, extractive, openai:M, groq:M, local")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view."""
        data = asdict(self)
        data["glossaries"] = list(self.glossaries)
        return data


_C0 = Config("C0", chunking="naive", retriever="vector", description="naive JSON chunks + vector search")
_C1 = replace(_C0, name="C1", chunking="smart", description="smart chunks (refs inlined as prose) + vector")
_C2 = replace(_C1, name="C2", retriever="hybrid", description="C1 + hybrid vector/BM25 fusion (RRF)")
_C3 = replace(_C2, name="C3", intent_filter=True, description="C2 + API-intent metadata filter")
_C4 = replace(_C3, name="C4", reranker="llm", candidate_pool=15, description="C3 + LLM reranking of 15 candidates")
_C5 = replace(_C4, name="C5", abstention=True, description="C4 + unknown detection (confidence gate + abstain)")
_E2 = Config("E2", chunking="smart", retriever="vector", k=5, description="standard RAG: vector top-5 + LLM")
_E3 = replace(_E2, name="E3", reranker="cross-encoder", candidate_pool=20, description="top-20 → cross-encoder → top-5")
_E4 = replace(_E3, name="E4", reasoning=True, description="E3 + chain-of-thought verification")
_FULL = Config(
    "full",
    chunking="smart",
    retriever="hybrid",
    alpha=0.5,
    k=5,
    candidate_pool=20,
    operation_search=10,
    query_adapter=True,
    intent_filter=True,
    intent_evidence="explicit",
    dynamic_k=True,
    query_expansion=False,
    glossaries=("hr",),
    initialisms=True,
    reranker="learned",
    abstention=True,
    write_check=True,
    lookup=True,
    named_operations=True,
    schemas_last=True,
    description="hybrid + query adapter (the question's vector moved towards the chunks people's questions are "
    "answered by) + initialisms in the corpus's words (PR → pull request) + operation search (operations "
    "whose summary or name is close to the question) + intent filter (APIs named in the question) + learned "
    "ranker (a model trained on labelled questions from many specs) + schemas after operations + lookup lift + "
    "operations the question names exactly first + write-operation check + per-API k + abstention on evidence "
    "about the index, confidence a calibrated probability (glossary expansion is off: the suite's ablation)",
)

PRESETS: dict[str, Config] = {c.name: c for c in (_C0, _C1, _C2, _C3, _C4, _C5, _E2, _E3, _E4, _FULL)}
# The one definition of the default configurations: the app, `rag ask`, `rag eval`, MCP and the REST API read it.
# All three run offline (C4/C5 need an LLM for their reranker).
DEFAULT_CONFIGS: tuple[str, ...] = ("C0", "C3", "full")


def searched_strategies(configs: Sequence[Config]) -> tuple[str, ...]:
    """The chunk strategies the configurations search (each its chunking's, and the docs), in STRATEGIES order."""
    wanted = {strategy for config in configs for strategy in (config.chunking, "docs")}
    return tuple(strategy for strategy in STRATEGIES if strategy in wanted)


def set_aside_parts() -> tuple[str, ...]:
    """The parts of a document ingest embeds after it goes live (rag.index.deferred), in the order they are then
    embedded: the schema chunks of the default configuration's chunking (`full` ranks schemas after operations, so
    it answers most questions from the operations and, until the schemas are in, says so), then the strategies
    `full` does not search — the naive chunks only the C0 baseline searches."""
    full = PRESETS["full"]
    first = searched_strategies([full])
    return (f"{full.chunking}:schema", *(strategy for strategy in STRATEGIES if strategy not in first))


def ablation_name(base: str, feature: str) -> str:
    """The name of `base` with `feature` switched off: `full-minus-lookup`."""
    return f"{base}{ABLATION_MARK}{feature}"


def ablation_parts(name: str) -> tuple[str, str] | None:
    """(base, feature) of an ablation's name (`full-minus-lookup` → ("full", "lookup")); None for any other name."""
    base, mark, feature = name.partition(ABLATION_MARK)
    return (base, feature) if mark and base and feature else None


def config_from_mapping(name: str, data: dict[str, Any], known: dict[str, Config]) -> Config:
    """Build a config from a mapping; `base` names a config to start from (default: `full`)."""
    data = dict(data)
    base_name = str(data.pop("base", "full"))
    if base_name not in known:
        raise allowed(f"{name}.base", base_name, tuple(known))
    valid = {f.name for f in fields(Config)} - {"name"}
    unknown = sorted(set(data) - valid)
    if unknown:
        raise ConfigError(
            f"config {name!r}: unknown setting(s) {', '.join(unknown)}; allowed: {', '.join(sorted(valid))}"
        )
    return replace(known[base_name], name=name, **data)


def load_config_file(path: Path | str, known: dict[str, Config] | None = None) -> dict[str, Config]:
    """Read user configs from TOML (`[configs.NAME]`) or YAML (`configs: {NAME: {...}}`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text) if path.suffix.lower() == ".toml" else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, yaml.YAMLError) as error:
        raise ConfigError(f"{path}: cannot read configs ({error})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("configs"), dict):
        raise ConfigError(f"{path}: expected a 'configs' table mapping names to settings")
    result = dict(known or PRESETS)
    for name, settings in raw["configs"].items():
        if not isinstance(settings, dict):
            raise ConfigError(f"{path}: configs.{name} must be a table of settings")
        result[str(name)] = config_from_mapping(str(name), settings, result)
    return result


def known_configs(config_file: Path | str | None = None) -> dict[str, Config]:
    """The presets plus the user's configs from `config_file` (TOML or YAML), when one is given."""
    return load_config_file(config_file) if config_file else dict(PRESETS)


def resolve_configs(names: str | list[str], known: dict[str, Config] | None = None) -> list[Config]:
    """Turn `"C0,C5,full"` (or a list) into configs, failing on unknown names with the allowed ones."""
    known = known or PRESETS
    items = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    if not items:
        raise ConfigError(f"no configs given; allowed: {', '.join(known)}")
    missing = [n for n in items if n not in known]
    if missing:
        raise ConfigError(f"unknown config(s) {', '.join(missing)}; allowed: {', '.join(known)}")
    return [known[n] for n in dict.fromkeys(items)]
