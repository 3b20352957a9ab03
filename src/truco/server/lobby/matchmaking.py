"""Quick match ("Jugar ya"): who plays with whom, decided without any I/O.

A queue per :class:`QueueKey` (1v1/2v2/3v3, con/sin flor, to 15/30, rated or casual)
holds :class:`Ticket` s. :func:`pair` forms tables from one queue: the player who has
waited longest goes first, with the players closest to them in rating, as long as
the group's rating spread fits every member's window (:class:`Policy`: it widens the
longer one waits); 2v2/3v3 teams are split so their rating sums are as close as they
can be (:func:`balanced_teams`). A casual ticket may ask for bots after a wait it
chooses: then the players near it are seated and bots fill the rest; rated queues
never get bots.

:class:`MemoryQueue` keeps the queues of one process (the embedded server);
:mod:`.redis_queue` keeps them in Redis, shared by every node.

>>> key = QueueKey.parse("1v1-sinflor-15-rated")
>>> ana, beto = Ticket("a", "Ana", 1500, 0.0), Ticket("b", "Beto", 1560, 0.0)
>>> [p.names() for p in pair(key, [ana, beto], now=0.0)]
[['Ana', 'Beto']]
>>> pair(key, [ana, Ticket("c", "Cami", 1900, 0.0)], now=0.0)  # too far apart for now
[]
>>> len(pair(key, [ana, Ticket("c", "Cami", 1900, 0.0)], now=60.0))  # until they waited
1
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ...rules import Rules

MODES = {"1v1": 2, "2v2": 4, "3v3": 6}
TARGETS = (15, 30)
#: the longest wait a casual player may choose before bots fill the table
MAX_BOTS_AFTER = 600.0


class QueueError(ValueError):
    """A request the queue refuses (a bad queue name, a second ticket); one line.
    ``queue``: the queue the player already waits in, for a second ticket."""

    queue = ""

    @classmethod
    def already(cls, queue: object) -> QueueError:
        """The player already holds a ticket, in ``queue``."""
        error = cls(f"you are already waiting in the {queue} queue")
        error.queue = str(queue)
        return error


@dataclass(frozen=True, slots=True, order=True)
class QueueKey:
    """One queue: the table every player in it wants."""

    players: int  # 2, 4 or 6
    flor: bool
    target: int  # 15 or 30
    rated: bool

    def __post_init__(self) -> None:
        if self.players not in MODES.values():
            raise QueueError(f"players: 2, 4 or 6, not {self.players!r}")
        if self.target not in TARGETS:
            raise QueueError(f"target: 15 or 30, not {self.target!r}")

    @property
    def mode(self) -> str:
        """``1v1``, ``2v2`` or ``3v3``: the ratings' mode."""
        return f"{self.players // 2}v{self.players // 2}"

    def __str__(self) -> str:
        flor = "flor" if self.flor else "sinflor"
        return f"{self.mode}-{flor}-{self.target}-{'rated' if self.rated else 'casual'}"

    @classmethod
    def parse(cls, text: str) -> QueueKey:
        """The key of a queue's name (``1v1-sinflor-15-rated``)."""
        parts = str(text).split("-")
        if (
            len(parts) != 4
            or parts[0] not in MODES
            or parts[1] not in ("flor", "sinflor")
            or parts[2] not in ("15", "30")
            or parts[3] not in ("rated", "casual")
        ):
            raise QueueError(
                f"no queue {str(text)[:40]!r}: mode-flor-target-kind, ex. 1v1-sinflor-15-rated"
            )
        return cls(MODES[parts[0]], parts[1] == "flor", int(parts[2]), parts[3] == "rated")

    def rules(self) -> Rules:
        """The options of the tables this queue forms (the rest are the defaults)."""
        return Rules(players=self.players, flor=self.flor, target=self.target)


