"""Flor (docs/rules.md "Flor" and "Fine points"): obligatory, annuls an unsettled envido,
uncontested, achico, contraflor, al resto, answering a truco, partners summed, the
tie to the mano, and the "con flor quiero" variant."""

from __future__ import annotations

import pytest

from truco.game import Declaration, Game, IllegalAction, MatchPosition
from truco.rules import Rules
from util import deal, legal, new_game, play, why

F38, F31, NOFLOR = "7e 6e 5e", "7c 4c 10c", "1o 2b 3o"
FLOR_ANSWERS = {"con-flor-me-achico", "contraflor", "contraflor-al-resto", "mazo"}
ENVIDO_CALLS = {"envido", "real-envido", "falta-envido"}


def con_flor(*hands: str, **options) -> Game:
    return new_game(*hands, flor=True, **options)


def at_score(score: tuple[int, int], *hands: str, **options) -> Game:
    options.setdefault("players", len(hands))
    position = MatchPosition(Rules(flor=True, **options), 0, 0, score, (0, 0))
    game = Game.at_position(position, manual_deal=True)
    game.deal(deal(*hands))
    return game


# -- obligatory -------------------------------------------------------------------------


def test_a_holder_must_sing_flor_on_its_turn() -> None:
    game = con_flor(F38, NOFLOR)
    assert legal(game, 0) == {"flor", "mazo"}
    with pytest.raises(IllegalAction) as info:
        play(game, "0 play 7e")
    assert "flor" in info.value.reason


@pytest.mark.parametrize("call", ["envido", "real-envido", "falta-envido", "truco"])
def test_a_holder_must_sing_flor_when_a_call_waits_for_its_team(call: str) -> None:
    game = con_flor(NOFLOR, F31)
    play(game, f"0 {call}")
    assert legal(game, 1) == {"flor", "mazo"}
    with pytest.raises(IllegalAction) as info:
        play(game, "1 quiero")
    assert "flor" in info.value.reason


def test_a_table_without_flor_has_no_flor() -> None:
    game = new_game(F38, F31)
    assert "flor" not in legal(game, 0)
    play(game, "0 envido; 1 quiero")  # three of a suit: the two highest + 20 -> 33 vs 31
    assert game.showdowns == [(Declaration(0, 33), Declaration(1, None))]


# -- one flor ---------------------------------------------------------------------------


def test_an_uncontested_flor_scores_3_and_closes_the_envido() -> None:
    game = con_flor(F38, NOFLOR)
    play(game, "0 flor")
    assert game.actors() == (0,)  # no answer needed; seat 0 goes on
    assert legal(game, 0) == {"play 7e", "play 6e", "play 5e", "truco", "mazo"}
    play(game, "0 play 5e")
    assert not ENVIDO_CALLS & legal(game, 1)  # no envido in a hand with flor
    play(game, "1 mazo")
    assert why(game) == [(0, "flor", 3), (0, "truco", 1)]


def test_a_flor_annuls_an_envido_not_yet_settled() -> None:
    game = con_flor(NOFLOR, F31)
    play(game, "0 envido; 1 flor")
    assert game.actors() == (0,)
    assert not ENVIDO_CALLS & legal(game, 0)
    play(game, "0 mazo")
    assert why(game) == [(1, "flor", 3), (1, "truco", 1)]
    assert game.history[-1].showdowns == ()


def test_a_flor_annuls_a_raised_envido_chain_2v2() -> None:
    game = con_flor("1o 2b 3o", "4e 5o 6c", "7o 4o 10b", "7b 6b 5b")  # seat 3 holds flor
    play(game, "0 play 1o; 1 play 4e; 2 envido")
    assert legal(game, 3) == {"flor", "mazo"}
    play(game, "1 real-envido")  # the partner may answer meanwhile
    play(game, "2 falta-envido")
    assert legal(game, 3) == {"flor", "mazo"}
    play(game, "3 flor")  # annuls the whole chain; uncontested
    assert game.actors() == (2,)
    play(game, "2 truco; 1 no-quiero")
    assert why(game) == [(1, "flor", 3), (0, "truco", 1)]


def test_a_flor_answering_a_truco_and_the_truco_waits() -> None:
    game = con_flor(NOFLOR, F31)
    play(game, "0 truco")
    assert legal(game, 1) == {"flor", "mazo"}
    play(game, "1 flor")
    assert game.actors() == (1,)
    assert legal(game, 1) == {"quiero", "no-quiero", "retruco", "mazo"}
    play(game, "1 no-quiero")
    assert why(game) == [(1, "flor", 3), (0, "truco", 1)]


# -- two flores -------------------------------------------------------------------------


