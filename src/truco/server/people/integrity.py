"""Rated-play integrity signals for moderators (issue 31): patterns a rating farm or a
collusion leaves in the rated history. They are **signals, not sanctions**: nothing is done to
an account by them; ``truco admin signals`` and the moderators' page list them, each with the
matches behind it (replays one click away), for a person to judge.

Each signal reads the rated matches of the last :attr:`Thresholds.days` days:

- ``frequent_pair``: two accounts met as opponents in at least :attr:`Thresholds.pair_min`
  rated matches, and those are at least :attr:`Thresholds.pair_share` of the rated matches of
  one of them (friends who also play others are not flagged; a pair that plays only each
  other is). Default 5 matches and 50 %.
- ``abandon_wins``: an account with at least :attr:`Thresholds.abandon_min_wins` rated wins,
  of which at least :attr:`Thresholds.abandon_share` came from an opponent who abandoned (gone
  past the reconnect grace, their seat a bot's at the end). Default 5 wins and 60 %.
- ``fixed_teams``: teammates in 2v2/3v3 who met the very same rivals in at least
  :attr:`Thresholds.team_min` rated matches, at least :attr:`Thresholds.team_share` of the
  matches they played together. Default 4 matches and 75 %.

``tests/test_integrity.py`` checks each threshold on synthetic histories (just below it: no
signal; at it: the signal).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ..storage.store import participants_table, results_table


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Where each signal starts (see the module's documentation)."""

    days: float = 30.0
    pair_min: int = 5
    pair_share: float = 0.5
    abandon_min_wins: int = 5
    abandon_share: float = 0.6
    team_min: int = 4
    team_share: float = 0.75


@dataclass(frozen=True, slots=True)
class RatedMatch:
    """A finished rated match: each team's player ids (team 0: the even seats), the winning
    team, the players who abandoned, the players' names."""

    match_id: str
    finished_at: float
    teams: tuple[tuple[str, ...], tuple[str, ...]]
    winner: int
    abandoned: frozenset[str] = frozenset()
    names: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Signal:
    kind: str  # frequent_pair, abandon_wins, fixed_teams
    players: tuple[str, ...]  # names
    count: int
    share: float
    threshold: str  # the rule it passed, in words
    matches: tuple[str, ...]  # the latest matches behind it

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "players": list(self.players),
            "count": self.count,
            "share": round(self.share, 3),
            "threshold": self.threshold,
            "matches": [{"id": m, "replay_url": f"/replay/{m}"} for m in self.matches],
        }


def _latest(ids: Iterable[tuple[float, str]], many: int = 5) -> tuple[str, ...]:
    return tuple(m for _, m in sorted(ids, reverse=True)[:many])


def frequent_pairs(matches: Sequence[RatedMatch], limits: Thresholds) -> list[Signal]:
    played: Counter[str] = Counter()
    met: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    names: dict[str, str] = {}
    for match in matches:
        names.update(match.names)
        for team in match.teams:
            played.update(team)
        for a in match.teams[0]:
            for b in match.teams[1]:
                met[(min(a, b), max(a, b))].append((match.finished_at, match.match_id))
    found = []
    for (a, b), meetings in met.items():
        share = len(meetings) / max(1, min(played[a], played[b]))
        if len(meetings) >= limits.pair_min and share >= limits.pair_share:
            found.append(
                Signal(
                    "frequent_pair",
                    (names.get(a, a), names.get(b, b)),
                    len(meetings),
                    share,
                    f">= {limits.pair_min} rated matches against each other, "
                    f">= {limits.pair_share:.0%} of one's rated matches",
                    _latest(meetings),
                )
            )
    return found


