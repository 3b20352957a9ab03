"""The replay viewer's data: a finished match step by step, every card shown."""

from __future__ import annotations

from typing import Any

from ..actions import action_token, is_say
from ..cards import card_name
from ..game import Game
from ..record import Record


def _snapshot(game: Game, hand: int, seat: int | None, token: str | None) -> dict[str, Any]:
    closed = (
        game.history[-1]
        if game.history and (game.needs_deal or game.is_over) and game.history[-1].index == hand
        else None
    )
    return {
        "hand": hand,
        "seat": seat,
        "action": token,
        "cards": [[card_name(c) for c in game.hand_cards(s)] for s in range(game.n)],
        "bazas": [[[s, card_name(c)] for s, c in baza] for baza in game.bazas]
        if closed is None
        else [],
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
        steps.append(_snapshot(game, h, None, None))
        for seat, action in hand.actions:
            game.apply(seat, action)
            if not is_say(action):
                steps.append(_snapshot(game, h, seat, action_token(action)))
    return steps
