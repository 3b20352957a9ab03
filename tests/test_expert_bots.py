"""The expert's guards against the leaks issue 11's best response found: bounded bluffs
and calls that must pay against the fitted and the wary rival apart."""

from __future__ import annotations

import dataclasses
from typing import Any

from truco import Game, Rules
from truco.actions import ENVIDO, ENVIDO_CALLS, NO_QUIERO, QUIERO, TRUCO, is_say
from truco.bots import SearchBot, make_bot
from truco.bots.judgement import hand_tanto
from truco.bots.opponent import SEARCH_LIKE, RivalTracker
from truco.bots.rollout import PlayerModel, action_likelihood
from truco.bots.search import (
    BLUFF_TANTO,
    LEVELS,
    Evaluation,
    bluff_draw,
    bluffs,
)
from truco.cards import parse_card
from truco.view import SeatView, seat_view


def _cards(*names: str) -> tuple[int, ...]:
    return tuple(parse_card(n) for n in names)


def _view(deal: tuple[tuple[int, ...], ...], actions: tuple[str, ...] = ()) -> SeatView:
    game = Game(Rules(target=15), manual_deal=True)
    game.deal(deal)
    for token in actions:
        game.play(game.actors()[0], token)
    return seat_view(game, game.actors()[0])


TRASH = _cards("4c", "5o", "6b")  # tanto 6, no card above a 6
GOOD_TANTO = _cards("7o", "6o", "1c")  # tanto 33
ACES = _cards("1e", "1b", "7e")
MIDDLING = _cards("3c", "6e", "5b")  # a 3 and two low cards


def test_bluffs_are_the_calls_a_weak_hand_would_make() -> None:
    view = _view((TRASH, ACES))
    legal = list(view.legal)
    weak = bluffs(view, legal)
    assert ENVIDO in weak and TRUCO in weak
    strong = bluffs(_view((GOOD_TANTO, TRASH)), legal)
    assert ENVIDO not in strong  # a tanto of 33 is a value call
    assert not bluffs(_view((ACES, TRASH)), legal) & {TRUCO}


def test_after_a_settled_baza_a_truco_is_left_to_the_search() -> None:
    # the table, which the hand power ignores, may make a weak hand a sure winner
    assert TRUCO in bluffs(_view((TRASH, ACES)), [TRUCO])
    view = _view((TRASH, ACES), ("play 4c", "play 1e", "play 1b"))
    assert view.baza_results and view.seat == 0
    assert TRUCO not in bluffs(view, [TRUCO])


def test_a_hand_may_bluff_or_not_once_for_all_its_decisions() -> None:
    a = _view((TRASH, ACES))
    later = _view((TRASH, ACES), ("play 4c", "play 1e", "play 1b"))  # the same seat, a baza later
    assert later.seat == a.seat
    assert bluff_draw(3, a, "envido") == bluff_draw(3, later, "envido")
    assert bluff_draw(3, a, "envido") != bluff_draw(3, a, "truco")
    draws = {round(bluff_draw(seed, a, "envido"), 6) for seed in range(50)}
    assert len(draws) == 50  # differs across bots' seeds


def test_the_expert_opens_envido_as_mano_on_few_weak_hands() -> None:
    """The leak issue 11's learner found: its worlds' rivals never bluff and accept only
    from 27, so opening envido on any tanto folded them; a rival who accepts from 24
    wins those envidos. Bounded, a weak hand opens only about one time in ten."""
    rules = Rules(target=15)
    opened = {"unbounded": 0, "bounded": 0}
    deals = 0
    for seed in range(1, 400):
        game = Game(rules, seed=7000 + seed, first_mano=0)
        if hand_tanto(tuple(game.dealt[0])) >= BLUFF_TANTO:
            continue
        deals += 1
        for name, rate in (("unbounded", None), ("bounded", LEVELS["expert"].bluff_rate)):
            bot = make_bot("search:expert", seed)
            assert isinstance(bot, SearchBot)
            # without the trap: a pass that invites the rival's bluffs is worth more
            # than an envido, whatever the bound; and on the first baza's rough score,
            # whose rollouts fold the rest of the hand to any truco after a bluff
            bot.method = dataclasses.replace(
                bot.method, bluff_rate=rate, trap=False, table_power=False
            )
            action = bot.choose(seat_view(game, 0), game.legal_actions(0, False), rules)
            opened[name] += action in ENVIDO_CALLS
        if deals == 16:
            break
    assert opened["unbounded"] >= 8  # without the bound: most weak hands open
    assert opened["bounded"] <= 3


