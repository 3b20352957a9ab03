"""Who plays whom in a tournament: pure functions, no clock, no database.

**Swiss** (:func:`swiss_round`): every entrant plays every round; pairs are made within
score groups (a player floats to the nearest group only when their own cannot pair
them), never a rematch while a pairing without one exists, at most one bye per
entrant (the lowest score that has not had one: 1 point), and the first seat to the
entrant who has had it less often. Standings (:func:`swiss_standings`) rank by points,
then Buchholz (the sum of the opponents' points), then name.

**Arena** (:func:`arena_pairs`): for a fixed time, whoever is free is paired at once
(nobody idle while two are free), never with the rival they just played while someone
else waits, close in points. Points (:func:`arena_points`, lichess's): 2 a win, 1 a
draw, 0 a loss; after two wins in a row a player is *on fire* and every win or draw is
worth double until they fail to win.

The matching itself (:func:`best_matching`) is an exact branch and bound over the
pairs' costs for the sizes a tournament round has, with a step budget after which the
best pairing found so far stands (a greedy one to begin with).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: the most search steps one pairing may take (beyond it, the best found so far)
STEP_BUDGET = 20_000
#: the cost of meeting again: more than any difference of scores can cost
REMATCH = 10**9
#: the id of the Swiss bye (never an entrant's: ids are account ids)
BYE = "~bye"


# ------------------------------------------------------------------ matching
def best_matching(
    ids: Sequence[str],
    cost: Callable[[str, str], int],
    budget: int = STEP_BUDGET,
) -> list[tuple[str, str]]:
    """A perfect matching of ``ids`` (an even number of them, in the order to try them)
    of the least total ``cost``; exact unless the search takes more than ``budget``
    steps."""
    n = len(ids)
    if n % 2:
        raise ValueError("an even number of ids is needed")
    if n == 0:
        return []
    costs = [[0 if i == j else cost(ids[i], ids[j]) for j in range(n)] for i in range(n)]
    # each vertex's partners from the cheapest, and its cheapest edge (the bound)
    order = [sorted((j for j in range(n) if j != i), key=costs[i].__getitem__) for i in range(n)]
    cheapest = [costs[i][order[i][0]] for i in range(n)]
    matched = [False] * n
    best: list[tuple[int, int]] = _greedy(n, costs, order)
    best_cost = sum(costs[a][b] for a, b in best)
    steps = 0
    current: list[tuple[int, int]] = []

    def search(spent: int, bound: int) -> None:
        nonlocal best, best_cost, steps
        steps += 1
        if steps > budget or spent + bound // 2 >= best_cost:
            return
        first = next((i for i in range(n) if not matched[i]), None)
        if first is None:
            best, best_cost = list(current), spent
            return
        matched[first] = True
        rest = bound - cheapest[first]
        for j in order[first]:
            if matched[j]:
                continue
            matched[j] = True
            current.append((first, j))
            search(spent + costs[first][j], rest - cheapest[j])
            current.pop()
            matched[j] = False
            if steps > budget:
                break
        matched[first] = False

    if best_cost > 0:
        search(0, sum(cheapest))
    return [(ids[a], ids[b]) for a, b in best]


def _greedy(n: int, costs: list[list[int]], order: list[list[int]]) -> list[tuple[int, int]]:
    """Each unmatched vertex in turn with its cheapest unmatched partner."""
    matched = [False] * n
    pairs = []
    for i in range(n):
        if matched[i]:
            continue
        j = next(j for j in order[i] if not matched[j])
        matched[i] = matched[j] = True
        pairs.append((i, j))
    return pairs


# ------------------------------------------------------------------ Swiss
@dataclass(frozen=True, slots=True)
class SwissEntrant:
    """An entrant as a round is paired: their points, whom they met, their byes, and how
    many more times they sat first than second (``seats``)."""

    id: str
    points: float = 0.0
    met: frozenset[str] = frozenset()
    byes: int = 0
    seats: int = 0


@dataclass(frozen=True, slots=True)
class SwissRound:
    """A round's pairs (first seat first) and the entrant with the bye, if any."""

    pairs: tuple[tuple[str, str], ...]
    bye: str | None = None


def swiss_round(entrants: Sequence[SwissEntrant]) -> SwissRound:
    """The next round's pairing (see the module's doc)."""
    if len({e.id for e in entrants}) != len(entrants) or any(e.id == BYE for e in entrants):
        raise ValueError("entrants' ids must be distinct")
    by_id = {e.id: e for e in entrants}
    ranked = sorted(entrants, key=lambda e: (-e.points, e.id))
    ids = [e.id for e in ranked]
    # the bye is a phantom entrant below everyone, whom a player meets at most once
    low = min((e.points for e in entrants), default=0.0) - 1
    if len(ids) % 2:
        ids.append(BYE)

    def points(x: str) -> float:
        return low if x == BYE else by_id[x].points

    def cost(a: str, b: str) -> int:
        if BYE in (a, b):  # a second bye: never while someone has had none
            repeat = REMATCH * len(ids) * (by_id[b if a == BYE else a].byes > 0)
        else:
            repeat = REMATCH * (b in by_id[a].met)
        gap = round(2 * (points(a) - points(b)))
        clash = 0
        if BYE not in (a, b):
            sa, sb = by_id[a].seats, by_id[b].seats
            # both owe the same seat: one of them will not get it (worse the more owed)
            clash = min(abs(sa), abs(sb), 9) ** 2 * 10 if sa * sb > 0 else 0
        return repeat + 1000 * gap * gap + clash

    bye = None
    pairs = []
    for a, b in best_matching(ids, cost):
        if BYE in (a, b):
            bye = b if a == BYE else a
            continue
        pairs.append(_seated(by_id[a], by_id[b]))
    pairs.sort(key=lambda p: (-max(by_id[p[0]].points, by_id[p[1]].points), p))
    return SwissRound(tuple(pairs), bye)


