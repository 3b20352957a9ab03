"""The cluster benchmark's load generator (benchmarks/loadgen.py, benchmarks/wsclient.py)
against a real server on 127.0.0.1: its lean WebSocket client is accepted by the server
(handshake, masked frames), its players play a table to the end, every action they send is
measured once, and an error reply is counted as an error."""

from __future__ import annotations

import asyncio
import random
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from cluster_testing import record_actions
from server_testing import LiveServer, create_table, guest_token
from truco.record import record_from_json, replay
from truco.server.config import ServerConfig

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import loadgen
import wsclient


class Value:
    def __init__(self, value: Any) -> None:
        self.value = value


class Shared:
    """What loadgen reads of the benchmark's multiprocessing objects, in one process."""

    def __init__(self) -> None:
        self.target = Value(0)
        self.window = Value(1)  # a window open from the start
        self.stopping = threading.Event()
        self.dead = Value(-1)
        self.killed = Value(0.0)


async def eventually(check: Callable[[], bool], seconds: float) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("it did not happen in time")


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    config = ServerConfig(
        db_url="sqlite://", turn_seconds=0, bot_delay=0, rate_per_second=1000, rate_burst=1000
    )
    with LiveServer(config) as live:
        yield live


def test_a_client_frame_is_masked_with_a_fresh_key() -> None:
    payload = b'{"type": "act", "action": "play 1e"}' * 5  # 180 bytes: a 16-bit length
    one, two = wsclient.frame(wsclient.TEXT, payload), wsclient.frame(wsclient.TEXT, payload)
    assert one[0] == 0x81 and one[1] == 0x80 | 126
    assert int.from_bytes(one[2:4], "big") == len(payload)
    key, masked = one[4:8], one[8:]
    assert bytes(b ^ key[i % 4] for i, b in enumerate(masked)) == payload
    assert masked != payload and one != two  # a new key for each frame


def test_the_lean_client_plays_a_table_to_the_end(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = Shared()
    load = loadgen.Loader([server.url], 50.0, shared, keep_seen=True)
    measured: Counter[str] = Counter()  # table -> actions measured (every seat got them)
    deliver = loadgen.delivered

    def delivered(load: Any, table: Any, *rest: Any) -> None:
        before = sum(w.actions for w in load.windows.values())
        deliver(load, table, *rest)
        measured[table.id] += sum(w.actions for w in load.windows.values()) - before

    monkeypatch.setattr(loadgen, "delivered", delivered)

    def both_saw_the_end() -> bool:
        (table,) = load.finished
        seen = load.seen.get(table, {})
        return len(seen) == 2 and seen[0] == seen[1]

    async def play() -> None:
        http = loadgen.JsonPoster()
        task = asyncio.create_task(loadgen.lane(load, http, 0, random.Random(7)))
        # the match is over for both seats: the second may get the last action after the
        # first, and once stopping is set the loader measures nothing more
        await eventually(lambda: bool(load.finished) and both_saw_the_end(), 120)
        shared.stopping.set()
        load.poll()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await http.close()

    loadgen.run_loop(play())
    assert len(load.finished) == 1
    (table,) = load.finished
    window = load.windows[1]
    assert not window.errors
    seen = load.seen[table]
    assert set(seen) == {0, 1}
    # both seats saw the same actions, each played by one of them, and each was measured once
    actions = list(seen[0].values())
    assert actions == list(seen[1].values())
    assert len(actions) >= 10 and {seat for _, seat, _ in actions} == {0, 1}
    assert measured[table] == len(actions)  # (the lane may have begun its next table)
    assert window.actions == sum(measured.values()) == len(window.latencies)
    assert all(0 < ms < 10_000 for ms in window.latencies)
    # one node: every seat is on the node that runs the table, so every action is a local one
    assert window.local_latencies == window.latencies
    # what the server stored of the finished match is what the seats saw played
    record = httpx.get(f"{server.url}/api/matches/{table}/record", timeout=10).json()
    assert record_actions(record) == actions
    assert replay(record_from_json(record)).winner is not None  # played to the end


def test_an_error_reply_is_counted_as_an_error(server: LiveServer) -> None:
    token = guest_token(server.url, "uno")
    table = create_table(server.url, token, rules={"players": 2, "target": 15}, turn_seconds=0)
    shared = Shared()
    load = loadgen.Loader([server.url], 1.0, shared, keep_seen=False)
    received: list[dict[str, Any]] = []

    async def misplay() -> None:
        load.poll()
        game = loadgen.TableLoad(table["id"], 2, 0)
        seat = loadgen.Seat(load, game, token, 0, random.Random(1))

        def heard(raw: Any) -> None:
            received.append(orjson.loads(raw))
            seat.received(raw)

        closed = asyncio.Event()
        seat.client = await wsclient.connect(f"{server.ws_url}/ws/{table['id']}", heard, closed.set)
        seat.send({"type": "hello", "token": token, "since": None})
        seat.send({"type": "act", "action": "play 1e"})  # nobody has sat: not a legal action
        await eventually(lambda: 1 in load.windows and bool(load.windows[1].errors), 30)
        seat.leave()
        async with asyncio.timeout(10):
            await closed.wait()  # the closing handshake ends with the server closing

    loadgen.run_loop(misplay())
    codes = [m["code"] for m in received if m["type"] == "error"]
    assert codes and load.windows[1].errors == {codes[0]: 1}


def test_a_server_that_does_not_upgrade_is_an_error(server: LiveServer) -> None:
    async def bad() -> None:
        await wsclient.connect(f"{server.ws_url}/api/tables", print, lambda: None)

    with pytest.raises(wsclient.HandshakeError):
        loadgen.run_loop(bad())
