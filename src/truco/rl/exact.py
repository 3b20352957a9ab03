"""Exact play on a game small enough to walk whole (mini-truco): what a bot does at each
of its information sets, and the exact value of two players against each other.

A *player* here is a behaviour strategy: a function of the seat's view (and the legal
actions) giving a probability to each action. A bot of the project draws its randomness
from its own generator and remembers the match, so :func:`bot_player` makes one from
fresh bots: at each decision it asks ``seeds`` bots, one per seed, and plays what they
chose in proportion (one seed: one pure strategy; more: an estimate of the bot's own
mixed behaviour, which is what it plays at a table). :func:`uniform` is the ``random``
bot's policy, :func:`pure` a deterministic chooser. :func:`choices` walks the tree with a
player on one seat (following what it may play there, every chance outcome and action
elsewhere) and gives its probabilities at every information set it can reach, which
``benchmarks/mini_truco.py`` hands to OpenSpiel's exact ``exploitability``;
:func:`value` plays two players against each other, every deal and every choice weighed
by its probability: the expected points, with no sampling noise.

>>> from truco.rl import TrucoGame
>>> game = TrucoGame(hand_size=1, target=15, deck="1e,7e,3b", max_hands=1, returns="hand")
>>> simple = bot_player("simple")
>>> seat0 = choices(game, 0, simple)
>>> len(seat0) > 0 and all(abs(sum(p.values()) - 1) < 1e-12 for p in seat0.values())
True
>>> v = value(game, (simple, uniform))
>>> abs(v[0] + v[1]) < 1e-12
True
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

from ..bots import make_bot
from ..rules import Rules
from ..view import SeatView, seat_view
from .game import TrucoGame, TrucoState

#: A behaviour strategy: ``player(view, legal, rules) -> {action: probability}``.
Player = Callable[[SeatView, Sequence[int], Rules], Mapping[int, float]]
#: A deterministic player: ``choose(view, legal, rules) -> action``.
Chooser = Callable[[SeatView, Sequence[int], Rules], int]


def uniform(view: SeatView, legal: Sequence[int], rules: Rules) -> Mapping[int, float]:
    """Every legal action alike: the ``random`` bot's policy."""
    return {a: 1.0 / len(legal) for a in legal}


def pure(choose: Chooser) -> Player:
    """The player that always plays ``choose``'s action."""

    def player(view: SeatView, legal: Sequence[int], rules: Rules) -> Mapping[int, float]:
        return {choose(view, legal, rules): 1.0}

    return player


def bot_player(spec: str, seeds: int = 1) -> Player:
    """The bot ``spec`` (:func:`truco.bots.make_bot`) as a function of the view: at each
    decision a fresh bot per seed ``0..seeds-1`` (no memory of earlier calls, no
    randomness drawn elsewhere) chooses, and each choice weighs ``1 / seeds``."""
    if seeds < 1:
        raise ValueError("a bot player needs at least one seed")

    def player(view: SeatView, legal: Sequence[int], rules: Rules) -> Mapping[int, float]:
        out: dict[int, float] = {}
        for seed in range(seeds):
            action = make_bot(spec, seed).choose(view, legal, rules)
            out[action] = out.get(action, 0.0) + 1.0 / seeds
        return out

    return player


def _policy(state: TrucoState, player: Player) -> Mapping[int, float]:
    seat = state.current_player()
    legal = state.legal_actions()
    policy = player(seat_view(state.game, seat), legal, state.game.rules)
    if any(a not in legal for a in policy) or abs(sum(policy.values()) - 1.0) > 1e-9:
        raise ValueError(f"the player's policy {dict(policy)} is not one over {legal}")
    return policy


def choices(game: TrucoGame, seat: int, player: Player) -> dict[str, Mapping[int, float]]:
    """``player``'s policy at every information set of ``seat`` it reaches (keyed by the
    information-state string): the tree walked along the actions it may play at
    ``seat``'s nodes and every chance outcome and action elsewhere. Sets it never
    reaches are left out: what it would do there changes no value."""
    found: dict[str, Mapping[int, float]] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        elif state.current_player() == seat:
            key = state.information_state_string(seat)
            policy = found.get(key)
            if policy is None:
                policy = found[key] = _policy(state, player)
            actions = [a for a, p in policy.items() if p > 0]
        else:
            actions = state.legal_actions()
        for a in actions:
            child = state.clone()
            child.apply_action(a)
            stack.append(child)
    return found


def value(game: TrucoGame, players: Sequence[Player]) -> list[float]:
    """The exact expected returns of every seat when seat ``s`` plays ``players[s]``:
    every chance outcome and every choice weighed by its probability."""
    n = game.num_players()
    if len(players) != n:
        raise ValueError(f"one player per seat: {n}")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))

    def walk(state: TrucoState) -> list[float]:
        if state.is_terminal():
            return [float(r) for r in state.returns()]
        if state.is_chance_node():
            branches: Sequence[tuple[int, float]] = state.chance_outcomes()
        else:
            branches = list(_policy(state, players[state.current_player()]).items())
        total = [0.0] * n
        for a, p in branches:
            if p <= 0:
                continue
            child = state.clone()
            child.apply_action(a)
            for s, r in enumerate(walk(child)):
                total[s] += p * r
        return total

    try:
        return walk(game.new_initial_state())
    finally:
        sys.setrecursionlimit(limit)


__all__ = ["Chooser", "Player", "bot_player", "choices", "pure", "uniform", "value"]
