"""Envido (docs/rules.md "Envido"): the chain and its values (the classic rule book's table),
the legal raises, ties to the mano, the showdown with "son buenas", and when it may be called."""

from __future__ import annotations

import pytest

from truco.game import Declaration
from util import deal, legal, new_game, play, why

PLAYS = {"play 7e", "play 6e", "play 4b"}
CALLS = {"envido", "real-envido", "falta-envido"}
STRONG, WEAK = "7e 6e 4b", "1o 2c 4c"  # tanto 33 for seat 0, 26 for seat 1

# chain, accepted value (None: falta envido), refused value: the classic rule book's table
# and docs/rules.md
CHAINS = [
    ("envido", 2, 1),
    ("envido envido", 4, 2),
    ("real-envido", 3, 1),
    ("envido real-envido", 5, 2),
    ("envido envido real-envido", 7, 4),
    ("falta-envido", None, 1),
    ("envido falta-envido", None, 2),
    ("envido envido falta-envido", None, 4),
    ("real-envido falta-envido", None, 3),
    ("envido real-envido falta-envido", None, 5),
    ("envido envido real-envido falta-envido", None, 7),
]


def _call_chain(chain: str):
    game = new_game(STRONG, WEAK)
    calls = chain.split()
    play(game, [(i % 2, call) for i, call in enumerate(calls)])
    return game, len(calls) % 2  # the seat that answers


@pytest.mark.parametrize("chain,accepted,refused", CHAINS, ids=[c[0] for c in CHAINS])
def test_an_accepted_chain_scores_its_value_for_the_best_tanto(chain, accepted, refused) -> None:
    game, answerer = _call_chain(chain)
    play(game, [(answerer, "quiero")])
    assert game.actors() == (0,)  # the call did not use up seat 0's turn
    play(game, "0 mazo")
    if accepted is None:  # falta envido at 0-0 on a table to 30: the chico
        assert why(game) == [(0, "envido", 30), (1, "truco", 1)]
        assert game.score == (30, 0) and game.chicos == (1, 0) and game.winner == 0
    else:
        assert why(game) == [(0, "envido", accepted), (1, "truco", 1)]
        assert game.score == (accepted, 1)


@pytest.mark.parametrize("chain,accepted,refused", CHAINS, ids=[c[0] for c in CHAINS])
def test_a_refused_chain_scores_the_chain_accepted_so_far_for_the_last_caller(
    chain, accepted, refused
) -> None:
    game, answerer = _call_chain(chain)
    play(game, [(answerer, "no-quiero")])
    assert game.showdowns == []  # nobody shows a tanto
    play(game, "0 mazo")
    caller = 1 - answerer
    assert why(game) == [(caller, "envido", refused), (1, "truco", 1)]
    assert game.history[-1].showdowns == ()
    assert game.history[-1].revealed == ()


@pytest.mark.parametrize(
    "chain,answers",
    [
        ("envido", {"envido", "real-envido", "falta-envido"}),
        ("envido envido", {"real-envido", "falta-envido"}),
        ("real-envido", {"falta-envido"}),
        ("envido real-envido", {"falta-envido"}),
        ("envido envido real-envido", {"falta-envido"}),
        ("falta-envido", set()),
        ("envido falta-envido", set()),
        ("envido envido real-envido falta-envido", set()),
    ],
)
def test_the_legal_raises_envido_repeats_once_real_once_falta_ends(chain, answers) -> None:
    game, answerer = _call_chain(chain)
    assert game.actors() == (answerer,)
    assert legal(game, answerer) == {"quiero", "no-quiero", "mazo"} | answers
    assert legal(game, 1 - answerer) == set()  # the caller waits: no cards, no calls


def test_the_mano_may_open_on_its_turn_and_the_dealer_before_playing() -> None:
    game = new_game(STRONG, WEAK)
    assert legal(game, 0) == PLAYS | CALLS | {"truco", "mazo"}
    play(game, "0 play 4b")
    assert legal(game, 1) >= CALLS  # seat 1 is the dealer and has not played yet


def test_a_call_does_not_use_up_the_callers_turn() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 play 4b; 1 envido; 0 real-envido; 1 quiero")
    assert game.actors() == (1,)
    assert {"play 1o", "play 2c", "play 4c"} <= legal(game, 1)
    assert not CALLS & legal(game, 1)  # only once a hand


def test_the_envido_is_played_only_once_a_hand() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 envido; 1 no-quiero")
    assert not CALLS & legal(game, 0)
    play(game, "0 play 4b")
    assert not CALLS & legal(game, 1)


def test_no_envido_after_the_first_baza() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 play 7e; 1 play 4c")
    assert game.actors() == (0,)
    assert not CALLS & legal(game, 0)


def test_no_envido_once_the_truco_is_accepted() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 truco; 1 quiero")
    assert not CALLS & legal(game, 0)
    play(game, "0 play 4b")
    assert not CALLS & legal(game, 1)


def test_the_envido_may_answer_a_first_truco_and_the_truco_waits() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 truco")
    assert legal(game, 1) >= CALLS
    play(game, "1 envido; 0 quiero")
    assert game.actors() == (1,)  # the truco is answered next
    assert legal(game, 1) == {"quiero", "no-quiero", "retruco", "mazo"}
    play(game, "1 no-quiero")
    assert why(game) == [(0, "envido", 2), (0, "truco", 1)]


# -- ties and the showdown --------------------------------------------------------------


