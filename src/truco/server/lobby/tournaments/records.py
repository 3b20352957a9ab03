"""Tournaments as rows: ``truco_tournaments``, their entrants and games.

Everything a tournament is lives in the database, so that any node of a cluster shows it
and any node may direct it (one at a time: :func:`claim`, a lease on the row). The
standings are never stored: they are computed from the games every time
(:func:`standings`), with the pure functions of :mod:`.matching`.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine, RowMapping

from ...people.accounts import name_key
from ...people.friends import FriendError
from ...people.players import Player
from ...storage.store import (
    accounts_table,
    entrants_table,
    matches_table,
    tournament_games_table,
    tournaments_table,
)
from .matching import Game, Standing, arena_points, swiss_standings

FORMATS = ("swiss", "arena")
#: how far ahead a tournament may start
MAX_DAYS_AHEAD = 30
#: the fewest entrants a tournament starts with (fewer at the start: it is cancelled)
MIN_ENTRANTS = 2
#: the most open (not finished) tournaments one organiser may have
MAX_OPEN_PER_ORGANISER = 3


@dataclass(frozen=True, slots=True)
class NewTournament:
    name: str
    format: str
    rules: dict[str, Any]
    rated: bool
    rounds: int
    minutes: int
    starts_at: float
    max_entrants: int
    official: bool = False


def create(engine: Engine, organiser: Player, spec: NewTournament) -> str:
    """A new open tournament; its id."""
    now = time.time()
    if not now - 60 <= spec.starts_at <= now + MAX_DAYS_AHEAD * 86400:
        raise FriendError(400, "tournament_bad_start", days=MAX_DAYS_AHEAD)
    with engine.begin() as conn:
        mine = conn.execute(
            select(func.count()).where(
                tournaments_table.c.organiser_id == organiser.id,
                tournaments_table.c.status != "finished",
            )
        ).scalar_one()
        if mine >= MAX_OPEN_PER_ORGANISER:
            raise FriendError(429, "too_many_tournaments", max=MAX_OPEN_PER_ORGANISER)
        tournament_id = secrets.token_urlsafe(6)
        conn.execute(
            insert(tournaments_table).values(
                id=tournament_id,
                name=spec.name,
                organiser_id=organiser.id,
                organiser_name=organiser.name,
                official=spec.official,
                format=spec.format,
                rules_json=json.dumps(spec.rules),
                rated=spec.rated,
                rounds=spec.rounds if spec.format == "swiss" else 0,
                minutes=spec.minutes if spec.format == "arena" else 0,
                max_entrants=spec.max_entrants,
                starts_at=max(spec.starts_at, now),
                status="open",
                round=0,
                created_at=now,
                finished_at=None,
                director=None,
                lease_until=0.0,
            )
        )
    return tournament_id


def _tournament(conn: Connection, tournament_id: str) -> RowMapping:
    row = (
        conn.execute(select(tournaments_table).where(tournaments_table.c.id == tournament_id))
        .mappings()
        .first()
    )
    if row is None:
        raise FriendError(404, "tournament_not_found")
    return row


def _team_of(
    conn: Connection, tournament_id: str, captain: Player, size: int, partners: Sequence[str]
) -> list[dict[str, str]] | None:
    """A team tournament's entrant: the captain's partners as accounts (none in another
    team of it); ``None`` for a 1v1 one."""
    if size == 1:
        if partners:
            raise FriendError(400, "tournament_team", partners=0)
        return None
    if len(partners) != size - 1:
        raise FriendError(400, "tournament_team", partners=size - 1)
    taken: set[str] = set()  # everyone in another team of it
    for entrant in entrants_of(conn, tournament_id):
        if entrant["player_id"] != captain.id:
            taken.add(entrant["player_id"])
            taken.update(m["id"] for m in json.loads(entrant["partners_json"] or "[]"))
    if captain.id in taken:
        raise FriendError(409, "tournament_in_team", name=captain.name)
    team: list[dict[str, str]] = []
    for name in partners:
        found = conn.execute(
            select(accounts_table.c.id, accounts_table.c.name).where(
                accounts_table.c.name_key == name_key(name)
            )
        ).first()
        if found is None:
            raise FriendError(404, "player_not_found", name=name[:24])
        if found.id in taken or found.id == captain.id or any(m["id"] == found.id for m in team):
            raise FriendError(409, "tournament_in_team", name=found.name)
        team.append({"id": found.id, "name": found.name})
    return team


def join(engine: Engine, tournament_id: str, player: Player, partners: Sequence[str] = ()) -> None:
    """``player`` enters (again, after withdrawing): a Swiss one until it starts, an
    arena until it ends; in a team tournament with ``partners``."""
    if not player.account:
        raise FriendError(403, "account_only")
    with engine.begin() as conn:
        row = _tournament(conn, tournament_id)
        open_now = row["status"] == "open" or (
            row["format"] == "arena" and row["status"] == "running"
        )
        if not open_now:
            raise FriendError(409, "tournament_closed")
        entrant = conn.execute(
            select(entrants_table.c.withdrawn).where(
                entrants_table.c.tournament_id == tournament_id,
                entrants_table.c.player_id == player.id,
            )
        ).first()
        if entrant is not None:
            conn.execute(
                update(entrants_table)
                .where(
                    entrants_table.c.tournament_id == tournament_id,
                    entrants_table.c.player_id == player.id,
                )
                .values(withdrawn=False)
            )
            return
        count = conn.execute(
            select(func.count()).where(entrants_table.c.tournament_id == tournament_id)
        ).scalar_one()
        if count >= row["max_entrants"]:
            raise FriendError(409, "tournament_full", max=row["max_entrants"])
        size = int(json.loads(row["rules_json"]).get("players", 2)) // 2
        team = _team_of(conn, tournament_id, player, size, partners)
        conn.execute(
            insert(entrants_table).values(
                tournament_id=tournament_id,
                player_id=player.id,
                name=player.name,
                joined_at=time.time(),
                withdrawn=False,
                partners_json=None if team is None else json.dumps(team),
            )
        )


def withdraw(engine: Engine, tournament_id: str, player: Player) -> None:
    """``player`` is paired no more (their games so far still count)."""
    with engine.begin() as conn:
        row = _tournament(conn, tournament_id)
        if row["status"] == "finished":
            raise FriendError(409, "tournament_closed")
        conn.execute(
            update(entrants_table)
            .where(
                entrants_table.c.tournament_id == tournament_id,
                entrants_table.c.player_id == player.id,
            )
            .values(withdrawn=True)
        )


def start_now(engine: Engine, tournament_id: str, player: Player) -> None:
    """The organiser starts an open tournament now (the director pairs it)."""
    with engine.begin() as conn:
        row = _tournament(conn, tournament_id)
        if row["organiser_id"] != player.id:
            raise FriendError(403, "tournament_not_organiser")
        if row["status"] != "open":
            raise FriendError(409, "tournament_closed")
        count = conn.execute(
            select(func.count()).where(
                entrants_table.c.tournament_id == tournament_id, ~entrants_table.c.withdrawn
            )
        ).scalar_one()
        if count < MIN_ENTRANTS:
            raise FriendError(409, "tournament_too_few", min=MIN_ENTRANTS)
        conn.execute(
            update(tournaments_table)
            .where(tournaments_table.c.id == tournament_id)
            .values(starts_at=time.time())
        )


# ------------------------------------------------------------------ reading
def games_of(conn: Connection, tournament_id: str) -> list[RowMapping]:
    return list(
        conn.execute(
            select(tournament_games_table)
            .where(tournament_games_table.c.tournament_id == tournament_id)
            .order_by(tournament_games_table.c.seq)
        )
        .mappings()
        .all()
    )


def entrants_of(conn: Connection, tournament_id: str) -> list[RowMapping]:
    return list(
        conn.execute(
            select(entrants_table)
            .where(entrants_table.c.tournament_id == tournament_id)
            .order_by(entrants_table.c.joined_at, entrants_table.c.player_id)
        )
        .mappings()
        .all()
    )


def standings(format: str, entrants: list[RowMapping], games: list[RowMapping]) -> list[Standing]:
    """The standings from the games that ended (Swiss: points, Buchholz; arena: points
    with the streak bonus, games in the order they ended)."""
    ids = [e["player_id"] for e in entrants]
    done = [g for g in games if g["status"] == "done"]
    if format == "swiss":
        played = [
            Game(g["first_id"], g["second_id"], g["winner_id"])
            for g in done
            if g["second_id"] is not None
        ]
        byes = [g["first_id"] for g in done if g["second_id"] is None]
        return swiss_standings(ids, played, byes)
    ordered = sorted(done, key=lambda g: (g["ended_seq"] or 0, g["seq"]))
    return arena_points(ids, [Game(g["first_id"], g["second_id"], g["winner_id"]) for g in ordered])


def view(engine: Engine, tournament_id: str, now: float | None = None) -> dict[str, Any]:
    """Everything the tournament's page shows."""
    now = time.time() if now is None else now
    with engine.connect() as conn:
        row = _tournament(conn, tournament_id)
        entrants = entrants_of(conn, tournament_id)
        games = games_of(conn, tournament_id)
    members = {
        e["player_id"]: [e["name"], *(m["name"] for m in json.loads(e["partners_json"] or "[]"))]
        for e in entrants
    }
    names = {x: " & ".join(team) for x, team in members.items()}
    lines = standings(row["format"], entrants, games)
    withdrawn = {e["player_id"] for e in entrants if e["withdrawn"]}
    ends_at = row["starts_at"] + 60 * row["minutes"] if row["format"] == "arena" else None
    return {
        "id": row["id"],
        "name": row["name"],
        "organiser": row["organiser_name"],
        "official": row["official"],
        "format": row["format"],
        "rules": json.loads(row["rules_json"]),
        "rated": row["rated"],
        "rounds": row["rounds"],
        "minutes": row["minutes"],
        "max_entrants": row["max_entrants"],
        "starts_at": row["starts_at"],
        "ends_at": ends_at,
        "status": row["status"],
        "round": row["round"],
        "finished_at": row["finished_at"],
        "standings": [
            {
                **line.to_json(),
                "rank": i + 1,
                "name": names.get(line.id, "?"),
                "members": members.get(line.id, []),
                "withdrawn": line.id in withdrawn,
            }
            for i, line in enumerate(lines)
        ],
        "games": [
            {
                "round": g["round"],
                "first": names.get(g["first_id"], "?"),
                "second": names.get(g["second_id"]) if g["second_id"] else None,
                "players": [
                    *members.get(g["first_id"], []),
                    *(members.get(g["second_id"], []) if g["second_id"] else []),
                ],
                "table": g["table_id"],
                "status": g["status"],
                "winner": names.get(g["winner_id"]) if g["winner_id"] else None,
                "ended": g["ended_seq"],
            }
            for g in games
            if g["status"] != "void"
        ],
    }


