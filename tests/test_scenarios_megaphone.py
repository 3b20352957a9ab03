"""The team megaphone (docs/rules.md "Team talk" and "Fine points"): legal only on 4- and
6-player tables, for any seat still in the hand, at any time; it scores nothing and only
the speaker's team sees it."""

from __future__ import annotations

import pytest

from truco.actions import MEGAPHONE_WORDS, SAY_ACTIONS
from truco.game import IllegalAction
from truco.view import seat_view
from util import legal, new_game, play, why

WORDS = {f"say {w}" for w in MEGAPHONE_WORDS}
DEAL_2V2 = ("1e 4o 5o", "4c 5c 6c", "1b 4e 5e", "4b 5b 6b")
DEAL_3V3 = ("1e 4o 5o", "4c 5c 6c", "1b 4e 5e", "4b 5b 6b", "7e 6o 7c", "2c 3c 12c")


def says(game, seat) -> set[str]:
    return legal(game, seat, say=True) - legal(game, seat)


@pytest.mark.parametrize("hands", [DEAL_2V2, DEAL_3V3], ids=["2v2", "3v3"])
def test_every_seat_in_the_hand_may_speak_at_any_time(hands) -> None:
    game = new_game(*hands)
    n = len(hands)
    for seat in range(n):
        assert says(game, seat) == WORDS  # on turn or not
    play(game, "0 truco")  # while a call waits: the caller's team and the called team
    for seat in range(n):
        assert says(game, seat) == WORDS


def test_the_words_are_the_eight_of_the_rule_book() -> None:
    assert {
        "say si", "say no", "say voy", "say veni", "say tantos", "say cantale", "say pone",
        "say no-tengo-nada",
    } == WORDS  # fmt: skip


def test_a_seat_that_left_no_longer_speaks_2v2() -> None:
    game = new_game(*DEAL_2V2)
    play(game, "0 mazo")
    assert says(game, 0) == set()
    with pytest.raises(IllegalAction) as info:
        play(game, "0 say voy")
    assert "mazo" in info.value.reason


def test_no_megaphone_in_1v1() -> None:
    game = new_game("1e 4o 5o", "4c 5c 6c")
    assert says(game, 0) == set() and says(game, 1) == set()
    with pytest.raises(IllegalAction) as info:
        play(game, "0 say si")
    assert "2v2 and 3v3" in info.value.reason
    assert game.actions == []


def test_no_megaphone_between_hands_2v2() -> None:
    game = new_game(*DEAL_2V2)
    play(game, "0 truco; 1 no-quiero")
    assert all(game.legal_actions(s) == [] for s in range(4))


def test_a_word_changes_nothing_and_scores_nothing_2v2() -> None:
    game = new_game(*DEAL_2V2)
    before = (game.actors(), [legal(game, s) for s in range(4)], game.score)
    play(game, "2 say cantale; 1 say no-tengo-nada; 0 say voy")
    assert (game.actors(), [legal(game, s) for s in range(4)], game.score) == before
    play(game, "0 truco; 3 say no")
    assert game.actors() == (1, 3)  # a word is not an answer
    play(game, "1 quiero; 2 say pone")
    assert game.actors() == (0,)  # nor a turn
    play(game, "0 play 1e; 1 play 4c; 2 play 4e; 3 play 4b")
    play(game, "0 play 4o; 1 play 5c; 2 play 5e; 3 play 5b")
    assert why(game) == [(0, "truco", 2)]


def test_only_the_speakers_team_hears_it_2v2() -> None:
    game = new_game(*DEAL_2V2)
    play(game, "1 say tantos")
    say = SAY_ACTIONS[MEGAPHONE_WORDS.index("tantos")]
    assert (1, say) in seat_view(game, 3).log
    assert (1, say) in seat_view(game, 1).log
    assert (1, say) not in seat_view(game, 0).log
    assert (1, say) not in seat_view(game, 2).log
    assert (1, say) not in seat_view(game, None).log


def test_a_flor_holder_obliged_to_sing_may_still_speak_2v2() -> None:
    game = new_game("7e 6e 5e", "4c 5c 6c", "1b 4o 5o", "4b 5b 6b", flor=True)
    assert legal(game, 0) == {"flor", "mazo"}
    assert says(game, 0) == WORDS
