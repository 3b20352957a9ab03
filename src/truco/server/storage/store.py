"""Persistence with SQLAlchemy: every table and its match record (SQLite file by default,
in WAL mode; PostgreSQL by URL).

A table's changes are written ahead: the table hands a
:class:`~truco.server.storage.journal.TableWrite`
to :meth:`Store.commit` and tells its clients only once it is committed. One writer task
commits everything the tables hand over while the previous commit is in flight in one
transaction (group commit), in a thread of its own, so that the event loop never waits for
the database and the bots' threads never delay a commit. :meth:`Store.load` gives each live
table as of its last commit (checkpoint and journal folded, see
:mod:`truco.server.storage.journal`).

Why a sync driver in one thread rather than an async driver: group commit wants exactly one
writer (SQLite has only one anyway, and on PostgreSQL one connection committing batches keeps
one WAL flush per batch), the same code serves SQLite and PostgreSQL, and an async SQLite driver
(aiosqlite) is a thread per connection under the hood. The hop to the thread costs tens of
microseconds against a commit's milliseconds. The writer sends plain SQL through the DBAPI
connection it keeps (SQLAlchemy's pool and dialect still make it): compiling SQLAlchemy
statements for every commit cost more than the commit's own work.

On PostgreSQL the group commits skip the thread: each batch is one statement (one round
trip) on an asynchronous connection of the event loop (:mod:`truco.server.storage.store_pg`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import orjson
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    false,
    select,
)
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import StaticPool

from ..metrics import COMMIT_SECONDS, COMMIT_WRITES
from ..tasks import spawn
from .journal import LIVE, JournalError, TableWrite, fold
from .migrations import upgrade
from .rows import FenceError, MatchRow
from .store_pg import PgWriter

log = logging.getLogger("truco.server")
T = TypeVar("T")

#: the tables the code queries; the schema itself is made by the migrations
#: (:mod:`truco.server.storage.migrations`), which the migration test checks against this
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

journal_table = Table(
    "truco_journal",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("entry", Text, nullable=False),  # {"events": [...], "hands": [...]}
)

# -- players (issue 12): accounts; each finished match's result, its seats, and the ratings
accounts_table = Table(
    "truco_accounts",
    metadata,
    Column("id", String(32), primary_key=True),  # the player id of the account's sessions
    Column("name", String(24), nullable=False),  # the display name
    Column("name_key", String(100), nullable=False, unique=True),  # see accounts.name_key
    Column("password_hash", Text, nullable=False),  # argon2id, never the password
    Column("created_at", Float, nullable=False),
    # what the name looks like (accounts.name_skeleton): no new name may look the same
    Column("name_skeleton", String(100), nullable=True, index=True),
    # moderation (issue 31, server/moderation.py): player, moderator or admin; banned (no
    # login, no session); a frozen rating moves no more; where the account signed up
    Column("role", String(16), nullable=False, server_default="player"),
    Column("banned", Boolean, nullable=False, server_default=false()),
    Column("rating_frozen", Boolean, nullable=False, server_default=false()),
    Column("signup_address", String(64), nullable=True, index=True),
)

#: every address each account signed up or logged in from (fair_play.py: accounts of one
#: address are not rated against each other)
account_addresses_table = Table(
    "truco_account_addresses",
    metadata,
    Column("account_id", String(32), primary_key=True),
    Column("address", String(64), primary_key=True),
    Column("first_seen", Float, nullable=False),
    Column("last_seen", Float, nullable=False),
    Index("ix_truco_account_addresses_address", "address"),
)

#: players' reports of a player (from a table, a replay or a profile), for the moderators
reports_table = Table(
    "truco_reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", Float, nullable=False),
    Column("reporter_id", String(32), nullable=False, index=True),
    Column("reporter_name", String(80), nullable=False),
    Column("player_id", String(32), nullable=False, index=True),  # the reported one
    Column("player_name", String(80), nullable=False),
    Column("context", String(16), nullable=False),  # table, replay, profile
    Column("match_id", String(32), nullable=True),
    Column("reason", String(32), nullable=False),  # moderation.REASONS
    Column("comment", Text, nullable=False),
    Column("status", String(16), nullable=False, index=True),  # open, closed
    Column("closed_by", String(80), nullable=True),
    Column("closed_at", Float, nullable=True),
)

#: every moderator's action: who, what, on whom, why
audit_table = Table(
    "truco_audit",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False, index=True),
    Column("actor", String(80), nullable=False),
    Column("action", String(32), nullable=False),
    Column("target", String(100), nullable=False, index=True),
    Column("reason", Text, nullable=False),
    Column("details", Text, nullable=False),  # JSON
)

#: guests' addresses banned until a time
address_bans_table = Table(
    "truco_address_bans",
    metadata,
    Column("address", String(64), primary_key=True),
    Column("until", Float, nullable=False),
    Column("reason", Text, nullable=False),
    Column("actor", String(80), nullable=False),
    Column("created_at", Float, nullable=False),
)

#: server-side sessions (session_store.py): a token names one row; no row, no session
sessions_table = Table(
    "truco_sessions",
    metadata,
    Column("id", String(40), primary_key=True),  # the session id the signed token carries
    Column("player_id", String(32), nullable=False, index=True),  # a guest's or an account's
    Column("name", String(24), nullable=False),  # the guest's name (an account's: its own)
    Column("account", Boolean, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("last_seen", Float, nullable=False),
    Column("expires_at", Float, nullable=False, index=True),  # renewal moves it, up to the max
    Column("agent", String(120), nullable=False),  # the User-Agent, cut short
    Column("address", String(64), nullable=False),  # the address that opened it
)

results_table = Table(
    "truco_results",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),  # the order ratings apply
    Column("match_id", String(32), nullable=False, unique=True),
    Column("mode", String(8), nullable=False),  # 1v1, 2v2, 3v3
    Column("rated", Boolean, nullable=False),
    Column("winner", Integer, nullable=True),  # the team
    Column("finished_at", Float, nullable=False),
    # a match played as rated that a fair-play rule kept unrated (fair_play.py), else None
    Column("unrated_reason", String(32), nullable=True),
)

participants_table = Table(
    "truco_participants",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("player_id", String(32), nullable=True, index=True),  # None for a bot
    Column("kind", String(8), nullable=False),  # human, bot
    Column("name", String(80), nullable=False),
    Column("team", Integer, nullable=False),
    Column("won", Boolean, nullable=False),  # False for an abandoning player
    Column("abandoned", Boolean, nullable=False),
)

ratings_table = Table(
    "truco_ratings",
    metadata,
    Column("player_id", String(32), primary_key=True),
    Column("mode", String(8), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)

rating_history_table = Table(
    "truco_rating_history",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("player_id", String(32), primary_key=True),
    Column("mode", String(8), nullable=False),
    Column("mu", Float, nullable=False),  # after the match
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_truco_rating_history_player", "player_id", "mode", "at"),
)

#: cluster mode: the largest lease token (:mod:`truco.server.cluster.lease`) that wrote each table
fences_table = Table(
    "truco_fences",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("token", BigInteger, nullable=False),
)

# -- playing together (issue 33): follows, blocks, hidden presence, challenges, tournaments
follows_table = Table(
    "truco_follows",
    metadata,
    Column("follower_id", String(32), primary_key=True),
    Column("followed_id", String(32), primary_key=True, index=True),
    Column("created_at", Float, nullable=False),
)

blocks_table = Table(
    "truco_blocks",
    metadata,
    Column("blocker_id", String(32), primary_key=True),
    Column("blocked_id", String(32), primary_key=True, index=True),
    Column("created_at", Float, nullable=False),
)

privacy_table = Table(
    "truco_privacy",
    metadata,
    Column("player_id", String(32), primary_key=True),
    Column("hide_presence", Boolean, nullable=False),
)

challenges_table = Table(
    "truco_challenges",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("challenger_id", String(32), nullable=False, index=True),
    Column("challenger_name", String(24), nullable=False),
    Column("target_id", String(32), nullable=True, index=True),  # None: an open link
    Column("target_name", String(24), nullable=True),
    Column("rules_json", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("status", String(12), nullable=False),  # open, accepted, declined, cancelled
    Column("table_id", String(32), nullable=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False, index=True),
)

#: the seats of a team challenge (2v2, 3v3): seat 0 the challenger's; a named seat waits
#: for its player's yes, an open one (no player) for whoever takes the link
challenge_seats_table = Table(
    "truco_challenge_seats",
    metadata,
    Column("challenge_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("player_id", String(32), nullable=True, index=True),
    Column("name", String(24), nullable=True),
    Column("accepted", Boolean, nullable=False),
)

tournaments_table = Table(
    "truco_tournaments",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("organiser_id", String(32), nullable=False, index=True),
    Column("organiser_name", String(24), nullable=False),
    Column("official", Boolean, nullable=False),
    Column("format", String(8), nullable=False),  # swiss, arena
    Column("rules_json", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rounds", Integer, nullable=False),  # Swiss: the rounds; arena: 0
    Column("minutes", Integer, nullable=False),  # arena: its length; Swiss: 0
    Column("max_entrants", Integer, nullable=False),
    Column("starts_at", Float, nullable=False),
    Column("status", String(12), nullable=False, index=True),  # open, running, finished
    Column("round", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
    # the node directing it (cluster mode): one at a time, until its lease runs out
    Column("director", String(40), nullable=True),
    Column("lease_until", Float, nullable=False),
)

entrants_table = Table(
    "truco_tournament_entrants",
    metadata,
    Column("tournament_id", String(32), primary_key=True),
    Column("player_id", String(32), primary_key=True, index=True),
    Column("name", String(24), nullable=False),
    Column("joined_at", Float, nullable=False),
    Column("withdrawn", Boolean, nullable=False),
    # a team tournament: the captain's partners, [{"id", "name"}] (None: 1v1)
    Column("partners_json", Text, nullable=True),
)

tournament_games_table = Table(
    "truco_tournament_games",
    metadata,
    Column("tournament_id", String(32), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),  # the order they were made
    Column("round", Integer, nullable=False),
    Column("first_id", String(32), nullable=False),
    Column("second_id", String(32), nullable=True),  # None: the first has the bye
    Column("table_id", String(32), nullable=True, index=True),
    Column("status", String(12), nullable=False),  # playing, done
    Column("winner_id", String(32), nullable=True),  # None: a draw (or a bye's)
    Column("ended_seq", Integer, nullable=True),  # the order they ended (arena points)
)


@dataclass(frozen=True, slots=True)
class _Statements:
    """The SQL of :meth:`Store.write_batch`, in the driver's parameter style."""

    mark: str
    raise_fence: str
    update_table: str
    insert_entry: str
    insert_entries: str  # followed by the rows' placeholders
    drop_entries: str
    update_row: str
    insert_row: str

    @classmethod
    def for_driver(cls, paramstyle: str) -> _Statements:
        mark = "?" if paramstyle == "qmark" else "%s"
        columns = "name, status, created_at, updated_at, version, winner, table_json, record_json"
        sets = ", ".join(f"{c.strip()} = ?" for c in columns.split(","))
        return cls(
            mark="?",
            raise_fence="INSERT INTO truco_fences (match_id, token) VALUES (?, ?) "
            "ON CONFLICT (match_id) DO UPDATE SET token = excluded.token "
            "WHERE truco_fences.token <= excluded.token RETURNING token",
            update_table="UPDATE truco_matches SET table_json = ?, updated_at = ? WHERE id = ?",
            insert_entry="INSERT INTO truco_journal (match_id, version, entry) VALUES (?, ?, ?)",
            insert_entries="INSERT INTO truco_journal (match_id, version, entry) VALUES",
            drop_entries="DELETE FROM truco_journal WHERE match_id = ? AND version < ?",
            update_row=f"UPDATE truco_matches SET {sets} WHERE id = ?",
            insert_row=f"INSERT INTO truco_matches ({columns}, id) VALUES ({', '.join('?' * 9)})",
        ).with_mark(mark)

    def with_mark(self, mark: str) -> _Statements:
        if mark == "?":
            return self
        return _Statements(*(getattr(self, f).replace("?", mark) for f in self.__slots__))


