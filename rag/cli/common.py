"""What every `python -m rag` command shares: exit codes, the error line, settings, JSON output, configs."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from rag.settings import Settings

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
Command = Callable[[argparse.Namespace], int]


def fail(message: str, code: int = EXIT_USAGE) -> int:
    """Print one clear line to stderr and return the exit code."""
    print(f"error: {message}", file=sys.stderr)
    return code


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment with `--index-dir` applied."""
    return Settings.from_env(index_dir=getattr(args, "index_dir", None))


def print_json(data: Any) -> None:
    """Print JSON to stdout."""
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def known_configs(args: argparse.Namespace) -> dict[str, Any]:
    """Presets plus the user's configs from `--config-file` (TOML or YAML)."""
    from rag.config import known_configs as configs_from_file

    return configs_from_file(getattr(args, "config_file", None))
