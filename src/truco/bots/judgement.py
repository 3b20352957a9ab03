"""Small judgements a player makes from its own cards and the table.

Shared by the rule-based bot and the search bot's rollout policy; they read only a
seat's own cards and the cards on the table, never anything hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ..cards import STRENGTH, tanto
from ..game import round_winner

if TYPE_CHECKING:
    from ..view import SeatView

#: Strength of the lowest card a beginner calls "good" (the 2s and above).
GOOD = 8
#: The 3s and above.
VERY_GOOD = 9


def lowest(cards: Sequence[int]) -> int:
    return min(cards, key=STRENGTH.__getitem__)


def highest(cards: Sequence[int]) -> int:
    return max(cards, key=STRENGTH.__getitem__)


def cheapest_winner(cards: Sequence[int], to_beat: int) -> int | None:
    """The weakest of ``cards`` that beats strength ``to_beat``, or ``None``."""
    winners = [c for c in cards if STRENGTH[c] > to_beat]
    return lowest(winners) if winners else None


def follow(cards: Sequence[int], table: Sequence[tuple[int, int]], team: int) -> int:
    """The card to play on a baza others have started: the cheapest card that wins it,
    the lowest if the partner already wins it or nothing wins it."""
    if not table:
        return highest(cards)
    best_rival = max((STRENGTH[c] for s, c in table if s & 1 != team), default=-1)
    best_ours = max((STRENGTH[c] for s, c in table if s & 1 == team), default=-1)
    if best_ours > best_rival:
        return lowest(cards)
    winner = cheapest_winner(cards, best_rival)
    if winner is not None:
        return winner
    tie = [c for c in cards if STRENGTH[c] == best_rival]
    return tie[0] if tie and best_ours < best_rival else lowest(cards)


def _card_power(strength: int) -> float:
    if strength >= 11:
        return 0.45
    if strength >= 10:
        return 0.35
    if strength >= VERY_GOOD:
        return 0.25
    if strength >= GOOD:
        return 0.15
    return 0.05 * strength / 7


#: Each card's share of :func:`hand_power`.
CARD_POWER: tuple[float, ...] = tuple(_card_power(STRENGTH[c]) for c in range(40))

_TANTO_CACHE: dict[tuple[int, ...], int] = {}


def hand_tanto(dealt: tuple[int, ...]) -> int:
    """:func:`~truco.cards.tanto` of a dealt hand, memoized (rollouts ask it often)."""
    value = _TANTO_CACHE.get(dealt)
    if value is None:
        value = _TANTO_CACHE[dealt] = tanto(dealt)
    return value


def hand_power(cards: Sequence[int], results: Sequence[int], team: int) -> float:
    """A rough chance-like score in [0, 1] of winning the hand's bazas: bazas won and
    lost so far, and the strength of the cards still held."""
    score = 0.0
    strong = False
    for c in cards:
        score += CARD_POWER[c]
        strong = strong or STRENGTH[c] >= VERY_GOOD
    if results:
        won = results.count(team)
        lost = results.count(1 - team)
        score += 0.4 * (won - lost)
        if lost and not won and not strong:
            score -= 0.2
    return 0.0 if score < 0.0 else min(score, 1.0)


def _win_share(card: int) -> float:
    """The chance that ``card`` takes a baza from one unseen card (a parda counts half)."""
    mine = STRENGTH[card]
    lower = sum(1 for c in range(40) if STRENGTH[c] < mine)
    equal = sum(1 for c in range(40) if c != card and STRENGTH[c] == mine)
    return (lower + 0.5 * equal) / 39


#: Each card's chance of taking a baza from one unseen card.
WIN_SHARE: tuple[float, ...] = tuple(_win_share(c) for c in range(40))


def _chance(results: tuple[int, ...], chances: tuple[float, ...], team: int, mano: int) -> float:
    decided = round_winner(results, mano)
    if decided is not None or not chances:
        return 1.0 if decided == team else 0.0
    p, rest = chances[0], chances[1:]
    won = _chance((*results, team), rest, team, mano) if p > 0.0 else 0.0
    lost = _chance((*results, 1 - team), rest, team, mano) if p < 1.0 else 0.0
    return p * won + (1.0 - p) * lost


def table_power(
    cards: Sequence[int],
    results: Sequence[int],
    table: Sequence[tuple[int, int]],
    team: int,
    mano_team: int,
) -> float:
    """The chance of winning the hand from here, reading the table: the current baza
    by the cards on it (our cheapest card that wins it, when the rivals' are down), and
    each baza left by how often our next best card beats one unseen card. Unlike
    :func:`hand_power`, a won baza is worth nothing without the cards to take another,
    and a 12 kept for the last baza is worth what it beats.

    >>> from truco.cards import parse_card as c
    >>> round(table_power([c("4e")], [0], [(0, c("6c"))], 0, 0), 2)  # led the 6, the 4 left
    0.27
    >>> round(table_power([c("4e")], [0], [(0, c("6c")), (1, c("2c"))], 0, 0), 2)  # beaten
    0.04
    >>> round(table_power([c("2c"), c("12o")], [0], [(0, c("6c"))], 1, 0), 2)  # the rival's
    0.76
    >>> round(hand_power([c("2c"), c("12o")], [0], 1), 2)  # a lost baza, whatever it holds
    0.0
    """
    return _table_power(tuple(cards), tuple(results), tuple(table), team, mano_team)


def view_power(view: SeatView, team: int, read_table: bool = False) -> float:
    """The seat's strength for a truco: :func:`hand_power`, or with ``read_table`` once a
    card of the hand is down, :func:`table_power` (the chance of taking the bazas left)."""
    results = view.baza_results
    table = view.bazas[len(results)] if len(view.bazas) > len(results) else ()
    if read_table and (results or table):
        return table_power(view.hand, results, table, team, view.mano & 1)
    return hand_power(view.hand, results, team)


# rollouts ask the same positions again and again
@lru_cache(maxsize=1 << 16)
def _table_power(
    cards: tuple[int, ...],
    results: tuple[int, ...],
    table: tuple[tuple[int, int], ...],
    team: int,
    mano_team: int,
) -> float:
    ours = theirs = best = -1
    for seat, card in table:
        value = STRENGTH[card]
        if seat & 1 == team:
            if value > ours:
                ours, best = value, card
        elif value > theirs:
            theirs = value
    left = sorted(cards, key=STRENGTH.__getitem__, reverse=True)
    chances: list[float] = []
    if table:
        if ours >= 0 and theirs >= 0:
            chances.append(1.0 if ours > theirs else 0.0 if ours < theirs else 0.5)
        elif ours >= 0:
            chances.append(WIN_SHARE[best])
        elif left:
            winner = cheapest_winner(left, theirs)
            if winner is None:
                tie = [c for c in left if STRENGTH[c] == theirs]
                winner = tie[0] if tie else left[-1]
            value = STRENGTH[winner]
            chances.append(1.0 if value > theirs else 0.5 if value == theirs else 0.0)
            left.remove(winner)
    for card in left:
        chances.append(WIN_SHARE[card])
    return _chance(results, tuple(chances), team, mano_team)
