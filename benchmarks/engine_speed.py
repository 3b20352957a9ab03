"""Engine speed on every table: median of several runs of `truco bench`.

    python benchmarks/engine_speed.py [--seconds 3] [--runs 5]

Prints one line per table and a JSON list at the end (the figures in the README).

Wall-clock rates move with the machine's load; for a deterministic comparison of two
versions of the engine, count the instructions of a fixed amount of work instead:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python benchmarks/engine_speed.py --matches 300 --players 2 --sin-flor

plays exactly 300 random matches (seed 0) on each table asked and prints the hands and
actions played (the same on any version that keeps the rules); ``--matches 0`` is the
start-up cost to subtract.
"""

from __future__ import annotations

import argparse
import json
import sys

from truco.bench import median_result, play_random_matches
from truco.rules import Rules


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--matches", type=int, help="play exactly this many matches per table, once (seed 0)"
    )
    parser.add_argument("--players", type=int, choices=(2, 4, 6), action="append")
    flor = parser.add_mutually_exclusive_group()
    flor.add_argument("--con-flor", dest="flor", action="store_const", const=(True,))
    flor.add_argument("--sin-flor", dest="flor", action="store_const", const=(False,))
    args = parser.parse_args()
    tables = [
        Rules(players=players, flor=flor)
        for players in args.players or (2, 4, 6)
        for flor in args.flor or (False, True)
    ]
    if args.matches is not None:
        return fixed_work(tables, args.matches)
    results = []
    for rules in tables:
        runs = [play_random_matches(rules, args.seconds, seed=i) for i in range(args.runs)]
        best = median_result(runs)
        spread = sorted(r.hands_per_s for r in runs)
        print(
            f"{rules.describe():<20} median {best.hands_per_s:>9,.0f} hands/s "
            f"(runs {spread[0]:,.0f}..{spread[-1]:,.0f}) {best.us_per_action:.2f} µs/action",
            file=sys.stderr,
            flush=True,
        )
        results.append(best.__dict__)
    print(json.dumps(results))
    return 0


def fixed_work(tables: list[Rules], matches: int) -> int:
    """Exactly ``matches`` matches per table: print the hands and actions played."""
    for rules in tables:
        if matches == 0:
            continue
        result = play_random_matches(rules, 0.0, seed=0, matches=matches)
        elapsed = matches / result.matches_per_s
        hands = round(result.hands_per_s * elapsed)
        actions = round(elapsed * 1e6 / result.us_per_action)
        print(f"{rules.describe():<20} {matches} matches, {hands} hands, {actions} actions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
