"""The local GGUF model behind an OpenAI-compatible HTTP server, on 127.0.0.1 only (`make llm-server`).

`python -m rag.llm.server [--model PATH] [--port 8080]` runs llama-cpp-python's own server
(`python -m llama_cpp.server`, the `llama-cpp-python[server]` extras pinned in requirements-llm.txt)
with the thread and batch settings measured fastest on a 2-core CPU (`rag.llm.local`). Point the
workbench at it with

    OPENAI_BASE_URL=http://127.0.0.1:8080/v1  RAG_LLM=openai:<model file stem>

and every LLM stage — the `openai:` generator, the LLM reranker (C4, C5), LLM intent detection, the
follow-up rewriter, chain-of-thought verification (E4) and the evaluation judge — talks to a real model
over HTTP. No API key is needed (any value is accepted). The server answers one request at a time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from rag.errors import ConfigError
from rag.llm.local import DEFAULT_BATCH, DEFAULT_CONTEXT, DEFAULT_THREADS, INSTALL_HINT, llama_cpp_module

HOST = "127.0.0.1"
DEFAULT_PORT = 8080
SERVER_MODULES = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")
SERVER_HINT = "install the server extras: `.venv/bin/pip install -r requirements-llm.txt` (or `make local-llm`)"


def base_url(port: int = DEFAULT_PORT) -> str:
    """The OpenAI-compatible base URL of a server on `port` (what OPENAI_BASE_URL should be)."""
    return f"http://{HOST}:{port}/v1"


def missing_server_modules() -> list[str]:
    """The server's extra modules that are not installed (checked without importing them)."""
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def check_ready_to_serve(model: Path) -> None:
    """Raise ConfigError naming what is missing: the model file, llama-cpp-python, or the server extras."""
    if not model.is_file():
        raise ConfigError(f"local model file {str(model)!r} does not exist; {INSTALL_HINT}, or pass --model")
    llama_cpp_module()
    missing = missing_server_modules()
    if missing:
        raise ConfigError(f"the LLM server needs {', '.join(missing)}; {SERVER_HINT}")


def server_command(model: Path, port: int = DEFAULT_PORT, *, n_threads: int = DEFAULT_THREADS,
                   n_batch: int = DEFAULT_BATCH, n_ctx: int = DEFAULT_CONTEXT) -> list[str]:
    """The command line that serves `model` on 127.0.0.1:`port` under its file stem as the model name."""
    if not 1 <= port <= 65535:
        raise ConfigError(f"port={port!r} is not allowed; allowed: 1 to 65535")
    return [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model),
        "--model_alias", model.stem,
        "--host", HOST,
        "--port", str(port),
        "--n_ctx", str(n_ctx),
        "--n_threads", str(n_threads),
        "--n_threads_batch", str(n_threads),
        "--n_batch", str(n_batch),
        "--n_ubatch", str(n_batch),
    ]


def server_models(url: str, timeout: float = 2.0) -> list[str]:
    """The model names a running server lists at `<url>/models`; OSError when it does not answer."""
    with urllib.request.urlopen(f"{url.rstrip('/')}/models", timeout=timeout) as response:  # noqa: S310 - loopback
        data = json.loads(response.read().decode("utf-8"))
    return [str(item.get("id")) for item in data.get("data", []) if isinstance(item, dict)]


def wait_until_ready(url: str, process: subprocess.Popen[bytes] | None = None, timeout: float = 120.0) -> list[str]:
    """Poll the server until it lists its models; ConfigError if `process` exits or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise ConfigError(f"the LLM server exited with status {process.returncode} before it answered at {url}")
        try:
            return server_models(url)
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                raise ConfigError(f"the LLM server did not answer at {url} within {timeout:g} s") from None
            time.sleep(0.25)


def start_server(model: Path, port: int, *, log: Path | None = None, timeout: float = 120.0
                 ) -> subprocess.Popen[bytes]:
    """Start the server in the background and wait until it answers; the caller stops it (`terminate`)."""
    check_ready_to_serve(model)
    output = log.open("wb") if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(server_command(model, port), stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_until_ready(base_url(port), process, timeout)
    except BaseException:
        stop_server(process)
        raise
    return process


def stop_server(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Stop a server started by `start_server` (terminate, then kill after `timeout` seconds)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main(argv: list[str] | None = None) -> int:
    """Serve the local model in the foreground until Ctrl+C (this process becomes the server); 2 when it cannot."""
    from rag.llm.factory import local_model_path

    parser = argparse.ArgumentParser(prog="python -m rag.llm.server", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="GGUF file (default: RAG_LOCAL_MODEL or the model `make local-llm` built)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port on {HOST} (default {DEFAULT_PORT})")
    args = parser.parse_args(argv)
    model = local_model_path(path=args.model)
    try:
        check_ready_to_serve(model)
        command = server_command(model, args.port)
    except ConfigError as error:
        print(f"llm-server: {error}", file=sys.stderr)
        return 2
    print(f"Serving {model.name} on {base_url(args.port)} (127.0.0.1 only). In another shell:\n"
          f"  export OPENAI_BASE_URL={base_url(args.port)} RAG_LLM=openai:{model.stem}\n", flush=True)
    os.execv(command[0], command)  # noqa: S606 - the server takes this process's place: Ctrl+C and SIGTERM reach it directly
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())
