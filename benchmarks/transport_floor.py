"""The transport floor: what the server's CPU per action would be if a table did nothing
but move its frames, on the same stack as ``truco serve``.

``server_load.py`` measures the real server's CPU per action. This benchmark runs the same
stack (uvicorn in its own process with its default uvloop, ``uvicorn_options``' protocols,
no compression; the table socket read and written through Starlette's ``WebSocket``, an
outbox and a sender task, as the real one is) with a trivial app in place of
the tables: it replays a recorded *trace* of real tables. For each message a seat sends (the
hello, the sit, each action) the app writes to the table's seats the frames, of the same
number and byte sizes, that a real table wrote at that point of a real match; a frame says
whose turn is next and whether the match is over. The load generator (its own processes, as
in ``server_load.py``: the same ``websockets`` clients, the same pace under the rate limit)
plays along, and with ``--turnover`` (the default) replaces a finished match as
``server_load.py`` does: a ``POST /api/tables``, then a new WebSocket per seat. With
``--no-turnover`` a table's trace loops forever on the same sockets: the floor of the frames
alone.

The trace is recorded first (``--record``; kept in ``--trace``): matches of each table size
played against the real server (``--db none``) by random players, every frame each seat
received noted by version. ``--actor`` sends the frames from a task per table woken by a
queue, as the real table's actor is (else straight from the socket's read callback).

    .venv/bin/python -u benchmarks/transport_floor.py --tables 40 --seconds 20 --runs 3
    .venv/bin/python -u benchmarks/transport_floor.py --no-turnover --runs 3

What it leaves out is all that is ours: parsing and checking a message, the engine, the
views, JSON, the event log, FastAPI's routing of the HTTP create, persistence.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from measure import cpu_split, percentile
from server_load import Pace, add_load_arguments, choose, free_port, start_server

from truco.view import apply_patch

# ------------------------------------------------------------------ the trace
#: one step of a match: the frames a table wrote after one message of a seat, as
#: ``[seat, bytes]`` pairs, and the seat whose turn it is next (None: nobody's)
Step = dict[str, Any]


async def _record_match(base: str, players: int, rng: random.Random) -> dict[str, Any]:
    """One real match of ``players`` random players: every frame's size by version."""
    url = base.replace("http", "ws", 1)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        tokens = []
        for s in range(players):
            r = await http.post("/api/guest", json={"name": f"trace{s}"})
            tokens.append(r.json()["token"])
            http.cookies.clear()
        r = await http.post(
            "/api/tables",
            json={"rules": {"players": players, "target": 15}, "name": "bench", "turn_seconds": 0},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        )
        create_bytes = len(r.content)
        table = r.json()["id"]
    frames: list[tuple[int, int, int, int | None, bool]] = []  # v, seat, bytes, actor, over

    async def seat(s: int) -> None:
        async with websockets.connect(f"{url}/ws/{table}", max_size=None, compression=None) as ws:
            await ws.send(json.dumps({"type": "hello", "token": tokens[s]}))
            await ws.send(json.dumps({"type": "sit", "seat": s}))
            acted = -1
            sent = ""  # the last act sent: sent again if the server's rate limit refused it
            held: dict[str, Any] = {}  # the state, patches applied
            while True:
                raw = await asyncio.wait_for(ws.recv(), 10)
                msg = json.loads(raw)
                if msg["type"] == "error" and msg.get("code") == "rate_limited":
                    await asyncio.sleep(0.2)
                    await ws.send(sent)
                    continue
                if msg["type"] == "patch":
                    patch = msg
                    msg = {**apply_patch(held, patch["set"]), "v": patch["v"]}
                    msg["events"] = patch["events"]
                elif msg["type"] != "state":
                    continue
                held = msg
                size = len(raw.encode() if isinstance(raw, str) else raw)
                actor = next((e["seat"] for e in msg["events"] if e["kind"] == "action"), None)
                over = any(e["kind"] == "over" for e in msg["events"])
                frames.append((msg["v"], s, size, actor, over))
                if over:
                    return
                view = msg["view"]
                action = None if view is None else choose(view, s, rng)
                if action is not None and msg["v"] != acted:
                    acted = msg["v"]
                    await asyncio.sleep(0.005)
                    sent = json.dumps({"type": "act", "action": action})
                    await ws.send(sent)

    await asyncio.gather(*(seat(s) for s in range(players)))
    by_version: dict[int, list[tuple[int, int, int | None, bool]]] = {}
    for v, s, size, actor, over in frames:
        by_version.setdefault(v, []).append((s, size, actor, over))
    versions = sorted(by_version)
    # the first frame of each seat (its join: the full state) is its own step; the others
    # are grouped by the version they bring, in order
    firsts: dict[int, int] = {}
    steps: list[Step] = []
    for v in versions:
        group = []
        for s, size, actor, over in by_version[v]:
            if s not in firsts:
                firsts[s] = size
            else:
                group.append((s, size, actor, over))
        if group:
            actor = next((a for _, _, a, _ in group if a is not None), None)
            over = any(o for *_, o in group)
            steps.append(
                {"frames": [[s, size] for s, size, _, _ in group], "actor": actor, "over": over}
            )
    # who acts after each step: the actor of the next step that has one
    for i, step in enumerate(steps):
        step["turn"] = next((s["actor"] for s in steps[i + 1 :] if s["actor"] is not None), None)
    return {"players": players, "join": firsts, "steps": steps, "create_bytes": create_bytes}


