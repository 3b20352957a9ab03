"""Results and ratings: what every finished match leaves behind, and the accounts' skill.

Each finished match gets one row in ``truco_results`` (its mode, rated or casual, the
winning team) and one per seat in ``truco_participants`` (who sat there, won or lost, gone);
that is every player's history, guests' included. A **rated** match (accounts only, no bots)
also moves its players' ratings: OpenSkill's Plackett–Luce model, teams as teams, one rating
per mode (``1v1``, ``2v2``, ``3v3``). A player whose seat a bot covers at the end (gone past
the reconnect window, or out of time and not back) **abandoned**: it counts as a loss for them
even if their team won.

The rating people see is ``1500 + 48 × (μ − 3σ)`` rounded (OpenSkill's ordinal, a
conservative estimate, on an Elo-like scale: a new player shows 1500); it stays
**provisional** until :data:`PROVISIONAL_GAMES` rated games in that mode.

Ratings are applied in the order of the results table (``seq``), so :func:`recompute`
rebuilds every rating from the stored results alone and gets the same numbers.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Connection, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from ..storage.store import (
    accounts_table,
    matches_table,
    participants_table,
    rating_history_table,
    ratings_table,
    results_table,
)
from .fair_play import FairPlay, rated_refusal

log = logging.getLogger("truco.server")

MODES = {2: "1v1", 4: "2v2", 6: "3v3"}
#: rated games in a mode before the rating stops being provisional
PROVISIONAL_GAMES = 10
MU, SIGMA = 25.0, 25.0 / 3
_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


def mode_of(players: int) -> str:
    """``1v1``, ``2v2`` or ``3v3`` for a table of ``players``."""
    return MODES[players]


def displayed(mu: float, sigma: float) -> int:
    """The rating people see: the ordinal (μ − 3σ) on an Elo-like scale.

    >>> displayed(MU, SIGMA)
    1500
    """
    return round(1500 + 48 * (mu - 3 * sigma))


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": displayed(self.mu, self.sigma),
            "games": self.games,
            "provisional": self.games < PROVISIONAL_GAMES,
        }


@dataclass(frozen=True, slots=True)
class Seated:
    """One seat of a finished match."""

    seat: int
    player_id: str | None
    kind: str
    name: str
    abandoned: bool

    @property
    def team(self) -> int:
        return self.seat & 1


def rate_match(skills: dict[str, Skill], seats: Sequence[Seated], winner: int) -> dict[str, Skill]:
    """The new skills of a rated match's players: Plackett–Luce on the two teams, the
    winners ranked first; an abandoning player gets the update of their team losing."""
    teams = [[s.player_id for s in seats if s.team == t and s.player_id] for t in (0, 1)]

    def outcome(first: int) -> dict[str, tuple[float, float]]:
        ratings = [
            [_MODEL.rating(mu=skills[p].mu, sigma=skills[p].sigma) for p in team] for team in teams
        ]
        rated = _MODEL.rate(ratings, ranks=[0.0 if t == first else 1.0 for t in (0, 1)])
        return {
            p: (r.mu, r.sigma)
            for team, new in zip(teams, rated, strict=True)
            for p, r in zip(team, new, strict=True)
        }

    won, lost = outcome(winner), outcome(1 - winner)
    new = {}
    for seat in seats:
        if seat.player_id is not None:
            mu, sigma = lost[seat.player_id] if seat.abandoned else won[seat.player_id]
            new[seat.player_id] = Skill(mu, sigma, skills[seat.player_id].games + 1)
    return new


# ------------------------------------------------------------------ recording results
def seats_of(table: dict[str, Any]) -> list[Seated]:
    """The seats of a stored table (``table_json``)."""
    seats = []
    for i, seat in enumerate(table.get("seats", [])):
        kind = seat.get("kind", "empty")
        human = kind == "human"
        seats.append(
            Seated(
                seat=i,
                player_id=seat.get("player_id") if human else None,
                kind=kind,
                name=str(seat.get("name", ""))[:80],
                abandoned=human and bool(seat.get("away")),
            )
        )
    return seats


def rated_table(table: dict[str, Any]) -> bool:
    """A stored table that counts for ratings: marked rated, people only."""
    seats = table.get("seats", [])
    return bool(table.get("rated")) and all(s.get("kind") == "human" for s in seats)


def record_result(engine: Engine, match_id: str, fair: FairPlay | None = None) -> bool:
    """Record a finished match's result (and apply its ratings if rated), once; False if it
    is not finished or is recorded already (by this server or another one). With ``fair``,
    a rated match that breaks a fair-play rule is recorded unrated, with the rule's code."""
    try:
        with engine.begin() as conn:
            return _record(conn, match_id, fair)
    except IntegrityError:  # recorded meanwhile by another server
        return False


