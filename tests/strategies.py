"""Shared pieces for the property tests: every table of docs/rules.md, a random policy that
plays whole matches (sometimes going to the mazo, sometimes using the megaphone), and
hypothesis strategies that draw a table and a seed.

A match is reproduced from ``(rules, first_mano, seed)``: the seed drives both the deal
(:class:`~truco.deal.SeededDealer`) and the policy, so a failing example printed by
hypothesis is a complete reproduction.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

from hypothesis import strategies as st

from truco.actions import CONTRAFLOR_AL_RESTO, FALTA_ENVIDO, MAZO, is_say
from truco.cards import DECK, SUIT
from truco.deal import Deal
from truco.game import Game
from truco.rules import Rules

# ---------------------------------------------------------------------------- tables

_BASE = [
    Rules(players=p, flor=f, target=t, chicos=c)
    for p in (2, 4, 6)
    for f in (False, True)
    for t in (15, 30)
    for c in (1, 3)
]
_VARIANTS = [
    Rules(players=2, falta_envido="loser"),
    Rules(players=4, target=15, falta_envido="loser", chicos=3),
    Rules(players=2, falta_envido="chico", flor=True),
    Rules(players=6, falta_envido="chico", target=30),
    Rules(players=2, flor=True, con_flor_quiero=True),
    Rules(players=4, flor=True, con_flor_quiero=True, target=15),
    Rules(players=6, flor=True, con_flor_quiero=True, chicos=3),
    Rules(players=6, pica_pica=True),
    Rules(players=6, pica_pica=True, flor=True),
    Rules(players=6, pica_pica=True, chicos=3, falta_envido="loser"),
    Rules(players=6, pica_pica=True, flor=True, con_flor_quiero=True, falta_envido="chico"),
]

#: Every table the rule book describes: players 2/4/6 x flor x target 15/30 x chicos
#: 1/3, plus the variants (falta envido loser/chico, con flor quiero, pica-pica).
TABLES: tuple[Rules, ...] = tuple(_BASE + _VARIANTS)


#: One table of each shape (sizes, flor, pica-pica, a table to 15), for the slower tests.
SAMPLE_TABLES: tuple[Rules, ...] = (
    Rules(players=2),
    Rules(players=2, flor=True),
    Rules(players=4),
    Rules(players=4, flor=True),
    Rules(players=6),
    Rules(players=6, flor=True, pica_pica=True),
    Rules(players=2, target=15),
)


def table_id(rules: Rules) -> str:
    parts = [
        f"p{rules.players}",
        "flor" if rules.flor else "sinflor",
        f"t{rules.target}",
        f"c{rules.chicos}",
    ]
    if rules.falta_envido != "leader":
        parts.append(f"falta-{rules.falta_envido}")
    if rules.con_flor_quiero:
        parts.append("cfq")
    if rules.pica_pica:
        parts.append("pica")
    return "-".join(parts)


seeds = st.integers(min_value=0, max_value=2**32 - 1)
tables = st.sampled_from(TABLES)


# ---------------------------------------------------------------------------- policy

_RESTO = (FALTA_ENVIDO, CONTRAFLOR_AL_RESTO)


class RandomPolicy:
    """Uniform over the legal actions of a random seat among ``actors()``, except:
    ``mazo`` is taken only now and then (``mazo_rate``), and now and then (``say_rate``)
    a seat still in the hand uses the megaphone instead (2v2/3v3)."""

    def __init__(
        self,
        rng: random.Random,
        mazo_rate: float = 0.04,
        say_rate: float = 0.06,
        resto_rate: float = 1.0,
    ) -> None:
        self.rng = rng
        self.mazo_rate = mazo_rate
        self.say_rate = say_rate
        #: how often falta envido / contraflor al resto are kept among the choices
        #: (below 1, matches last longer and reach las buenas, pica-pica, 3 chicos)
        self.resto_rate = resto_rate

    def choose(self, game: Game) -> tuple[int, int]:
        rng = self.rng
        if game.players > 2 and rng.random() < self.say_rate:
            talkers = [
                s for s in range(game.players) if any(is_say(a) for a in game.legal_actions(s))
            ]
            if talkers:
                seat = rng.choice(talkers)
                return seat, rng.choice([a for a in game.legal_actions(seat) if is_say(a)])
        actors = game.actors()
        seat = rng.choice(actors)
        acts = game.legal_actions(seat, megaphone=False)
        if len(acts) > 1 and rng.random() >= self.mazo_rate:
            acts = [a for a in acts if a != MAZO] or acts
        if len(acts) > 1 and rng.random() >= self.resto_rate:
            acts = [a for a in acts if a not in _RESTO] or acts
        return seat, rng.choice(acts)


class FlorRichDealer:
    """Deals flores far more often than a fair shuffle (about one seat in three), so
    that random matches reach the flor paths; hand ``h`` depends only on ``(seed, h)``."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def deal(self, players: int, hand_index: int) -> Deal:
        rng = random.Random(f"flor-rich:{self.seed}:{hand_index}")
        deck = list(DECK)
        rng.shuffle(deck)
        hands = []
        for _ in range(players):
            suits = [s for s in range(4) if sum(1 for c in deck if SUIT[c] == s) >= 3]
            if suits and rng.random() < 0.35:
                suit = rng.choice(suits)
                hand = [c for c in deck if SUIT[c] == suit][:3]
            else:
                hand = deck[:3]
            for c in hand:
                deck.remove(c)
            hands.append(tuple(hand))
        return tuple(hands)


