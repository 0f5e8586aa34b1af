"""How far the confidence shown can be trusted: per confidence band, how often the first result was right, and
the expected calibration error (ECE) over the bands.

The confidence a configuration shows is meant as the probability that its first result is right (the learned
ranker's calibration, rag.rerank.calibration): among answers shown at 0.8, about eight in ten should have a
relevant first chunk. Only answerable questions with relevant ids that were not abstained on count, as on the
blinded sets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

BINS = 10
SURE = 0.9  # "answers shown with confidence ≥ 0.9"


def band_of(confidence: float, bins: int = BINS) -> int:
    """The band (0 … bins-1) of a confidence in [0, 1]; 1.0 falls in the last."""
    return min(int(confidence * bins), bins - 1) if confidence > 0 else 0


def expected_calibration_error(pairs: Sequence[tuple[float, bool]], bins: int = BINS) -> float | None:
    """The expected calibration error of (confidence, right) pairs over `bins` equal-width bands: the bands'
    |right rate − mean confidence|, weighted by their share of the pairs. None without pairs."""
    if not pairs:
        return None
    grouped: dict[int, list[tuple[float, bool]]] = {}
    for confidence, right in pairs:
        grouped.setdefault(band_of(confidence, bins), []).append((confidence, right))
    return sum(
        len(inside) / len(pairs)
        * abs(sum(r for _, r in inside) / len(inside) - sum(c for c, _ in inside) / len(inside))
        for inside in grouped.values()
    )


def reliability_bands(pairs: Sequence[tuple[float, bool]], bins: int = BINS) -> list[dict[str, Any]]:
    """Per non-empty band: its range, how many answers, their mean confidence and how often the first was right."""
    grouped: dict[int, list[tuple[float, bool]]] = {}
    for confidence, right in pairs:
        grouped.setdefault(band_of(confidence, bins), []).append((confidence, right))
    return [
        {
            "from": round(band / bins, 2), "to": round((band + 1) / bins, 2), "n": len(inside),
            "confidence": round(sum(c for c, _ in inside) / len(inside), 3),
            "right": round(sum(r for _, r in inside) / len(inside), 3),
        }
        for band, inside in sorted(grouped.items())
    ]


def first_right(record: Mapping[str, Any]) -> bool:
    """Whether the record's first retrieved chunk covers one of its relevant ids."""
    chunks = record.get("retrieved_chunks") or []
    wanted = set(record.get("relevant_ids") or ())
    return bool(chunks) and bool(set(chunks[0].get("covers") or ()) & wanted)


def confidence_pairs(records: Sequence[Mapping[str, Any]]) -> list[tuple[float, bool]]:
    """(confidence shown, first result right) of the answerable, not abstained, error-free records that name
    relevant ids and carry a confidence."""
    return [
        (float(r["confidence_score"]), first_right(r))
        for r in records
        if r.get("answerable") and r.get("relevant_ids") and not r.get("abstained") and not r.get("error")
        and isinstance(r.get("confidence_score"), (int, float))
    ]


def reliability(records: Sequence[Mapping[str, Any]], bins: int = BINS) -> dict[str, Any]:
    """The calibration of a configuration's records: ECE, the bands, how often the first was right at confidence
    ≥ 0.9 and how many such answers there were (None figures without confidences)."""
    pairs = confidence_pairs(records)
    sure = [right for confidence, right in pairs if confidence >= SURE]
    ece = expected_calibration_error(pairs, bins)
    return {
        "n": len(pairs),
        "ece": round(ece, 3) if ece is not None else None,
        "right_when_sure": round(sum(sure) / len(sure), 3) if sure else None,
        "sure": len(sure),
        "bands": reliability_bands(pairs, bins),
    }
