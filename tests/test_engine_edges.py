"""Cards shown to everyone when a hand closes (docs/rules.md, "Flor" and "Envido")."""

from __future__ import annotations

from truco.cards import parse_card
from util import new_game, play


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_card(c) for c in text.split())


def test_uncontested_flor_is_shown_at_the_close() -> None:
    game = new_game("7c 6c 5c", "4o 5b 6e", flor=True)
    play(game, "0 flor; 0 mazo")
    assert game.history[-1].revealed == ((0, cards("7c 6c 5c")),)


def test_achico_shows_the_first_flor_only() -> None:
    game = new_game("7e 6e 5e", "7c 4c 10c", flor=True)
    play(game, "0 flor; 1 con-flor-me-achico; 0 mazo")
    assert game.history[-1].revealed == ((0, cards("7e 6e 5e")),)


def test_refused_contraflor_shows_nothing() -> None:
    game = new_game("7e 6e 5e", "7c 4c 10c", flor=True)
    play(game, "0 flor; 1 contraflor; 0 no-quiero; 0 mazo")
    assert game.history[-1].revealed == ()


def test_accepted_comparison_shows_every_flor_of_the_winning_team() -> None:
    game = new_game("1e 2e 3e", "7c 6c 5c", "1b 2b 4b", "4o 5b 12c", flor=True)
    play(game, "0 flor; 1 contraflor; 2 quiero; 0 mazo; 1 mazo; 2 mazo")
    assert dict(game.history[-1].revealed) == {0: cards("1e 2e 3e"), 2: cards("1b 2b 4b")}


def test_accepted_envido_shows_only_the_winning_tanto_cards() -> None:
    game = new_game("7o 6o 4c", "1e 1b 5e")
    play(game, "0 envido; 1 quiero; 0 mazo")
    assert game.history[-1].revealed == ((0, cards("7o 6o")),)


def test_between_hands_the_view_is_the_position_alone() -> None:
    """A view taken while the next hand waits for its cards equals the view of a game
    rebuilt from the public position (nothing of the closed hand lingers but the
    closed hand's public summary, which the position does not carry)."""
    from dataclasses import replace

    from truco.game import Game
    from truco.view import seat_view

    game = new_game("1e 3c 4b", "2o 5c 6e")
    play(game, "0 truco; 1 mazo")
    rebuilt = Game.at_position(game.position(), manual_deal=True)
    for seat in (0, 1, None):
        assert replace(seat_view(game, seat), last_hand=None) == seat_view(rebuilt, seat)


def test_booleans_are_neither_seats_nor_actions() -> None:
    import pytest

    from truco.game import Game, IllegalAction

    game = Game(seed=1)
    for seat, action in [(True, 0), (0, True)]:
        with pytest.raises(IllegalAction, match="there is no"):
            game.apply(seat, action)


def test_a_game_started_mid_match_has_no_complete_record() -> None:
    import pytest

    from truco.game import Game
    from truco.record import game_to_record

    game = new_game("1e 3c 4b", "2o 5c 6e")
    play(game, "0 truco; 1 mazo")
    later = Game.at_position(game.position(), seed=3)
    with pytest.raises(ValueError, match="middle of a match"):
        game_to_record(later)
