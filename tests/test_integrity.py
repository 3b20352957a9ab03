"""Rated-play integrity signals (issue 31, item 6) on synthetic histories: each signal is
silent just below its documented threshold and speaks at it; honest histories (many
opponents, wins not gifted, teams that meet different rivals) raise none; the signals of a
stored history are the ones its matches give, and ``truco admin signals`` lists them."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import insert

from truco.cli import main
from truco.server.people.integrity import RatedMatch, Thresholds, current_signals, signals
from truco.server.storage.store import Store, participants_table, results_table

LIMITS = Thresholds()
_ids = itertools.count()


def match(
    team0: tuple[str, ...],
    team1: tuple[str, ...],
    winner: int = 0,
    abandoned: frozenset[str] = frozenset(),
    at: float = 0.0,
) -> RatedMatch:
    return RatedMatch(f"m{next(_ids)}", at, (team0, team1), winner, abandoned)


def kinds(matches: list[RatedMatch]) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.kind, s.players) for s in signals(matches, LIMITS)]


def others(player: str, count: int, prefix: str) -> list[RatedMatch]:
    """``count`` matches of ``player`` against a new opponent each (alternating results)."""
    return [match((player,), (f"{prefix}{i}",), winner=i % 2) for i in range(count)]


# ------------------------------------------------------------------ frequent pairs
def test_a_pair_that_plays_only_each_other_is_signalled_at_the_threshold() -> None:
    below = [match(("a",), ("b",), winner=i % 2) for i in range(LIMITS.pair_min - 1)]
    assert kinds(below) == []
    at = [*below, match(("a",), ("b",))]
    assert kinds(at) == [("frequent_pair", ("a", "b"))]
    found = signals(at, LIMITS)[0]
    assert (found.count, found.share) == (LIMITS.pair_min, 1.0)
    assert len(found.matches) == 5 and found.to_json()["matches"][0]["replay_url"].startswith(
        "/replay/m"
    )


def test_friends_who_also_play_others_are_not_a_frequent_pair() -> None:
    """The share is of the less active one's rated matches: 5 of 11 is under 50 %."""
    meetings = [match(("a",), ("b",), winner=i % 2) for i in range(LIMITS.pair_min)]
    share_under = others("a", 6, "x") + others("b", 6, "y")
    assert kinds(meetings + share_under) == []
    # one of them plays only the other: flagged (5 of 5 of b's)
    assert kinds(meetings + others("a", 50, "x")) == [("frequent_pair", ("a", "b"))]


# ------------------------------------------------------------------ wins from abandons
def test_wins_mostly_from_abandoning_opponents_are_signalled_at_the_threshold() -> None:
    def history(gifted: int, earned: int) -> list[RatedMatch]:
        quits = [match(("w",), (f"q{i}",), 0, frozenset({f"q{i}"})) for i in range(gifted)]
        return quits + [match(("w",), (f"e{i}",), 0) for i in range(earned)]

    # 3 of 5 wins (60 %): the signal; 2 of 5 (40 %), or 3 of 4 wins (too few): none
    assert kinds(history(3, 2)) == [("abandon_wins", ("w",))]
    assert kinds(history(2, 3)) == []
    assert kinds(history(3, 1)) == []
    # an abandon on the winner's own side is no gift
    mine = [match(("w", "p"), ("r", "s"), 0, frozenset({"p"})) for _ in range(5)]
    assert "abandon_wins" not in [k for k, _ in kinds(mine)]


# ------------------------------------------------------------------ fixed teams
def test_teammates_always_against_the_same_rivals_are_signalled_at_the_threshold() -> None:
    same = [match(("a", "b"), ("c", "d"), winner=i % 2) for i in range(LIMITS.team_min - 1)]
    assert [k for k, _ in kinds(same)] == []
    same.append(match(("a", "b"), ("c", "d")))
    found = kinds(same)
    assert ("fixed_teams", ("a", "b", "vs", "c", "d")) in found
    assert ("fixed_teams", ("c", "d", "vs", "a", "b")) in found
    # the same team meeting different rivals as often: 4 of 8 is under 75 %
    varied = same + [match(("a", "b"), (f"x{i}", f"y{i}")) for i in range(4)]
    assert ("fixed_teams", ("a", "b", "vs", "c", "d")) not in kinds(varied)


def test_one_v_one_matches_are_never_fixed_teams() -> None:
    assert all(k != "fixed_teams" for k, _ in kinds([match(("a",), ("b",))] * 10))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=0, max_size=40))
def test_a_player_who_never_meets_anyone_twice_raises_no_signal(results: list[int]) -> None:
    """Fresh opponents every time and nobody abandoning: nothing to look at, whatever the
    results."""
    assert kinds([match(("p",), (f"o{i}",), winner) for i, winner in enumerate(results)]) == []


# ------------------------------------------------------------------ from the database
def _store(tmp_path: Any) -> Store:
    return Store(f"sqlite:///{tmp_path / 'truco.sqlite3'}")


def _stored(store: Store, matches: list[RatedMatch], names: dict[str, str]) -> None:
    with store.engine.begin() as conn:
        for m in matches:
            conn.execute(
                insert(results_table).values(
                    match_id=m.match_id, mode="1v1", rated=True, winner=m.winner,
                    finished_at=m.finished_at,
                )
            )  # fmt: skip
            for seat, player in enumerate(p for pair in zip(*m.teams, strict=True) for p in pair):
                team = seat % 2
                conn.execute(
                    insert(participants_table).values(
                        match_id=m.match_id, seat=seat, player_id=player, kind="human",
                        name=names[player], team=team,
                        won=team == m.winner and player not in m.abandoned,
                        abandoned=player in m.abandoned,
                    )
                )  # fmt: skip


def test_the_stored_history_gives_the_signals_and_truco_admin_lists_them(tmp_path: Any) -> None:
    store = _store(tmp_path)
    now = time.time()
    names = {"a": "Ana", "b": "Beto", **{f"o{i}": f"Otro {i}" for i in range(3)}}
    farm = [
        RatedMatch(f"farm{i}", now - 60 * i, (("a",), ("b",)), 0, frozenset({"b"}))
        for i in range(5)
    ]
    honest = [RatedMatch(f"fair{i}", now - 60, (("a",), (f"o{i}",)), 1) for i in range(3)]
    old = [RatedMatch(f"old{i}", now - 40 * 86400, (("a",), ("b",)), 0) for i in range(9)]
    _stored(store, farm + honest + old, names)
    with store.engine.connect() as conn:
        found = current_signals(conn)
    assert [(s.kind, s.players, s.count) for s in found] == [
        ("frequent_pair", ("Ana", "Beto"), 5),  # 5 of Beto's 5 (the old ones are past 30 days)
        ("abandon_wins", ("Ana",), 5),  # 5 of Ana's 5 wins
    ]
    assert set(found[0].matches) == {f"farm{i}" for i in range(5)}
    store.engine.dispose()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            main(["admin", "signals", "--json", "--db", f"sqlite:///{tmp_path / 'truco.sqlite3'}"])
            == 0
        )
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["kind"] for line in lines] == ["frequent_pair", "abandon_wins"]
    assert lines[0]["matches"][0]["replay_url"] == "/replay/farm0"
