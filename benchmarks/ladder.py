"""The ladder's ratings: each level against the one below it, Elo differences chained.

    nice -n 10 python benchmarks/ladder.py --matches 40 --seed 7 --target 15 [--max-seconds S]

Runs ``truco arena LOWER HIGHER --matches N --seed S --target T --jobs 1 --json`` for each
rung (``random`` against ``beginner``, then every level against the next one) and prints
one JSON line per rung (wins, Wilson 95% interval, margin per hand, CPU p95 per decision
of each side) and a last line with the ratings: ``random`` = 0, each level the one below
plus the measured Elo difference. docs/bots.md has the figures and the command.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
from typing import Any

from truco.bots.ladder import LADDER


def arena(lower: str, higher: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable,
        "-c",
        "import sys; from truco.cli import main; sys.exit(main(sys.argv[1:]))",
        "arena",
        lower,
        higher,
        "--matches",
        str(args.matches),
        "--seed",
        str(args.seed),
        "--target",
        str(args.target),
        "--jobs",
        "1",
        "--json",
    ]
    if args.max_seconds:
        command += ["--max-seconds", str(args.max_seconds)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--target", type=int, choices=(15, 30), default=15)
    parser.add_argument("--max-seconds", type=float, default=None)
    args = parser.parse_args()
    names = ["random", *(level.name for level in LADDER)]
    ratings = {"random": 0.0}
    for lower, higher in itertools.pairwise(names):
        report = arena(lower, higher, args)
        low, high = report["bots"]
        # elo_diff is the first bot's (lower) minus the second's
        ratings[higher] = ratings[lower] - float(report["elo_diff"])
        print(
            json.dumps(
                {
                    "rung": f"{higher} over {lower}",
                    "matches": report["matches"],
                    "wins": high["match_wins"],
                    "ci95": high["ci95"],
                    "margin": high["points_margin_per_hand"],
                    "margin_ci95": high["points_margin_ci95"],
                    "elo": -report["elo_diff"],
                    "cpu_p95_ms": {
                        lower: low["decision_cpu_ms_p95"],
                        higher: high["decision_cpu_ms_p95"],
                    },
                }
            ),
            flush=True,
        )
    print(json.dumps({"ratings": {k: round(v) for k, v in ratings.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
