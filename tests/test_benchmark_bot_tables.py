"""The person-vs-bot benchmark (benchmarks/bot_tables.py) against a real server on 127.0.0.1:
its person plays whole matches against the top bot thinking in the bot pool, every bot reply
in the window is timed, and a frame that does not follow the last one is a failure."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from server_testing import LiveServer
from truco.server.config import ServerConfig

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import bot_tables
from loadgen import run_loop


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    config = ServerConfig(
        db_url="sqlite://",
        turn_seconds=0,
        bot_delay=0,
        rate_per_second=1000,
        rate_burst=1000,
        http_rate="1000000/minute",
        http_write_rate="1000000/minute",
        metrics_token=bot_tables.TOKEN,
    )
    with LiveServer(config) as live:
        yield live


def test_a_person_plays_the_master_and_every_reply_is_timed(server: LiveServer) -> None:
    before = bot_tables.fallbacks(server.url)  # (the metrics are the process's)
    start = time.time() + 1
    step = bot_tables.Step(start, start + 8)
    run_loop(bot_tables.load(server.url, 2, {"1": "master"}, step, 0.05, seed=3))
    assert not step.failures
    assert step.matches >= 1  # played to the end, then a new table
    assert len(step.reply_ms) >= 20
    assert all(0 < ms < 3000 for ms in step.reply_ms)
    how = bot_tables.fallbacks(server.url)
    how.subtract(before)
    assert how["pool"] > 0  # the master thought in the pool, never its fallback
    assert not how["full"] and not how["timeout"] and not how["error"]


def test_a_missed_frame_is_a_failure() -> None:
    sent: list[bytes] = []

    class Client:
        def send(self, payload: bytes) -> None:
            sent.append(payload)

    async def receive() -> bot_tables.Step:
        step = bot_tables.Step(0, time.time() + 60)
        person = bot_tables.Person(step, 2.0, random.Random(1))
        person.client = Client()
        view = {"legal": [], "winner": None, "pending": None, "actors": []}
        person.received(orjson.dumps({"type": "state", "v": 4, "view": view, "events": []}))
        person.received(orjson.dumps({"type": "patch", "base": 6, "v": 7, "set": {}}))
        return step

    step = asyncio.run(receive())
    assert step.failures == {"frame missed": 1}
    assert orjson.loads(sent[-1])["type"] == "sync"  # and the whole state is asked for
