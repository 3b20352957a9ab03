"""The per-address limits and the socket caps of a cluster, counted in its Redis: an
address that spreads its requests or its sockets over the nodes meets the same limits as
on one server.

- The request windows (:class:`~truco.server.guards.limits.AddressLimits`, the analyses' quota)
  are the ``limits`` library's moving windows on its Redis storage (:func:`redis_windows`).
- The open sockets (:class:`RedisCounts`) are a sorted set per address or player: one
  member per socket, scored with the time it expires unless its node renews it. A node
  renews its own every :data:`RENEW_SECONDS` and removes each as it closes; the sockets of
  a node that died expire with it, within :data:`SOCKET_TTL_SECONDS`.

Redis not answering in :data:`TIMEOUT_SECONDS` is not a reason to refuse a client: the
request or the socket is let through (and a warning logged), as on a server whose limits
are in memory, never a 500.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any

from limits import RateLimitItem
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from redis.asyncio import Redis

from ..guards.limits import Windows

log = logging.getLogger("truco.server")

#: how long a call to Redis for a limit may take before the client is let through
TIMEOUT_SECONDS = 1.0
#: a socket's member expires this long after its node last renewed it
SOCKET_TTL_SECONDS = 60.0
RENEW_SECONDS = SOCKET_TTL_SECONDS / 4

# KEYS: the set; ARGV: now, the cap, the new member's expiry, the member, the key's ttl (ms)
_ENTER = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""


def _limits_uri(redis_url: str) -> str:
    """The ``limits`` library's name for the asyncio storage of ``redis_url``."""
    return f"async+{redis_url}"


class RedisWindows:
    """A moving window of the ``limits`` library on the cluster's Redis (see the module)."""

    def __init__(self, limiter: MovingWindowRateLimiter, rate: RateLimitItem) -> None:
        self.limiter = limiter
        self.rate = rate

    async def hit(self, key: str) -> bool:
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                return await self.limiter.hit(self.rate, key)
        except Exception as exc:  # Redis away: let the request through
            log.warning("rate limit not counted (Redis: %s)", exc or type(exc).__name__)
            return True


def redis_windows(redis_url: str, prefix: str) -> Callable[[RateLimitItem], Windows]:
    """What makes the windows of a rate in the cluster's Redis (keys under ``prefix``)."""
    storage = RedisStorage(
        _limits_uri(redis_url),
        wrap_exceptions=True,
        implementation="redispy",
        key_prefix=f"{prefix}limits",
        socket_timeout=TIMEOUT_SECONDS,
        socket_connect_timeout=TIMEOUT_SECONDS,
    )
    limiter = MovingWindowRateLimiter(storage)

    def windows(rate: RateLimitItem) -> Windows:
        return RedisWindows(limiter, rate)

    return windows


class RedisCounts:
    """The sockets open per key across the cluster (see the module); this node's own
    members are kept here, to renew and to remove."""

    def __init__(self, redis_url: str, prefix: str, node: str) -> None:
        self.redis: Redis = Redis.from_url(
            redis_url,
            socket_timeout=TIMEOUT_SECONDS,
            socket_connect_timeout=TIMEOUT_SECONDS,
            health_check_interval=30,
        )
        self.prefix = f"{prefix}sockets:"
        self.node = node
        self.serial = itertools.count()
        #: key -> this node's members under it (None: a socket let through uncounted)
        self.mine: dict[str, list[str | None]] = {}
        self._enter: Any = self.redis.register_script(_ENTER)

    async def enter(self, key: str, cap: int) -> bool:
        member = f"{self.node}:{next(self.serial)}"
        now = time.time()
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                admitted = await self._enter(
                    keys=[self.prefix + key],
                    args=[
                        now,
                        cap,
                        now + SOCKET_TTL_SECONDS,
                        member,
                        int(SOCKET_TTL_SECONDS * 2000),
                    ],
                )
        except Exception as exc:  # Redis away: let the socket through, uncounted
            log.warning("socket not counted (Redis: %s)", exc or type(exc).__name__)
            self.mine.setdefault(key, []).append(None)
            return True
        if not admitted:
            return False
        self.mine.setdefault(key, []).append(member)
        return True

    async def leave(self, key: str) -> None:
        members = self.mine.get(key)
        if not members:
            return
        member = members.pop()
        if not members:
            del self.mine[key]
        if member is None:
            return
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                await self.redis.zrem(self.prefix + key, member)
        except Exception as exc:  # it expires by itself
            log.warning("socket not uncounted (Redis: %s)", exc or type(exc).__name__)

    async def renew(self) -> None:
        """Push the expiry of every socket of this node forward."""
        expiry = time.time() + SOCKET_TTL_SECONDS
        async with self.redis.pipeline(transaction=False) as pipe:
            for key, members in self.mine.items():
                counted = {m: expiry for m in members if m is not None}
                if counted:
                    pipe.zadd(self.prefix + key, counted, xx=True)
                    pipe.pexpire(self.prefix + key, int(SOCKET_TTL_SECONDS * 2000))
            async with asyncio.timeout(TIMEOUT_SECONDS * 5):
                await pipe.execute()

    async def renew_forever(self) -> None:
        """:meth:`renew` every :data:`RENEW_SECONDS` until cancelled (Redis away: next time)."""
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            try:
                await self.renew()
            except Exception as exc:
                log.warning("sockets not renewed (Redis: %s)", exc or type(exc).__name__)

    async def close(self) -> None:
        """Remove this node's members (it is stopping) and close the connection."""
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS * 5), self.redis.pipeline() as pipe:
                for key, members in self.mine.items():
                    counted = [m for m in members if m is not None]
                    if counted:
                        pipe.zrem(self.prefix + key, *counted)
                await pipe.execute()
        except Exception as exc:
            log.warning("sockets not uncounted at stop (Redis: %s)", exc or type(exc).__name__)
        self.mine.clear()
        await self.redis.aclose()
