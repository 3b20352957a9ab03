"""Cluster benchmark: N ``truco serve`` nodes on 127.0.0.1 with the real PostgreSQL and Redis,
and a load generator in processes of its own, playing many 1v1 tables at a human pace.

Every table's two players connect to nodes picked at random (so about half the tables are
played across two nodes), each table is created on a node in turn (which runs it), and each
table gets ``--rate`` actions a second; a finished match is replaced by a new table of the same
two players. For each table count asked, once every table is seated and has settled, one
measuring window reports: actions/s, p50/p99 from sending an action to *every* seat of the
table receiving it, errors, and the CPU per action of the nodes, of the load generator, of
Redis and of PostgreSQL (all on the same machine: their sum is what one action costs it).

``--tables 200,400,600`` measures each count in turn on the same nodes (tables are added
between the windows); ``--find-max`` adds ``--step`` tables after each window until one misses
``--p99-ms`` or has an error, and prints the most tables held within it. ``--runs 3`` repeats
everything and prints the medians. ``--profile DIR`` records each node and loader with py-spy
during the windows (the thread holding the GIL: where the CPU goes).

``--pause-redis 10`` runs the site on a private ``redis-server`` of its own
(``--private-redis-port``, 6390) and stops it with SIGSTOP for 10 s after the first half of
the window (then SIGCONT), the window then going on for as long again: Redis there, away and
back. Reported for each of the three phases: actions/s, p50/p99 and errors, the same for the
tables whose seats are all on the node that runs them (nothing of theirs crosses Redis), and
the nodes' RSS at the phase's end; then acknowledged actions lost, as for ``--kill-one``.

``--kill-one`` SIGKILLs one node halfway through the window. Its players reconnect to another
node and resync by version; its tables are taken over by the others. Reported: the takeover
time (from the kill until each of its tables delivers an action again: median and max), and
acknowledged actions lost: every action a player saw acknowledged is looked up in the database
(the stored record of its table) once the nodes have stopped; the goal is 0.

    .venv/bin/python benchmarks/cluster.py --nodes 1 --tables 1000 --runs 3
    .venv/bin/python benchmarks/cluster.py --nodes 2 --tables 200 --find-max --step 200
    .venv/bin/python benchmarks/cluster.py --nodes 3 --tables 150 --seconds 20 --kill-one
    .venv/bin/python benchmarks/cluster.py --nodes 2 --tables 100 --seconds 20 --pause-redis 10
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import multiprocessing as mp
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from loadgen import Action, loader_main
from measure import cpu_seconds, percentile, profile

PG_DSN = "host=127.0.0.1 port=5432 dbname=test user=postgres"
PG_BASE = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


# ---------------------------------------------------------------- the load generator
# (its processes run loadgen.loader_main; what they share with this one:)
@dataclass
class Shared:
    """What the main process and the loaders share (multiprocessing objects)."""

    target: Any  # mp.Value: the site's table count asked now (loaders split it)
    window: Any  # mp.Value: the measuring window open now (0: none)
    stopping: Any  # mp.Event
    ready: Any  # mp.Semaphore: a loader's share of the target is seated
    killed: Any  # mp.Value: the time of the kill (0: none)
    dead: Any  # mp.Value: index of the killed node (-1: none)
    measured: Any  # mp.Queue: each loader's figures of each window, when it closes
    results: Any  # mp.Queue: each loader's failover figures, at the end


# ---------------------------------------------------------------- the nodes
def postgres_cpu() -> float:
    """CPU of every PostgreSQL process of the machine so far (its backends come and go: a
    window's figure is the difference, and includes other clients' work, if any)."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "postgres":
                    continue
            total += cpu_seconds(int(pid))
        except (OSError, ValueError):
            continue  # gone meanwhile
    return total


