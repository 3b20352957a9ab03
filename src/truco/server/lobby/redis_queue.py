"""The quick-match queues in Redis, shared by every node of a cluster.

Keys (under a prefix): ``where`` (hash: player id -> queue name), ``tickets`` (hash:
player id -> ticket JSON), ``q:<queue>`` (sorted set of player ids by the time they
joined), ``table:<player id>`` (the table code a paired player goes to, for a few
minutes) and ``lock`` (the node pairing now). Joining, leaving and claiming a pairing
are Lua scripts, so each is atomic: a player holds one ticket at most, and a pairing
is claimed only if every one of its players is still waiting (who left is never
seated). One node pairs at a time (the lock); the pairing itself is
:func:`~truco.server.lobby.matchmaking.pair`.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, cast

from redis.asyncio import Redis

from .matchmaking import Pairing, Policy, QueueError, QueueKey, Ticket, pair

#: how long a paired player's table code waits to be picked up
ANNOUNCE_SECONDS = 300
LOCK_MS = 10_000

_JOIN = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held then return held end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('DEL', KEYS[4])
return false
"""

_LEAVE = """
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', ARGV[2] .. 'q:' .. held, ARGV[1])
return 1
"""

# KEYS: where, tickets, the queue's set; ARGV: the queue's name, then the player ids
_CLAIM = """
for i = 2, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[1] then return 0 end
end
for i = 2, #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
  redis.call('ZREM', KEYS[3], ARGV[i])
end
return 1
"""

_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisQueue:
    """:class:`~truco.server.lobby.matchmaking.MemoryQueue`'s interface over Redis."""

    def __init__(self, redis: Redis, prefix: str = "truco:queue:", policy: Policy | None = None):
        self.redis = redis
        self.prefix = prefix
        self.policy = policy or Policy()
        self._join = redis.register_script(_JOIN)
        self._leave = redis.register_script(_LEAVE)
        self._claim = redis.register_script(_CLAIM)
        self._unlock = redis.register_script(_UNLOCK)

    @classmethod
    def from_url(
        cls, url: str, prefix: str = "truco:queue:", policy: Policy | None = None
    ) -> RedisQueue:
        redis: Redis = Redis.from_url(url, decode_responses=True)
        return cls(redis, prefix, policy)

    def _key(self, name: str) -> str:
        return self.prefix + name

    async def join(self, key: QueueKey, ticket: Ticket) -> None:
        held = await self._join(
            keys=[
                self._key("where"),
                self._key("tickets"),
                self._key(f"q:{key}"),
                self._key(f"table:{ticket.player_id}"),
            ],
            args=[ticket.player_id, str(key), json.dumps(ticket.to_json()), ticket.joined_at],
        )
        if held:
            raise QueueError.already(held)

    async def leave(self, player_id: str) -> bool:
        left = await self._leave(
            keys=[self._key("where"), self._key("tickets")], args=[player_id, self.prefix]
        )
        return bool(left)

    async def waiting(self, player_id: str) -> QueueKey | None:
        held = await cast(Any, self.redis.hget(self._key("where"), player_id))
        return QueueKey.parse(held) if held else None

    async def counts(self) -> dict[str, int]:
        where: dict[str, str] = await cast(Any, self.redis.hgetall(self._key("where")))
        counts: dict[str, int] = {}
        for name in where.values():
            counts[name] = counts.get(name, 0) + 1
        return counts

    async def match(self, now: float) -> list[Pairing]:
        """Pair every queue, if no other node is pairing now; the paired tickets
        leave their queues (a pairing one of whose players left meanwhile is dropped)."""
        token = secrets.token_hex(8)
        if not await self.redis.set(self._key("lock"), token, nx=True, px=LOCK_MS):
            return []
        try:
            return await self._match(now)
        finally:
            await self._unlock(keys=[self._key("lock")], args=[token])

    async def _match(self, now: float) -> list[Pairing]:
        where: dict[str, str] = await cast(Any, self.redis.hgetall(self._key("where")))
        raw: dict[str, str] = await cast(Any, self.redis.hgetall(self._key("tickets")))
        queues: dict[str, list[Ticket]] = {}
        for player_id, name in where.items():
            if player_id in raw:
                queues.setdefault(name, []).append(Ticket.from_json(json.loads(raw[player_id])))
        formed: list[Pairing] = []
        for name, tickets in sorted(queues.items()):
            key = QueueKey.parse(name)
            for pairing in pair(key, tickets, now, self.policy):
                claimed = await self._claim(
                    keys=[self._key("where"), self._key("tickets"), self._key(f"q:{key}")],
                    args=[name, *(t.player_id for t in pairing.tickets())],
                )
                if claimed:
                    formed.append(pairing)
        return formed

    async def announce(self, player_id: str, table: str) -> None:
        await self.redis.set(self._key(f"table:{player_id}"), table, ex=ANNOUNCE_SECONDS)

    async def announcement(self, player_id: str) -> str | None:
        table = await self.redis.getdel(self._key(f"table:{player_id}"))
        return str(table) if table else None

    async def close(self) -> None:
        await self.redis.aclose()