def test_a_risky_call_must_gain_against_the_fitted_and_the_wary_rival_apart() -> None:
    # worlds 0-3 fitted, 4-7 wary: the truco wins big against the fitted rival (a fold)
    # and loses against the wary one (an accept); on the mean it looks like a gain
    card, truco = 0, TRUCO
    quiet = (0.0,) * 8
    call = (3.0, 3.0, 3.0, 3.0, -0.5, -0.5, -0.5, -0.5)
    evaluation = Evaluation(
        actions=(card, truco),
        values=(0.0, sum(call) / 8),
        errors=(0.0, 0.0),
        worlds=8,
        samples=(quiet, call),
        split=4,
    )
    bot = make_bot("search:expert", 1)
    assert isinstance(bot, SearchBot)
    assert bot.method.robust
    assert bot.cautious_choice(evaluation) == card
    bot.method = dataclasses.replace(bot.method, robust=False)
    assert bot.cautious_choice(evaluation) == truco
    paying = dataclasses.replace(evaluation, samples=(quiet, (3.0,) * 4 + (0.5,) * 4))
    bot.method = dataclasses.replace(bot.method, robust=True)
    assert bot.cautious_choice(paying) == truco


def test_only_the_expert_bounds_its_bluffs() -> None:
    assert LEVELS["expert"].bluff_rate is not None and LEVELS["expert"].robust
    for level in ("easy", "medium", "hard"):
        assert LEVELS[level].bluff_rate is None and not LEVELS[level].robust


def _fitted(rival: str) -> PlayerModel:
    tracker = RivalTracker(0, SEARCH_LIKE)
    rules = Rules(target=15)
    for m in range(3):
        game = Game(rules, seed=f"bluffs{m}")
        bots = [make_bot("simple", m), make_bot(rival, m)]
        while not game.is_over:
            seat = game.actors()[0]
            view = seat_view(game, seat)
            action = bots[seat].choose(view, [x for x in view.legal if not is_say(x)], rules)
            if seat == 0:
                tracker.observe(view)
                tracker.own_action(view, action)
            game.apply(seat, action)
    return tracker.model()


def test_a_rival_opening_the_envido_at_most_hands_is_read_as_bluffing() -> None:
    """mirror:loose opened the envido on tantos under 24 and the expert, whose worlds
    believed every call, refused them all: a point each. The opening rate tells."""
    loose, tight = _fitted("loose"), _fitted("tight")
    assert loose.envido_bluffs >= 0.2
    assert tight.envido_bluffs <= 0.05
    assert RivalTracker(0, SEARCH_LIKE).model().envido_bluffs == 0.0


def test_a_bluffing_rival_s_envido_weighs_the_weak_worlds_up() -> None:
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((ACES, TRASH))  # seat 1 holds a tanto of 6 and opens the envido
    game.play(0, "play 1e")
    believer = action_likelihood(game, 1, ENVIDO, SEARCH_LIKE)
    reader = action_likelihood(game, 1, ENVIDO, dataclasses.replace(SEARCH_LIKE, envido_bluffs=0.5))
    assert believer < 0.1 < 0.5 < reader


def _falta_after_a_pass(hand: tuple[int, ...]) -> tuple[Game, SeatView]:
    """Seat 0 (mano, tanto 25) plays a card without calling; seat 1 opens falta envido."""
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((hand, TRASH))
    game.apply(0, hand[2])
    game.play(1, "falta-envido")
    return game, seat_view(game, 0)


def test_a_rival_opening_after_our_pass_at_most_hands_is_read_as_bluffing() -> None:
    """mirror:loose reads our pass as a capped tanto and calls falta envido on any hand
    (tantos 2 to 33 alike at 15 points); the expert's worlds believed the call."""
    tracker = RivalTracker(0, dataclasses.replace(SEARCH_LIKE, passed_bluffs=0.3))
    assert 0.2 < tracker.model().passed_bluffs < 0.4  # the prior before any evidence
    tracker.passed_chances, tracker.passed_opened = 6, 5
    assert tracker.model().passed_bluffs > 0.5
    tracker.passed_chances, tracker.passed_opened = 6, 0
    assert tracker.model().passed_bluffs < 0.1
    assert RivalTracker(0, SEARCH_LIKE).model().passed_bluffs == 0.0  # off


