"""Load benchmark of the online table: many concurrent tables through the real WebSocket
server on 127.0.0.1, measuring what the server process itself spends per action.

The server runs as its own process (``truco serve`` on a free port, no turn clock, no bot
delay; ``--db none``: the same server with its tables not persisted, to see what the
database costs). The load generator runs in ``--load-processes`` processes of its own
(never on the server's event loop): each plays every seat of its share of the tables as
WebSocket clients that pick a random legal action from their own view, and keeps them
going (a finished match is replaced by a new table). After ``--warmup`` seconds, for
``--seconds``, it counts:

- actions played, and the server's CPU time in that window (``/proc/<pid>/stat``: user +
  system, every thread of the server) divided by them;
- latency from sending an action to *every* seat of the table having received it
  (p50/p99), and to each seat receiving it;
- errors: every error frame the server sends, and ``timeout`` (a seat that waits 10 s for
  a frame), but not an action refused because another seat's action on its way made it
  stale (random players race). Seats pace themselves under the documented rate limit and
  choose again after ``rate_limited``, so a correct server shows 0.

    .venv/bin/python benchmarks/server_load.py --tables 40 --seconds 20 --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx
import websockets
from measure import cpu_split, percentile, profile

from truco.refusals import CODES
from truco.view import apply_patch


@dataclass
class Stats:
    """What one load process saw in the measuring window ``[start, end]`` (``time.time()``)."""

    start: float
    end: float
    actions: int = 0
    matches: int = 0
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    seat_ms: list[float] = field(default_factory=list)  # action -> one seat received it
    table_ms: list[float] = field(default_factory=list)  # action -> every seat received it
    # (table, seat) -> (action, sent at); (table, version) -> [sent at, seats still to receive]
    pending: dict[tuple[str, int], tuple[str, float]] = field(default_factory=dict)
    arriving: dict[tuple[str, int], list[float]] = field(default_factory=dict)

    def in_window(self, now: float) -> bool:
        return self.start <= now <= self.end

    def error(self, code: str) -> None:
        self.errors += 1
        self.error_codes[code] = self.error_codes.get(code, 0) + 1

    def received(self, table: str, players: int, event: dict[str, Any], seat: int) -> None:
        """``seat`` got the action ``event``: one delivery, and maybe the table's last."""
        now = time.time()
        key = (table, event["v"])
        arriving = self.arriving.get(key)
        if arriving is None:
            sent = self.pending.get((table, event["seat"]))
            if sent is None or sent[0] != event["action"]:
                return
            arriving = self.arriving[key] = [sent[1], players]
        arriving[1] -= 1
        if not self.in_window(now):
            if arriving[1] == 0:
                del self.arriving[key]
            return
        self.seat_ms.append(1000 * (now - arriving[0]))
        if event["seat"] == seat:
            self.actions += 1
        if arriving[1] == 0:
            self.table_ms.append(1000 * (now - arriving[0]))
            del self.arriving[key]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def choose(view: dict[str, Any], seat: int, rng: random.Random) -> str | None:
    """A random legal action of the seat's view (no words; one partner answers a call)."""
    if view["winner"] is not None:
        return None
    if view["pending"] and view["actors"] and view["actors"][0] != seat:
        return None
    legal = [a for a in view["legal"] if not a.startswith("say ")]
    return rng.choice(legal) if legal else None


#: the server's limit on a connection's messages (docs/protocol.md): 10 a second, bursts of
#: 30; a seat paces itself a little under it, as a well-behaved client does
RATE, BURST = 9.5, 28
#: errors that are the random players' own race, not the server's fault: an action chosen
#: from a state that another seat's action (already on its way) made stale (the engine's
#: refusals, a card no longer held, a match that ended meanwhile)
RACES = frozenset(
    {code for code, entry in CODES.items() if entry.origin == "engine"}
    | {"card_committed", "not_playing"}
)


