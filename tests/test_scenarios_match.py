"""Chicos and the match (docs/rules.md "Scoring and the match"): tables to 15 and 30, one chico
or the best of three, scores restart each chico, the mano rotates across chicos, and the
match ends exactly when it is decided."""

from __future__ import annotations

import pytest

from truco.game import Game, IllegalAction, MatchPosition, Outcome
from truco.rules import Rules
from util import deal, new_game, next_hand, play, why

STRONG, WEAK = "7e 6e 1e", "4c 5o 10b"  # tanto 33 and the best cards against 5


def assert_finished(game: Game, winner: int, chicos: tuple[int, int]) -> None:
    assert game.is_over and game.winner == winner
    assert game.outcome == Outcome(winner, chicos)
    assert game.actors() == ()
    assert all(game.legal_actions(s) == [] for s in range(game.players))
    with pytest.raises(IllegalAction) as info:
        game.apply(0, 52)  # mazo
    assert "over" in info.value.reason
    with pytest.raises(ValueError):
        game.deal(deal(STRONG, WEAK))


def test_a_chico_to_15_in_one_hand_and_the_match_ends_exactly_then() -> None:
    game = new_game(STRONG, WEAK, target=15)
    play(game, "0 falta-envido; 1 quiero")  # 0-0 to 15: the leader needs 15
    assert not game.is_over and game.score == (
        0,
        0,
    )  # points are added when the hand closes
    play(game, "0 play 1e; 1 play 4c; 0 play 7e; 1 play 5o")
    assert why(game) == [(0, "envido", 15), (0, "truco", 1)]
    assert game.history[-1].score == (15, 0) and game.history[-1].chicos == (1, 0)
    assert_finished(game, 0, (1, 0))


def test_a_chico_to_30_closes_exactly_at_30() -> None:
    position = MatchPosition(Rules(), 0, 6, (28, 27), (0, 0))
    game = Game.at_position(position, manual_deal=True)
    game.deal(deal(STRONG, WEAK))
    play(game, "0 truco; 1 quiero; 0 play 1e; 1 play 4c")
    assert not game.is_over  # one baza is not a hand
    play(game, "0 play 7e; 1 play 5o")
    assert game.score == (30, 27)
    assert_finished(game, 0, (1, 0))


def test_one_point_short_of_the_target_goes_on() -> None:
    position = MatchPosition(Rules(target=15), 0, 0, (13, 0), (0, 0))
    game = Game.at_position(position, manual_deal=True)
    game.deal(deal(STRONG, WEAK))
    play(game, "0 play 1e; 1 mazo")
    assert game.score == (14, 0) and not game.is_over and game.needs_deal


def test_best_of_three_2_1_with_scores_restarting_and_the_mano_rotating() -> None:
    game = new_game(STRONG, WEAK, target=15, chicos=3)
    play(game, "0 falta-envido; 1 quiero; 0 mazo")
    assert game.history[-1].score == (15, 0)  # team 1's truco point is dropped
    assert game.chicos == (1, 0) and not game.is_over
    assert game.actors() == () and game.needs_deal

    next_hand(game, STRONG, WEAK)  # mano moves on to seat 1; the chico restarts at 0-0
    assert game.score == (0, 0) and game.mano == 1 and game.actors() == (1,)
    play(game, "1 play 4c; 0 envido; 1 quiero; 0 play 1e; 0 play 7e; 1 play 5o")
    assert why(game) == [(0, "envido", 2), (0, "truco", 1)]
    assert game.score == (3, 0) and game.chicos == (1, 0)

    next_hand(game, WEAK, STRONG)  # mano back to seat 0
    assert game.actors() == (0,)
    play(game, "0 falta-envido; 1 quiero; 0 mazo")  # 3-0: the leader needs 12
    assert why(game) == [(1, "envido", 12), (1, "truco", 1)]
    assert game.score == (3, 13) and game.chicos == (1, 0)

    next_hand(game, WEAK, STRONG)
    assert game.actors() == (1,)
    play(game, "1 truco; 0 quiero; 1 play 1e; 0 play 4c; 1 play 7e; 0 play 5o")
    assert game.history[-1].score == (3, 15)
    assert game.chicos == (1, 1) and not game.is_over

    next_hand(game, STRONG, WEAK)  # the third chico: mano seat 0 (hand 4)
    assert game.score == (0, 0) and game.actors() == (0,)
    play(game, "0 falta-envido; 1 quiero; 0 play 1e; 1 play 4c; 0 play 7e; 1 play 5o")
    assert game.chicos == (2, 1)
    assert_finished(game, 0, (2, 1))
    assert [h.mano for h in game.history] == [0, 1, 0, 1, 0]


def test_best_of_three_ends_at_2_0_without_a_third_chico() -> None:
    game = new_game(STRONG, WEAK, chicos=3)  # to 30: a falta in las malas is the chico
    play(game, "0 falta-envido; 1 quiero; 0 mazo")
    assert why(game) == [(0, "envido", 30), (1, "truco", 1)]
    assert game.chicos == (1, 0) and not game.is_over
    next_hand(game, STRONG, WEAK)  # seat 1 is mano and calls; seat 0 holds the 33
    play(game, "1 falta-envido; 0 quiero; 1 mazo")
    assert game.chicos == (2, 0)
    assert_finished(game, 0, (2, 0))


def test_the_mano_and_the_dealer_rotate_by_one_seat_each_hand_2v2() -> None:
    hands = ("4c 5c 6c", "4o 5o 6o", "4b 5b 6b", "4e 5e 6e")
    game = new_game(*hands, first_mano=2)
    for k in range(6):
        mano = (2 + k) % 4
        assert game.actors() == (mano,)
        assert game.dealer_seat == (mano - 1) % 4
        play(game, [(mano, "truco"), ((mano + 1) % 4, "no-quiero")])
        assert why(game) == [(mano % 2, "truco", 1)]
        next_hand(game, *hands)
    assert game.score == (3, 3)


@pytest.mark.parametrize("players,first_mano", [(2, 2), (4, 4), (6, -1), (2, "0")])
def test_the_first_mano_must_be_a_seat_of_the_table(players, first_mano) -> None:
    with pytest.raises(ValueError, match="first_mano"):
        Game(Rules(players=players), first_mano=first_mano, manual_deal=True)


@pytest.mark.parametrize(
    "hands,cause",
    [
        (("1e 2e 3e", "1e 4c 5c"), "distinct"),
        (("1e 2e", "3e 4c 5c"), "3 cards"),
        (("1e 2e 3e",), "3 cards"),
    ],
)
def test_a_bad_deal_is_refused_and_the_hand_still_waits(hands, cause) -> None:
    game = Game(Rules(), manual_deal=True)
    with pytest.raises(ValueError, match=cause):
        game.deal(tuple(tuple(h) for h in (deal(*hands))))
    assert game.needs_deal and game.actors() == ()
    game.deal(deal(STRONG, WEAK))
    assert game.actors() == (0,)


def test_a_hand_cannot_be_dealt_while_one_is_being_played() -> None:
    game = new_game(STRONG, WEAK)
    with pytest.raises(ValueError, match="no hand is waiting"):
        game.deal(deal(STRONG, WEAK))
    assert game.actors() == (0,)