@dataclass(frozen=True, slots=True)
class Ticket:
    """A player waiting in a queue since ``joined_at`` (seconds, any clock the
    queue shares); ``bots_after``: the casual wait before bots fill the table."""

    player_id: str
    name: str
    rating: float
    joined_at: float
    bots_after: float | None = None
    #: the players this one must not be seated with (blocks, either way: friends.py)
    avoid: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, object]:
        return {
            "player_id": self.player_id,
            "name": self.name,
            "rating": self.rating,
            "joined_at": self.joined_at,
            "bots_after": self.bots_after,
            "avoid": sorted(self.avoid),
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Ticket:
        bots = data.get("bots_after")
        return cls(
            str(data["player_id"]),
            str(data["name"]),
            float(data["rating"]),  # type: ignore[arg-type]
            float(data["joined_at"]),  # type: ignore[arg-type]
            None if bots is None else float(bots),  # type: ignore[arg-type]
            frozenset(str(x) for x in data.get("avoid") or ()),  # type: ignore[attr-defined]
        )


@dataclass(frozen=True, slots=True)
class Policy:
    """How far apart in rating players may be: ``base`` at once, ``widen`` more
    every second they wait, never more than ``widest``."""

    base: float = 100.0
    widen: float = 10.0
    widest: float = math.inf

    def window(self, waited: float) -> float:
        return min(self.widest, self.base + self.widen * max(0.0, waited))


@dataclass(frozen=True, slots=True)
class Pairing:
    """A table the queue formed: ``seats[s]`` is the ticket seated at ``s`` (team
    ``s % 2``), ``None`` for a bot."""

    key: QueueKey
    seats: tuple[Ticket | None, ...]

    def tickets(self) -> list[Ticket]:
        return [t for t in self.seats if t is not None]

    def names(self) -> list[str]:
        return [t.name if t else "bot" for t in self.seats]

    def team_ratings(self, bot_rating: float | None = None) -> tuple[float, float]:
        """The sum of each team's ratings (a bot counts as ``bot_rating``, by default
        the people's mean, as :func:`seat_teams` weighed it)."""
        people = self.tickets()
        stand_in = bot_rating if bot_rating is not None else _mean(t.rating for t in people)
        sums = [0.0, 0.0]
        for seat, ticket in enumerate(self.seats):
            sums[seat % 2] += ticket.rating if ticket else stand_in
        return sums[0], sums[1]


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def balanced_teams(ratings: Sequence[float]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The split of an even number of ratings into two equal teams whose sums differ
    the least (indexes into ``ratings``; ties go to the first split found).

    >>> balanced_teams([1000, 1100, 1200, 1300])
    ((0, 3), (1, 2))
    """
    size = len(ratings)
    if size % 2:
        raise ValueError("an even number of players makes two teams")
    everyone = range(size)
    best: tuple[float, tuple[int, ...]] | None = None
    # every split once: the first player's team picks the rest of its members
    for rest in itertools.combinations(range(1, size), size // 2 - 1):
        team = (0, *rest)
        ours = sum(ratings[i] for i in team)
        gap = abs(2 * ours - sum(ratings))
        if best is None or gap < best[0]:
            best = (gap, team)
    assert best is not None
    team = best[1]
    return team, tuple(i for i in everyone if i not in team)


def seat_teams(key: QueueKey, people: Sequence[Ticket]) -> Pairing:
    """Seat ``people`` (at most ``key.players``) in balanced teams; bots, counted at
    the people's mean rating, take the seats left."""
    if not 0 < len(people) <= key.players:
        raise ValueError(f"{len(people)} people for a {key.players}-player table")
    stand_in = _mean(t.rating for t in people)
    members: list[Ticket | None] = [*people, *([None] * (key.players - len(people)))]
    ratings = [t.rating if t else stand_in for t in members]
    ours, theirs = balanced_teams(ratings)
    seats: list[Ticket | None] = []
    for a, b in zip(ours, theirs, strict=True):
        seats += [members[a], members[b]]
    return Pairing(key, tuple(seats))


def _fits(group: Sequence[Ticket], now: float, policy: Policy) -> bool:
    """Every member accepts the group's rating spread, and nobody avoids another."""
    spread = max(t.rating for t in group) - min(t.rating for t in group)
    if any(t.avoid for t in group):
        ids = {t.player_id for t in group}
        if any(t.avoid & ids for t in group):
            return False
    return all(spread <= policy.window(now - t.joined_at) for t in group)


def _rating_order(ticket: Ticket) -> tuple[float, float, str]:
    return (ticket.rating, ticket.joined_at, ticket.player_id)


def _waiting_order(ticket: Ticket) -> tuple[float, str]:
    return (ticket.joined_at, ticket.player_id)


def _spread(group: Sequence[Ticket]) -> float:
    return max(t.rating for t in group) - min(t.rating for t in group)


def _closest_group(
    i: int, by_rating: Sequence[Ticket], size: int, now: float, policy: Policy
) -> int | None:
    """Where the ``size`` players around ``by_rating[i]`` in rating order with the
    smallest spread that fits everyone's window start, or ``None``."""
    best: tuple[float, int] | None = None
    for start in range(max(0, i - size + 1), min(i, len(by_rating) - size) + 1):
        group = by_rating[start : start + size]
        if _fits(group, now, policy) and (best is None or _spread(group) < best[0]):
            best = (_spread(group), start)
    return None if best is None else best[1]


def _nearest(
    i: int, by_rating: Sequence[Ticket], most: int, now: float, policy: Policy
) -> list[int]:
    """``by_rating[i]`` and up to ``most - 1`` of the players nearest it in rating that fit
    together, walking out on both sides: the group when no run of neighbours fits (someone
    in it keeps apart from another), or the people of a table bots complete."""
    anchor = by_rating[i]
    group, chosen = [anchor], [i]
    left, right = i - 1, i + 1
    for _ in range(4 * most):  # a few neighbours on each side: the far ones cannot fit
        if len(group) == most or (left < 0 and right >= len(by_rating)):
            break
        take_left = right >= len(by_rating) or (
            left >= 0
            and anchor.rating - by_rating[left].rating <= by_rating[right].rating - anchor.rating
        )
        j = left if take_left else right
        if take_left:
            left -= 1
        else:
            right += 1
        if _fits([*group, by_rating[j]], now, policy):
            group.append(by_rating[j])
            chosen.append(j)
    return chosen


def pair(
    key: QueueKey, tickets: Iterable[Ticket], now: float, policy: Policy | None = None
) -> list[Pairing]:
    """The tables one queue forms now; nobody is in two. Longest-waiting first."""
    policy = policy or Policy()
    free = sorted(tickets, key=_rating_order)
    if len({t.player_id for t in free}) != len(free):
        raise ValueError("a player holds two tickets")
    keys = [_rating_order(t) for t in free]
    tables: list[Pairing] = []
    for anchor in sorted(free, key=_waiting_order):
        i = bisect.bisect_left(keys, _rating_order(anchor))
        if i == len(keys) or keys[i] != _rating_order(anchor):
            continue  # seated already, with someone who waited longer
        start = _closest_group(i, free, key.players, now, policy)
        if start is not None:
            chosen = list(range(start, start + key.players))
        else:
            chosen = _nearest(i, free, key.players, now, policy)
            if len(chosen) < key.players and not wants_bots(key, anchor, now):
                continue
        group = [free[j] for j in chosen]
        for j in sorted(chosen, reverse=True):
            del free[j], keys[j]
        tables.append(seat_teams(key, sorted(group, key=_waiting_order)))
    return tables


def wants_bots(key: QueueKey, ticket: Ticket, now: float) -> bool:
    """A casual ticket that has waited as long as it chose before bots."""
    return (
        not key.rated
        and ticket.bots_after is not None
        and now - ticket.joined_at >= ticket.bots_after
    )


@dataclass
class MemoryQueue:
    """Every queue of one process. A player holds at most one ticket in all of them;
    :meth:`match` removes the paired tickets, so nobody is seated twice."""

    policy: Policy = field(default_factory=Policy)
    queues: dict[QueueKey, dict[str, Ticket]] = field(default_factory=dict)
    where: dict[str, QueueKey] = field(default_factory=dict)
    tables: dict[str, str] = field(default_factory=dict)  # player id -> table code to go to

    async def join(self, key: QueueKey, ticket: Ticket) -> None:
        """Queue ``ticket`` (:class:`QueueError` if its player holds one already)."""
        if ticket.player_id in self.where:
            raise QueueError.already(self.where[ticket.player_id])
        self.tables.pop(ticket.player_id, None)
        self.queues.setdefault(key, {})[ticket.player_id] = ticket
        self.where[ticket.player_id] = key

    async def leave(self, player_id: str) -> bool:
        """Take the player's ticket out; False if they held none."""
        key = self.where.pop(player_id, None)
        if key is None:
            return False
        del self.queues[key][player_id]
        return True

    async def waiting(self, player_id: str) -> QueueKey | None:
        return self.where.get(player_id)

    async def counts(self) -> dict[str, int]:
        return {str(k): len(q) for k, q in self.queues.items() if q}

    async def match(self, now: float) -> list[Pairing]:
        """Pair every queue; the paired tickets leave their queues."""
        formed: list[Pairing] = []
        for key, queue in self.queues.items():
            for pairing in pair(key, queue.values(), now, self.policy):
                for ticket in pairing.tickets():
                    del queue[ticket.player_id]
                    del self.where[ticket.player_id]
                formed.append(pairing)
        return formed

    async def announce(self, player_id: str, table: str) -> None:
        self.tables[player_id] = table

    async def announcement(self, player_id: str) -> str | None:
        """The table a paired player goes to (once: it is forgotten here)."""
        return self.tables.pop(player_id, None)

    async def close(self) -> None:
        return None
