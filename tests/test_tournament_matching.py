"""Tournament pairing (server/tournaments/matching.py): Swiss and arena rounds against
brute force over every possible pairing (hypothesis), whole simulated events, and the
scoring's scenarios (Buchholz, the arena's streak bonus)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truco.server.lobby.tournaments.matching import (
    ArenaEntrant,
    Game,
    SwissEntrant,
    arena_pairs,
    arena_points,
    best_matching,
    last_rivals,
    swiss_entrants,
    swiss_round,
    swiss_standings,
)


def matchings(ids: Sequence[str]) -> Iterator[list[tuple[str, str]]]:
    """Every perfect matching of ``ids`` (even length)."""
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for i, other in enumerate(rest):
        for m in matchings([*rest[:i], *rest[i + 1 :]]):
            yield [(first, other), *m]


def near_matchings(ids: Sequence[str]) -> Iterator[tuple[list[tuple[str, str]], str | None]]:
    """Every way to pair ``ids`` with at most one left over."""
    if len(ids) % 2 == 0:
        for m in matchings(ids):
            yield m, None
        return
    for i, out in enumerate(ids):
        for m in matchings([*ids[:i], *ids[i + 1 :]]):
            yield m, out


# ------------------------------------------------------------------ the matcher
@given(st.lists(st.integers(0, 50), min_size=28, max_size=28), st.integers(0, 3))
def test_best_matching_is_the_cheapest_of_all(weights: list[int], half: int) -> None:
    ids = [str(i) for i in range(2 * half + 2)]
    table = {(a, b): weights[(int(a) * 7 + int(b)) % 28] for a in ids for b in ids}

    def cost(a: str, b: str) -> int:
        return table[min(a, b), max(a, b)]

    found = best_matching(ids, cost)
    assert sorted(x for p in found for x in p) == sorted(ids)
    assert sum(cost(*p) for p in found) == min(sum(cost(*p) for p in m) for m in matchings(ids))


def test_a_search_over_budget_still_pairs_everyone() -> None:
    ids = [f"p{i}" for i in range(40)]
    found = best_matching(ids, lambda a, b: (int(a[1:]) * int(b[1:])) % 17, budget=50)
    assert sorted(x for p in found for x in p) == sorted(ids)


# ------------------------------------------------------------------ Swiss
def swiss_cost(
    entrants: dict[str, SwissEntrant], pairs: list[tuple[str, str]], bye: str | None
) -> tuple[int, int, int]:
    """(repeated byes, rematches, the sum of the squared gaps in half points, the
    bye's gap counted from one point below the lowest score)."""
    low = min(e.points for e in entrants.values()) - 1
    rematches = sum(b in entrants[a].met for a, b in pairs)
    gaps = sum(round(2 * (entrants[a].points - entrants[b].points)) ** 2 for a, b in pairs)
    byes = 0
    if bye is not None:
        byes = int(entrants[bye].byes > 0)
        gaps += round(2 * (entrants[bye].points - low)) ** 2
    return byes, rematches, gaps


def play_swiss(
    n: int, rounds: int, outcomes: list[int], check_optimal: bool
) -> tuple[list[str], list[Game], list[str]]:
    """A Swiss event of ``n`` entrants and ``rounds`` rounds, each game's winner drawn
    from ``outcomes`` (0 the first seat, 1 the second, 2 a draw); every round checked."""
    ids = [f"e{i}" for i in range(n)]
    games: list[Game] = []
    byes: list[str] = []
    draws = iter(outcomes)
    for _ in range(rounds):
        standings = swiss_standings(ids, games, byes)
        entrants = {e.id: e for e in swiss_entrants(standings)}
        chosen = swiss_round(list(entrants.values()))
        seen = [x for p in chosen.pairs for x in p] + ([chosen.bye] if chosen.bye else [])
        assert sorted(seen) == sorted(ids)  # everyone plays or has the bye, once
        assert (chosen.bye is not None) == (n % 2 == 1)
        for first, second in chosen.pairs:  # the first seat to who sat first less often
            assert entrants[first].seats <= entrants[second].seats
        if check_optimal:
            best = min(swiss_cost(entrants, m, out) for m, out in near_matchings(sorted(entrants)))
            assert swiss_cost(entrants, list(chosen.pairs), chosen.bye) == best
        for first, second in chosen.pairs:
            result = next(draws, 0) % 3
            winner = (first, second, None)[result]
            games.append(Game(first, second, winner))
        if chosen.bye:
            byes.append(chosen.bye)
    return ids, games, byes


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9), st.data())
def test_swiss_rounds_are_the_best_pairing_there_is(n: int, data: st.DataObject) -> None:
    """No rematch while a pairing without one exists, then the score groups kept (the
    smallest squared gaps of any pairing), at most one bye each, all against brute force."""
    rounds = data.draw(st.integers(1, n - 1 if n % 2 == 0 else n))
    outcomes = data.draw(st.lists(st.integers(0, 2), max_size=60))
    _, _, byes = play_swiss(n, rounds, outcomes, check_optimal=True)
    assert len(byes) == len(set(byes))  # one bye per entrant at most


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 24), st.lists(st.integers(0, 2), max_size=400))
def test_swiss_events_of_up_to_half_as_many_rounds_as_entrants_never_rematch(
    n: int, outcomes: list[int]
) -> None:
    """With fewer rounds than half the entrants a pairing without rematches always
    exists (each has met under half the others: Dirac), so none is ever made."""
    _, games, byes = play_swiss(n, min(6, n // 2), outcomes, check_optimal=False)
    pairs = [frozenset((g.first, g.second)) for g in games]
    assert len(pairs) == len(set(pairs))
    assert len(byes) == len(set(byes))


def test_swiss_first_round_pairs_by_seed_and_gives_the_bye_to_the_last() -> None:
    first = swiss_round([SwissEntrant(x) for x in "abcde"])
    assert first.bye == "e"
    assert sorted(frozenset(p) for p in first.pairs) == sorted(
        frozenset(p) for p in [("a", "b"), ("c", "d")]
    )


def test_swiss_floats_one_player_down_when_a_group_is_odd() -> None:
    entrants = [
        SwissEntrant("a", 2, frozenset({"x", "y"})),
        SwissEntrant("b", 2, frozenset({"x", "y"})),
        SwissEntrant("c", 2, frozenset({"x", "y"})),
        SwissEntrant("d", 1, frozenset({"x", "y"})),
    ]
    chosen = swiss_round(entrants)
    points = {e.id: e.points for e in entrants}
    gaps = sorted(abs(points[a] - points[b]) for a, b in chosen.pairs)
    assert gaps == [0, 1]


def test_swiss_avoids_a_rematch_by_floating_further() -> None:
    # a and b already met: a plays c although c has less
    entrants = [
        SwissEntrant("a", 2, frozenset({"b"})),
        SwissEntrant("b", 2, frozenset({"a"})),
        SwissEntrant("c", 1),
        SwissEntrant("d", 1),
    ]
    pairs = {frozenset(p) for p in swiss_round(entrants).pairs}
    assert frozenset("ab") not in pairs and len(pairs) == 2


def test_swiss_refuses_duplicate_ids() -> None:
    with pytest.raises(ValueError):
        swiss_round([SwissEntrant("a"), SwissEntrant("a")])


def test_buchholz_sums_the_opponents_points_and_breaks_ties() -> None:
    games = [
        Game("a", "b", "a"),
        Game("c", "d", "c"),
        Game("a", "c", "a"),
        Game("b", "d", "b"),
        Game("b", "c", None),
    ]
    table = {s.id: s for s in swiss_standings("abcd", games)}
    assert table["a"].points == 2 and table["b"].points == 1.5 and table["c"].points == 1.5
    assert table["b"].buchholz == 2 + 0 + 1.5  # a, d, c
    assert table["c"].buchholz == 0 + 2 + 1.5  # d, a, b
    order = [s.id for s in swiss_standings("abcd", games)]
    assert order == ["a", "b", "c", "d"]  # b and c tie on points and Buchholz: by id


@given(st.integers(2, 10), st.lists(st.integers(0, 2), max_size=80), st.randoms())
def test_standings_are_sorted_and_buchholz_is_the_opponents_points(
    n: int, outcomes: list[int], rng: random.Random
) -> None:
    ids, games, byes = play_swiss(n, min(4, n - 1), outcomes, check_optimal=False)
    rng.shuffle(games)  # the order of the games does not change Swiss standings
    lines = swiss_standings(ids, games, byes)
    points = {s.id: s.points for s in lines}
    for line in lines:
        assert line.buchholz == sum(points[o] for o in line.met)
    keys = [(-s.points, -s.buchholz, s.id) for s in lines]
    assert keys == sorted(keys)
    assert sum(s.points for s in lines) == len(games) + len(byes)


# ------------------------------------------------------------------ arena
@st.composite
def free_entrants(draw: st.DrawFn) -> list[ArenaEntrant]:
    n = draw(st.integers(0, 9))
    ids = [f"p{i}" for i in range(n)]
    rivals = st.sampled_from([*ids, "gone", None]) if ids else st.none()
    return [
        ArenaEntrant(x, draw(st.integers(0, 12)), draw(rivals), draw(st.integers(-2, 2)))
        for x in ids
    ]


def repeats(free: Sequence[ArenaEntrant], pairs: list[tuple[str, str]]) -> int:
    last = {e.id: e.last_rival for e in free}
    return sum(last[a] == b or last[b] == a for a, b in pairs)


@given(free_entrants())
def test_arena_pairs_everyone_free_with_the_fewest_repeats(free: list[ArenaEntrant]) -> None:
    pairs = arena_pairs(free)
    seated = [x for p in pairs for x in p]
    assert len(seated) == len(set(seated)) and set(seated) <= {e.id for e in free}
    assert len(pairs) == len(free) // 2  # nobody idle while two are free
    fewest = min((repeats(free, m) for m, _ in near_matchings([e.id for e in free])), default=0)
    assert repeats(free, pairs) == fewest


@given(free_entrants())
def test_arena_never_repeats_a_rival_while_others_wait(free: list[ArenaEntrant]) -> None:
    # rivals that point at each other (as after a game both just left)
    ids = {e.id for e in free}
    mutual = [
        e
        if e.last_rival is None
        or e.last_rival not in ids
        or next(o for o in free if o.id == e.last_rival).last_rival == e.id
        else ArenaEntrant(e.id, e.points, None, e.seats)
        for e in free
    ]
    pairs = arena_pairs(mutual)
    if len(mutual) >= 3:
        assert repeats(mutual, pairs) == 0
    for first, second in pairs:
        seats = {e.id: e.seats for e in mutual}
        assert seats[first] <= seats[second]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.randoms(use_true_random=False))
def test_a_simulated_arena_keeps_its_promises(n: int, rng: random.Random) -> None:
    """Games end at random; whoever is free is paired at once: at every pairing nobody
    idle while two are free, a rival met twice in a row only when nobody else was free,
    and the points match the games."""
    ids = [f"p{i}" for i in range(n)]
    free = list(ids)
    playing: list[tuple[str, str]] = []
    games: list[Game] = []
    for _ in range(60):
        standings = {s.id: s for s in arena_points(ids, games)}
        last = last_rivals(games)
        entrants = [
            ArenaEntrant(x, int(standings[x].points), last.get(x), standings[x].seats) for x in free
        ]
        pairs = arena_pairs(entrants)
        assert len(pairs) == len(free) // 2
        for a, b in pairs:
            if last.get(a) == b or last.get(b) == a:
                assert len(free) == 2, (free, a, b, last)
        playing += pairs
        busy = {x for p in pairs for x in p}
        free = [x for x in free if x not in busy]
        if not playing:
            continue
        ended = playing.pop(rng.randrange(len(playing)))
        winner = rng.choice([*ended, None])
        games.append(Game(*ended, winner))
        free += list(ended)


def test_arena_streak_bonus_doubles_after_two_wins() -> None:
    games = [
        Game("a", "b", "a"),  # a 2
        Game("a", "c", "a"),  # a 2, now on fire
        Game("b", "a", "a"),  # a 4
        Game("a", "c", None),  # a 2 (a draw on fire), the streak ends
        Game("c", "a", "a"),  # a 2
        Game("b", "c", "b"),
    ]
    table = {s.id: s for s in arena_points("abc", games)}
    assert table["a"].points == 12 and not table["a"].fire
    assert table["b"].points == 2 and table["c"].points == 1
    on_fire = {
        s.id: s for s in arena_points("abc", [*games, Game("a", "b", "a"), Game("a", "b", "a")])
    }
    # one win after the draw, then another: on fire again, the second one doubled
    assert on_fire["a"].fire and on_fire["a"].points == 12 + 2 + 4


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 2)), max_size=40))
def test_arena_points_stay_between_plain_and_doubled(
    raw: list[tuple[int, int, int]],
) -> None:
    ids = ["a", "b", "c", "d"]
    games = [Game(ids[x], ids[y], (ids[x], ids[y], None)[w]) for x, y, w in raw if x != y]
    for line in arena_points(ids, games):
        draws = sum(g.winner is None and line.id in (g.first, g.second) for g in games)
        assert 2 * line.wins + draws <= line.points <= 4 * line.wins + 2 * draws
        assert line.played == sum(line.id in (g.first, g.second) for g in games)
