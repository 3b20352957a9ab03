"""Group commits on PostgreSQL: one statement, one round trip, on the event loop.

At a human pace (one action a table a second) a group commit carries what arrived while
the last one was in flight: little at a few hundred tables, more above (4-5 writes at 800
tables, 15-26 at 1,000), so what a commit costs *per commit* is much of what an action
costs. The generic path (:meth:`truco.server.storage.store.Store.write_batch`, in
the writer's thread) spends a thread hop and three round trips on it (raise the fences, the
journal entry, ``COMMIT``). Here a batch is one SQL statement on a connection in autocommit
mode (so the statement is its own transaction): data-modifying ``WITH`` parts for the rows,
the table dicts, the journal entries and the entries dropped, each given as arrays
(``unnest``), and the fences raised by ``truco_raise_fences`` (migration 0004), which raises
:data:`FENCE_REFUSED` when a newer lease token holds a table: the whole statement, and so
everything of the batch, is then refused, as the generic path's rollback does. Only the
parts a batch needs are in its statement (a few shapes, each prepared once by psycopg).
The statement goes through psycopg's own API (``AsyncConnection.execute``, binary
parameters, ``prepare=True``): no hand-made protocol, no hand-made array literals.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from sqlalchemy.engine import Engine

    from .journal import TableWrite
    from .rows import MatchRow

log = logging.getLogger("truco.server")

#: SQLSTATE raised by ``truco_raise_fences`` (its detail: the id of the table refused)
FENCE_REFUSED = "TF001"

_ROWS = """rows AS (
  INSERT INTO truco_matches
    (id, name, status, created_at, updated_at, version, winner, table_json, record_json)
  SELECT * FROM unnest(%b::text[], %b::text[], %b::text[], %b::float8[], %b::float8[],
                       %b::int[], %b::int[], %b::text[], %b::text[])
  ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status,
    created_at = excluded.created_at, updated_at = excluded.updated_at,
    version = excluded.version, winner = excluded.winner, table_json = excluded.table_json,
    record_json = excluded.record_json
)"""
_TABLES = """tables AS (
  UPDATE truco_matches AS m SET table_json = u.table_json, updated_at = u.updated_at
  FROM unnest(%b::text[], %b::text[], %b::float8[]) AS u(id, table_json, updated_at)
  WHERE m.id = u.id
)"""
_ENTRIES = """entries AS (
  INSERT INTO truco_journal (match_id, version, entry)
  SELECT * FROM unnest(%b::text[], %b::int[], %b::text[])
)"""
_DROPS = """drops AS (
  DELETE FROM truco_journal AS j USING unnest(%b::text[], %b::int[]) AS d(match_id, before)
  WHERE j.match_id = d.match_id AND j.version < d.before
)"""
_FENCES = "fences AS (SELECT truco_raise_fences(%b::text[], %b::bigint[]) AS n)"


def batch_statement(
    writes: list[TableWrite], fences: dict[str, int], now: float
) -> tuple[str, list[Any]]:
    """The one statement that commits ``writes`` (raising ``fences`` first), and its
    parameters."""
    rows: list[MatchRow] = []
    tables: tuple[list[str], list[str], list[float]] = ([], [], [])
    entries: tuple[list[str], list[int], list[str]] = ([], [], [])
    drops: tuple[list[str], list[int]] = ([], [])
    for w in writes:
        if w.checkpoint is not None:
            rows.append(w.checkpoint)
        elif w.table is not None:
            tables[0].append(w.match_id)
            tables[1].append(_dumps(w.table))
            tables[2].append(now)
        if w.entry is not None:
            entries[0].append(w.match_id)
            entries[1].append(w.version)
            entries[2].append(_dumps(w.entry))
        if w.drop_before is not None:
            drops[0].append(w.match_id)
            drops[1].append(w.drop_before)
    parts: list[str] = []
    params: list[Any] = []
    if rows:
        parts.append(_ROWS)
        params += [
            [r.id for r in rows],
            [r.name for r in rows],
            [r.status for r in rows],
            [r.created_at for r in rows],
            [r.updated_at for r in rows],
            [r.version for r in rows],
            [r.winner for r in rows],
            [_dumps(r.table) for r in rows],
            [None if r.record is None else _dumps(r.record) for r in rows],
        ]
    if tables[0]:
        parts.append(_TABLES)
        params += list(tables)
    if entries[0]:
        parts.append(_ENTRIES)
        params += list(entries)
    if drops[0]:
        parts.append(_DROPS)
        params += list(drops)
    if fences:
        ids = sorted(fences)
        parts.append(_FENCES)
        params += [ids, [fences[i] for i in ids]]
        tail = "SELECT n FROM fences"
    else:
        tail = "SELECT 0"
    if not parts:
        return "SELECT 0", []
    return "WITH " + ",\n".join(parts) + "\n" + tail, params


class PgWriter:
    """The connection a PostgreSQL store's group commits go through (opened when first
    needed, opened again after a failure), in autocommit mode: each batch is one statement,
    prepared once per shape by psycopg."""

    def __init__(self, engine: Engine) -> None:
        args, kwargs = engine.dialect.create_connect_args(engine.url)
        kwargs.pop("context", None)  # SQLAlchemy's adapters: plain ones do here
        self._args: list[Any] = list(args)
        self._kwargs: dict[str, Any] = dict(kwargs)
        self._conn: AsyncConnection[Any] | None = None

    async def write(self, writes: list[TableWrite], fences: dict[str, int], now: float) -> None:
        """Commit ``writes`` in one statement; :class:`~truco.server.storage.store.FenceError` if a
        fence refuses one (then nothing of them is written)."""
        import psycopg

        from .rows import FenceError

        statement, params = batch_statement(writes, fences, now)
        conn = await self._connection()
        try:
            await conn.execute(statement.encode(), params, prepare=True)  # (a few shapes)
        except psycopg.Error as error:
            if conn.broken or conn.closed:
                self._drop(conn)
            if error.sqlstate == FENCE_REFUSED:  # the whole statement refused, nothing written
                raise FenceError(error.diag.message_detail or "?") from None
            raise
        except BaseException:  # cancelled mid-statement: the connection's state is unknown
            self._drop(conn)
            raise

    def _drop(self, conn: AsyncConnection[Any]) -> None:
        """The connection's state is unknown (cancelled mid-statement, broken): closed, a
        new one next time."""
        if self._conn is conn:
            self._conn = None
        conn.pgconn.finish()

    async def _connection(self) -> AsyncConnection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            import psycopg

            if self._conn is not None:
                self._drop(self._conn)
            self._conn = await psycopg.AsyncConnection.connect(
                *self._args, **self._kwargs, autocommit=True
            )
        return self._conn

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()


def _dumps(data: Any) -> str:
    return orjson.dumps(data).decode()
