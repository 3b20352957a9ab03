"""Load benchmark of the online table: many concurrent bot-only tables through the real
WebSocket server on 127.0.0.1.

The server runs as its own process (``truco serve`` on a free port, no turn clock, no
bot delay). This process plays every seat of every table as a WebSocket client that
picks a random legal action from its own view, and keeps ``--tables`` matches going
at once (a finished match is replaced by a new table). Reported: tables held, matches
finished, actions per second, and the latency from sending an action to each seat
receiving the broadcast that contains it (p50/p99), and the server's CPU time. The load
generator shares the machine with the server, so the latency includes its own queueing.

    .venv/bin/python benchmarks/server_load.py --tables 40 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import httpx
import websockets


@dataclass
class Stats:
    actions: int = 0
    matches: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    sent: dict[tuple[str, int, int, str], float] = field(
        default_factory=dict
    )  # (table, seat, hand, action) -> t0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def seat_player(
    url: str,
    table: str,
    token: str,
    seat: int,
    stats: Stats,
    rng: random.Random,
    done: asyncio.Event,
    stop: asyncio.Event,
) -> None:
    """One seat: sit, then act at random from the legal actions until the match ends."""
    async with websockets.connect(f"{url}/ws/{table}", max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.send(json.dumps({"type": "sit", "seat": seat}))
        last_acted_version = -1
        while not done.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 10)
            except TimeoutError:
                if not stop.is_set():
                    stats.errors += 1
                    stats.error_codes["timeout"] = stats.error_codes.get("timeout", 0) + 1
                return
            now = time.perf_counter()
            msg = json.loads(raw)
            if msg["type"] == "error":
                stats.errors += 1
                stats.error_codes[msg["code"]] = stats.error_codes.get(msg["code"], 0) + 1
                last_acted_version = -1
                continue
            if msg["type"] != "state":
                continue
            for event in msg["events"]:
                if event["kind"] == "action":
                    t0 = stats.sent.get((table, event["seat"], event["hand"], event["action"]))
                    if t0 is not None:
                        stats.latencies.append(now - t0)
                    if event["seat"] == seat:
                        stats.actions += 1
                elif event["kind"] == "over":
                    if seat == 0:
                        stats.matches += 1
                    done.set()
            view = msg["view"]
            if view is None or view["winner"] is not None:
                if view is not None and view["winner"] is not None:
                    done.set()
                continue
            legal = [a for a in view["legal"] if not a.startswith("say ")]
            if view["pending"] and view["actors"] and view["actors"][0] != seat:
                legal = []  # one partner answers a call for the team
            if legal and msg["v"] != last_acted_version and not stop.is_set():
                action = rng.choice(legal)
                stats.sent[(table, seat, view["hand_index"], action)] = time.perf_counter()
                last_acted_version = msg["v"]
                await ws.send(json.dumps({"type": "act", "action": action}))


async def one_table(
    http: httpx.AsyncClient,
    url: str,
    players: int,
    stats: Stats,
    rng: random.Random,
    stop: asyncio.Event,
) -> None:
    tokens = []
    for s in range(players):
        r = await http.post("/api/guest", json={"name": f"bench{s}"})
        tokens.append(r.json()["token"])
    r = await http.post(
        "/api/tables",
        json={
            "rules": {"players": players, "target": 15},
            "name": "bench",
            "turn_seconds": 0,
        },
        headers={"Authorization": f"Bearer {tokens[0]}"},
    )
    table = r.json()["id"]
    done = asyncio.Event()
    await asyncio.gather(
        *(
            seat_player(url, table, tokens[s], s, stats, random.Random(rng.random()), done, stop)
            for s in range(players)
        )
    )


async def keep_tables(
    base: str, tables: int, players: list[int], seconds: float, stats: Stats
) -> float:
    url = base.replace("http", "ws", 1)
    stop = asyncio.Event()
    rng = random.Random(1)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:

        async def lane(i: int) -> None:
            while not stop.is_set():
                await one_table(http, url, players[i % len(players)], stats, rng, stop)

        start = time.perf_counter()
        lanes = [asyncio.create_task(lane(i)) for i in range(tables)]
        await asyncio.sleep(seconds)
        stop.set()
        elapsed = time.perf_counter() - start
        for task in lanes:
            task.cancel()
        await asyncio.gather(*lanes, return_exceptions=True)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tables", type=int, default=40, help="concurrent tables to keep (default 40)"
    )
    parser.add_argument(
        "--players",
        type=int,
        action="append",
        choices=(2, 4, 6),
        help="table sizes (default 2 and 4)",
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to run (default 20)")
    parser.add_argument("--db", default=None, help="database URL (default a fresh SQLite file)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="run the server under cProfile and write its stats to FILE",
    )
    args = parser.parse_args()
    players = args.players or [2, 4]
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="truco-bench-")
    db = args.db or f"sqlite:///{tmp}/bench.sqlite3"
    server = subprocess.Popen(
        [sys.executable, *(["-m", "cProfile", "-o", args.profile] if args.profile else []), "-m", "truco.cli", "serve", "--port", str(port), "--db", db, "--turn-seconds", "0",
         "--bot-delay", "0", "--max-tables", str(args.tables * 4),
         # one address plays every seat here: lift the per-address limits
         "--http-rate", "1000000/minute", "--http-write-rate", "1000000/minute",
         "--max-tables-per-address", str(args.tables * 4)],
        stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(f"{base}/api/options", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        stats = Stats()
        elapsed = asyncio.run(keep_tables(base, args.tables, players, args.seconds, stats))
    finally:
        server.send_signal(2)  # SIGINT: a clean shutdown (and the profile written)
        server.wait(30)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu = usage.ru_utime + usage.ru_stime  # includes start-up (imports) and shutdown
    lat = sorted(stats.latencies)

    def pct(p: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

    result = {
        "tables_held": args.tables,
        "table_sizes": players,
        "seconds": round(elapsed, 1),
        "matches_finished": stats.matches,
        "actions": stats.actions,
        "actions_per_second": round(stats.actions / elapsed, 1),
        "deliveries_measured": len(lat),
        "latency_ms_p50": round(pct(0.50), 2),
        "latency_ms_p99": round(pct(0.99), 2),
        "latency_ms_mean": round(1000 * statistics.fmean(lat), 2) if lat else None,
        "server_cpu_seconds": round(server_cpu, 2),
        "server_cpu_ms_per_action": round(1000 * server_cpu / max(1, stats.actions), 3),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "errors": stats.errors,
        "error_codes": stats.error_codes,
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>22}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
