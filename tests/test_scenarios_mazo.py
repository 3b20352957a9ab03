"""Irse al mazo (docs/rules.md "Irse al mazo" and "Fine points")."""

from __future__ import annotations

import pytest

from util import legal, new_game, play, why

STRONG, WEAK = "1e 1b 7e", "4c 5c 6c"


def test_leaving_on_ones_turn_gives_the_rival_one_point_and_no_envido_point() -> None:
    game = new_game(STRONG, WEAK)
    assert "mazo" in legal(game, 0)
    play(game, "0 mazo")
    assert why(game) == [(1, "truco", 1)]  # no extra point for leaving in the first baza
    assert game.score == (0, 1)


def test_mazo_is_not_legal_off_turn_with_no_call_waiting() -> None:
    game = new_game(STRONG, WEAK)
    assert "mazo" not in legal(game, 1)


@pytest.mark.parametrize(
    "moves,team,points",
    [
        ("0 truco; 1 mazo", 0, 1),  # a pending truco counts as refused
        ("0 truco; 1 retruco; 0 mazo", 1, 2),
        ("0 truco; 1 retruco; 0 vale-cuatro; 1 mazo", 0, 3),
        ("0 truco; 1 quiero; 0 mazo", 1, 2),  # the accepted value
        ("0 truco; 1 retruco; 0 quiero; 0 mazo", 1, 3),
        ("0 play 7e; 1 truco; 0 quiero; 1 mazo", 0, 2),
    ],
)
def test_the_rival_scores_the_truco_value_in_force(moves, team, points) -> None:
    game = new_game(STRONG, WEAK)
    play(game, moves)
    assert why(game) == [(team, "truco", points)]


@pytest.mark.parametrize(
    "moves,envido",
    [
        ("0 envido; 1 mazo", (0, "envido", 1)),
        ("0 envido; 1 envido; 0 mazo", (1, "envido", 2)),
        ("0 envido; 1 real-envido; 0 falta-envido; 1 mazo", (0, "envido", 5)),
    ],
)
def test_a_pending_envido_counts_as_refused(moves, envido) -> None:
    game = new_game(STRONG, WEAK)
    play(game, moves)
    leaver = int(moves.split(";")[-1].split()[0])
    assert why(game) == [envido, (1 - leaver, "truco", 1)]


def test_a_pending_envido_that_answered_a_truco_counts_as_refused_with_the_truco() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 truco; 1 envido; 0 mazo")
    assert why(game) == [(1, "envido", 1), (1, "truco", 1)]


def test_a_settled_envido_keeps_its_points() -> None:
    game = new_game(STRONG, "7c 6c 4o")  # 33 against seat 0's 1e 1b 7e tanto 7
    play(game, "0 envido; 1 quiero; 0 mazo")
    assert why(game) == [(1, "envido", 2), (1, "truco", 1)]


def test_a_pending_flor_counts_as_refused() -> None:
    game = new_game("7e 6e 5e", "7c 4c 10c", flor=True)
    play(game, "0 flor; 1 mazo")
    assert why(game) == [(0, "flor", 3), (0, "truco", 1)]


@pytest.mark.parametrize(
    "moves,flor",
    [
        ("0 flor; 1 contraflor; 0 mazo", (1, "flor", 3)),
        ("0 flor; 1 contraflor-al-resto; 0 mazo", (1, "flor", 6)),
        ("0 flor; 1 contraflor; 0 contraflor-al-resto; 1 mazo", (0, "flor", 6)),
    ],
)
def test_a_pending_contraflor_counts_as_refused(moves, flor) -> None:
    game = new_game("7e 6e 5e", "7c 4c 10c", flor=True)
    play(game, moves)
    leaver = int(moves.split(";")[-1].split()[0])
    assert why(game) == [flor, (1 - leaver, "truco", 1)]