class Pace:
    """A seat's own token bucket, a little under the server's."""

    def __init__(self) -> None:
        self.tokens = float(BURST)
        self.stamp = time.monotonic()

    def wait(self) -> float:
        """Seconds to wait before the next message (a token is taken)."""
        now = time.monotonic()
        self.tokens = min(float(BURST), self.tokens + (now - self.stamp) * RATE)
        self.stamp = now
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0.0 else -self.tokens / RATE


def followed(last: dict[str, Any] | None, msg: dict[str, Any]) -> dict[str, Any] | None:
    """The state a frame leaves a seat in: a ``state`` frame itself, a ``patch`` applied
    to the state ``last`` (with the patch's events); None for another frame, or a patch
    that does not follow ``last``."""
    if msg["type"] == "state":
        return msg
    if msg["type"] != "patch" or last is None or msg["base"] != last["v"]:
        return None
    state = {**apply_patch(last, msg["set"]), "v": msg["v"]}
    state["events"] = msg["events"]
    return state


async def resync(ws: Any, msg: dict[str, Any], seen: int) -> None:
    """After a patch that does not follow the state held, ask for the whole state."""
    if msg["type"] == "patch":
        await ws.send(json.dumps({"type": "sync", "since": max(seen, 0)}))


async def seat_player(
    url: str, table: str, token: str, seat: int, players: int, stats: Stats, rng: random.Random
) -> None:
    """One seat: sit, then act at random from the legal actions until the match ends.

    Every error the server sends is counted except an action refused because another
    seat's action, already on its way, changed the table first (the refusal then comes
    after a newer state than the one the action was chosen from); ``timeout``: no frame
    for 10 s while the seat waits on the server."""
    async with websockets.connect(f"{url}/ws/{table}", max_size=None, compression=None) as ws:
        pace = Pace()
        for _ in range(2):  # the hello and the sit
            pace.wait()
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.send(json.dumps({"type": "sit", "seat": seat}))
        acted = -1  # the version the last action was chosen from
        seen = -1  # the newest version received
        last: dict[str, Any] | None = None  # the newest state

        async def act(state: dict[str, Any]) -> None:
            nonlocal acted
            view = state["view"]
            action = None if view is None else choose(view, seat, rng)
            if action is not None and state["v"] != acted and time.time() < stats.end:
                delay = pace.wait()
                if delay:
                    await asyncio.sleep(delay)
                stats.pending[(table, seat)] = (action, time.time())
                acted = state["v"]
                await ws.send(json.dumps({"type": "act", "action": action}))

        while True:
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            except TimeoutError:
                if time.time() < stats.end:
                    stats.error("timeout")
                return
            if msg["type"] == "error":
                if not (msg["code"] in RACES and seen > acted):
                    stats.error(msg["code"])
                if last is not None and (msg["code"] == "rate_limited" or seen == acted):
                    acted = -1  # refused: choose again from the newest state
                    await act(last)
                continue
            state = followed(last, msg)
            if state is None:  # not a state; or a frame missed: a patch asks for the whole
                await resync(ws, msg, seen)
                continue
            last = msg = state
            seen = max(seen, msg["v"])
            for event in msg["events"]:
                if event["kind"] == "action":
                    stats.received(table, players, event, seat)
                elif event["kind"] == "over":
                    stats.matches += seat == 0 and stats.in_window(time.time())
                    return
            await act(msg)


async def guests(http: httpx.AsyncClient, players: int) -> list[str]:
    """Guest tokens for the people of one lane (they play match after match)."""
    tokens = []
    for s in range(players):
        r = await http.post("/api/guest", json={"name": f"bench{s}"})
        tokens.append(r.json()["token"])
    return tokens


async def one_table(
    http: httpx.AsyncClient,
    url: str,
    tokens: list[str],
    stats: Stats,
    rng: random.Random,
) -> None:
    """One match: a new table, every seat connected, played to its end."""
    players = len(tokens)
    r = await http.post(
        "/api/tables",
        json={"rules": {"players": players, "target": 15}, "name": "bench", "turn_seconds": 0},
        headers={"Authorization": f"Bearer {tokens[0]}"},
    )
    table = r.json()["id"]
    seats = (
        seat_player(url, table, tokens[s], s, players, stats, random.Random(rng.random()))
        for s in range(players)
    )
    await asyncio.gather(*seats)


