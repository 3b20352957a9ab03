"""One node of a cluster: a lobby whose tables are shared with the other nodes.

Every node is both a front (it holds sockets of players of any table) and an actor host (it
runs the tables whose lease it holds). What the nodes share lives in Redis under ``prefix``:

- ``tables``: the set of live table ids (the site's tables, whoever runs them);
- ``lease:{id}`` / ``fence:{id}``: who runs each table, and its fencing token
  (:mod:`.lease`); the database refuses a write under an older token (:meth:`Store.claim`);
- ``nodes``: live nodes, scored by when their heartbeat expires;
- ``summaries``: each table's lobby summary, as its owner last published it;
- ``node:{id}``: each node's channel on the :mod:`.bus`.

A node renews its leases every third of their life. When a node dies its leases expire and
the others take its tables over from PostgreSQL (the takeover loop, or at once when a player
of such a table connects); the fronts' routes follow the table to its new owner.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import orjson

from ..lobby.tables import Lobby
from ..logs import about, set_node
from ..metrics import LEASE_TAKEOVERS
from ..pauses import keep_pauses_short
from ..people.fair_play import FairPlay
from ..people.ratings import record_unrecorded
from ..protocol import ProtocolError, error_message, parse_client_message
from ..storage.journal import LIVE
from ..table import Command, Join, Leave, Table
from ..tasks import spawn
from .bus import Bus, Message
from .keeper import LeaseKeeper
from .lease import Lease, Leases
from .remote import RemoteClient, Route, player_of

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from ..config import ServerConfig
    from ..storage.rows import MatchRow
    from ..storage.store import Store

log = logging.getLogger("truco.server.cluster")

#: a table that only played on has its lobby summary refreshed this often
SUMMARY_SECONDS = 10.0
#: summaries encoded in one turn of the loop
SUMMARY_CHUNK = 100


class ClusterLobby(Lobby):
    """The lobby of one node of a cluster (see the module's docstring)."""

    def __init__(
        self,
        config: ServerConfig,
        store: Store,
        redis_url: str,
        prefix: str = "truco:",
        *,
        lease_ms: int = 3000,
        node: str | None = None,
    ) -> None:
        super().__init__(config, store)
        from redis.asyncio import BlockingConnectionPool, Redis  # only cluster mode needs it

        self.store: Store = store
        # a burst of lookups (every socket of a dead node coming back at once) waits for a
        # connection rather than failing
        pool = BlockingConnectionPool.from_url(redis_url, max_connections=64, timeout=None)
        self.redis: Redis = Redis(connection_pool=pool)
        self.prefix = prefix
        self.node = node or secrets.token_hex(4)
        set_node(self.node)  # every line this process logs says which node it is
        self.lease_ms = lease_ms
        self.leases = Leases(self.redis, prefix, self.node, lease_ms)
        self.redis_url = redis_url
        #: renews the leases from a thread of its own (:mod:`.keeper`), made at start
        self.keeper: LeaseKeeper | None = None
        self.bus = Bus(self.redis, prefix, self.node, redis_url)
        self.held: dict[str, Lease] = {}  # the leases of the tables this node runs
        self.routes: dict[str, Route] = {}  # this node's sockets at tables run elsewhere
        self.remote: dict[str, RemoteClient] = {}  # other nodes' sockets at tables run here
        self.find_seconds = 2 * lease_ms / 1000 + 3
        #: where the notices other nodes publish are delivered (:mod:`~..notices`)
        self.on_notices: Callable[[list[str]], None] | None = None
        self._others: list[tuple[float, dict[str, Any]]] = []  # the site's summaries, cached
        self._listing_asked = 0.0
        #: table -> its lobby face, version and when its summary went to Redis
        self._published: dict[str, tuple[tuple[Any, ...], int, float]] = {}
        self._broken: set[str] = set()  # tables that do not restore: left alone
        self._taking: dict[str, asyncio.Future[Table | None]] = {}
        #: tables being stopped here: not taken again until their actor has stopped, so that
        #: a node never runs two actors of one table under one token
        self._dropping: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Join the site: list the unfinished tables of the database (the takeover loop
        hands them out among the nodes), listen to the bus, start the loops."""
        await self.store.start()
        # results of matches that finished before they were recorded (issue 12)
        await asyncio.to_thread(record_unrecorded, self.store.engine, FairPlay.of(self.config))
        self.store.on_fence_lost = self._fence_lost
        self.bus.on_unreachable = self._unreachable
        await self.bus.start(self._on_message)
        self.keeper = LeaseKeeper(
            self.redis_url,
            self.prefix,
            self.node,
            self.lease_ms,
            lambda: list(self.held.values()),
            self._renewed,
            asyncio.get_running_loop(),
        )
        await asyncio.to_thread(self.keeper.renew_once)  # alive before anything else
        self.keeper.start()
        await self._heartbeat()
        rows = await asyncio.to_thread(
            self.store.load, unfinished=True, limit=self.config.max_tables * 100
        )
        if rows:
            await self.redis.sadd(self.key("tables"), *[row.id for row in rows])
        self._loops = [
            spawn(self._every(self.lease_ms / 6000, self._tick), name="node-tick"),
            spawn(self._every(self.lease_ms / 3000, self._heartbeat), name="node-heartbeat"),
            spawn(self._every(self.lease_ms / 6000, self._take_orphans), name="node-orphans"),
            spawn(keep_pauses_short(), name="keep-pauses-short"),  # last: start-up is over
        ]

    async def _stop_tables(self) -> None:
        # all at once: their last commits go in a few group commits, not one after another
        # (a thousand tables took longer than the server's graceful shutdown)
        while self.tables:
            await asyncio.gather(*(self._drop(table_id) for table_id in list(self.tables)))

    async def stop(self) -> None:
        """Leave the site: stop the loops, hand the tables back (committed, leases
        released, so that another node takes them at once: :meth:`shut_down` began that
        as the server began to stop)."""
        self.stopping = True
        for task in self._loops:
            task.cancel()
        await asyncio.gather(*self._loops, return_exceptions=True)
        self.shut_down()
        assert self._stopping_tables is not None
        await self._stopping_tables
        await self.bus.stop()
        if self.keeper is not None:
            await asyncio.to_thread(self.keeper.stop)
        await self.redis.zrem(self.key("nodes"), self.node)
        if self._tasks:  # releases and drops in flight: a bounded wait, then they go
            _, late = await asyncio.wait(set(self._tasks), timeout=10)
            for task in late:
                log.warning("node %s: stopping %s, unfinished after 10 s", self.node, task)
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        await self.recorded()
        self.bot_pool.shutdown()
        await self.store.close()
        await self.redis.aclose()

    async def _every(self, seconds: float, step: Any) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await step()
            except Exception:  # Redis or the database away for a moment: try again
                log.exception("cluster node %s: %s failed", self.node, step.__name__)

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Start ``work`` (a release or a drop) through :func:`spawn`, which logs its
        failure (a new table whose lease could not be taken would otherwise only show as
        its creator waiting for it); :meth:`stop` waits for the ones still running."""
        task = spawn(work, name=f"node-{self.node}-{getattr(work, '__qualname__', 'work')}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ the site's tables
    async def alive(self, node: str) -> bool:
        score = await self.redis.zscore(self.key("nodes"), node)
        return score is not None and score > time.time() * 1000

    async def listed(self, table_id: str) -> bool:
        return bool(await self.redis.sismember(self.key("tables"), table_id))

    def listing(self) -> list[dict[str, Any]]:
        """Every live table of the site, newest first: this node's as they are now, the
        others' as their owners last published them (at most a heartbeat old)."""
        self._listing_asked = time.monotonic()
        mine = [(t.created_at, t.summary()) for t in self.tables.values() if t.status in LIVE]
        here = {s["id"] for _, s in mine}
        rows = mine + [(c, s) for c, s in self._others if s["id"] not in here]
        return [s for _, s in sorted(rows, key=lambda r: r[0], reverse=True)]

    async def summary_of(self, table_id: str) -> dict[str, Any] | None:
        table = self.tables.get(table_id)
        if table is not None:
            return table.summary()
        stored = await self.redis.hget(self.key("summaries"), table_id)
        return None if stored is None else dict(orjson.loads(stored)[1])

    async def route(self, table_id: str) -> Route | None:
        """Where a new socket's messages go (None: no such live table on the site)."""
        if table_id in self.tables or await self.listed(table_id):
            return Route(self, table_id)
        return None

    # ------------------------------------------------------------------ owning tables
    def _open(self, table: Table) -> None:
        if table.id in self.held:  # taken over: the lease and the fence are in place
            super()._open(table)
            return
        self._index(table)
        table.on_over = self._record  # a new table: its lease first, then its actor
        table.on_rematch = self.rematch
        table.on_finished = self._forget
        table.bot_pool = self.bot_pool
        self.tables[table.id] = table
        self._spawn(self._host_new(table))

    async def _host_new(self, table: Table) -> None:
        try:
            lease = await self.leases.acquire(table.id)
        except Exception:  # Redis away: the table is not served (its creator hears so)
            self.tables.pop(table.id, None)
            raise
        if lease is None:  # the code is taken on another node (1 in 10^8): not served
            log.error("table %s: its code is in use on another node", table.id)
            self.tables.pop(table.id, None)
            return
        if self.tables.get(table.id) is not table:  # dropped meanwhile (the node stops)
            await self.leases.release(lease)
            return
        self.held[table.id] = lease
        self.store.fences[table.id] = lease.token
        await self.redis.sadd(self.key("tables"), table.id)
        self.bot_pool.warm(table.bots.values())
        with about(table=table.id):  # the table's task, and every line it logs, carry it
            table.start()

    async def take_over(self, table_id: str) -> Table | None:
        """Run a table nobody holds: lease, then the fence in the database, then its state
        as of its last commit. None if another node got it, or it is no longer live."""
        if table_id in self.tables:
            return self.tables[table_id]
        # (a node leaving the site takes nothing over: two nodes stopping together would
        # hand their tables back and forth)
        if table_id in self._broken or table_id in self._dropping or self.stopping:
            return None
        running = self._taking.get(table_id)
        if running is not None:
            return await running
        done: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self._taking[table_id] = done
        try:
            table = await self._take(table_id)
            done.set_result(table)
            return table
        except BaseException as exc:
            done.set_exception(exc)
            raise
        finally:
            del self._taking[table_id]
            if not done.cancelled() and done.exception() is not None:
                done.exception()  # retrieved: it was raised to the caller

    async def _take(self, table_id: str) -> Table | None:
        lease = await self.leases.acquire(table_id)
        if lease is None:
            return None
        claimed, row = await asyncio.to_thread(self._claim_and_load, table_id, lease.token)
        if row is None or row.status not in LIVE:
            await self.leases.release(lease)
            if claimed:  # (not claimed: a larger token fenced it, somebody runs it)
                await self._unlist(table_id)
            return None
        try:
            table = Table.restore(row, self.config, self.store)
        except ValueError:
            log.exception("table %s cannot be restored: left in the database as it is", table_id)
            self._broken.add(table_id)
            await self.leases.release(lease)
            return None
        self._limit_restored_bots(table)
        table.after_restore()
        self.held[table_id] = lease
        self.store.fences[table_id] = lease.token
        self._open(table)
        log.info("node %s took table %s over (token %d)", self.node, table_id, lease.token)
        LEASE_TAKEOVERS.inc()
        return table

    def _claim_and_load(self, table_id: str, token: int) -> tuple[bool, MatchRow | None]:
        """Fence the table at ``token``, then read it as of its last commit."""
        if not self.store.claim(table_id, token):
            return False, None
        rows = self.store.load(match_id=table_id, limit=1)
        return True, rows[0] if rows else None

    async def _unlist(self, table_id: str) -> None:
        await self.redis.srem(self.key("tables"), table_id)
        await self.redis.hdel(self.key("summaries"), table_id)

    def _forget(self, table: Table) -> None:
        super()._forget(table)
        lease = self.held.pop(table.id, None)
        self.store.fences.pop(table.id, None)
        self._published.pop(table.id, None)
        if lease is not None:
            self._spawn(self._finish(lease))

    async def _finish(self, lease: Lease) -> None:
        await self._unlist(lease.table_id)
        await self.leases.release(lease)

    async def _drop(self, table_id: str) -> None:
        """Stop running a table (lease lost, or this node stops): its remote clients follow
        it to its next owner, local ones are closed and reconnect."""
        if table_id in self._dropping:
            return
        self._dropping.add(table_id)
        try:
            table = self.tables.pop(table_id, None)
            lease = self.held.pop(table_id, None)
            if table is not None:
                for client in table.clients:
                    if isinstance(client, RemoteClient):
                        client.moving = True
                await table.stop()
            self.store.fences.pop(table_id, None)
            self._published.pop(table_id, None)
            if lease is not None:
                await self.leases.release(lease)
        finally:
            self._dropping.discard(table_id)

    def _fence_lost(self, table_id: str) -> None:
        log.warning("node %s: table %s was taken over by another node", self.node, table_id)
        if table_id in self.held:
            self._spawn(self._drop(table_id))

    # ------------------------------------------------------------------ loops
    async def _tick(self) -> None:
        """Tell the lease keeper this loop is alive."""
        if self.keeper is not None:
            self.keeper.tick()

    def _renewed(self, lost: list[Lease], regained: list[Lease]) -> None:
        """(From the lease keeper, in order.) Drop the tables whose lease another node took;
        take the new token of those that expired while nobody took them. A lease reported
        lost under a token older than the one held now was regained meanwhile: ignored."""
        for lease in regained:
            if self.held.get(lease.table_id) is not None:
                log.warning("node %s: lease of table %s renewed late", self.node, lease.table_id)
                self.held[lease.table_id] = lease
                self.store.fences[lease.table_id] = lease.token
        for lease in lost:
            if self.held.get(lease.table_id) == lease:
                log.warning("node %s lost the lease of table %s", self.node, lease.table_id)
                self._spawn(self._drop(lease.table_id))

    async def _heartbeat(self) -> None:
        """Publish this node's tables' summaries, refresh the site's listing (when asked
        lately), follow tables that moved."""
        await self._publish_summaries()
        if time.monotonic() - self._listing_asked < 30:
            summaries = await self.redis.hgetall(self.key("summaries"))
            others = [orjson.loads(v) for v in summaries.values()]
            self._others = [(c, s) for c, s in others if s.get("status") in LIVE]
        await self._follow_moved()
        await self._drop_gone_fronts()

    async def _publish_summaries(self) -> None:
        """The summaries of this node's tables whose face in the lobby changed (status,
        seats, connections), and at least every :data:`SUMMARY_SECONDS` of those that only
        played on; a few at a time, so that a thousand tables do not stall the loop."""
        now = time.monotonic()
        changed: dict[str, tuple[tuple[Any, ...], int]] = {}
        for table in list(self.tables.values()):
            if table.task is None:
                continue
            face = lobby_face(table)
            published = self._published.get(table.id)
            if published is None or (
                published[0] != face
                or (published[1] != table.version and now - published[2] >= SUMMARY_SECONDS)
            ):
                changed[table.id] = (face, table.version)
        ids = list(changed)
        for start in range(0, len(ids), SUMMARY_CHUNK):
            if start:
                await asyncio.sleep(0)  # the tables' actors go on between the chunks
            mapping = {}
            for table_id in ids[start : start + SUMMARY_CHUNK]:
                held = self.tables.get(table_id)
                if held is not None:
                    mapping[table_id] = orjson.dumps([held.created_at, held.summary()])
            if mapping:
                await self.redis.hset(self.key("summaries"), mapping=mapping)  # type: ignore[arg-type]
        for table_id, (face, version) in changed.items():
            if table_id in self.tables:
                self._published[table_id] = (face, version, now)

    async def _follow_moved(self) -> None:
        routes = [r for r in self.routes.values() if r.owner is not None]
        expected = [(r.table_id, r.owner) for r in routes if r.owner is not None]
        for i in await self.leases.moved(expected):
            routes[i].follow()

    async def _drop_gone_fronts(self) -> None:
        fronts = {c.front for c in self.remote.values()}
        for front in fronts:
            if not await self.alive(front):
                self._unreachable(front, [])

    async def _take_orphans(self) -> None:
        """Take over live tables nobody holds, up to this node's share of the site."""
        listed, free = await self.leases.orphans(self.key("tables"))
        orphans = [t for t in free if t not in self.tables and t not in self._broken]
        if not orphans:
            return
        nodes = await self.redis.zcount(self.key("nodes"), time.time() * 1000, "+inf")
        share = math.ceil(listed / max(1, nodes)) - len(self.tables)
        room = self.config.max_tables - len(self.tables)
        random.shuffle(orphans)
        await asyncio.gather(*(self.take_over(t) for t in orphans[: min(room, max(1, share))]))

    def expel(self, player_id: str) -> int:
        """A banned player out of this node's tables at once, and out of the other nodes'
        as soon as the bus brings them the word (``expel``); how many tables of this node
        they sat at. The word may be lost with a node, as any of the bus's: the player's
        sockets still close with their sessions, and the grace's bot then takes the seat."""
        self._spawn(self._tell_others({"k": "expel", "p": player_id}))
        return super().expel(player_id)

    def relay_notices(self, keys: list[str]) -> None:
        """Pass a notice published here (:mod:`~..notices`) to the other nodes."""
        self._spawn(self._tell_others({"k": "notice", "keys": keys}))

    async def _tell_others(self, message: Message) -> None:
        """``message`` to every other live node (a word to the node, for no connection)."""
        now = time.time() * 1000
        for node in await self.redis.zrangebyscore(self.key("nodes"), now, "+inf"):
            name = node.decode() if isinstance(node, bytes) else str(node)
            if name != self.node:
                self.bus.send(name, dict(message))

    # ------------------------------------------------------------------ the bus
    def _on_word(self, message: Message) -> None:
        """A word to this node itself (:meth:`_tell_others`), for no connection."""
        if message["k"] == "expel":
            super().expel(str(message["p"]))
        elif message["k"] == "notice" and self.on_notices is not None:
            self.on_notices([str(k) for k in message["keys"]])

    def _on_message(self, message: Message) -> None:
        kind = message["k"]
        if "c" not in message:
            self._on_word(message)
            return
        if kind == "out":
            conns = message["c"]
            for conn_id in [conns] if isinstance(conns, str) else conns:
                route = self.routes.get(conn_id)
                if route is not None and route.owner == message["n"]:
                    route.deliver(message)  # (else the socket left that node: the table moved)
            return
        if kind in ("close", "gone"):
            route = self.routes.get(message["c"])
            if route is None or route.owner != message.get("n"):
                return  # from a node the socket has left (the table moved meanwhile)
            route.deliver(message)
            self.routes.pop(message["c"], None)
            return
        conn = str(message["c"])
        if kind == "join":
            table = self.tables.get(message["t"])
            if table is None or table.id not in self.held:
                self.bus.send(message["f"], {"k": "gone", "c": conn, "r": "moved", "n": self.node})
                return
            client = RemoteClient(player_of(message["p"]), conn, message["f"], self.bus, table)
            self.remote[conn] = client
            table.inbox.put_nowait(Join(client, message["s"]))
            return
        client_or_none = self.remote.get(conn)
        if client_or_none is None or client_or_none.table.id not in self.held:
            if kind == "cmd":
                front = conn.partition("/")[0]
                self.bus.send(front, {"k": "gone", "c": conn, "r": "cmd", "n": self.node})
            return
        client = client_or_none
        if kind == "leave":
            del self.remote[conn]
            client.table.inbox.put_nowait(Leave(client))
        elif kind == "cmd":
            try:
                command = parse_client_message(message["m"])
            except ProtocolError as exc:  # checked by the front already; never trusted
                client.send(error_message(exc.refusal))
                return
            client.table.inbox.put_nowait(Command(client, command))

    def _unreachable(self, node: str, messages: list[Message]) -> None:
        """``node`` is gone: routes waiting on it look for the table again; its sockets
        leave the tables run here."""
        for route in [r for r in self.routes.values() if r.owner == node]:
            route.follow()
        for conn, client in list(self.remote.items()):
            if client.front == node:
                del self.remote[conn]
                client.closed = True
                client.table.inbox.put_nowait(Leave(client))


def lobby_face(table: Table) -> tuple[Any, ...]:
    """What of a table the lobby shows, apart from its version and clock."""
    seats = tuple((seat.kind, seat.name, seat.away) for seat in table.seats)
    return table.status, len(table.clients), seats
