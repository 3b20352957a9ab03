"""Engine speed on every table: median of several runs of `truco bench`.

    python benchmarks/engine_speed.py [--seconds 3] [--runs 5]

Prints one line per table and a JSON list at the end (the figures in the README).
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
    args = parser.parse_args()
    results = []
    for players in (2, 4, 6):
        for flor in (False, True):
            rules = Rules(players=players, flor=flor)
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


if __name__ == "__main__":
    sys.exit(main())