def redis_cpu(redis: Any) -> float:
    info = redis.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def start_node(
    db: str, redis_url: str, prefix: str, port: int, tables: int, stalls: str | None = None
) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "truco.cli", "serve", "--port", str(port), "--db", db,
        "--redis", redis_url, "--redis-prefix", prefix, "--turn-seconds", "0", "--bot-delay", "0",
        "--max-tables", str(tables * 2), "--http-rate", "1000000/minute",
        "--http-write-rate", "1000000/minute", "--max-tables-per-address", str(tables * 4),
        "--reconnect-seconds", "60", "--bot-workers", "1",
        "--max-sockets-per-address", "0", "--max-sockets-per-player", "0",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if stalls:  # the node's stall probe (truco.server.pauses.StallProbe)
        env["TRUCO_STALLS"] = os.path.join(stalls, f"node-{port}.jsonl")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, env=env, preexec_fn=_stop_with_benchmark
    )
    assert process.stdout is not None
    for line in process.stdout:
        if "open http" in line:
            return process
    raise RuntimeError(f"node on port {port} did not start")


def _stop_with_benchmark() -> None:
    """(In a node, before it runs.) SIGTERM it when the benchmark dies, even of a SIGKILL
    or a ``timeout``: no node is left writing to a schema the next run drops (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG


def stored_actions(db: str) -> dict[str, list[Action]]:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
    from truco.server.storage.store import Store

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


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2, help="node processes (default 2)")
    parser.add_argument(
        "--tables",
        default="1000",
        help="concurrent tables (default 1000); a list (200,400,600) measures each in turn on "
        "the same nodes, adding tables between the windows",
    )
    parser.add_argument(
        "--find-max",
        action="store_true",
        help="add --step tables after each window (from the first --tables) until a window "
        "misses --p99-ms or has an error; report the last one within",
    )
    parser.add_argument("--step", type=int, default=100, help="tables added by --find-max (100)")
    parser.add_argument("--p99-ms", type=float, default=50.0, help="--find-max's bound (50)")
    parser.add_argument("--rate", type=float, default=1.0, help="actions a table a second (1)")
    parser.add_argument("--seconds", type=float, default=20.0, help="each measuring window (20)")
    parser.add_argument("--settle", type=float, default=3.0, help="unmeasured after seating (3)")
    parser.add_argument(
        "--loaders",
        type=int,
        default=1,
        help="load processes (default 1: one uvloop process plays 1000 tables on 1/5 of a core)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs; medians reported (1)")
    parser.add_argument("--port", type=int, default=8200, help="first node's port (8200)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--kill-one", action="store_true", help="SIGKILL a node halfway")
    parser.add_argument(
        "--pause-redis",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="SIGSTOP a private redis-server for SECONDS halfway through the window",
    )
    parser.add_argument(
        "--private-redis-port", type=int, default=6390, help="--pause-redis's Redis (6390)"
    )
    parser.add_argument("--profile", metavar="DIR", help="py-spy every node and loader (--gil)")
    parser.add_argument(
        "--native", action="store_true", help="--profile with C frames (the collector's, say)"
    )
    parser.add_argument(
        "--stalls",
        metavar="DIR",
        help="run each node's stall probe (TRUCO_STALLS): its collections and late loop turns "
        "over 20 ms, in DIR and summed up per window",
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per window")
    args = parser.parse_args()
    try:
        args.steps = [int(t) for t in str(args.tables).split(",")]
    except ValueError:
        parser.error("--tables: a number of tables, or a list of them (200,400,600)")
    if args.kill_one and (args.nodes < 2 or len(args.steps) > 1 or args.find_max):
        parser.error("--kill-one needs --nodes 2 or more, and one --tables")
    if args.pause_redis and (len(args.steps) > 1 or args.find_max or args.kill_one):
        parser.error("--pause-redis needs one --tables, without --find-max or --kill-one")
    if args.profile:
        os.makedirs(args.profile, exist_ok=True)
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


def run(args: argparse.Namespace, db: str, prefix: str) -> list[dict[str, Any]]:
    """Start the nodes and the loaders; for each table count, seat them, measure a window
    (killing a node halfway with ``--kill-one``); stop everything. The figures of each window."""
    import redis

    r = redis.Redis.from_url(args.redis)
    args.prefix = prefix
    ctx = mp.get_context("spawn")
    shared = Shared(
        ctx.Value("i", 0), ctx.Value("i", 0), ctx.Event(), ctx.Semaphore(0),
        ctx.Value("d", 0.0), ctx.Value("i", -1), ctx.Queue(), ctx.Queue(),
    )  # fmt: skip
    processes: list[subprocess.Popen[str]] = []
    windows: list[dict[str, Any]] = []
    most = 100_000 if args.find_max else max(args.steps)
    if args.stalls:
        os.makedirs(args.stalls, exist_ok=True)
    try:
        for i in range(args.nodes):
            processes.append(start_node(db, args.redis, prefix, args.port + i, most, args.stalls))
        urls = [f"http://127.0.0.1:{args.port + i}" for i in range(args.nodes)]
        loaders = [
            ctx.Process(
                target=loader_main,
                args=(urls, i, args.loaders, args.rate, checked(args), shared),
                daemon=True,
            )
            for i in range(args.loaders)
        ]
        for p in loaders:
            p.start()
        tables = args.steps[0]
        while True:
            window = measure(args, shared, processes, loaders, r, tables, len(windows) + 1)
            window.update(per_action(window))
            windows.append(window)
            emit(window, args.json)
            if args.find_max:
                if window["errors"] or (window["latency_ms_p99"] or 1e9) > args.p99_ms:
                    break
                tables += args.step
            elif len(windows) < len(args.steps):
                tables = args.steps[len(windows)]
            else:
                break
        shared.stopping.set()
        results = [shared.results.get(timeout=120) for _ in loaders]
        for p in loaders:
            p.join(60)
    finally:
        shared.stopping.set()
        stopping = time.perf_counter()
        for p in processes:  # SIGINT: each node commits and hands its tables back
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in processes:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                print(f"node {p.pid} still running 60 s after SIGINT: killed", flush=True)
                p.kill()
                p.wait()
        print(f"nodes stopped in {time.perf_counter() - stopping:.1f} s", flush=True)
    if args.kill_one:
        windows[-1].update(failover(results, windows[-1]["kill_at"], stored_actions(db)))
    elif checked(args):
        windows[-1]["acknowledged_actions_lost"] = lost_actions(results, stored_actions(db))
    return windows


def checked(args: argparse.Namespace) -> bool:
    """Whether the loaders keep what each seat saw, to look it up in the database."""
    return bool(args.kill_one or args.pause_redis)


def measure(
    args: argparse.Namespace,
    shared: Shared,
    nodes: list[subprocess.Popen[str]],
    loaders: list[Any],
    r: Any,
    tables: int,
    window: int,
) -> dict[str, Any]:
    """Seat ``tables`` tables, let them settle, measure one window: the loaders' latencies
    and errors, the CPU of the nodes, the loaders and Redis."""
    setup = time.perf_counter()
    shared.target.value = tables
    for _ in loaders:
        if not shared.ready.acquire(timeout=900):
            raise SystemExit(f"{tables} tables were not seated in 15 minutes")
    setup = time.perf_counter() - setup
    time.sleep(args.settle)
    live = [p for p in nodes if p.poll() is None]
    cpu0 = {p.pid: cpu_seconds(p.pid) for p in live + loaders}
    redis0 = redis_cpu(r)
    postgres0 = postgres_cpu()
    profiles = []
    if args.profile:
        named = [(f"node{i}", p.pid) for i, p in enumerate(live)]
        named += [(f"loader{i}", p.pid) for i, p in enumerate(loaders)]
        for name, pid in named:
            path = os.path.join(args.profile, f"{tables}-{name}.txt")
            profiles.append(profile(pid, path, args.seconds, native=args.native))
    shared.window.value = window
    start = time.perf_counter()
    wall = time.time()
    kill_at = 0.0
    used: dict[int, float] = {}
    if args.kill_one:
        time.sleep(args.seconds / 2)
        used[nodes[0].pid] = cpu_seconds(nodes[0].pid) - cpu0[nodes[0].pid]
        kill_at = time.perf_counter()
        shared.dead.value = 0
        shared.killed.value = kill_at  # (perf_counter is system-wide on Linux: the loaders' too)
        nodes[0].send_signal(signal.SIGKILL)
        nodes[0].wait()
        time.sleep(args.seconds / 2)
    phases: list[dict[str, Any]] = []
    if args.pause_redis:
        phases = pause_redis(args, shared, nodes, window, r)
    elif not args.kill_one:
        time.sleep(args.seconds)
    elapsed = time.perf_counter() - start
    shared.window.value = 0
    for pid in cpu0:
        if pid not in used:
            used[pid] = cpu_seconds(pid) - cpu0[pid]
    redis_used = redis_cpu(r) - redis0
    postgres_used = postgres_cpu() - postgres0
    load = os.getloadavg()[0]
    rss = [rss_mb(p.pid) for p in nodes if p.poll() is None]
    stalls = stalls_between(args.stalls, wall, time.time()) if args.stalls else None
    measured = [shared.measured.get(timeout=120) for _ in loaders for _ in phases or [0]]
    for phase in phases:
        phase.update(phase_figures([m for m in measured if m["window"] == phase["window"]]))
    for p in profiles:
        p.wait()
    values = [x for m in measured for x in m["latencies"]]
    errors: Counter[str] = Counter()
    for m in measured:
        errors.update(m["errors"])
    return {
        "window": window,
        "nodes": args.nodes,
        "tables": tables,
        "seconds": round(elapsed, 1),
        "setup_seconds": round(setup, 1),
        "actions": sum(m["actions"] for m in measured),
        "latency_ms_p50": percentile(values, 0.50),
        "latency_ms_p99": percentile(values, 0.99),
        "latency_ms_max": percentile(values, 1.0),
        "errors": sum(errors.values()),
        "error_codes": dict(errors),
        "node_cpu_seconds": round(sum(used[p.pid] for p in nodes if p.pid in used), 2),
        "loader_cpu_seconds": round(sum(used[p.pid] for p in loaders), 2),
        "redis_cpu_seconds": round(redis_used, 2),
        "postgres_cpu_seconds": round(postgres_used, 2),
        "load_average_1min": round(load, 2),
        "node_rss_mb": rss,
        **({"stalls": stalls} if stalls is not None else {}),
        "kill_at": kill_at,
        **({"phases": phases} if phases else {}),
    }


def pause_redis(
    args: argparse.Namespace,
    shared: Shared,
    nodes: list[subprocess.Popen[str]],
    first: int,
    r: Any,
) -> list[dict[str, Any]]:
    """The window in three phases (each a loader window of its own, ``first`` to
    ``first + 2``): Redis answering for half of ``--seconds``, stopped (SIGSTOP) for
    ``--pause-redis`` seconds, answering again (SIGCONT) for half of ``--seconds``. At the
    end of each phase Redis answering: the tables the site lists as live (finished ones
    left listed while Redis was away are for the nodes' orphan sweep to remove)."""
    process: subprocess.Popen[bytes] = args.private_redis
    phases = []
    for n, (name, seconds) in enumerate(
        (("before", args.seconds / 2), ("paused", args.pause_redis), ("after", args.seconds / 2))
    ):
        shared.window.value = first + n
        if name == "paused":
            process.send_signal(signal.SIGSTOP)
        elif name == "after":
            process.send_signal(signal.SIGCONT)
        began = time.perf_counter()
        time.sleep(seconds)
        phases.append(
            {
                "phase": name,
                "window": first + n,
                "seconds": round(time.perf_counter() - began, 1),
                "node_rss_mb": [rss_mb(p.pid) for p in nodes if p.poll() is None],
                "listed_tables": None if name == "paused" else r.scard(f"{args.prefix}tables"),
            }
        )
    return phases


def phase_figures(measured: list[dict[str, Any]]) -> dict[str, Any]:
    """A phase's figures from what the loaders measured in it."""
    values = [x for m in measured for x in m["latencies"]]
    local = [x for m in measured for x in m["local_latencies"]]
    errors: Counter[str] = Counter()
    for m in measured:
        errors.update(m["errors"])
    return {
        "actions": len(values),
        "latency_ms_p50": percentile(values, 0.50),
        "latency_ms_p99": percentile(values, 0.99),
        "local_actions": len(local),
        "local_latency_ms_p50": percentile(local, 0.50),
        "local_latency_ms_p99": percentile(local, 0.99),
        "errors": dict(errors),
    }


@contextlib.contextmanager
def private_redis(port: int) -> Iterator[subprocess.Popen[bytes]]:
    """A ``redis-server`` of this run's own on ``port`` (no persistence), always resumed
    and stopped afterwards."""
    import redis

    with tempfile.TemporaryDirectory(prefix="truco-redis-") as directory:
        process = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", directory],
            stdout=subprocess.DEVNULL, preexec_fn=_stop_with_benchmark,
        )  # fmt: skip
        try:
            client = redis.Redis(port=port, socket_timeout=0.5)
            for _ in range(100):
                with contextlib.suppress(redis.RedisError):
                    if client.ping():
                        break
                time.sleep(0.05)
            else:
                raise RuntimeError(f"redis-server on port {port} did not start")
            client.close()
            yield process
        finally:
            process.send_signal(signal.SIGCONT)
            process.terminate()
            process.wait(10)


