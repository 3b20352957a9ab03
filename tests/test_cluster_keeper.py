"""Leases renewed from a thread of their own (``truco.server.cluster.keeper``): a loop that
falls behind keeps them; a loop that stays silent loses them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from tests.cluster_testing import REDIS_URL, redis_prefix, redis_unreachable
from tests.databases import service_missing

from truco.server.cluster.keeper import LeaseKeeper
from truco.server.cluster.lease import Lease, Leases


@pytest.fixture
def prefix() -> Iterator[str]:
    reason = redis_unreachable()
    if reason:
        service_missing(reason)
    with redis_prefix() as prefix:
        yield prefix


def test_a_blocked_loop_keeps_its_leases_and_a_silent_one_loses_them(prefix: str) -> None:
    from redis.asyncio import Redis

    async def scenario() -> None:
        redis = Redis.from_url(REDIS_URL)
        leases = Leases(redis, prefix, "busy", 1000)
        outcomes: list[tuple[list[Lease], list[Lease]]] = []
        held: dict[str, Lease] = {}

        def renewed(lost: list[Lease], regained: list[Lease]) -> None:  # (as a node does)
            held.update({lease.table_id: lease for lease in regained})
            # a loss reported under an older token than the one held is stale: ignored
            outcomes.append(([x for x in lost if held.get(x.table_id) == x], regained))

        keeper = LeaseKeeper(
            REDIS_URL,
            prefix,
            "busy",
            1000,
            lambda: list(held.values()),
            renewed,
            asyncio.get_running_loop(),
            stall_seconds=2.5,
        )
        try:
            lease = await leases.acquire("t1")
            assert lease is not None
            held["t1"] = lease
            keeper.start()
            time.sleep(2.2)  # noqa: ASYNC251 (the loop blocked for more than twice the lease)
            owner = (await leases.owners(["t1"]))[0]
            assert owner is not None and owner[0] == "busy"  # renewed meanwhile
            assert await redis.zscore(f"{prefix}nodes", "busy") is not None
            await asyncio.sleep(4.0)  # no tick for longer than stall_seconds: not renewed
            assert await leases.owners(["t1"]) == [None]
            keeper.tick()  # the loop is back: the lease, expired unclaimed, is regained
            await asyncio.sleep(1.5)
            owner = (await leases.owners(["t1"]))[0]
            assert owner is not None and owner[0] == "busy" and owner[1] > lease.token
            assert outcomes and all(not lost for lost, _ in outcomes)  # never lost
        finally:
            keeper.stop()
            await redis.aclose()

    asyncio.run(scenario())
