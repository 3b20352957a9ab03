"""Small judgements a player makes from its own cards and the table.

Shared by the rule-based bot and the search bot's rollout policy; they read only a
seat's own cards and the cards on the table, never anything hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import STRENGTH, tanto

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