def test_the_rival_flor_must_answer_and_achico_gives_3() -> None:
    game = con_flor(F38, F31)
    play(game, "0 flor")
    assert game.actors() == (1,)
    assert legal(game, 1) == FLOR_ANSWERS
    assert legal(game, 0) == set()
    play(game, "1 con-flor-me-achico")
    assert game.actors() == (0,)
    play(game, "0 play 7e")
    assert "play 7c" in legal(game, 1)  # seat 1's flor is spoken for: it plays on
    play(game, "1 mazo")
    assert why(game) == [(0, "flor", 3), (0, "truco", 1)]


@pytest.mark.parametrize("first,second,winner", [(F38, F31, 0), (F31, F38, 1)])
def test_an_accepted_contraflor_is_6_to_the_higher_flor(first, second, winner) -> None:
    game = con_flor(first, second)
    play(game, "0 flor; 1 contraflor")
    assert legal(game, 0) == {"quiero", "no-quiero", "contraflor-al-resto", "mazo"}
    play(game, "0 quiero; 0 mazo")
    assert why(game) == [(winner, "flor", 6), (1, "truco", 1)]
    assert dict(game.history[-1].revealed) == {winner: game.history[-1].deal[winner]}


def test_a_refused_contraflor_gives_3_to_the_team_that_raised() -> None:
    game = con_flor(F38, F31)
    play(game, "0 flor; 1 contraflor; 0 no-quiero; 0 mazo")
    assert why(game) == [(1, "flor", 3), (1, "truco", 1)]


def test_equal_flores_go_to_the_mano_team() -> None:
    game = con_flor("7e 6e 5e", "7c 6c 5c", first_mano=1)
    play(game, "1 flor; 0 contraflor; 1 quiero; 1 mazo")
    assert why(game) == [(1, "flor", 6), (0, "truco", 1)]


def test_al_resto_refused_as_the_first_answer_gives_6() -> None:
    game = con_flor(F38, F31)
    play(game, "0 flor; 1 contraflor-al-resto")
    assert legal(game, 0) == {"quiero", "no-quiero", "mazo"}
    play(game, "0 no-quiero; 0 mazo")
    assert why(game) == [(1, "flor", 6), (1, "truco", 1)]


def test_al_resto_refused_after_a_contraflor_gives_6() -> None:
    game = con_flor(F38, F31)
    play(game, "0 flor; 1 contraflor; 0 contraflor-al-resto; 1 no-quiero; 0 mazo")
    assert why(game) == [(0, "flor", 6), (1, "truco", 1)]


@pytest.mark.parametrize(
    "target,score,value,after",
    [
        (30, (9, 13), 2, (11, 14)),  # both in malas: what the leader needs to reach 15
        (30, (0, 0), 15, (15, 1)),
        (30, (14, 3), 1, (15, 4)),  # 14 is still las malas
        (
            30,
            (16, 3),
            14,
            (30, 3),
        ),  # not both in malas: to the target; closes the chico
        (30, (20, 12), 10, (30, 12)),
        (30, (12, 20), 10, (22, 21)),
        (15, (6, 9), 6, (12, 10)),
        (15, (0, 0), 15, (15, 0)),
    ],
)
def test_an_accepted_al_resto_is_what_the_leader_needs(target, score, value, after) -> None:
    game = at_score(score, F38, F31, target=target)
    play(game, "0 flor; 1 contraflor-al-resto; 0 quiero; 0 mazo")
    assert why(game) == [(0, "flor", value), (1, "truco", 1)]
    assert game.history[-1].score == after


# -- teams ------------------------------------------------------------------------------


def test_only_rival_holders_answer_a_flor_2v2() -> None:
    game = con_flor("7e 6e 5e", "1o 2b 3o", "4o 5b 6o", "7c 4c 10c")
    play(game, "0 flor")
    assert game.actors() == (3,)
    assert legal(game, 1) == set()
    assert legal(game, 3) == FLOR_ANSWERS


def test_partners_flores_are_summed_and_the_prize_is_one_2v2() -> None:
    # team 0: 30 + 25 = 55 against seat 1's 38
    game = con_flor("7e 3e 10e", "7c 6c 5c", "5b 11b 12b", "1o 2o 4b")
    play(game, "0 flor; 1 contraflor")
    assert game.actors() == (0, 2)  # any player of the raised team answers
    play(game, "0 quiero")
    play(game, "0 play 7e; 1 play 7c")
    assert legal(game, 2) == {"flor", "mazo"}  # the partner still sings its flor
    play(game, "2 flor; 2 truco; 1 no-quiero")
    assert why(game) == [(0, "flor", 6), (0, "truco", 1)]
    assert set(dict(game.history[-1].revealed)) == {0, 2}


