from util import legal, new_game, play, why


def test_helpers_play_a_plain_hand() -> None:
    game = new_game("1e 3c 4b", "2o 5c 6e")
    assert legal(game, 1) == set()
    play(game, "0 play 1e; 1 play 2o; 0 play 3c; 1 play 5c")
    assert why(game) == [(0, "truco", 1)]
    assert game.score == (1, 0)
