"""Mini-truco (issue 32, Build item 2): ``Rules(hand_size=1 or 2)``, one or two cards
each at a 1v1 table sin flor, decided by the engine itself; ``python_mini_truco``
registered with OpenSpiel (a hand of one card each from six cards); solved exactly in
OpenSpiel's C++ tools; the project's bots playing it (their worlds dealt the hand's
size); the exact value of a player against a bot, and the best-response learner on it."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any

import pytest

from truco import Game, Rules
from truco.cards import parse_card
from truco.determinize import sample_game
from truco.game import PARDA, short_round_winner
from truco.rl import TrucoGame
from truco.rl.best_response import BestResponse, paired_hands, train
from truco.rl.efg import to_efg
from truco.rl.exact import bot_player, uniform, value
from truco.rules import RulesError
from truco.view import seat_view


def _hand(size: int, seat0: str, seat1: str, moves: list[tuple[int, str]]) -> Game:
    game = Game(Rules(hand_size=size, target=15), manual_deal=True)
    game.deal(
        (
            tuple(parse_card(c) for c in seat0.split()),
            tuple(parse_card(c) for c in seat1.split()),
        )
    )
    for seat, token in moves:
        game.play(seat, token)
    return game


def test_mini_truco_is_a_1v1_sin_flor_option_and_records_keep_their_rules() -> None:
    for bad in ({"players": 4}, {"flor": True}):
        with pytest.raises(RulesError, match="1v1 sin flor"):
            Rules(hand_size=1, **bad)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="hand_size"):
        Rules(hand_size=4)
    assert "hand_size" not in Rules().to_dict()  # records of the real game are unchanged
    mini = Rules(hand_size=2)
    assert Rules.from_dict(mini.to_dict()) == mini and mini.describe().endswith("de 2 cartas")
    with pytest.raises(ValueError, match="manual_deal"):
        Game(Rules(hand_size=1), seed=1)  # the dealers deal three cards
    with pytest.raises(ValueError, match="1 cards"):
        Game(Rules(hand_size=1), manual_deal=True).deal(((0, 1), (2, 3)))


def test_one_card_each_one_baza_decides_and_a_parda_goes_to_the_mano() -> None:
    # envido quiero (1e has tanto 1, 7e 7: seat 1 wins 2), truco quiero, 1e beats 7e
    game = _hand(1, "1e", "7e", [(0, "envido"), (1, "quiero"), (0, "truco"), (1, "quiero")])
    game.play(0, "play 1e")
    game.play(1, "play 7e")
    assert game.history[-1].points == (2, 2)
    # the two threes tie: parda, and the round goes to the mano, seat 0
    game = _hand(1, "3e", "3b", [(0, "play 3e"), (1, "play 3b")])
    assert game.history[-1].points == (1, 0)


def test_two_cards_each_a_split_goes_to_the_first_baza_and_two_pardas_to_the_mano() -> None:
    game = _hand(2, "1e 4o", "7e 3b", [(0, "play 1e"), (1, "play 7e"), (0, "play 4o")])
    game.play(1, "play 3b")  # seat 1 took the second baza: one each
    assert game.history[-1].points == (1, 0)
    game = _hand(2, "3e 2e", "3b 2b", [(0, "play 3e"), (1, "play 3b"), (0, "play 2e")])
    game.play(1, "play 2b")
    assert game.history[-1].points == (1, 0)  # two pardas: the mano, seat 0
    assert short_round_winner([PARDA, PARDA], 1) == 1 and short_round_winner([1, 0], 0) == 1


def test_the_rl_game_deals_a_small_deck() -> None:
    spec = TrucoGame(hand_size=1, target=15, deck="1e,7e,3b,12c,4o,6c", max_hands=1)
    state = spec.new_initial_state()
    assert [c for c, _ in state.chance_outcomes()] == sorted(
        parse_card(c) for c in ("1e", "7e", "3b", "12c", "4o", "6c")
    )
    state.apply_action(parse_card("1e"))
    state.apply_action(parse_card("7e"))
    assert state.is_player_node() and state.game.dealt == ((parse_card("1e"),), (parse_card("7e"),))
    with pytest.raises(ValueError, match="cannot deal"):
        TrucoGame(hand_size=2, target=15, deck="1e,7e,3b")


def test_openspiel_plays_python_mini_truco() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import truco.rl.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game("python_mini_truco")
    assert game.num_players() == 2 and game.max_utility() == 19.0
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)


def test_the_tree_loads_in_openspiel_and_cfr_plus_solves_it() -> None:
    """The engine's tree of a three-card mini-truco, as ``.efg``: OpenSpiel's C++
    ``efg_game`` has the same information sets, and its exact tools run on it: CFR+
    drives NashConv down, far below the uniform policy's."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as policy_lib

    spec = TrucoGame(hand_size=1, target=15, deck="1e,7e,3b", max_hands=1, returns="hand")
    tree = to_efg(spec)
    game = pyspiel.load_efg_game(tree.text)
    uniform = policy_lib.TabularPolicy(game)
    seats = [
        sum(1 for key in uniform.state_lookup if key.rsplit("-s", 1)[1].startswith(f"{s}-"))
        for s in (0, 1)
    ]
    assert seats == [len(tree.states[0]), len(tree.states[1])]
    random_nash_conv = pyspiel.nash_conv(game, policy_lib.python_policy_to_pyspiel_policy(uniform))
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    solved = pyspiel.nash_conv(game, solver.average_policy())
    assert solved < 0.1 and solved < random_nash_conv / 20
    with pytest.raises(ValueError, match="one-hand"):
        to_efg(TrucoGame(hand_size=1, target=15, deck="1e,7e,3b"))


