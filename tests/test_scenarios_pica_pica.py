"""Pica-pica (docs/rules.md "Pica-pica", the third rule book): when it is played, the order of
its 1v1 rounds and their manos, no team talk, and the points added when the whole hand closes."""

from __future__ import annotations

import pytest

from truco.game import Declaration, Game, IllegalAction, MatchPosition
from truco.rules import Rules
from util import deal, legal, play, why

HANDS = ("4c 5c 6c", "4o 5o 6o", "4b 5b 6b", "4e 5e 6e", "7c 10c 11c", "7o 10o 11o")
SIX_NO_FLOR = ("7e 6e 4b", "5c 6c 1o", "4o 5o 2e", "1b 2c 4c", "1e 2o 3o", "7b 1c 3e")


def table(score=(0, 0), mano=0, pica_started=False, pica_now=False, **options) -> Game:
    rules = Rules(players=6, pica_pica=True, **options)
    position = MatchPosition(rules, mano, 0, score, (0, 0), pica_started, pica_now)
    return Game.at_position(position, manual_deal=True)


def test_the_hand_after_a_team_first_reaches_5_is_pica_pica_then_they_alternate() -> None:
    game = table(score=(4, 0))
    game.deal(deal(*SIX_NO_FLOR))
    assert not game.pica_now
    play(game, "0 truco; 1 no-quiero")  # 5-0
    assert game.history[-1].pica_pica is False
    assert game.pica_now  # the next hand
    game.deal(deal(*SIX_NO_FLOR))  # mano seat 1: rounds 1v4, 2v5, 3v0
    for mano in (1, 2, 3):
        assert game.actors() == (mano,)
        play(game, [(mano, "mazo")])
    assert game.history[-1].pica_pica is True
    assert why(game) == [(0, "truco", 1), (1, "truco", 1), (0, "truco", 1)]
    assert game.score == (7, 1)
    assert not game.pica_now  # then a normal hand
    game.deal(deal(*SIX_NO_FLOR))
    assert game.actors() == (2,)
    play(game, "2 truco")
    assert game.actors() == (1, 3, 5)  # a whole team answers: a normal 3v3 hand
    play(game, "3 no-quiero")
    assert game.pica_now  # and pica-pica again


@pytest.mark.parametrize(
    "score,started,scorer,next_pica",
    [
        ((3, 0), False, 0, False),  # 4 points: not yet
        ((4, 0), False, 0, True),  # team 0 reaches 5
        ((0, 4), False, 1, True),  # team 1 reaches 5
        ((23, 10), True, 0, True),  # 24: still under 25
        ((24, 10), True, 0, False),  # 25 (10 buenas): no more pica-pica
        ((10, 24), True, 1, False),
    ],
)
def test_when_pica_pica_is_played(score, started, scorer, next_pica) -> None:
    game = table(score=score, pica_started=started)
    game.deal(deal(*SIX_NO_FLOR))
    if scorer == 0:
        play(game, "0 truco; 1 no-quiero")
    else:
        play(game, "0 play 7e; 1 truco; 2 no-quiero")
    assert game.history[-1].pica_pica is False
    assert game.pica_now is next_pica


def test_pica_pica_starts_again_only_after_5_in_a_new_chico() -> None:
    game = table(score=(29, 20), pica_started=True, chicos=3)
    game.deal(deal(*SIX_NO_FLOR))
    play(game, "0 truco; 1 no-quiero")
    assert game.chicos == (1, 0) and not game.pica_now
    game.deal(deal(*SIX_NO_FLOR))
    assert game.score == (0, 0)
    assert game.actors() == (1,)  # hand 1 of the match, a normal 3v3 hand
    play(game, "1 truco")
    assert game.actors() == (0, 2, 4)


@pytest.mark.parametrize(
    "mano,rounds",
    [
        (0, [(0, 3), (1, 4), (2, 5)]),
        (1, [(1, 4), (2, 5), (3, 0)]),
        (2, [(2, 5), (3, 0), (4, 1)]),
        (3, [(3, 0), (4, 1), (5, 2)]),
        (4, [(4, 1), (5, 2), (0, 3)]),
        (5, [(5, 2), (0, 3), (1, 4)]),
    ],
)
def test_rounds_start_with_the_manos_pair_go_on_in_seat_order_first_from_the_mano_is_mano(
    mano, rounds
) -> None:
    game = table(score=(6, 2), mano=mano, pica_started=True, pica_now=True)
    game.deal(deal(*HANDS))
    for round_mano, rival in rounds:
        assert game.actors() == (round_mano,)
        for seat in range(6):
            if seat not in (round_mano, rival):
                assert game.legal_actions(seat) == []
        assert legal(game, round_mano) >= {
            "envido",
            "truco",
            "mazo",
        }  # each is its own pie
        card = game.hand_cards(round_mano)[0]
        game.apply(round_mano, card)
        assert game.actors() == (rival,)
        assert "envido" in legal(game, rival)  # the round's dealer has not played yet
        play(game, [(rival, "mazo")])
        if (round_mano, rival) != rounds[-1]:
            assert game.score == (6, 2)  # nothing is added before the whole hand closes
    # each round's mano won its round (the rival left); round manos alternate teams
    assert why(game) == [(m % 2, "truco", 1) for m, _ in rounds]
    assert game.score == ((8, 3) if mano % 2 == 0 else (7, 4))


