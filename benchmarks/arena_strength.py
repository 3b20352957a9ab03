"""The bots' strength and speed: the `truco arena` runs behind the README's figures.

    python benchmarks/arena_strength.py [--scale 1.0] [--jobs 2] [--out DIR] [--only NAME]

Each run is one `truco arena ... --json` command; its JSON is written to ``DIR/NAME.json``
and a one-line summary is printed. ``--scale`` multiplies the numbers of matches (the
README's figures use scale 1; the 1v1 search run is the 1,000-match target). Long runs:
start this in the background and bound it with ``--max-seconds`` per run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

#: name -> (arena arguments, matches at scale 1)
RUNS: dict[str, tuple[list[str], int]] = {
    "simple_vs_random_1v1": (["simple", "random"], 400),
    "simple_vs_random_2v2": (["simple", "random", "--players", "4"], 200),
    "simple_vs_random_3v3": (["simple", "random", "--players", "6"], 200),
    "simple_vs_random_1v1_flor": (["simple", "random", "--flor"], 200),
    "easy_vs_simple_1v1": (["search:easy", "simple"], 200),
    "hard_vs_simple_1v1": (["search:hard", "simple"], 1000),
    "hard_vs_simple_1v1_flor": (["search:hard", "simple", "--flor"], 200),
    "hard_vs_simple_2v2": (["search:hard", "simple", "--players", "4"], 200),
    "hard_vs_simple_3v3": (["search:hard", "simple", "--players", "6"], 200),
    # the top level against the old hard (120x4 is search:hard as it was before search:expert)
    "expert_vs_oldhard_1v1": (["search:expert", "search:120x4"], 400),
    "expert_vs_oldhard_1v1_15": (["search:expert", "search:120x4", "--target", "15"], 400),
    "expert_vs_oldhard_2v2": (["search:expert", "search:120x4", "--players", "4"], 200),
    "expert_vs_oldhard_3v3": (["search:expert", "search:120x4", "--players", "6"], 200),
    # the gauntlet (matches per opponent style)
    "expert_gauntlet_30": (["--gauntlet", "search:expert"], 100),
    "expert_gauntlet_15": (["--gauntlet", "search:expert", "--target", "15"], 100),
    "expert_gauntlet_30_flor": (["--gauntlet", "search:expert", "--flor"], 100),
    "expert_gauntlet_15_flor": (["--gauntlet", "search:expert", "--target", "15", "--flor"], 100),
    "oldhard_gauntlet_30": (["--gauntlet", "search:120x4"], 100),
    "simple_gauntlet_30": (["--gauntlet", "simple"], 200),
}


def summary(name: str, data: dict) -> str:
    if "opponents" in data:  # a gauntlet
        rows = ", ".join(
            f"{o['opponent']} {o['bots'][0]['match_win_rate']:.0%}/{o['matches']}"
            for o in data["opponents"]
        )
        return (
            f"{name:<26} {data['bot']}: min {data['min_win_rate']:.1%} ({data['min_opponent']}), "
            f"mean {data['mean_win_rate']:.1%}  [{rows}]"
        )
    a = data["bots"][0]
    lo, hi = a["ci95"]
    mlo, mhi = a["points_margin_ci95"]
    return (
        f"{name:<26} {data['matches']:>5} matches  {a['name']} wins {a['match_win_rate']:.1%} "
        f"[{lo:.1%}, {hi:.1%}]  margin {a['points_margin_per_hand']:+.2f} pts/hand "
        f"[{mlo:+.2f}, {mhi:+.2f}]  Elo {data['elo_diff']:+.0f}  "
        f"ms p95 {a['decision_ms_p95']:.1f} (cpu {a['decision_cpu_ms_p95']:.1f})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=None, help="bound on each run")
    parser.add_argument("--out", default="arena-results")
    parser.add_argument("--only", action="append", choices=sorted(RUNS))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, (arena_args, matches) in RUNS.items():
        if args.only and name not in args.only:
            continue
        count = 2 * max(1, round(matches * args.scale / 2))  # duplicate pairs: even
        command = [sys.executable, "-m", "truco.cli", "arena", *arena_args, "--json",
                   "--matches", str(count), "--seed", str(args.seed)]  # fmt: skip
        if args.jobs:
            command += ["--jobs", str(args.jobs)]
        if args.max_seconds:
            command += ["--max-seconds", str(args.max_seconds)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        (out / f"{name}.json").write_text(done.stdout, encoding="utf-8")
        print(summary(name, json.loads(done.stdout)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
