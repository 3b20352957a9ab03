"""The lobby: the live tables of a server, created, restored and stopped here."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any, Protocol

from ..bots import make_bot
from ..rules import Rules
from .bot_pool import BotPool, check_bot_spec, offered_bots
from .config import ServerConfig
from .players import Player
from .store import Store
from .table import Command, Join, Leave, Seat, Table, TableError

log = logging.getLogger("truco.server")

_CODE_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"


def table_code() -> str:
    """A short code to share a table (no 0/o, 1/l/i look-alikes)."""
    return "".join(secrets.choice(_CODE_LETTERS) for _ in range(6))


def bot_levels() -> list[str]:
    """The bot choices for empty seats (see :func:`~truco.server.bot_pool.offered_bots`)."""
    return offered_bots()


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

    async def stop(self) -> None:
        for table in list(self.tables.values()):
            await table.stop()
        self.bot_pool.shutdown()
        if self.store is not None:
            await self.store.close()

    def live(self) -> list[Table]:
        return [t for t in self.tables.values() if t.status in ("waiting", "playing")]

    def _check_caps(self, creator: Player, address: str | None) -> None:
        live = self.live()
        if len(live) >= self.config.max_tables:
            raise TableError("full", "the server holds as many tables as it can; try later")
        mine = sum(1 for t in live if t.creator == creator.id)
        if mine >= self.config.max_tables_per_guest:
            raise TableError(
                "too_many_tables",
                f"you have {mine} open tables: at most {self.config.max_tables_per_guest} a guest",
            )
        if address is not None:
            here = sum(1 for t in live if self.addresses.get(t.id) == address)
            if here >= self.config.max_tables_per_address:
                raise TableError(
                    "too_many_tables",
                    f"{here} open tables come from your address: "
                    f"at most {self.config.max_tables_per_address}",
                )

    def create(
        self,
        creator: Player,
        rules: Rules,
        name: str,
        turn_seconds: float | None = None,
        bots: dict[int, str] | None = None,
        seat: int | None = None,
        address: str | None = None,
    ) -> Table:
        """A new table; the creator may sit at once and seat bots (of those offered).
        A guest and an address keep a bounded number of live tables."""
        self._check_caps(creator, address)
        code = table_code()
        while code in self.tables:
            code = table_code()
        table = Table(
            id=code,
            name=name or f"Mesa de {creator.name}",
            rules=rules,
            config=self.config,
            store=self.store,
            creator=creator.id,
            turn_seconds=self.config.turn_seconds if turn_seconds is None else turn_seconds,
        )
        for where, level in (bots or {}).items():
            if not 0 <= where < rules.players:
                raise TableError(
                    "no_seat",
                    f"there is no seat {where} at a {rules.players}-player table",
                )
            try:
                table.bots[where] = make_bot(check_bot_spec(level))
            except ValueError as exc:
                raise TableError("bad_bot", str(exc)) from None
            table.seats[where] = Seat("bot", None, f"Bot {level}", level)
        if seat is not None:
            if not 0 <= seat < rules.players or table.seats[seat].kind != "empty":
                raise TableError("no_seat", f"seat {seat} is not free")
            table.seats[seat] = Seat("human", creator.id, creator.name)
        if all(s.kind != "empty" for s in table.seats) and seat is None:
            raise TableError("no_seat", "leave at least one seat for people, or sit in one")
        table.start_if_full()
        if address is not None:
            self.addresses[table.id] = address
        self._open(table)  # its actor commits it first (await table.until_durable())
        return table

    def _open(self, table: Table) -> None:
        table.on_finished = self._forget
        table.bot_pool = self.bot_pool
        self.bot_pool.warm(table.bots.values())
        self.tables[table.id] = table
        table.start()

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
