"""The 40-card Spanish deck: notation, truco ranking, tanto and flor.

A card is a small integer ``0..39``: ``suit * 10 + rank_index``, suits in the order
espadas, bastos, oros, copas and ranks 1-7, 10, 11, 12. Everything the engine needs
about a card is a lookup in a precomputed table.

>>> card = parse_card("1e")
>>> card_name(card), STRENGTH[card] > STRENGTH[parse_card("1b")]
('1e', True)
>>> tanto([parse_card(c) for c in ("7o", "6o", "4c")])
33
>>> flor_value([parse_card(c) for c in ("7e", "6e", "5e")])
38
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SUITS = ("e", "b", "o", "c")
SUIT_NAMES = ("espadas", "bastos", "oros", "copas")
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)

DECK: tuple[int, ...] = tuple(range(40))

RANK: tuple[int, ...] = tuple(RANKS[c % 10] for c in DECK)
SUIT: tuple[int, ...] = tuple(c // 10 for c in DECK)
CARD_NAMES: tuple[str, ...] = tuple(f"{RANK[c]}{SUITS[SUIT[c]]}" for c in DECK)

#: Tanto value of each card: 1-7 their number, 10/11/12 worth 0.
TANTO_VALUE: tuple[int, ...] = tuple(r if r <= 7 else 0 for r in RANK)


def _strength(card: int) -> int:
    """Truco strength, higher beats lower; equal strengths are parda."""
    rank, suit = RANK[card], SUITS[SUIT[card]]
    special = {(1, "e"): 13, (1, "b"): 12, (7, "e"): 11, (7, "o"): 10}
    if (rank, suit) in special:
        return special[(rank, suit)]
    # 3 > 2 > false aces > 12 > 11 > 10 > false sevens > 6 > 5 > 4
    return {3: 9, 2: 8, 1: 7, 12: 6, 11: 5, 10: 4, 7: 3, 6: 2, 5: 1, 4: 0}[rank]


STRENGTH: tuple[int, ...] = tuple(_strength(c) for c in DECK)

_BY_NAME = {name: card for card, name in enumerate(CARD_NAMES)}


class CardError(ValueError):
    """A card written in a notation that names no card of the deck."""


def parse_card(text: str) -> int:
    """Parse ``<rank><suit>`` (case-insensitive) into a card number.

    >>> parse_card("12C") == parse_card("12c")
    True
    >>> parse_card("8e")
    Traceback (most recent call last):
    ...
    truco.cards.CardError: no such card: '8e' (ranks 1-7, 10, 11, 12; suits e, b, o, c)
    """
    card = _BY_NAME.get(text.strip().lower()) if isinstance(text, str) else None
    if card is None:
        raise CardError(f"no such card: {text!r} (ranks 1-7, 10, 11, 12; suits e, b, o, c)")
    return card


def card_name(card: int) -> str:
    """The notation of a card, lower case (``"7o"``)."""
    return CARD_NAMES[card]


def tanto(cards: Iterable[int]) -> int:
    """Envido points of a hand: two of a suit sum + 20 (three of a suit: the two
    highest), otherwise the highest single value. Always in 0-7 or 20-33."""
    best = 0
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        value = TANTO_VALUE[c]
        best = max(best, value)
        by_suit.setdefault(SUIT[c], []).append(value)
    for values in by_suit.values():
        if len(values) >= 2:
            values.sort(reverse=True)
            best = max(best, 20 + values[0] + values[1])
    return best


_TANTO_CACHE: dict[int, int] = {}


def hand_tanto(hand: Sequence[int]) -> int:
    """:func:`tanto` of a dealt hand, memoized by the set of its cards (there are only
    9,880 three-card hands)."""
    key = (1 << hand[0]) | (1 << hand[1]) | (1 << hand[2])
    value = _TANTO_CACHE.get(key)
    if value is None:
        value = _TANTO_CACHE[key] = tanto(hand)
    return value


def tanto_cards(cards: Sequence[int]) -> tuple[int, ...]:
    """The cards that make up a hand's tanto (shown when its envido wins)."""
    target = hand_tanto(cards) if len(cards) == 3 else tanto(cards)
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            if SUIT[a] == SUIT[b] and 20 + TANTO_VALUE[a] + TANTO_VALUE[b] == target:
                return (a, b)
    for c in cards:
        if TANTO_VALUE[c] == target:
            return (c,)
    return (cards[0],)


def has_flor(cards: Sequence[int]) -> bool:
    """Three cards of one suit."""
    return len(cards) == 3 and SUIT[cards[0]] == SUIT[cards[1]] == SUIT[cards[2]]


def flor_value(cards: Sequence[int]) -> int:
    """A flor's value: 20 plus all three cards (figures worth 0); at most 38."""
    return 20 + sum(TANTO_VALUE[c] for c in cards)
