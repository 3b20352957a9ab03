"""Table leases in Redis: which node runs a table's actor, fenced by a token.

A lease is the key ``{prefix}lease:{table}`` holding ``"{node} {token}"`` with a time to live.
The token comes from ``INCR {prefix}fence:{table}``: every acquisition of a table gets a larger
one than all before it. Acquire, renew and release are Lua scripts so that each is one atomic
step (acquire only if nobody holds the lease; renew and release only while the value is still
ours). The token is what the database checks (:meth:`truco.server.storage.store.Store.claim`):
a node that was paused past its lease and wakes up still thinking it owns a table has a smaller
token than the new owner, and its writes are refused where they land.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redis.asyncio import Redis

# KEYS[1] lease, KEYS[2] fence counter; ARGV[1] node, ARGV[2] ttl ms -> token or nil
_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
return token
"""
# KEYS: n leases, then their n fence counters; ARGV[1] ttl ms, ARGV[2] node, ARGV[2 + i] the
# token of lease i -> for each: 0 renewed, -1 lost, else the new token of a lease that expired
# while nobody took it (its fence counter is still at our token: nobody acquired it since)
RENEW_SCRIPT = """
local n = #KEYS / 2
local out = {}
for i = 1, n do
  local token = ARGV[i + 2]
  local value = redis.call('GET', KEYS[i])
  if value == ARGV[2] .. ' ' .. token then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    out[i] = 0
  elseif not value and redis.call('GET', KEYS[n + i]) == token then
    local new = redis.call('INCR', KEYS[n + i])
    redis.call('SET', KEYS[i], ARGV[2] .. ' ' .. new, 'PX', ARGV[1])
    out[i] = new
  else
    out[i] = -1
  end
end
return out
"""
# KEYS[1] lease; ARGV[1] the value we hold -> 1 if released
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# KEYS[1] the set of live tables; ARGV[1] the lease keys' prefix -> {count, ids nobody holds}
_ORPHANS = """
local ids = redis.call('SMEMBERS', KEYS[1])
local orphans = {}
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[1] .. id) == 0 then table.insert(orphans, id) end
end
return {#ids, orphans}
"""
# KEYS: leases; ARGV: the node each is expected to name -> 1-based indexes of those that do not
_MOVED = """
local moved = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if not value or string.match(value, '^%S+') ~= ARGV[i] then table.insert(moved, i) end
end
return moved
"""


def renew_keys(
    prefix: str, node: str, ttl_ms: int, leases: list[Lease]
) -> tuple[list[str], list[str | int]]:
    """The keys and arguments of :data:`RENEW_SCRIPT` for ``leases``."""
    keys = [f"{prefix}lease:{lease.table_id}" for lease in leases]
    keys += [f"{prefix}fence:{lease.table_id}" for lease in leases]
    return keys, [ttl_ms, node, *(lease.token for lease in leases)]


def renew_outcome(leases: list[Lease], results: Any) -> tuple[list[Lease], list[Lease]]:
    """:data:`RENEW_SCRIPT`'s answer for ``leases``: those lost, those regained (with their
    new token)."""
    lost = [lease for lease, r in zip(leases, results, strict=True) if int(r) < 0]
    regained = [
        Lease(lease.table_id, lease.node, int(r))
        for lease, r in zip(leases, results, strict=True)
        if int(r) > 0
    ]
    return lost, regained


@dataclass(frozen=True, slots=True)
class Lease:
    """A node's hold on a table; ``token`` fences its writes."""

    table_id: str
    node: str
    token: int

    @property
    def value(self) -> str:
        return f"{self.node} {self.token}"


def parse_owner(value: bytes | str | None) -> tuple[str, int] | None:
    """The node and token of a stored lease value (None: nobody holds it)."""
    if value is None:
        return None
    text = value.decode() if isinstance(value, bytes) else value
    node, _, token = text.partition(" ")
    return node, int(token)


class Leases:
    """Acquire, renew, release and look up table leases for one node."""

    def __init__(self, redis: Redis, prefix: str, node: str, ttl_ms: int = 3000) -> None:
        self.redis = redis
        self.prefix = prefix
        self.node = node
        self.ttl_ms = ttl_ms
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(RENEW_SCRIPT)
        self._release = redis.register_script(_RELEASE)
        self._orphans = redis.register_script(_ORPHANS)
        self._moved = redis.register_script(_MOVED)

    def key(self, table_id: str) -> str:
        return f"{self.prefix}lease:{table_id}"

    def fence_key(self, table_id: str) -> str:
        return f"{self.prefix}fence:{table_id}"

    async def acquire(self, table_id: str) -> Lease | None:
        """The lease of a table nobody holds, with a new token; None if somebody does."""
        token = await self._acquire(
            keys=[self.key(table_id), self.fence_key(table_id)],
            args=[self.node, self.ttl_ms],
        )
        return None if token is None else Lease(table_id, self.node, int(token))

    async def renew(self, leases: list[Lease]) -> tuple[list[Lease], list[Lease]]:
        """Extend every lease still ours. Return those lost (taken, or expired and taken
        since), and those regained: expired while nobody took them (a node that stalled
        past its lease), acquired again with a new token that the database writes raise
        the fence to (nobody wrote the table meanwhile: nobody else held it)."""
        if not leases:
            return [], []
        keys, args = renew_keys(self.prefix, self.node, self.ttl_ms, leases)
        return renew_outcome(leases, await self._renew(keys=keys, args=args))

    async def release(self, lease: Lease) -> bool:
        """Give a lease up (only if it is still ours)."""
        return bool(await self._release(keys=[self.key(lease.table_id)], args=[lease.value]))

    async def owners(self, table_ids: list[str]) -> list[tuple[str, int] | None]:
        """Who holds each table (node, token), None where nobody does."""
        if not table_ids:
            return []
        values = await self.redis.mget([self.key(t) for t in table_ids])
        return [parse_owner(v) for v in values]

    async def orphans(self, tables_key: str) -> tuple[int, list[str]]:
        """How many tables the set ``tables_key`` lists, and those nobody holds (one step
        in Redis: a node does not read every lease of the site twice a second)."""
        count, ids = await self._orphans(keys=[tables_key], args=[self.key("")])
        return int(count), [i.decode() if isinstance(i, bytes) else str(i) for i in ids]

    async def moved(self, expected: list[tuple[str, str]]) -> list[int]:
        """Of ``(table, node)`` pairs, the indexes of the tables that node no longer holds."""
        if not expected:
            return []
        moved = await self._moved(
            keys=[self.key(t) for t, _ in expected], args=[node for _, node in expected]
        )
        return [int(i) - 1 for i in moved]
