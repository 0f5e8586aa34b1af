"""`make llm-server` without a model: the command line it runs, and the clear errors when something is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.errors import ConfigError
from rag.llm import server
from rag.llm.local import DEFAULT_BATCH, DEFAULT_THREADS


def test_the_command_binds_loopback_with_the_measured_settings(tmp_path: Path) -> None:
    model = tmp_path / "tiny-model.gguf"
    command = server.server_command(model, 9123)
    options = dict(zip(command[3::2], command[4::2], strict=True))
    assert command[1:3] == ["-m", "llama_cpp.server"]
    assert options["--host"] == "127.0.0.1" and options["--port"] == "9123"
    assert options["--model"] == str(model) and options["--model_alias"] == "tiny-model"
    assert options["--n_threads"] == str(DEFAULT_THREADS) and options["--n_batch"] == str(DEFAULT_BATCH)
    assert server.base_url(9123) == "http://127.0.0.1:9123/v1"
    with pytest.raises(ConfigError, match=r"port=70000 is not allowed; allowed: 1 to 65535"):
        server.server_command(model, 70000)


def test_a_missing_model_is_named_with_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "absent.gguf"
    with pytest.raises(ConfigError, match=r"absent.gguf' does not exist; run `make local-llm`"):
        server.check_ready_to_serve(missing)
    assert server.main(["--model", str(missing)]) == 2
    assert "make local-llm" in capsys.readouterr().err


def test_missing_server_extras_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(server, "llama_cpp_module", lambda: None)
    monkeypatch.setattr(server, "missing_server_modules", lambda: ["fastapi", "starlette_context"])
    with pytest.raises(ConfigError, match=r"needs fastapi, starlette_context; install the server extras"):
        server.check_ready_to_serve(model)


def test_waiting_for_a_server_that_never_answers_times_out() -> None:
    with pytest.raises(ConfigError, match=r"did not answer at http://127.0.0.1:9/v1 within 0.3 s"):
        server.wait_until_ready("http://127.0.0.1:9/v1", timeout=0.3)
