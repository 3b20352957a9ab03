"""Write-ahead for one table: what changed becomes a journal write, committed before any
client hears of it (:mod:`truco.server.storage.journal` builds the write,
:mod:`truco.server.storage.store`
commits it with other tables' writes)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from ...game import Game
from ..storage.journal import Journal, TableWrite, event_json
from ..storage.rows import MatchRow
from ..storage.store import Store
from .events import EventLog

log = logging.getLogger("truco.server")


class TableStopped(Exception):
    """The table's actor stopped (the server is stopping) before it was durable."""


class TableNotHosted(TimeoutError):
    """No actor ever ran the table before its creator stopped waiting (a cluster node
    could not get its lease: Redis away); it was withdrawn and will not start later."""


class Durability:
    """How much of a table is durable, and the commit of the rest."""

    def __init__(self, table_id: str, store: Store | None, journal: Journal) -> None:
        self.table_id = table_id
        self.store = store
        self.journal = journal
        self.persisting = False  # a commit is in flight
        self.stopping = False  # the server is stopping: a failing commit is given up
        self.halted = False  # the actor has stopped: nothing more becomes durable
        self._durable: asyncio.Condition | None = None
        self._waiting = 0  # callers of :meth:`until` waiting now

    def pending(
        self,
        events: EventLog,
        game: Game | None,
        table: dict[str, Any],
        status: str,
        snapshot: Callable[[], MatchRow],
    ) -> TableWrite | None:
        """The write that makes the table durable as it is now (None: it is already).
        A change of the record without an event takes a version of its own (``events``
        moves up to it)."""
        new = [event_json(e.audience, e.body) for e in events.after(self.journal.version)]
        write = self.journal.pending(
            self.table_id, events.version, new, game, table, status, snapshot
        )
        if write is not None:
            events.version = max(events.version, write.version)
        return write

    async def commit(self, write: TableWrite, table: dict[str, Any], status: str) -> bool:
        """Commit ``write``, retrying while the database refuses, unless the server is
        stopping (then False: nothing of it may be sent)."""
        assert self.store is not None
        delay = 0.05
        self.persisting = True
        try:
            while True:
                try:
                    await self.store.commit(write)
                    break
                except Exception:
                    log.exception(
                        "table %s: cannot commit version %d", self.table_id, write.version
                    )
                    if self.stopping:
                        return False
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)
        finally:
            self.persisting = False
        self.journal.committed(write, table, status)
        return True

    async def notify(self) -> None:
        """Wake those waiting in :meth:`until` (after a round is durable); with nobody
        waiting (every round once the table's create has heard it is durable) nothing."""
        if self._durable is not None and self._waiting:
            async with self._durable:
                self._durable.notify_all()

    async def stopped(self) -> None:
        """The table's actor has stopped: those waiting in :meth:`until` hear it."""
        self.halted = True
        await self.notify()

    async def until(self, version: int) -> None:
        """Return once the table is durable at ``version`` (and has a row);
        :class:`TableStopped` if its actor stopped before that."""
        if self.store is None:
            return
        if self._durable is None:
            self._durable = asyncio.Condition()

        def durable() -> bool:
            return self.journal.version >= version and self.journal.status is not None

        self._waiting += 1
        try:
            async with self._durable:
                await self._durable.wait_for(lambda: durable() or self.halted)
        finally:
            self._waiting -= 1
        if not durable():
            raise TableStopped("the server is stopping: try again in a moment")