def record(sizes: list[int], matches: int, seed: int) -> dict[str, Any]:
    """Play ``matches`` real matches of each table size against a server of its own."""
    port = free_port()
    server = start_server(port, "none", 64)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_up(server, base)
        rng = random.Random(seed)
        traces = [
            asyncio.run(_record_match(base, players, rng))
            for players in sizes
            for _ in range(matches)
        ]
    finally:
        server.send_signal(2)
        server.wait(60)
    return {"traces": traces}


def describe(trace: dict[str, Any]) -> dict[str, Any]:
    """What the recorded matches hold, per table size: actions, frames and bytes per action."""
    out: dict[str, Any] = {}
    for players in sorted({t["players"] for t in trace["traces"]}):
        matches = [t for t in trace["traces"] if t["players"] == players]
        actions = sum(1 for t in matches for s in t["steps"] if s["actor"] is not None)
        frames = [size for t in matches for s in t["steps"] for _, size in s["frames"]]
        joins = [size for t in matches for size in t["join"].values()]
        out[f"{players}p"] = {
            "matches": len(matches),
            "actions_per_match": round(actions / len(matches), 1),
            "frames_per_action": round(len(frames) / max(1, actions), 2),
            "frame_bytes_median": statistics.median(frames),
            "frame_bytes_mean": round(statistics.mean(frames)),
            "bytes_per_action": round(sum(frames) / max(1, actions)),
            "join_bytes_median": statistics.median(joins),
        }
    return out


def scaled(trace: dict[str, Any], scale: float) -> dict[str, Any]:
    """The trace with every state frame ``scale`` times its size (the joins too)."""
    traces = []
    for match in trace["traces"]:
        steps = [
            {**step, "frames": [[s, round(size * scale)] for s, size in step["frames"]]}
            for step in match["steps"]
        ]
        join = {s: round(size * scale) for s, size in match["join"].items()}
        traces.append({**match, "steps": steps, "join": join})
    return {"traces": traces}


# ------------------------------------------------------------------ the trivial server
def _padded(header: dict[str, Any], size: int) -> str:
    """A JSON frame of ``size`` bytes (at least its header) that says ``header``."""
    head = json.dumps(header, separators=(",", ":"))[:-1] + ',"pad":"'
    return head + "x" * max(0, size - len(head) - 2) + '"}'


