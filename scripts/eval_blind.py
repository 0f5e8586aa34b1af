"""Run the blinded validation sets (`../shared/blind/run`) and keep their totals.

The sets' questions are never read or kept: the blind runner prints totals only, and this script saves
those totals as `eval_data/results/blind/latest.json` (what the evaluation page reads) and `latest.md`.

usage: python scripts/eval_blind.py [--configs C2,full] [--ablate full] [--config-file FILE] [--sets a,b]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLIND_RUN = ROOT.parent / "shared" / "blind" / "run"
OUT = ROOT / "eval_data" / "results" / "blind"


def table(sets: dict[str, dict[str, dict]], configs: list[str]) -> str:
    """The totals as a Markdown table, with whether the last config holds against the first."""
    lines = ["| set | config | answerable / oos | hit@5 | MRR | recall@5 | false abstention | oos abstained |",
             "|---|---|---|---|---|---|---|---|"]
    for name, per in sets.items():
        for config, m in per.items():
            oos = "—" if m.get("oos_abstained") is None else m["oos_abstained"]
            lines.append(f"| {name} | {config} | {m['answerable']} / {m['out_of_scope']} | {m['hit@5']} | "
                         f"{m['mrr']} | {m['recall@5']} | {m['false_abstention']} | {oos} |")
    if len(configs) > 1:
        base, last = configs[0], configs[-1]
        lines.append("")
        for name, per in sets.items():
            if base in per and last in per:
                a, b = per[base], per[last]
                holds = b["hit@5"] >= a["hit@5"] and b["mrr"] >= a["mrr"]
                lines.append(f"- {name}: {last} {'holds against' if holds else 'FALLS BELOW'} {base} "
                             f"(hit@5 {b['hit@5']} vs {a['hit@5']}, MRR {b['mrr']} vs {a['mrr']})")
    return "\n".join(lines) + "\n"


def main() -> int:
    """Run the blind sets and write their totals; exit 2 when ../shared/blind is missing."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default="C2,full")
    parser.add_argument("--ablate", default="full", help="also run this config without each feature ('' for none)")
    parser.add_argument("--config-file")
    parser.add_argument("--sets", default="")
    args = parser.parse_args()
    if not BLIND_RUN.exists():
        print(f"no blinded sets here ({BLIND_RUN} is missing); nothing to run", file=sys.stderr)
        return 2
    command = [sys.executable, str(BLIND_RUN), "--configs", args.configs, "--json"]
    command += ["--ablate", args.ablate] if args.ablate else []
    command += ["--config-file", args.config_file] if args.config_file else []
    command += ["--sets", args.sets] if args.sets else []
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        return done.returncode
    sets = json.loads(done.stdout)
    configs = [c for c in args.configs.split(",") if c]
    OUT.mkdir(parents=True, exist_ok=True)
    generated = datetime.now(UTC).isoformat(timespec="seconds")
    (OUT / "latest.json").write_text(json.dumps({"generated": generated, "configs": configs, "sets": sets}, indent=1))
    markdown = table(sets, configs)
    (OUT / "latest.md").write_text(f"# Blinded sets (retrieval only), {generated}\n\n{markdown}")
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
