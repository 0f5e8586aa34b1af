"""Benchmarks (`make bench`): speed and memory targets are checked here, not in unit tests.

The paths every section shares live here, so the sections import this package and never each other.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
STACKONE = SHARED / "specs" / "stackone"


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0–100) by linear interpolation."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