class FloorTable:
    """A table that replays one recorded match: each message of a seat writes the next
    step's frames (their sizes recorded) to the seats connected."""

    def __init__(self, match: dict[str, Any], loop_forever: bool, actor: bool) -> None:
        self.match = match
        self.loop_forever = loop_forever
        self.seats: dict[int, Callable[[str], bool]] = {}
        self.at = 0
        self.first = next(i for i, s in enumerate(match["steps"]) if s["actor"] is not None)
        if "_frames" in match:  # (built once per recorded match)
            self.frames = match["_frames"]
        else:
            self.frames = match["_frames"] = self._frames()
        self.queue: asyncio.Queue[None] | None = None
        if actor:
            self.queue = asyncio.Queue()
            self.task = asyncio.get_running_loop().create_task(self.run())

    def _frames(self) -> list[list[tuple[int, str]]]:
        match = self.match
        frames = [
            [
                (s, _padded({"type": "state", "turn": step["turn"], "over": step["over"]}, size))
                for s, size in step["frames"]
            ]
            for step in match["steps"]
        ]
        if self.loop_forever:  # no "over": the last step says whose turn is first again
            first = match["steps"][self.first]["actor"]
            frames[-1] = [
                (s, _padded({"type": "state", "turn": first}, size))
                for s, size in match["steps"][-1]["frames"]
            ]
        return frames

    def join(self, seat: int, write: Callable[[str], bool]) -> None:
        self.seats[seat] = write
        size = int(self.match["join"].get(str(seat), self.match["join"].get(seat, 1000)))
        write(_padded({"type": "state", "turn": None, "over": False}, size))

    def message(self) -> None:
        if self.queue is not None:
            self.queue.put_nowait(None)
        else:
            self.step()

    async def run(self) -> None:
        assert self.queue is not None
        while True:
            await self.queue.get()
            self.step()

    def step(self) -> None:
        if self.at >= len(self.frames):
            if not self.loop_forever:
                return
            self.at = self.first
        for seat, text in self.frames[self.at]:
            write = self.seats.get(seat)
            if write is not None:
                write(text)
        self.at += 1


