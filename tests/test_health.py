"""``/healthz`` and ``/readyz``: what a load balancer asks a node (docs/operations.md).

A node answers ready while its database (and in a cluster, Redis and its lease keeper)
answer; told to stop, it turns unready first, goes on serving for ``--drain-seconds``,
then hands its tables over and exits."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine
from tests.cluster_testing import Node, redis_prefix, redis_unreachable
from tests.databases import postgres_schema, postgres_unreachable
from tests.server_testing import LiveServer, free_port

from truco.server import ServerConfig
from truco.server.web.health import Readiness


def test_a_serving_node_is_alive_and_ready_and_probes_are_never_rate_limited() -> None:
    config = ServerConfig(db_url="sqlite://", http_rate="5/minute")
    with LiveServer(config) as server, httpx.Client(base_url=server.url) as http:
        for _ in range(30):  # a balancer probing from one address, far past the API's rate
            assert http.get("/healthz").json() == {"status": "ok"}
            ready = http.get("/readyz")
            assert ready.status_code == 200
        assert ready.json() == {"ready": True, "checks": {"database": "ok", "node": "ok"}}
        api = [http.get("/api/options").status_code for _ in range(6)]
        assert api == [200] * 5 + [429]  # the API's limit holds meanwhile


def test_a_node_whose_database_does_not_answer_is_not_ready() -> None:
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    server = SimpleNamespace(
        store=SimpleNamespace(engine=engine), lobby=SimpleNamespace(stopping=False)
    )
    checks = asyncio.run(Readiness().checks(server))
    assert checks["node"] == "ok"
    assert checks["database"].startswith("the database: ")


def test_a_cluster_node_whose_redis_does_not_answer_is_not_ready() -> None:
    import redis.asyncio

    async def checks() -> dict[str, str]:
        lobby = SimpleNamespace(
            stopping=False,
            redis=redis.asyncio.Redis(port=1, socket_connect_timeout=0.5),
            keeper=None,
            lease_ms=3000,
        )
        engine = create_engine("sqlite://")
        return await Readiness().checks(
            SimpleNamespace(store=SimpleNamespace(engine=engine), lobby=lobby)
        )

    verdict = asyncio.run(checks())
    assert verdict["database"] == "ok"
    assert verdict["redis"] != "ok" and verdict["redis"].startswith("Redis")
    assert verdict["leases"] == "not renewed within a lease's time"


def test_readiness_is_checked_at_most_once_a_second() -> None:
    calls = []

    class CountingEngine:
        def connect(self) -> Any:
            calls.append(time.monotonic())
            return create_engine("sqlite://").connect()

    server = SimpleNamespace(
        store=SimpleNamespace(engine=CountingEngine()), lobby=SimpleNamespace(stopping=False)
    )
    readiness = Readiness()

    async def probe(times: int) -> None:
        await asyncio.gather(*(readiness.checks(server) for _ in range(times)))

    asyncio.run(probe(50))
    assert len(calls) == 1


def probe(url: str) -> int | None:
    try:
        return httpx.get(url, timeout=2).status_code
    except httpx.HTTPError:
        return None


def drains_then_exits(process: subprocess.Popen[Any], base: str, drain: float) -> None:
    """SIGTERM: unready (503) while still serving, for about ``drain`` seconds; then gone."""
    process.send_signal(signal.SIGTERM)
    told = time.monotonic()
    seen: list[tuple[float, int | None, int | None]] = []
    while process.poll() is None and time.monotonic() - told < drain + 30:
        seen.append((time.monotonic() - told, probe(f"{base}/readyz"), probe(f"{base}/healthz")))
        time.sleep(0.1)
    # uvicorn shuts down cleanly, then ends the process with the signal it was sent
    assert process.wait(30) in (0, -signal.SIGTERM)
    draining = [t for t, ready, alive in seen if ready == 503 and alive == 200]
    assert draining, seen
    first = next(i for i, (_, ready, _) in enumerate(seen) if ready == 503)
    assert all(ready != 200 for _, ready, _ in seen[first:]), seen  # never ready again
    assert max(draining) >= drain * 0.7, seen  # it went on serving through the drain


def test_truco_serve_told_to_stop_turns_unready_first_then_exits(tmp_path: Any) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "truco.cli", "serve", "--port", str(port),
         "--db", f"sqlite:///{tmp_path / 'drain.sqlite3'}", "--drain-seconds", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        for _ in range(600):
            if probe(f"{base}/readyz") == 200:
                break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        drains_then_exits(process, base, 2.0)
    finally:
        if process.poll() is None:
            process.kill()


def test_a_cluster_node_is_ready_with_its_leases_and_unready_while_it_stops() -> None:
    missing = postgres_unreachable() or redis_unreachable()
    if missing:
        pytest.skip(missing)
    with postgres_schema() as db_url, redis_prefix() as prefix:
        node = Node(db_url, prefix, "--drain-seconds", "2")
        try:
            ready = httpx.get(f"{node.url}/readyz", timeout=5)
            for _ in range(50):  # the keeper's first renewal is done before it serves
                if ready.status_code == 200:
                    break
                time.sleep(0.1)
                ready = httpx.get(f"{node.url}/readyz", timeout=5)
            assert ready.json() == {
                "ready": True,
                "checks": {"database": "ok", "node": "ok", "redis": "ok", "leases": "ok"},
            }
            drains_then_exits(node.process, node.url, 2.0)
        finally:
            node.stop()