def rss_mb(pid: int) -> float:
    """A process's resident memory now, in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def stalls_between(directory: str, start: float, end: float) -> dict[str, Any]:
    """What the nodes' stall probes wrote during a window: the collections longer than 20 ms
    (count, total and longest ms per generation), every collection (count, wall ms, CPU ms per
    generation, from the probes' 5 s totals), the loop's late turns (count, total,
    longest) and the stacks seen most while it was late."""
    gcs: dict[str, list[float]] = {}
    loops: list[float] = []
    stacks: Counter[str] = Counter()
    totals: dict[str, list[Any]] = {}
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        mine = [x for x in lines if start <= x["t"] <= end]
        for x in mine:
            if x["kind"] == "gc":
                gcs.setdefault(str(x["gen"]), []).append(x["ms"])
            elif x["kind"] == "loop":
                loops.append(x["ms"])
                stacks.update(x["stacks"])
        ticks = [x for x in lines if x["kind"] == "totals"]
        before = [x for x in ticks if x["t"] <= start] or ticks[:1]
        after = [x for x in ticks if x["t"] <= end] or ticks[-1:]
        if before and after:  # every collection in the window (from the 5 s totals)
            end_, start_ = after[-1]["gc"], before[-1]["gc"]
            totals[name] = [
                (g, *(round(a - b) for a, b in zip(end_[g], start_[g], strict=True)))
                for g in ("0", "1", "2")
            ]
    return {
        "gc_over_20ms": {g: [len(v), round(sum(v)), max(v)] for g, v in sorted(gcs.items())},
        "gc_all": totals,
        "late_over_20ms": [len(loops), round(sum(loops)), max(loops, default=0)],
        "late_stacks": dict(stacks.most_common(8)),
    }


def per_action(window: dict[str, Any]) -> dict[str, Any]:
    """Rates and CPU per action of a window."""
    actions = max(1, window["actions"])
    return {
        "actions_per_second": round(window["actions"] / window["seconds"], 1),
        "node_cpu_ms_per_action": round(1000 * window["node_cpu_seconds"] / actions, 3),
        "loader_cpu_ms_per_action": round(1000 * window["loader_cpu_seconds"] / actions, 3),
        "redis_cpu_ms_per_action": round(1000 * window["redis_cpu_seconds"] / actions, 3),
        "postgres_cpu_ms_per_action": round(1000 * window["postgres_cpu_seconds"] / actions, 3),
    }


def emit(window: dict[str, Any], as_json: bool) -> None:
    """A window's figures as soon as it ends."""
    shown = {k: v for k, v in window.items() if k != "kill_at"}
    print(json.dumps(shown) if as_json else f"window {json.dumps(shown)}", flush=True)


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


def _stop_once(*_: Any) -> None:
    """SIGTERM: stop (the finally blocks stop the nodes and drop the schema); a second one
    (``timeout`` signals the whole group) must not cut that cleanup short."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(143)


def main() -> int:
    args = parse_args()
    # a stopped benchmark stops its nodes and loaders too (the finally blocks run)
    signal.signal(signal.SIGTERM, _stop_once)
    runs = []
    stack = contextlib.ExitStack()
    if args.pause_redis:
        args.private_redis = stack.enter_context(private_redis(args.private_redis_port))
        args.redis = f"redis://127.0.0.1:{args.private_redis_port}/0"
    with stack:
        for _ in range(args.runs):
            runs.append(one_run(args))
            report(runs[-1], args)
    if args.runs > 1:
        report_medians(runs, args)
    return 0


def one_run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One run on a schema and Redis prefix of its own."""
    with site(args) as (db, prefix):
        schema = f"from truco.server.storage.store import Store; Store({db!r}).secret_key()"
        # the schema once, before the nodes start together
        subprocess.run([sys.executable, "-c", schema], check=True)
        return run(args, db, prefix)


COLUMNS = [
    ("tables", "tables"),
    ("actions_per_second", "actions/s"),
    ("latency_ms_p50", "p50 ms"),
    ("latency_ms_p99", "p99 ms"),
    ("errors", "errors"),
    ("node_cpu_ms_per_action", "node CPU ms/action"),
    ("loader_cpu_ms_per_action", "loader CPU ms/action"),
    ("redis_cpu_ms_per_action", "Redis CPU ms/action"),
    ("postgres_cpu_ms_per_action", "PostgreSQL CPU ms/action"),
    ("load_average_1min", "load"),
]


def report(windows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """One run: a table of its windows (the failover figures), --find-max's answer."""
    print(f"\n{args.nodes} node(s), {args.rate:g} action/s a table, {args.seconds:g} s windows")
    print(" | ".join(title for _, title in COLUMNS))
    for window in windows:
        print(" | ".join(str(window[key]) for key, _ in COLUMNS))
    last = windows[-1]
    failover = {k: v for k, v in last.items() if k.startswith(("killed", "tables_", "takeover"))}
    for key in ("reconnects", "acknowledged_actions_lost"):
        if key in last:
            failover[key] = last[key]
    for phase in last.get("phases", []):  # --pause-redis
        print(json.dumps({k: v for k, v in phase.items() if k != "window"}))
    if failover:
        print(json.dumps({**failover, "error_codes": last["error_codes"]}))
    if args.find_max:
        print(json.dumps({"max_tables_within_p99": max_within(windows, args.p99_ms)}))


def max_within(windows: list[dict[str, Any]], bound: float) -> int | None:
    """The most tables of a window with p99 <= ``bound`` ms and no error (None: none)."""
    ok = [
        w["tables"]
        for w in windows
        if not w["errors"] and w["latency_ms_p99"] is not None and w["latency_ms_p99"] <= bound
    ]
    return max(ok, default=None)


def report_medians(runs: list[list[dict[str, Any]]], args: argparse.Namespace) -> None:
    """Medians over the runs, window by window (the windows every run had)."""
    print(f"\nmedians of {len(runs)} runs")
    print(" | ".join(title for _, title in COLUMNS))
    for step in range(min(len(windows) for windows in runs)):
        row = []
        for key, _ in COLUMNS:
            values = [w[step][key] for w in runs if w[step][key] is not None]
            row.append(str(round(statistics.median(values), 2)) if values else "-")
        print(" | ".join(row))
    if args.find_max:
        found = [max_within(windows, args.p99_ms) or 0 for windows in runs]
        print(json.dumps({"max_tables_within_p99": found, "median": statistics.median(found)}))


if __name__ == "__main__":
    sys.exit(main())