def floor_app(trace: dict[str, Any], loop_forever: bool, actor: bool) -> Any:
    """The trivial ASGI app: ``POST /api/guest``, ``POST /api/tables`` (a table replaying
    one of the recorded matches of its size) and the table sockets at ``/ws/{id}``."""
    by_size: dict[int, list[dict[str, Any]]] = {}
    for match in trace["traces"]:
        by_size.setdefault(match["players"], []).append(match)
    tables: dict[str, FloorTable] = {}
    made = [0]

    async def http(scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["path"] == "/api/tables":
            players = json.loads(body)["rules"]["players"]
            made[0] += 1
            matches = by_size[players]
            match = matches[made[0] % len(matches)]
            table_id = f"t{made[0]}"
            tables[table_id] = FloorTable(match, loop_forever, actor)
            answer = _padded({"id": table_id}, match["create_bytes"]).encode()
            status = 201
        else:  # a guest: a token
            answer, status = json.dumps({"token": "x"}).encode(), 200
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": answer})

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await http(scope, receive, send)
        elif scope["type"] == "websocket":
            await _table_socket(tables, scope, receive, send)
        elif scope["type"] == "lifespan":
            await _lifespan(receive, send)

    return app


async def _table_socket(
    tables: dict[str, FloorTable], scope: dict[str, Any], receive: Any, send: Any
) -> None:
    """A table socket as the real one is served (Starlette's ``WebSocket``, a bounded
    outbox and a sender task): the hello, the sit, then every message steps the table."""
    from starlette.websockets import WebSocket, WebSocketDisconnect

    socket = WebSocket(scope, receive, send)
    await socket.accept()
    table = tables[scope["path"].rsplit("/", 1)[1]]
    outbox: asyncio.Queue[str] = asyncio.Queue(512)

    def write(text: str) -> bool:
        outbox.put_nowait(text)
        return True

    async def sender() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            while True:
                await socket.send_text(await outbox.get())

    sending = asyncio.create_task(sender())
    seat: list[int] = []
    try:
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if message.get("text") is None or json.loads(message["text"])["type"] == "hello":
                continue
            if not seat:  # the sit
                seat.append(json.loads(message["text"])["seat"])
                table.join(seat[0], write)
            table.message()
    finally:
        sending.cancel()
    if seat and table.seats.get(seat[0]) is write:
        del table.seats[seat[0]]
    if not table.seats:
        tables.pop(scope["path"].rsplit("/", 1)[1], None)
        if table.queue is not None:
            table.task.cancel()


async def _lifespan(receive: Any, send: Any) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        else:
            await send({"type": "lifespan.shutdown.complete"})
            return


def serve_floor(port: int, trace_path: str, loop_forever: bool, actor: bool) -> None:
    """The floor server's process: uvicorn as ``truco serve`` configures it."""
    import uvicorn

    trace = json.loads(Path(trace_path).read_text())
    from truco.server.web.serving import uvicorn_options

    app = floor_app(trace, loop_forever, actor)
    uvicorn.run(**uvicorn_options(app, host="127.0.0.1", port=port, log_level="warning"))


# ------------------------------------------------------------------ the load
@dataclass
class Counts:
    start: float
    end: float
    actions: int = 0
    matches: int = 0
    errors: int = 0
    ms: list[float] = field(default_factory=list)  # action -> the acting seat's frame


async def floor_seat(
    url: str,
    table: str,
    seat: int,
    counts: Counts,
    loop_forever: bool,
    paced: list[float] | None = None,
) -> None:
    """One seat: the hello, the sit, then an action whenever a frame says it is its turn
    (under the rate limit, and ``paced``: no sooner than the table's next action time,
    ``[next, gap]``)."""
    async with websockets.connect(f"{url}/ws/{table}", max_size=None, compression=None) as ws:
        pace = Pace()
        for _ in range(2):
            pace.wait()
        await ws.send(json.dumps({"type": "hello", "token": "x"}))
        await ws.send(json.dumps({"type": "sit", "seat": seat}))
        sent = 0.0
        while True:
            try:
                raw = await asyncio.wait_for(ws.recv(), 10)
            except TimeoutError:
                if time.time() < counts.end:
                    counts.errors += 1
                return
            now = time.time()
            if now >= counts.end and loop_forever:
                return
            head = json.loads(raw[: raw.index(',"pad"')] + "}")
            if sent:
                if counts.start <= now <= counts.end:
                    counts.actions += 1
                    counts.ms.append(1000 * (now - sent))
                sent = 0.0
            if head.get("over"):
                counts.matches += seat == 0 and counts.start <= now <= counts.end
                return
            if head["turn"] == seat:
                delay = pace.wait()
                if paced is not None:
                    delay = max(delay, paced[0] - time.time())
                    paced[0] = time.time() + delay + paced[1]
                if delay:
                    await asyncio.sleep(delay)
                sent = time.time()
                await ws.send('{"type":"act","action":"play 1e"}')


async def floor_lanes(
    base: str, tables: int, sizes: list[int], counts: Counts, loop_forever: bool, rate: float
) -> None:
    url = base.replace("http", "ws", 1)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:

        async def lane(i: int) -> None:
            players = sizes[i % len(sizes)]
            await http.post("/api/guest", json={"name": f"bench{i}"})
            while time.time() < counts.end:
                r = await http.post(
                    "/api/tables",
                    json={"rules": {"players": players, "target": 15}, "name": "bench"},
                    headers={"Authorization": "Bearer x"},
                )
                table = r.json()["id"]
                paced = [0.0, 1 / rate] if rate else None
                await asyncio.gather(
                    *(
                        floor_seat(url, table, s, counts, loop_forever, paced)
                        for s in range(players)
                    )
                )

        lanes = [asyncio.create_task(lane(i)) for i in range(tables)]
        await asyncio.sleep(max(0.0, counts.end - time.time()))
        for task in lanes:
            task.cancel()
        await asyncio.gather(*lanes, return_exceptions=True)


def floor_load(
    base: str,
    tables: int,
    sizes: list[int],
    start: float,
    end: float,
    loop_forever: bool,
    rate: float,
) -> Counts:
    counts = Counts(start, end)
    asyncio.run(floor_lanes(base, tables, sizes, counts, loop_forever, rate))
    return counts


def _wait_up(server: subprocess.Popen[bytes], base: str) -> None:
    for _ in range(600):
        if server.poll() is not None:
            raise SystemExit(f"the server did not start (exit code {server.returncode})")
        try:
            httpx.post(f"{base}/api/guest", json={}, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("the server did not start in 60 s")


def one_run(args: argparse.Namespace, sizes: list[int]) -> dict[str, Any]:
    port = free_port()
    loop_forever = not args.turnover
    code = (
        "import transport_floor; "
        f"transport_floor.serve_floor({port}, {str(args.trace)!r}, {loop_forever}, {args.actor})"
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_up(server, base)
        start = time.time() + args.warmup
        end = start + args.seconds
        share = [args.tables // args.load_processes] * args.load_processes
        for i in range(args.tables % args.load_processes):
            share[i] += 1
        context = multiprocessing.get_context("spawn")
        with context.Pool(args.load_processes) as pool:
            jobs = [
                pool.apply_async(
                    floor_load, (base, n, sizes, start, end, loop_forever, args.table_rate)
                )
                for n in share
            ]
            time.sleep(max(0.0, start - time.time()))
            user0, system0 = cpu_split(server.pid)
            time.sleep(max(0.0, end - time.time()))
            user1, system1 = cpu_split(server.pid)
            load = os.getloadavg()[0]
            parts = [job.get(60) for job in jobs]
    finally:
        server.send_signal(2)
        server.wait(60)
    cpu, system = user1 + system1 - user0 - system0, system1 - system0
    actions = sum(p.actions for p in parts)
    ms = [m for p in parts for m in p.ms]
    return {
        "turnover": args.turnover,
        "actor_task": args.actor,
        "frame_scale": args.scale,
        "table_rate": args.table_rate,
        "tables_held": args.tables,
        "table_sizes": sizes,
        "seconds": args.seconds,
        "matches_finished": sum(p.matches for p in parts),
        "actions": actions,
        "actions_per_second": round(actions / args.seconds, 1),
        "acting_seat_ms_p50": percentile(ms, 0.5),
        "acting_seat_ms_p99": percentile(ms, 0.99),
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_ms_per_action": round(1000 * cpu / max(1, actions), 3),
        "server_kernel_share": round(system / cpu, 2) if cpu else None,
        "load_average_1min": round(load, 2),
        "errors": sum(p.errors for p in parts),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_load_arguments(parser)
    parser.add_argument(
        "--turnover",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a new table (HTTP create, new sockets) after each recorded match (default); "
        "--no-turnover: the same sockets replay their match forever",
    )
    parser.add_argument(
        "--table-rate",
        type=float,
        default=0.0,
        help="at most this many actions a second per table (0: flat out, as server_load.py); "
        "to compare at server_load.py's own rate (its actions/s over its tables)",
    )
    parser.add_argument(
        "--actor", action="store_true", help="frames sent from a task per table (a queue wakes it)"
    )
    parser.add_argument(
        "--trace",
        type=Path,
        default=Path(os.environ.get("TMPDIR", "/tmp")) / "truco-frame-trace.json",
        help="the recorded frames (recorded first if missing)",
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="frames of this share of their recorded size (what smaller frames would save)",
    )
    parser.add_argument("--record", action="store_true", help="record the trace again")
    parser.add_argument("--matches", type=int, default=12, help="matches recorded per table size")
    args = parser.parse_args()
    sizes = args.players or [2, 4]
    if args.record or not args.trace.exists():
        trace = record(sorted(set(sizes) | {2, 4}), args.matches, seed=1)
        args.trace.write_text(json.dumps(trace))
    trace = json.loads(args.trace.read_text())
    if args.scale != 1.0:
        trace = scaled(trace, args.scale)
        args.trace = args.trace.with_suffix(f".x{args.scale}.json")
        args.trace.write_text(json.dumps(trace))
    print(json.dumps({"trace": str(args.trace), **describe(trace)}), flush=True)
    runs = []
    for _ in range(args.runs):
        run = one_run(args, sizes)
        runs.append(run)
        print(f"run {len(runs)}: {json.dumps(run)}", flush=True)
    median = {
        key: statistics.median(r[key] for r in runs)
        for key, value in runs[0].items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }
    print(json.dumps({"median_of_runs": len(runs), **median}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
