"""The cluster benchmark's load generator: many 1v1 tables played at a human pace by real
WebSocket clients, measured from each action sent to every seat of its table receiving it.

One loader process runs many *lanes*; a lane keeps one table going (a finished match is
replaced by a new table of the same two players). Each seat is its own WebSocket connection
(:mod:`wsclient`: real handshake, masked frames) to a node picked at random, and plays a
random legal action from its own seat's view, no sooner than ``1 / rate`` seconds after its
table's previous one.

It is built to cost the machine little per action, since it shares the machine with the nodes
it measures: uvloop; each message handled in the socket's own callback (no task per seat, no
``recv`` future, no timeout context per message); an action sent from one timer callback (no
sleeping task); one sweep a second for silent seats instead of a timeout per read; the
multiprocessing flags read a hundred times a second into plain attributes instead of through
their locks at each message.
"""

from __future__ import annotations

import asyncio
import gc
import random
import sys
import time
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
from httppost import JsonPoster
from wsclient import WebSocketClient, connect

from truco.view import apply_patch

Action = tuple[int, int, str]  # hand, seat, token

T = TypeVar("T")

QUIET = 3.0  # seconds without a message: ask the table for what was missed (a sync)
GIVE_UP = 30.0  # seconds without a message: a timeout error, the table is given up


@dataclass
class Window:
    """What one loader measured in one window."""

    latencies: list[float] = field(default_factory=list)  # ms, action -> every seat got it
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    # the same for tables whose seats are all on the node that runs them (no Redis between)
    local_latencies: list[float] = field(default_factory=list)


class Loader:
    """One load-generator process: its tables, and what it measured.

    ``shared`` is the benchmark's :class:`cluster.Shared`: its numbers are read without their
    locks when needed (``window``, ``dead``, ``killed``), its ``stopping`` flag by :meth:`poll`."""

    def __init__(self, nodes: list[str], rate: float, shared: Any, keep_seen: bool) -> None:
        self.nodes = [url.replace("http", "ws", 1) for url in nodes]
        self.http_nodes = nodes
        self.rate = rate
        self.shared = shared
        self.keep_seen = keep_seen  # what each seat saw (only a failover run needs it)
        self.windows: dict[int, Window] = {}
        self.seated: set[int] = set()  # lanes whose first table is seated
        self.reconnects = 0
        self.drops: Counter[str] = Counter()  # why sockets dropped (printed at the end)
        # table -> seat -> the actions the seat saw, by version; its own ones are acknowledged
        self.seen: dict[str, dict[int, dict[int, Action]]] = {}
        self.owner: dict[str, int] = {}  # table -> node it was created on
        self.finished: set[str] = set()
        self.back: dict[str, float] = {}  # table -> first action after the kill
        self.seats: set[Seat] = set()  # the seats playing now (the sweep looks at them)
        # the shared numbers, read without their locks (single words: no torn read), at once
        self._window, self._dead, self._killed = (
            getattr(value, "get_obj", lambda value=value: value)()
            for value in (shared.window, shared.dead, shared.killed)
        )
        self.stopping = False
        self.poll()

    def poll(self) -> None:
        """Read the stopping flag (an Event: its read takes locks, so not once a message)."""
        self.stopping = self.shared.stopping.is_set()

    @property
    def dead(self) -> int:
        """The index of the node killed (-1: none)."""
        return int(self._dead.value)

    @property
    def killed(self) -> float:
        """When the node was killed (perf_counter; 0: not yet)."""
        return float(self._killed.value)

    def window(self) -> Window | None:
        """The window open now (None: none, or stopping)."""
        w = self._window.value
        if not w or self.stopping:
            return None
        found = self.windows.get(w)
        if found is None:
            found = self.windows[w] = Window()
        return found

    def error(self, code: str) -> None:
        window = self.window()
        if window is not None:
            window.errors[code] += 1

    def live_node(self, rng: random.Random) -> int:
        return rng.choice([i for i in range(len(self.nodes)) if i != self.dead])

    def sweep(self) -> None:
        """Seats silent for QUIET seconds ask for a sync (an action lost with a node is sent
        again); silent for GIVE_UP seconds, their table is given up (a timeout error)."""
        now = time.perf_counter()
        for seat in list(self.seats):
            if seat.client is None or now - seat.heard < QUIET:
                continue
            if now - seat.heard >= GIVE_UP:
                self.error("timeout")
                seat.table.give_up()
            elif now - seat.poked >= QUIET:
                seat.poked = now
                seat.acted = -1
                seat.send({"type": "sync", "since": seat.last_version() or 0})


