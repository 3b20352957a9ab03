"""Teams (docs/rules.md "Envido" in 2v2/3v3): only the pies open the envido; "el envido
está primero" against a first truco; any teammate answers."""

from __future__ import annotations

import pytest

from truco.game import Declaration
from util import legal, new_game, play, why

CALLS = {"envido", "real-envido", "falta-envido"}
DEAL_2V2 = ("4c 10e 11b", "7o 6o 12c", "5c 12o 11e", "1b 2b 3c")
DEAL_3V3 = ("4c 10e 11b", "7o 6o 12c", "5c 12o 11e", "1b 2b 3c", "4e 5e 6e", "7b 1o 2o")


def _first_cards(game, seats) -> None:
    for seat in seats:
        card = min(game.hand_cards(seat))
        game.apply(seat, card)


@pytest.mark.parametrize(
    "hands,mano,pies",
    [
        (DEAL_2V2, 0, {2, 3}),
        (DEAL_2V2, 1, {3, 0}),
        (DEAL_2V2, 3, {1, 2}),
        (DEAL_3V3, 0, {4, 5}),
        (DEAL_3V3, 2, {0, 1}),
        (DEAL_3V3, 5, {3, 4}),
    ],
)
def test_only_the_pies_open_the_envido(hands, mano, pies) -> None:
    game = new_game(*hands, first_mano=mano)
    n = len(hands)
    for k in range(n):
        seat = (mano + k) % n
        assert game.actors() == (seat,)
        can_open = legal(game, seat) >= CALLS
        assert can_open is (seat in pies), seat
        if not can_open:
            assert not CALLS & legal(game, seat)
        _first_cards(game, [seat])


def test_the_pie_opens_and_any_rival_answers_2v2() -> None:
    game = new_game(*DEAL_2V2)
    play(game, "0 play 4c; 1 play 12c; 2 envido")
    assert game.actors() == (1, 3)
    assert legal(game, 1) == legal(game, 3) == {
        "quiero", "no-quiero", "envido", "real-envido", "falta-envido", "mazo"
    }  # fmt: skip
    play(game, "1 real-envido")
    assert game.actors() == (0, 2)
    play(game, "0 quiero")  # tantos 4, 33, 5, 23: seat 1 wins 5
    assert game.actors() == (2,)  # the pie's turn goes on


def test_el_envido_esta_primero_any_called_player_even_one_who_played_2v2() -> None:
    game = new_game(*DEAL_2V2)
    play(game, "0 play 4c; 1 play 12c; 2 truco")
    assert game.actors() == (1, 3)
    for seat in (
        1,
        3,
    ):  # seat 1 has played and is not a pie: the envido goes first anyway
        assert legal(game, seat) == {
            "quiero", "no-quiero", "retruco", "envido", "real-envido", "falta-envido", "mazo"
        }  # fmt: skip
    play(game, "1 envido")
    assert game.actors() == (0, 2)
    assert "retruco" not in legal(game, 0)  # the envido is answered first
    play(game, "0 quiero")
    assert game.actors() == (1, 3)  # then the truco waits for its answer
    assert legal(game, 3) == {"quiero", "no-quiero", "retruco", "mazo"}
    play(game, "3 quiero")
    assert game.actors() == (2,)  # the caller's turn goes on
    play(game, "2 mazo; 3 play 1b")  # 4c, 12c, 1b: seat 3 wins and leads
    play(game, "3 play 2b; 0 mazo")
    assert why(game) == [(1, "envido", 2), (1, "truco", 2)]


def test_el_envido_esta_primero_for_a_player_before_its_turn_3v3() -> None:
    game = new_game(*DEAL_3V3)
    play(game, "0 truco")
    assert game.actors() == (1, 3, 5)
    assert legal(game, 3) >= CALLS
    play(game, "3 falta-envido")
    assert game.actors() == (0, 2, 4)
    play(game, "4 no-quiero")
    assert game.actors() == (1, 3, 5)
    play(game, "5 no-quiero")
    assert why(game) == [(1, "envido", 1), (0, "truco", 1)]


def test_no_envido_against_a_truco_after_the_first_baza_2v2() -> None:
    game = new_game(*DEAL_2V2)
    play(game, "0 play 4c; 1 play 7o; 2 play 5c; 3 play 1b")  # seat 3 wins and leads
    play(game, "3 truco")
    assert not CALLS & legal(game, 0)
    assert legal(game, 0) == {"quiero", "no-quiero", "retruco", "mazo"}


def test_no_envido_against_a_truco_once_the_envido_was_played_2v2() -> None:
    game = new_game(*DEAL_2V2)
    play(game, "0 play 4c; 1 play 12c; 2 envido; 1 no-quiero; 2 truco")
    assert legal(game, 3) == {"quiero", "no-quiero", "retruco", "mazo"}


def test_any_teammate_answers_a_raise_of_the_envido_3v3() -> None:
    game = new_game(*DEAL_3V3)
    _first_cards(game, [0, 1, 2, 3])
    play(game, "4 envido")
    assert game.actors() == (1, 3, 5)
    play(game, "1 envido")
    assert game.actors() == (0, 2, 4)
    play(game, "0 real-envido; 3 quiero")
    # tantos from the mano: 4, 33, then 5, 23, 31 (4e 5e 6e sin flor), 23 are "son buenas"
    assert game.showdowns == [
        (
            Declaration(0, 4), Declaration(1, 33), Declaration(2, None),
            Declaration(3, None), Declaration(4, None), Declaration(5, None),
        )
    ]  # fmt: skip
    assert game.actors() == (4,)
    play(game, "4 truco; 1 no-quiero")
    assert why(game) == [(1, "envido", 7), (0, "truco", 1)]


def test_a_baza_with_all_its_cards_down_is_settled_only_after_the_pending_calls_2v2() -> None:
    # mano 2: seats 2, 3, 0 play; seat 1 calls truco instead of playing; seat 0 answers
    # with the envido (it goes first); seat 1 leaves instead of answering it
    game = new_game("4c 5o 6o", "1e 2e 12b", "7b 6b 10c", "3c 2c 12c", first_mano=2)
    play(game, "2 play 7b; 3 play 3c; 0 play 4c; 1 truco; 0 envido; 1 mazo")
    assert game.actors() == (3,)  # the envido still waits for team 1's answer
    play(game, "3 quiero")
    # from the mano: 33 (seat 2), then 25 and 31 are "son buenas"; seat 1 has left
    assert game.showdowns == [(Declaration(2, 33), Declaration(3, None), Declaration(0, None))]
    assert game.actors() == (0, 2)  # then the truco
    assert game.baza_results == []  # the baza is not settled while a call waits
    play(game, "0 quiero")
    assert game.baza_results == [1]  # 3c beats 7b and 4c
    assert game.actors() == (3,)
