"""Determinization: full games consistent with what one seat has seen.

A search bot does not know the other seats' unplayed cards. :func:`sample_game` deals
them again at random, among the deals that agree with everything public in the seat's
:class:`~truco.view.SeatView`: the cards played, the tantos declared and the "son buenas"
(at most the best tanto declared before), the flores sung or not sung, and the calls and
answers of the hand (each one must be legal in the sampled world). The viewer's own cards
are kept. The engine is the judge: the sampled hand is rebuilt with
:meth:`Game.at_position` and the hand's public log is replayed with :meth:`Game.apply`;
a deal under which any action is illegal, or whose showdowns, calls or turn differ from
the view, is rejected and drawn again.

Seats with a declared tanto or a sung flor are drawn from the hands that fit them (an
enumeration cached per view), so sampling stays fast even for a rare tanto.

>>> import random
>>> from truco import Game, Rules
>>> from truco.view import seat_view
>>> game = Game(Rules(), seed=5)
>>> view = seat_view(game, 0)
>>> world = sample_game(view, random.Random(1))
>>> world.hand_cards(0) == view.hand, seat_view(world, 0) == view
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

from .actions import (
    CON_FLOR_ME_ACHICO,
    CONTRAFLOR,
    ENVIDO,
    FLOR,
    TRUCO,
    VALE_CUATRO,
    is_say,
)
from .cards import DECK, has_flor, tanto
from .deal import StreamDealer
from .game import PENDING_NAMES, Game
from .view import SeatView

__all__ = ["Determinizer", "InconsistentView", "sample_deal", "sample_game"]

#: How likely a player is to take an action in a game state (a model of the players).
Likelihood = Callable[[Game, int, int], float]

#: Attempts before :func:`sample_game` gives up on a view (it never should).
MAX_ATTEMPTS = 20_000


class InconsistentView(ValueError):
    """No deal agrees with the view (a view not made by the engine, or a bug)."""


@dataclass(frozen=True, slots=True)
class SeatConstraint:
    """What the public record says about one seat's three dealt cards."""

    seat: int
    known: tuple[int, ...]  # its cards already played
    tanto_is: int | None = None  # it declared this tanto
    tanto_at_most: int | None = None  # it said "son buenas" to this best tanto
    flor: bool | None = None  # sang flor (True), shown to hold none (False), unknown (None)
    size: int = 3  # the cards a seat is dealt (``Rules.hand_size``: 1 or 2 in mini-truco)

    @property
    def missing(self) -> int:
        return self.size - len(self.known)

    @property
    def is_free(self) -> bool:
        return self.tanto_is is None and self.tanto_at_most is None and self.flor is None

    def accepts(self, hidden: tuple[int, ...]) -> bool:
        cards = self.known + hidden
        if self.flor is not None and has_flor(cards) != self.flor:
            return False
        if self.tanto_is is not None or self.tanto_at_most is not None:
            value = tanto(cards)
            if self.tanto_is is not None and value != self.tanto_is:
                return False
            if self.tanto_at_most is not None and value > self.tanto_at_most:
                return False
        return True


def seat_constraints(view: SeatView) -> dict[int, SeatConstraint]:
    """The public facts about every other seat's cards, read from the view."""
    assert view.seat is not None
    n = view.rules.players
    known: dict[int, list[int]] = {s: [] for s in range(n)}
    for seat, card in view.played:
        known[seat].append(card)
    tanto_is: dict[int, int] = {}
    tanto_at_most: dict[int, int] = {}
    for showdown in view.showdowns:
        best = -1
        for word in showdown:
            if word.tanto is None:
                tanto_at_most[word.seat] = best
            else:
                tanto_is[word.seat] = word.tanto
                best = max(best, word.tanto)
    flor: dict[int, bool] = {}
    if view.rules.flor:
        # flor_sung covers the current round; in pica-pica earlier rounds are in the log
        sung = set(view.flor_sung) | {
            seat for seat, action in view.log if action in (FLOR, CON_FLOR_ME_ACHICO, CONTRAFLOR)
        }
        for s in sung:
            flor[s] = True
        for seat, action in view.log:
            # an unsung flor holder may only sing or leave: playing or calling shows none
            if seat not in sung and (
                action < 40 or ENVIDO <= action < FLOR or TRUCO <= action <= VALE_CUATRO
            ):
                flor[seat] = False
    size = view.rules.hand_size
    return {
        s: SeatConstraint(
            s, tuple(known[s]), tanto_is.get(s), tanto_at_most.get(s), flor.get(s), size
        )
        for s in range(n)
        if s != view.seat
    }


