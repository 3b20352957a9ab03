"""Persistence with SQLAlchemy: every table and its match record, saved as it is
played (SQLite file by default, PostgreSQL by URL).

The table actors never wait for the database: they hand a snapshot to
:class:`Store.save_soon` and a writer task stores the latest snapshot of each table
in a worker thread. :meth:`Store.flush` (called at shutdown) writes what is left.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    select,
)
from sqlalchemy.engine import Engine
from sqlalchemy.pool import StaticPool

metadata = MetaData()

settings_table = Table(
    "truco_settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

matches_table = Table(
    "truco_matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("version", Integer, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("table_json", Text, nullable=False),  # options, seats (players, bots)
    Column("record_json", Text, nullable=True),  # truco-record/1, None before the start
)


@dataclass(slots=True)
class MatchRow:
    """One stored table: its options and seats, and its record once started."""

    id: str
    name: str
    status: str
    created_at: float
    updated_at: float
    version: int
    winner: int | None
    table: dict[str, Any]
    record: dict[str, Any] | None = None


@dataclass
class Store:
    """The database of a server. ``url`` is any SQLAlchemy URL."""

    url: str
    engine: Engine = field(init=False)
    _pending: dict[str, MatchRow] = field(init=False, default_factory=dict)
    _wake: asyncio.Event | None = field(init=False, default=None)
    _writer: asyncio.Task[None] | None = field(init=False, default=None)
    _closing: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        kwargs: dict[str, Any] = {"future": True}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False}
            if self.url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = StaticPool  # one shared in-memory database
        self.engine = create_engine(self.url, **kwargs)
        metadata.create_all(self.engine)

    # ---------------------------------------------------------------- sync API
    def secret_key(self) -> bytes:
        """The key that signs guest tokens: made once, kept in the database."""
        with self.engine.begin() as conn:
            row = conn.execute(
                select(settings_table.c.value).where(settings_table.c.key == "token_key")
            ).first()
            if row is not None:
                return bytes.fromhex(row[0])
            key = secrets.token_bytes(32)
            conn.execute(settings_table.insert().values(key="token_key", value=key.hex()))
            return key

    def write(self, rows: list[MatchRow]) -> None:
        with self.engine.begin() as conn:
            for row in rows:
                values = {
                    "name": row.name,
                    "status": row.status,
                    "created_at": row.created_at,
                    "updated_at": row.updated_at,
                    "version": row.version,
                    "winner": row.winner,
                    "table_json": json.dumps(row.table),
                    "record_json": None if row.record is None else json.dumps(row.record),
                }
                done = conn.execute(
                    matches_table.update().where(matches_table.c.id == row.id).values(**values)
                )
                if done.rowcount == 0:
                    conn.execute(matches_table.insert().values(id=row.id, **values))

    def load(
        self,
        *,
        unfinished: bool | None = None,
        match_id: str | None = None,
        limit: int = 200,
    ) -> list[MatchRow]:
        query = select(matches_table).order_by(matches_table.c.updated_at.desc()).limit(limit)
        if match_id is not None:
            query = query.where(matches_table.c.id == match_id)
        if unfinished is True:
            query = query.where(matches_table.c.status.in_(["waiting", "playing"]))
        elif unfinished is False:
            query = query.where(matches_table.c.status == "finished")
        with self.engine.connect() as conn:
            return [
                MatchRow(
                    id=r.id,
                    name=r.name,
                    status=r.status,
                    created_at=r.created_at,
                    updated_at=r.updated_at,
                    version=r.version,
                    winner=r.winner,
                    table=json.loads(r.table_json),
                    record=None if r.record_json is None else json.loads(r.record_json),
                )
                for r in conn.execute(query)
            ]

    # ---------------------------------------------------------------- async writer
    def save_soon(self, row: MatchRow) -> None:
        """Queue the latest state of a table; never blocks the caller."""
        row.updated_at = time.time()
        self._pending[row.id] = row
        if self._wake is not None:
            self._wake.set()

    async def start(self) -> None:
        self._wake = asyncio.Event()
        self._writer = asyncio.create_task(self._write_loop())

    async def _write_loop(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._write_pending()
            if self._closing:
                return

    async def _write_pending(self) -> None:
        if self._pending:
            rows, self._pending = list(self._pending.values()), {}
            await asyncio.to_thread(self.write, rows)

    async def flush(self) -> None:
        """Write everything queued (the writer keeps running)."""
        await self._write_pending()

    async def close(self) -> None:
        """Write what is left, stop the writer, release the connections."""
        self._closing = True
        if self._writer is not None and self._wake is not None:
            self._wake.set()
            await self._writer
            self._writer = None
        self.write(list(self._pending.values()))
        self._pending = {}
        self.engine.dispose()