def _seated(a: SwissEntrant, b: SwissEntrant) -> tuple[str, str]:
    """The pair with the first seat to whoever sat first less often (a tie: the higher
    score, then the id)."""
    if (a.seats, -a.points, a.id) <= (b.seats, -b.points, b.id):
        return a.id, b.id
    return b.id, a.id


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game of a tournament: who sat first, second, and who won (``None``
    for a draw: a match abandoned by both)."""

    first: str
    second: str
    winner: str | None


@dataclass(slots=True)
class Standing:
    """An entrant's line of the standings."""

    id: str
    points: float = 0.0
    buchholz: float = 0.0
    played: int = 0
    wins: int = 0
    byes: int = 0
    met: set[str] = field(default_factory=set)
    seats: int = 0
    #: arena only: whether the entrant is on fire (two wins in a row)
    fire: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "points": self.points,
            "buchholz": self.buchholz,
            "played": self.played,
            "wins": self.wins,
            "byes": self.byes,
            "fire": self.fire,
        }


def swiss_standings(
    entrants: Iterable[str], games: Iterable[Game], byes: Iterable[str] = ()
) -> list[Standing]:
    """Everyone's points (1 a win, ½ a draw, 1 a bye) and Buchholz, best first."""
    table = {x: Standing(x) for x in entrants}
    for game in games:
        first, second = table[game.first], table[game.second]
        first.seats += 1
        second.seats -= 1
        for me, other in ((first, second), (second, first)):
            me.played += 1
            me.met.add(other.id)
            if game.winner == me.id:
                me.points += 1
                me.wins += 1
            elif game.winner is None:
                me.points += 0.5
    for x in byes:
        table[x].points += 1
        table[x].byes += 1
    for line in table.values():
        line.buchholz = sum(table[o].points for o in line.met)
    return sorted(table.values(), key=lambda s: (-s.points, -s.buchholz, s.id))


def swiss_entrants(standings: Iterable[Standing]) -> list[SwissEntrant]:
    """The standings as the next round's entrants."""
    return [SwissEntrant(s.id, s.points, frozenset(s.met), s.byes, s.seats) for s in standings]


# ------------------------------------------------------------------ arena
@dataclass(frozen=True, slots=True)
class ArenaEntrant:
    """A free entrant of an arena: their points and the rival of their last game."""

    id: str
    points: int = 0
    last_rival: str | None = None
    seats: int = 0


def arena_pairs(free: Sequence[ArenaEntrant]) -> list[tuple[str, str]]:
    """Pairs of the free entrants (first seat first): as many as there can be, the
    fewest with the rival just played, then the closest in points. With an odd number
    free, the one left waits (the longest free are listed first, and left last)."""
    if len({e.id for e in free}) != len(free):
        raise ValueError("entrants' ids must be distinct")
    if len(free) < 2:
        return []
    by_id = {e.id: e for e in free}
    ids = [e.id for e in free]
    wait = "~wait"  # the phantom whom the one left out is paired with
    if len(ids) % 2:
        ids.append(wait)

    def cost(a: str, b: str) -> int:
        if wait in (a, b):
            other = b if a == wait else a
            return 10**6 * (len(ids) - ids.index(other))  # the most recently free waits
        ea, eb = by_id[a], by_id[b]
        repeat = ea.last_rival == b or eb.last_rival == a
        return REMATCH * repeat + abs(ea.points - eb.points) * 1000

    pairs = []
    for a, b in best_matching(ids, cost):
        if wait in (a, b):
            continue
        ea, eb = by_id[a], by_id[b]
        pairs.append((a, b) if (ea.seats, a) <= (eb.seats, b) else (b, a))
    return pairs


def arena_game_points(won: bool, drew: bool, fire: bool) -> int:
    """What one game is worth: 2 a win, 1 a draw, 0 a loss; double on fire."""
    base = 2 if won else 1 if drew else 0
    return base * 2 if fire else base


def arena_points(entrants: Iterable[str], games: Iterable[Game]) -> list[Standing]:
    """Everyone's arena points from the games in the order they ended, best first (a
    tie: more wins, then the id)."""
    table = {x: Standing(x) for x in entrants}
    streak: dict[str, int] = dict.fromkeys(table, 0)
    for game in games:
        for me, other in ((game.first, game.second), (game.second, game.first)):
            line = table[me]
            won, drew = game.winner == me, game.winner is None
            line.points += arena_game_points(won, drew, streak[me] >= 2)
            line.played += 1
            line.wins += won
            line.met.add(other)
            streak[me] = streak[me] + 1 if won else 0
        table[game.first].seats += 1
        table[game.second].seats -= 1
    for x, line in table.items():
        line.fire = streak[x] >= 2
    return sorted(table.values(), key=lambda s: (-s.points, -s.wins, s.id))


def last_rivals(games: Iterable[Game]) -> Mapping[str, str]:
    """Each entrant's rival in their last game (games in the order they ended)."""
    last: dict[str, str] = {}
    for game in games:
        last[game.first] = game.second
        last[game.second] = game.first
    return last
