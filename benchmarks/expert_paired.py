"""Paired screening of an expert change: the same duplicate pairs (deals, bot seeds) as
``truco arena A B --seed S --jobs 1``, with ``expert-before`` available as bot A: the
expert with one of its method's fields set back (``--before wary=0``).

    nice -n 19 .venv/bin/python -u benchmarks/expert_paired.py expert-before mirror:loose \
        --target 15 --pairs 40 --seed 601 --before wary=0

Prints one JSON line per finished pair (cumulative: wins, Wilson 95% interval, points
margin per hand, each match's outcome, bot A's CPU p95 per decision), so a run cut short
still reports; run it for ``search:expert`` and for ``expert-before`` on the same seed and
compare match by match. ``--timing`` instead times the expert before and after on 72 fixed
positions (from six matches of ``mirror:loose`` against ``simple`` a 15), interleaved, four
runs each, and prints each run's CPU p95 per decision. A field set to ``none`` is switched
off (``--before bluff_rate=none robust=0``: the expert before its bounded bluffs and
robust calls).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from truco.arena.match import play_match
from truco.arena.stats import wilson_interval
from truco.bots import BOTS, SearchBot
from truco.rules import Rules


def _value(text: str) -> float | None:
    return None if text.lower() == "none" else float(text)


def _before(changes: dict[str, float | None]) -> None:
    def factory(level: str, seed: int | None) -> SearchBot:
        bot = SearchBot("expert", seed)
        bot.method = dataclasses.replace(bot.method, **changes)  # type: ignore[arg-type]
        return bot

    BOTS["expert-before"] = factory


def timing() -> dict[str, list[float]]:
    """CPU p95 (ms) per decision of ``expert-before`` and ``search:expert`` on the same
    positions, runs interleaved (before, after, before, after, after, before, ...)."""
    from truco import Game
    from truco.actions import is_say
    from truco.bots import make_bot
    from truco.view import seat_view

    rules = Rules(target=15)
    positions = []
    for m in range(6):
        game = Game(rules, seed=f"timing{m}")
        bots = [make_bot("mirror:loose", m), make_bot("simple", m)]
        while not game.is_over and len(positions) < 12 * (m + 1):
            seat = game.actors()[0]
            view = seat_view(game, seat)
            legal = [a for a in view.legal if not is_say(a)]
            if len(legal) > 1:
                positions.append((view, legal))
            game.apply(seat, bots[seat].choose(view, legal, rules))
    p95: dict[str, list[float]] = {"expert-before": [], "search:expert": []}
    order = ["expert-before", "search:expert"] * 2 + ["search:expert", "expert-before"] * 2
    for spec in order:
        times = []
        for i, (view, legal) in enumerate(positions):
            bot = make_bot(spec, i)
            start = time.process_time()
            bot.choose(view, legal, rules)
            times.append(time.process_time() - start)
        times.sort()
        p95[spec].append(round(1000 * times[int(0.95 * (len(times) - 1))], 1))
    return p95


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("bots", nargs="*", help="bot A and bot B (not with --timing)")
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--target", type=int, default=30, choices=(15, 30))
    parser.add_argument("--players", type=int, default=2, choices=(2, 4, 6))
    parser.add_argument("--flor", action="store_true")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before", nargs="*", default=["wary=0"], metavar="FIELD=VALUE")
    args = parser.parse_args(argv)
    _before({k: _value(v) for k, v in (item.split("=", 1) for item in args.before)})
    if args.timing:
        print(json.dumps({"cpu_p95_ms": timing(), "before": args.before}), flush=True)
        return 0
    if len(args.bots) != 2:
        parser.error("give two bots (or --timing)")
    rules = Rules(players=args.players, target=args.target, flor=args.flor)
    specs = (args.bots[0], args.bots[1])
    start = time.process_time()
    outcomes: list[tuple[bool, int, int]] = []
    cpu: list[float] = []
    for pair in range(args.pairs):
        for swapped in (False, True):
            r = play_match(specs, rules, args.seed, pair, swapped)
            outcomes.append((r.winner_bot == 0, r.hand_points[0] - r.hand_points[1], r.hands))
            cpu.extend(r.decision_cpu_s[0])
        wins, n = sum(o[0] for o in outcomes), len(outcomes)
        lo, hi = wilson_interval(wins, n)
        cpu.sort()
        row = {
            "bots": specs,
            "rules": rules.to_dict(),
            "seed": args.seed,
            "pairs": pair + 1,
            "wins": wins,
            "matches": n,
            "wilson95": [round(lo, 3), round(hi, 3)],
            "margin_per_hand": round(sum(o[1] for o in outcomes) / sum(o[2] for o in outcomes), 3),
            "per_match": outcomes,
            "cpu_p95_ms": round(1000 * cpu[int(0.95 * (len(cpu) - 1))], 1) if cpu else None,
            "cpu_s": round(time.process_time() - start),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
