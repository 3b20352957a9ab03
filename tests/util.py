"""Small helpers for writing scenarios in the notation of docs/record-format.md."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from truco.actions import action_token, is_say, parse_action
from truco.cards import parse_card
from truco.game import Game
from truco.rules import Rules


def deal(*hands: str) -> tuple[tuple[int, ...], ...]:
    """``deal("1e 7o 4c", "3b 2c 12o")`` -> card numbers per seat."""
    return tuple(tuple(parse_card(c) for c in hand.split()) for hand in hands)


def new_game(*hands: str, first_mano: int = 0, **options: object) -> Game:
    """A game whose first hand has the given cards (seat order); more hands with
    :func:`next_hand`. ``options`` are :class:`Rules` fields; players default to
    the number of hands given."""
    options.setdefault("players", len(hands))
    game = Game(Rules(**options), first_mano=first_mano, manual_deal=True)  # type: ignore[arg-type]
    game.deal(deal(*hands))
    return game


def next_hand(game: Game, *hands: str) -> None:
    game.deal(deal(*hands))


def play(game: Game, moves: Iterable[tuple[int, str]] | str) -> None:
    """Apply ``[(seat, token), ...]`` or a string ``"0 envido; 1 quiero; 0 play 1e"``."""
    if isinstance(moves, str):
        moves = [
            (int(part.split(None, 1)[0]), part.split(None, 1)[1])
            for part in moves.split(";")
            if part.strip()
        ]
    for seat, token in moves:
        game.apply(seat, parse_action(token))


def legal(game: Game, seat: int, say: bool = False) -> set[str]:
    """The legal tokens of a seat (megaphone words left out unless ``say``)."""
    return {action_token(a) for a in game.legal_actions(seat) if say or not is_say(a)}


def why(game: Game) -> list[tuple[int, str, int]]:
    """The ``why`` of the last closed hand."""
    assert game.history, "no hand has closed yet"
    return list(game.history[-1].why)


def tokens(actions: Sequence[int]) -> list[str]:
    return [action_token(a) for a in actions]
