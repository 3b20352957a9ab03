"""The lobby: the live tables of a server, created, restored and stopped here."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ...bots import make_bot
from ...rules import Rules
from ..config import ServerConfig
from ..logs import about
from ..people.fair_play import FairPlay
from ..people.players import Player
from ..people.ratings import record_result, record_unrecorded
from ..storage.store import Store
from ..table import Command, Join, Leave, Seat, Table, TableError, name_bots
from ..table.bot_pool import BotPool, check_bot_spec, offered_bots
from ..table.durability import TableNotHosted
from ..table.inbox import Expel
from ..tasks import spawn

log = logging.getLogger("truco.server")

_CODE_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"


def table_code() -> str:
    """A short code to share a table (no 0/o, 1/l/i look-alikes)."""
    return "".join(secrets.choice(_CODE_LETTERS) for _ in range(6))


def bot_levels() -> list[str]:
    """The bot choices for empty seats (see :func:`~truco.server.table.bot_pool.offered_bots`)."""
    return offered_bots()


#: how long a new table's creator waits for it to be committed
MADE_SECONDS = 30.0


class Inbox(Protocol):
    """Where a socket puts what its player does: the table's inbox (or, in cluster mode, a
    route to the node that runs the table)."""

    async def put(self, message: Join | Leave | Command, /) -> None: ...


class Lobby:
    """All tables of one server process, and the pool their bots think in."""

    def __init__(self, config: ServerConfig, store: Store | None) -> None:
        self.config = config
        self.store = store
        self.tables: dict[str, Table] = {}
        self.addresses: dict[str, str] = {}  # table id -> the address that created it
        self._recording: set[asyncio.Task[bool]] = set()  # results being written
        self.stopping = False  # the server is shutting down
        self._stopping_tables: asyncio.Future[None] | None = None  # (:meth:`shut_down`)
        #: creator / address -> ids of tables opened here (for the caps; ids of tables gone
        #: are dropped when their count reaches the cap)
        self._by_creator: dict[str, set[str]] = {}
        self._by_address: dict[str, set[str]] = {}
        self.bot_pool = BotPool(
            config.bot_workers,
            config.bot_queue,
            config.bot_seconds,
            config.cover_bot,
            config.bot_pool,
        )

    async def start(self) -> None:
        """Bring back every unfinished table from the database."""
        if self.store is None:
            return
        await self.store.start()
        # results of matches that finished before this server recorded them (issue 12)
        engine, fair = self.store.engine, FairPlay.of(self.config)
        await self.store.in_writer(lambda: record_unrecorded(engine, fair))
        rows = await asyncio.to_thread(
            self.store.load, unfinished=True, limit=self.config.max_tables
        )
        for row in rows:
            try:
                table = Table.restore(row, self.config, self.store)
            except ValueError:  # one broken table must not keep the others down
                log.exception("table %s cannot be restored: left in the database as it is", row.id)
                continue
            self._limit_restored_bots(table)
            table.after_restore()
            self._open(table)

    def _limit_restored_bots(self, table: Table) -> None:
        """A table stored before the server limited bots gets the cover bot in place of
        a bot it does not offer (``search:30000x4`` must not come back with it)."""
        offered = set(offered_bots())
        for seat, info in enumerate(table.seats):
            if info.kind == "bot" and info.bot not in offered:
                log.warning("table %s: bot %r is not offered; %s plays seat %d",
                            table.id, info.bot, self.config.cover_bot, seat)  # fmt: skip
                table.bots[seat] = make_bot(self.config.cover_bot)

    def shut_down(self) -> None:
        """The server begins to stop, before it waits for its connections to close: the
        tables stop now (committed, their clients told), so that their sockets close at
        once instead of holding the server's graceful shutdown. :meth:`stop` finishes."""
        self.stopping = True
        if self._stopping_tables is None:
            self._stopping_tables = spawn(self._stop_tables(), name="stop-tables")

    async def _stop_tables(self) -> None:
        # all at once: their last commits share group commits (and again for any table
        # made while they stopped)
        while running := [t for t in self.tables.values() if t.task is not None]:
            await asyncio.gather(*(table.stop() for table in running))

    async def stop(self) -> None:
        self.shut_down()
        assert self._stopping_tables is not None
        await self._stopping_tables
        await self.recorded()
        self.bot_pool.shutdown()
        if self.store is not None:
            await self.store.close()

    def expel(self, player_id: str) -> int:
        """A banned player out of every live table of this process (a bot takes a seat in
        a match, a waiting table frees it); how many tables they sat at. Each other node
        does the same once its sessions sweep finds the player's sessions gone
        (:func:`~..web.moderation_api.expel_if_banned`)."""
        held = [
            t
            for t in self.live()
            if any(s.kind == "human" and s.player_id == player_id for s in t.seats)
        ]
        for table in held:
            table.inbox.put_nowait(Expel(player_id))
        return len(held)

    def live(self) -> list[Table]:
        return [t for t in self.tables.values() if t.status in ("waiting", "playing")]

    def _check_caps(self, creator: Player, address: str | None) -> None:
        """Refuse a new table past the caps. Each count reads only the tables it concerns
        (an index of each creator's and address's tables): three passes over every table
        were 5% of a node's CPU at 1,000 tables, each new table paying for all the others."""
        if len(self.tables) >= self.config.max_tables and (
            len(self.live()) >= self.config.max_tables
        ):
            raise TableError("full")
        limit = self.config.max_tables_per_guest
        mine = self._at_cap(self._by_creator, creator.id, limit, lambda t: t.creator == creator.id)
        if mine is not None:
            raise TableError("too_many_tables", count=mine, limit=limit)
        if address is not None:
            limit = self.config.max_tables_per_address
            here = self._at_cap(
                self._by_address, address, limit, lambda t: self.addresses.get(t.id) == address
            )
            if here is not None:
                raise TableError("too_many_from_address", count=here, limit=limit)

    def _at_cap(
        self, index: dict[str, set[str]], key: str, limit: int, theirs: Callable[[Table], bool]
    ) -> int | None:
        """How many of the tables indexed under ``key`` are here and live, if ``limit`` or
        more (else None). Fewer ids than ``limit`` cannot reach it, so they are not counted
        (a benchmark's one address with 1,000 tables was 4% of a node at one scan of them
        per new table); when counted, the ids of tables gone are dropped from the index."""
        ids = index.get(key)
        if ids is None or len(ids) < limit:
            return None
        count = 0
        for table_id in list(ids):
            table = self.tables.get(table_id)
            if table is None:
                ids.discard(table_id)
            elif table.status in ("waiting", "playing") and theirs(table):
                count += 1
        if not ids:
            del index[key]
        return count if count >= limit else None

    def _index(self, table: Table) -> None:
        """A table opened here, in the caps' index of its creator and its address."""
        if table.creator is not None:
            self._by_creator.setdefault(table.creator, set()).add(table.id)
        address = self.addresses.get(table.id)
        if address is not None:
            self._by_address.setdefault(address, set()).add(table.id)

    def create(
        self,
        creator: Player,
        rules: Rules,
        name: str,
        turn_seconds: float | None = None,
        bots: dict[int, str] | None = None,
        seat: int | None = None,
        address: str | None = None,
        rated: bool = False,
        quick: bool = False,
    ) -> Table:
        """A new table; the creator may sit at once and seat bots (of those offered).
        A guest and an address keep a bounded number of live tables. A ``rated`` table is
        an account's, and seats accounts only, no bots. A ``quick`` (quick-match) table
        keeps an empty name: each client words it in its language."""
        self._check_caps(creator, address)
        if rated and not creator.account:
            raise TableError("account_needed")
        if rated and not quick and not self.config.rated_tables_open:
            raise TableError("rated_queue_only")  # fair_play.py: pairs come from the queue
        if rated and bots:
            raise TableError("rated_no_bots")
        table = self._new_table(creator, rules, name, turn_seconds, rated, quick)
        for where, level in (bots or {}).items():
            if not 0 <= where < rules.players:
                raise TableError("no_seat", seat=where, players=rules.players)
            try:
                table.bots[where] = make_bot(check_bot_spec(level))
            except ValueError:
                raise TableError("bad_bot", level=repr(level)[:50]) from None
            table.seats[where] = Seat("bot", None, "", level)
        name_bots(table.seats)
        if seat is not None:
            if not 0 <= seat < rules.players or table.seats[seat].kind != "empty":
                raise TableError("seat_taken", seat=seat)
            table.seats[seat] = Seat("human", creator.id, creator.name, account=creator.account)
        if all(s.kind != "empty" for s in table.seats) and seat is None:
            raise TableError("no_seat_left")
        table.start_if_full()
        if address is not None:
            self.addresses[table.id] = address
        self._open(table)  # its actor commits it first (await self.made(table))
        return table

    async def made(self, table: Table, seconds: float = MADE_SECONDS) -> None:
        """Return once the new ``table`` is committed: only then may anyone hear of it.
        Past ``seconds``, :class:`TimeoutError`; a table no actor ever ran (a cluster
        node still waiting for its lease) is withdrawn first, so that it cannot start
        after its creator was told it was not made (:class:`TableNotHosted`)."""
        try:
            await asyncio.wait_for(table.until_durable(), seconds)
        except TimeoutError:
            if table.task is not None:
                raise
            if self.tables.get(table.id) is table:
                del self.tables[table.id]
                self.addresses.pop(table.id, None)
            raise TableNotHosted(f"table {table.id} was not hosted in time") from None

    def create_match(
        self,
        players: Sequence[Player],
        rules: Rules,
        *,
        rated: bool,
        name: str = "",
        turn_seconds: float | None = None,
        bots: dict[int, str] | None = None,
        quick: bool = False,
    ) -> Table:
        """A table for players matched by the server (the quick-match queue): ``players[i]``
        sits in seat ``i`` (teams are the even and the odd seats), ``bots`` fill the seats
        named (a casual table only), and the match starts once every seat is taken. A rated
        table takes accounts only. Callers ``await lobby.made(table)`` before telling
        the players its code."""
        if not players or len(players) + len(bots or {}) > rules.players:
            raise TableError("too_many_players", players=rules.players)
        if len({p.id for p in players}) != len(players):
            raise TableError("two_seats")
        if rated and (bots or not all(p.account for p in players)):
            raise TableError("rated_accounts_only")
        if len(self.live()) >= self.config.max_tables:
            raise TableError("full")
        table = self._new_table(players[0], rules, name, turn_seconds, rated, quick)
        for where, player in enumerate(players):
            table.seats[where] = Seat("human", player.id, player.name, account=player.account)
        for where, level in (bots or {}).items():
            if not len(players) <= where < rules.players:
                raise TableError("seat_taken", seat=where)
            try:
                table.bots[where] = make_bot(check_bot_spec(level))
            except ValueError:
                raise TableError("bad_bot", level=repr(level)[:50]) from None
            table.seats[where] = Seat("bot", None, "", level)
        name_bots(table.seats)
        table.start_if_full()
        self._open(table)
        return table

    async def rematch(self, old: Table) -> Table:
        """A new table for a finished one's rematch, once committed (:meth:`made`): the
        same rules, name, turn clock and rated-ness, every person and bot in the seat
        they had (a bot of the same level); the match starts at once."""
        if len(self.live()) >= self.config.max_tables:
            raise TableError("full")
        creator = old.creator or next(s.player_id for s in old.seats if s.player_id)
        table = Table(
            id=self._free_code(),
            name=old.name,
            rules=old.rules,
            config=self.config,
            store=self.store,
            creator=creator,
            turn_seconds=old.turn_seconds,
            rated=old.rated,
            on_over=self._record,
        )
        for where, seat in enumerate(old.seats):
            if seat.kind == "human":
                table.seats[where] = Seat("human", seat.player_id, seat.name, account=seat.account)
            elif seat.kind == "bot" and seat.bot is not None:
                table.bots[where] = make_bot(check_bot_spec(seat.bot))
                table.seats[where] = Seat("bot", None, seat.name, seat.bot)
        table.start_if_full()
        self._open(table)
        await self.made(table)
        return table

    def _free_code(self) -> str:
        code = table_code()
        while code in self.tables:
            code = table_code()
        return code

    def _new_table(
        self,
        creator: Player,
        rules: Rules,
        name: str,
        turn_seconds: float | None,
        rated: bool,
        quick: bool = False,
    ) -> Table:
        return Table(
            id=self._free_code(),
            name=name if quick else name or f"Mesa de {creator.name}",
            rules=rules,
            config=self.config,
            store=self.store,
            creator=creator.id,
            turn_seconds=self.config.turn_seconds if turn_seconds is None else turn_seconds,
            rated=rated,
            on_over=self._record,  # set here too: a cluster node opens new tables its own way
        )

    def _open(self, table: Table) -> None:
        self._index(table)
        table.on_over = self._record
        table.on_rematch = self.rematch
        table.on_finished = self._forget
        table.bot_pool = self.bot_pool
        self.bot_pool.warm(table.bots.values())
        self.tables[table.id] = table
        with about(table=table.id):  # the table's task, and every line it logs, carry it
            log.info("table opened: %d players, to %d", table.rules.players, table.rules.target)
            table.start()

    def _record(self, table: Table) -> None:
        """A match is over and durable: its result (and ratings) are recorded in a thread."""
        log.info("match over")  # (in the table's task: the line names it)
        if self.store is None:
            return
        engine, fair = self.store.engine, FairPlay.of(self.config)
        task = spawn(  # kept in _recording
            self.store.in_writer(lambda: record_result(engine, table.id, fair)),
            name=f"record-{table.id}",
        )
        self._recording.add(task)
        task.add_done_callback(self._recorded)

    def _recorded(self, task: asyncio.Task[bool]) -> None:
        self._recording.discard(task)
        if not task.cancelled() and task.exception() is not None:  # spawn logged why
            log.warning("%s: the result is recorded on the next start", task.get_name())

    async def recorded(self) -> None:
        """Wait for the results being recorded now."""
        while self._recording:
            await asyncio.gather(*self._recording, return_exceptions=True)

    def _forget(self, table: Table) -> None:
        """A finished table nobody watches: only the history keeps it."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            self.addresses.pop(table.id, None)
            table.task = None

    async def route(self, table_id: str) -> Inbox | None:
        """Where a new socket's messages go (None: no such live table)."""
        table = self.tables.get(table_id)
        return None if table is None else table.inbox

    async def summary_of(self, table_id: str) -> dict[str, Any] | None:
        """One live table's summary (None: no such table)."""
        table = self.tables.get(table_id)
        return None if table is None else table.summary()

    def listing(self) -> list[dict[str, Any]]:
        """Open and live tables, newest first."""
        tables = sorted(self.tables.values(), key=lambda t: t.created_at, reverse=True)
        return [t.summary() for t in tables if t.status in ("waiting", "playing")]
