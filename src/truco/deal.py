"""Where the cards of each hand come from.

A dealer gives the three cards of every seat for hand number ``hand_index`` (counted
from 0 over the whole match). Every hand is dealt from a fresh full deck.

- :class:`SecureDealer` (the default): the operating system's cryptographically secure
  generator; nobody can predict a deal.
- :class:`SeededDealer`: reproducible from a seed, hand by hand (records, tests, arenas);
  a record that carries ``seed`` instead of ``deal`` is replayed with it.
- :class:`StreamDealer`: draws from a ``random.Random`` you own (fast; simulations).
- :class:`CommittedDealer`: whole decks sealed with a salt, drawn from a secret key per
  match, for provably fair deals (commit before the hand, reveal after: :mod:`truco.fairness`).
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol

from .cards import DECK
from .fairness import KEY_BYTES, SealedDeck

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
    """Deals hand ``h`` from a whole deck sealed with a salt (:class:`~truco.fairness.SealedDeck`),
    both drawn from one secret ``key`` per match (:meth:`SealedDeck.derive`), so the hand's
    commitment can be published before anyone sees a card and the deck revealed later.
    Keeping the key (server-side) is keeping every hand's deck: a restarted server deals
    and reveals exactly what it committed to. Hands before ``first_hand`` are not its own
    (a match that started before it took over): they have no sealed deck.

    >>> dealer = CommittedDealer()
    >>> dealer.deal(4, 0) == dealer.sealed(0).deal(4) == CommittedDealer(dealer.key).deal(4, 0)
    True
    """

    def __init__(self, key: bytes | None = None, first_hand: int = 0) -> None:
        self.key = key if key is not None else secrets.token_bytes(KEY_BYTES)
        self.first_hand = first_hand
        self._sealed: dict[int, SealedDeck] = {}

    def sealed(self, hand: int) -> SealedDeck | None:
        """Hand ``hand``'s sealed deck (None before :attr:`first_hand`)."""
        if hand < self.first_hand:
            return None
        sealed = self._sealed.get(hand)
        if sealed is None:
            sealed = self._sealed[hand] = SealedDeck.derive(self.key, hand)
        return sealed

    def sealed_decks(self, hands: int) -> dict[int, SealedDeck]:
        """The sealed decks of hands ``0 .. hands-1`` that have one."""
        return {h: sealed for h in range(hands) if (sealed := self.sealed(h)) is not None}

    def deal(self, players: int, hand_index: int) -> Deal:
        sealed = self.sealed(hand_index)
        if sealed is None:
            raise ValueError(f"hand {hand_index} comes before this dealer's first hand")
        return sealed.deal(players)