@dataclass(eq=False)
class TableLoad:
    id: str
    seats: int
    lane: int
    next_at: float = 0.0
    pending: dict[Action, tuple[float, set[int]]] = field(default_factory=dict)
    greeted: set[int] = field(default_factory=set)
    given_up: bool = False
    players: list[Seat] = field(default_factory=list)

    def give_up(self) -> None:
        """A seat has heard nothing for too long: every seat leaves."""
        if not self.given_up:
            self.given_up = True
            for seat in self.players:
                seat.leave()


class Seat:
    """One player of a table: a WebSocket client that plays from its own view."""

    def __init__(
        self, load: Loader, table: TableLoad, token: str, index: int, rng: random.Random
    ) -> None:
        self.load = load
        self.table = table
        self.token = token
        self.index = index
        self.rng = rng
        self.node = rng.randrange(len(load.nodes))
        self.seen: dict[int, Action] = (
            load.seen.setdefault(table.id, {}).setdefault(index, {}) if load.keep_seen else {}
        )
        self.last_seen: int | None = None  # the last action's version (without keep_seen)
        self.sat = False
        self.client: WebSocketClient | None = None
        self.over = False  # this seat has seen the match end
        self.acted = -1  # the version whose turn this seat has taken (or scheduled)
        self.legal: list[str] = []  # the latest view's actions (``say`` left out)
        self.state: dict[str, Any] | None = None  # the table as last told (patches applied)
        self.hand_index = 0
        self.timer: asyncio.TimerHandle | None = None
        self.heard = self.poked = time.perf_counter()
        self.left = asyncio.get_running_loop().create_future()

    def last_version(self) -> int | None:
        return max(self.seen, default=None) if self.load.keep_seen else self.last_seen

    def send(self, message: dict[str, Any]) -> None:
        if self.client is not None:
            self.client.send(orjson.dumps(message))

    async def play(self) -> None:
        """Connect (again after a dropped socket) until the table is done."""
        load, table = self.load, self.table
        load.seats.add(self)
        try:
            while not self.over and not table.given_up and not load.stopping:
                if self.node == load.dead:
                    self.node = load.live_node(self.rng)
                lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

                def closed(lost: asyncio.Future[None] = lost) -> None:
                    if not lost.done():
                        lost.set_result(None)

                try:
                    self.client = client = await connect(
                        f"{load.nodes[self.node]}/ws/{table.id}", self.received, closed
                    )
                except (OSError, TimeoutError) as error:
                    self.dropped(f"connect: {type(error).__name__} {error}"[:80])
                    await asyncio.sleep(0.05)
                    continue
                self.heard = self.poked = time.perf_counter()
                self.send({"type": "hello", "token": self.token, "since": self.last_version()})
                if not self.sat:
                    self.send({"type": "sit", "seat": self.index})
                    self.sat = True
                await lost
                self.client = None
                if self.over or table.given_up or load.stopping:
                    return
                self.dropped(closed_why(client))
                await asyncio.sleep(0.05)
        finally:
            load.seats.discard(self)
            self.client = None
            if self.timer is not None:
                self.timer.cancel()

    def dropped(self, why: str) -> None:
        load = self.load
        load.drops[why] += 1
        if load.dead < 0:  # no node was killed: an error, then a reconnection
            load.error("disconnected")
        else:  # (replaced by a live node before connecting again)
            self.node = load.dead
        self.acted = -1
        load.reconnects += 1

    def leave(self) -> None:
        if self.client is not None:
            self.client.close()

    def received(self, raw: bytes) -> None:
        """One message from the server (called from the socket's callback): a ``state``
        replaces what the seat holds, a ``patch`` is applied to it (a patch that does not
        follow it: a frame was missed, the whole state is asked for again)."""
        now = time.perf_counter()
        self.heard = self.poked = now
        msg = orjson.loads(raw)
        kind = msg["type"]
        load, table = self.load, self.table
        if kind == "error":
            load.error(msg["code"])
            self.acted = -1
            return
        if kind == "patch":
            if self.state is None or msg["base"] != self.state["v"]:
                self.send({"type": "sync", "since": 0 if self.state is None else self.state["v"]})
                return
            self.state = {**apply_patch(self.state, msg["set"]), "v": msg["v"]}
        elif kind == "state":
            self.state = msg
        else:
            return
        if len(table.greeted) < table.seats:
            table.greeted.add(self.index)
            if len(table.greeted) == table.seats:
                load.seated.add(table.lane)
        if self.events(msg["events"], now):  # (the other seat leaves once it has seen it too)
            self.over = True
            load.finished.add(table.id)
            self.leave()
            return
        view = self.state["view"]
        if view is None or not view["legal"]:  # no legal action in its view (or no view)
            self.legal = []
            return
        if view["winner"] is not None:
            return
        self.legal = [a for a in view["legal"] if not a.startswith("say ")]
        self.hand_index = view["hand_index"]
        version = self.state["v"]
        if self.legal and version != self.acted and self.timer is None:
            self.acted = version
            wait = table.next_at - now
            loop = asyncio.get_running_loop()
            if wait > 0:
                self.timer = loop.call_later(wait, self.act)
            else:
                self.act()

    def events(self, events: list[dict[str, Any]], now: float) -> bool:
        """Note the actions delivered to this seat; whether the match is over."""
        over = False
        for event in events:
            what = event["kind"]
            if what == "action":
                action = (event["hand"], event["seat"], event["action"])
                delivered(self.load, self.table, self.index, action, now)
                if self.load.keep_seen:
                    self.seen[event["v"]] = action
                else:
                    self.last_seen = event["v"]
            elif what == "over":
                over = True
        return over

    def act(self) -> None:
        """The seat's turn, at its table's pace: a random legal action of its latest view."""
        self.timer = None
        table = self.table
        if not self.legal or self.client is None or self.over or table.given_up:
            return
        action = self.rng.choice(self.legal)
        sent = time.perf_counter()
        table.next_at = sent + 1 / self.load.rate
        table.pending[(self.hand_index, self.index, action)] = (
            sent,
            set(range(table.seats)),
        )
        self.send({"type": "act", "action": action})


