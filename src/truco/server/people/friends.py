"""Friends: who follows whom, who blocked whom, who hides their presence, and where the
players one follows are (online, at which table).

All of it is rows of the database (``truco_follows``, ``truco_blocks``,
``truco_privacy``), so every node of a cluster answers the same. A block works both
ways: neither may challenge or follow the other, and quick match's casual queues never
seat them together (:func:`avoided`). Blocking also ends any follow between the two.

Presence: a player is *at a table* while they sit at a live one of the lobby's listing
(every node's, on a cluster), else *online* while one of their sessions was used within
:data:`ONLINE_SECONDS`, else *offline*; a player who hides their presence is always
shown offline (``hidden`` to themselves).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, and_, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from ..storage.store import (
    accounts_table,
    blocks_table,
    follows_table,
    privacy_table,
    sessions_table,
)

#: a session used this recently counts as online
ONLINE_SECONDS = 300.0
#: the most players one account may follow, and block
MAX_FOLLOWS = 500
MAX_BLOCKS = 500


class FriendError(ValueError):
    """A refusal: its HTTP status, code and parameters."""

    def __init__(self, http: int, code: str, /, **params: str | int) -> None:
        super().__init__(code)
        self.http, self.code, self.params = http, code, params


@dataclass(frozen=True, slots=True)
class Friend:
    """A player one follows, and where they are."""

    id: str
    name: str
    status: str  # playing, online, offline
    table: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "status": self.status, "table": self.table}


def blocked_between(conn: Connection, a: str, b: str) -> bool:
    """Whether either of ``a`` and ``b`` blocked the other."""
    row = conn.execute(
        select(blocks_table.c.blocker_id).where(
            or_(
                and_(blocks_table.c.blocker_id == a, blocks_table.c.blocked_id == b),
                and_(blocks_table.c.blocker_id == b, blocks_table.c.blocked_id == a),
            )
        )
    ).first()
    return row is not None


def avoided(engine: Engine, player_id: str) -> frozenset[str]:
    """Everyone ``player_id`` blocked or is blocked by (whom quick match keeps apart)."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(blocks_table.c.blocker_id, blocks_table.c.blocked_id).where(
                or_(blocks_table.c.blocker_id == player_id, blocks_table.c.blocked_id == player_id)
            )
        ).all()
    return frozenset(b if a == player_id else a for a, b in rows)


def _count(conn: Connection, column: Any, player_id: str) -> int:
    return int(conn.execute(select(func.count()).where(column == player_id)).scalar_one())


def follow(engine: Engine, follower: str, followed: str) -> None:
    """``follower`` follows ``followed`` (again: nothing changes)."""
    if follower == followed:
        raise FriendError(409, "follow_self")
    with engine.begin() as conn:
        if blocked_between(conn, follower, followed):
            raise FriendError(403, "follow_blocked")
        if _count(conn, follows_table.c.follower_id, follower) >= MAX_FOLLOWS:
            raise FriendError(409, "too_many_follows", max=MAX_FOLLOWS)
        _insert_once(conn, follows_table, follower_id=follower, followed_id=followed)


def _insert_once(conn: Connection, table: Table, **values: str) -> None:
    """Insert the row unless it is there already (following or blocking twice is once)."""
    try:
        with conn.begin_nested():
            conn.execute(insert(table).values(**values, created_at=time.time()))
    except IntegrityError:
        pass


def unfollow(engine: Engine, follower: str, followed: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            delete(follows_table).where(
                follows_table.c.follower_id == follower, follows_table.c.followed_id == followed
            )
        )


def block(engine: Engine, blocker: str, blocked: str) -> None:
    """``blocker`` blocks ``blocked``: any follow between them ends."""
    if blocker == blocked:
        raise FriendError(409, "block_self")
    with engine.begin() as conn:
        if _count(conn, blocks_table.c.blocker_id, blocker) >= MAX_BLOCKS:
            raise FriendError(409, "too_many_blocks", max=MAX_BLOCKS)
        conn.execute(
            delete(follows_table).where(
                or_(
                    and_(
                        follows_table.c.follower_id == blocker,
                        follows_table.c.followed_id == blocked,
                    ),
                    and_(
                        follows_table.c.follower_id == blocked,
                        follows_table.c.followed_id == blocker,
                    ),
                )
            )
        )
        _insert_once(conn, blocks_table, blocker_id=blocker, blocked_id=blocked)


