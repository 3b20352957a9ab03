"""Truco (docs/rules.md "Truco" and "Fine points"): each level accepted and refused, who may
raise and when, any teammate answers, nobody plays while a call waits."""

from __future__ import annotations

import pytest

from truco.game import IllegalAction
from util import legal, new_game, play, why

STRONG, WEAK = "1e 1b 7e", "4c 5c 6c"
LEVELS = [
    ("truco", 2, 1),
    ("truco retruco", 3, 2),
    ("truco retruco vale-cuatro", 4, 3),
]


def _calls(chain: str):
    game = new_game(STRONG, WEAK)
    calls = chain.split()
    play(game, [(i % 2, c) for i, c in enumerate(calls)])
    return game, len(calls) % 2


def test_without_calls_the_hand_is_worth_one() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 play 1e; 1 play 4c; 0 play 1b; 1 play 5c")
    assert why(game) == [(0, "truco", 1)] and game.score == (1, 0)


@pytest.mark.parametrize("chain,accepted,refused", LEVELS, ids=[c[0] for c in LEVELS])
def test_an_accepted_level_is_worth_its_value_to_the_winner(chain, accepted, refused) -> None:
    game, answerer = _calls(chain)
    play(game, [(answerer, "quiero")])
    assert game.actors() == (0,)  # the calls did not use up seat 0's turn
    play(game, "0 play 1e; 1 play 4c; 0 play 1b; 1 play 5c")
    assert why(game) == [(0, "truco", accepted)]


@pytest.mark.parametrize("chain,accepted,refused", LEVELS, ids=[c[0] for c in LEVELS])
def test_a_refused_level_gives_its_refusal_value_to_the_caller(chain, accepted, refused) -> None:
    game, answerer = _calls(chain)
    play(game, [(answerer, "no-quiero")])
    assert game.needs_deal  # a refused truco ends the hand at once
    assert why(game) == [(1 - answerer, "truco", refused)]


@pytest.mark.parametrize(
    "chain,answers",
    [
        (
            "truco",
            {
                "quiero",
                "no-quiero",
                "retruco",
                "mazo",
                "envido",
                "real-envido",
                "falta-envido",
            },
        ),
        ("truco retruco", {"quiero", "no-quiero", "vale-cuatro", "mazo"}),
        ("truco retruco vale-cuatro", {"quiero", "no-quiero", "mazo"}),
    ],
)
def test_the_answers_to_each_level(chain, answers) -> None:
    game, answerer = _calls(chain)
    assert game.actors() == (answerer,)
    assert legal(game, answerer) == answers
    assert legal(game, 1 - answerer) == set()  # nobody plays while a call waits


def test_only_the_team_that_accepted_may_raise_later_on_its_own_turn() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 truco; 1 quiero")
    assert not {"truco", "retruco"} & legal(game, 0)
    play(game, "0 play 7e")
    assert "retruco" in legal(game, 1) and "truco" not in legal(game, 1)
    play(game, "1 retruco; 0 quiero")
    assert game.actors() == (1,)
    assert not {"retruco", "vale-cuatro"} & legal(game, 1)  # the caller of retruco cannot raise
    play(game, "1 play 6c")  # seat 0 won the first baza
    assert game.actors() == (0,)
    assert "vale-cuatro" in legal(game, 0)
    play(game, "0 vale-cuatro")
    assert legal(game, 1) == {
        "quiero",
        "no-quiero",
        "mazo",
    }  # nothing above vale cuatro
    play(game, "1 quiero; 0 play 1e; 1 play 4c")
    assert why(game) == [(0, "truco", 4)]


def test_a_raise_as_an_answer_accepts_the_call_below() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 truco; 1 retruco; 0 no-quiero")
    assert why(game) == [(1, "truco", 2)]  # the truco was accepted by the retruco


def test_a_call_does_not_use_up_the_callers_turn_later_in_the_hand() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 play 7e; 1 play 4c; 0 truco; 1 quiero")
    assert game.actors() == (0,)
    assert {"play 1e", "play 1b"} <= legal(game, 0)


def test_truco_may_be_called_in_the_third_baza_by_the_player_whose_turn_it_is() -> None:
    game = new_game("1e 4b 7e", "1b 5c 6c")
    play(game, "0 play 4b; 1 play 1b; 1 play 5c; 0 play 7e")
    assert game.actors() == (0,)
    play(game, "0 truco")
    assert legal(game, 1) == {
        "quiero",
        "no-quiero",
        "retruco",
        "mazo",
    }  # no envido any more
    play(game, "1 quiero; 0 play 1e; 1 play 6c")
    assert why(game) == [(0, "truco", 2)]


def test_nobody_plays_a_card_while_a_call_waits() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 truco")
    with pytest.raises(IllegalAction) as info:
        play(game, "0 play 1e")
    assert "waiting" in info.value.reason or "answer" in info.value.reason
    with pytest.raises(IllegalAction) as info:
        play(game, "1 play 4c")
    assert "waits for its answer" in info.value.reason


# -- teams ------------------------------------------------------------------------------

TEAM_DEAL = ("1e 4o 5o", "4c 5c 6c", "1b 4e 5e", "4b 5b 6b")


def test_any_teammate_answers_the_truco_2v2() -> None:
    game = new_game(*TEAM_DEAL)
    play(game, "0 truco")
    assert game.actors() == (1, 3)
    assert "quiero" in legal(game, 1) and "quiero" in legal(game, 3)
    assert legal(game, 2) == set()
    play(game, "3 quiero")
    assert game.actors() == (0,)


def test_the_accepting_team_raises_through_any_of_its_players_2v2() -> None:
    game = new_game(*TEAM_DEAL)
    play(game, "0 truco; 3 quiero; 0 play 1e")
    assert "retruco" in legal(game, 1)  # seat 3 accepted; its partner raises on its turn
    play(game, "1 retruco")
    assert game.actors() == (0, 2)
    play(game, "2 vale-cuatro")  # team 0 accepts the retruco and raises
    assert game.actors() == (1, 3)
    play(game, "1 no-quiero")
    assert why(game) == [(0, "truco", 3)]


def test_any_teammate_answers_the_truco_3v3() -> None:
    game = new_game("1e 4o 5o", "4c 5c 6c", "1b 4e 5e", "4b 5b 6b", "7e 6o 7c", "2c 3c 12c")
    play(game, "0 play 1e; 1 truco")
    assert game.actors() == (0, 2, 4)
    play(game, "4 no-quiero")
    assert why(game) == [(1, "truco", 1)]
