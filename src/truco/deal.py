"""Where the cards of each hand come from.

A dealer gives the three cards of every seat for hand number ``hand_index`` (counted
from 0 over the whole match). Every hand is dealt from a fresh full deck.

- :class:`SecureDealer` (the default): the operating system's cryptographically secure
  generator; nobody can predict a deal.
- :class:`SeededDealer`: reproducible from a seed, hand by hand (records, tests, arenas);
  a record that carries ``seed`` instead of ``deal`` is replayed with it.
- :class:`StreamDealer`: draws from a ``random.Random`` you own (fast; simulations).
- :class:`CommittedDealer`: the secure shuffle of a whole deck, sealed with a salt, for
  provably fair deals (commit before the hand, reveal after: :mod:`truco.fairness`).
"""

from __future__ import annotations

import random
from typing import Protocol

from .cards import DECK
from .fairness import SealedDeck

Deal = tuple[tuple[int, ...], ...]


class Dealer(Protocol):
    def deal(self, players: int, hand_index: int) -> Deal: ...


def _split(cards: list[int], players: int) -> Deal:
    return tuple(tuple(cards[3 * i : 3 * i + 3]) for i in range(players))


class SecureDealer:
    """Deals with :class:`random.SystemRandom` (``os.urandom``)."""

    def __init__(self) -> None:
        self._rng = random.SystemRandom()

    def deal(self, players: int, hand_index: int) -> Deal:
        return _split(self._rng.sample(DECK, 3 * players), players)


class SeededDealer:
    """The deal of hand ``h`` depends only on ``(seed, h)``: any hand can be reproduced
    without the ones before it.

    >>> SeededDealer(7).deal(2, 3) == SeededDealer(7).deal(2, 3)
    True
    """

    def __init__(self, seed: int | str) -> None:
        self.seed = seed

    def deal(self, players: int, hand_index: int) -> Deal:
        rng = random.Random(f"truco-record/1:{self.seed}:{hand_index}")
        return _split(rng.sample(DECK, 3 * players), players)


class StreamDealer:
    """Draws deals from a ``random.Random`` you own (cheap; for simulations).

    Hand ``h``'s deal is drawn the first time a game asks for it and then kept, so
    games that share the dealer (a game and its clones) see the same deal for the
    same hand whatever order they ask in: a clone never changes the original's
    future. Use a new dealer for each new match.

    It is a partial Fisher-Yates shuffle driven by ``random()``: the bias of scaling a
    53-bit float to at most 40 choices is below 1e-14, irrelevant for simulations (the
    secure and seeded dealers use exact sampling).
    """

    def __init__(self, rng: random.Random | int | None = None) -> None:
        self.rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        self._deals: dict[int, Deal] = {}

    def deal(self, players: int, hand_index: int) -> Deal:
        cards = self._deals.get(hand_index)
        if cards is None:
            cards = self._deals[hand_index] = self._draw(players)
        return cards

    def _draw(self, players: int) -> Deal:
        deck = list(DECK)
        uniform = self.rng.random
        for i in range(3 * players):
            j = i + int(uniform() * (40 - i))
            deck[i], deck[j] = deck[j], deck[i]
        if players == 2:
            return ((deck[0], deck[1], deck[2]), (deck[3], deck[4], deck[5]))
        return _split(deck, players)


# ---------------------------------------------------------------- commit-reveal dealing
class CommittedDealer:
    """Deals each hand from a whole deck shuffled securely and sealed with a secret salt
    (:class:`~truco.fairness.SealedDeck`), so the hand's commitment can be published
    before anyone sees a card and the deck revealed when the hand closes.

    ``decks`` keeps every hand's sealed deck by hand index; a deck put there before the
    hand is dealt (a server restarted mid-match) is the one the hand is dealt from.

    >>> dealer = CommittedDealer()
    >>> deal = dealer.deal(4, 0)
    >>> deal == dealer.decks[0].deal(4) == dealer.deal(4, 0)
    True
    """

    def __init__(self, decks: dict[int, SealedDeck] | None = None) -> None:
        self.decks: dict[int, SealedDeck] = dict(decks or {})

    def deal(self, players: int, hand_index: int) -> Deal:
        sealed = self.decks.get(hand_index)
        if sealed is None:
            sealed = self.decks[hand_index] = SealedDeck.shuffle(hand_index)
        return sealed.deal(players)
