"""Exact play on a game small enough to walk whole (mini-truco): what a bot does at each
of its information sets, and the exact value of two such players against each other.

A bot of the project is a function of its seat's view only when its randomness is
fixed: :func:`bot_chooser` asks a fresh bot, seeded the same, at every decision, so its
choice depends on the view alone — one pure strategy, whose exploitability OpenSpiel's
exact tools compute (``benchmarks/mini_truco.py``). :func:`choices` walks the tree with
such a player on one seat (following its choice there, every action elsewhere) and
gives its action at every information set it can reach; :func:`value` plays two of
them against each other over every deal, weighted exactly as the chance nodes are: the
expected points, with no sampling noise.

>>> from truco.rl import TrucoGame
>>> game = TrucoGame(hand_size=1, target=15, deck="1e,7e,3b", max_hands=1, returns="hand")
>>> simple = bot_chooser("simple")
>>> seat0 = choices(game, 0, simple)
>>> len(seat0) > 0 and all(isinstance(a, int) for a in seat0.values())
True
>>> v = value(game, (simple, simple))
>>> abs(v[0] + v[1]) < 1e-12
True
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from ..bots import make_bot
from ..rules import Rules
from ..view import SeatView, seat_view
from .game import TrucoGame, TrucoState

#: A player as a function of its seat's view: ``choose(view, legal, rules) -> action``.
Chooser = Callable[[SeatView, Sequence[int], Rules], int]


def bot_chooser(spec: str, seed: int = 0) -> Chooser:
    """The bot ``spec`` (:func:`truco.bots.make_bot`) as a function of the view: a
    fresh bot with the same ``seed`` at each decision, so no memory of earlier calls and
    no randomness drawn elsewhere change its choice."""

    def choose(view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        return make_bot(spec, seed).choose(view, legal, rules)

    return choose


def _act(state: TrucoState, choose: Chooser) -> int:
    seat = state.current_player()
    action = choose(seat_view(state.game, seat), state.legal_actions(), state.game.rules)
    if action not in state.legal_actions():
        raise ValueError(f"the player chose {action}, not a legal action")
    return action


def choices(game: TrucoGame, seat: int, choose: Chooser) -> dict[str, int]:
    """``choose``'s action at every information set of ``seat`` it reaches (keyed by
    the information-state string): the tree walked with its choice at ``seat``'s nodes
    and every chance outcome and action elsewhere. Sets it never reaches are left out:
    what it would do there changes no value."""
    found: dict[str, int] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        elif state.current_player() == seat:
            key = state.information_state_string(seat)
            action = found.get(key)
            if action is None:
                action = found[key] = _act(state, choose)
            actions = [action]
        else:
            actions = state.legal_actions()
        for a in actions:
            child = state.clone()
            child.apply_action(a)
            stack.append(child)
    return found


def value(game: TrucoGame, players: Sequence[Chooser | None]) -> list[float]:
    """The exact expected returns of every seat when seat ``s`` plays ``players[s]``
    (``None``: uniform over the legal actions, the ``random`` bot's policy): every
    chance outcome and uniform choice weighted by its probability, each player's choice
    followed."""
    if len(players) != game.num_players():
        raise ValueError(f"one player per seat: {game.num_players()}")
    n = game.num_players()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))

    def walk(state: TrucoState) -> list[float]:
        if state.is_terminal():
            return [float(r) for r in state.returns()]
        if state.is_chance_node():
            total = [0.0] * n
            for a, p in state.chance_outcomes():
                child = state.clone()
                child.apply_action(a)
                for s, r in enumerate(walk(child)):
                    total[s] += p * r
            return total
        player = players[state.current_player()]
        if player is None:
            legal = state.legal_actions()
            total = [0.0] * n
            for a in legal:
                child = state.clone()
                child.apply_action(a)
                for s, r in enumerate(walk(child)):
                    total[s] += r / len(legal)
            return total
        child = state.clone()
        child.apply_action(_act(state, player))
        return walk(child)

    try:
        return walk(game.new_initial_state())
    finally:
        sys.setrecursionlimit(limit)


__all__ = ["Chooser", "bot_chooser", "choices", "value"]
