"""Shared fixtures: no network in ordinary tests, paths to real data, deterministic fakes."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
STACKONE_SPECS = SHARED / "specs" / "stackone"

_LOOPBACK = ("127.", "::1", "localhost")


def _is_loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    return isinstance(host, str) and (host.startswith(_LOOPBACK) or host == "")


@pytest.fixture(autouse=True)
def block_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any test that opens a connection to a non-loopback address."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded_connect(self: socket.socket, address: object) -> object:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise RuntimeError(f"network access blocked in tests: {address!r}")
        return real_connect(self, address)  # type: ignore[arg-type]

    def guarded_connect_ex(self: socket.socket, address: object) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise RuntimeError(f"network access blocked in tests: {address!r}")
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    yield


@pytest.fixture
def stackone_specs() -> Path:
    """The 7 real StackOne specs in ../shared (CI has them)."""
    if not STACKONE_SPECS.is_dir():
        pytest.fail(f"real specs not found at {STACKONE_SPECS}; set RAG_SHARED_DIR")
    return STACKONE_SPECS
