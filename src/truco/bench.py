"""``truco bench``: the engine's speed on complete random matches, one core.

The random policy is the one other truco engines' benchmarks use: uniform over the legal
actions except ``mazo`` (unless it is the only one) and megaphone words. Each timed step
is: legal-action generation, the random pick, applying the action.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass

from .actions import MAZO
from .deal import StreamDealer
from .game import Game
from .rules import Rules


@dataclass(frozen=True)
class BenchResult:
    players: int
    flor: bool
    hands_per_s: float
    matches_per_s: float
    us_per_action: float


def play_random_matches(
    rules: Rules, seconds: float, seed: int | None = None, matches: int | None = None
) -> BenchResult:
    """Play whole random matches for about ``seconds`` (or exactly ``matches`` of them: a
    fixed amount of work, for instruction counts); return the rates."""
    rng = random.Random(seed)
    randbelow = rng._randbelow  # type: ignore[attr-defined]
    hands = played = actions = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while True:
        game = Game(rules, first_mano=randbelow(rules.players), dealer=StreamDealer(rng))
        actors = game.actors
        legal_actions = game.legal_actions
        apply = game.push
        while game.winner is None:
            seats = actors()
            seat = seats[0] if len(seats) == 1 else seats[randbelow(len(seats))]
            legal = legal_actions(seat, False)
            count = len(legal)
            if count > 1 and legal[-1] == MAZO:
                count -= 1
            apply(seat, legal[randbelow(count)])
            actions += 1
        hands += len(game.history)
        played += 1
        if (played == matches) if matches is not None else clock() >= deadline:
            break
    elapsed = clock() - start
    return BenchResult(
        players=rules.players,
        flor=rules.flor,
        hands_per_s=hands / elapsed,
        matches_per_s=played / elapsed,
        us_per_action=elapsed / actions * 1e6,
    )


def median_result(results: list[BenchResult]) -> BenchResult:
    first = results[0]
    return BenchResult(
        players=first.players,
        flor=first.flor,
        hands_per_s=statistics.median(r.hands_per_s for r in results),
        matches_per_s=statistics.median(r.matches_per_s for r in results),
        us_per_action=statistics.median(r.us_per_action for r in results),
    )


def positive_seconds(text: str) -> float:
    """``--seconds``: a number of seconds greater than 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text}")
    return value


def positive_runs(text: str) -> int:
    """``--runs``: a whole number of runs, at least 1 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of runs: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"needs at least 1 run, got {text}")
    return value


def bench_tables(players: list[int] | None, flor_only: bool | None) -> list[Rules]:
    """The tables a bench plays: every size asked (default all three), sin and con flor
    (only con flor with ``--flor``)."""
    flors = [True] if flor_only else [False, True]
    return [Rules(players=n, flor=flor) for n in players or [2, 4, 6] for flor in flors]


def run_bench(args: argparse.Namespace) -> int:
    """``truco bench``: a header with the total duration, one line per table as it
    finishes (progress on standard error with ``--json``), then the JSON list if asked."""
    tables = bench_tables(args.players, args.flor)
    total = len(tables) * args.runs * args.seconds
    print(
        f"truco bench: {len(tables)} table(s) x {args.runs} run(s) x {args.seconds:g} s "
        f"= about {total:g} s; median of the runs per table",
        file=sys.stderr,
        flush=True,
    )
    results = []
    for number, rules in enumerate(tables, start=1):
        runs = [
            play_random_matches(rules, args.seconds, None if args.seed is None else args.seed + i)
            for i in range(args.runs)
        ]
        result = median_result(runs)
        results.append(result)
        line = (
            f"{rules.describe():<22} {result.hands_per_s:>10,.0f} hands/s "
            f"{result.matches_per_s:>8,.1f} matches/s {result.us_per_action:>6.2f} µs/action"
        )
        if args.json:
            print(f"[{number}/{len(tables)}] {line}", file=sys.stderr, flush=True)
        else:
            print(line, flush=True)
    if args.json:
        print(json.dumps([asdict(r) for r in results]))
    return 0
