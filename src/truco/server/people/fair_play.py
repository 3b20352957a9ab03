"""Rated play that cannot be farmed (issue 31): the rules a rated match must pass to move
ratings, and the sign-up limit per address.

The farm the rules stop: two accounts from one address, one always going to the mazo, the
other climbing the leaderboard in minutes with fresh partners signed up by the dozen.

- **Rated pairing only by the server**: the rated queues, challenges and tournaments
  (``challenges.rated_refusal`` checks the same rules); ``POST /api/tables`` makes casual
  tables (``ServerConfig.rated_tables_open`` lets tests make rated ones directly).
- **One address, no rated match between them**: accounts seen at a common address (signed up
  or logged in from it, in the last :attr:`FairPlay.address_days` days) are not paired in
  a rated queue (their tickets keep them apart, :func:`kept_apart`: each waits for
  someone else), and a match between them on opposite teams is recorded unrated
  (``unrated_reason`` ``rated_same_address``).
- **Limits per pair per day**: two accounts meet in at most :attr:`FairPlay.pair_per_day`
  rated matches (opposite teams) in 24 hours; beyond, the queue does not pair them and a
  rematch is recorded unrated (``rated_pair_limit``).
- **Sign-ups per address per day**: ``ServerConfig.signups_per_address_day``.
- **Provisional accounts off the leaderboard**: fewer than ``leaderboard_min_games`` rated
  games in a mode (:data:`truco.server.people.ratings.PROVISIONAL_GAMES` by default), and banned
  accounts, are not listed.

The rules are checked twice: when a rated queue pairs players (they hear why not) and when a
rated match's result is recorded (whatever made the table: a rematch, an old database), so
that no path around the queue moves a rating.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import and_, func, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from ..storage.store import (
    account_addresses_table,
    accounts_table,
    participants_table,
    results_table,
)

DAY = 86400.0


class _Limits(Protocol):
    @property
    def rated_pair_per_day(self) -> int: ...
    @property
    def rated_same_address(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class FairPlay:
    """The rated-play rules: ``pair_per_day`` rated matches per pair of opponents in 24 h
    (0: no limit); ``same_address``: whether accounts seen at one address may be rated
    against each other; addresses count for ``address_days`` days after last seen."""

    pair_per_day: int = 3
    same_address: bool = False
    address_days: float = 30.0

    @classmethod
    def of(cls, config: _Limits) -> FairPlay:
        return cls(config.rated_pair_per_day, config.rated_same_address)


def seen_at(engine: Engine, account_id: str, address: str | None, now: float) -> None:
    """Remember that ``account_id`` signed up or logged in from ``address``."""
    if not address:
        return
    address = address[:64]
    mine = and_(
        account_addresses_table.c.account_id == account_id,
        account_addresses_table.c.address == address,
    )
    try:
        with engine.begin() as conn:
            done = conn.execute(account_addresses_table.update().where(mine).values(last_seen=now))
            if done.rowcount == 0:
                conn.execute(
                    account_addresses_table.insert().values(
                        account_id=account_id, address=address, first_seen=now, last_seen=now
                    )
                )
    except IntegrityError:  # seen meanwhile by another login: that one wrote it
        pass


def signups_today(conn: Connection, address: str | None, now: float) -> int:
    """Accounts signed up from ``address`` in the last 24 hours."""
    if not address:
        return 0
    query = select(func.count()).where(
        accounts_table.c.signup_address == address[:64], accounts_table.c.created_at > now - DAY
    )
    return int(conn.execute(query).scalar() or 0)


def opponents(teams: Sequence[Iterable[str]]) -> list[tuple[str, str]]:
    """Every pair of players on opposite teams (``teams``: the two teams' player ids).

    >>> opponents([["a", "c"], ["b"]])
    [('a', 'b'), ('c', 'b')]
    """
    first, second = (list(t) for t in teams)
    return list(itertools.product(first, second))


def shared_address(conn: Connection, a: str, b: str, since: float) -> bool:
    """Whether accounts ``a`` and ``b`` were both seen at one address since ``since``."""
    mine, theirs = account_addresses_table.alias("mine"), account_addresses_table.alias("theirs")
    query = (
        select(mine.c.address)
        .join(theirs, theirs.c.address == mine.c.address)
        .where(
            mine.c.account_id == a,
            theirs.c.account_id == b,
            mine.c.last_seen > since,
            theirs.c.last_seen > since,
        )
        .limit(1)
    )
    return conn.execute(query).first() is not None


def rated_meetings(conn: Connection, a: str, b: str, since: float) -> int:
    """Rated matches since ``since`` in which ``a`` and ``b`` sat on opposite teams."""
    mine, theirs = participants_table.alias("mine"), participants_table.alias("theirs")
    query = (
        select(func.count())
        .select_from(mine)
        .join(theirs, theirs.c.match_id == mine.c.match_id)
        .join(results_table, results_table.c.match_id == mine.c.match_id)
        .where(
            mine.c.player_id == a,
            theirs.c.player_id == b,
            mine.c.team != theirs.c.team,
            results_table.c.rated.is_(True),
            results_table.c.finished_at > since,
        )
    )
    return int(conn.execute(query).scalar() or 0)


#: At most this many accounts a rated ticket carries as kept apart (a shared address
#: behind one NAT can hold many; past these, the check at pairing still refuses).
KEPT_APART_MOST = 500


def kept_apart(conn: Connection, rules: FairPlay, account_id: str, now: float) -> frozenset[str]:
    """The accounts a rated queue must not pair ``account_id`` with now: those seen at one
    of its addresses (unless the rules allow it) and those it met in ``pair_per_day``
    rated matches in the last 24 hours, so that the queue waits for someone else rather
    than forming a table :func:`rated_refusal` would refuse."""
    apart: set[str] = set()
    if not rules.same_address:
        since = now - rules.address_days * DAY
        mine, theirs = (
            account_addresses_table.alias("mine"),
            account_addresses_table.alias("theirs"),
        )
        query = (
            select(theirs.c.account_id)
            .distinct()
            .join(mine, mine.c.address == theirs.c.address)
            .where(
                mine.c.account_id == account_id,
                theirs.c.account_id != account_id,
                mine.c.last_seen > since,
                theirs.c.last_seen > since,
            )
            .limit(KEPT_APART_MOST)
        )
        apart.update(conn.execute(query).scalars())
    if rules.pair_per_day > 0:
        mine, theirs = participants_table.alias("mine"), participants_table.alias("theirs")
        met = (
            select(theirs.c.player_id)
            .select_from(mine)
            .join(theirs, theirs.c.match_id == mine.c.match_id)
            .join(results_table, results_table.c.match_id == mine.c.match_id)
            .where(
                mine.c.player_id == account_id,
                mine.c.team != theirs.c.team,
                results_table.c.rated.is_(True),
                results_table.c.finished_at > now - DAY,
            )
            .group_by(theirs.c.player_id)
            .having(func.count() >= rules.pair_per_day)
            .limit(KEPT_APART_MOST)
        )
        apart.update(conn.execute(met).scalars())
    return frozenset(apart)


def rated_refusal(
    conn: Connection, rules: FairPlay, teams: Sequence[Iterable[str]], now: float
) -> str | None:
    """Why a rated match between ``teams`` (their account ids) may not move ratings now
    (a refusal code: ``rated_same_address``, ``rated_pair_limit``), or None."""
    pairs = opponents(teams)
    if not rules.same_address:
        since = now - rules.address_days * DAY
        if any(shared_address(conn, a, b, since) for a, b in pairs):
            return "rated_same_address"
    if rules.pair_per_day > 0 and any(
        rated_meetings(conn, a, b, now - DAY) >= rules.pair_per_day for a, b in pairs
    ):
        return "rated_pair_limit"
    return None
