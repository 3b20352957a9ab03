"""Chaos for the online table: the real ``truco serve`` killed with SIGKILL at random moments
while people (WebSocket clients here) and bots play, and started again on the same database.

What is checked, after every kill (with the server dead, straight from the database) and at
the end of every match:

- **lost**: an action a client was told about (an ``action`` event) that the stored record
  does not hold, at that place. The goal is 0.
- **forgotten**: a client holds a version above the stored one (after a restart the server
  would reuse that number for something else). The goal is 0.
- **gaps**: a client resynced with ``since=N`` and missed events (its actions are not the
  record's, in order, with nothing skipped), and **full resyncs** after a restart (allowed
  by the protocol, but the journal keeps enough events that none should happen).
- every finished match's record replays through the engine without an illegal action, and
  the engine's winner is the winner every client was shown.

Used by ``tests/test_chaos.py`` (a few kills per database) and ``benchmarks/chaos.py``
(hundreds).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from truco.record import record_from_json, replay
from truco.server.storage.store import Store
from truco.view import apply_patch

Action = tuple[int, int, str]  # hand, seat, token


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Seen:
    """What one client of a table was told."""

    seat: int | None  # None: a spectator
    team: int | None
    version: int = 0
    actions: list[Action] = field(default_factory=list)
    connections: int = 0
    full_resyncs: int = 0  # full states after the first connection
    forgotten: int = 0  # states whose version is below one already seen
    winner: int | None = None
    over: bool = False  # the server said the match is over (close 4410 or the last view)

    def sees(self, seat: int, token: str) -> bool:
        return not token.startswith("say ") or (self.team is not None and seat % 2 == self.team)


@dataclass
class Report:
    db: str
    kills: int = 0
    restarts: int = 0
    matches: int = 0
    actions_told: int = 0  # action events received, over all clients
    actions_stored: int = 0  # actions in the records of the finished matches
    lost: int = 0
    forgotten: int = 0
    gaps: int = 0
    full_resyncs: int = 0
    replay_errors: int = 0
    wrong_winners: int = 0
    server_errors: int = 0  # tracebacks in the server's log
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (
            self.lost
            or self.forgotten
            or self.gaps
            or self.full_resyncs
            or self.replay_errors
            or self.wrong_winners
            or self.server_errors
        )

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "problems"}
        data["problems"] = self.problems[:20]
        data["ok"] = self.ok
        return data


def visible(record: dict[str, Any], seen: Seen) -> list[Action]:
    """The actions of a stored record that ``seen``'s client may be told about, in order."""
    return [
        (h, seat, token)
        for h, hand in enumerate(record["hands"])
        for seat, token in hand["actions"]
        if seen.sees(seat, token)
    ]


def compare(told: list[Action], stored: list[Action]) -> tuple[int, int]:
    """(lost, gaps): actions told but not stored (in order), and stored actions skipped
    before the last one told."""
    if told == stored[: len(told)]:
        return 0, 0
    lost = 0
    at = 0
    skipped = 0
    for action in told:
        try:
            found = stored.index(action, at)
        except ValueError:
            lost += 1
            continue
        skipped += found - at
        at = found + 1
    return lost, skipped