async def keep_tables(base: str, tables: int, sizes: list[int], stats: Stats, seed: int) -> None:
    url = base.replace("http", "ws", 1)
    rng = random.Random(seed)
    # no cookie jar: a session cookie would make every later guest of the process the same
    # player under a new name (POST /api/guest), and a lane of one player never starts
    jar = CookieJar(DefaultCookiePolicy(allowed_domains=[]))
    async with httpx.AsyncClient(base_url=base, timeout=30, cookies=jar) as http:

        async def lane(i: int) -> None:
            tokens = await guests(http, sizes[i % len(sizes)])
            while time.time() < stats.end:
                await one_table(http, url, tokens, stats, rng)

        lanes = [asyncio.create_task(lane(i)) for i in range(tables)]
        await asyncio.sleep(max(0.0, stats.end - time.time()))
        for task in lanes:
            task.cancel()
        await asyncio.gather(*lanes, return_exceptions=True)


def load_process(
    base: str, tables: int, sizes: list[int], start: float, end: float, seed: int
) -> Stats:
    """One load-generating process (run in a worker of its own)."""
    stats = Stats(start, end)
    asyncio.run(keep_tables(base, tables, sizes, stats, seed))
    stats.pending.clear()
    stats.arriving.clear()
    return stats


def serve_without_db(port: int, max_tables: int) -> None:
    """``--db none``: the real server whose tables are not persisted (an in-memory SQLite
    still holds guests' keys; the tables never write to it)."""
    import uvicorn

    from truco.server.config import ServerConfig
    from truco.server.web.app import create_app
    from truco.server.web.serving import uvicorn_options

    config = ServerConfig(
        db_url="sqlite://",
        turn_seconds=0,
        bot_delay=0,
        max_tables=max_tables,
        max_tables_per_address=max_tables,
        http_rate="1000000/minute",
        http_write_rate="1000000/minute",
        max_sockets_per_address=0,
        max_sockets_per_player=0,
    )
    app = create_app(config)
    app.state.lobby.store = None
    uvicorn.run(**uvicorn_options(app, host="127.0.0.1", port=port, log_level="warning"))