def test_a_call_after_our_pass_weighs_the_weak_worlds_up() -> None:
    hand = _cards("1o", "4o", "12c")
    model = dataclasses.replace(SEARCH_LIKE, passed_bluffs=0.5)
    # the falta envido of seat 1 (tanto 6), as it was called: after seat 0's card
    before = Game(Rules(target=15), manual_deal=True)
    before.deal((hand, TRASH))
    before.apply(0, hand[2])
    assert action_likelihood(before, 1, ENVIDO, SEARCH_LIKE) < 0.1
    assert action_likelihood(before, 1, ENVIDO, model) > 0.5
    # the same rival opening as mano (nobody passed) reads as before
    mano = Game(Rules(target=15), manual_deal=True)
    mano.deal((TRASH, hand))
    assert action_likelihood(mano, 0, ENVIDO, model) < 0.1


def _expert_having_seen(
    view: SeatView, seed: int, counts: dict[str, int], **method: Any
) -> SearchBot:
    """An expert (its ``Method`` changed by ``method``) at ``view`` whose tracker has
    counted ``counts`` (its attributes) in the match so far."""
    bot = make_bot("search:expert", seed)
    assert isinstance(bot, SearchBot)
    bot.method = dataclasses.replace(bot.method, **method)
    bot.track(view)
    assert bot.tracker is not None
    for name, count in counts.items():
        setattr(bot.tracker, name, count)
    bot.track(view)
    return bot


def _expert_seeing_bluffs_after_passes(view: SeatView, seed: int, **method: Any) -> SearchBot:
    """An expert whose rival has opened the envido after 5 of its 6 passes."""
    return _expert_having_seen(view, seed, {"passed_chances": 6, "passed_opened": 5}, **method)


def test_the_expert_calls_a_falta_after_its_pass_from_a_rival_seen_bluffing_there() -> None:
    """Tanto 25 at 0-0 to 15, facing a falta envido after passing: refused when calls
    read as strong tantos, accepted once the rival has opened after 5 of our 6 passes."""
    _, view = _falta_after_a_pass(_cards("1o", "4o", "12c"))
    legal = [a for a in view.legal if not is_say(a)]
    for passed, answer in ((None, NO_QUIERO), (0.3, QUIERO)):
        for seed in range(3):
            bot = _expert_seeing_bluffs_after_passes(view, seed, passed_bluffs=passed)
            assert bot.decide(view, legal, Rules(target=15)) == answer


def test_the_expert_passes_a_big_tanto_to_a_rival_who_bluffs_after_its_passes() -> None:
    """The trap: with tanto 33 as mano, against a rival seen opening after 5 of our 6
    passes, a card (inviting the bluff, then accepting it) is worth more than any call;
    without the bluffs in the rollouts the expert calls."""
    rules = Rules(target=15)
    game = Game(rules, manual_deal=True)
    game.deal((GOOD_TANTO, TRASH))
    view = seat_view(game, 0)
    legal = [a for a in view.legal if not is_say(a)]
    for trap in (False, True):
        for seed in range(2):
            bot = _expert_seeing_bluffs_after_passes(view, seed, trap=trap, table_power=False)
            action = bot.decide(view, legal, rules)
            assert (action < 40) == trap, (trap, seed, action)


def _truco_shown(rival: tuple[int, ...]) -> tuple[SeatView, SeatView]:
    """Seat 0 (mano, ``MIDDLING``) plays a card, seat 1 (``rival``) opens the truco and
    seat 0 accepts; the hand is played out, its cards shown, and the next one dealt.
    Seat 0's views: as it answers the truco, and in the next hand."""
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((MIDDLING, rival))
    game.apply(0, MIDDLING[2])
    game.play(1, "truco")
    answering = seat_view(game, 0)
    game.play(0, "quiero")
    while not game.needs_deal:
        seat = game.actors()[0]
        game.apply(seat, next(a for a in game.legal_actions(seat, False) if a < 40))
    game.deal((MIDDLING, rival))
    return answering, seat_view(game, 0)