def test_settled_flor_points_stay() -> None:
    game = new_game("7e 6e 5e", "7c 4c 10c", flor=True)
    play(game, "0 flor; 1 contraflor; 0 quiero; 0 mazo")
    assert why(game) == [(0, "flor", 6), (1, "truco", 1)]


def test_leaving_later_in_the_hand_is_still_the_truco_value() -> None:
    game = new_game(STRONG, WEAK)
    play(game, "0 play 1e; 1 play 4c; 0 mazo")  # seat 0 had won the first baza
    assert why(game) == [(1, "truco", 1)]


# -- teams ------------------------------------------------------------------------------

TEAM = ("1e 4o 5o", "4c 5c 6c", "1b 4e 5e", "4b 5b 6b")


def test_one_teammate_leaves_the_turn_passes_and_the_partner_plays_on_2v2() -> None:
    game = new_game(*TEAM)
    play(game, "0 play 1e; 1 play 4c; 2 play 4e; 3 play 4b")  # seat 0 wins: it leads
    assert game.actors() == (0,)
    play(game, "0 mazo")
    assert game.actors() == (1,)  # the turn passes to the next seat in the hand
    assert legal(game, 0) == set()
    play(game, "1 play 5c; 2 play 1b; 3 play 5b")
    # seat 0's 1e still counts: team 0 won the first and the second baza
    assert why(game) == [(0, "truco", 1)]


def test_the_team_loses_when_its_last_player_leaves_2v2() -> None:
    game = new_game(*TEAM)
    play(game, "0 mazo; 1 play 4c")
    assert not game.needs_deal
    play(game, "2 mazo")
    assert why(game) == [(1, "truco", 1)]


def test_a_pending_call_stays_open_for_the_partners_2v2() -> None:
    game = new_game(*TEAM)
    play(game, "0 truco")
    assert game.actors() == (1, 3)
    play(game, "1 mazo")
    assert game.actors() == (3,)
    play(game, "3 quiero")
    assert game.actors() == (0,)
    play(game, "0 play 1e; 2 play 4e; 3 play 4b")  # seat 1 is gone: the baza has three cards
    assert game.actors() == (0,)
    play(game, "0 play 4o; 2 play 5e; 3 play 5b")
    assert why(game) == [(0, "truco", 2)]


def test_a_pending_envido_is_refused_when_the_whole_team_leaves_2v2() -> None:
    game = new_game(*TEAM)
    play(game, "0 play 1e; 1 play 4c; 2 envido; 1 mazo; 3 mazo")
    assert why(game) == [(0, "envido", 1), (0, "truco", 1)]


def test_a_lone_flor_holder_leaving_lets_the_flor_stand_uncontested_2v2() -> None:
    game = new_game("7e 6e 5e", "7c 4c 10c", "1o 2b 3o", "4e 5b 6o", flor=True)
    play(game, "0 flor")
    assert game.actors() == (1,)
    play(game, "1 mazo")  # team 1 still has seat 3, who holds no flor
    assert game.actors() == (0,)
    play(game, "0 truco; 3 no-quiero")
    assert why(game) == [(0, "flor", 3), (0, "truco", 1)]


def test_the_last_player_of_a_baza_leaving_settles_it_2v2() -> None:
    game = new_game(*TEAM)
    play(game, "0 play 4o; 1 play 4c; 2 play 1b; 3 mazo")
    assert game.actors() == (2,)  # the baza is settled with three cards; seat 2 won it


def test_a_departed_leader_is_replaced_by_the_next_seat_in_the_hand_2v2() -> None:
    # seats 0 and 2 (team 0) both play a 3; seat 0 played first but left meanwhile
    game = new_game("3e 4o 5o", "4c 5c 6c", "3b 4e 5e", "4b 5b 6b")
    play(game, "0 play 3e; 1 truco; 0 mazo; 2 quiero")
    play(game, "1 play 4c; 2 play 3b; 3 play 4b")
    assert game.baza_results == [0]  # seat 0's card still counts for its team
    assert game.actors() == (1,)  # "the next seat after it that is still in the hand"
