"""Fingerprint what the ingester makes of every evaluation spec, to show a refactoring left chunks unchanged.

Ingests each spec with the repository's ingester and writes one sha256 per spec over every chunk's
id, text, kind, covers and the metadata fields listed in HASHED_FIELDS (what `Chunk.to_dict` gave
before operation facts became chunk fields), so fields added later do not change the hash:

    .venv/bin/python scripts/check_chunks_unchanged.py --out /tmp/chunks-before.json
    ... change the ingester ...
    .venv/bin/python scripts/check_chunks_unchanged.py --out /tmp/chunks-after.json --compare /tmp/chunks-before.json

Exit status 1 when `--compare` finds a spec whose hash differs (or is missing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.ingest.pipeline import parse_path  # noqa: E402

SHARED = ROOT.parent / "shared"
DEFAULT_SPECS: tuple[Path, ...] = (
    SHARED / "specs" / "stackone",
    SHARED / "specs" / "stackone-2025-02",
    SHARED / "specs" / "external",
    SHARED / "eval" / "restbench-spotify" / "spotify.json",
)
SPEC_SUFFIXES = (".json", ".yaml", ".yml")
# Every key `Chunk.to_dict` returned before operation facts were added (2026-11 refactoring).
HASHED_FIELDS: tuple[str, ...] = (
    "chunk_id", "strategy", "api", "kind", "text", "covers", "source", "json_pointer", "path", "method",
    "operation_id", "tags", "ref_ids", "payload_of", "tokens", "title", "section_path", "depth", "has_code",
    "part", "parts", "doc_version", "embedding_text",
)


def spec_files(paths: tuple[Path, ...]) -> list[Path]:
    """The spec files under `paths` (folders searched one level deep), sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.suffix.lower() in SPEC_SUFFIXES))
        elif path.is_file():
            found.append(path)
    return found


def spec_hash(path: Path) -> tuple[str, int]:
    """The sha256 over every chunk's HASHED_FIELDS (in chunk order) and the number of chunks."""
    digest = hashlib.sha256()
    document = parse_path(path)
    for chunk in document.chunks:
        data = chunk.to_dict()
        view = {name: data[name] for name in HASHED_FIELDS}
        digest.update(json.dumps(view, sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest(), len(document.chunks)


def main(argv: list[str] | None = None) -> int:
    """Write the hashes to `--out`; with `--compare`, report per spec whether they are identical."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file to write {spec: {sha256, chunks}} to")
    parser.add_argument("--compare", help="an earlier output of this script to compare with")
    parser.add_argument("specs", nargs="*", help="spec files or folders (default: the evaluation specs)")
    args = parser.parse_args(argv)
    paths = tuple(Path(p) for p in args.specs) or DEFAULT_SPECS
    hashes: dict[str, dict[str, object]] = {}
    for path in spec_files(paths):
        resolved = path.resolve()
        key = str(resolved.relative_to(SHARED.resolve())) if resolved.is_relative_to(SHARED.resolve()) else str(path)
        sha, count = spec_hash(path)
        hashes[key] = {"sha256": sha, "chunks": count}
        print(f"{key}: {count} chunks {sha[:16]}", file=sys.stderr)
    Path(args.out).write_text(json.dumps(hashes, indent=2, sort_keys=True) + "\n")
    if not args.compare:
        return 0
    before = json.loads(Path(args.compare).read_text())
    differing = 0
    for key in sorted(set(before) | set(hashes)):
        same = key in before and key in hashes and before[key]["sha256"] == hashes[key]["sha256"]
        differing += not same
        print(f"{'identical' if same else 'DIFFERENT'}  {key}")
    print(f"{len(hashes)} spec(s), {differing} different")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
