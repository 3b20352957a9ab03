"""Server-side sessions: every guest's and account's session is a row of ``truco_sessions``
(its id, the player, created, last seen, expiry, the User-Agent and address that opened
it); a token is the row's id signed by the server (:class:`~.players.TokenSigner`).

Every check of a token looks its session up, so that a session ends for every copy of its
token at once: logging out deletes the row, "log out everywhere" deletes all of an
account's, a password change all but the current one. Renewing keeps the same session (and
token) and moves its expiry, never past ``created + max_lifetime``.

Lookups are remembered in this process for ``recheck`` seconds (2 by default): a session
ended *here* is forgotten at once, one ended by another node of a cluster (which share the
database) is noticed within ``recheck`` seconds. The same bound holds for sockets: a socket
whose session ends here is closed at once (:meth:`Sessions.watch`), and every ``recheck``
seconds the sessions of this node's open sockets are looked up together and the sockets of
those gone (ended elsewhere, or expired) are closed, and their players are told to
:attr:`Sessions.on_ended_elsewhere` (the server expels a player banned by ``truco admin``
or on another node from this node's tables at once, not after the reconnect grace).

All database work runs in the store's writer thread (one statement or two each): SQLite
wants one writer, and a lookup is rare enough once remembered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from time import monotonic
from typing import Any, Protocol

from sqlalchemy import delete, select, update

from ..storage.store import Store, sessions_table
from ..tasks import spawn
from .players import Player, TokenSigner, clean_name, new_session_id

log = logging.getLogger("truco.server")

#: what a closed socket of an ended session is told
ENDED = "your session has ended (logged out, or expired): log in again"
#: at most this many lookups remembered (all forgotten at once beyond: simple, and rare)
CACHE_SIZE = 20_000
#: last-seen times are written at most this often per session
SEEN_EVERY = 60.0


class Closable(Protocol):
    def close(self, reason: str) -> None: ...


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One active session, as its owner sees it in their profile."""

    id: str
    created_at: float
    last_seen: float
    expires_at: float
    agent: str
    address: str

    def to_json(self, current: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "last_seen": self.last_seen,
            "expires_at": self.expires_at,
            "agent": self.agent,
            "address": self.address,
            "current": self.id == current,
        }


def summary(text: str | None, limit: int) -> str:
    """A header cut to ``limit`` printable characters (it is shown back to its owner)."""
    return "".join(ch for ch in (text or "") if ch.isprintable())[:limit]