def closed_why(client: WebSocketClient) -> str:
    """Why a socket dropped: the server's close code and reason, or none came."""
    if client.close_code is None:
        return "dropped without a closing frame"
    return f"closed {client.close_code} {client.close_reason}"[:80]


def delivered(load: Loader, table: TableLoad, seat: int, action: Action, now: float) -> None:
    pending = table.pending.get(action)
    if pending is None:
        return
    sent, waiting = pending
    waiting.discard(seat)
    if not waiting:
        del table.pending[action]
        if 0 < load.killed < sent:  # the table's first action sent after the kill
            load.back.setdefault(table.id, now)
        window = load.window()
        if window is not None:
            window.latencies.append(1000 * (now - sent))
            window.actions += 1
            home = load.owner.get(table.id)
            if all(seat.node == home for seat in table.players):
                window.local_latencies.append(1000 * (now - sent))


async def lane(load: Loader, http: JsonPoster, index: int, rng: random.Random) -> None:
    """Keep one table going: a finished match is replaced by a new table."""
    nodes = load.http_nodes
    tokens = []  # the lane's two players play match after match
    for s in range(2):
        status, guest = await http.post(f"{nodes[s % len(nodes)]}/api/guest", {"name": f"b{s}"})
        if status != 200:
            raise RuntimeError(f"a guest: {status} {guest}")
        tokens.append(guest["token"])
    while not load.stopping:
        home = index % len(nodes)
        if home == load.dead:
            home = (home + 1) % len(nodes)
        try:
            status, created = await http.post(
                f"{nodes[home]}/api/tables",
                {
                    "rules": {"players": 2, "target": 15},
                    "name": "bench",
                    "turn_seconds": 0,
                },
                tokens[0],
            )
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            status, created = 0, None  # (its node was killed)
        if status != 201:
            load.error(f"create {status}")
            await asyncio.sleep(1)
            continue
        start = time.perf_counter() + rng.random() / load.rate
        table = TableLoad(created["id"], 2, index, next_at=start)
        load.owner[table.id] = home
        table.players = [
            Seat(load, table, tokens[s], s, random.Random(rng.random())) for s in range(2)
        ]
        await asyncio.gather(*(seat.play() for seat in table.players))
        if not load.keep_seen:
            load.seen.pop(table.id, None)


