"""The bots' strength and speed: the exact `truco arena` runs behind the figures of docs/history/bots-runs.md.

    python benchmarks/arena_strength.py [--set issue11] [--only NAME ...] [--out DIR]
        [--scale 1.0] [--nice 10] [--list]
    python benchmarks/arena_strength.py --summary DIR

Each run is one ``truco arena ... --json`` command with its own seed, number of matches and
``--max-seconds`` bound (so a run on a busy machine stops and reports the duplicate pairs it
finished); its JSON goes to ``DIR/NAME.json`` and a one-line summary with the Wilson 95%
interval is printed. ``--list`` prints the commands without running them; ``--summary``
prints the summaries of the JSON files already in DIR. ``--scale`` multiplies the numbers
of matches (and the time bounds).

Sets: ``base`` (the first table of docs/history/bots-runs.md: search and simple against simple and
random) and ``issue11`` (the expert against today's hard, ``search:120x4``, and the
gauntlet on every configuration, with ``--jobs 1``: the CPU-time figures of one core).
The expert's runs were planned as the best sample for about 90 CPU minutes on a shared
2-core machine: a screening (``screen_*``: one or two duplicate pairs per configuration)
to find the weak spots, then the runs whose intervals can tell the targets apart. The
``final_*`` runs measure the expert after its rival model got separate envido and truco
answers and a search-like prior (``screen2_*`` screened it); each ran as its own stream
(``--only NAME``) at the same time as the others.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Run:
    """One arena run: its arguments, matches (duplicate pairs: even), seed, time bound,
    worker processes (0: every core)."""

    args: tuple[str, ...]
    matches: int
    seed: int
    max_seconds: float | None = None
    jobs: int = 0


E, H = "search:expert", "search:120x4"  # the top level; today's hard as it was before it

SETS: dict[str, dict[str, Run]] = {
    "base": {
        "simple_vs_random_1v1": Run(("simple", "random"), 400, 3),
        "simple_vs_random_2v2": Run(("simple", "random", "--players", "4"), 200, 3),
        "simple_vs_random_3v3": Run(("simple", "random", "--players", "6"), 200, 3),
        "simple_vs_random_1v1_flor": Run(("simple", "random", "--flor"), 200, 3),
        "easy_vs_simple_1v1": Run(("search:easy", "simple"), 200, 2),
        "hard_vs_simple_1v1": Run(("search:hard", "simple"), 1000, 1),
        "hard_vs_simple_1v1_flor": Run(("search:hard", "simple", "--flor"), 200, 4, 780),
        "hard_vs_simple_2v2": Run(("search:hard", "simple", "--players", "4"), 600, 5),
        "hard_vs_simple_3v3": Run(("search:hard", "simple", "--players", "6"), 200, 4, 780),
    },
    "issue11": {
        # screening: where is the expert weakest? (one or two pairs per configuration)
        "screen_gauntlet_15": Run(("--gauntlet", E, "--target", "15"), 4, 101, 700, 1),
        "screen_gauntlet_15_flor": Run(
            ("--gauntlet", E, "--target", "15", "--flor"), 4, 102, 700, 1
        ),
        "screen_vs_hard_2v2": Run((E, H, "--players", "4"), 4, 103, 500, 1),
        "screen_vs_hard_3v3": Run((E, H, "--players", "6"), 4, 104, 500, 1),
        "screen_gauntlet_30_flor": Run(("--gauntlet", E, "--flor"), 2, 105, 700, 1),
        # the figures (four streams of about 55 minutes on the shared machine)
        "expert_vs_hard_1v1": Run((E, H), 200, 201, 1500, 1),
        "expert_vs_hard_2v2": Run((E, H, "--players", "4"), 100, 202, 1500, 1),
        "expert_vs_hard_3v3": Run((E, H, "--players", "6"), 100, 203, 1300, 1),
        # a second 2v2 sample (its first run ended with the interval's edge at 55%)
        "expert_vs_hard_2v2_b": Run((E, H, "--players", "4"), 100, 212, 1300, 1),
        "expert_gauntlet_30": Run(("--gauntlet", E), 40, 204, 1900, 1),
        "expert_gauntlet_15": Run(("--gauntlet", E, "--target", "15"), 40, 205, 1300, 1),
        "expert_gauntlet_30_flor": Run(("--gauntlet", E, "--flor"), 20, 206, 1000, 1),
        "expert_gauntlet_15_flor": Run(
            ("--gauntlet", E, "--target", "15", "--flor"), 20, 207, 700, 1
        ),
        # the expert with the envido and truco answers fitted apart from a search-like prior
        # (commit "expert: fit the rivals' envido and truco acceptance apart"): screened
        # on target 15, then the four gauntlet configurations and the 1v1 against today's
        # hard, five streams of about 75 minutes from 21:50 UTC on the shared machine
        "screen2_gauntlet_15": Run(("--gauntlet", E, "--target", "15"), 4, 301, 1200, 1),
        "final_gauntlet_30": Run(("--gauntlet", E), 60, 401, 3900, 1),
        "final_gauntlet_15": Run(("--gauntlet", E, "--target", "15"), 80, 402, 4200, 1),
        "final_gauntlet_30_flor": Run(("--gauntlet", E, "--flor"), 60, 403, 3900, 1),
        "final_gauntlet_15_flor": Run(
            ("--gauntlet", E, "--target", "15", "--flor"), 80, 404, 4200, 1
        ),
        "final_vs_hard_1v1": Run((E, H), 200, 405, 3900, 1),
        # the expert with a wary rival in half its worlds (commit "Expert: half of its worlds
        # play a wary rival"), fresh seeds; benchmarks/expert_paired.py plays the same pairs
        # for the expert before the change (--before wary=0)
        "wary_vs_loose_15": Run((E, "mirror:loose", "--target", "15"), 80, 601, 2400, 1),
        "wary_vs_hard_1v1": Run((E, H), 80, 602, 2400, 1),
        # the expert with bounded bluffs, robust calls and the envido-bluff reader (branch
        # expert-leaks), fresh seeds; benchmarks/expert_paired.py played these same pairs
        "leaks_vs_loose_15": Run((E, "mirror:loose", "--target", "15"), 120, 800, 2400, 1),
        "leaks_vs_loose_15_flor": Run(
            (E, "mirror:loose", "--target", "15", "--flor"), 120, 801, 2400, 1
        ),
        "leaks_vs_tight_15": Run((E, "mirror:tight", "--target", "15"), 80, 802, 1800, 1),
        # the expert reading the table late in a hand (commit "expert: read the table late
        # in a hand"), fresh seeds; benchmarks/expert_paired.py screened it on seeds
        # 1410/1411 against the same pairs with --before table_power=0
        "table_vs_loose_15": Run((E, "mirror:loose", "--target", "15"), 160, 1420, 3000, 1),
        "table_vs_loose_15_flor": Run(
            (E, "mirror:loose", "--target", "15", "--flor"), 160, 1421, 3000, 1
        ),
        "table_vs_tight_15": Run((E, "mirror:tight", "--target", "15"), 80, 1422, 1800, 1),
        "table_vs_loose_30": Run((E, "mirror:loose"), 60, 1423, 2400, 1),
        "table_vs_tight_30_flor": Run((E, "mirror:tight", "--flor"), 40, 1424, 2400, 1),
        # the sweep's 3/6 against mirror:loose a 30 con flor, measured
        "table_vs_loose_30_flor": Run((E, "mirror:loose", "--flor"), 60, 1432, 2400, 1),
        # the sweeps' cells at 50-67% in 6 matches, measured
        "table_vs_falta_30": Run((E, "falta"), 40, 1433, 2400, 1),
        "table_vs_falta_30_flor": Run((E, "falta", "--flor"), 40, 1434, 2400, 1),
        "table_vs_loose_style_30_flor": Run((E, "loose", "--flor"), 40, 1435, 2400, 1),
        "table_vs_tight_15_flor": Run(
            (E, "mirror:tight", "--target", "15", "--flor"), 60, 1436, 2400, 1
        ),
        "table_vs_tight_30": Run((E, "mirror:tight"), 40, 1437, 2400, 1),
        "table_vs_hard_1v1": Run((E, H), 60, 1425, 2400, 1),
        "table_vs_hard_2v2": Run((E, H, "--players", "4"), 40, 1426, 2400, 1),
        "table_vs_hard_3v3": Run((E, H, "--players", "6"), 30, 1427, 2400, 1),
        "table_gauntlet_15": Run(("--gauntlet", E, "--target", "15"), 10, 1428, 2400, 1),
        "table_gauntlet_30_flor": Run(("--gauntlet", E, "--flor"), 6, 1429, 2400, 1),
        "table_gauntlet_15_flor": Run(
            ("--gauntlet", E, "--target", "15", "--flor"), 10, 1430, 2400, 1
        ),
        "table_gauntlet_30": Run(("--gauntlet", E), 6, 1431, 2400, 1),
        # the expert fitting whether its rivals read the table (fit_table), fresh seeds;
        # benchmarks/expert_paired.py screened it on seed 1410 with --before fit_table=1
        "fit_vs_loose_15": Run((E, "mirror:loose", "--target", "15"), 160, 1440, 3000, 1),
        "fit_vs_loose_15_flor": Run(
            (E, "mirror:loose", "--target", "15", "--flor"), 160, 1441, 3000, 1
        ),
        "fit_vs_hard_1v1": Run((E, H), 60, 1442, 2400, 1),
        "fit_vs_hard_3v3": Run((E, H, "--players", "6"), 30, 1443, 2400, 1),
        "fit_gauntlet_15": Run(("--gauntlet", E, "--target", "15"), 10, 1444, 2400, 1),
        "fit_gauntlet_30": Run(("--gauntlet", E), 6, 1445, 2400, 1),
        "fit_vs_hard_2v2": Run((E, H, "--players", "4"), 40, 1446, 2400, 1),
        "fit_gauntlet_15_flor": Run(
            ("--gauntlet", E, "--target", "15", "--flor"), 10, 1447, 2400, 1
        ),
        "fit_gauntlet_30_flor": Run(("--gauntlet", E, "--flor"), 6, 1448, 2400, 1),
        "fit_vs_loose_30_flor": Run((E, "mirror:loose", "--flor"), 60, 1449, 2400, 1),
        # the sweep's 6/10 against loose a 15, measured
        "fit_vs_loose_style_15": Run((E, "loose", "--target", "15"), 40, 1450, 2400, 1),
        # the sweep's 3/6 against mirror:loose a 30 sin flor, measured
        "fit_vs_loose_30": Run((E, "mirror:loose"), 60, 1452, 2400, 1),
        # the sweep's 3/6 against falta a 30 con flor, measured
        "fit_vs_falta_30_flor": Run((E, "falta", "--flor"), 40, 1451, 2400, 1),
        # the sweeps' cells whose interval did not clear 60%, measured on fresh seeds
        "more_tight_15": Run((E, "tight", "--target", "15"), 40, 1460, 2400, 1),
        "more_station_15": Run((E, "station", "--target", "15"), 40, 1461, 2400, 1),
        "more_scared_15": Run((E, "scared", "--target", "15"), 40, 1462, 2400, 1),
        "more_falta_15": Run((E, "falta", "--target", "15"), 40, 1463, 2400, 1),
        "more_mtight_15": Run((E, "mirror:tight", "--target", "15"), 40, 1464, 2400, 1),
        "more_tight_15_flor": Run((E, "tight", "--target", "15", "--flor"), 40, 1465, 2400, 1),
        "more_loose_15_flor": Run((E, "loose", "--target", "15", "--flor"), 40, 1466, 2400, 1),
        "more_falta_15_flor": Run((E, "falta", "--target", "15", "--flor"), 40, 1467, 2400, 1),
        "more_mtight_15_flor": Run(
            (E, "mirror:tight", "--target", "15", "--flor"), 40, 1468, 2400, 1
        ),
        "more_loose_30": Run((E, "loose"), 40, 1469, 2400, 1),
        "more_tight_30": Run((E, "tight"), 40, 1470, 2400, 1),
        "more_mtight_30": Run((E, "mirror:tight"), 40, 1471, 2400, 1),
        "more_falta_30": Run((E, "falta"), 40, 1472, 2400, 1),
        "more_loose_30_flor": Run((E, "loose", "--flor"), 40, 1473, 2400, 1),
        "more_tight_30_flor": Run((E, "tight", "--flor"), 40, 1474, 2400, 1),
        "more_scared_30_flor": Run((E, "scared", "--flor"), 40, 1475, 2400, 1),
        "more_station_30_flor": Run((E, "station", "--flor"), 40, 1476, 2400, 1),
        "more_falta_30_flor": Run((E, "falta", "--flor"), 40, 1477, 2400, 1),
        # the two falta sin flor cells still short of 60% after those, measured longer
        "more2_falta_15": Run((E, "falta", "--target", "15"), 150, 1478, 3600, 1),
        "more2_falta_30": Run((E, "falta"), 150, 1479, 3600, 1),
        # decision time of the named levels against the beginner
        "time_hard": Run(("search:hard", "simple"), 10, 208, 240, 1),
        "time_easy": Run(("search:easy", "simple"), 20, 209, 120, 1),
        # the beginner against the gauntlet (cheap but for the mirrors)
        "simple_gauntlet_30": Run(("--gauntlet", "simple"), 100, 210, 300, 1),
    },
}
RUNS: dict[str, Run] = {name: run for runs in SETS.values() for name, run in runs.items()}


def command(run: Run, scale: float = 1.0) -> list[str]:
    """The ``truco arena`` command line of ``run`` (matches and time scaled)."""
    count = 2 * max(1, round(run.matches * scale / 2))  # duplicate pairs: even
    out = ["-m", "truco.cli", "arena", *run.args, "--json", "--matches", str(count)]
    out += ["--seed", str(run.seed)]
    if run.jobs:
        out += ["--jobs", str(run.jobs)]
    if run.max_seconds:
        out += ["--max-seconds", f"{run.max_seconds * scale:g}"]
    return out


def summary(name: str, data: dict[str, Any]) -> str:
    """One line: win rate with its Wilson 95% interval, margin, decision time."""
    if "opponents" in data:  # a gauntlet
        rows = ", ".join(
            f"{o['opponent']} {o['bots'][0]['match_win_rate']:.0%}/{o['matches']} "
            f"[{o['bots'][0]['ci95'][0]:.0%}-{o['bots'][0]['ci95'][1]:.0%}]"
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
    parser.add_argument("--set", choices=sorted(SETS), help="run one set (default: all)")
    parser.add_argument("--only", action="append", choices=sorted(RUNS), metavar="NAME")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--nice", type=int, default=0, help="run each arena under nice -n N")
    parser.add_argument("--out", default="arena-results")
    parser.add_argument("--list", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--summary", metavar="DIR", help="summarize the JSON files in DIR")
    args = parser.parse_args()
    if args.summary:
        for path in sorted(Path(args.summary).glob("*.json")):
            print(summary(path.stem, json.loads(path.read_text(encoding="utf-8"))))
        return 0
    out = Path(args.out)
    for name, run in (SETS[args.set] if args.set else RUNS).items():
        if args.only and name not in args.only:
            continue
        line = [sys.executable, *command(run, args.scale)]
        if args.nice:
            line = ["nice", "-n", str(args.nice), *line]
        if args.list:
            print(f"{name}: {shlex.join(line)}")
            continue
        out.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(line, capture_output=True, text=True)
        if done.returncode:
            print(f"{name}: failed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
            continue
        (out / f"{name}.json").write_text(done.stdout, encoding="utf-8")
        print(summary(name, json.loads(done.stdout)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
