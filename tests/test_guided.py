"""The student-guided search: the student's move on clear decisions, a small expert
search among the student's shortlist on close ones, from the seat's view only."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

import strategies
from truco import Game, Rules
from truco.actions import FALTA_ENVIDO, TRUCO, is_play, is_say, parse_action
from truco.bots import make_bot
from truco.bots.guided import (
    GUIDES,
    MATCH_CALLS,
    Guide,
    GuidedBot,
    envido_decision,
    guide_method,
    shortlist,
)
from truco.bots.search import EXPERT_2026, Evaluation, bluff_draw, cautious_index
from truco.bots.student import StudentBot
from truco.cards import parse_card
from truco.game import MatchPosition
from truco.view import SeatView, seat_view

TABLES = strategies.SAMPLE_TABLES


def _cards(*names: str) -> tuple[int, ...]:
    return tuple(parse_card(n) for n in names)


def test_a_risky_call_needs_more_than_noise_to_beat_the_quiet_move() -> None:
    """The expert's caution, as the guided blend uses it: a call worth a little more than
    a card is played only when the margin is larger than its standard error."""
    play, falta, truco = parse_action("play 4c"), FALTA_ENVIDO, TRUCO
    actions = [play, falta]

    def noisy(i: int, base: int) -> float:
        return 0.8

    def sure(i: int, base: int) -> float:
        return 0.1

    assert cautious_index(actions, [1.0, 1.5], noisy, 1.0) == 0  # within the noise: the card
    assert cautious_index(actions, [1.0, 1.5], sure, 1.0) == 1
    assert cautious_index(actions, [1.0, 1.5], noisy, 0.0) == 1  # no caution: the best
    assert cautious_index(actions, [2.0, 1.5], sure, 1.0) == 0  # a call worth less: never
    assert cautious_index([falta, truco], [1.0, 2.0], noisy, 1.0) == 1  # no quiet move: best
    # of two calls that clear the noise, the one worth most
    assert cautious_index([play, falta, truco], [0.0, 1.0, 2.0], sure, 1.0) == 2


def test_the_shortlist_is_the_best_few_within_the_gate() -> None:
    guide = Guide(candidates=2, gate=1.0, worlds=4)
    assert shortlist([0.0, 3.0, 2.5, 2.8], guide) == [1, 3]
    assert shortlist([0.0, 3.0, 1.5], guide) == [1]
    assert shortlist([1.0, 1.0, 1.0], Guide(candidates=3, gate=0.0, worlds=4)) == [0, 1, 2]


def test_the_guide_searches_like_the_expert_at_a_small_budget() -> None:
    bot = make_bot("student:guided", 1)
    assert isinstance(bot, GuidedBot) and bot.guide == GUIDES["guided"]
    method = guide_method(bot.guide)
    assert method.worlds == bot.guide.worlds < EXPERT_2026.worlds
    assert method.wary == EXPERT_2026.wary and method.table_power and method.adaptive
    assert bot.search.method == method


@settings(max_examples=60, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9))
def test_it_plays_a_legal_action_and_never_talks(table: Rules, seed: int) -> None:
    game, seat = strategies.random_position(table, seed, max_actions=80)
    view = seat_view(game, seat)
    action = make_bot("student:guided", seed).choose(view, view.legal, table)
    assert action in view.legal and not is_say(action)


def test_clear_decisions_are_the_students_and_close_ones_its_shortlists() -> None:
    """Over many positions: where the student's shortlist has one move, that is the
    move; where it has several, the move is one of them, and some are close."""
    student = StudentBot(seed=1)
    searched = 0
    for seed in range(40):
        game, seat = strategies.random_position(Rules(target=15), seed, max_actions=30)
        view = seat_view(game, seat)
        candidates = [a for a in view.legal if not is_say(a)]
        if len(candidates) < 2:
            continue
        bot = GuidedBot(seed=seed)
        candidates = bot.search.bounded_bluffs(view, candidates, MATCH_CALLS)
        if len(candidates) < 2:
            continue
        close = [candidates[i] for i in shortlist(student.values(view, candidates), bot.guide)]
        action = bot.choose(view, view.legal, game.rules)
        assert action in close
        if len(close) == 1:
            assert action == student.choose(view, view.legal, game.rules)
        else:
            searched += 1
    assert searched >= 3


def test_it_sees_only_its_seat() -> None:
    """Two deals that differ only in the rival's hidden cards give the same moves for
    the same seed (the search's worlds are drawn from the view)."""
    mine = _cards("3e", "2o", "4c")
    for seed in (0, 1, 2):
        moves = set()
        for rival in (_cards("1b", "7e", "3c"), _cards("4o", "5b", "6c")):
            game = Game(Rules(target=15), manual_deal=True)
            game.deal((rival, mine))
            game.play(0, "truco")
            view = seat_view(game, 1)
            candidates = [a for a in view.legal if not is_say(a)]
            values = StudentBot().values(view, candidates)
            assert len(shortlist(values, GUIDES["guided"])) > 1  # the search decides
            moves.add(GuidedBot(seed=seed).choose(view, view.legal, game.rules))
        assert len(moves) == 1


def test_a_falta_from_a_weak_tanto_is_bounded_as_the_expert_bounds_its_bluffs() -> None:
    """At 12-7 to 15, answering an envido with a tanto of 6, the student's best move is a
    falta envido (its teacher's rollout rivals fold to one); the guided student makes it
    only in the share of hands the expert bluffs (a draw fixed per hand and seed)."""
    game = Game.at_position(
        MatchPosition(Rules(target=15), 0, 0, (12, 7), (0, 0)), manual_deal=True
    )
    game.deal((_cards("7o", "6o", "1c"), _cards("10o", "5c", "6b")))
    game.play(0, "envido")
    view = seat_view(game, 1)
    candidates = [a for a in view.legal if not is_say(a)]
    assert StudentBot(seed=0).choose(view, view.legal, game.rules) == FALTA_ENVIDO
    rate = EXPERT_2026.bluff_rate
    assert rate is not None
    bounded = 0
    for seed in range(12):
        bot = GuidedBot(seed=seed)
        kept = bot.search.bounded_bluffs(view, candidates, MATCH_CALLS)
        allowed = bluff_draw(seed, view, "envido") < rate
        assert (FALTA_ENVIDO in kept) == allowed
        assert set(candidates) - set(kept) <= {FALTA_ENVIDO}  # its other calls stay
        if not allowed:
            bounded += 1
            assert bot.choose(view, view.legal, game.rules) != FALTA_ENVIDO
    assert bounded >= 8


def _spy(bot: GuidedBot) -> list[str]:
    """Which search each decision of ``bot`` asked for values (its calls in order)."""
    asked: list[str] = []
    for name, search in (("shortlist", bot.search), ("envido", bot.envido_search)):

        def spied(
            view: SeatView,
            candidates: Sequence[int],
            rules: Rules,
            _name: str = name,
            _evaluate: Callable[[SeatView, Sequence[int], Rules], Evaluation] = search.evaluate,
        ) -> Evaluation:
            asked.append(_name)
            return _evaluate(view, candidates, rules)

        search.evaluate = spied  # type: ignore[method-assign]
    return asked


def _first_decision(players: int, envido: bool) -> tuple[Game, int]:
    """A hand's first decision that is (or, past the first baza, is not) an envido
    decision, the cards played before it the first legal ones."""
    game = Game(Rules(players=players, target=15), seed=3)
    while True:
        seat = game.turn
        assert seat is not None
        view = seat_view(game, seat)
        if envido_decision(view, view.legal) == envido and (envido or game.baza_results):
            return game, seat
        game.apply(seat, next(a for a in view.legal if is_play(a)))


def test_in_3v3_the_envido_is_the_experts_search_alone_and_elsewhere_the_students() -> None:
    """The student never learnt the 3v3 envido: there an envido decision (a call that
    may be made, or one to answer) is the expert's search over every candidate at the
    envido budget, reading the rivals as the bot fitted them; its other decisions, and
    every decision at the other tables, go through the student's shortlist."""
    guide = GUIDES["guided"]
    assert guide.unlearnt == frozenset({6}) and guide.envido_worlds > guide.worlds
    cases = [(6, True, True), (4, True, False), (2, True, False), (6, False, False)]
    for players, envido, searched_alone in cases:
        game, seat = _first_decision(players, envido)
        view = seat_view(game, seat)
        bot = make_bot("master", 5)
        assert isinstance(bot, GuidedBot)
        asked = _spy(bot)
        assert bot.choose(view, view.legal, game.rules) in view.legal
        assert ("envido" in asked) == searched_alone, (players, envido, asked)
        if searched_alone:
            assert asked == ["envido"] and bot.envido_search.rivals is bot.search.rivals
