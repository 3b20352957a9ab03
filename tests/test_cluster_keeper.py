"""Leases renewed from a thread of their own (``truco.server.cluster.keeper``): a loop that
falls behind keeps them; a loop that stays silent loses them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from tests.cluster_testing import REDIS_URL, redis_prefix, redis_unreachable

from truco.server.cluster.keeper import LeaseKeeper
from truco.server.cluster.lease import Lease, Leases


@pytest.fixture
def prefix() -> Iterator[str]:
    reason = redis_unreachable()
    if reason:
        pytest.skip(reason)
    with redis_prefix() as prefix:
        yield prefix


def test_a_blocked_loop_keeps_its_leases_and_a_silent_one_loses_them(prefix: str) -> None:
    from redis.asyncio import Redis

    async def scenario() -> None:
        redis = Redis.from_url(REDIS_URL)
        leases = Leases(redis, prefix, "busy", 300)
        outcomes: list[tuple[list[Lease], list[Lease]]] = []
        held: dict[str, Lease] = {}

        def renewed(lost: list[Lease], regained: list[Lease]) -> None:  # (as a node does)
            outcomes.append((lost, regained))
            held.update({lease.table_id: lease for lease in regained})

        keeper = LeaseKeeper(
            REDIS_URL,
            prefix,
            "busy",
            300,
            lambda: list(held.values()),
            renewed,
            asyncio.get_running_loop(),
            stall_seconds=1.0,
        )
        try:
            lease = await leases.acquire("t1")
            assert lease is not None
            held["t1"] = lease
            keeper.start()
            time.sleep(0.8)  # noqa: ASYNC251 (the loop blocked for more than twice the lease)
            assert await leases.owners(["t1"]) == [("busy", lease.token)]  # renewed meanwhile
            assert await redis.zscore(f"{prefix}nodes", "busy") is not None
            await asyncio.sleep(1.5)  # no tick for longer than stall_seconds: not renewed
            assert await leases.owners(["t1"]) == [None]
            keeper.tick()  # the loop is back: the lease, expired unclaimed, is regained
            await asyncio.sleep(0.4)
            assert outcomes == [([], [Lease("t1", "busy", lease.token + 1)])]  # nothing lost
            assert await leases.owners(["t1"]) == [("busy", lease.token + 1)]
        finally:
            keeper.stop()
            await redis.aclose()

    asyncio.run(scenario())
