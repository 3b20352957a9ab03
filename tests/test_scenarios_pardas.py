"""Pardas and who wins the hand (docs/rules.md "Bazas and who wins the hand")."""

from __future__ import annotations

import pytest

from util import legal, new_game, play, why


def test_first_parda_second_decides() -> None:
    game = new_game("3e 4b 1e", "3b 5o 6c")
    play(game, "0 play 3e; 1 play 3b")
    assert game.actors() == (0,)  # after a parda the mano leads again
    play(game, "0 play 4b; 1 play 5o")
    assert why(game) == [(1, "truco", 1)]
    assert game.score == (0, 1)
    assert len(game.history[-1].actions) == 4  # the third baza is not played


def test_after_a_parda_the_mano_leads_when_the_mano_is_seat_1() -> None:
    # seat 1 is mano: after the parda it leads, not seat 0
    game = new_game("3b 5o 6c", "3e 4b 1e", first_mano=1)
    play(game, "1 play 3e; 0 play 3b")
    assert game.actors() == (1,)
    assert "play 1e" in legal(game, 1) and legal(game, 0) == set()


def test_first_won_second_parda_goes_to_the_winner_of_the_first() -> None:
    game = new_game("1e 3e 4b", "4c 3b 5o")
    play(game, "0 truco; 1 quiero; 0 play 1e; 1 play 4c; 0 play 3e; 1 play 3b")
    assert why(game) == [(0, "truco", 2)]
    assert game.score == (2, 0)


def test_first_and_second_split_third_parda_goes_to_the_winner_of_the_first() -> None:
    # the first baza is won by the non-mano, so "winner of the first" differs from "mano"
    game = new_game("4b 1e 3e", "1b 4c 3b")
    play(game, "0 play 4b; 1 play 1b")
    assert game.actors() == (1,)  # the winner of a baza leads the next
    play(game, "1 play 4c; 0 play 1e")
    assert game.actors() == (0,)
    play(game, "0 play 3e; 1 play 3b")
    assert why(game) == [(1, "truco", 1)]


def test_two_pardas_then_the_third_decides() -> None:
    game = new_game("3e 2e 4b", "3b 2b 5c")
    play(game, "0 play 3e; 1 play 3b; 0 play 2e; 1 play 2b")
    assert not game.needs_deal  # two pardas: the third decides
    assert game.actors() == (0,)
    play(game, "0 play 4b; 1 play 5c")
    assert why(game) == [(1, "truco", 1)]


@pytest.mark.parametrize("mano", [0, 1])
def test_three_pardas_go_to_the_mano_team(mano: int) -> None:
    game = new_game("3e 2e 12b", "3b 2b 12c", first_mano=mano)
    other = 1 - mano
    for card_0, card_1 in (("3e", "3b"), ("2e", "2b"), ("12b", "12c")):
        mine = card_0 if mano == 0 else card_1
        theirs = card_1 if mano == 0 else card_0
        assert game.actors() == (mano,)
        play(game, [(mano, f"play {mine}"), (other, f"play {theirs}")])
    assert why(game) == [(mano, "truco", 1)]


def test_false_aces_and_false_sevens_are_parda() -> None:
    game = new_game("1o 7c 5e", "1c 7b 6e")
    play(game, "0 play 1o; 1 play 1c; 0 play 7c; 1 play 7b")
    assert not game.needs_deal
    play(game, "0 play 5e; 1 play 6e")
    assert why(game) == [(1, "truco", 1)]


def test_first_won_second_won_by_same_team_ends_without_a_third() -> None:
    game = new_game("1e 1b 4c", "5c 6c 7c")
    play(game, "0 play 1e; 1 play 5c; 0 play 1b; 1 play 6c")
    assert game.needs_deal and game.actors() == ()
    assert why(game) == [(0, "truco", 1)]
    assert len(game.history[-1].actions) == 4
    assert legal(game, 0) == set() and legal(game, 1) == set()


def test_split_bazas_third_decides() -> None:
    game = new_game("1e 4b 5b", "4c 1b 6c")
    play(game, "0 play 1e; 1 play 4c; 0 play 4b; 1 play 1b; 1 play 6c; 0 play 5b")
    assert why(game) == [(1, "truco", 1)]


# -- teams ------------------------------------------------------------------------------


def test_equal_top_cards_of_one_team_win_for_it_and_the_first_played_leads_2v2() -> None:
    # mano 1: order 1, 2, 3, 0; seats 2 and 0 (team 0) both play a 3
    game = new_game("3b 4o 5o", "4c 5c 6c", "3e 4e 5e", "2b 4b 6b", first_mano=1)
    play(game, "1 play 4c; 2 play 3e; 3 play 2b; 0 play 3b")
    assert game.actors() == (2,)  # team 0 won, not parda; seat 2 played its 3 first
    play(game, "2 play 4e; 3 play 4b; 0 play 5o; 1 play 5c")
    # second baza: 4e, 4b, 5o, 5c -> seat 0's 5o and seat 1's 5c tie across teams: parda,
    # so the winner of the first (team 0) takes the hand
    assert why(game) == [(0, "truco", 1)]


def test_equal_top_cards_across_teams_are_parda_even_with_a_third_equal_card_2v2() -> None:
    game = new_game("3e 5o 6o", "3b 4c 5c", "3o 7o 6e", "4b 6b 12b")
    play(game, "0 play 3e; 1 play 3b; 2 play 3o; 3 play 4b")
    assert game.actors() == (0,)  # parda: the mano leads
    play(game, "0 play 5o; 1 play 4c; 2 play 7o; 3 play 6b")
    assert why(game) == [(0, "truco", 1)]


def test_after_a_parda_the_seat_after_a_departed_mano_leads_2v2() -> None:
    game = new_game("4c 5c 6c", "3e 4b 5b", "3b 4o 5o", "5e 6e 7c")
    play(game, "0 mazo; 1 play 3e; 2 play 3b; 3 play 5e")
    assert game.actors() == (1,)  # the mano left: the next seat still in the hand leads
