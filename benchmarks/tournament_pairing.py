"""How long a tournament's pairing takes: a Swiss round and an arena wave, by entrants.

    python benchmarks/tournament_pairing.py [--entrants 16 64 256] [--rounds 7] [--runs 5]

For each size, plays ``--rounds`` Swiss rounds with random results (seeded) and times each
``swiss_round``, and times ``arena_pairs`` of everyone free at once (random points and
last rivals); prints the medians over every round of every run (milliseconds), and a JSON
line at the end. The director pairs in a thread of its own (the event loop never waits).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from truco.server.lobby.tournaments.matching import (
    ArenaEntrant,
    Game,
    arena_pairs,
    swiss_entrants,
    swiss_round,
    swiss_standings,
)


def swiss_times(n: int, rounds: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    ids = [f"p{i:04d}" for i in range(n)]
    games: list[Game] = []
    byes: list[str] = []
    times = []
    for _ in range(rounds):
        entrants = swiss_entrants(swiss_standings(ids, games, byes))
        start = time.perf_counter()
        chosen = swiss_round(entrants)
        times.append(time.perf_counter() - start)
        games += [Game(a, b, rng.choice((a, b))) for a, b in chosen.pairs]
        byes += [chosen.bye] if chosen.bye else []
    return times


def arena_time(n: int, seed: int) -> float:
    rng = random.Random(seed)
    ids = [f"p{i:04d}" for i in range(n)]
    free = [ArenaEntrant(x, rng.randrange(40), rng.choice(ids), rng.randrange(-2, 3)) for x in ids]
    start = time.perf_counter()
    arena_pairs(free)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entrants", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = []
    for n in args.entrants:
        swiss = [t for run in range(args.runs) for t in swiss_times(n, args.rounds, run)]
        arena = [arena_time(n, run) for run in range(args.runs)]
        line = {
            "entrants": n,
            "swiss_round_ms": round(1000 * statistics.median(swiss), 2),
            "swiss_round_max_ms": round(1000 * max(swiss), 2),
            "arena_pairs_ms": round(1000 * statistics.median(arena), 2),
        }
        results.append(line)
        print(
            f"{n:4d} entrants: Swiss round {line['swiss_round_ms']} ms "
            f"(max {line['swiss_round_max_ms']}), arena wave {line['arena_pairs_ms']} ms"
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