#: what :func:`_record` sends, as driver SQL (``?`` becomes the driver's mark): a result is
#: recorded for every finished match, and compiling SQLAlchemy statements cost milliseconds
#: of the server's CPU each time
_FINISHED = (
    "SELECT m.status, m.winner, m.updated_at, m.table_json, r.seq FROM truco_matches m "
    "LEFT JOIN truco_results r ON r.match_id = m.id WHERE m.id = ?"
)
_INSERT_RESULT = (
    "INSERT INTO truco_results (match_id, mode, rated, winner, finished_at, unrated_reason)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
_INSERT_PARTICIPANT = (
    "INSERT INTO truco_participants (match_id, seat, player_id, kind, name, team, won, abandoned)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def _driver_sql(conn: Connection, statement: str) -> str:
    return statement if conn.dialect.paramstyle == "qmark" else statement.replace("?", "%s")


def _record(conn: Connection, match_id: str, fair: FairPlay | None = None) -> bool:
    row = conn.exec_driver_sql(_driver_sql(conn, _FINISHED), (match_id,)).first()
    if row is None or row.seq is not None:
        return False  # no such match, or recorded already
    if row.status != "finished" or row.winner not in (0, 1):
        return False
    table = json.loads(row.table_json)
    seats = seats_of(table)
    rated = rated_table(table)
    try:
        mode = mode_of(len(seats))
    except KeyError:
        return False
    unrated_reason = None
    if rated and fair is not None:
        teams = [[s.player_id for s in seats if s.team == t and s.player_id] for t in (0, 1)]
        unrated_reason = rated_refusal(conn, fair, teams, row.updated_at)
        rated = unrated_reason is None
    conn.exec_driver_sql(
        _driver_sql(conn, _INSERT_RESULT),
        (match_id, mode, rated, row.winner, row.updated_at, unrated_reason),
    )
    conn.exec_driver_sql(
        _driver_sql(conn, _INSERT_PARTICIPANT),
        [
            (
                match_id,
                s.seat,
                s.player_id,
                s.kind,
                s.name,
                s.team,
                s.team == row.winner and not s.abandoned,
                s.abandoned,
            )
            for s in seats
        ],
    )
    if rated:
        _apply_ratings(conn, match_id, mode, seats, row.winner, row.updated_at)
    return True


def _apply_ratings(
    conn: Connection, match_id: str, mode: str, seats: list[Seated], winner: int, at: float
) -> None:
    ids = [s.player_id for s in seats if s.player_id]
    stored = conn.execute(
        select(ratings_table)
        .where(ratings_table.c.mode == mode, ratings_table.c.player_id.in_(ids))
        .with_for_update()
    ).all()
    skills = {r.player_id: Skill(r.mu, r.sigma, r.games) for r in stored}
    known = set(skills)
    skills.update({p: Skill() for p in ids if p not in known})
    frozen = {
        r.id
        for r in conn.execute(
            select(accounts_table.c.id).where(
                accounts_table.c.id.in_(ids), accounts_table.c.rating_frozen.is_(True)
            )
        )
    }
    now = time.time()
    for player_id, skill in rate_match(skills, seats, winner).items():
        if player_id in frozen:  # a moderator froze it (moderation.py): it moves no more
            continue
        values = {"mu": skill.mu, "sigma": skill.sigma, "games": skill.games, "updated_at": now}
        if player_id in known:
            conn.execute(
                ratings_table.update()
                .where(ratings_table.c.player_id == player_id, ratings_table.c.mode == mode)
                .values(**values)
            )
        else:
            conn.execute(ratings_table.insert().values(player_id=player_id, mode=mode, **values))
        conn.execute(
            rating_history_table.insert().values(
                match_id=match_id,
                player_id=player_id,
                mode=mode,
                mu=skill.mu,
                sigma=skill.sigma,
                at=at,
            )
        )


def record_unrecorded(engine: Engine, fair: FairPlay | None = None) -> int:
    """Record every finished match that has no result yet (a database of an earlier version,
    or a server stopped between a match's end and its result), oldest first."""
    query = (
        select(matches_table.c.id)
        .outerjoin(results_table, results_table.c.match_id == matches_table.c.id)
        .where(matches_table.c.status == "finished", results_table.c.seq.is_(None))
        .order_by(matches_table.c.updated_at)
    )
    with engine.connect() as conn:
        ids = [r.id for r in conn.execute(query)]
    return sum(record_result(engine, match_id, fair) for match_id in ids)


# ------------------------------------------------------------------ reading
def recompute(conn: Connection) -> dict[tuple[str, str], Skill]:
    """Every rating, rebuilt from the stored results alone: ``(player id, mode) -> skill``."""
    skills: dict[tuple[str, str], Skill] = {}
    results = conn.execute(
        select(results_table).where(results_table.c.rated.is_(True)).order_by(results_table.c.seq)
    ).all()
    for result in results:
        seats = [
            Seated(p.seat, p.player_id, p.kind, p.name, p.abandoned)
            for p in conn.execute(
                select(participants_table)
                .where(participants_table.c.match_id == result.match_id)
                .order_by(participants_table.c.seat)
            )
        ]
        ids = [s.player_id for s in seats if s.player_id]
        mine = {p: skills.get((p, result.mode), Skill()) for p in ids}
        for player_id, skill in rate_match(mine, seats, result.winner).items():
            skills[(player_id, result.mode)] = skill
    return skills


def stored_ratings(conn: Connection) -> dict[tuple[str, str], Skill]:
    """Every rating as stored: ``(player id, mode) -> skill``."""
    return {
        (r.player_id, r.mode): Skill(r.mu, r.sigma, r.games)
        for r in conn.execute(select(ratings_table))
    }


def ratings_of(conn: Connection, player_id: str) -> dict[str, Skill]:
    """A player's skill in every mode (the starting one where they have not played)."""
    stored = {
        r.mode: Skill(r.mu, r.sigma, r.games)
        for r in conn.execute(select(ratings_table).where(ratings_table.c.player_id == player_id))
    }
    return {mode: stored.get(mode, Skill()) for mode in MODES.values()}


def history_of(conn: Connection, player_id: str) -> dict[str, list[dict[str, Any]]]:
    """A player's rating after each rated match, per mode, oldest first."""
    history: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES.values()}
    query = (
        select(rating_history_table)
        .where(rating_history_table.c.player_id == player_id)
        .order_by(rating_history_table.c.at, rating_history_table.c.match_id)
    )
    for r in conn.execute(query):
        history[r.mode].append(
            {"at": r.at, "rating": displayed(r.mu, r.sigma), "match_id": r.match_id}
        )
    return history


def matches_of(conn: Connection, player_id: str, limit: int = 100) -> list[dict[str, Any]]:
    """A player's finished matches, the latest first."""
    query = (
        select(
            results_table.c.match_id,
            results_table.c.mode,
            results_table.c.rated,
            results_table.c.finished_at,
            participants_table.c.won,
            participants_table.c.abandoned,
        )
        .join(participants_table, participants_table.c.match_id == results_table.c.match_id)
        .where(participants_table.c.player_id == player_id)
        .order_by(results_table.c.finished_at.desc())
        .limit(limit)
    )
    return [
        {
            "id": r.match_id,
            "mode": r.mode,
            "rated": r.rated,
            "result": "won" if r.won else "lost",
            "abandoned": r.abandoned,
            "finished_at": r.finished_at,
            "replay_url": f"/replay/{r.match_id}",
        }
        for r in conn.execute(query)
    ]


def record_of(conn: Connection, player_id: str) -> dict[str, dict[str, int]]:
    """Matches won and lost per mode (rated and casual)."""
    record = {mode: {"won": 0, "lost": 0} for mode in MODES.values()}
    query = (
        select(results_table.c.mode, participants_table.c.won)
        .join(participants_table, participants_table.c.match_id == results_table.c.match_id)
        .where(participants_table.c.player_id == player_id)
    )
    for r in conn.execute(query):
        record[r.mode]["won" if r.won else "lost"] += 1
    return record


def top(conn: Connection, mode: str, limit: int, min_games: int = 1) -> list[tuple[str, Skill]]:
    """The best ``limit`` players of ``mode`` by displayed rating with ``min_games`` rated
    games or more (no provisional account on the public list), banned accounts left out:
    ``(player id, skill)``."""
    query = (
        select(ratings_table)
        .join(accounts_table, accounts_table.c.id == ratings_table.c.player_id)
        .where(
            ratings_table.c.mode == mode,
            ratings_table.c.games >= max(1, min_games),
            accounts_table.c.banned.is_(False),
        )
        .order_by(
            (ratings_table.c.mu - 3 * ratings_table.c.sigma).desc(), ratings_table.c.games.desc()
        )
        .limit(limit)
    )
    return [(r.player_id, Skill(r.mu, r.sigma, r.games)) for r in conn.execute(query)]


def match_result(conn: Connection, match_id: str) -> dict[str, Any] | None:
    """A match's recorded result: the winning team, rated or not, and for a rated match
    each player's rating before and after it (``seat``, ``name``, ``before``, ``after``);
    ``recorded`` false while it is played or until its result is recorded (a moment after
    it ends); None when there is no such match."""
    result = conn.execute(select(results_table).where(results_table.c.match_id == match_id)).first()
    if result is None:
        known = conn.execute(
            select(matches_table.c.id).where(matches_table.c.id == match_id)
        ).first()
        return None if known is None else {"id": match_id, "recorded": False}
    seats = conn.execute(
        select(participants_table)
        .where(participants_table.c.match_id == match_id)
        .order_by(participants_table.c.seat)
    ).all()
    changes = []
    if result.rated:
        for seat in seats:
            if seat.player_id is None:
                continue
            after = conn.execute(
                select(rating_history_table).where(
                    rating_history_table.c.match_id == match_id,
                    rating_history_table.c.player_id == seat.player_id,
                )
            ).first()
            earlier = conn.execute(  # the player's rating after their previous rated match
                select(rating_history_table)
                .join(results_table, results_table.c.match_id == rating_history_table.c.match_id)
                .where(
                    rating_history_table.c.player_id == seat.player_id,
                    rating_history_table.c.mode == result.mode,
                    results_table.c.seq < result.seq,
                )
                .order_by(results_table.c.seq.desc())
                .limit(1)
            ).first()
            if after is None:
                continue
            before = Skill() if earlier is None else Skill(earlier.mu, earlier.sigma)
            changes.append(
                {
                    "seat": seat.seat,
                    "name": seat.name,
                    "before": displayed(before.mu, before.sigma),
                    "after": displayed(after.mu, after.sigma),
                }
            )
    return {
        "id": match_id,
        "recorded": True,
        "mode": result.mode,
        "rated": bool(result.rated),
        "unrated_reason": result.unrated_reason,
        "winner": result.winner,
        "ratings": changes,
    }
