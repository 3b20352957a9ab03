"""Challenges: one player asks another (or whoever opens a link) for a match.

A challenge is a row of ``truco_challenges``: who challenges, whom (``None``: an open
link anyone with a session may accept, someone not logged in yet once they are), the
table's rules, rated or casual; ``open`` until accepted (then the table's code),
declined by its target, cancelled by its challenger, or past ``expires_at``. Accepting
claims the row first (an update of an open row: on a cluster, two nodes cannot both
seat it), then seats both at a new table through :func:`seat_match`.

:func:`seat_match` is where every table of people the server pairs outside quick match
(challenges, tournaments) is made: the one place that decides whether a rated one may
be made (no banned player; the fair-play rules of :mod:`.fair_play`, as quick match).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.engine import Engine, RowMapping

from ...rules import Rules, RulesError
from ..parts import Server
from ..people import fair_play, moderation
from ..people.accounts import name_key
from ..people.fair_play import FairPlay
from ..people.friends import FriendError, blocked_between
from ..people.players import Player
from ..storage.store import accounts_table, challenge_seats_table, challenges_table
from ..table import Table
from . import team_challenges

#: how long a challenge stays open
CHALLENGE_SECONDS = 600.0
#: the most open challenges one player may have sent
MAX_OPEN = 5


def table_rules(options: dict[str, Any]) -> Rules:
    """The rules of a table the server seats: ``options`` as ``POST /api/tables`` takes
    them (a refusal ``bad_rules`` naming the problem)."""
    try:
        rules = Rules.from_dict(options)
    except RulesError as exc:
        raise FriendError(400, "bad_rules", problem=str(exc)) from None
    if rules.hand_size != 3:  # mini-truco is dealt by hand, for research: not online
        raise FriendError(400, "bad_rules", problem="hand_size: tables online deal 3 cards")
    return rules


def seat_match(
    server: Server, players: Sequence[Player], rules: Rules, *, rated: bool, name: str = ""
) -> Table:
    """A new table with ``players[i]`` in seat ``i`` that starts at once (rated: accounts
    only, and as fair play allows); callers await its durability."""
    if rated:
        code = rated_refusal(server, players)
        if code is not None:
            raise FriendError(403, code)
    return server.lobby.create_match(players, rules, rated=rated, name=name)


def rated_refusal(server: Server, players: Sequence[Player]) -> str | None:
    """Why ``players`` (seat ``i`` in team ``i % 2``) may not meet in rated play now: a
    banned player, or the fair-play rules (:func:`.fair_play.rated_refusal`); else None."""
    ids = [p.id for p in players]
    with server.store.engine.connect() as conn:
        if moderation.any_banned(conn, ids):
            return "account_banned"
        teams = [ids[team::2] for team in (0, 1)]
        return fair_play.rated_refusal(conn, FairPlay.of(server.config), teams, time.time())


@dataclass(frozen=True, slots=True)
class Challenge:
    id: str
    challenger_id: str
    challenger_name: str
    target_id: str | None
    target_name: str | None
    rules: dict[str, Any]
    rated: bool
    status: str
    table: str | None
    created_at: float
    expires_at: float

    @classmethod
    def of(cls, row: RowMapping, now: float) -> Challenge:
        status = row["status"]
        if status == "open" and row["expires_at"] <= now:
            status = "expired"
        return cls(
            row["id"],
            row["challenger_id"],
            row["challenger_name"],
            row["target_id"],
            row["target_name"],
            json.loads(row["rules_json"]),
            bool(row["rated"]),
            status,
            row["table_id"],
            row["created_at"],
            row["expires_at"],
        )

    @property
    def team(self) -> bool:
        """A 2v2 or 3v3 challenge (its seats: :mod:`.team_challenges`)."""
        return int(self.rules.get("players", 2)) > 2

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "challenger": self.challenger_name,
            "target": self.target_name,
            "rules": self.rules,
            "rated": self.rated,
            "status": self.status,
            "table": self.table,
            "expires_at": self.expires_at,
        }


def _row(engine: Engine, challenge_id: str) -> Challenge:
    with engine.connect() as conn:
        row = (
            conn.execute(select(challenges_table).where(challenges_table.c.id == challenge_id))
            .mappings()
            .first()
        )
    if row is None:
        raise FriendError(404, "challenge_not_found")
    return Challenge.of(row, time.time())


def get(engine: Engine, challenge_id: str) -> Challenge:
    """The challenge (404 if there is none)."""
    return _row(engine, challenge_id)


def create(
    engine: Engine,
    challenger: Player,
    target_name: str | None,
    rules: Rules,
    rated: bool,
    partners: Sequence[str] = (),
    rivals: Sequence[str] = (),
) -> Challenge:
    """A new open challenge from ``challenger`` to the account named ``target_name``
    (``None``: an open link); at a 2v2 or 3v3 table, to the ``partners`` and ``rivals``
    named (:mod:`.team_challenges`; the seats not named are open to the link)."""
    team = rules.players > 2
    if (team and target_name is not None) or (not team and (partners or rivals)):
        raise FriendError(400, "challenge_1v1_only")
    if rated and not challenger.account:
        raise FriendError(403, "account_needed")
    now = time.time()
    with engine.begin() as conn:
        target_id = None
        if target_name is not None:
            found = conn.execute(
                select(accounts_table.c.id, accounts_table.c.name).where(
                    accounts_table.c.name_key == name_key(target_name)
                )
            ).first()
            if found is None:
                raise FriendError(404, "player_not_found", name=target_name[:24])
            target_id, target_name = found.id, found.name
            if target_id == challenger.id:
                raise FriendError(409, "challenge_self")
            if blocked_between(conn, challenger.id, target_id):
                raise FriendError(403, "challenge_blocked")
        mine = conn.execute(
            select(func.count()).where(
                challenges_table.c.challenger_id == challenger.id,
                challenges_table.c.status == "open",
                challenges_table.c.expires_at > now,
            )
        ).scalar_one()
        if mine >= MAX_OPEN:
            raise FriendError(429, "too_many_challenges", max=MAX_OPEN)
        row = {
            "id": secrets.token_urlsafe(9),
            "challenger_id": challenger.id,
            "challenger_name": challenger.name,
            "target_id": target_id,
            "target_name": target_name,
            "rules_json": json.dumps(rules.to_dict()),
            "rated": rated,
            "status": "open",
            "table_id": None,
            "created_at": now,
            "expires_at": now + CHALLENGE_SECONDS,
        }
        conn.execute(insert(challenges_table).values(**row))
        if team:
            team_challenges.invite(
                conn, str(row["id"]), challenger, rules.players, partners, rivals
            )
    return _row(engine, str(row["id"]))


def mine(engine: Engine, player_id: str) -> dict[str, list[dict[str, Any]]]:
    """The challenges ``player_id`` received (open ones) and sent (open ones, and the
    last accepted: the challenger learns the table there)."""
    now = time.time()
    with engine.connect() as conn:
        rows = (
            conn.execute(
                select(challenges_table)
                .where(
                    or_(
                        challenges_table.c.target_id == player_id,
                        challenges_table.c.challenger_id == player_id,
                        challenges_table.c.id.in_(
                            select(challenge_seats_table.c.challenge_id).where(
                                challenge_seats_table.c.player_id == player_id
                            )
                        ),
                    ),
                    challenges_table.c.created_at > now - 2 * CHALLENGE_SECONDS,
                )
                .order_by(challenges_table.c.created_at.desc())
                .limit(50)
            )
            .mappings()
            .all()
        )
    received, sent = [], []
    for row in rows:
        challenge = Challenge.of(row, now)
        joined = challenge.team and team_challenges.accepted_by(engine, challenge.id, player_id)
        if challenge.challenger_id == player_id or joined:
            if challenge.status in ("open", "accepted", "declined"):
                sent.append(challenge.to_json())
        elif challenge.status == "open":
            received.append(challenge.to_json())
    return {"received": received, "sent": sent}


def _close(engine: Engine, challenge: Challenge, status: str) -> Challenge:
    with engine.begin() as conn:
        done = conn.execute(
            update(challenges_table)
            .where(challenges_table.c.id == challenge.id, challenges_table.c.status == "open")
            .values(status=status)
        ).rowcount
    if not done:
        raise FriendError(409, "challenge_closed", status=_row(engine, challenge.id).status)
    return _row(engine, challenge.id)


def decline(engine: Engine, challenge_id: str, player: Player) -> Challenge:
    challenge = _row(engine, challenge_id)
    if challenge.team and challenge.status == "open":
        if not team_challenges.decline(engine, challenge_id, player):
            raise FriendError(403, "challenge_not_yours")
        return _row(engine, challenge_id)
    if challenge.target_id != player.id:
        raise FriendError(403, "challenge_not_yours")
    if challenge.status != "open":
        raise FriendError(409, "challenge_closed", status=challenge.status)
    return _close(engine, challenge, "declined")


def cancel(engine: Engine, challenge_id: str, player: Player) -> Challenge:
    challenge = _row(engine, challenge_id)
    if challenge.challenger_id != player.id:
        raise FriendError(403, "challenge_not_yours")
    if challenge.status != "open":
        raise FriendError(409, "challenge_closed", status=challenge.status)
    return _close(engine, challenge, "cancelled")


def _claim(engine: Engine, challenge: Challenge, player: Player) -> bool:
    """Take the open challenge for ``player`` (False: someone else did, or it closed)."""
    with engine.begin() as conn:
        if blocked_between(conn, challenge.challenger_id, player.id):
            raise FriendError(403, "challenge_blocked")
        claimed = conn.execute(
            update(challenges_table)
            .where(
                challenges_table.c.id == challenge.id,
                challenges_table.c.status == "open",
                challenges_table.c.expires_at > time.time(),
            )
            .values(status="accepted", target_id=player.id, target_name=player.name)
        ).rowcount
    return bool(claimed)


def _reopen(engine: Engine, challenge: Challenge) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(challenges_table)
            .where(challenges_table.c.id == challenge.id)
            .values(status="open", target_id=challenge.target_id, target_name=challenge.target_name)
        )


def _set_table(engine: Engine, challenge_id: str, table_id: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(challenges_table)
            .where(challenges_table.c.id == challenge_id)
            .values(table_id=table_id)
        )


async def accept(server: Server, challenge_id: str, player: Player) -> Challenge:
    """``player`` accepts: both seated at a new table (the challenger first); the
    challenge with its table's code."""
    engine = server.store.engine
    challenge = await asyncio.to_thread(_row, engine, challenge_id)
    if challenge.status != "open":
        raise FriendError(409, "challenge_closed", status=challenge.status)
    if challenge.target_id is not None and challenge.target_id != player.id:
        raise FriendError(403, "challenge_not_yours")
    if challenge.challenger_id == player.id:
        raise FriendError(409, "challenge_self")
    if challenge.rated and not player.account:
        raise FriendError(403, "account_needed")
    if challenge.team:
        return await _accept_seat(server, challenge, player)
    if not await asyncio.to_thread(_claim, engine, challenge, player):
        status = (await asyncio.to_thread(_row, engine, challenge_id)).status
        raise FriendError(409, "challenge_closed", status=status)
    challenger = Player(challenge.challenger_id, challenge.challenger_name, account=challenge.rated)
    try:
        table = seat_match(
            server, [challenger, player], Rules.from_dict(challenge.rules), rated=challenge.rated
        )
        await server.lobby.made(table)
    except BaseException:
        await asyncio.to_thread(_reopen, engine, challenge)
        raise
    await asyncio.to_thread(_set_table, engine, challenge.id, table.id)
    return await asyncio.to_thread(_row, engine, challenge_id)


async def _accept_seat(server: Server, challenge: Challenge, player: Player) -> Challenge:
    """A team challenge: ``player`` takes their seat (or an open one); the table once
    every seat said yes."""
    engine = server.store.engine
    seats = await asyncio.to_thread(team_challenges.take_seat, engine, challenge.id, player)
    if seats is not None:
        people = [Player(s["player_id"], s["name"], account=challenge.rated) for s in seats]
        try:
            table = seat_match(
                server, people, Rules.from_dict(challenge.rules), rated=challenge.rated
            )
            await server.lobby.made(table)
        except BaseException:
            await asyncio.to_thread(team_challenges.reopen, engine, challenge.id)
            raise
        await asyncio.to_thread(_set_table, engine, challenge.id, table.id)
    return await asyncio.to_thread(_row, engine, challenge.id)
