"""Falta envido in las malas and las buenas, on tables to 15 and 30, for the three
variants (docs/rules.md "Envido": falta envido), and the points past the target dropped."""

from __future__ import annotations

import pytest

from truco.game import Game, MatchPosition
from truco.rules import Rules
from util import deal, play, why

STRONG, WEAK = "7e 6e 4b", "1o 2c 4c"  # tanto 33 against 26


def at_score(score: tuple[int, int], *hands: str, first_mano: int = 0, **options) -> Game:
    """A game whose current chico stands at ``score``, its next hand dealt ``hands``."""
    options.setdefault("players", len(hands))
    position = MatchPosition(Rules(**options), first_mano, 0, score, (0, 0))
    game = Game.at_position(position, manual_deal=True)
    game.deal(deal(*hands))
    return game


def falta_hand(variant: str, target: int, score: tuple[int, int], winner: int) -> Game:
    """Seat 0 (mano) calls falta envido, seat 1 accepts, ``winner``'s team has the best
    tanto; then seat 0 leaves (1 truco point to team 1)."""
    hands = (STRONG, WEAK) if winner == 0 else (WEAK, STRONG)
    game = at_score(score, *hands, target=target, falta_envido=variant)
    play(game, "0 falta-envido; 1 quiero; 0 mazo")
    return game


# variant, target, score before, envido winner, falta value, score after (why: envido then truco)
CASES = [
    # leader (the app's rule page, the default): what the leader needs;
    # both in malas on 30 -> the chico
    ("leader", 30, (10, 12), 0, 20, (30, 12)),
    ("leader", 30, (10, 12), 1, 18, (10, 30)),
    ("leader", 30, (14, 3), 1, 27, (14, 30)),  # 14 is still las malas
    ("leader", 30, (15, 3), 1, 15, (15, 19)),  # 15 is las buenas: what the leader needs
    ("leader", 30, (20, 12), 1, 10, (20, 23)),
    ("leader", 30, (20, 12), 0, 10, (30, 12)),
    ("leader", 30, (16, 3), 1, 14, (16, 18)),
    ("leader", 15, (6, 9), 0, 6, (12, 10)),
    ("leader", 15, (13, 2), 1, 2, (13, 5)),
    ("leader", 15, (0, 0), 1, 15, (0, 15)),
    # loser (the classic rule book): what the loser of the falta needs to finish the chico
    ("loser", 30, (10, 12), 0, 18, (28, 13)),
    ("loser", 30, (20, 12), 0, 18, (30, 12)),
    ("loser", 30, (20, 12), 1, 10, (20, 23)),
    ("loser", 15, (6, 9), 0, 6, (12, 10)),
    ("loser", 15, (10, 2), 1, 5, (10, 8)),
    # chico (the third rule book): the chico if the winner leads or the rival is in malas,
    # otherwise what the rival needs to reach the target
    ("chico", 30, (20, 12), 0, 10, (30, 12)),
    ("chico", 30, (12, 20), 0, 10, (22, 21)),
    ("chico", 30, (16, 5), 1, 14, (16, 20)),
    ("chico", 30, (16, 5), 0, 14, (30, 5)),
    ("chico", 30, (10, 12), 0, 20, (30, 12)),
    ("chico", 30, (20, 20), 1, 10, (20, 30)),
    ("chico", 15, (6, 9), 0, 6, (12, 10)),
    ("chico", 15, (9, 6), 0, 6, (15, 6)),
]


@pytest.mark.parametrize(
    "variant,target,score,winner,value,after",
    CASES,
    ids=[f"{c[0]}-to{c[1]}-{c[2][0]}-{c[2][1]}-won-by-{c[3]}" for c in CASES],
)
def test_accepted_falta_envido(variant, target, score, winner, value, after) -> None:
    game = falta_hand(variant, target, score, winner)
    assert why(game) == [(winner, "envido", value), (1, "truco", 1)]
    hand = game.history[-1]
    assert hand.points == ((value, 1) if winner == 0 else (0, value + 1))
    assert hand.score == after
    closed = target in after
    assert game.chicos == ((1, 0) if after[0] == target else (0, 1) if closed else (0, 0))
    assert game.is_over is closed  # one chico: closing it ends the match


@pytest.mark.parametrize("variant", ["leader", "loser", "chico"])
def test_a_refused_falta_envido_is_one_point_in_every_variant(variant: str) -> None:
    game = at_score((20, 12), STRONG, WEAK, falta_envido=variant)
    play(game, "0 falta-envido; 1 no-quiero; 0 mazo")
    assert why(game) == [(0, "envido", 1), (1, "truco", 1)]
    assert game.score == (21, 13)


def test_the_chico_closes_at_the_target_and_later_points_of_the_hand_are_dropped() -> None:
    # 13-14 to 15: the envido (added first) takes team 0 to 15; team 1's truco point,
    # which would also reach 15, is not added
    game = at_score((13, 14), STRONG, WEAK, target=15)
    play(game, "0 envido; 1 quiero; 0 mazo")
    hand = game.history[-1]
    assert hand.why == ((0, "envido", 2), (1, "truco", 1))
    assert hand.points == (2, 1)
    assert hand.score == (15, 14)
    assert game.chicos == (1, 0) and game.winner == 0


def test_points_past_the_target_are_capped() -> None:
    game = at_score((28, 0), STRONG, WEAK)
    play(game, "0 envido; 1 envido; 0 real-envido; 1 quiero; 0 mazo")
    assert why(game) == [(0, "envido", 7), (1, "truco", 1)]
    assert game.score == (30, 0)
    assert game.outcome is not None and game.outcome.winner == 0


def test_a_falta_called_by_the_dealer_and_won_by_the_mano() -> None:
    # 6-9 to 15: the leader (team 1) needs 6; the caller loses the envido (26 against 33)
    game = at_score((6, 9), STRONG, WEAK, target=15)
    play(game, "0 play 4b; 1 falta-envido; 0 quiero; 1 mazo")
    assert why(game) == [(0, "envido", 6), (0, "truco", 1)]
    assert game.score == (13, 9)


def test_flor_points_are_added_before_envido_points_at_the_chico_boundary_2v2() -> None:
    """The project's order (docs/rules.md: envido and flor before the truco; the why lists
    flor, then envido, then truco): at 28-28 an envido settled first (team 0) and a later
    flor (team 1) both reach 30; the flor is added first and wins the chico."""
    game = at_score((28, 28), "4c 5o 6b", "1o 2e 3e", "7o 6o 1e", "10c 11c 12c", flor=True)
    play(game, "0 truco; 1 envido; 0 quiero; 3 flor; 1 no-quiero")
    hand = game.history[-1]
    assert hand.why == ((1, "flor", 3), (0, "envido", 2), (0, "truco", 1))
    assert hand.score == (28, 30) and game.winner == 1
