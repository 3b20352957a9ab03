"""A Redis that stops answering (SIGSTOP on a private ``redis-server``): the bus's
``PUBLISH`` gives up within its timeout instead of waiting for ever, what waits to be sent
stays bounded, and once Redis answers again the bus publishes by itself."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.server_testing import free_port

from truco.server.cluster import bus as bus_module
from truco.server.cluster.bus import Bus


@pytest.fixture
def private_redis(tmp_path: Any) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    server = shutil.which("redis-server")
    if server is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed (CI must have it)")
        pytest.skip("redis-server is not installed")
    port = free_port()
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    import redis

    for _ in range(100):
        try:
            redis.Redis.from_url(url, socket_timeout=0.2).ping()
            break
        except redis.RedisError:
            time.sleep(0.05)
    try:
        yield process, url
    finally:
        process.send_signal(signal.SIGCONT)
        process.kill()
        process.wait(10)


def test_a_redis_that_stops_answering_costs_a_batch_not_the_bus(
    private_redis: tuple[subprocess.Popen[bytes], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from redis.asyncio import Redis

    process, url = private_redis
    monkeypatch.setattr(bus_module, "MAX_QUEUED", 500)

    async def scenario() -> None:
        redis = Redis.from_url(url)
        bus = Bus(redis, "stall:", "here", url)
        heard: list[Any] = []
        await bus.start(heard.append)
        try:
            bus.send("here", {"k": "before", "c": "a"})
            for _ in range(50):
                if heard:
                    break
                await asyncio.sleep(0.05)
            assert heard == [{"k": "before", "c": "a"}]

            process.send_signal(signal.SIGSTOP)  # Redis stops answering
            started = time.monotonic()
            for i in range(2000):  # a node goes on sending meanwhile
                bus.send("here", {"k": "during", "c": "a", "i": i})
                await asyncio.sleep(0.001)
                assert bus._queued <= 500  # bounded, however long Redis is away
            assert bus.dropped > 0
            # the event loop was never held: 2,000 turns took about 2,000 sleeps
            assert time.monotonic() - started < 15
            process.send_signal(signal.SIGCONT)  # Redis answers again
            for _ in range(400):  # what waited goes out by itself
                if bus._queued == 0:
                    break
                await asyncio.sleep(0.05)
            assert bus._queued == 0

            bus.send("here", {"k": "after", "c": "a"})
            for _ in range(400):
                if {"k": "after", "c": "a"} in heard:
                    break
                await asyncio.sleep(0.05)
            assert {"k": "after", "c": "a"} in heard  # the bus recovered by itself
        finally:
            process.send_signal(signal.SIGCONT)
            await bus.stop()
            await redis.aclose()

    asyncio.run(scenario())
