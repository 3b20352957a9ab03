"""The lobby: the live tables of a server, created, restored and stopped here."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from ..bots import BOTS
from ..rules import Rules
from .config import ServerConfig
from .players import Player
from .store import Store
from .table import Seat, Table, TableError

log = logging.getLogger("truco.server")

_CODE_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"


def table_code() -> str:
    """A short code to share a table (no 0/o, 1/l/i look-alikes)."""
    return "".join(secrets.choice(_CODE_LETTERS) for _ in range(6))


def bot_levels() -> list[str]:
    """The bot choices for empty seats: every bot of :data:`truco.bots.BOTS`, with its
    levels when the bot module lists them (``LEVELS``)."""
    choices: list[str] = []
    for name, factory in BOTS.items():
        levels = getattr(factory, "LEVELS", None) or _known_levels(name)
        choices.extend(f"{name}:{level}" for level in levels) if levels else choices.append(name)
    return choices


def _known_levels(name: str) -> tuple[str, ...]:
    try:
        module = __import__(f"truco.bots.{name}", fromlist=["LEVELS"])
    except ImportError:
        return ()
    levels = getattr(module, "LEVELS", ())
    return tuple(levels)


class Lobby:
    """All tables of one server process."""

    def __init__(self, config: ServerConfig, store: Store | None) -> None:
        self.config = config
        self.store = store
        self.tables: dict[str, Table] = {}

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
            table.after_restore()
            self._open(table)

    async def stop(self) -> None:
        for table in list(self.tables.values()):
            await table.stop()
        if self.store is not None:
            await self.store.close()

    def create(
        self,
        creator: Player,
        rules: Rules,
        name: str,
        turn_seconds: float | None = None,
        bots: dict[int, str] | None = None,
        seat: int | None = None,
    ) -> Table:
        """A new table; the creator may sit at once and seat bots."""
        live = sum(1 for t in self.tables.values() if t.status in ("waiting", "playing"))
        if live >= self.config.max_tables:
            raise TableError("full", "the server holds as many tables as it can; try later")
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
        from ..bots import make_bot

        for where, level in (bots or {}).items():
            if not 0 <= where < rules.players:
                raise TableError(
                    "no_seat",
                    f"there is no seat {where} at a {rules.players}-player table",
                )
            try:
                table.bots[where] = make_bot(level)
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
        self._open(table)  # its actor commits it first (await table.until_durable())
        return table

    def _open(self, table: Table) -> None:
        table.on_finished = self._forget
        self.tables[table.id] = table
        table.start()

    def _forget(self, table: Table) -> None:
        """A finished table nobody watches: only the history keeps it."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            table.task = None

    def listing(self) -> list[dict[str, Any]]:
        """Open and live tables, newest first."""
        tables = sorted(self.tables.values(), key=lambda t: t.created_at, reverse=True)
        return [t.summary() for t in tables if t.status in ("waiting", "playing")]
