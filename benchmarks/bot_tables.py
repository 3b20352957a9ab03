"""How many person-vs-bot tables one server node holds: a ramp of table counts, each step
on a fresh ``truco serve`` (no bot delay, bots thinking in its bot pool), stopping at the
first step that fails.

At each table one simulated person (seat 0) plays a random legal action of its own view
over a real WebSocket (:mod:`wsclient`), no sooner than ``--pace`` seconds after its
previous one; the bot ``--bot`` sits in every other seat. The load generator runs in a
process of its own (never on the server's event loop); a finished match is replaced by a
new table. Measured, for the actions sent in the window: the time from the person's action
to the first bot action after it reaching that person (p50, p99), when a bot is to answer.
The tables open at random times over the warmup (not all at one instant).

A step fails if its p99 exceeds ``--p99-ms`` or if service degraded at all in its window: a
bot decision made by the pool's fallback (full, timeout, error: the server's
``truco_bot_decisions`` counter), an error frame, a patch that does not follow the last
frame (a frame missed), a dropped socket, or a reply awaited for ``GIVE_UP`` seconds.

    nice -n 10 .venv/bin/python benchmarks/bot_tables.py --players 2 --ramp 50,100,200,400
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from httppost import JsonPoster
from loadgen import run_loop, share
from measure import percentile
from server_load import choose, free_port, start_server, wait_until_up
from wsclient import connect

from truco.view import apply_patch

GIVE_UP = 10.0  # seconds a person waits for a bot's reply, or for any frame
TOKEN = "bot-tables-bench"  # the metrics token of the server under test


@dataclass
class Step:
    """What one loader process saw; latencies of actions sent in ``[start, end]``."""

    start: float
    end: float
    reply_ms: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    matches: int = 0


class Person:
    """Seat 0 of one table: acts at its pace, times the bots' replies."""

    def __init__(self, step: Step, pace: float, rng: random.Random) -> None:
        self.step, self.pace, self.rng = step, pace, rng
        self.state: dict[str, Any] | None = None
        self.next_at = time.time() + rng.random() * pace  # (the tables do not act in step)
        self.sent = 0.0  # when the person's last action was sent
        self.awaiting: float | None = None  # its action is applied: a bot's reply is due
        self.acted = -1  # the version the last action was chosen from
        self.heard = time.time()
        self.timer: asyncio.TimerHandle | None = None
        self.client: Any = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def fail(self, why: str) -> None:
        if self.step.start <= time.time() <= self.step.end:
            self.step.failures[why] += 1

    def finish(self, why: str | None = None) -> None:
        if why is not None:
            self.fail(why)
        if self.timer is not None:
            self.timer.cancel()
        if not self.done.done():
            self.done.set_result(None)
        self.client.close()

    def received(self, raw: bytes) -> None:
        now = self.heard = time.time()
        msg = orjson.loads(raw)
        if msg["type"] == "error":
            self.fail(f"error {msg['code']}")
            self.acted = -1
        elif msg["type"] == "patch":
            if self.state is None or msg["base"] != self.state["v"]:
                self.fail("frame missed")
                self.client.send(orjson.dumps({"type": "sync", "since": 0}))
                return
            self.state = {**apply_patch(self.state, msg["set"]), "v": msg["v"]}
        elif msg["type"] == "state":
            self.state = msg
        else:
            return
        for event in msg["events"]:
            if event["kind"] == "over":
                self.step.matches += 1
                self.finish()
                return
            if event["kind"] != "action":
                continue
            if event["seat"] == 0:
                self.awaiting = self.sent
            elif self.awaiting is not None:  # the first bot action after the person's
                if self.step.start <= self.awaiting <= self.step.end:
                    self.step.reply_ms.append(1000 * (now - self.awaiting))
                self.awaiting = None
        view = self.state["view"]
        action = None if view is None else choose(view, 0, self.rng)
        if action is not None:
            self.awaiting = None  # the person's turn again: no bot was to answer
            if self.state["v"] != self.acted and self.timer is None:
                self.acted = self.state["v"]
                delay = max(0.0, self.next_at - now)
                self.timer = asyncio.get_running_loop().call_later(delay, self.act)

    def act(self) -> None:
        self.timer = None
        view = None if self.state is None else self.state["view"]
        action = None if view is None else choose(view, 0, self.rng)
        if action is None:
            return
        self.sent = time.time()
        self.next_at = self.sent + self.pace
        self.client.send(orjson.dumps({"type": "act", "action": action}))

    def sweep(self, now: float) -> None:
        if self.awaiting is not None and now - self.awaiting > GIVE_UP:
            self.finish("no bot reply")
        elif self.timer is None and now - self.heard > GIVE_UP:
            self.finish("silent")