def test_a_rival_whose_shown_trucos_were_weak_is_read_as_bluffing_them() -> None:
    """mirror:loose opens the truco on weak hands; the cards its accepted trucos showed
    tell the expert so, strong ones do not, and without the read nothing is fitted."""
    fits = {}
    for name, rival in (("weak", TRASH), ("strong", ACES)):
        tracker = RivalTracker(0, SEARCH_LIKE, read_trucos=True)
        for view in _truco_shown(rival):
            tracker.observe(view)
        assert tracker.trucos_shown == 1
        fits[name] = tracker.model().truco_bluffs
    assert fits["weak"] > 0.15 and fits["strong"] == 0.0
    off = RivalTracker(0, SEARCH_LIKE)
    for view in _truco_shown(TRASH):
        off.observe(view)
    assert off.trucos_shown == 0 and off.model().truco_bluffs == 0.0


def test_a_bluffing_rival_s_truco_weighs_the_weak_worlds_up() -> None:
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((TRASH, _cards("4e", "5c", "6o")))
    game.play(0, "play 4c")
    model = dataclasses.replace(SEARCH_LIKE, truco_bluffs=0.5)
    assert action_likelihood(game, 1, TRUCO, SEARCH_LIKE) < 0.1
    assert action_likelihood(game, 1, TRUCO, model) > 0.5


def _facing_a_truco(hand: tuple[int, ...]) -> SeatView:
    """Seat 0 (mano, ``hand``) has played its last card; seat 1 opens the truco."""
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((hand, TRASH))
    game.apply(0, hand[2])
    game.play(1, "truco")
    return seat_view(game, 0)


def _answer_to_a_truco_bluffer(view: SeatView, seed: int, **method: Any) -> int:
    """The expert's answer (its ``Method`` changed by ``method``) to the truco of a rival
    whose trucos showed a weak hand 5 times in 6, its worlds reading the rival's hand by
    the first baza's rough score (``table_power`` off: read by the table, a truco
    over our low card needs no bluff to explain it)."""
    method.setdefault("table_power", False)
    bot = _expert_having_seen(view, seed, {"trucos_shown": 6, "trucos_weak": 5}, **method)
    return bot.decide(view, [a for a in view.legal if not is_say(a)], Rules(target=15))


def test_the_expert_accepts_a_truco_from_a_rival_seen_bluffing_them() -> None:
    """A 3 and two low cards after playing one, facing the rival's truco: refused while
    its trucos read as strong hands, accepted after 5 of its 6 shown trucos were weak."""
    view = _facing_a_truco(MIDDLING)
    for prior, answer in ((None, NO_QUIERO), (0.0, QUIERO)):
        for seed in range(3):
            assert _answer_to_a_truco_bluffer(view, seed, truco_bluffs=prior) == answer


def test_the_expert_reads_a_first_truco_as_a_possible_bluff_until_shown_honest() -> None:
    """The expert's prior reads a rival's opening truco as a bluff a weak hand makes 4
    times in 10 (mirror:loose opened 62% of its trucos under a hand power of 0.4): with a
    3 and the ace of bastos left, it accepts the match's first truco, which it refused
    while it believed every truco, and refuses it again from a rival whose 6 shown
    trucos were all strong."""
    assert LEVELS["expert"].truco_bluffs == 0.4
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((_cards("3b", "1c", "5c"), _cards("6o", "4e", "7b")))
    game.play(0, "play 5c")
    game.play(1, "truco")
    view = seat_view(game, 0)
    legal = [a for a in view.legal if not is_say(a)]
    rough = {"table_power": False}  # read by the table, the truco over a 5 is no bluff
    for seed in range(3):
        believing = _expert_having_seen(view, seed, {}, truco_bluffs=None, **rough)
        honest = _expert_having_seen(view, seed, {"trucos_shown": 6, "trucos_weak": 0}, **rough)
        reading = _expert_having_seen(view, seed, {}, **rough)
        assert reading.decide(view, legal, game.rules) == QUIERO
        assert believing.decide(view, legal, game.rules) != QUIERO
        assert honest.decide(view, legal, game.rules) != QUIERO
