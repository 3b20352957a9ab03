"""Where should search bots think: a thread pool or a process pool?

For each kind of :class:`truco.server.table.bot_pool.BotPool` (and, as a baseline, deciding on
the event loop itself), a burst of search decisions from real mid-hand positions goes
through the pool while a ticker on the same event loop measures how late it wakes up
(the loop's lag is what every table's actor and every connection would feel). Reported
per kind, as the median over ``--runs``: the wall time of the burst, decisions per
second, and the loop's lag p50 / p99 / max. The process pool is started (and warmed)
before the timing, as the server does when a search bot is seated.

    .venv/bin/python benchmarks/bot_pool.py --decisions 24 --level search:medium --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from typing import Any

from truco.bots import make_bot
from truco.game import Game
from truco.rules import Rules
from truco.server.table.bot_pool import BotPool
from truco.view import seat_view


def positions(count: int, seed: int) -> list[tuple[Any, list[int], Rules]]:
    """Views of seats to act, a few moves into random 2v2 hands."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        game = Game(Rules(players=4), first_mano=rng.randrange(4))
        for _ in range(rng.randrange(0, 6)):
            seat = game.actors()[0]
            game.apply(seat, rng.choice(game.legal_actions(seat, megaphone=False)))
            if game.needs_deal or game.is_over:
                break
        if game.needs_deal or game.is_over:
            continue
        seat = game.actors()[0]
        legal = game.legal_actions(seat, megaphone=False)
        if len(legal) > 1:
            found.append((seat_view(game, seat), legal, game.rules))
    return found


async def burst(kind: str, level: str, work: list[Any], workers: int) -> dict[str, float]:
    bot = make_bot(level)
    lags: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            start = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(time.perf_counter() - start - 0.005)

    pool = None
    if kind != "inline":
        pool = BotPool(workers=workers, queue=len(work), seconds=600, kind=kind)  # type: ignore[arg-type]
        pool.warm([bot])
        await pool.decide(bot, *work[0])  # the workers are up before the timing
    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    start = time.perf_counter()
    if pool is None:
        for view, legal, rules in work:
            bot.choose(view, legal, rules)
            await asyncio.sleep(0)
    else:
        decisions = await asyncio.gather(*(pool.decide(bot, *w) for w in work))
        assert all(d.how == "pool" for d in decisions)
    wall = time.perf_counter() - start
    stop.set()
    await tick
    if pool is not None:
        pool.shutdown()
    lags.sort()
    return {
        "wall_s": wall,
        "decisions_per_s": len(work) / wall,
        "lag_p50_ms": 1000 * lags[len(lags) // 2],
        "lag_p99_ms": 1000 * lags[min(len(lags) - 1, int(len(lags) * 0.99))],
        "lag_max_ms": 1000 * lags[-1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=24)
    parser.add_argument("--level", default="search:medium")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = positions(args.decisions, args.seed)
    print(f"{args.decisions} x {args.level}, {args.workers} workers, medians of {args.runs} runs")
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min), cpus: {os.cpu_count()}")
    for kind in ("inline", "thread", "process"):
        runs = [asyncio.run(burst(kind, args.level, work, args.workers)) for _ in range(args.runs)]
        medians = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        shown = "  ".join(f"{k} {v:8.2f}" for k, v in medians.items())
        print(f"{kind:8} {shown}")
    print(f"load after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