class ChaosRun:
    """Tables played by clients against a ``truco serve`` that is killed ``kills`` times."""

    def __init__(
        self,
        db_url: str,
        kills: int,
        *,
        seed: int = 1,
        tables: int = 3,
        up: tuple[float, float] = (0.2, 1.5),
        log_dir: Path,
        progress: Callable[[str], None] | None = None,
        time_limit: float = 3600.0,
    ) -> None:
        self.db_url = db_url
        self.kills = kills
        self.rng = random.Random(seed)
        self.tables = tables
        self.up = up
        self.log_dir = log_dir
        self.progress = progress or (lambda text: None)
        self.time_limit = time_limit
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"
        self.report = Report(db=db_url.split(":", 1)[0].split("+", 1)[0])
        self.live: dict[str, list[Seen]] = {}  # table id -> its clients
        self.process: subprocess.Popen[bytes] | None = None
        self.done = False
        self.stopping = False  # stop() was called: no more kills
        self.log_path = log_dir / "serve.log"

    # ---------------------------------------------------------------- the server
    def _start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "truco.cli", "serve", "--port", str(self.port),
             "--db", self.db_url, "--turn-seconds", "0", "--bot-delay", "0",
             "--reconnect-seconds", "3600",
             # every client comes from one address here: lift the per-address limits
             "--http-rate", "1000000/minute", "--http-write-rate", "1000000/minute",
             "--max-tables-per-address", "100000", "--max-tables-per-guest", "100000"],
            stdout=log, stderr=log, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        log.close()

    async def _wait_up(self, http: httpx.AsyncClient) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"truco serve exited: see {self.log_path}")
            with contextlib.suppress(httpx.HTTPError):
                await http.get(f"{self.base}/api/options", timeout=1)
                return
            await asyncio.sleep(0.05)
        raise RuntimeError("truco serve did not start within 60 s")

    def _kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    # ---------------------------------------------------------------- checks
    def _check_stored(self, store: Store, final: dict[str, dict[str, Any]] | None = None) -> None:
        """Every client's actions against the stored records (the server is dead now)."""
        for table_id, clients in list(self.live.items()):
            rows = store.load(match_id=table_id, limit=1)
            if not rows:
                self.report.problems.append(f"{table_id}: table not in the database")
                self.report.lost += sum(len(c.actions) for c in clients)
                continue
            row = rows[0]
            for seen in clients:
                if seen.version > row.version:
                    self.report.forgotten += 1
                    self.report.problems.append(
                        f"{table_id}: a client holds v{seen.version}, stored v{row.version}"
                    )
                if row.record is None:
                    if seen.actions:
                        self.report.lost += len(seen.actions)
                    continue
                lost, gaps = compare(seen.actions, visible(row.record, seen))
                if lost or gaps:
                    self.report.problems.append(
                        f"{table_id} seat {seen.seat}: lost {lost}, skipped {gaps} at a kill"
                    )
                self.report.lost += lost
                self.report.gaps += gaps

    async def _finish(self, http: httpx.AsyncClient, table_id: str) -> None:
        """A match every client saw end: its record against what each was told."""
        clients = self.live.pop(table_id)
        record: dict[str, Any] | None = None
        for _ in range(600):
            try:
                response = await http.get(f"{self.base}/api/matches/{table_id}/record", timeout=5)
                if response.status_code == 200:
                    record = response.json()
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
        if record is None:
            self.report.problems.append(f"{table_id}: finished record not served")
            self.report.replay_errors += 1
            return
        result = replay(record_from_json(record))
        if result.error is not None:
            self.report.replay_errors += 1
            self.report.problems.append(f"{table_id}: record does not replay: {result.error}")
        self.report.matches += 1
        self.report.actions_stored += sum(len(h["actions"]) for h in record["hands"])
        for seen in clients:
            self.report.actions_told += len(seen.actions)
            stored = visible(record, seen)
            lost, gaps = compare(seen.actions, stored)
            if seen.winner is not None and seen.actions != stored:
                gaps += max(0, len(stored) - len(seen.actions))  # it saw the end: all of it
            self.report.lost += lost
            self.report.gaps += gaps
            self.report.full_resyncs += seen.full_resyncs
            self.report.forgotten += seen.forgotten
            if seen.winner is not None and seen.winner != result.winner:
                self.report.wrong_winners += 1
                self.report.problems.append(
                    f"{table_id}: shown winner {seen.winner}, the engine says {result.winner}"
                )
            if lost or gaps:
                self.report.problems.append(
                    f"{table_id} seat {seen.seat}: lost {lost}, gaps {gaps} at the end"
                )

    # ---------------------------------------------------------------- clients
    async def _client(
        self, table_id: str, seen: Seen, token: str | None, rng: random.Random
    ) -> None:
        """Connect (with ``since``), follow the states, act when the seat may; reconnect
        after every drop, until the match is over."""
        while not self.done and not seen.over:
            try:
                async with websockets.connect(
                    f"{self.ws}/ws/{table_id}",
                    open_timeout=5,
                    max_size=None,
                    close_timeout=1,
                ) as ws:
                    # who we are, and the last version seen: the first message, not the URL
                    hello = {"type": "hello", "token": token, "since": seen.version}
                    await ws.send(json.dumps(hello))
                    seen.connections += 1
                    first = True
                    last: dict[str, Any] | None = None
                    async for text in ws:
                        message = json.loads(text)
                        if message["type"] == "patch":  # what changed since the last state
                            if last is None or message["base"] != last["v"]:  # one missed
                                await ws.send(json.dumps({"type": "sync", "since": seen.version}))
                                continue
                            patch = message
                            message = {**apply_patch(last, patch["set"]), "v": patch["v"]}
                            message |= {"type": "state", "full": False, "events": patch["events"]}
                        if message["type"] == "state":
                            self._on_state(seen, message, first)
                            first = False
                            if seen.over:
                                return
                            last = message
                        elif message["type"] != "error" or last is None:
                            continue  # after an error (a race with a bot): choose again
                        action = self._choose(seen, last, rng)
                        if action is not None:
                            await ws.send(action)
            except websockets.ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                if code == 4410:
                    seen.over = True  # finished while this client was away
                elif code == 4404:
                    seen.over = True
                    self.report.problems.append(f"{table_id}: the server does not know it")
            except (OSError, TimeoutError, websockets.WebSocketException):
                pass
            await asyncio.sleep(0.02)

    def _on_state(self, seen: Seen, message: dict[str, Any], first: bool) -> None:
        if message["v"] < seen.version:
            seen.forgotten += 1
        if message["full"] and (seen.connections > 1 or not first):
            seen.full_resyncs += 1
        for event in message["events"]:
            if event["kind"] == "action":
                seen.actions.append((event["hand"], event["seat"], event["action"]))
            elif event["kind"] == "over":
                seen.winner = event["winner"]
        seen.version = message["v"]
        view = message["view"]
        if view is not None and view["winner"] is not None:
            seen.winner = view["winner"]
            seen.over = True

    def _choose(self, seen: Seen, message: dict[str, Any], rng: random.Random) -> str | None:
        """A random legal action (now and then a megaphone word, or a card released early)."""
        if seen.seat is None:
            return None
        table, view = message["table"], message["view"]
        if table["status"] == "waiting":
            if message["you"]["seat"] is None:
                return json.dumps({"type": "sit", "seat": seen.seat})
            return None
        if view is None or view["seat"] is None:
            return None
        legal = view["legal"]
        words = [a for a in legal if a.startswith("say ")]
        moves = [a for a in legal if not a.startswith("say ")]
        if words and rng.random() < 0.05:
            return json.dumps({"type": "act", "action": rng.choice(words)})
        if moves:
            return json.dumps({"type": "act", "action": rng.choice(moves)})
        if view["hand"] and message["you"]["committed"] is None and rng.random() < 0.2:
            return json.dumps({"type": "act", "action": f"play {rng.choice(view['hand'])}"})
        return None

    # ---------------------------------------------------------------- tables
    async def _guest(self, http: httpx.AsyncClient, name: str) -> str:
        response = await http.post(f"{self.base}/api/guest", json={"name": name}, timeout=10)
        response.raise_for_status()
        return str(response.json()["token"])

    async def _lane(self, http: httpx.AsyncClient, lane: int) -> None:
        """Keep one table going: a new one when its match ends."""
        shapes = [
            ({"players": 2, "target": 15}, {"1": "random"}, [0]),  # a person and a bot
            ({"players": 2, "target": 15}, {}, [0, 1]),  # two people
            ({"players": 4, "target": 15, "flor": True}, {"2": "random", "3": "simple"}, [0, 1]),
        ]
        while not self.done:
            rules, bots, people = shapes[lane % len(shapes)]
            try:
                tokens = [await self._guest(http, f"p{lane}-{s}") for s in people]
                response = await http.post(
                    f"{self.base}/api/tables",
                    json={"rules": rules, "seat": 0, "bots": bots},
                    headers={"Authorization": f"Bearer {tokens[0]}"},
                    timeout=10,
                )
                response.raise_for_status()
            except httpx.HTTPError:
                await asyncio.sleep(0.1)  # the server is down: try again
                continue
            table_id = response.json()["id"]
            clients = [Seen(seat, seat % 2) for seat in people] + [Seen(None, None)]
            self.live[table_id] = clients
            rng = random.Random(self.rng.random())
            await asyncio.gather(
                *(
                    self._client(table_id, seen, tokens[i] if i < len(tokens) else None, rng)
                    for i, seen in enumerate(clients)
                )
            )
            if table_id in self.live and not self.done:
                await self._finish(http, table_id)

    # ---------------------------------------------------------------- the run
    def stop(self) -> None:
        """End the run after the current kill (and report what was done)."""
        self.stopping = True

    async def run(self) -> Report:
        started = time.monotonic()
        store = Store(self.db_url)
        self._start()
        lanes: list[asyncio.Task[None]] = []
        try:
            async with httpx.AsyncClient() as http:
                await self._wait_up(http)
                lanes = [asyncio.create_task(self._lane(http, i)) for i in range(self.tables)]
                while self.report.kills < self.kills and not self.stopping:
                    if time.monotonic() - started > self.time_limit:
                        self.report.problems.append("time limit reached")
                        break
                    await asyncio.sleep(self.rng.uniform(*self.up))
                    self._kill()
                    self.report.kills += 1
                    await asyncio.to_thread(self._check_stored, store)
                    self._start()
                    self.report.restarts += 1
                    await self._wait_up(http)
                    if self.report.kills % 10 == 0:
                        self.progress(
                            f"{self.report.kills} kills, {self.report.matches} matches, "
                            f"lost {self.report.lost}, forgotten {self.report.forgotten}"
                        )
        finally:
            self.done = True
            for task in lanes:
                task.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
            if self.process is not None and self.process.poll() is None:
                self._kill()
            await asyncio.to_thread(self._check_stored, store)
            for clients in self.live.values():
                for seen in clients:
                    self.report.actions_told += len(seen.actions)
                    self.report.full_resyncs += seen.full_resyncs
                    self.report.forgotten += seen.forgotten
            store.engine.dispose()
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        self.report.server_errors = text.count("Traceback")
        if self.report.server_errors:
            self.report.problems.append(f"tracebacks in {self.log_path}")
        self.report.seconds = round(time.monotonic() - started, 1)
        return self.report
