"""Truco Argento: Argentine truco as a library, with records, bots and online play.

>>> from truco import Game, Rules
>>> game = Game(Rules(players=4, flor=True), seed=42)
>>> len(game.hand_cards(0))
3
"""

from .cards import card_name, parse_card
from .game import Game, HandResult, IllegalAction, Outcome
from .rules import Rules, RulesError

__all__ = [
    "Game",
    "HandResult",
    "IllegalAction",
    "Outcome",
    "Rules",
    "RulesError",
    "card_name",
    "parse_card",
]
__version__ = "0.1.0"
