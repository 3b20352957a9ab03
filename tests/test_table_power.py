"""The table read of the expert's rollouts (:func:`truco.bots.judgement.table_power`):
late in a hand a player judges its hand by its chance of taking the bazas left, reading
the cards on the table, and the expert no longer raises with nothing left to win."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

import strategies
from truco import Game, Rules
from truco.actions import NO_QUIERO, QUIERO, RETRUCO, VALE_CUATRO, is_say
from truco.bots import SearchBot, make_bot
from truco.bots.judgement import WIN_SHARE, hand_power, table_power
from truco.bots.opponent import RivalTracker
from truco.bots.rollout import (
    JITTERS,
    NEUTRAL,
    PlayerModel,
    action_likelihood,
    policy_action,
    policy_actions,
)
from truco.cards import DECK, STRENGTH, parse_card
from truco.view import seat_view


def _cards(*names: str) -> tuple[int, ...]:
    return tuple(parse_card(n) for n in names)


def test_a_card_s_win_share_is_how_much_of_the_deck_it_beats() -> None:
    assert WIN_SHARE[parse_card("1e")] == 1.0  # beats every other card
    four = WIN_SHARE[parse_card("4e")]
    assert four == 1.5 / 39  # ties the three other 4s, beats nothing
    assert all(0.0 <= share <= 1.0 for share in WIN_SHARE)
    by_strength = sorted(DECK, key=STRENGTH.__getitem__)
    assert [WIN_SHARE[c] for c in by_strength] == sorted(WIN_SHARE)


def test_a_won_baza_is_no_strength_without_a_card_to_take_another() -> None:
    led_six, four = [(0, parse_card("6c"))], _cards("4e")
    # the rough score counts the first baza won as strength; the table read does not
    assert hand_power(four, [0], 0) >= 0.4
    assert table_power(four, [0], led_six, 0, 0) < 0.3
    # and a lost baza does not make two cards that beat what is left worthless
    assert hand_power(_cards("2c", "12o"), [0], 1) == 0.0
    assert table_power(_cards("2c", "12o"), [0], led_six, 1, 0) > 0.7


def test_the_cards_on_the_table_decide_the_current_baza() -> None:
    three_over_two = [(0, parse_card("3c")), (1, parse_card("2e"))]
    ace, four = WIN_SHARE[parse_card("1b")], WIN_SHARE[parse_card("4e")]
    # the first baza is ours on the table: the ace takes the second, or the 4 the third
    assert table_power(_cards("1b", "4e"), [], three_over_two, 0, 0) == ace + (1 - ace) * four
    # a second baza won after the first: the hand is ours whatever the 4 does
    assert table_power(_cards("4e"), [0], three_over_two, 0, 0) == 1.0
    # after losing the first, the third baza decides: the 4 has to take it
    assert table_power(_cards("4e"), [1], three_over_two, 0, 0) == four
    # the rival's 2 down: our cheapest card that beats it (the 3) takes the baza
    assert table_power(_cards("3c", "4e"), [1], [(1, parse_card("2e"))], 0, 0) == four
    # nothing that beats it: the lowest card loses it, the other has the third baza
    five = WIN_SHARE[parse_card("5c")]
    assert table_power(_cards("5c", "4e"), [0], [(1, parse_card("2e"))], 0, 0) == five


def _last_card_positions(seed: int) -> tuple[Game, int, int] | None:
    """A random 1v1 hand played with cards only up to the last card of its last baza:
    the game, the seat to play it and that card (None if the hand ended earlier)."""
    rng = random.Random(seed)
    game = Game(Rules(target=30), seed=seed)
    while True:
        seat = game.actors()[0]
        cards = [a for a in game.legal_actions(seat, False) if a < 40]
        if len(game.baza_results) == 2 and len(game.bazas[-1]) == 1:
            return (game, seat, cards[0]) if len(cards) == 1 else None
        game.push(seat, rng.choice(cards))
        if game.history:
            return None


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**9))
def test_with_every_card_known_the_read_is_the_engine_s_verdict(seed: int) -> None:
    position = _last_card_positions(seed)
    if position is None:
        return
    game, seat, card = position
    ((_, down),) = game.bazas[-1]
    if STRENGTH[down] == STRENGTH[card]:
        return  # a parda is read as half a baza, not as the engine's rule
    team = seat & 1
    read = table_power([card], game.baza_results, [(seat ^ 1, down)], team, game.round_mano & 1)
    game.push(seat, card)
    assert read == (1.0 if game.history[-1].points[team] else 0.0)


def test_a_raise_over_our_led_card_weighs_the_worlds_that_beat_it_up() -> None:
    """Seat 1 won the first baza and led a 6; seat 0's retruco is likely from a hand that
    beats the 6 and holds a card for the third baza, read by the table; the rough score
    (a lost baza, minus) finds it no likelier than from two low cards."""
    table = PlayerModel(table=True)
    likelihoods = {}
    for name, hand in (("strong", _cards("2c", "12o", "11b")), ("weak", _cards("4c", "5o", "11b"))):
        game = Game(Rules(target=15), manual_deal=True)
        game.deal((hand, _cards("6c", "7o", "4e")))
        for seat, token in ((0, "play 11b"), (1, "play 7o"), (1, "truco"), (0, "quiero")):
            game.play(seat, token)
        game.play(1, "play 6c")
        likelihoods[name] = (
            action_likelihood(game, 0, RETRUCO, NEUTRAL),
            action_likelihood(game, 0, RETRUCO, table),
        )
    assert likelihoods["strong"][1] > 3 * likelihoods["weak"][1]
    assert likelihoods["strong"][0] == likelihoods["weak"][0]


def test_the_expert_does_not_raise_with_nothing_left_to_take_a_baza() -> None:
    """Seen against mirror:loose: the expert won the first baza with the 7 of oros, led
    the 6 of copas, holds the 4 of espadas, and the rival, who has yet to play, says
    retruco. On the rough score the rivals of its rollouts fold to a vale cuatro (they
    lost a baza), so it raised and lost 4; read by the table it folds."""
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((_cards("2c", "12o", "11b"), _cards("6c", "7o", "4e")))
    for seat, token in (
        (0, "play 11b"),
        (1, "play 7o"),
        (1, "truco"),
        (0, "quiero"),
        (1, "play 6c"),
        (0, "retruco"),
    ):
        game.play(seat, token)
    view = seat_view(game, 1)
    legal = [a for a in view.legal if not is_say(a)]
    assert VALE_CUATRO in legal
    for seed in range(3):
        expert = make_bot("search:expert", seed)
        rough = make_bot("search:expert", seed)
        assert isinstance(expert, SearchBot) and isinstance(rough, SearchBot)
        assert expert.method.table_power
        rough.method = dataclasses.replace(rough.method, table_power=False)
        assert rough.choose(view, legal, game.rules) == VALE_CUATRO
        assert expert.choose(view, legal, game.rules) in (NO_QUIERO, QUIERO)


def _late_truco_hands(answer: str, hands: int) -> RivalTracker:
    """``hands`` hands in which the rival (seat 1) takes the first baza with the 7 of oros,
    leads the 4 of espadas keeping the 5 of copas, and answers our truco with
    ``answer``; a tracker of seat 0 reading the table watches them."""
    tracker = RivalTracker(0, PlayerModel(table=True), read_table=True)
    game = Game(Rules(target=30), manual_deal=True)
    for _ in range(hands):
        game.deal((_cards("4c", "1e", "3b"), _cards("7o", "4e", "5c")))
        tracker.observe(seat_view(game, 0))
        steps = [(0, "play 4c"), (1, "play 7o")]
        if game.actors() == (1,):
            steps.reverse()
        steps += [(1, "play 4e"), (0, "truco"), (1, answer)]
        if answer == "quiero":
            steps += [(0, "play 1e"), (0, "play 3b"), (1, "play 5c")]
        for seat, token in steps:
            if seat == 0:
                tracker.observe(seat_view(game, 0))
            game.play(seat, token)
    tracker.observe(seat_view(game, 0))
    return tracker


def test_the_tracker_reads_whether_a_rival_counts_a_won_baza_as_strength() -> None:
    """Holding only the 5 after leading the 4, a rival who judges by the first baza's
    rough score accepts a truco (a won baza is 0.4 of strength) and one who reads the
    table folds it: after a few such answers the tracker knows which it faces."""
    rough = _late_truco_hands("quiero", 3)
    assert rough.table_answers == 3
    assert rough.table_evidence < 0
    assert not rough.reads_table() and not rough.model().table
    reader = _late_truco_hands("no-quiero", 3)
    assert reader.table_answers == 3
    assert reader.table_evidence > 0
    assert reader.reads_table() and reader.model().table
    # a fold with the 5 unseen says less than an acceptance that shows it
    assert -rough.table_evidence > 3 * reader.table_evidence


def test_simple_table_level_reads_the_table_where_simple_counts_the_won_baza() -> None:
    """``simple:table`` (the stronger learner's base in the exploitability benchmark)
    folds the truco ``simple`` accepts with only the 5 left after leading the 4."""
    game = Game(Rules(target=30), manual_deal=True)
    game.deal((_cards("4c", "1e", "3b"), _cards("7o", "4e", "5c")))
    for seat, token in ((0, "play 4c"), (1, "play 7o"), (1, "play 4e"), (0, "truco")):
        game.play(seat, token)
    view = seat_view(game, 1)
    legal = [a for a in view.legal if not is_say(a)]
    rough = [make_bot("simple", seed).choose(view, legal, game.rules) for seed in range(40)]
    read = [make_bot("simple:table", seed).choose(view, legal, game.rules) for seed in range(40)]
    assert rough.count(QUIERO) == 40
    assert read.count(NO_QUIERO) >= 34  # all but its 5% of loose acceptances


@settings(max_examples=300, deadline=None)
@given(
    table=st.sampled_from(strategies.SAMPLE_TABLES),
    seed=st.integers(0, 10**9),
    calls=st.floats(-0.3, 0.3),
    envido_accepts=st.floats(-0.3, 0.3),
    truco_accepts=st.floats(-0.3, 0.3),
    reads_table=st.booleans(),
    shifts=st.lists(st.floats(-0.5, 0.5), min_size=1, max_size=7),
)
def test_the_policy_asked_at_several_shifts_answers_as_asked_at_each(
    table: Rules,
    seed: int,
    calls: float,
    envido_accepts: float,
    truco_accepts: float,
    reads_table: bool,
    shifts: list[float],
) -> None:
    """The worlds' weights ask the policy at every shift at once, the hand judged once:
    each answer is the one the policy gives at that shift alone, whatever the others."""
    model = PlayerModel(calls, envido_accepts, truco_accepts, table=reads_table)
    game, seat = strategies.random_position(table, seed, max_actions=60)
    legal = game.legal_actions(seat, False)
    together = policy_actions(game, seat, legal, (*shifts, *JITTERS), model)
    alone = [policy_action(game, seat, legal, s, model) for s in (*shifts, *JITTERS)]
    assert together == alone
    assert all(a in legal for a in together)
