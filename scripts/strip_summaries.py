"""Write a copy of a spec whose operations have no summary and no description, the way many generated specs
come (operation ids and paths only), for the `summaryless-tuning` set of eval_data/suite.toml.

The default source is Twilio's spec beside the checkout (../shared/specs/external); the copy goes to
eval_data/summaryless/twilio_bare.json, which git ignores (shared data is read by path, never committed).
Each response's description becomes "<code> response for <operationId>", as in Discord's generated spec.

usage: python scripts/strip_summaries.py [--source SPEC] [--dest FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT.parent / "shared" / "specs" / "external" / "twilio_api_v2010.json"
DEFAULT_DEST = ROOT / "eval_data" / "summaryless" / "twilio_bare.json"
METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")


def strip_summaries(spec: dict) -> dict:
    """The spec with every operation's (and path item's) summary and description removed and each response
    described only by its code and operationId."""
    for item in spec.get("paths", {}).values():
        item.pop("summary", None)
        item.pop("description", None)
        for method in METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            operation.pop("summary", None)
            operation.pop("description", None)
            for code, response in operation.get("responses", {}).items():
                if isinstance(response, dict) and "description" in response:
                    response["description"] = f"{code} response for {operation.get('operationId', method)}"
    return spec


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST)
    args = parser.parse_args(argv)
    if not args.source.is_file():
        print(f"error: {args.source} not found; pass --source with an OpenAPI JSON file", file=sys.stderr)
        return 2
    spec = strip_summaries(json.loads(args.source.read_text()))
    args.dest.parent.mkdir(parents=True, exist_ok=True)
    temporary = args.dest.with_suffix(".tmp")
    temporary.write_text(json.dumps(spec))
    temporary.replace(args.dest)
    print(f"wrote {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
