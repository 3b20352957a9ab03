"""A Redis that stops answering (SIGSTOP on a private ``redis-server``): the bus's
``PUBLISH`` gives up within its timeout instead of waiting for ever, what waits to be sent
stays bounded, and once Redis answers again the bus publishes by itself."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import threading
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


def test_a_table_made_while_redis_is_paused_is_served_or_refused_never_left_behind(
    private_redis: tuple[subprocess.Popen[bytes], str],
) -> None:
    """A node creates a table while its Redis is paused. A short pause: the creator waits
    and the table is served once Redis answers. A pause longer than the creator waits
    (30 s): 503 ``no_site``, and the table is withdrawn, so it never starts later (the
    creator was told it was not made)."""
    import httpx
    from tests.cluster_testing import nodes
    from tests.databases import postgres_schema, postgres_unreachable, service_missing
    from tests.server_testing import TableClient, guest_token

    reason = postgres_unreachable()
    if reason:
        service_missing(reason)
    process, url = private_redis
    body = {"rules": {"players": 2}, "seat": 0, "bots": {"1": "simple"}}
    with (
        postgres_schema("truco_paused") as db_url,
        nodes(db_url, "paused:", 1, "--redis", url) as (node,),
    ):
        token = guest_token(node.url, "Ana")
        headers = {"Authorization": f"Bearer {token}"}

        def create(pause: float) -> httpx.Response:
            process.send_signal(signal.SIGSTOP)
            resume = threading.Timer(pause, process.send_signal, (signal.SIGCONT,))
            resume.start()
            try:
                return httpx.post(f"{node.url}/api/tables", json=body, headers=headers, timeout=90)
            finally:
                resume.join()

        short = create(3)
        assert short.status_code == 201, short.text
        client = TableClient(node.ws_url, short.json()["id"], token)
        assert client.wait_state(lambda s: s["view"] is not None)["table"]["status"] == "playing"
        client.close()

        long = create(36)
        assert (long.status_code, long.json()["code"]) == (503, "no_site")
        time.sleep(3)  # Redis answers again: nothing of the refused table starts
        listed = httpx.get(f"{node.url}/api/tables", timeout=10).json()
        # (the first table may be gone a while: its lease ran out during the long pause)
        assert {t["id"] for t in listed} <= {short.json()["id"]}
        again = httpx.post(f"{node.url}/api/tables", json=body, headers=headers, timeout=30)
        assert again.status_code == 201, again.text
