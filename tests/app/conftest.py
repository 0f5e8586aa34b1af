"""Fixtures for the app tests: the fixture index behind an extractive engine, injected into the app, and a copy
of the tiny saved evaluation run."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
EVAL_RUN_FIXTURE = FIXTURES / "eval_run"

# A spec none of the other fixtures has: uploading it must make its API askable.
INVENTORY_SPEC = b"""openapi: 3.0.3
info:
  title: Inventory API
  version: 1.0.0
  description: Warehouses and the stock they hold.
paths:
  /warehouses/{id}/stock:
    get:
      operationId: get_warehouse_stock
      summary: Get warehouse stock
      description: Returns the stock levels of every product stored in one warehouse.
      parameters:
        - name: id
          in: path
          required: true
          description: The warehouse id
          schema:
            type: string
      responses:
        '200':
          description: The stock levels of the warehouse
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/StockLevels'
components:
  schemas:
    StockLevels:
      type: object
      description: Stock levels of one warehouse
      properties:
        warehouse_id:
          type: string
        quantities:
          type: object
          additionalProperties:
            type: integer
"""


@pytest.fixture
def app_engine(fixture_index, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """An extractive engine over the fixture index, given to the app in place of the one its settings describe (no
    model is loaded): `webapp.ui` builds and caches this engine under a key of its own."""
    from rag.runner import Engine
    from webapp import ui

    engine = Engine(fixture_index, default_llm="extractive")
    monkeypatch.setattr(ui, "build_engine", lambda: engine)
    monkeypatch.setattr(ui, "engine_key", lambda: f"test-engine:{id(engine)}")
    return engine


@pytest.fixture(autouse=True)
def app_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No user config file, no hosted LLM keys, and saved runs / question sets in temporary folders."""
    for name in ("RAG_CONFIG_FILE", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GROQ_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAG_LLM", "extractive")
    results = tmp_path / "results"
    results.mkdir()
    data = tmp_path / "eval_data"
    data.mkdir()
    monkeypatch.setenv("RAG_EVAL_RESULTS_DIR", str(results))
    monkeypatch.setenv("RAG_EVAL_DATA_DIR", str(data))
    monkeypatch.setenv("RAG_EVAL_LOG", str(tmp_path / "eval.log"))
    yield


@pytest.fixture
def saved_runs(tmp_path: Path) -> Path:
    """The tiny saved run copied into the (temporary) results folder the app reads."""
    results = tmp_path / "results"
    shutil.copytree(EVAL_RUN_FIXTURE / "tiny-run", results / "tiny-run")
    return results