def start_server(
    port: int, db: str, max_tables: int, extra: Sequence[str] = ()
) -> subprocess.Popen[bytes]:
    """``truco serve`` (``db`` 'none': :func:`serve_without_db`) with the benchmarks' limits
    lifted; ``extra``: more of its options."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if db == "none":
        code = f"import server_load; server_load.serve_without_db({port}, {max_tables})"
        cmd = [sys.executable, "-c", code]
        env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    else:
        cmd = [sys.executable, "-m", "truco.cli", "serve", "--port", str(port), "--db", db]
        cmd += ["--turn-seconds", "0", "--bot-delay", "0", "--max-tables", str(max_tables)]
        # one address plays every seat here: lift the per-address limits
        cmd += ["--http-rate", "1000000/minute", "--http-write-rate", "1000000/minute"]
        cmd += ["--max-tables-per-address", str(max_tables)]
        cmd += ["--max-sockets-per-address", "0", "--max-sockets-per-player", "0"]
        cmd += extra
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)


def wait_until_up(server: subprocess.Popen[bytes], base: str) -> None:
    """Return once the server at ``base`` answers (a minute at most)."""
    for _ in range(600):
        if server.poll() is not None:
            raise SystemExit(f"the server did not start (exit code {server.returncode})")
        try:
            httpx.get(f"{base}/api/options", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)


def one_run(args: argparse.Namespace, sizes: list[int], db: str) -> dict[str, Any]:
    port = free_port()
    server = start_server(port, db, args.tables * 4)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(server, base)
        pid = server.pid
        start = time.time() + args.warmup
        end = start + args.seconds
        share = [args.tables // args.load_processes] * args.load_processes
        for i in range(args.tables % args.load_processes):
            share[i] += 1
        context = multiprocessing.get_context("spawn")
        with context.Pool(args.load_processes) as pool:
            jobs = [
                pool.apply_async(load_process, (base, n, sizes, start, end, i))
                for i, n in enumerate(share)
            ]
            time.sleep(max(0.0, start - time.time()))
            recorder = None
            if args.profile:  # the measured window only (not the imports and the warmup)
                recorder = profile(pid, args.profile, args.seconds, native=args.native)
            user0, system0 = cpu_split(pid)
            time.sleep(max(0.0, end - time.time()))
            user1, system1 = cpu_split(pid)
            cpu, system = user1 + system1 - user0 - system0, system1 - system0
            if recorder is not None:
                recorder.wait(60)
            load = os.getloadavg()[0]
            parts = [job.get(60) for job in jobs]
    finally:
        server.send_signal(2)  # SIGINT: a clean shutdown (and the profile written)
        server.wait(60)
    actions = sum(p.actions for p in parts)
    codes: dict[str, int] = {}
    for p in parts:
        for code, n in p.error_codes.items():
            codes[code] = codes.get(code, 0) + n
    every = [ms for p in parts for ms in p.table_ms]
    each = [ms for p in parts for ms in p.seat_ms]
    return {
        "db": db,
        "tables_held": args.tables,
        "table_sizes": sizes,
        "load_processes": args.load_processes,
        "seconds": args.seconds,
        "matches_finished": sum(p.matches for p in parts),
        "actions": actions,
        "actions_per_second": round(actions / args.seconds, 1),
        "every_seat_ms_p50": percentile(every, 0.50),
        "every_seat_ms_p99": percentile(every, 0.99),
        "one_seat_ms_p50": percentile(each, 0.50),
        "one_seat_ms_p99": percentile(each, 0.99),
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_ms_per_action": round(1000 * cpu / max(1, actions), 3),
        "server_kernel_share": round(system / cpu, 2) if cpu else None,
        "load_average_1min": round(load, 2),
        "errors": sum(p.errors for p in parts),
        "error_codes": codes,
        "cpus": os.cpu_count(),
    }


def add_load_arguments(parser: argparse.ArgumentParser) -> None:
    """The load's options, shared with ``transport_floor.py``: tables, sizes, windows, runs."""
    parser.add_argument("--tables", type=int, default=40, help="concurrent tables (default 40)")
    parser.add_argument(
        "--players", type=int, action="append", choices=(2, 4, 6), help="table sizes (default 2, 4)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds (default 20)")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured start (default 3)")
    parser.add_argument("--runs", type=int, default=1, help="runs; the medians are reported")
    parser.add_argument("--load-processes", type=int, default=2, help="load generators (default 2)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_load_arguments(parser)
    parser.add_argument(
        "--db",
        default=None,
        help="database URL (default a fresh SQLite file per run); 'postgresql': a fresh schema "
        "of the tests' PostgreSQL (tests/databases.py); 'none': tables not persisted",
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per run, then medians")
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="record the server's measured window with py-spy (--gil, collapsed stacks) to FILE",
    )
    parser.add_argument(
        "--native", action="store_true", help="with --profile: C frames too (py-spy --native)"
    )
    args = parser.parse_args()
    sizes = args.players or [2, 4]
    runs = []
    for _ in range(args.runs):
        with ExitStack() as stack:
            if args.db == "postgresql":  # a fresh schema of the tests' PostgreSQL, dropped after
                sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
                from databases import postgres_schema

                db = stack.enter_context(postgres_schema("truco_bench"))
            else:
                db = args.db or f"sqlite:///{tempfile.mkdtemp(prefix='truco-bench-')}/b.sqlite3"
            run = one_run(args, sizes, db)
            run["db"] = args.db or "sqlite"
        runs.append(run)
        print(json.dumps(run) if args.json else f"run {len(runs)}: {json.dumps(run)}", flush=True)
    median = {
        key: statistics.median(r[key] for r in runs)
        for key, value in runs[0].items()
        if isinstance(value, int | float) and not isinstance(value, bool) and key != "cpus"
    }
    print(json.dumps({"median_of_runs": len(runs), **median}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