def unblock(engine: Engine, blocker: str, blocked: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            delete(blocks_table).where(
                blocks_table.c.blocker_id == blocker, blocks_table.c.blocked_id == blocked
            )
        )


def set_hidden(engine: Engine, player_id: str, hidden: bool) -> None:
    """Whether ``player_id`` hides their presence from those who follow them."""
    with engine.begin() as conn:
        changed = conn.execute(
            update(privacy_table)
            .where(privacy_table.c.player_id == player_id)
            .values(hide_presence=hidden)
        ).rowcount
        if not changed:
            conn.execute(insert(privacy_table).values(player_id=player_id, hide_presence=hidden))


def is_hidden(conn: Connection, player_id: str) -> bool:
    row = conn.execute(
        select(privacy_table.c.hide_presence).where(privacy_table.c.player_id == player_id)
    ).first()
    return bool(row and row[0])


def _names(conn: Connection, ids: Iterable[str]) -> dict[str, str]:
    wanted = list(ids)
    if not wanted:
        return {}
    rows = conn.execute(
        select(accounts_table.c.id, accounts_table.c.name).where(accounts_table.c.id.in_(wanted))
    ).all()
    return {row.id: row.name for row in rows}


def seated(listing: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Each person's name at a live table of the listing -> that table's code."""
    where: dict[str, str] = {}
    for summary in listing:
        for seat in summary.get("seats", ()):
            if seat.get("kind") == "human" and seat.get("name"):
                where.setdefault(str(seat["name"]), str(summary["id"]))
    return where


def friends_of(
    engine: Engine, player_id: str, listing: Iterable[dict[str, Any]], now: float | None = None
) -> dict[str, Any]:
    """Whom ``player_id`` follows (with where they are), who follows them, whom they
    blocked, and whether they hide their presence."""
    now = time.time() if now is None else now
    tables = seated(listing)
    with engine.connect() as conn:
        followed = [
            r[0]
            for r in conn.execute(
                select(follows_table.c.followed_id)
                .where(follows_table.c.follower_id == player_id)
                .order_by(follows_table.c.created_at)
            ).all()
        ]
        followers = [
            r[0]
            for r in conn.execute(
                select(follows_table.c.follower_id).where(follows_table.c.followed_id == player_id)
            ).all()
        ]
        blocked = [
            r[0]
            for r in conn.execute(
                select(blocks_table.c.blocked_id).where(blocks_table.c.blocker_id == player_id)
            ).all()
        ]
        names = _names(conn, {*followed, *followers, *blocked})
        hidden = set()
        if followed:
            hidden = {
                r[0]
                for r in conn.execute(
                    select(privacy_table.c.player_id).where(
                        privacy_table.c.player_id.in_(followed), privacy_table.c.hide_presence
                    )
                ).all()
            }
        online = set()
        if followed:
            online = {
                r[0]
                for r in conn.execute(
                    select(sessions_table.c.player_id).where(
                        sessions_table.c.player_id.in_(followed),
                        sessions_table.c.last_seen >= now - ONLINE_SECONDS,
                        sessions_table.c.expires_at > now,
                    )
                ).all()
            }
        me_hidden = is_hidden(conn, player_id)
    friends = []
    for other in followed:
        name = names.get(other)
        if name is None:
            continue  # an account since deleted
        if other in hidden:
            friends.append(Friend(other, name, "offline", None))
        elif name in tables:
            friends.append(Friend(other, name, "playing", tables[name]))
        else:
            friends.append(Friend(other, name, "online" if other in online else "offline", None))
    order = {"playing": 0, "online": 1, "offline": 2}
    friends.sort(key=lambda f: (order[f.status], f.name.casefold()))
    return {
        "following": [f.to_json() for f in friends],
        "followers": sorted((names[x] for x in followers if x in names), key=str.casefold),
        "blocked": [{"id": x, "name": names[x]} for x in blocked if x in names],
        "hidden": me_hidden,
    }