class Sessions:
    """The sessions of one server: open, look up, renew, end, list; and the sockets
    that must close when their session ends."""

    def __init__(
        self,
        store: Store,
        signer: TokenSigner,
        lifetime: float,
        max_lifetime: float,
        recheck: float = 2.0,
    ) -> None:
        self.store = store
        self.signer = signer
        self.lifetime = lifetime
        self.max_lifetime = max(max_lifetime, lifetime)
        self.recheck = recheck
        #: session id -> (its player or None for no session, when it was looked up)
        self._known: dict[str, tuple[Player | None, float]] = {}
        #: session id -> when a request last came with it (written by the sweeper)
        self._seen: dict[str, float] = {}
        self._written_seen: dict[str, float] = {}
        #: session id -> the open sockets that speak for it
        self._sockets: dict[str, set[Closable]] = {}
        #: session id -> the player of its open sockets
        self._owners: dict[str, str] = {}
        #: told the players whose watched sessions the sweep found gone (ended on
        #: another node or by ``truco admin``, or expired)
        self.on_ended_elsewhere: Callable[[list[str]], Awaitable[object]] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._purged = 0.0

    # ---------------------------------------------------------------- tokens
    def token(self, player: Player) -> str:
        """The token of ``player``'s session (the same for the session's whole life)."""
        return self.signer.issue(player.session)

    async def open(
        self,
        name: str,
        player_id: str | None = None,
        account: bool = False,
        agent: str | None = None,
        address: str | None = None,
    ) -> Player:
        """A new session for ``player_id`` (a new guest without it) under ``name``."""
        now = time.time()
        player = Player(
            player_id or secrets.token_urlsafe(9),
            clean_name(name),
            round(now + self.lifetime, 3),
            account,
            new_session_id(),
        )
        row = {
            "id": player.session,
            "player_id": player.id,
            "name": player.name,
            "account": account,
            "created_at": now,
            "last_seen": now,
            "expires_at": player.expires,
            "agent": summary(agent, 120),
            "address": summary(address, 64),
        }

        def insert() -> None:
            with self.store.engine.begin() as conn:
                conn.execute(sessions_table.insert().values(**row))

        await self.store.in_writer(insert)
        self._remember(player.session, player)
        return player

    async def player(self, token: str | None) -> Player | None:
        """The player of a token whose session is live; ``None`` for anything else."""
        session_id = self.signer.verify(token) if token else None
        if session_id is None:
            return None
        known = self._known.get(session_id)
        if known is not None and monotonic() - known[1] < self.recheck:
            player = known[0]
        else:
            player = await self.store.in_writer(lambda: self._read(session_id))
            self._remember(session_id, player)
        now = time.time()
        if player is None or player.expires <= now:
            return None
        self._seen[session_id] = now
        return player

    def _read(self, session_id: str) -> Player | None:
        with self.store.engine.connect() as conn:
            row = conn.execute(
                select(sessions_table).where(sessions_table.c.id == session_id)
            ).first()
        if row is None:
            return None
        return Player(row.player_id, row.name, row.expires_at, bool(row.account), row.id)

    def _remember(self, session_id: str, player: Player | None) -> None:
        if len(self._known) >= CACHE_SIZE:
            self._known.clear()
        self._known[session_id] = (player, monotonic())

    # ---------------------------------------------------------------- changes
    async def renew(self, player: Player) -> Player | None:
        """The same session with a new expiry: ``lifetime`` from now, never past its
        creation plus ``max_lifetime``; ``None`` if it ended meanwhile."""
        now = time.time()
        session_id = player.session

        def write() -> float | None:
            with self.store.engine.begin() as conn:
                created = conn.execute(
                    select(sessions_table.c.created_at).where(sessions_table.c.id == session_id)
                ).scalar()
                if created is None:
                    return None
                expires = round(min(now + self.lifetime, created + self.max_lifetime), 3)
                conn.execute(
                    update(sessions_table)
                    .where(sessions_table.c.id == session_id)
                    .values(expires_at=expires, last_seen=now)
                )
                return float(expires)

        expires = await self.store.in_writer(write)
        renewed = None if expires is None else _with(player, expires=expires)
        self._remember(session_id, renewed)
        if renewed is None or renewed.expires <= now:
            self._closed([session_id])
            return None
        return renewed

    async def rename(self, player_id: str, name: str) -> None:
        """Every session of ``player_id`` under its new name."""

        def write() -> None:
            with self.store.engine.begin() as conn:
                conn.execute(
                    update(sessions_table)
                    .where(sessions_table.c.player_id == player_id)
                    .values(name=clean_name(name))
                )

        await self.store.in_writer(write)
        self._forget(lambda p: p.id == player_id)

    async def end(self, session_id: str, player_id: str | None = None) -> bool:
        """End one session (of ``player_id`` only, if given); whether there was one."""

        def write() -> int:
            query = delete(sessions_table).where(sessions_table.c.id == session_id)
            if player_id is not None:
                query = query.where(sessions_table.c.player_id == player_id)
            with self.store.engine.begin() as conn:
                return int(conn.execute(query).rowcount)

        ended = await self.store.in_writer(write) > 0
        if ended:
            self._closed([session_id])
        return ended

    async def end_all(self, player_id: str, keep: str | None = None) -> int:
        """End every session of ``player_id`` but ``keep``; how many ended."""

        def write() -> list[str]:
            mine = sessions_table.c.player_id == player_id
            if keep is not None:
                mine = mine & (sessions_table.c.id != keep)
            with self.store.engine.begin() as conn:
                ids = [r.id for r in conn.execute(select(sessions_table.c.id).where(mine))]
                conn.execute(delete(sessions_table).where(mine))
            return ids

        ids = await self.store.in_writer(write)
        self._closed(ids)
        return len(ids)

    async def active(self, player_id: str) -> list[SessionInfo]:
        """The live sessions of ``player_id``, the most recently seen first."""
        now = time.time()

        def read() -> list[SessionInfo]:
            query = (
                select(sessions_table)
                .where(sessions_table.c.player_id == player_id)
                .where(sessions_table.c.expires_at > now)
                .order_by(sessions_table.c.last_seen.desc())
                .limit(100)
            )
            with self.store.engine.connect() as conn:
                return [
                    SessionInfo(
                        r.id,
                        r.created_at,
                        max(r.last_seen, self._seen.get(r.id, 0.0)),
                        r.expires_at,
                        r.agent,
                        r.address,
                    )
                    for r in conn.execute(query)
                ]

        return await self.store.in_writer(read)

    def _closed(self, session_ids: list[str]) -> None:
        """Forget ended sessions here, and close their sockets."""
        for session_id in session_ids:
            self._known[session_id] = (None, monotonic())
            self._seen.pop(session_id, None)
            self._owners.pop(session_id, None)
            for socket in self._sockets.pop(session_id, set()):
                socket.close(ENDED)

    def _forget(self, which: Any) -> None:
        for session_id in [s for s, (p, _) in self._known.items() if p is not None and which(p)]:
            del self._known[session_id]

    # ---------------------------------------------------------------- sockets
    def watch(self, player: Player | None, socket: Closable) -> None:
        """Close ``socket`` when ``player``'s session ends."""
        if player is not None and player.session:
            self._sockets.setdefault(player.session, set()).add(socket)
            self._owners[player.session] = player.id

    def unwatch(self, player: Player | None, socket: Closable) -> None:
        if player is None:
            return
        sockets = self._sockets.get(player.session)
        if sockets is not None:
            sockets.discard(socket)
            if not sockets:
                del self._sockets[player.session]
                self._owners.pop(player.session, None)

    async def sweep(self) -> None:
        """Close the sockets whose sessions ended elsewhere or expired; write the
        last-seen times; drop expired rows."""
        now = time.time()
        watched = list(self._sockets)
        seen = {
            s: at
            for s, at in self._seen.items()
            if at - self._written_seen.get(s, 0.0) > SEEN_EVERY
        }

        purge = now - self._purged > SEEN_EVERY
        if not watched and not seen and not purge:
            return

        def work() -> set[str]:
            with self.store.engine.begin() as conn:
                live: set[str] = set()
                for start in range(0, len(watched), 500):
                    chunk = watched[start : start + 500]
                    live.update(
                        r.id
                        for r in conn.execute(
                            select(sessions_table.c.id)
                            .where(sessions_table.c.id.in_(chunk))
                            .where(sessions_table.c.expires_at > now)
                        )
                    )
                for session_id, at in seen.items():
                    conn.execute(
                        update(sessions_table)
                        .where(sessions_table.c.id == session_id)
                        .values(last_seen=at)
                    )
                if purge:
                    conn.execute(delete(sessions_table).where(sessions_table.c.expires_at <= now))
            return live

        live = await self.store.in_writer(work)
        if purge:
            self._purged = now
        self._written_seen.update(seen)
        for session_id in seen:
            self._seen.pop(session_id, None)
        gone = [s for s in watched if s not in live and s in self._sockets]
        players = sorted({self._owners[s] for s in gone if s in self._owners})
        self._closed(gone)
        stale = monotonic() - self.recheck
        for session_id in [s for s, (_, at) in self._known.items() if at < stale]:
            del self._known[session_id]
        if len(self._written_seen) > CACHE_SIZE:
            self._written_seen.clear()
        if players and self.on_ended_elsewhere is not None:
            await self.on_ended_elsewhere(players)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(max(self.recheck, 0.5))
            try:
                await self.sweep()
            except Exception:  # a database that does not answer: try again next time
                log.exception("sessions: sweep failed")

    def start(self) -> None:
        if self._sweeper is None:
            self._sweeper = spawn(self._sweep_forever(), "sessions-sweeper")

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None


def _with(player: Player, expires: float) -> Player:
    return Player(player.id, player.name, expires, player.account, player.session)