def test_a_flor_total_counts_only_the_players_still_in_the_hand_2v2() -> None:
    game = con_flor("7e 3e 10e", "7c 6c 5c", "5b 11b 12b", "1o 2o 4b")
    play(game, "0 flor; 1 contraflor; 2 mazo; 0 quiero")  # seat 2 (25) left: 30 against 38
    play(game, "0 mazo")
    assert why(game) == [(1, "flor", 6), (1, "truco", 1)]


def test_a_flor_annulling_an_envido_that_answered_a_truco_makes_the_truco_pending_again_2v2() -> (
    None
):
    game = con_flor("4c 5o 6b", "1o 2e 3e", "10c 11c 12c", "7o 1e 4e")
    play(game, "0 truco; 1 envido")
    assert game.actors() == (0, 2)
    assert legal(game, 2) == {"flor", "mazo"}
    play(game, "2 flor")  # uncontested: 3, and the envido is gone
    assert game.actors() == (1, 3)
    assert legal(game, 1) == {"quiero", "no-quiero", "retruco", "mazo"}
    play(game, "1 no-quiero")
    assert why(game) == [(0, "flor", 3), (0, "truco", 1)]


def test_an_envido_settled_before_a_flor_keeps_its_points_2v2() -> None:
    # seat 3 holds flor; its partner answers the truco with an envido, settled first
    game = con_flor("4c 5o 6b", "1o 2e 3e", "7o 6o 1e", "10c 11c 12c")
    play(game, "0 truco")
    assert legal(game, 3) == {"flor", "mazo"}
    play(game, "1 envido; 0 quiero")  # tantos 6, 25, 33, son buenas: team 0 wins 2
    assert game.actors() == (1, 3)
    assert legal(game, 3) == {"flor", "mazo"}
    play(game, "3 flor; 1 no-quiero")
    assert why(game) == [(1, "flor", 3), (0, "envido", 2), (0, "truco", 1)]


# -- con flor quiero (the third rule book) -----------------------------------------------


def test_con_flor_quiero_accepts_the_comparison_for_4() -> None:
    game = con_flor(F31, F38, con_flor_quiero=True)
    play(game, "0 flor")
    assert legal(game, 1) == FLOR_ANSWERS | {"quiero"}
    play(game, "1 quiero; 0 mazo")
    assert why(game) == [(1, "flor", 4), (1, "truco", 1)]


def test_con_flor_quiero_a_refused_contraflor_gives_4() -> None:
    game = con_flor(F38, F31, con_flor_quiero=True)
    play(game, "0 flor; 1 contraflor; 0 no-quiero; 0 mazo")
    assert why(game) == [(1, "flor", 4), (1, "truco", 1)]


def test_con_flor_quiero_an_accepted_contraflor_is_still_6() -> None:
    game = con_flor(F38, F31, con_flor_quiero=True)
    play(game, "0 flor; 1 contraflor; 0 quiero; 0 mazo")
    assert why(game) == [(0, "flor", 6), (1, "truco", 1)]


def test_without_the_variant_a_flor_cannot_be_answered_quiero() -> None:
    game = con_flor(F38, F31)
    play(game, "0 flor")
    assert "quiero" not in legal(game, 1)


def test_a_flor_answering_a_truco_opens_an_exchange_and_the_truco_waits_for_it_2v2() -> None:
    game = con_flor("4c 5o 6b", "10c 11c 12c", "7e 6e 5e", "7o 1e 4e")
    play(game, "0 truco")
    assert legal(game, 1) == {"flor", "mazo"}
    play(game, "1 flor")
    assert game.actors() == (2,)  # the rival holder answers the flor first
    play(game, "2 con-flor-me-achico")
    assert game.actors() == (1, 3)  # then the truco is pending again
    assert legal(game, 3) == {"quiero", "no-quiero", "retruco", "mazo"}
    play(game, "3 no-quiero")
    assert why(game) == [(1, "flor", 3), (0, "truco", 1)]


def test_three_flores_3v3_totals_decide_an_accepted_al_resto() -> None:
    # team 0: 38 + 26 = 64; team 1: 38 + 38 = 76 (seat 1 has not even sung yet)
    game = con_flor("7e 6e 5e", "7c 6c 5c", "1b 2b 3b", "1o 2o 4e", "4b 11e 3c", "5o 6o 7o")
    play(game, "0 flor")
    assert game.actors() == (1, 5)  # the rival holders
    play(game, "5 contraflor-al-resto")
    assert game.actors() == (0, 2, 4)  # any player of the raised team
    play(game, "4 quiero")  # 0-0 on a table to 30: the leader needs 15 to reach 15
    play(game, "0 play 7e")
    assert legal(game, 1) == {"flor", "mazo"}  # its flor counted, but it still sings it
    play(game, "1 flor; 1 truco; 4 no-quiero")
    assert why(game) == [(1, "flor", 15), (1, "truco", 1)]
    assert set(dict(game.history[-1].revealed)) == {1, 5}