def _mini_view(size: int, moves: list[tuple[int, str]], seat: int = 1):  # type: ignore[no-untyped-def]
    cards = ("1e", "7e 3b")[size - 1], ("4o", "12c 6c")[size - 1]
    return seat_view(_hand(size, cards[0], cards[1], moves), seat)


@pytest.mark.parametrize("size", [1, 2])
def test_a_determinized_world_of_a_mini_hand_deals_its_hand_size(size: int) -> None:
    """The search bots' worlds (``truco.determinize``) deal ``Rules.hand_size`` cards:
    free seats, and a seat whose declared tanto restricts its hands."""
    rng = random.Random(0)
    for moves in ([], [(0, "envido"), (1, "quiero")]):
        view = _mini_view(size, moves)
        for _ in range(20):
            world = sample_game(view, rng)
            assert all(len(hand) == size for hand in world.dealt)
            assert seat_view(world, 1) == view


def test_the_search_bots_play_mini_truco() -> None:
    spec = TrucoGame(hand_size=1, target=15, deck="1e,7e,3b", max_hands=1, returns="hand")
    for bot in ("search:easy", "search:expert"):
        v = value(spec, (bot_player(bot), bot_player("simple", seeds=2)))
        assert abs(v[0] + v[1]) < 1e-9 and -19 <= v[0] <= 19


def _bench() -> Any:
    loaded = importlib.util.spec_from_file_location(
        "mini_truco", Path(__file__).parent.parent / "benchmarks" / "mini_truco.py"
    )
    assert loaded is not None and loaded.loader is not None
    bench = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(bench)
    return bench


def test_exact_values_agree_with_openspiel_and_stay_below_the_exploitability() -> None:
    """A bot's choices, written as a tabular policy of the efg game, give OpenSpiel's
    expected returns the exact value of :func:`truco.rl.exact.value`; and no player wins
    more against a bot than the bot's exact exploitability (a best response's value)."""
    pyspiel = pytest.importorskip("pyspiel")
    bench = _bench()
    spec = TrucoGame(hand_size=1, target=15, deck="1e,7e,3b", max_hands=1, returns="hand")
    tree = to_efg(spec)
    game = pyspiel.load_efg_game(tree.text)
    sets = bench.information_sets(game)
    simple, easy = bot_player("simple"), bot_player("search:easy", seeds=3)
    seat0 = {k: a for k, a in bench.policy_table(spec, tree, simple).items() if k[1] == "0"}
    seat1 = {k: a for k, a in bench.policy_table(spec, tree, easy).items() if k[1] == "1"}
    joint = bench.tabular(sets, {**seat0, **seat1})
    ours = value(spec, (simple, easy))
    theirs = pyspiel.expected_returns(game.new_initial_state(), joint, -1, True)
    assert ours == pytest.approx(list(theirs), abs=1e-9)
    exploitability = bench.exact_exploitability(spec, tree, game, sets, simple)
    for player in (easy, uniform, bot_player("search:expert")):
        assert bench.versus(spec, player, simple) <= exploitability + 1e-9
    assert bench.exact_exploitability(spec, tree, game, sets, uniform) > 0


def test_the_best_response_learner_trains_and_measures_on_mini_truco() -> None:
    """The learner of ``benchmarks/exploitability.py`` on the same variant: untrained it
    gains exactly nothing over its base; trained against ``simple``, its policy wins
    against it exactly (every deal weighed), where its base breaks even."""
    bench = _bench()
    params = {"deck": "1e,7e,3b,12c,4o,6c", "max_hands": 1}
    learner = BestResponse(Rules(hand_size=1, target=15), seed=0, game=params)
    hands = paired_hands(learner, "simple", range(20))
    assert len(hands) == 40 and all(h.gain == 0 for h in hands)
    spec = TrucoGame(hand_size=1, target=15, returns="hand", **params)
    simple = bot_player("simple")
    assert bench.versus(spec, bench.learner_player(learner), simple) == pytest.approx(0)
    train(learner, "simple", 60, seed=0)
    assert learner.evaluated > 0
    assert bench.versus(spec, bench.learner_player(learner), simple) > 0.5