async def lane(
    base: str, http: JsonPoster, bots: dict[str, str], step: Step, pace: float, seed: int
) -> None:
    """One person playing match after match against ``bots``, each at a new table."""
    rng = random.Random(seed)
    await asyncio.sleep(rng.random() * max(0.0, step.start - 2 - time.time()))  # (no herd)
    status, guest = await http.post(f"{base}/api/guest", {"name": "persona"})
    if status != 200:
        raise RuntimeError(f"a guest: {status} {guest}")
    players = len(bots) + 1
    while time.time() < step.end:
        body = {"rules": {"players": players, "target": 15}, "turn_seconds": 0}
        status, table = await http.post(
            f"{base}/api/tables", {**body, "seat": 0, "bots": bots}, guest["token"]
        )
        if status != 201:
            step.failures[f"create {status}"] += 1
            await asyncio.sleep(1)
            continue
        person = Person(step, pace, rng)

        def closed(person: Person = person) -> None:
            if not person.done.done():
                person.finish("dropped")

        url = f"{base.replace('http', 'ws', 1)}/ws/{table['id']}"
        try:
            person.client = await connect(url, person.received, closed)
        except (OSError, TimeoutError):
            step.failures["connect"] += 1
            continue
        person.client.send(orjson.dumps({"type": "hello", "token": guest["token"]}))
        sweeper = asyncio.create_task(sweep(person))
        await person.done
        sweeper.cancel()


async def sweep(person: Person) -> None:
    while True:
        await asyncio.sleep(1)
        person.sweep(time.time())


async def load(
    base: str, tables: int, bots: dict[str, str], step: Step, pace: float, seed: int
) -> None:
    http = JsonPoster()
    lanes = [
        asyncio.create_task(lane(base, http, bots, step, pace, seed * 100_000 + i))
        for i in range(tables)
    ]
    await asyncio.sleep(max(0.0, step.end - time.time()))
    for task in lanes:
        task.cancel()
    results = await asyncio.gather(*lanes, return_exceptions=True)
    for result in results:
        if isinstance(result, Exception) and not isinstance(result, asyncio.CancelledError):
            step.failures[f"lane {type(result).__name__}"] += 1
    await http.close()


def load_process(
    base: str, tables: int, bots: dict[str, str], start: float, end: float, pace: float, seed: int
) -> Step:
    """One load-generator process (uvloop when installed)."""
    step = Step(start, end)
    run_loop(load(base, tables, bots, step, pace, seed))
    return step


def fallbacks(base: str) -> Counter[str]:
    """The server's bot decisions so far by how they were made (its ``/metrics``)."""
    text = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    counts: Counter[str] = Counter()
    for how, n in re.findall(r'^truco_bot_decisions_total\{.*how="(\w+)".*\} (\S+)$', text, re.M):
        counts[how] += int(float(n))
    return counts


def one_step(args: argparse.Namespace, players: int, tables: int) -> dict[str, Any]:
    port = free_port()
    os.environ["TRUCO_METRICS_TOKEN"] = TOKEN  # (read by ``truco serve``)
    db = f"sqlite:///{tempfile.mkdtemp(prefix='truco-bots-')}/b.sqlite3"
    server = start_server(port, db, tables * 4, ["--bot-queue", str(args.bot_queue)])
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(server, base)
        bots = {str(seat): args.bot for seat in range(1, players)}
        start = time.time() + args.warmup
        end = start + args.seconds
        context = multiprocessing.get_context("spawn")
        with context.Pool(args.load_processes) as pool:
            jobs = [
                pool.apply_async(
                    load_process,
                    (base, share(tables, i, args.load_processes), bots, start, end, args.pace, i),
                )
                for i in range(args.load_processes)
            ]
            time.sleep(max(0.0, start - time.time()))
            before = fallbacks(base)
            steps = [job.get(args.warmup + args.seconds + 120) for job in jobs]
        load_average = os.getloadavg()[0]
        how = fallbacks(base)
        how.subtract(before)
    finally:
        server.send_signal(2)
        server.wait(60)
    replies = [ms for s in steps for ms in s.reply_ms]
    failures: Counter[str] = Counter()
    for s in steps:
        failures.update(s.failures)
    for kind in ("full", "timeout", "error"):
        if how[kind]:
            failures[f"bot fallback ({kind})"] = how[kind]
    p99 = percentile(replies, 0.99)
    ok = not failures and p99 is not None and p99 <= args.p99_ms
    return {
        "players": players,
        "bot": args.bot,
        "bot_queue": args.bot_queue,
        "tables": tables,
        "replies": len(replies),
        "reply_ms_p50": percentile(replies, 0.50),
        "reply_ms_p99": p99,
        "matches_finished": sum(s.matches for s in steps),
        "bot_decisions_in_pool": how["pool"],
        "failures": dict(failures),
        "load_average_1min": round(load_average, 2),
        "ok": ok,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, action="append", choices=(2, 4, 6))
    parser.add_argument("--bot", default="master", help="the bot of the other seats (master)")
    parser.add_argument("--ramp", default="50,100,200,400,800", help="table counts, in order")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between a person's acts")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds a step")
    parser.add_argument("--warmup", type=float, default=10.0, help="unmeasured start of a step")
    parser.add_argument("--p99-ms", type=float, default=1000.0, help="the p99 a step must keep")
    parser.add_argument("--bot-queue", type=int, default=64, help="the server's (default 64)")
    parser.add_argument("--load-processes", type=int, default=1)
    args = parser.parse_args()
    for players in args.players or [2]:
        held = None  # (None: not even the first step)
        for tables in (int(n) for n in args.ramp.split(",")):
            result = one_step(args, players, tables)
            print(json.dumps(result), flush=True)
            if not result["ok"]:
                break
            held = tables
        print(json.dumps({"players": players, "bot": args.bot, "most_tables_held": held}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