def abandon_wins(matches: Sequence[RatedMatch], limits: Thresholds) -> list[Signal]:
    wins: dict[str, list[tuple[float, str]]] = defaultdict(list)
    gifted: dict[str, list[tuple[float, str]]] = defaultdict(list)
    names: dict[str, str] = {}
    for match in matches:
        names.update(match.names)
        losers = match.teams[1 - match.winner]
        for player in match.teams[match.winner]:
            if player in match.abandoned:
                continue
            wins[player].append((match.finished_at, match.match_id))
            if any(p in match.abandoned for p in losers):
                gifted[player].append((match.finished_at, match.match_id))
    found = []
    for player, won in wins.items():
        share = len(gifted[player]) / len(won)
        if len(won) >= limits.abandon_min_wins and share >= limits.abandon_share:
            found.append(
                Signal(
                    "abandon_wins",
                    (names.get(player, player),),
                    len(gifted[player]),
                    share,
                    f">= {limits.abandon_min_wins} rated wins, >= {limits.abandon_share:.0%} "
                    "of them from an opponent who abandoned",
                    _latest(gifted[player]),
                )
            )
    return found


def fixed_teams(matches: Sequence[RatedMatch], limits: Thresholds) -> list[Signal]:
    together: dict[frozenset[str], list[tuple[float, str]]] = defaultdict(list)
    against: dict[tuple[frozenset[str], frozenset[str]], list[tuple[float, str]]] = defaultdict(
        list
    )
    names: dict[str, str] = {}
    for match in matches:
        names.update(match.names)
        if len(match.teams[0]) < 2:
            continue
        for side in (0, 1):
            team, rivals = frozenset(match.teams[side]), frozenset(match.teams[1 - side])
            together[team].append((match.finished_at, match.match_id))
            against[(team, rivals)].append((match.finished_at, match.match_id))
    found = []
    for (team, rivals), meetings in against.items():
        share = len(meetings) / len(together[team])
        if len(meetings) >= limits.team_min and share >= limits.team_share:
            shown = tuple(sorted(names.get(p, p) for p in team))
            versus = tuple(sorted(names.get(p, p) for p in rivals))
            found.append(
                Signal(
                    "fixed_teams",
                    (*shown, "vs", *versus),
                    len(meetings),
                    share,
                    f">= {limits.team_min} rated matches of one team against the same "
                    f"rivals, >= {limits.team_share:.0%} of that team's matches",
                    _latest(meetings),
                )
            )
    return found


def signals(matches: Sequence[RatedMatch], limits: Thresholds | None = None) -> list[Signal]:
    """Every signal of ``matches`` (strongest first within each kind)."""
    limits = limits or Thresholds()
    found = []
    for finder in (frequent_pairs, abandon_wins, fixed_teams):
        found.extend(sorted(finder(matches, limits), key=lambda s: (-s.count, -s.share)))
    return found


def rated_history(conn: Connection, since: float) -> list[RatedMatch]:
    """The rated matches finished since ``since``, as :func:`signals` reads them."""
    rows = conn.execute(
        select(
            results_table.c.match_id,
            results_table.c.finished_at,
            results_table.c.winner,
            participants_table.c.player_id,
            participants_table.c.name,
            participants_table.c.team,
            participants_table.c.abandoned,
        )
        .join(participants_table, participants_table.c.match_id == results_table.c.match_id)
        .where(results_table.c.rated.is_(True), results_table.c.finished_at > since)
        .order_by(results_table.c.seq, participants_table.c.seat)
    ).all()
    grouped: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        grouped[row.match_id].append(row)
    matches = []
    for match_id, seats in grouped.items():
        people = [s for s in seats if s.player_id]
        teams = tuple(tuple(s.player_id for s in people if s.team == t) for t in (0, 1))
        matches.append(
            RatedMatch(
                match_id,
                seats[0].finished_at,
                (teams[0], teams[1]),
                int(seats[0].winner),
                frozenset(s.player_id for s in people if s.abandoned),
                {s.player_id: s.name for s in people},
            )
        )
    return matches


def current_signals(conn: Connection, limits: Thresholds | None = None) -> list[Signal]:
    """The signals of the stored rated history (the last ``limits.days`` days)."""
    limits = limits or Thresholds()
    return signals(rated_history(conn, time.time() - limits.days * 86400), limits)
