"""The replay viewer's data: a finished match step by step, every card shown.

Each step also lists the hand's bazas with who won each; the step that closes a hand
keeps them, the deciding card with them, so the viewer can draw the hand as it ended.
"""

from __future__ import annotations

from typing import Any

from ...actions import action_token, is_say
from ...cards import card_name
from ...game import Game
from ...narrate import hand_bazas
from ...record import Record


def _bazas(
    game: Game, actions: list[tuple[int, int]], closed: bool
) -> tuple[list[list[list[Any]]], list[int | None]]:
    """The hand's bazas (``[seat, card]`` each) and each one's winning seat (-1: parda,
    ``None``: not finished); a closed hand's from its actions, the last card with them."""
    told = hand_bazas(actions, game.n)
    winners = [(b.best if b.winner is not None else -1) if b.finished else None for b in told]
    if closed:
        return [[[s, card_name(c)] for s, c in b.cards] for b in told], winners
    bazas = [[[s, card_name(c)] for s, c in baza] for baza in game.bazas]
    return bazas, winners[: len(bazas)]


def _snapshot(
    game: Game, hand: int, seat: int | None, token: str | None, actions: list[tuple[int, int]]
) -> dict[str, Any]:
    closed = (
        game.history[-1]
        if game.history and (game.needs_deal or game.is_over) and game.history[-1].index == hand
        else None
    )
    bazas, winners = _bazas(game, actions, closed is not None)
    return {
        "hand": hand,
        "seat": seat,
        "action": token,
        "cards": [[card_name(c) for c in game.hand_cards(s)] for s in range(game.n)],
        "bazas": bazas,
        "baza_winners": winners,
        "score": list(game.score),
        "chicos": list(game.chicos),
        "mano": game.mano if closed is None else closed.mano,
        "closed": None
        if closed is None
        else {
            "why": [list(w) for w in closed.why],
            "points": list(closed.points),
            "score": list(closed.score),
        },
    }


def replay_steps(record: Record) -> list[dict[str, Any]]:
    """One entry per dealt hand and per action (megaphone words left out: they are
    team talk), each with every seat's cards: for finished matches only."""
    game = Game(record.rules, first_mano=record.first_mano, manual_deal=True)
    steps: list[dict[str, Any]] = []
    for h, hand in enumerate(record.hands):
        if hand.deal is None:
            break
        game.deal(hand.deal)
        steps.append(_snapshot(game, h, None, None, []))
        done: list[tuple[int, int]] = []
        for seat, action in hand.actions:
            game.apply(seat, action)
            done.append((seat, action))
            if not is_say(action):
                steps.append(_snapshot(game, h, seat, action_token(action), done))
    return steps
