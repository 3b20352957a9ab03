"""Quick-match pairing (server/matchmaking.py): scenarios, and many simulated players
joining, leaving and waiting (hypothesis): everyone gets a table, nobody twice, who
left is never seated, teams are balanced by rating, nobody meets a rating farther
than their window allowed when the table was formed."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truco.server.lobby.matchmaking import (
    MemoryQueue,
    Pairing,
    Policy,
    QueueError,
    QueueKey,
    Ticket,
    balanced_teams,
    pair,
    seat_teams,
)

R1 = QueueKey.parse("1v1-sinflor-15-rated")
C2 = QueueKey.parse("2v2-flor-30-casual")
R3 = QueueKey.parse("3v3-sinflor-30-rated")


def t(pid: str, rating: float, at: float = 0.0, bots: float | None = None) -> Ticket:
    return Ticket(pid, pid.title(), rating, at, bots)


def best_gap(ratings: list[float]) -> float:
    """The smallest team-sum gap of any split, by brute force over every permutation."""
    half = len(ratings) // 2
    return min(abs(sum(p[:half]) - sum(p[half:])) for p in itertools.permutations(ratings))


def gap(pairing: Pairing) -> float:
    ours, theirs = pairing.team_ratings()
    return abs(ours - theirs)


# ------------------------------------------------------------------ names and keys
def test_queue_names_round_trip_and_bad_ones_say_what_is_expected() -> None:
    for players, flor, target, rated in itertools.product((2, 4, 6), (0, 1), (15, 30), (0, 1)):
        key = QueueKey(players, bool(flor), target, bool(rated))
        assert QueueKey.parse(str(key)) == key
        assert key.rules().players == players and key.rules().target == target
    assert R3.mode == "3v3" and str(C2) == "2v2-flor-30-casual"
    for bad in (
        "",
        "1v1",
        "4v4-flor-15-rated",
        "1v1-flor-20-rated",
        "1v1-flor-15-ranked",
        "x" * 500,
    ):
        with pytest.raises(QueueError, match="no queue"):
            QueueKey.parse(bad)


# ------------------------------------------------------------------ scenarios
def test_close_ratings_play_at_once_far_ones_after_waiting() -> None:
    ana, beto, cami = t("ana", 1500), t("beto", 1580), t("cami", 1900)
    [table] = pair(R1, [ana, cami, beto], now=0.0)
    assert sorted(table.names()) == ["Ana", "Beto"]
    policy = Policy(base=100, widen=10)
    assert pair(R1, [ana, cami], now=29.0, policy=policy) == []  # window 390 < 400
    [later] = pair(R1, [ana, cami], now=30.0, policy=policy)
    assert sorted(later.names()) == ["Ana", "Cami"]


def test_both_players_must_accept_the_spread() -> None:
    """Who just arrived keeps the narrow window even if the other waited long."""
    old, new = t("old", 1000, at=0.0), t("new", 1500, at=100.0)
    assert pair(R1, [old, new], now=100.0, policy=Policy(base=100, widen=10)) == []
    assert len(pair(R1, [old, new], now=140.0, policy=Policy(base=100, widen=10))) == 1


def test_the_longest_waiting_player_goes_first() -> None:
    first, second, third = t("first", 1500, at=0), t("second", 1510, at=5), t("third", 1490, at=9)
    [table] = pair(R1, [third, second, first], now=10.0)
    assert "First" in table.names()


def test_2v2_teams_pair_the_strongest_with_the_weakest() -> None:
    people = [t("a", 1000), t("b", 1100), t("c", 1200), t("d", 1300)]
    [table] = pair(C2, people, now=0.0, policy=Policy(base=1000))
    teams = [{s.name for s in table.seats[k::2] if s} for k in (0, 1)]
    assert {"A", "D"} in teams and {"B", "C"} in teams
    assert gap(table) == 0


def test_3v3_teams_are_as_even_as_any_split() -> None:
    ratings = [900.0, 1000, 1150, 1300, 1320, 1600]
    people = [t(f"p{i}", r) for i, r in enumerate(ratings)]
    [table] = pair(R3, people, now=0.0, policy=Policy(base=1000))
    assert gap(table) == best_gap(ratings)
    assert sorted(s.rating for s in table.tickets()) == sorted(ratings)


def test_bots_fill_a_casual_table_after_the_wait_chosen() -> None:
    ana, beto = t("ana", 1500, bots=20.0), t("beto", 1520)
    assert pair(C2, [ana, beto], now=19.0) == []
    [table] = pair(C2, [ana, beto], now=20.0)
    assert sorted(table.names()) == ["Ana", "Beto", "bot", "bot"]
    partners = {table.seats[0], table.seats[2]}
    assert partners in ({ana, beto}, {None})  # the people play together against two bots


def test_rated_queues_never_get_bots() -> None:
    assert pair(R1, [t("ana", 1500, bots=0.0)], now=1000.0) == []


def test_a_player_holds_one_ticket_and_leaving_takes_it_out() -> None:
    async def scenario() -> None:
        queue = MemoryQueue()
        await queue.join(R1, t("ana", 1500))
        with pytest.raises(QueueError, match="already waiting in the 1v1-sinflor-15-rated"):
            await queue.join(C2, t("ana", 1500))
        assert await queue.waiting("ana") == R1
        assert await queue.leave("ana") is True
        assert await queue.leave("ana") is False
        await queue.join(R1, t("beto", 1500))
        assert await queue.match(now=0.0) == []
        await queue.join(R1, t("cami", 1500))
        [table] = await queue.match(now=0.0)
        assert sorted(table.names()) == ["Beto", "Cami"]
        assert await queue.waiting("beto") is None and await queue.counts() == {}
        await queue.announce("beto", "abc123")
        assert await queue.announcement("beto") == "abc123"
        assert await queue.announcement("beto") is None

    asyncio.run(scenario())


def test_seat_teams_refuses_more_people_than_seats() -> None:
    with pytest.raises(ValueError, match="3 people for a 2-player table"):
        seat_teams(R1, [t("a", 1), t("b", 1), t("c", 1)])


@given(st.lists(st.floats(0, 3000, allow_nan=False), min_size=1, max_size=3).map(lambda r: r * 2))
def test_balanced_teams_is_the_best_split(ratings: list[float]) -> None:
    ours, theirs = balanced_teams(ratings)
    assert sorted(ours + theirs) == list(range(len(ratings)))
    assert len(ours) == len(theirs)
    found = abs(sum(ratings[i] for i in ours) - sum(ratings[i] for i in theirs))
    assert found == pytest.approx(best_gap(ratings), abs=1e-6)


# ------------------------------------------------------------------ many players
@dataclass(frozen=True)
class Arrival:
    at: int  # the tick they join
    rating: float
    queue: QueueKey
    leaves_at: int | None  # the tick they leave, if they do
    bots_after: float | None


KEYS = st.sampled_from([R1, C2, R3, QueueKey.parse("1v1-flor-30-casual")])
arrivals = st.lists(
    st.builds(
        Arrival,
        at=st.integers(0, 30),
        rating=st.floats(500, 2500, allow_nan=False).map(round),
        queue=KEYS,
        leaves_at=st.none() | st.integers(0, 40),
        bots_after=st.none() | st.sampled_from([0.0, 5.0, 30.0]),
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(arrivals)
def test_many_players_each_seated_once_balanced_and_never_after_leaving(
    people: list[Arrival],
) -> None:
    policy = Policy(base=100, widen=20)
    queue = MemoryQueue(policy=policy)
    seated: Counter[str] = Counter()
    gone: set[str] = set()
    tables: list[tuple[int, Pairing]] = []

    async def run() -> None:
        for tick in range(0, 400):
            for i, who in enumerate(people):
                pid = f"p{i}"
                if who.at == tick:
                    await queue.join(who.queue, Ticket(pid, pid, who.rating, tick, who.bots_after))
                if who.leaves_at == tick and who.leaves_at >= who.at and await queue.leave(pid):
                    gone.add(pid)
            for table in await queue.match(now=float(tick)):
                tables.append((tick, table))
                for ticket in table.tickets():
                    assert ticket.player_id not in gone, "a player who left was seated"
                    seated[ticket.player_id] += 1

    asyncio.run(run())
    assert all(n == 1 for n in seated.values()), "a player was seated twice"
    for tick, table in tables:
        humans = table.tickets()
        assert len(table.seats) == table.key.players
        if len(humans) < table.key.players:  # bots: a casual player chose them and waited
            assert not table.key.rated
            assert any(
                h.bots_after is not None and tick - h.joined_at >= h.bots_after for h in humans
            )
        ratings = [
            s.rating if s else sum(h.rating for h in humans) / len(humans) for s in table.seats
        ]
        assert gap(table) == pytest.approx(best_gap(ratings), abs=1e-6)
        spread = max(h.rating for h in humans) - min(h.rating for h in humans)
        assert all(spread <= policy.window(tick - h.joined_at) for h in humans)
    # who stayed got a table, but for fewer than a table's players left in a queue
    stayed: dict[QueueKey, list[Arrival]] = {}
    for i, who in enumerate(people):
        if f"p{i}" not in gone and f"p{i}" not in seated:
            stayed.setdefault(who.queue, []).append(who)
    for key, left_over in stayed.items():
        assert len(left_over) < key.players, f"{len(left_over)} still waiting in {key}"
        assert all(w.bots_after is None or key.rated for w in left_over)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(2, 8).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))),
            st.lists(st.integers(1400, 1600), min_size=n, max_size=n),
        )
    )
)
def test_players_kept_apart_never_share_a_table_and_the_rest_still_pair(
    case: tuple[int, set[tuple[int, int]], list[int]],
) -> None:
    """Tickets that keep others apart (a block, a rated pair the fair-play rules refuse):
    no table seats two of them, the longest waiting plays whenever someone may play them
    (a run of neighbours in rating that does not fit is not the end of their search), and
    among those left waiting no two could play each other."""
    n, apart, ratings = case
    avoid: dict[int, set[str]] = {i: set() for i in range(n)}
    for a, b in apart:
        if a != b:
            avoid[a].add(f"p{b}")
    tickets = [
        Ticket(f"p{i}", f"P{i}", ratings[i], float(i), None, frozenset(avoid[i])) for i in range(n)
    ]
    wide = Policy(base=1000)
    tables = pair(R1, tickets, now=100.0, policy=wide)
    seated = [t.player_id for table in tables for t in table.tickets()]
    assert len(seated) == len(set(seated))
    for table in tables:
        a, b = table.tickets()
        assert b.player_id not in a.avoid and a.player_id not in b.avoid
    first = tickets[0]  # the longest waiting: seated if anyone may play them
    if any(first.player_id not in t.avoid and t.player_id not in first.avoid for t in tickets[1:]):
        assert first.player_id in seated
    left = [t for t in tickets if t.player_id not in seated]
    for a, b in itertools.combinations(left, 2):
        assert b.player_id in a.avoid or a.player_id in b.avoid, (
            f"{a.player_id} and {b.player_id} wait apart"
        )