@lru_cache(maxsize=3)
def _hands(
    size: int = 3,
) -> tuple[dict[int, list[tuple[int, tuple[int, ...]]]], list[tuple[int, tuple[int, ...]]]]:
    """Every hand of ``size`` cards as ``(bitmask, cards)``: grouped by tanto, and the
    flores."""
    by_tanto: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
    flores: list[tuple[int, tuple[int, ...]]] = []
    for hand in combinations(DECK, size):
        entry = (_mask(hand), hand)
        by_tanto.setdefault(tanto(hand), []).append(entry)
        if has_flor(hand):
            flores.append(entry)
    return by_tanto, flores


def _mask(cards: tuple[int, ...] | list[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


class Determinizer:
    """Samples deals and games for one view; build it once, sample many times."""

    def __init__(self, view: SeatView) -> None:
        if view.seat is None:
            raise ValueError("a spectator's view has no seat to determinize for")
        if view.winner is not None:
            raise ValueError("the match is over: there is nothing to sample")
        self.view = view
        self.seat = view.seat
        self.waiting = not view.dealt
        self.constraints = seat_constraints(view)
        seen = set(view.dealt) | {card for _, card in view.played}
        self.pool = tuple(c for c in DECK if c not in seen)
        self.free = [c for c in self.constraints.values() if c.is_free]
        #: seats drawn from an enumeration of the hands that fit them (rare facts)
        self.listed: list[tuple[SeatConstraint, list[tuple[int, ...]]]] = []
        #: seats drawn at random and kept if they fit (facts most hands satisfy)
        self.filtered: list[SeatConstraint] = []
        pool_mask = _mask(self.pool)
        by_tanto, flores = _hands(view.rules.hand_size)
        for c in self.constraints.values():
            if c.is_free:
                continue
            if c.flor or c.tanto_is is not None:
                table = flores if c.flor else by_tanto.get(c.tanto_is or 0, [])
                known = _mask(c.known)
                allowed = pool_mask | known
                hands = [
                    tuple(x for x in cards if x not in c.known)
                    for mask, cards in table
                    if mask & known == known and mask & ~allowed == 0
                ]
                hands = [h for h in hands if c.accepts(h)]
                if not hands:
                    raise InconsistentView(f"no hand fits the public record of seat {c.seat}")
                self.listed.append((c, hands))
            else:
                self.filtered.append(c)
        self.listed.sort(key=lambda item: len(item[1]))
        self.log = view.log
        self.expected = _public_state_of_view(view)

    def sample_deal(self, rng: random.Random) -> tuple[tuple[int, ...], ...]:
        """One deal that fits the per-seat facts (not yet checked against the log)."""
        randbelow = rng._randbelow  # type: ignore[attr-defined]
        hidden: dict[int, tuple[int, ...]] = {}
        for _ in range(MAX_ATTEMPTS):
            used: set[int] = set()
            for constraint, hands in self.listed:
                for _ in range(50):
                    hand = hands[randbelow(len(hands))]
                    if used.isdisjoint(hand):
                        break
                else:
                    break
                used.update(hand)
                hidden[constraint.seat] = hand
            else:
                rest = [c for c in self.pool if c not in used]
                if self._draw_filtered(rest, hidden, rng):
                    break
        else:
            raise InconsistentView("no deal fits the public record of the hand")
        rng.shuffle(rest)
        i = 0
        for constraint in self.free:
            k = constraint.missing
            hidden[constraint.seat] = tuple(rest[i : i + k])
            i += k
        return tuple(
            tuple(self.view.dealt) if s == self.seat else self.constraints[s].known + hidden[s]
            for s in range(self.view.rules.players)
        )

    def _draw_filtered(
        self, rest: list[int], hidden: dict[int, tuple[int, ...]], rng: random.Random
    ) -> bool:
        """Draw the loosely constrained seats from ``rest`` (removing their cards)."""
        for constraint in self.filtered:
            k = constraint.missing
            for _ in range(200):
                hand = tuple(rng.sample(rest, k))
                if constraint.accepts(hand):
                    break
            else:
                return False
            for card in hand:
                rest.remove(card)
            hidden[constraint.seat] = hand
        return True

    def try_game(
        self,
        deal: tuple[tuple[int, ...], ...],
        rng: random.Random,
        likelihood: Likelihood | None = None,
    ) -> tuple[Game, float] | None:
        """The view's hand rebuilt on ``deal`` and its weight (the product of
        ``likelihood`` over the logged actions, 1 without it), or ``None`` if the deal
        contradicts the view."""
        game = Game.at_position(self.view.position, manual_deal=True)
        game.deal(deal)
        legal_actions, push = game.legal_actions, game.push
        weight = 1.0
        for seat, action in self.log:
            if not is_say(action):
                if action not in legal_actions(seat, False):
                    return None
                if likelihood is not None:
                    weight *= likelihood(game, seat, action)
            push(seat, action)  # the team's megaphone words are kept: the view shows them
        if _public_state(game) != self.expected:
            return None
        game.dealer = StreamDealer(rng)
        return game, weight

    def sample(self, rng: random.Random) -> Game:
        """A game at the view's point whose hidden cards are drawn at random."""
        return self.sample_weighted(rng)[0]

    def sample_weighted(
        self, rng: random.Random, likelihood: Likelihood | None = None
    ) -> tuple[Game, float]:
        """Like :meth:`sample`, with the world's weight under a model of the players:
        ``likelihood(game, seat, action)`` is asked before each logged action."""
        if self.waiting:
            return Game.at_position(self.view.position, dealer=StreamDealer(rng)), 1.0
        for _ in range(MAX_ATTEMPTS):
            found = self.try_game(self.sample_deal(rng), rng, likelihood)
            if found is not None:
                return found
        raise InconsistentView("no sampled deal replays the view's hand")


def _public_state(game: Game) -> tuple[object, ...]:
    pending = game.pending[-1] if game.pending else None
    return (
        tuple(game.showdowns),
        tuple(s for s in range(game.n) if game.flor_sung[s]),
        tuple(game.in_hand),
        game.actors(),
        None if pending is None else (PENDING_NAMES[pending[0]], pending[1], pending[2]),
        game.truco_level,
        game.hand_index,
        game.needs_deal,
    )


def _public_state_of_view(view: SeatView) -> tuple[object, ...]:
    pending = view.pending
    return (
        view.showdowns,
        view.flor_sung,
        view.in_hand,
        view.actors,
        None if pending is None else (pending.kind, pending.team, pending.level),
        view.truco_level,
        view.hand_index,
        False,
    )


@lru_cache(maxsize=32)
def _determinizer(view: SeatView) -> Determinizer:
    return Determinizer(view)


def sample_deal(view: SeatView, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """A deal of the view's hand consistent with everything public (see module doc)."""
    return sample_game(view, rng).dealt


def sample_game(view: SeatView, rng: random.Random) -> Game:
    """A full :class:`Game` at exactly ``view``'s point (same position, same public
    history, the viewer's own cards) with the hidden cards sampled among the deals
    consistent with the view. Its dealer draws from ``rng``, so a rollout can go on
    into the next hands. Raises :class:`InconsistentView` if no deal fits."""
    return _determinizer(view).sample(rng)
