"""Build a chat model from a spec string and pick a default from the environment.

Spec forms:
- `openai:<model>` — OpenAI, or any OpenAI-compatible server when `OPENAI_BASE_URL` is set (Ollama,
  vLLM, llama.cpp server, `make llm-server`); needs `OPENAI_API_KEY` unless `OPENAI_BASE_URL` is set (any
  key, or none, is accepted then). A server on a loopback address gets LOCAL_SERVER_TIMEOUT seconds per
  attempt unless a timeout is given.
- `groq:<model>` — Groq; needs `GROQ_API_KEY` (`GROQ_BASE_URL` is honoured).
- `local` or `local:<path.gguf>` — llama.cpp in-process; the file is `<path>`, else `RAG_LOCAL_MODEL`,
  else `models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf` under the project root (`make local-llm`).
- `extractive` — the no-LLM generator; it is not a chat model, so `make_chat_model` refuses it, but
  `detect_default_llm` / `available_llms` return it.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path

from rag.errors import ConfigError, allowed
from rag.llm.base import ChatModel, is_loopback_url
from rag.llm.local import INSTALL_HINT, LlamaCppChatModel
from rag.llm.openai_compat import OpenAIChatModel
from rag.llm.spec import EXTRACTIVE
from rag.settings import PROJECT_ROOT

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_GROQ_MODEL = "llama-3.1-8b-instant"
DEFAULT_LOCAL_MODEL = PROJECT_ROOT / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MAX_RETRIES = 2
DEFAULT_TIMEOUT = 60.0  # seconds per HTTP attempt
LOCAL_SERVER_TIMEOUT = 300.0  # the default for an OpenAI-compatible server on a loopback address
SPEC_FORMS = "'openai:<model>', 'groq:<model>', 'local', 'local:<path.gguf>', 'extractive' (no LLM)"


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def _get(env: Mapping[str, str], name: str) -> str:
    return (env.get(name) or "").strip()


def openai_model_name(env: Mapping[str, str] | None = None) -> str:
    """`RAG_OPENAI_MODEL` or gpt-4o-mini."""
    return _get(_env(env), "RAG_OPENAI_MODEL") or DEFAULT_OPENAI_MODEL


def groq_model_name(env: Mapping[str, str] | None = None) -> str:
    """`RAG_GROQ_MODEL` or llama-3.1-8b-instant."""
    return _get(_env(env), "RAG_GROQ_MODEL") or DEFAULT_GROQ_MODEL


def local_model_path(env: Mapping[str, str] | None = None, path: str | None = None) -> Path:
    """The GGUF file for `local`: `path`, else `RAG_LOCAL_MODEL`, else the default under the project root.

    A relative path that does not exist from the working directory is taken from the project root.
    """
    raw = path or _get(_env(env), "RAG_LOCAL_MODEL")
    if not raw:
        return DEFAULT_LOCAL_MODEL
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute() and not candidate.exists() and (PROJECT_ROOT / candidate).exists():
        return PROJECT_ROOT / candidate
    return candidate


def local_runtime_installed() -> bool:
    """True when llama-cpp-python can be imported (checked without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def local_llm_available(env: Mapping[str, str] | None = None) -> bool:
    """True when the local GGUF file exists and the llama.cpp runtime is installed."""
    return local_model_path(env).is_file() and local_runtime_installed()


def make_chat_model(spec: str, *, timeout: float | None = None, env: Mapping[str, str] | None = None) -> ChatModel:
    """Build the chat model named by `spec` (see the module docstring for the forms).

    `timeout` is seconds per HTTP attempt (hosted models make at most 3 attempts; default 60, and 300 for a
    server on a loopback address). `env` defaults to `os.environ`. Raises ConfigError for an unknown spec, a
    missing API key or a missing local model.
    """
    environ = _env(env)
    text = (spec or "").strip()
    provider, _, rest = text.partition(":")
    provider = provider.lower()
    rest = rest.strip()
    if timeout is not None and timeout <= 0:
        raise ConfigError(f"timeout={timeout!r} is not allowed; allowed: a number of seconds above 0")
    if provider == "openai":
        return _make_openai(rest or openai_model_name(environ), timeout, environ)
    if provider == "groq":
        return _make_groq(rest or groq_model_name(environ), timeout or DEFAULT_TIMEOUT, environ)
    if provider == "local":
        path = local_model_path(environ, rest or None)
        if not path.is_file():
            raise ConfigError(f"local model file {str(path)!r} does not exist; {INSTALL_HINT}, "
                              "or set RAG_LOCAL_MODEL to a GGUF file")
        return LlamaCppChatModel(path)
    if provider == EXTRACTIVE and not rest:
        raise ConfigError("'extractive' is the no-LLM generator, not a chat model; chat models: " + SPEC_FORMS)
    raise allowed("llm", spec, SPEC_FORMS)


def _make_openai(model: str, timeout: float | None, env: Mapping[str, str]) -> OpenAIChatModel:
    import openai

    api_key = _get(env, "OPENAI_API_KEY")
    base_url = _get(env, "OPENAI_BASE_URL")
    if not api_key and not base_url:
        raise ConfigError(f"'openai:{model}' needs OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible "
                          "server such as Ollama, vLLM or llama.cpp server); set it in the environment or .env")
    # Local OpenAI-compatible servers usually ignore the key, but the SDK requires one.
    if timeout is None:  # a CPU server on this machine answers one request at a time, slowly: wait longer
        timeout = LOCAL_SERVER_TIMEOUT if base_url and is_loopback_url(base_url) else DEFAULT_TIMEOUT
    client = openai.OpenAI(api_key=api_key or "not-needed", base_url=base_url or None, timeout=timeout,
                           max_retries=MAX_RETRIES)
    return OpenAIChatModel(client, model, "openai", timeout=timeout, max_retries=MAX_RETRIES)


def _make_groq(model: str, timeout: float, env: Mapping[str, str]) -> OpenAIChatModel:
    import groq

    api_key = _get(env, "GROQ_API_KEY")
    if not api_key:
        raise ConfigError(f"'groq:{model}' needs GROQ_API_KEY; set it in the environment or .env")
    client = groq.Groq(api_key=api_key, base_url=_get(env, "GROQ_BASE_URL") or None, timeout=timeout,
                       max_retries=MAX_RETRIES)
    return OpenAIChatModel(client, model, "groq", timeout=timeout, max_retries=MAX_RETRIES)


def detect_default_llm(env: Mapping[str, str] | None = None) -> str:
    """The LLM spec to use when none is given, first match wins.

    `RAG_LLM` if set; `openai:<RAG_OPENAI_MODEL or gpt-4o-mini>` if `OPENAI_API_KEY` or `OPENAI_BASE_URL`;
    `groq:<RAG_GROQ_MODEL or llama-3.1-8b-instant>` if `GROQ_API_KEY`; `local` if the local GGUF file
    exists and llama-cpp-python is installed; else `extractive`.
    """
    environ = _env(env)
    if _get(environ, "RAG_LLM"):
        return _get(environ, "RAG_LLM")
    if _get(environ, "OPENAI_API_KEY") or _get(environ, "OPENAI_BASE_URL"):
        return f"openai:{openai_model_name(environ)}"
    if _get(environ, "GROQ_API_KEY"):
        return f"groq:{groq_model_name(environ)}"
    if local_llm_available(environ):
        return "local"
    return EXTRACTIVE


def available_llms(env: Mapping[str, str] | None = None) -> list[str]:
    """Every LLM spec usable now: `RAG_LLM` (when set) first, then OpenAI, Groq, local, and always `extractive`."""
    environ = _env(env)
    options: list[str] = []
    if _get(environ, "RAG_LLM"):
        options.append(_get(environ, "RAG_LLM"))
    if _get(environ, "OPENAI_API_KEY") or _get(environ, "OPENAI_BASE_URL"):
        options.append(f"openai:{openai_model_name(environ)}")
    if _get(environ, "GROQ_API_KEY"):
        options.append(f"groq:{groq_model_name(environ)}")
    if local_llm_available(environ):
        options.append("local")
    options.append(EXTRACTIVE)
    return list(dict.fromkeys(options))