def test_no_team_talk_in_a_pica_pica_hand() -> None:
    game = table(score=(6, 2), pica_started=True, pica_now=True)
    game.deal(deal(*HANDS))
    for seat in range(6):
        assert not any(a >= 53 for a in game.legal_actions(seat, megaphone=True))
    with pytest.raises(IllegalAction) as info:
        play(game, "0 say si")
    assert "pica-pica" in info.value.reason
    with pytest.raises(IllegalAction) as info:
        play(game, "2 play 4b")
    assert "pica-pica" in info.value.reason or "pair" in info.value.reason


def test_why_lists_flores_then_envidos_then_trucos_each_in_round_order() -> None:
    # seats 1 (copas) and 2 (oros) hold flor; rounds 0v3, 1v4, 2v5
    hands = ("7e 6e 4b", "5c 6c 7c", "4o 5o 6o", "1o 2c 4c", "1e 2e 3o", "7b 1c 3e")
    game = table(score=(6, 2), pica_started=True, pica_now=True, flor=True)
    game.deal(deal(*hands))
    play(game, "0 envido; 3 quiero")  # 33 against 26, only this pair declares
    assert game.showdowns == [(Declaration(0, 33), Declaration(3, None))]
    play(game, "0 mazo")
    assert legal(game, 1) == {"flor", "mazo"}
    play(game, "1 flor")  # uncontested: seat 4 holds none (seat 2's flor is another round)
    assert game.actors() == (1,)
    play(game, "1 mazo")
    play(game, "2 flor; 2 truco; 5 no-quiero")
    assert why(game) == [
        (1, "flor", 3),
        (0, "flor", 3),
        (0, "envido", 2),
        (1, "truco", 1),
        (0, "truco", 1),
        (0, "truco", 1),
    ]
    assert game.history[-1].points == (7, 4)
    assert game.score == (13, 6)


def test_a_falta_in_a_later_round_uses_the_score_the_hand_started_with() -> None:
    # 14-3 on a table to 30: both in las malas, so the falta is the chico for its winner,
    # although team 0's point from the first round would, if added at once, put it in buenas
    game = table(score=(14, 3), pica_started=True, pica_now=True)
    game.deal(deal(*SIX_NO_FLOR))  # rounds 0v3, 1v4, 2v5; seat 1: 31 against seat 4's 25
    play(game, "0 play 7e; 3 mazo")
    play(game, "1 falta-envido; 4 quiero; 1 mazo")
    play(game, "2 truco; 5 no-quiero")
    assert why(game) == [
        (1, "envido", 27),
        (0, "truco", 1),
        (0, "truco", 1),
        (0, "truco", 1),
    ]
    assert game.history[-1].score == (14, 30) and game.chicos == (0, 1)


def test_a_flor_exchange_in_a_round_compares_only_that_pair() -> None:
    # round 0v3: 38 against 26; seat 5's 38 (team 1) plays in another round and does not
    # count (with it team 1 would total 64)
    hands = ("7e 6e 5e", "1e 2b 4c", "4o 5o 1b", "1c 2c 3c", "7o 1o 3e", "7b 6b 5b")
    game = table(score=(6, 2), pica_started=True, pica_now=True, flor=True)
    game.deal(deal(*hands))
    play(game, "0 flor")
    assert game.actors() == (3,)
    play(game, "3 contraflor; 0 quiero; 0 mazo")
    play(game, "1 mazo")
    play(game, "2 truco")
    assert legal(game, 5) == {"flor", "mazo"}
    play(game, "5 flor")  # uncontested in its round: seat 2 holds none
    assert game.actors() == (5,)  # the truco waits again
    play(game, "5 no-quiero")
    assert why(game) == [
        (0, "flor", 6),
        (1, "flor", 3),
        (1, "truco", 1),
        (0, "truco", 1),
        (0, "truco", 1),
    ]
    assert game.score == (14, 6)


def test_a_chico_won_in_the_first_round_drops_the_later_rounds_points() -> None:
    # 20-10: the falta is what the leader needs, 10: team 0 reaches 30 with the envido,
    # which is added first; the later rounds are still played and listed, not added
    game = table(score=(20, 10), pica_started=True, pica_now=True)
    game.deal(deal(*SIX_NO_FLOR))
    play(game, "0 falta-envido; 3 quiero; 0 mazo")
    assert not game.needs_deal and game.actors() == (1,)
    play(game, "1 mazo; 2 mazo")
    hand = game.history[-1]
    assert hand.why == (
        (0, "envido", 10),
        (1, "truco", 1),
        (0, "truco", 1),
        (1, "truco", 1),
    )
    assert hand.points == (11, 2)
    assert hand.score == (30, 10) and game.winner == 0