def test_equal_tantos_go_to_the_mano_who_called() -> None:
    game = new_game("7o 12o 4b", "7c 10c 5e", first_mano=1)  # 27 each, seat 1 is mano
    play(game, "1 envido; 0 quiero")
    assert game.showdowns == [(Declaration(1, 27), Declaration(0, None))]
    play(game, "1 mazo")
    assert why(game) == [(1, "envido", 2), (0, "truco", 1)]


def test_equal_tantos_go_to_the_mano_when_the_other_seat_called() -> None:
    game = new_game("7o 12o 4b", "7c 10c 5e")  # 27 each, seat 0 is mano
    play(game, "0 play 4b; 1 envido; 0 quiero; 1 mazo")
    assert why(game) == [(0, "envido", 2), (0, "truco", 1)]
    assert game.history[-1].showdowns == ((Declaration(0, 27), Declaration(1, None)),)


def test_a_higher_tanto_after_the_mano_is_declared_and_its_cards_revealed() -> None:
    game = new_game("10o 12o 4b", "7c 6c 5e")  # 20 against 33
    play(game, "0 envido; 1 quiero; 0 mazo")
    hand = game.history[-1]
    assert hand.showdowns == ((Declaration(0, 20), Declaration(1, 33)),)
    assert hand.why == ((1, "envido", 2), (1, "truco", 1))
    revealed = dict(hand.revealed)
    assert set(revealed) == {1}  # the loser said its tanto but shows nothing
    assert set(revealed[1]) == set(deal("7c 6c")[0])


def test_a_single_card_tanto_reveals_that_card() -> None:
    game = new_game("7e 10o 4b", "5c 6o 11e")  # 7 against 6
    play(game, "0 envido; 1 quiero; 0 mazo")
    assert game.history[-1].showdowns == ((Declaration(0, 7), Declaration(1, None)),)
    assert dict(game.history[-1].revealed) == {0: deal("7e")[0]}


def test_showdown_2v2_declares_only_what_beats_everything_declared_before() -> None:
    # tantos from the mano: 25, 28, 30 (three bastos sin flor: 6 + 4 + 20), 29
    game = new_game("5o 10o 1e", "7c 1c 2b", "6b 4b 1b", "5e 4e 11c")
    play(game, "0 play 1e; 1 play 2b; 2 envido; 3 quiero")
    assert game.showdowns == [
        (
            Declaration(0, 25),
            Declaration(1, 28),
            Declaration(2, 30),
            Declaration(3, None),
        )
    ]
    play(game, "2 truco; 1 no-quiero")
    assert why(game) == [(0, "envido", 2), (0, "truco", 1)]
    assert set(dict(game.history[-1].revealed)[2]) == set(deal("6b 4b")[0])


def test_showdown_2v2_a_partner_above_the_best_declared_still_declares() -> None:
    # tantos from the mano: 30, 20, 33, 31 -> seat 2's 33 wins, seat 3's 31 is "son buenas"
    game = new_game("7o 3o 12e", "10c 11c 4b", "7b 6b 1e", "6e 5e 2c")
    play(game, "0 play 12e; 1 play 4b; 2 envido; 3 real-envido; 2 quiero")
    assert game.showdowns == [
        (
            Declaration(0, 30),
            Declaration(1, None),
            Declaration(2, 33),
            Declaration(3, None),
        )
    ]
    play(game, "2 mazo; 3 truco; 0 no-quiero")
    assert why(game) == [(0, "envido", 5), (1, "truco", 1)]
    assert set(dict(game.history[-1].revealed)[2]) == set(deal("7b 6b")[0])


def test_showdown_counts_only_the_players_still_in_the_hand() -> None:
    # seat 0 (33) left: seat 2's 21 beats seat 1's 20 and seat 3's 7
    game = new_game("7o 6o 12e", "10c 11c 4b", "1b 12b 3e", "7e 10o 2c")
    play(game, "0 mazo; 1 play 4b; 2 envido; 3 quiero")
    assert game.showdowns == [(Declaration(1, 20), Declaration(2, 21), Declaration(3, None))]


def test_el_envido_esta_primero_for_a_seat_that_already_played_1v1() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 play 4b; 1 truco")
    assert legal(game, 0) >= CALLS  # seat 0 played its card but may still answer envido
    play(game, "0 envido; 1 quiero")
    assert game.actors() == (0,)  # the truco waits for seat 0's answer
    assert legal(game, 0) == {"quiero", "no-quiero", "retruco", "mazo"}
    play(game, "0 quiero")
    assert game.actors() == (1,)  # seat 1's turn goes on: it still has to play
    play(game, "1 play 4c")  # 4b against 4c: parda; the mano leads
    assert game.actors() == (0,)
    play(game, "0 play 7e; 1 play 1o")
    assert why(game) == [(0, "envido", 2), (0, "truco", 2)]


def test_equal_tantos_go_to_the_seat_earlier_from_the_mano_not_to_the_mano_team_2v2() -> None:
    # from the mano: 5, 28 (seat 1), 28 (seat 2: not strictly greater, son buenas), 4
    game = new_game("5o 10c 12e", "7c 1c 2b", "7b 1b 11o", "4e 11c 10b")
    play(game, "0 play 12e; 1 play 2b; 2 envido; 3 quiero")
    assert game.showdowns == [
        (
            Declaration(0, 5),
            Declaration(1, 28),
            Declaration(2, None),
            Declaration(3, None),
        )
    ]
    play(game, "2 truco; 1 no-quiero")
    assert why(game) == [(1, "envido", 2), (0, "truco", 1)]
