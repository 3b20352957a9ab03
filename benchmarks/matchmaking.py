"""How long one pairing round of a quick-match queue takes (``server/matchmaking.py``).

    python benchmarks/matchmaking.py [--players 200 1000 5000] [--runs 9]

For each queue size and mode, ``--runs`` rounds of :func:`~truco.server.lobby.matchmaking.pair`
over the same tickets (ratings ~ N(1500, 200), waits of 0 to 30 s); prints the median time
of a round, how many tables it formed, and the load average (the machine is shared: say it
with the figures).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from truco.server.lobby.matchmaking import QueueKey, Ticket, pair


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[200, 1000, 5000])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    for players in args.players:
        for name in ("1v1-sinflor-15-rated", "2v2-flor-30-rated", "3v3-sinflor-30-rated"):
            rng = random.Random(players)
            tickets = [
                Ticket(f"p{i}", f"p{i}", rng.gauss(1500, 200), rng.uniform(0, 30))
                for i in range(players)
            ]
            key = QueueKey.parse(name)
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                tables = pair(key, tickets, now=30.0)
                times.append(time.perf_counter() - start)
            median = statistics.median(times) * 1000
            print(
                f"{players:>6} waiting  {name:<22} {median:8.1f} ms a round  {len(tables)} tables"
            )
    print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