def _execute(cursor: Any, statement: str, rows: list[tuple[Any, ...]]) -> None:
    """``statement`` for each of ``rows`` (none: nothing)."""
    if len(rows) == 1:
        cursor.execute(statement, rows[0])
    elif rows:
        cursor.executemany(statement, rows)


@dataclass
class Store:
    """The database of a server. ``url`` is any SQLAlchemy URL."""

    url: str
    engine: Engine = field(init=False)
    _queue: list[tuple[TableWrite, asyncio.Future[None]]] = field(init=False, default_factory=list)
    _wake: asyncio.Event | None = field(init=False, default=None)
    _writer: asyncio.Task[None] | None = field(init=False, default=None)
    _thread: ThreadPoolExecutor = field(init=False)
    _closing: bool = field(init=False, default=False)
    #: transactions committed by :meth:`write_batch` (group commit: fewer than writes)
    transactions: int = field(init=False, default=0)
    #: cluster mode: the lease token of each table this node holds; every write of such a
    #: table is conditional on it (:meth:`claim`)
    fences: dict[str, int] = field(init=False, default_factory=dict)
    #: called with the table id when a write is refused by its fence
    on_fence_lost: Callable[[str], None] | None = field(init=False, default=None)
    #: the writer thread's DBAPI connection and its statements (:meth:`write_batch`)
    _raw: Any = field(init=False, default=None)
    _sql: _Statements = field(init=False)
    #: PostgreSQL: group commits as one statement on the event loop (:mod:`.store_pg`)
    _pg: PgWriter | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        kwargs: dict[str, Any] = {}
        sqlite = self.url.startswith("sqlite")
        url: str | URL = self.url
        sync = "FULL"
        if sqlite:
            url, sync = _sqlite_sync(self.url)
            kwargs["connect_args"] = {"check_same_thread": False}
            if self.url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = StaticPool  # one shared in-memory database
        self.engine = create_engine(url, **kwargs)
        if sqlite:
            event.listen(self.engine, "connect", partial(_sqlite_durable, sync))
        upgrade(self.engine)  # an earlier version's database upgrades in place
        self._sql = _Statements.for_driver(self.engine.dialect.paramstyle)
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="truco-store")

    # ---------------------------------------------------------------- sync API
    def secret_key(self) -> bytes:
        """The key that signs guest tokens: made once, kept in the database (the nodes of a
        cluster starting together agree on the first one written)."""
        for _ in range(3):
            try:
                with self.engine.begin() as conn:
                    row = conn.execute(
                        select(settings_table.c.value).where(settings_table.c.key == "token_key")
                    ).first()
                    if row is not None:
                        return bytes.fromhex(row[0])
                    key = secrets.token_bytes(32)
                    conn.execute(settings_table.insert().values(key="token_key", value=key.hex()))
                    return key
            except IntegrityError:  # another node wrote it meanwhile: read theirs
                continue
        raise RuntimeError("cannot read or write the token key")

    def write(self, rows: list[MatchRow]) -> None:
        """Store whole rows (checkpoints), in one transaction."""
        conn = self.engine.raw_connection()
        try:
            cursor = conn.cursor()
            for row in rows:
                _put_row(cursor, self._sql, row)
            cursor.close()
            conn.commit()
        finally:
            conn.close()  # back to the pool (rolled back there if not committed)

    def claim(self, match_id: str, token: int) -> bool:
        """Raise the table's fence to ``token``; False (nothing changed) if a larger token
        holds it. A node taking a table over claims it before it loads it: from then on, the
        writes of any earlier owner are refused."""
        conn = self.engine.raw_connection()
        try:
            cursor = conn.cursor()
            raised = _raise_fence(cursor, self._sql, match_id, token)
            cursor.close()
            conn.commit()
            return raised
        finally:
            conn.close()  # back to the pool (rolled back there if not committed)

    def write_batch(self, writes: list[TableWrite]) -> None:
        """Commit the writes of several tables in one transaction; a table held under a
        lease (:attr:`fences`) is written only if its fence still admits the token
        (else :class:`FenceError`, and nothing of the batch is written).

        The hot path of every action: plain SQL on the DBAPI connection the writer thread
        keeps (one ``executemany`` per statement; on PostgreSQL the journal entries in one
        multi-row ``INSERT``), not SQLAlchemy's compilation per statement. Only the writer
        thread calls it."""
        conn = self._connection()
        sql = self._sql
        try:
            cursor = conn.cursor()
            fenced = {
                w.match_id: self.fences[w.match_id] for w in writes if w.match_id in self.fences
            }
            refused = _raise_fences(cursor, sql, fenced)
            if refused is not None:
                raise FenceError(refused)
            now = time.time()
            tables, entries, drops = [], [], []
            for w in writes:
                if w.checkpoint is not None:
                    _put_row(cursor, sql, w.checkpoint)
                elif w.table is not None:
                    tables.append((_dumps(w.table), now, w.match_id))
                if w.entry is not None:
                    entries.append((w.match_id, w.version, _dumps(w.entry)))
                if w.drop_before is not None:
                    drops.append((w.match_id, w.drop_before))
            _execute(cursor, sql.update_table, tables)
            if sql.mark == "?" or len(entries) < 2:
                _execute(cursor, sql.insert_entry, entries)
            else:  # one statement for them all: one round trip, cheaper than a pipeline
                for start in range(0, len(entries), 1000):
                    chunk = entries[start : start + 1000]
                    rows = ", ".join([f"({sql.mark}, {sql.mark}, {sql.mark})"] * len(chunk))
                    values = [value for entry in chunk for value in entry]
                    cursor.execute(f"{sql.insert_entries} {rows}", values)
            _execute(cursor, sql.drop_entries, drops)
            cursor.close()
            conn.commit()
        except BaseException:
            self._discard_connection(conn)
            raise
        self.transactions += 1

    def _connection(self) -> Any:
        """The writer thread's DBAPI connection (checked out of the engine's pool once)."""
        if self._raw is None:
            self._raw = self.engine.raw_connection()
        return self._raw

    def _discard_connection(self, conn: Any) -> None:
        """After a failed write: roll back and drop the connection (it may be broken: the
        next write takes a fresh one from the pool)."""
        self._raw = None
        try:
            conn.rollback()
            conn.close()
        except Exception:
            try:
                conn.invalidate()
            except Exception:
                log.debug("cannot invalidate a failed store connection", exc_info=True)

    def load(
        self,
        *,
        unfinished: bool | None = None,
        match_id: str | None = None,
        limit: int = 200,
    ) -> list[MatchRow]:
        """Stored tables, the most recently saved first; a live one as of its last commit."""
        query = select(matches_table).order_by(matches_table.c.updated_at.desc()).limit(limit)
        if match_id is not None:
            query = query.where(matches_table.c.id == match_id)
        if unfinished is True:
            query = query.where(matches_table.c.status.in_(LIVE))
        elif unfinished is False:
            query = query.where(matches_table.c.status == "finished")
        with self.engine.connect() as conn:
            rows = [
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
            live = {row.id: row for row in rows if row.status in LIVE}
            if live:
                entries: dict[str, list[tuple[int, dict[str, Any]]]] = {}
                journal = (
                    select(journal_table)
                    .where(journal_table.c.match_id.in_(list(live)))
                    .order_by(journal_table.c.match_id, journal_table.c.version)
                )
                for e in conn.execute(journal):
                    entries.setdefault(e.match_id, []).append((e.version, json.loads(e.entry)))
                for key, row in live.items():
                    try:
                        fold(row, entries.get(key, ()))
                    except JournalError:
                        log.exception("table %s: its journal does not fit its checkpoint", key)
                        rows.remove(row)  # left in the database as it is, not served
        return rows

    async def in_writer(self, work: Callable[[], T]) -> T:
        """Run ``work`` (a transaction of its own) in the writer's thread, between group
        commits: one writer at a time, as SQLite wants (and an in-memory one needs)."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, work)

    # ---------------------------------------------------------------- group commit
    async def commit(self, write: TableWrite) -> None:
        """Return once ``write`` is committed; raise if it could not be.

        Writes handed over while a commit is in flight go together in the next one."""
        loop = asyncio.get_running_loop()
        if self._wake is None:  # no writer task (a store used without start())
            await loop.run_in_executor(self._thread, self.write_batch, [write])
            return
        done: asyncio.Future[None] = loop.create_future()
        self._queue.append((write, done))
        self._wake.set()
        await done

    async def start(self) -> None:
        if self.engine.dialect.name == "postgresql" and self.engine.dialect.driver == "psycopg":
            self._pg = PgWriter(self.engine)
        self._wake = asyncio.Event()
        self._writer = spawn(self._write_loop(), "truco-store-writer")

    async def _write_loop(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._queue = self._queue, []
            if batch:
                COMMIT_WRITES.observe(len(batch))
                try:
                    with COMMIT_SECONDS.time():
                        await self._write([w for w, _ in batch], loop)
                except Exception:
                    await self._write_one_by_one(batch)
                else:
                    for _, done in batch:
                        if not done.done():
                            done.set_result(None)
            if self._closing and not self._queue:
                return

    async def _write(self, writes: list[TableWrite], loop: asyncio.AbstractEventLoop) -> None:
        """One group commit: on PostgreSQL one statement on this loop, else
        :meth:`write_batch` in the writer's thread."""
        if self._pg is None:
            await loop.run_in_executor(self._thread, self.write_batch, writes)
            return
        fenced = {w.match_id: self.fences[w.match_id] for w in writes if w.match_id in self.fences}
        await self._pg.write(writes, fenced, time.time())
        self.transactions += 1

    async def _write_one_by_one(self, batch: list[tuple[TableWrite, asyncio.Future[None]]]) -> None:
        """After a failed group commit: each write alone, so that one bad write fails alone."""
        loop = asyncio.get_running_loop()
        for write, done in batch:
            try:
                await self._write([write], loop)
            except Exception as exc:
                if isinstance(exc, FenceError) and self.on_fence_lost is not None:
                    self.on_fence_lost(exc.match_id)
                if not done.done():
                    done.set_exception(exc)
            else:
                if not done.done():
                    done.set_result(None)

    async def close(self) -> None:
        """Commit what was handed over, stop the writer, release the connections."""
        self._closing = True
        if self._writer is not None and self._wake is not None:
            self._wake.set()
            await self._writer
            self._writer = None
        self._thread.shutdown()
        if self._pg is not None:
            await self._pg.close()
        if self._raw is not None:
            self._raw.close()
            self._raw = None
        self.engine.dispose()


def _dumps(data: Any) -> str:
    """JSON as stored (orjson: the write path runs once per commit of every table)."""
    return orjson.dumps(data).decode()


def _put_row(cursor: Any, sql: _Statements, row: MatchRow) -> None:
    """Store a whole row (a checkpoint) through a DBAPI cursor: update, or insert a new one."""
    values = (
        row.name,
        row.status,
        row.created_at,
        row.updated_at,
        row.version,
        row.winner,
        _dumps(row.table),
        None if row.record is None else _dumps(row.record),
    )
    cursor.execute(sql.update_row, (*values, row.id))
    if cursor.rowcount == 0:
        cursor.execute(sql.insert_row, (*values, row.id))


def _raise_fence(cursor: Any, sql: _Statements, match_id: str, token: int) -> bool:
    """``token`` becomes the table's fence if it is not smaller than the stored one, in one
    statement (the row lock orders it against any concurrent write of the table)."""
    cursor.execute(sql.raise_fence, (match_id, token))
    return cursor.fetchone() is not None  # a row comes back only if it was written


#: the fences of a group commit raised in one statement (PostgreSQL), then the rows' marks
_RAISE_FENCES = "INSERT INTO truco_fences (match_id, token) VALUES"
_RAISE_FENCES_TAIL = (
    "ON CONFLICT (match_id) DO UPDATE SET token = excluded.token "
    "WHERE truco_fences.token <= excluded.token RETURNING match_id"
)


def _raise_fences(cursor: Any, sql: _Statements, fences: dict[str, int]) -> str | None:
    """:func:`_raise_fence` for the tables of a group commit (a cluster node's: a thousand
    tables, a thousand round trips saved), on PostgreSQL in one statement, the ids sorted
    so that two transactions lock the rows in one order. The first refused (None: none)."""
    ids = sorted(fences)
    if sql.mark == "?" or len(ids) < 2:
        return next((i for i in ids if not _raise_fence(cursor, sql, i, fences[i])), None)
    written: set[str] = set()
    for start in range(0, len(ids), 1000):
        chunk = ids[start : start + 1000]
        rows = ", ".join([f"({sql.mark}, {sql.mark})"] * len(chunk))
        values = [value for i in chunk for value in (i, fences[i])]
        cursor.execute(f"{_RAISE_FENCES} {rows} {_RAISE_FENCES_TAIL}", values)
        written.update(row[0] for row in cursor.fetchall())
    return next((i for i in ids if i not in written), None)


#: ``?synchronous=`` of a SQLite URL: when a commit reaches the disk
SQLITE_SYNC = {"full": "FULL", "normal": "NORMAL"}


def _sqlite_sync(text: str) -> tuple[URL, str]:
    """A SQLite URL without its ``synchronous`` option, and that option (default FULL)."""
    url = make_url(text)
    value = url.query.get("synchronous", "full")
    if not isinstance(value, str) or value.lower() not in SQLITE_SYNC:
        raise ValueError(f"the SQLite option synchronous must be full or normal (got {value!r})")
    return url.difference_update_query(["synchronous"]), SQLITE_SYNC[value.lower()]


def _sqlite_durable(sync: str, dbapi_connection: Any, connection_record: Any) -> None:
    """WAL (readers never block the writer), and by default (``FULL``) a sync of the log at
    every commit, so that a commit survives the process and the machine crashing.

    ``?synchronous=normal`` on the URL leaves the sync to WAL checkpoints: a commit is in
    the operating system's hands when it returns, so it still survives the process being
    killed (``kill -9``: what write-ahead promises players), but a power cut or a kernel
    crash may lose the last commits, and with them versions clients were told about. It
    costs less CPU per action and no disk flush per commit."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA synchronous={sync}")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()
