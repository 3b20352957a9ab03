"""Cluster benchmark: N ``truco serve`` nodes on 127.0.0.1 with the real PostgreSQL and Redis,
and a load generator in processes of its own, playing many 1v1 tables at a human pace.

Every table's two players connect to nodes picked at random (so about half the tables are
played across two nodes), each table is created on a node in turn (which runs it), and each
table gets ``--rate`` actions a second. Reported, over the measuring window (after every table
is seated): tables held, actions/s, p50/p99 from sending an action to *every* seat of the table
receiving it, errors, and the nodes' CPU per action (Redis's own CPU beside it).

``--kill-one`` SIGKILLs one node halfway through the window. Its players reconnect to another
node and resync by version; its tables are taken over by the others. Reported: the takeover
time (from the kill until each of its tables delivers an action again: median and max), and
acknowledged actions lost: every action a player saw acknowledged is looked up in the database
(the stored record of its table) once the nodes have stopped; the goal is 0.

    .venv/bin/python benchmarks/cluster.py --nodes 2 --tables 1000 --seconds 30
    .venv/bin/python benchmarks/cluster.py --nodes 3 --tables 300 --seconds 30 --kill-one
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookiejar import DefaultCookiePolicy
from typing import Any

PG_DSN = "host=127.0.0.1 port=5432 dbname=test user=postgres"
PG_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TICK = os.sysconf("SC_CLK_TCK")

Action = tuple[int, int, str]  # hand, seat, token


# ---------------------------------------------------------------- the load generator
@dataclass
class Loader:
    """One load-generator process: its tables, and what it measured."""

    nodes: list[str]
    rate: float
    measuring: Any  # mp.Event: the window is open
    stopping: Any  # mp.Event
    killed: Any  # mp.Value: the time of the kill (0: none)
    dead: Any  # mp.Value: index of the killed node (-1: none)
    tables: int
    seated: asyncio.Event = field(default_factory=asyncio.Event)
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    # table -> seat -> the actions the seat saw, by version; its own ones are acknowledged
    seen: dict[str, dict[int, dict[int, Action]]] = field(default_factory=dict)
    owner: dict[str, int] = field(default_factory=dict)  # table -> node it was created on
    finished: set[str] = field(default_factory=set)
    back: dict[str, float] = field(default_factory=dict)  # table -> first action after the kill

    def error(self, code: str) -> None:
        if self.measuring.is_set() and not self.stopping.is_set():
            self.errors[code] += 1


@dataclass
class TableLoad:
    id: str
    seats: int
    next_at: float = 0.0
    pending: dict[tuple[int, int, str], tuple[float, set[int]]] = field(default_factory=dict)
    done: asyncio.Event = field(default_factory=asyncio.Event)


async def player(load: Loader, table: TableLoad, token: str, seat: int, rng: random.Random) -> None:
    import websockets

    node = rng.randrange(len(load.nodes))
    seen = load.seen.setdefault(table.id, {}).setdefault(seat, {})
    if len(load.seen) >= load.tables:
        load.seated.set()
    sat = False
    while not table.done.is_set() and not load.stopping.is_set():
        if node == load.dead.value:
            node = rng.choice([i for i in range(len(load.nodes)) if i != load.dead.value])
        try:
            async with websockets.connect(
                f"{load.nodes[node].replace('http', 'ws', 1)}/ws/{table.id}",
                max_size=None,
                open_timeout=20,
            ) as ws:
                since = max(seen, default=None)  # the last version seen (events skip none here)
                await ws.send(json.dumps({"type": "hello", "token": token, "since": since}))
                if not sat:
                    await ws.send(json.dumps({"type": "sit", "seat": seat}))
                    sat = True
                await _play(load, table, ws, seat, seen, rng)
                return
        except (OSError, websockets.ConnectionClosed, TimeoutError):
            if load.dead.value < 0:  # no node was killed: an error, then a reconnection
                load.error("disconnected")
            else:
                node = load.dead.value  # (replaced above by a live node)
            load.reconnects += 1
            await asyncio.sleep(0.05)


async def _play(
    load: Loader,
    table: TableLoad,
    ws: Any,
    seat: int,
    seen: dict[int, Action],
    rng: random.Random,
) -> None:
    acted, quiet = -1, 0.0
    while not table.done.is_set() and not load.stopping.is_set():
        try:
            raw = await asyncio.wait_for(ws.recv(), 3)
        except TimeoutError:  # an action unanswered (lost with a node): send it again
            quiet += 3
            if quiet >= 30:
                load.error("timeout")
                table.done.set()
                return
            await ws.send(json.dumps({"type": "sync", "since": max(seen, default=0)}))
            acted = -1
            continue
        quiet = 0.0
        now = time.perf_counter()
        msg = json.loads(raw)
        if msg["type"] == "error":
            load.error(msg["code"])
            acted = -1
            continue
        if msg["type"] != "state":
            continue
        for event in msg["events"]:
            if event["kind"] == "action":
                _delivered(load, table, seat, (event["hand"], event["seat"], event["action"]), now)
                seen[event["v"]] = (event["hand"], event["seat"], event["action"])
            elif event["kind"] == "over":
                load.finished.add(table.id)
                table.done.set()
        view = msg["view"]
        if view is None or view["winner"] is not None:
            continue
        legal = [a for a in view["legal"] if not a.startswith("say ")]
        if legal and msg["v"] != acted:
            acted = msg["v"]
            wait = table.next_at - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            action = rng.choice(legal)
            sent = time.perf_counter()
            table.next_at = sent + 1 / load.rate
            table.pending[(view["hand_index"], seat, action)] = (sent, set(range(table.seats)))
            await ws.send(json.dumps({"type": "act", "action": action}))


def _delivered(load: Loader, table: TableLoad, seat: int, action: Action, now: float) -> None:
    pending = table.pending.get(action)
    if pending is None:
        return
    sent, waiting = pending
    waiting.discard(seat)
    if not waiting:
        del table.pending[action]
        if 0 < load.killed.value < sent:  # the table's first action sent after the kill
            load.back.setdefault(table.id, now)
        if load.measuring.is_set() and not load.stopping.is_set():
            load.latencies.append(now - sent)
            load.actions += 1


async def lane(load: Loader, http: Any, index: int, rng: random.Random) -> None:
    """Keep one table going: a finished match is replaced by a new table."""
    while not load.stopping.is_set():
        tokens = []
        for s in range(2):
            r = await http.post(f"{load.nodes[0]}/api/guest", json={"name": f"bench{s}"})
            tokens.append(r.json()["token"])
        home = index % len(load.nodes)
        if home == load.dead.value:
            home = (home + 1) % len(load.nodes)
        r = await http.post(
            f"{load.nodes[home]}/api/tables",
            json={"rules": {"players": 2, "target": 15}, "name": "bench", "turn_seconds": 0},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
        if r.status_code != 201:
            load.error(f"create {r.status_code}")
            await asyncio.sleep(1)
            continue
        table = TableLoad(r.json()["id"], 2, next_at=time.perf_counter() + rng.random() / load.rate)
        load.owner[table.id] = home
        await asyncio.gather(
            *(player(load, table, tokens[s], s, random.Random(rng.random())) for s in range(2))
        )


def loader_main(nodes: list[str], tables: int, seed: int, rate: float, shared: Any) -> None:
    measuring, stopping, ready, killed, dead, results = shared

    async def run() -> None:
        import httpx

        load = Loader(nodes, rate, measuring, stopping, killed, dead, tables)
        rng = random.Random(seed)
        limits = httpx.Limits(max_connections=50)
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            # no session cookie: each guest request must make a new player
            http.cookies.jar.set_policy(DefaultCookiePolicy(allowed_domains=[]))
            lanes = [asyncio.create_task(lane(load, http, i, rng)) for i in range(tables)]
            await load.seated.wait()  # every table created and its players connecting
            ready.release()
            await asyncio.to_thread(stopping.wait)
            await asyncio.sleep(0.5)
            for task in lanes:
                task.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
        results.put(
            {
                "latencies": load.latencies,
                "actions": load.actions,
                "errors": dict(load.errors),
                "reconnects": load.reconnects,
                "seen": {
                    t: {str(s): list(v.values()) for s, v in seats.items()}
                    for t, seats in load.seen.items()
                },
                "finished": list(load.finished),
                "owner": load.owner,
                "back": load.back,
            }
        )

    asyncio.run(run())


# ---------------------------------------------------------------- the nodes
def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def redis_cpu(redis: Any) -> float:
    info = redis.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def start_node(
    db: str, redis_url: str, prefix: str, port: int, tables: int
) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "truco.cli", "serve", "--port", str(port), "--db", db,
        "--redis", redis_url, "--redis-prefix", prefix, "--turn-seconds", "0", "--bot-delay", "0",
        "--max-tables", str(tables * 2), "--http-rate", "1000000/minute",
        "--http-write-rate", "1000000/minute", "--max-tables-per-address", str(tables * 4),
        "--reconnect-seconds", "60", "--bot-workers", "1",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None
    for line in process.stdout:
        if "open http" in line:
            return process
    raise RuntimeError(f"node on port {port} did not start")


def stored_actions(db: str) -> dict[str, list[Action]]:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
    from truco.server.store import Store

    store = Store(db)
    rows = store.load(limit=1_000_000)
    store.engine.dispose()
    return {
        row.id: [
            (i, int(seat), str(token))
            for i, hand in enumerate((row.record or {"hands": []})["hands"])
            for seat, token in hand["actions"]
        ]
        for row in rows
    }


def lost_actions(results: list[dict[str, Any]], stored: dict[str, list[Action]]) -> int:
    """Actions a player saw acknowledged (its own, in a state) that the database does not hold."""
    lost = 0
    for result in results:
        for table, seats in result["seen"].items():
            have = Counter(tuple(a) for a in stored.get(table, []))
            for seat, actions in seats.items():
                mine = Counter(tuple(a) for a in actions if a[1] == int(seat))
                lost += sum(max(0, n - have[a]) for a, n in mine.items())
    return lost


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2, help="node processes (default 2)")
    parser.add_argument("--tables", type=int, default=1000, help="concurrent tables (default 1000)")
    parser.add_argument("--rate", type=float, default=1.0, help="actions a table a second (1)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measuring window (30)")
    parser.add_argument("--loaders", type=int, default=2, help="load processes (default 2)")
    parser.add_argument("--port", type=int, default=8200, help="first node's port (8200)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--kill-one", action="store_true", help="SIGKILL a node halfway")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.kill_one and args.nodes < 2:
        parser.error("--kill-one needs --nodes 2 or more")
    return args


@contextlib.contextmanager
def site(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    """A PostgreSQL schema and a Redis prefix of this run's own, removed afterwards."""
    import psycopg
    import redis

    schema = f"bench_cluster_{secrets.token_hex(4)}"
    prefix = f"bench-{secrets.token_hex(4)}:"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    db = f"{PG_BASE}?options=-csearch_path%3D{schema}"
    try:
        yield db, prefix
    finally:
        r = redis.Redis.from_url(args.redis)
        keys = list(r.scan_iter(f"{prefix}*", count=1000))
        if keys:
            r.delete(*keys)
        with psycopg.connect(PG_DSN, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def run(args: argparse.Namespace, db: str, prefix: str) -> dict[str, Any]:
    """Start the nodes and the loaders, measure the window (killing a node halfway with
    ``--kill-one``), stop everything; the figures."""
    import redis

    r = redis.Redis.from_url(args.redis)
    ctx = mp.get_context("spawn")
    measuring, stopping, ready = ctx.Event(), ctx.Event(), ctx.Semaphore(0)
    killed, dead = ctx.Value("d", 0.0), ctx.Value("i", -1)
    results_queue = ctx.Queue()
    shared = (measuring, stopping, ready, killed, dead, results_queue)
    processes: list[subprocess.Popen[str]] = []
    try:
        for i in range(args.nodes):
            processes.append(start_node(db, args.redis, prefix, args.port + i, args.tables))
        urls = [f"http://127.0.0.1:{args.port + i}" for i in range(args.nodes)]
        per = [
            args.tables // args.loaders + (i < args.tables % args.loaders)
            for i in range(args.loaders)
        ]
        loaders = [
            ctx.Process(target=loader_main, args=(urls, n, i, args.rate, shared))
            for i, n in enumerate(per)
        ]
        setup = time.perf_counter()
        for p in loaders:
            p.start()
        for _ in loaders:
            ready.acquire()
        setup = time.perf_counter() - setup
        time.sleep(2)  # let the first actions settle
        cpu0 = [cpu_seconds(p.pid) for p in processes]
        used = [0.0] * len(processes)
        redis0 = redis_cpu(r)
        measuring.set()
        start = time.perf_counter()
        kill_at = 0.0
        if args.kill_one:
            time.sleep(args.seconds / 2)
            used[0] = cpu_seconds(processes[0].pid) - cpu0[0]
            kill_at = time.perf_counter()
            dead.value = 0
            killed.value = kill_at  # (perf_counter is system-wide on Linux: the loaders' clock too)
            processes[0].send_signal(signal.SIGKILL)
            processes[0].wait()
            time.sleep(args.seconds / 2)
        else:
            time.sleep(args.seconds)
        elapsed = time.perf_counter() - start
        for i, p in enumerate(processes):
            if p.poll() is None:
                used[i] = cpu_seconds(p.pid) - cpu0[i]
        redis_used = redis_cpu(r) - redis0
        stopping.set()
        results = [results_queue.get(timeout=120) for _ in loaders]
        for p in loaders:
            p.join(60)
    finally:
        stopping.set()
        for p in processes:  # SIGINT: each node commits and hands its tables back
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in processes:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    result = figures(args, results, elapsed, setup, sum(used), redis_used)
    if args.kill_one:
        result.update(failover(results, kill_at, stored_actions(db)))
    return result


def figures(
    args: argparse.Namespace,
    results: list[dict[str, Any]],
    elapsed: float,
    setup: float,
    cpu: float,
    redis_used: float,
) -> dict[str, Any]:
    latencies = [x for res in results for x in res["latencies"]]
    actions = sum(res["actions"] for res in results)
    errors: Counter[str] = Counter()
    for res in results:
        errors.update(res["errors"])
    return {
        "nodes": args.nodes,
        "tables_held": args.tables,
        "rate_per_table": args.rate,
        "seconds": round(elapsed, 1),
        "setup_seconds": round(setup, 1),
        "actions": actions,
        "actions_per_second": round(actions / elapsed, 1),
        "latency_ms_p50": round(pct(latencies, 0.50), 2),
        "latency_ms_p99": round(pct(latencies, 0.99), 2),
        "errors": sum(errors.values()),
        "error_codes": dict(errors),
        "server_cpu_ms_per_action": round(1000 * cpu / max(1, actions), 3),
        "redis_cpu_ms_per_action": round(1000 * redis_used / max(1, actions), 3),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }


def failover(
    results: list[dict[str, Any]], kill_at: float, stored: dict[str, list[Action]]
) -> dict[str, Any]:
    """How the killed node's tables came back, and what the database kept."""
    theirs = [t for res in results for t, home in res["owner"].items() if home == 0]
    back = {t: at for res in results for t, at in res["back"].items()}
    finished = {t for res in results for t in res["finished"]}
    times = [back[t] - kill_at for t in theirs if t in back]
    return {
        "killed_node_tables": len(theirs),
        "tables_back": len(times),
        "tables_finished_before_back": len([t for t in theirs if t in finished and t not in back]),
        "tables_stalled": len([t for t in theirs if t not in finished and t not in back]),
        "takeover_s_median": round(statistics.median(times), 2) if times else None,
        "takeover_s_max": round(max(times), 2) if times else None,
        "reconnects": sum(res["reconnects"] for res in results),
        "acknowledged_actions_lost": lost_actions(results, stored),
    }


def main() -> int:
    args = parse_args()
    with site(args) as (db, prefix):
        subprocess.run(  # the schema once, before the nodes start together
            [
                sys.executable,
                "-c",
                f"from truco.server.store import Store; Store({db!r}).secret_key()",
            ],
            check=True,
        )
        result = run(args, db, prefix)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>28}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
