"""Ratings: a won rated match raises the winners and lowers the losers (team-aware, per mode);
casual and bot matches change nothing; abandoning is a loss; every rating can be recomputed
from the stored results and comes out the same. Run on SQLite, and on PostgreSQL when one
answers at 127.0.0.1:5432."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select

from databases import db_url
from truco.server.people.ratings import (
    MU,
    PROVISIONAL_GAMES,
    Seated,
    Skill,
    displayed,
    rate_match,
    ratings_of,
    recompute,
    record_result,
    record_unrecorded,
    stored_ratings,
)
from truco.server.storage.store import (
    MatchRow,
    Store,
    participants_table,
    rating_history_table,
    results_table,
)

__all__ = ["db_url"]  # the fixture, from databases

_ids = iter(range(10**6))


def human(seat: int, player: str, away: bool = False) -> dict[str, Any]:
    return {"kind": "human", "player_id": player, "name": player, "bot": None, "away": away}


def bot(seat: int) -> dict[str, Any]:
    return {"kind": "bot", "player_id": None, "name": "Bot random", "bot": "random", "away": False}


def finished(
    store: Store,
    seats: list[dict[str, Any]],
    winner: int,
    rated: bool = True,
    status: str = "finished",
) -> str:
    """Store a finished match with these seats; its id."""
    match_id = f"m{next(_ids)}"
    table = {"rules": {"players": len(seats)}, "rated": rated, "seats": seats}
    store.write(
        [MatchRow(match_id, "Mesa", status, 1.0, float(next(_ids)), 9, winner, table, None)]
    )
    return match_id


def one_v_one(store: Store, winner: str, loser: str, rated: bool = True) -> str:
    """A rated 1v1 won by ``winner`` (seat 0)."""
    match_id = finished(store, [human(0, winner), human(1, loser)], 0, rated)
    assert record_result(store.engine, match_id)
    return match_id


def skill(store: Store, player: str, mode: str = "1v1") -> Skill:
    with store.engine.connect() as conn:
        return ratings_of(conn, player)[mode]


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    store = Store(db_url)
    yield store
    store.engine.dispose()


# ------------------------------------------------------------------ the model
def test_a_win_raises_the_winners_and_lowers_the_losers_in_both_mu_and_shown_rating() -> None:
    new = rate_match(
        {"a": Skill(), "b": Skill()},
        [Seated(0, "a", "human", "A", False), Seated(1, "b", "human", "B", False)],
        winner=0,
    )
    assert new["a"].mu > MU > new["b"].mu
    assert displayed(new["a"].mu, new["a"].sigma) > 1500 > displayed(new["b"].mu, new["b"].sigma)
    assert new["a"].games == new["b"].games == 1
    # an established loser loses shown rating too (σ barely moves any more)
    settled = {"a": Skill(30.0, 1.5, 50), "b": Skill(30.0, 1.5, 50)}
    pair = [Seated(0, "a", "human", "A", False), Seated(1, "b", "human", "B", False)]
    after = rate_match(settled, pair, winner=1)
    assert displayed(after["a"].mu, after["a"].sigma) < displayed(30.0, 1.5)
    assert displayed(after["b"].mu, after["b"].sigma) > displayed(30.0, 1.5)


def test_teams_win_and_lose_together_and_an_upset_moves_more() -> None:
    seats = [Seated(i, p, "human", p, False) for i, p in enumerate("abcd")]  # a, c vs b, d
    even = {p: Skill() for p in "abcd"}
    new = rate_match(even, seats, winner=1)
    assert new["b"].mu > MU and new["d"].mu > MU and new["a"].mu < MU and new["c"].mu < MU
    strong = {"a": Skill(35, 3), "c": Skill(35, 3), "b": Skill(20, 3), "d": Skill(20, 3)}
    upset = rate_match(strong, seats, winner=1)
    expected = rate_match(strong, seats, winner=0)
    assert upset["b"].mu - 20 > expected["a"].mu - 35 > 0


def test_abandoning_counts_as_a_loss_even_when_the_team_wins() -> None:
    seats = [
        Seated(0, "a", "human", "A", False),
        Seated(1, "b", "human", "B", False),
        Seated(2, "c", "human", "C", True),  # a's partner left; a bot won it for them
        Seated(3, "d", "human", "D", False),
    ]
    new = rate_match({p: Skill() for p in "abcd"}, seats, winner=0)
    assert new["a"].mu > MU and new["c"].mu < MU and new["b"].mu < MU
    stayed = [*seats[:2], Seated(2, "c", "human", "C", False), seats[3]]
    alone = rate_match({p: Skill() for p in "abcd"}, stayed, winner=1)
    assert new["c"].mu == pytest.approx(alone["c"].mu)  # exactly their team's loss


# ------------------------------------------------------------------ recorded results
def test_a_rated_result_moves_ratings_once_and_keeps_the_history(store: Store) -> None:
    match_id = one_v_one(store, "ana", "beto")
    ana, beto = skill(store, "ana"), skill(store, "beto")
    assert ana.mu > MU > beto.mu and ana.games == beto.games == 1
    assert skill(store, "ana", "2v2") == Skill()  # other modes untouched
    assert not record_result(store.engine, match_id)  # once only
    assert skill(store, "ana") == ana
    with store.engine.connect() as conn:
        history = conn.execute(
            select(rating_history_table.c.player_id, rating_history_table.c.mu).where(
                rating_history_table.c.match_id == match_id
            )
        ).all()
        won = dict(
            conn.execute(
                select(participants_table.c.player_id, participants_table.c.won).where(
                    participants_table.c.match_id == match_id
                )
            ).all()
        )
    assert sorted(history) == [("ana", ana.mu), ("beto", beto.mu)]
    assert won == {"ana": True, "beto": False}


def test_casual_and_bot_matches_change_no_rating(store: Store) -> None:
    casual = one_v_one(store, "ana", "beto", rated=False)
    with_bot = finished(store, [human(0, "ana"), bot(1)], 0, rated=True)  # never rated
    assert record_result(store.engine, with_bot)
    with store.engine.connect() as conn:
        assert stored_ratings(conn) == {}
        rated = dict(conn.execute(select(results_table.c.match_id, results_table.c.rated)).all())
    assert rated == {casual: False, with_bot: False}
    assert skill(store, "ana") == Skill()


def test_unfinished_and_abandoned_tables_have_no_result(store: Store) -> None:
    playing = finished(store, [human(0, "a"), human(1, "b")], 0, status="playing")
    empty = finished(store, [human(0, "a"), {"kind": "empty"}], 0, status="abandoned")
    assert not record_result(store.engine, playing)
    assert not record_result(store.engine, empty)
    assert not record_result(store.engine, "nonexistent")
    assert record_unrecorded(store.engine) == 0


def test_a_rated_abandonment_is_recorded_as_a_loss(store: Store) -> None:
    seats = [human(0, "ana"), human(1, "beto"), human(2, "ceci", away=True), human(3, "dani")]
    match_id = finished(store, seats, winner=0)
    assert record_result(store.engine, match_id)
    assert skill(store, "ceci", "2v2").mu < MU < skill(store, "ana", "2v2").mu
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(
                participants_table.c.player_id,
                participants_table.c.won,
                participants_table.c.abandoned,
            )
            .where(participants_table.c.match_id == match_id)
            .order_by(participants_table.c.seat)
        ).all()
    assert [tuple(r) for r in rows] == [
        ("ana", True, False),
        ("beto", False, False),
        ("ceci", False, True),
        ("dani", False, False),
    ]


def test_a_rating_is_provisional_until_enough_games(store: Store) -> None:
    for game in range(PROVISIONAL_GAMES):
        assert skill(store, "ana").to_json()["provisional"]
        one_v_one(store, "ana", f"rival{game}")
    shown = skill(store, "ana").to_json()
    assert shown["games"] == PROVISIONAL_GAMES and not shown["provisional"]
    assert shown["rating"] == displayed(skill(store, "ana").mu, skill(store, "ana").sigma)


def test_ratings_recomputed_from_the_stored_results_are_the_same(store: Store) -> None:
    rng = random.Random(12)
    people = [f"p{i}" for i in range(8)]
    for _ in range(60):
        size = rng.choice([2, 4, 6])
        players = rng.sample(people, size)
        seats = [human(i, p, away=rng.random() < 0.1) for i, p in enumerate(players)]
        if rng.random() < 0.2:
            seats[-1] = bot(size - 1)  # not rated
        match_id = finished(store, seats, rng.randrange(2), rated=rng.random() < 0.8)
        assert record_result(store.engine, match_id)
    with store.engine.connect() as conn:
        stored = stored_ratings(conn)
        rebuilt = recompute(conn)
        rated = conn.execute(
            select(func.count()).select_from(results_table).where(results_table.c.rated)
        ).scalar_one()
    assert rated > 20 and len(stored) > 12
    assert rebuilt == stored  # the same floats: the same updates in the same order
    assert {mode for _, mode in stored} == {"1v1", "2v2", "3v3"}


def test_results_left_unrecorded_are_recorded_on_start_oldest_first(store: Store) -> None:
    first = finished(store, [human(0, "ana"), human(1, "beto")], 0)
    second = finished(store, [human(0, "ana"), human(1, "beto")], 1)
    assert record_unrecorded(store.engine) == 2
    assert record_unrecorded(store.engine) == 0
    with store.engine.connect() as conn:
        order = conn.execute(select(results_table.c.match_id).order_by(results_table.c.seq))
        assert [r.match_id for r in order] == [first, second]
        assert recompute(conn) == stored_ratings(conn)


def test_a_table_json_without_rated_is_casual(store: Store) -> None:
    """Tables stored before rated tables existed are casual."""
    match_id = f"m{next(_ids)}"
    table = {"rules": {"players": 2}, "seats": [human(0, "x"), human(1, "y")]}
    store.write([MatchRow(match_id, "Vieja", "finished", 1.0, 2.0, 3, 1, table, None)])
    assert record_result(store.engine, match_id)
    assert skill(store, "x") == Skill()