def new_match(
    rules: Rules, seed: int, first_mano: int | None = None, dealer: str = "auto"
) -> tuple[Game, RandomPolicy]:
    """A match and the policy that plays it, both reproducible from ``seed``.

    ``dealer``: ``"seeded"`` (``Game(seed=seed)``), ``"flor"`` (:class:`FlorRichDealer`)
    or ``"auto"`` (flor-rich for a third of the seeds on tables con flor)."""
    rng = random.Random(seed)
    if first_mano is None:
        first_mano = rng.randrange(rules.players)
    if dealer == "auto":
        dealer = "flor" if rules.flor and seed % 3 == 0 else "seeded"
    policy = RandomPolicy(
        rng,
        mazo_rate=rng.choice((0.0, 0.04, 0.2)),
        say_rate=rng.choice((0.0, 0.06, 0.3)),
        resto_rate=rng.choice((1.0, 0.1, 0.0)),
    )
    if dealer == "flor":
        return Game(rules, first_mano=first_mano, dealer=FlorRichDealer(seed)), policy
    return Game(rules, first_mano=first_mano, seed=seed), policy


def play_out(
    game: Game,
    policy: RandomPolicy,
    on_step: Callable[[Game], None] | None = None,
    stop_after: int | None = None,
    limit: int = 5000,
    before: Callable[[Game, int, int], None] | None = None,
) -> list[tuple[int, int]]:
    """Play ``game`` to its end (or until ``stop_after`` actions) with ``policy``,
    calling ``on_step(game)`` at the start and after every action (and
    ``before(game, seat, action)`` before each); return the actions."""
    taken: list[tuple[int, int]] = []
    if on_step is not None:
        on_step(game)
    while not game.is_over:
        if stop_after is not None and len(taken) >= stop_after:
            break
        assert len(taken) < limit, f"match not over after {limit} actions"
        seat, action = policy.choose(game)
        if before is not None:
            before(game, seat, action)
        game.apply(seat, action)
        taken.append((seat, action))
        if on_step is not None:
            on_step(game)
    return taken


# ---------------------------------------------------------------------------- snapshots


def deep_state(game: Game) -> dict[str, object]:
    """Every attribute of the game, deep-copied (the dealer by identity): two equal
    snapshots mean nothing at all changed."""
    state: dict[str, object] = {}
    for name in type(game).__slots__:
        value = getattr(game, name, None)
        state[name] = id(value) if name == "dealer" else _copy(value)
    return state


def _copy(value: object) -> object:
    """A copy of every mutable container (lists, dicts, sets); immutable values (ints,
    tuples, frozen dataclasses such as ``HandResult``) are kept as they are."""
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    if isinstance(value, tuple):
        try:
            hash(value)  # hashable: nothing mutable inside
            return value
        except TypeError:
            return tuple(_copy(v) for v in value)
    if value is None or isinstance(value, (int, str, float, bool)):
        return value
    params = getattr(type(value), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return value
    return copy.deepcopy(value)


def random_position(rules: Rules, seed: int, max_actions: int) -> tuple[Game, int]:
    """A game played at random for up to ``max_actions`` actions (megaphone words now
    and then), and a seat that may act; a seed whose match ends first moves to the next."""
    rng = random.Random(seed)
    game = Game(rules, first_mano=rng.randrange(rules.players), seed=seed)
    for _ in range(rng.randrange(max_actions)):
        if game.is_over:
            break
        seat = rng.choice(game.actors())
        legal = [a for a in game.legal_actions(seat) if not is_say(a) or rng.random() < 0.1]
        game.apply(seat, rng.choice(legal))
    if game.is_over:
        return random_position(rules, seed + 1, max_actions)
    return game, rng.choice(game.actors())
