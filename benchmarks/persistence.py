"""What write-ahead costs per action: the latency and CPU a table's commit adds, on SQLite
(a file, WAL, synchronous=FULL) and PostgreSQL, for one table alone and for many at once
(group commit).

Each table is the server's own :class:`~truco.server.table.Table` with a random legal action
applied per round and the round published exactly as the actor does it (``_publish``: the
journal entry built, committed, then the broadcast, here to no client). The same loop
without a database is the baseline; the figures are the difference. Not included: the
WebSocket and the rest of the server (see ``server_load.py``), bots' thinking.

    .venv/bin/python benchmarks/persistence.py --actions 2000 --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from truco.actions import is_say
from truco.rules import Rules
from truco.server.config import ServerConfig
from truco.server.storage.store import Store
from truco.server.table import Seat, Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from databases import postgres_schema, postgres_unreachable, sqlite_url


def new_table(index: int, store: Store | None, config: ServerConfig) -> Table:
    table = Table(
        id=f"b{index}-{random.randrange(1 << 30):x}",
        name="bench",
        rules=Rules(players=2, target=30),
        config=config,
        store=store,
        seats=[Seat("bot", None, "a", "random"), Seat("bot", None, "b", "random")],
    )
    table.start_if_full()
    return table


async def play(
    index: int, store: Store | None, actions: int, rng: random.Random, latencies: list[float]
) -> None:
    """``actions`` rounds of one action each, tables replaced when their match ends."""
    config = ServerConfig(db_url="", bot_delay=0, turn_seconds=0)
    table = new_table(index, store, config)
    await table._publish()  # the table's first row (a checkpoint)
    for _ in range(actions):
        game = table.game
        assert game is not None
        if game.is_over:
            table = new_table(index, store, config)
            await table._publish()
            game = table.game
            assert game is not None
        seat = game.actors()[0]
        legal = [a for a in game.legal_actions(seat) if not is_say(a)]
        table._apply(seat, rng.choice(legal), "bench")
        start = time.perf_counter()
        await table._publish()
        latencies.append(time.perf_counter() - start)


async def measure(url: str | None, tables: int, actions: int) -> dict[str, Any]:
    store = None
    if url is not None:
        store = Store(url)
        await store.start()
    latencies: list[float] = []
    rng = random.Random(5)
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(play(i, store, actions, rng, latencies) for i in range(tables)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    transactions = store.transactions if store is not None else 0
    if store is not None:
        await store.close()
    total = tables * actions
    latencies.sort()
    return {
        "cpu_us_per_action": 1e6 * cpu / total,
        "wall_us_per_action": 1e6 * wall / total,
        "latency_ms_p50": 1e3 * latencies[len(latencies) // 2],
        "latency_ms_p99": 1e3 * latencies[int(0.99 * (len(latencies) - 1))],
        "actions_per_transaction": total / transactions if transactions else None,
    }


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        key: round(statistics.median(r[key] for r in runs), 3)
        for key in runs[0]
        if runs[0][key] is not None
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=2000, help="actions per table per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 20])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"])
    args = parser.parse_args()
    results: dict[str, Any] = {"load_average_1min_at_start": round(os.getloadavg()[0], 2)}
    with ExitStack() as stack:
        directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="truco-bench-")))
        urls: dict[str, str | None] = {"none": None}
        if "sqlite" in args.db:
            urls["sqlite"] = sqlite_url(directory, "bench.sqlite3")
        if "postgresql" in args.db:
            reason = postgres_unreachable()
            if reason:
                print(f"postgresql skipped: {reason}", file=sys.stderr)
            else:
                urls["postgresql"] = stack.enter_context(postgres_schema("truco_bench"))
        for tables in args.tables:
            actions = max(50, args.actions // tables)
            for name, url in urls.items():
                runs = [asyncio.run(measure(url, tables, actions)) for _ in range(args.runs)]
                results[f"{name}, {tables} table(s)"] = median_of(runs)
                print(f"{name}, {tables} table(s): {results[f'{name}, {tables} table(s)']}",
                      file=sys.stderr, flush=True)  # fmt: skip
    results["load_average_1min_at_end"] = round(os.getloadavg()[0], 2)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
