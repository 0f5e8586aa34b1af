"""The data files the library reads: glossaries, out-of-scope prototypes, question words and stop words."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent


@cache
def data_table(name: str) -> dict[str, Any]:
    """The TOML file `rag/data/NAME.toml`, read once."""
    return tomllib.loads((DATA_DIR / f"{name}.toml").read_text(encoding="utf-8"))
