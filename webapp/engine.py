"""Which engine the app uses, and how the user's choices (configs, k, generator) turn into configs.

The app loads one `Engine` per process (models and the index are shared by every session). Tests and
demos replace it without loading models:

- `set_engine_override(engine_or_factory)` — a module-level registry; Streamlit's `AppTest` runs the
  script in the same process, so a test calls it before `AppTest.run()`;
- `RAG_APP_TEST_ENGINE=package.module:function` — a zero-argument function returning an Engine (for a
  `streamlit run` subprocess).

`engine_key()` changes whenever the choice changes, so the app's cache never serves a stale engine.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rag.config import DEFAULT_CONFIGS, PRESETS, Config, load_config_file
from rag.errors import ConfigError
from rag.runner import Engine

TEST_ENGINE_ENV = "RAG_APP_TEST_ENGINE"
CONFIG_FILE_ENV = "RAG_CONFIG_FILE"
MAX_K = 20

_lock = threading.Lock()
_override: Engine | Callable[[], Engine] | None = None
_override_version = 0
_extra_configs: dict[str, Config] = {}


def set_engine_override(engine: Engine | Callable[[], Engine] | None) -> None:
    """Make the app use `engine` (or call the factory once); None returns to the default engine."""
    global _override, _override_version
    with _lock:
        _override = engine
        _override_version += 1


def clear_engine_override() -> None:
    """Forget the override (the default engine from settings is used again)."""
    set_engine_override(None)


def engine_key() -> str:
    """A key naming the engine the app should use now (the cache key of the loaded engine)."""
    with _lock:
        if _override is not None:
            return f"override:{_override_version}"
    spec = os.environ.get(TEST_ENGINE_ENV, "").strip()
    if spec:
        return f"env:{spec}"
    env = os.environ
    return "settings:" + "|".join(
        env.get(name, "")
        for name in ("RAG_INDEX_DIR", "RAG_EMBEDDING_MODEL", "RAG_LLM", "RAG_CHROMA_URL", "RAG_CACHE_DIR")
    )


def _load_factory(spec: str) -> Callable[[], Engine]:
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise ConfigError(f"{TEST_ENGINE_ENV}={spec!r} is not allowed; allowed: 'package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ConfigError(f"{TEST_ENGINE_ENV}={spec!r}: cannot import {module_name!r} ({error})") from None
    factory = getattr(module, function_name, None)
    if not callable(factory):
        raise ConfigError(f"{TEST_ENGINE_ENV}={spec!r}: {module_name} has no function {function_name!r}")
    return factory


def build_engine() -> Engine:
    """The engine for `engine_key()`: the override, the RAG_APP_TEST_ENGINE factory, or the settings' engine."""
    with _lock:
        override = _override
    if override is not None:
        return override if isinstance(override, Engine) else override()
    spec = os.environ.get(TEST_ENGINE_ENV, "").strip()
    if spec:
        return _load_factory(spec)()
    from rag.runner import engine_from_settings

    return engine_from_settings()


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
    base, sep, feature = name.partition("-minus-")
    if sep and base in known:
        try:
            return known[base].without(feature)
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


def generator_options(default_llm: str, env: Mapping[str, str] | None = None) -> list[str]:
    """Every generator usable now (the engine's default first), always ending with `extractive`."""
    from rag.llm.factory import available_llms

    options = [default_llm] if default_llm else []
    options.extend(available_llms(dict(os.environ) if env is None else env))
    options.append("extractive")
    return list(dict.fromkeys(options))


def generator_label(spec: str) -> str:
    """How a generator spec is shown: `extractive` gets a reminder that it is not an LLM."""
    return "extractive (no LLM)" if spec == "extractive" else spec


WARM_UP_QUESTIONS: tuple[str, ...] = (
    "How do I list employees?",
    "How do I create a course in the LMS API?",
)


def warm_up(engine: Engine, names: Sequence[str] = DEFAULT_CONFIGS) -> float:
    """Ask throwaway questions with the default configurations (extractive, no LLM) so the embedder, the BM25
    and vector indexes, the intent profile, the write check and the confidence gate are loaded before the first
    real question. Returns the seconds it took; a failure is ignored (the first question then loads them)."""
    import time

    from webapp.asking import ask_all

    started = time.perf_counter()
    configs = apply_choices([PRESETS[name] for name in names if name in PRESETS], None, "extractive")
    try:
        for question in WARM_UP_QUESTIONS:
            ask_all(engine, question, configs)
    except Exception:  # warming is an optimisation; never let it break the app
        pass
    return time.perf_counter() - started