def share(total: int, index: int, parts: int) -> int:
    """Loader ``index``'s part of ``total`` tables."""
    return total // parts + (index < total % parts)


async def run(
    nodes: list[str],
    index: int,
    loaders: int,
    rate: float,
    keep_seen: bool,
    shared: Any,
) -> dict[str, Any]:
    """Keep this loader's share of the tables playing until the benchmark stops; hand each
    window's figures over when it closes. The failover figures."""
    load = Loader(nodes, rate, shared, keep_seen)
    rng = random.Random(index)
    lanes: list[asyncio.Task[None]] = []
    http = JsonPoster()  # (no cookies: each guest request makes a new player)
    try:
        reported, open_window, frozen, swept = 0, 0, time.monotonic(), time.monotonic()
        while not load.stopping:
            load.poll()
            now = time.monotonic()
            if now - frozen > 10:  # (a short-lived process: no leak to fear)
                gc.freeze()  # full collections walk only the last 10 s of objects
                frozen = now
            if now - swept >= 1:
                load.sweep()
                swept = now
            mine = share(shared.target.value, index, loaders)
            while len(lanes) < mine:
                lanes.append(asyncio.create_task(lane(load, http, len(lanes), rng)))
            if reported < mine <= len(load.seated):
                reported = mine
                shared.ready.release()  # every table of this share seated
            window = shared.window.value
            if open_window and window != open_window:
                w = load.windows.pop(open_window, Window())
                shared.measured.put(
                    {
                        "window": open_window,
                        "latencies": w.latencies,
                        "local_latencies": w.local_latencies,
                        "actions": w.actions,
                        "errors": dict(w.errors),
                    }
                )
            open_window = window
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        for task in lanes:
            task.cancel()
        await asyncio.gather(*lanes, return_exceptions=True)
        for seat in list(load.seats):
            seat.leave()
    finally:
        await http.close()
    if load.drops:  # (each is an error or a reconnection already counted: this says why)
        print(f"loader {index}: sockets dropped: {dict(load.drops)}", file=sys.stderr)
    return {
        "reconnects": load.reconnects,
        "seen": {
            t: {str(s): list(v.values()) for s, v in seats.items()}
            for t, seats in load.seen.items()
        }
        if keep_seen
        else {},
        "finished": list(load.finished),
        "owner": load.owner,
        "back": load.back,
    }


def loader_main(
    nodes: list[str],
    index: int,
    loaders: int,
    rate: float,
    keep_seen: bool,
    shared: Any,
) -> None:
    """One load-generator process (uvloop when installed)."""
    gc.freeze()  # (the loader's own pauses would show as the server's latency)
    shared.results.put(run_loop(run(nodes, index, loaders, rate, keep_seen, shared)))


def run_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run on uvloop (``uvicorn[standard]`` brings it), else on asyncio's own loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)
