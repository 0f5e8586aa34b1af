"""The offline chat model: a GGUF file run in-process by llama.cpp (llama-cpp-python).

`make local-llm` assembles the default model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) into `models/` and
builds the runtime. Each GGUF file is loaded once per process and shared; a llama.cpp context is not
thread-safe, so calls on one loaded model are serialised with a lock.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rag.errors import ConfigError
from rag.llm.base import ChatMessage, ChatResponse, LLMError, estimate_prompt_tokens, to_dicts
from rag.tokens import estimate_tokens

INSTALL_HINT = "run `make local-llm` (it assembles the model into models/ and builds llama-cpp-python)"
# Measured on a 2-core x86-64 machine (AVX-512, native build; `python -m bench local-llm`): see README.md.
DEFAULT_THREADS = 1
DEFAULT_BATCH = 512
DEFAULT_CONTEXT = 4096

_CACHE: dict[tuple[str, int, int, int], tuple[Any, threading.Lock, float]] = {}
_CACHE_LOCK = threading.Lock()


def llama_cpp_module() -> Any:
    """Import `llama_cpp`, or raise ConfigError saying how to install it."""
    try:
        return importlib.import_module("llama_cpp")
    except (ImportError, OSError) as exc:
        raise ConfigError(f"the local LLM needs llama-cpp-python, which is not installed or does not load "
                          f"({exc}): {INSTALL_HINT}") from exc


def _load(path: Path, n_ctx: int, n_threads: int, n_batch: int = DEFAULT_BATCH) -> tuple[Any, threading.Lock, float]:
    """The cached (Llama, call lock, load seconds) for this file and settings, loading it on first use."""
    key = (str(path), n_ctx, n_threads, n_batch)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        llama_cpp = llama_cpp_module()
        started = time.perf_counter()
        try:
            llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                                  n_batch=n_batch, n_ubatch=n_batch, verbose=False)
        except Exception as exc:
            raise ConfigError(f"cannot load the local model {path}: {exc}; {INSTALL_HINT}") from exc
        cached = (llm, threading.Lock(), time.perf_counter() - started)
        if not _CACHE:
            atexit.register(_close_all)
        _CACHE[key] = cached
        return cached


def _close_all() -> None:
    """Free the models before interpreter teardown (llama.cpp's own finaliser fails once modules are gone)."""
    with _CACHE_LOCK:
        for llm, _, _ in _CACHE.values():
            close = getattr(llm, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):  # shutting down: nothing left to report to
                    close()
        _CACHE.clear()


def clear_cache() -> None:
    """Forget every loaded model (they are freed once no `LlamaCppChatModel` refers to them)."""
    with _CACHE_LOCK:
        _CACHE.clear()


class LlamaCppChatModel:
    """A `ChatModel` running a local GGUF file with llama.cpp.

    The file is checked and `llama_cpp` imported at construction (ConfigError with the `make local-llm`
    hint when either is missing); the weights load on the first call, or on `load()`. `name` is
    `local:<file stem>`. `load_seconds` is how long the (shared, once per process) load took; 0.0 until
    this instance has used the model.
    """

    def __init__(self, model_path: str | Path, n_ctx: int = DEFAULT_CONTEXT, n_threads: int = DEFAULT_THREADS,
                 n_batch: int = DEFAULT_BATCH) -> None:
        self.model_path = Path(model_path).expanduser().resolve()
        if not self.model_path.is_file():
            raise ConfigError(f"local model file {str(self.model_path)!r} does not exist; {INSTALL_HINT}")
        if n_ctx < 256:
            raise ConfigError(f"n_ctx={n_ctx!r} is not allowed; allowed: 256 or more")
        if n_threads < 1:
            raise ConfigError(f"n_threads={n_threads!r} is not allowed; allowed: 1 or more")
        if not 1 <= n_batch <= n_ctx:
            raise ConfigError(f"n_batch={n_batch!r} is not allowed; allowed: 1 to n_ctx ({n_ctx})")
        llama_cpp_module()
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.n_batch = n_batch
        self.model = self.model_path.stem
        self.name = f"local:{self.model}"
        self.last_usage: tuple[int, int] = (0, 0)
        self.load_seconds = 0.0

    def __repr__(self) -> str:
        return f"LlamaCppChatModel(name={self.name!r}, model_path={str(self.model_path)!r}, n_ctx={self.n_ctx})"

    def load(self) -> float:
        """Load the weights now (once per process); return the load time in seconds."""
        _, _, self.load_seconds = _load(self.model_path, self.n_ctx, self.n_threads, self.n_batch)
        return self.load_seconds

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_mode: bool = False,
    ) -> ChatResponse:
        """Answer the conversation; `json_mode` constrains the output to a JSON object (llama.cpp grammar)."""
        llm, lock, self.load_seconds = _load(self.model_path, self.n_ctx, self.n_threads, self.n_batch)
        kwargs: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        with lock:
            try:
                result = llm.create_chat_completion(messages=to_dicts(messages), **kwargs)
            except Exception as exc:
                raise LLMError(self.name, f"{type(exc).__name__}: {exc}") from exc
        text = str(result["choices"][0]["message"].get("content") or "")
        usage = result.get("usage") or {}
        tokens_in = int(usage.get("prompt_tokens") or estimate_prompt_tokens(messages))
        tokens_out = int(usage.get("completion_tokens") or estimate_tokens(text))
        self.last_usage = (tokens_in, tokens_out)
        return ChatResponse(text=text, tokens_in=tokens_in, tokens_out=tokens_out, model=self.model)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> Iterator[str]:
        """Yield text pieces as llama.cpp decodes them; `last_usage` is set when the iterator ends.

        The model lock is held until the iterator finishes or is closed: consume or close it promptly.
        `tokens_out` counts the streamed pieces (one per decoded token); `tokens_in` is the context length
        minus those (an estimate when unavailable).
        """
        llm, lock, self.load_seconds = _load(self.model_path, self.n_ctx, self.n_threads, self.n_batch)
        self.last_usage = (0, 0)
        pieces = 0
        with lock:
            try:
                chunks = llm.create_chat_completion(messages=to_dicts(messages), max_tokens=max_tokens,
                                                    temperature=temperature, stream=True)
                for chunk in chunks:
                    piece = chunk["choices"][0]["delta"].get("content") if chunk.get("choices") else None
                    if piece:
                        pieces += 1
                        yield piece
            except GeneratorExit:
                raise
            except Exception as exc:
                raise LLMError(self.name, f"{type(exc).__name__}: {exc}") from exc
            finally:
                # The context holds the prompt plus the evaluated answer tokens: the best prompt count at hand.
                context = getattr(llm, "n_tokens", 0)
                prompt = context - pieces if isinstance(context, int) and context > pieces else 0
                self.last_usage = (prompt or estimate_prompt_tokens(messages), pieces)
