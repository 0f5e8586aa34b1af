"""Which engine the app uses, and how the user's choices (configs, k, generator) turn into configs.

The app loads one `Engine` per process from the settings (models and the index are shared by every session);
`engine_key()` names the settings it was built from, so the app's cache never serves a stale engine. Tests give
the app an engine of their own by replacing `webapp.ui`'s `build_engine` and `engine_key` (see tests/app).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Mapping, MutableMapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rag.config import DEFAULT_CONFIGS, PRESETS, Config, ablation_parts, load_config_file
from rag.errors import ConfigError
from rag.index.deferred import complete_in_background
from rag.llm.spec import EXTRACTIVE, ModelSpec
from rag.pipeline.features import without_feature
from rag.query import clean_question
from rag.runner import Engine, engine_from_settings

CONFIG_FILE_ENV = "RAG_CONFIG_FILE"
ENGINE_SETTINGS = ("RAG_INDEX_DIR", "RAG_EMBEDDING_MODEL", "RAG_LLM", "RAG_CHROMA_URL", "RAG_CACHE_DIR",
                   "RAG_QUERY_CACHE_SIZE")
MAX_K = 20

_lock = threading.Lock()
_extra_configs: dict[str, Config] = {}


def engine_key(env: Mapping[str, str] | None = None) -> str:
    """A key naming the engine the app should use now: the settings it is built from (the loaded engine's cache
    key)."""
    environ = os.environ if env is None else env
    return "settings:" + "|".join(environ.get(name, "") for name in ENGINE_SETTINGS)


_preload_lock = threading.Lock()
_preloaded: dict[str, Future[Engine]] = {}
# Each engine's warm-up thread, by id, with a weak reference that tells the engine from a later one given its id.
_warming: dict[int, tuple[weakref.ref[Engine], threading.Thread]] = {}


def build_engine() -> Engine:
    """The engine the settings describe (the index, the embedding model, the default generator and the query
    cache): the one
    `preload` started at server start when the settings are the same (waiting for it if it is still loading),
    else a new one."""
    key = engine_key()
    with _preload_lock:
        loading = _preloaded.get(key)
    if loading is None:
        return engine_from_settings(query_cache=True)
    try:
        return loading.result()
    except Exception:
        with _preload_lock:
            _preloaded.pop(key, None)  # its failure is shown once; the next page load tries again
        raise


def preload() -> Future[Engine]:
    """Build the settings' engine in a background thread and warm it up there (at server start, before any page
    asks for it; `python -m webapp.serve`). Returns the engine's future, set as soon as the engine is built (the
    warm-up goes on after it); a failure is kept in the future, and the page that asks for the engine shows it."""
    key = engine_key()
    with _preload_lock:
        if key in _preloaded:
            return _preloaded[key]
        loading: Future[Engine] = Future()
        _preloaded[key] = loading

    def run() -> None:
        try:
            engine = engine_from_settings(query_cache=True)
        except BaseException as error:
            loading.set_exception(error)
            return
        loading.set_result(engine)
        warm_up_once(engine).join()

    threading.Thread(target=run, name="specrag-preload", daemon=True).start()
    return loading


def warm_up_once(engine: Engine) -> threading.Thread:
    """Warm `engine` up in a background thread, once per engine (later calls return the same thread): pages
    render at once, and a question asked meanwhile shares what the warm-up has loaded."""
    with _preload_lock:
        known = _warming.get(id(engine))
        if known is not None and known[0]() is engine:
            return known[1]
        thread = warm_up_in_background(engine)
        _warming[id(engine)] = (weakref.ref(engine), thread)
        return thread


def warm_up_in_background(engine: Engine) -> threading.Thread:
    """Warm `engine` up again in a background thread, e.g. after an upload or a new version changed the index: the
    new generation's snapshot, corpus profile and gate calibration are ready before the next question. Then the
    chunks set aside at ingest (the schema chunks, then C0's naive ones) are embedded, in a thread of their own
    (rag.index.deferred)."""

    def run() -> None:
        warm_up(engine)
        complete_in_background(engine.index)

    thread = threading.Thread(target=run, name="specrag-warm-up", daemon=True)
    thread.start()
    return thread


# ---------------------------------------------------------------------- configurations
def register_configs(configs: Mapping[str, Config]) -> None:
    """Add configurations the app should offer besides the presets (e.g. from a saved evaluation run)."""
    with _lock:
        for name, config in configs.items():
            if name not in PRESETS:
                _extra_configs[name] = config


def known_configs(env: Mapping[str, str] | None = None) -> dict[str, Config]:
    """Presets, the user's configs from RAG_CONFIG_FILE (TOML/YAML) and any registered at run time."""
    environ = os.environ if env is None else env
    configs = dict(PRESETS)
    path = (environ.get(CONFIG_FILE_ENV) or "").strip()
    if path:
        configs = load_config_file(Path(path), configs)
    with _lock:
        for name, config in _extra_configs.items():
            configs.setdefault(name, config)
    return configs


def default_config_names(known: Mapping[str, Config]) -> list[str]:
    """C0, C5 and full (those that exist)."""
    return [name for name in DEFAULT_CONFIGS if name in known] or list(known)[:1]


def resolve_config_name(name: str, known: Mapping[str, Config], definitions: Mapping[str, Any] | None = None) -> Config:
    """A config by name: a known one, `NAME-minus-FEATURE` (an ablation), or a saved definition."""
    if name in known:
        return known[name]
    parts = ablation_parts(name)
    if parts is not None and parts[0] in known:
        try:
            return without_feature(known[parts[0]], parts[1])
        except ConfigError:
            pass
    definition = (definitions or {}).get(name)
    if isinstance(definition, Mapping):
        from rag.config import config_from_mapping

        data = {key: value for key, value in definition.items() if key not in ("name", "base")}
        return config_from_mapping(name, {"base": "full", **data}, dict(known))
    raise ConfigError(f"unknown config {name!r}; allowed: {', '.join(known)}")


def apply_choices(configs: Sequence[Config], k: int | None = None, generator: str | None = None,
                  api_version: str = "") -> list[Config]:
    """The configs with the user's k, generator and API version applied (the candidate pool grows to at least k).

    The generator replaces `auto` only: a configuration that names its own generator keeps it.
    """
    chosen: list[Config] = []
    for config in configs:
        changes: dict[str, Any] = {}
        if k is not None and k != config.k:
            if not 1 <= int(k) <= MAX_K:
                raise ConfigError(f"k={k!r} is not allowed; allowed: a whole number from 1 to {MAX_K}")
            changes["k"] = int(k)
            changes["candidate_pool"] = max(config.candidate_pool, int(k))
        if generator and config.generator == "auto":
            changes["generator"] = generator
        if api_version:
            changes["api_version"] = api_version
        chosen.append(replace(config, **changes) if changes else config)
    return chosen


def question_and_configs(
    question: str, names: Sequence[str], known: Mapping[str, Config], choices: tuple[int, str, str]
) -> tuple[str, list[Config]]:
    """The question cleaned (`clean_question`) and the chosen configurations with `choices` (k, generator, API
    version) applied; a ConfigError says what is wrong (a refused question, no configuration chosen)."""
    k, generator, api_version = choices
    cleaned = clean_question(question)
    if not names:
        raise ConfigError("choose at least one configuration above")
    return cleaned, apply_choices([known[name] for name in names], k, generator, api_version)


@dataclass(frozen=True)
class RerunPlan:
    """A question another page sent to the home page: what to ask, with which configurations, the conversation
    it continues, and why any configuration it named cannot be used here."""

    question: str
    configs: list[str]
    history: list[dict[str, str]] | None
    problems: list[str]
    once: bool = False  # the configurations are for this question only (the diff's "Ask what changed")


def plan_rerun(request: Any, known: dict[str, Config]) -> RerunPlan | None:
    """Read a `webapp.asking.rerun_request` (None when there is none): its configurations are resolved by name (a
    preset, an ablation or a saved definition), and those not yet known are registered and added to `known`."""
    if not isinstance(request, dict) or not request.get("question"):
        return None
    chosen: list[str] = []
    problems: list[str] = []
    for name in request.get("configs") or []:
        try:
            config = resolve_config_name(name, known, request.get("definitions"))
        except ConfigError as error:
            problems.append(f"Configuration {name!r} is not available here: {error}")
            continue
        if name not in known:
            register_configs({name: config})
            known[name] = config
        chosen.append(name)
    return RerunPlan(str(request["question"]), chosen, list(request.get("history") or []) or None, problems,
                     bool(request.get("once")))


ONCE_KEY = "ask_configs_before_once"


def choose_rerun_configs(state: MutableMapping[str, Any], rerun: RerunPlan | None, default: list[str]) -> None:
    """Set the Ask page's configurations (`state["ask_configs"]`) for a question another page sent: a request
    marked `once` sets them for its own question only, and the choice it replaced comes back on the next run."""
    if rerun is None and ONCE_KEY in state:
        state["ask_configs"] = state.pop(ONCE_KEY)
    if rerun and rerun.configs:
        if rerun.once:
            state[ONCE_KEY] = state.get("ask_configs", default)
        state["ask_configs"] = rerun.configs


def generator_options(default_llm: str, env: Mapping[str, str] | None = None) -> list[str]:
    """Every generator usable now (the engine's default first), always ending with `extractive`."""
    from rag.llm.factory import available_llms

    options = [default_llm] if default_llm else []
    options.extend(available_llms(dict(os.environ) if env is None else env))
    options.append(EXTRACTIVE)
    return list(dict.fromkeys(options))


def generator_label(spec: str) -> str:
    """How a generator spec is shown: `extractive` gets a reminder that it is not an LLM."""
    return f"{spec} (no LLM)" if ModelSpec(spec).is_extractive else spec


WARM_UP_QUESTIONS: tuple[str, ...] = (
    "How do I list employees?",
    "How do I create a course in the LMS API?",
)


def warm_up(engine: Engine, names: Sequence[str] = DEFAULT_CONFIGS) -> float:
    """Ask throwaway questions with the default configurations (extractive, no LLM) so the embedder, the BM25
    and vector indexes, the intent profile, the write check, the confidence gate and the learned ranker's inputs
    of every chunk are made before the first real question. Returns the seconds it took; a failure is ignored
    (the first question then loads them)."""
    import time

    from webapp.asking import ask_all

    started = time.perf_counter()
    configs = apply_choices([PRESETS[name] for name in names if name in PRESETS], None, EXTRACTIVE)
    try:
        for question in WARM_UP_QUESTIONS:
            ask_all(engine, question, configs, use_cache=False)  # warming must load the models, not read stored results
        engine.prepare(configs)
    except Exception:  # warming is an optimisation; never let it break the app
        pass
    return time.perf_counter() - started