def listing(engine: Engine, player_id: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Upcoming, running and recently finished tournaments (``player_id``: only theirs)."""
    query = select(tournaments_table).order_by(tournaments_table.c.starts_at.desc()).limit(100)
    if player_id is not None:
        mine = select(entrants_table.c.tournament_id).where(entrants_table.c.player_id == player_id)
        query = query.where(tournaments_table.c.id.in_(mine))
    with engine.connect() as conn:
        rows = conn.execute(query).mappings().all()
        counts: dict[str, int] = dict(
            conn.execute(
                select(entrants_table.c.tournament_id, func.count())
                .where(entrants_table.c.tournament_id.in_([r["id"] for r in rows]))
                .group_by(entrants_table.c.tournament_id)
            ).all()
        )
    out: dict[str, list[dict[str, Any]]] = {"open": [], "running": [], "finished": []}
    for r in rows:
        out.setdefault(r["status"], []).append(
            {
                "id": r["id"],
                "name": r["name"],
                "format": r["format"],
                "organiser": r["organiser_name"],
                "official": r["official"],
                "rated": r["rated"],
                "starts_at": r["starts_at"],
                "entrants": int(counts.get(r["id"], 0)),
            }
        )
    out["open"].reverse()  # the soonest first
    return out


# ------------------------------------------------------------------ directing
def claim(conn: Connection, tournament_id: str, director: str, now: float, lease: float) -> bool:
    """Take (or keep) the lease of directing a tournament: one node at a time."""
    taken = conn.execute(
        update(tournaments_table)
        .where(
            tournaments_table.c.id == tournament_id,
            or_(
                tournaments_table.c.director.is_(None),
                tournaments_table.c.director == director,
                tournaments_table.c.lease_until < now,
            ),
        )
        .values(director=director, lease_until=now + lease)
    ).rowcount
    return bool(taken)


def due(engine: Engine, now: float) -> list[str]:
    """The tournaments to direct now: running ones, and open ones whose start came."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(tournaments_table.c.id).where(
                or_(
                    tournaments_table.c.status == "running",
                    (tournaments_table.c.status == "open") & (tournaments_table.c.starts_at <= now),
                ),
            )
        ).all()
    return [r[0] for r in rows]


def match_outcome(conn: Connection, table_id: str) -> tuple[bool, int | None]:
    """Whether the match of ``table_id`` is over, and its winning team (``None``: none)."""
    row = conn.execute(
        select(matches_table.c.status, matches_table.c.winner).where(matches_table.c.id == table_id)
    ).first()
    if row is None:
        return False, None
    return row.status in ("finished", "abandoned"), row.winner
