"""Team challenges (2v2, 3v3): the challenger invites partners and a rival team by name,
and leaves any seat open for whoever takes the challenge's link.

The seats are rows of ``truco_challenge_seats``: seat 0 is the challenger's, partners
sit in the even seats after it (2, 4), rivals in the odd ones (1, 3, 5), as at every
table. Each named player accepts (or declines: the challenge ends); an open seat is taken
by the first who accepts without a seat of their own. When the last seat says yes, the
challenge is claimed (one node only: an update of an open row) and the table is made
through :func:`.challenges.seat_match`, everyone in their seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection, Engine

from ..people.accounts import name_key
from ..people.friends import FriendError, blocked_between
from ..people.players import Player
from ..storage.store import accounts_table, challenge_seats_table, challenges_table


def seat_plan(
    players: int, partners: Sequence[str], rivals: Sequence[str]
) -> dict[int, str | None]:
    """Each seat after the challenger's and the name invited to it (``None``: open)."""
    team = players // 2
    if len(partners) > team - 1 or len(rivals) > team:
        raise FriendError(400, "challenge_seats", partners=team - 1, rivals=team)
    plan: dict[int, str | None] = {seat: None for seat in range(1, players)}
    for i, name in enumerate(partners):
        plan[2 * (i + 1)] = name
    for i, name in enumerate(rivals):
        plan[2 * i + 1] = name
    return plan


def invite(
    conn: Connection,
    challenge_id: str,
    challenger: Player,
    players: int,
    partners: Sequence[str],
    rivals: Sequence[str],
) -> None:
    """Write the seats of a new team challenge (the names checked: accounts, none twice,
    none blocked with the challenger)."""
    plan = seat_plan(players, partners, rivals)
    rows = [
        {"challenge_id": challenge_id, "seat": 0, "player_id": challenger.id,
         "name": challenger.name, "accepted": True},
    ]  # fmt: skip
    seen = {challenger.id}
    for seat, name in sorted(plan.items()):
        player_id = None
        if name is not None:
            found = conn.execute(
                select(accounts_table.c.id, accounts_table.c.name).where(
                    accounts_table.c.name_key == name_key(name)
                )
            ).first()
            if found is None:
                raise FriendError(404, "player_not_found", name=name[:24])
            if found.id in seen:
                raise FriendError(
                    409, "challenge_self" if found.id == challenger.id else "two_seats"
                )
            if blocked_between(conn, challenger.id, found.id):
                raise FriendError(403, "challenge_blocked")
            seen.add(found.id)
            player_id, name = found.id, found.name
        rows.append(
            {"challenge_id": challenge_id, "seat": seat, "player_id": player_id,
             "name": name, "accepted": False}
        )  # fmt: skip
    conn.execute(insert(challenge_seats_table), rows)


def seats_of(conn: Connection, challenge_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(challenge_seats_table)
        .where(challenge_seats_table.c.challenge_id == challenge_id)
        .order_by(challenge_seats_table.c.seat)
    ).mappings()
    return [dict(r) for r in rows]


def players_of(engine: Engine, challenge_id: str) -> list[str]:
    """The players named or seated in a team challenge."""
    with engine.connect() as conn:
        return [s["player_id"] for s in seats_of(conn, challenge_id) if s["player_id"]]


def seats_json(engine: Engine, challenge_id: str) -> list[dict[str, Any]]:
    """The seats as the page shows them (no player ids)."""
    with engine.connect() as conn:
        seats = seats_of(conn, challenge_id)
    return [
        {"seat": s["seat"], "team": s["seat"] % 2, "name": s["name"], "accepted": s["accepted"]}
        for s in seats
    ]


def take_seat(engine: Engine, challenge_id: str, player: Player) -> list[dict[str, Any]] | None:
    """``player`` says yes: their own seat, else the first open one; the seats once every
    one has said yes (``None`` while some wait)."""
    with engine.begin() as conn:
        seats = seats_of(conn, challenge_id)
        mine = next((s for s in seats if s["player_id"] == player.id), None)
        if mine is None:
            for other in seats:
                if other["player_id"] is not None and blocked_between(
                    conn, other["player_id"], player.id
                ):
                    raise FriendError(403, "challenge_blocked")
            free = next((s for s in seats if s["player_id"] is None), None)
            if free is None:
                raise FriendError(403, "challenge_not_yours")
            taken = conn.execute(
                update(challenge_seats_table)
                .where(
                    challenge_seats_table.c.challenge_id == challenge_id,
                    challenge_seats_table.c.seat == free["seat"],
                    challenge_seats_table.c.player_id.is_(None),
                )
                .values(player_id=player.id, name=player.name, accepted=True)
            ).rowcount
            if not taken:  # someone took it this instant
                raise FriendError(409, "challenge_closed", status="open")
        elif not mine["accepted"]:
            conn.execute(
                update(challenge_seats_table)
                .where(
                    challenge_seats_table.c.challenge_id == challenge_id,
                    challenge_seats_table.c.seat == mine["seat"],
                )
                .values(accepted=True)
            )
        seats = seats_of(conn, challenge_id)
        if not all(s["accepted"] for s in seats):
            return None
        claimed = conn.execute(
            update(challenges_table)
            .where(challenges_table.c.id == challenge_id, challenges_table.c.status == "open")
            .values(status="accepted")
        ).rowcount
    return seats if claimed else None


def reopen(engine: Engine, challenge_id: str) -> None:
    """A table that could not be made: the challenge is open again (seats kept)."""
    with engine.begin() as conn:
        conn.execute(
            update(challenges_table)
            .where(challenges_table.c.id == challenge_id)
            .values(status="open")
        )


def decline(engine: Engine, challenge_id: str, player: Player) -> bool:
    """An invited player says no: the challenge ends (False: they were not invited)."""
    with engine.begin() as conn:
        invited = conn.execute(
            select(challenge_seats_table.c.seat).where(
                challenge_seats_table.c.challenge_id == challenge_id,
                challenge_seats_table.c.player_id == player.id,
                challenge_seats_table.c.seat != 0,
            )
        ).first()
        if invited is None:
            return False
        conn.execute(
            update(challenges_table)
            .where(challenges_table.c.id == challenge_id, challenges_table.c.status == "open")
            .values(status="declined")
        )
    return True


def involving(engine: Engine, player_id: str, since: float) -> list[str]:
    """The team challenges ``player_id`` has a seat in, made after ``since``."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(challenge_seats_table.c.challenge_id)
            .join(challenges_table, challenges_table.c.id == challenge_seats_table.c.challenge_id)
            .where(
                challenge_seats_table.c.player_id == player_id,
                challenges_table.c.created_at > since,
            )
        ).all()
    return [r[0] for r in rows]


def accepted_by(engine: Engine, challenge_id: str, player_id: str) -> bool:
    with engine.connect() as conn:
        row = conn.execute(
            select(challenge_seats_table.c.accepted).where(
                challenge_seats_table.c.challenge_id == challenge_id,
                challenge_seats_table.c.player_id == player_id,
            )
        ).first()
    return bool(row and row[0])
