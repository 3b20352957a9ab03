"""Bots: only legal actions, reproducible, and they see nothing hidden."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strategies
from truco import Game, Rules
from truco.actions import is_say
from truco.arena.match import play_match
from truco.bots import BOTS, Bot, SearchBot, make_bot
from truco.determinize import Determinizer
from truco.view import SeatView, seat_view

TABLES = strategies.SAMPLE_TABLES
#: Small search budgets keep the property tests fast; the levels only change budgets.
FAST_BOTS = ["random", "simple", "search:3x1", "search:3x3"]


def random_position(rules: Rules, seed: int) -> tuple[Game, int]:
    return strategies.random_position(rules, seed, max_actions=80)


@settings(max_examples=800, deadline=None)
@given(
    table=st.sampled_from(TABLES),
    seed=st.integers(0, 10**9),
    spec=st.sampled_from(["random", "simple", "tight", "loose", "station", "scared", "falta"]),
)
def test_rule_bots_return_legal_actions(table: Rules, seed: int, spec: str) -> None:
    game, seat = random_position(table, seed)
    view = seat_view(game, seat)
    action = make_bot(spec, seed).choose(view, view.legal, table)
    assert action in view.legal
    game.apply(seat, action)


@settings(max_examples=250, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9), spec=st.sampled_from(FAST_BOTS))
def test_every_bot_returns_a_legal_action(table: Rules, seed: int, spec: str) -> None:
    game, seat = random_position(table, seed)
    view = seat_view(game, seat)
    bot = make_bot(spec, seed)
    action = bot.choose(view, view.legal, table)
    assert action in view.legal
    game.apply(seat, action)  # the engine agrees


@pytest.mark.parametrize("spec", ["simple", "search:easy"])
def test_named_levels_return_legal_actions(spec: str) -> None:
    for seed in range(15):
        for table in TABLES:
            game, seat = random_position(table, seed)
            view = seat_view(game, seat)
            assert make_bot(spec, seed).choose(view, view.legal, table) in view.legal


def test_registry_and_levels() -> None:
    assert {"random", "simple", "search"} <= set(BOTS)
    for spec in (
        "search",
        "search:easy",
        "search:medium",
        "search:hard",
        "search:normal",
        "simple:normal",
    ):
        assert isinstance(make_bot(spec, 1), Bot)
    assert repr(make_bot("search:hard", 1)) == "search:hard"
    with pytest.raises(ValueError):
        make_bot("search:impossible")
    with pytest.raises(ValueError):
        make_bot("nobody")


def test_single_legal_action_returns_at_once() -> None:
    game = Game(Rules(flor=True), manual_deal=True)
    game.deal(((0, 1, 2), (13, 25, 37)))  # seat 0 holds flor: only flor or mazo... and it is mano
    view = seat_view(game, 0)
    bot = SearchBot("hard", 1)
    state = bot.rng.getstate()
    assert bot.choose(view, [view.legal[0]], game.rules) == view.legal[0]
    assert bot.rng.getstate() == state  # no search happened


@pytest.mark.parametrize("players", [2, 4, 6])
def test_same_seed_same_game(players: int) -> None:
    rules = Rules(players=players, flor=players == 4)
    a = play_match(("search:3x3", "simple"), rules, 5, 0, False, keep_record=True)
    b = play_match(("search:3x3", "simple"), rules, 5, 0, False, keep_record=True)
    assert a.record == b.record and a.winner_bot == b.winner_bot


class SpyBot(Bot):
    """Records every view it is given, then plays like the simple bot."""

    name = "spy"

    def __init__(self, inner: Bot, views: list[tuple[SeatView, Game]], game: list[Game]) -> None:
        super().__init__("default", 0)
        self.inner, self.views, self.game = inner, views, game

    def choose(self, view: SeatView, legal: Sequence[int], rules: Rules) -> int:
        self.views.append((view, self.game[0].clone()))
        return self.inner.choose(view, legal, rules)


@pytest.mark.parametrize("rules", [Rules(players=2), Rules(players=4, flor=True), Rules(players=6)])
def test_a_bot_is_given_no_hidden_card(rules: Rules) -> None:
    views: list[tuple[SeatView, Game]] = []
    holder: list[Game] = []
    bots = [SpyBot(make_bot("simple", s), views, holder) for s in range(rules.players)]
    game = Game(rules, seed=11)
    holder.append(game)
    rng = random.Random(0)
    while not game.is_over and len(views) < 400:
        seat = rng.choice(game.actors())
        view = seat_view(game, seat)
        action = bots[seat].choose(view, view.legal, rules)
        game.apply(seat, action)
    assert views
    for view, state in views:
        viewer = view.seat
        assert viewer is not None
        hidden = {c for s in range(rules.players) if s != viewer for c in state.cards[s]}
        visible = set(view.hand) | set(view.dealt) | {c for _, c in view.played}
        visible |= {c for b in view.bazas for _, c in b}
        assert view.hand == tuple(state.cards[viewer])
        assert not hidden & visible
        # and the megaphone words of the rival team are not in it
        assert all(not is_say(a) or s & 1 == viewer & 1 for s, a in view.log)


@settings(max_examples=100, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9))
def test_search_worlds_agree_with_the_public_information(table: Rules, seed: int) -> None:
    game, seat = random_position(table, seed)
    view = seat_view(game, seat)
    bot = SearchBot("4x3", seed)
    for world in bot._worlds(Determinizer(view), seat & 1, bot.worlds):
        seen = seat_view(world, seat)
        assert dataclasses.replace(seen, last_hand=None) == dataclasses.replace(
            view, last_hand=None
        )


# -- the gauntlet, the cautious search and the fitted rival model


def _pending_view(rules: Rules, deal: tuple[tuple[int, ...], ...], actions: list[str]) -> SeatView:
    game = Game(rules, manual_deal=True)
    game.deal(deal)
    for token in actions:
        game.play(game.actors()[0], token)
    return seat_view(game, game.actors()[0])


def _cards(*names: str) -> tuple[int, ...]:
    from truco.cards import parse_card

    return tuple(parse_card(n) for n in names)


WEAK, STRONG = _cards("4c", "5o", "6b"), _cards("1e", "1b", "7e")


def test_the_gauntlet_is_registered() -> None:
    from truco.bots import GAUNTLET

    assert {"tight", "loose", "station", "scared", "falta", "mirror:tight", "mirror:loose"} == set(
        GAUNTLET
    )
    for spec in GAUNTLET:
        assert repr(make_bot(spec, 1)) == spec


def test_styles_answer_as_their_names_say() -> None:
    from truco.actions import NO_QUIERO, QUIERO

    rules = Rules()
    # seat 1 (weak cards, tanto 5) answers a truco and an envido of seat 0
    truco = _pending_view(rules, (STRONG, WEAK), ["truco"])
    envido = _pending_view(rules, (STRONG, WEAK), ["envido"])
    for view in (truco, envido):
        acts = [a for a in view.legal if not is_say(a)]
        assert make_bot("station", 1).choose(view, acts, rules) == QUIERO
        assert make_bot("scared", 1).choose(view, acts, rules) == NO_QUIERO
        assert make_bot("tight", 1).choose(view, acts, rules) == NO_QUIERO


def test_falta_happy_calls_falta_and_tight_never_does() -> None:
    from truco.actions import FALTA_ENVIDO

    rules = Rules()
    hand = _cards("7o", "6o", "1c")  # tanto 33
    view = _pending_view(rules, (hand, WEAK), [])
    acts = [a for a in view.legal if not is_say(a)]
    assert make_bot("falta", 1).choose(view, acts, rules) == FALTA_ENVIDO
    assert make_bot("tight", 1).choose(view, acts, rules) != FALTA_ENVIDO


def test_mirror_bots_model_their_rivals_differently() -> None:
    tight, loose = make_bot("mirror:tight", 1), make_bot("mirror:loose", 1)
    assert isinstance(tight, SearchBot) and isinstance(loose, SearchBot)
    assert tight.rivals.truco_accepts < 0 < loose.rivals.truco_accepts


def test_cautious_search_does_not_call_falta_with_a_tanto_of_4() -> None:
    from truco.actions import FALTA_ENVIDO

    rules = Rules()
    view = _pending_view(rules, (_cards("4o", "12c", "6e"), _cards("7c", "6c", "3b")), [])
    acts = [a for a in view.legal if not is_say(a)]
    for seed in range(3):
        assert make_bot("search:hard", seed).choose(view, acts, rules) != FALTA_ENVIDO


def test_the_expert_decides_from_the_view_alone() -> None:
    # two games that differ only in the rival's hidden cards: same view, same choice
    rules = Rules()
    mine = _cards("3e", "2c", "7o")
    a = _pending_view(rules, (mine, WEAK), [])
    b = _pending_view(rules, (mine, _cards("1e", "1b", "7e")), [])
    assert a == b
    acts = [x for x in a.legal if not is_say(x)]
    assert make_bot("search:expert", 4).choose(a, acts, rules) == make_bot(
        "search:expert", 4
    ).choose(b, acts, rules)


def _fitted(rival: str) -> object:
    from truco.bots.opponent import RivalTracker

    rules = Rules(target=15)
    tracker = RivalTracker(0)
    for m in range(3):
        game = Game(rules, seed=f"fit{m}")
        bots = [make_bot("loose", m), make_bot(rival, m)]
        while not game.is_over:
            seat = game.actors()[0]
            view = seat_view(game, seat)
            action = bots[seat].choose(view, [x for x in view.legal if not is_say(x)], rules)
            if seat == 0:
                tracker.observe(view)
                tracker.own_action(view, action)
            game.apply(seat, action)
    return tracker.model()


def test_the_rival_model_is_fitted_to_the_answers_seen() -> None:
    from truco.bots.rollout import PlayerModel

    station, scared = _fitted("station"), _fitted("scared")
    assert isinstance(station, PlayerModel) and isinstance(scared, PlayerModel)
    assert station.truco_accepts > 0 > scared.truco_accepts
    assert station.envido_accepts > 0 > scared.envido_accepts


@settings(max_examples=300, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9))
def test_simple_never_calls_falta_without_the_tanto_for_it(table: Rules, seed: int) -> None:
    from truco.actions import FALTA_ENVIDO
    from truco.cards import tanto

    game, seat = random_position(table, seed)
    view = seat_view(game, seat)
    if FALTA_ENVIDO in view.legal:
        action = make_bot("simple", seed).choose(view, view.legal, table)
        assert action != FALTA_ENVIDO or tanto(view.dealt) >= 31


class _NeverLucky:
    """An rng whose draws never pass a chance test (the beginner's 5% loose accepts)."""

    def random(self) -> float:
        return 0.99


def _truco_answers(rival: str) -> list[tuple[int, int]]:
    """Play simple (seat 0) against ``rival`` to 30; at each truco seat 0 answers after
    the sixth hand: (the answer of the simple that has read the match, the answer of a
    simple that has not)."""
    from truco.actions import ENVIDO_CALLS
    from truco.bots import SimpleBot

    rules = Rules()
    game = Game(rules, seed=f"reader-{rival}")
    reader, opponent = SimpleBot(seed=1), make_bot(rival, 1)
    reader.rng = _NeverLucky()  # type: ignore[assignment]
    out = []
    while not game.is_over:
        seat = game.actors()[0]
        view = seat_view(game, seat)
        acts = [x for x in view.legal if not is_say(x)]
        bot = reader if seat == 0 else opponent
        answering = seat == 0 and view.pending is not None and view.pending.kind == "truco"
        if answering and game.hand_index >= 6 and not any(a in ENVIDO_CALLS for a in acts):
            fresh = SimpleBot(seed=1)
            fresh.rng = _NeverLucky()  # type: ignore[assignment]
            out.append((reader.choose(view, acts, rules), fresh.choose(view, acts, rules)))
            game.apply(seat, out[-1][0])
            continue
        game.apply(seat, bot.choose(view, acts, rules))
    return out


def test_simple_calls_a_bluffers_truco_more_often() -> None:
    from truco.actions import NO_QUIERO

    # against a rival who calls truco at most hands (loose bluffs 30% of its turns) the
    # beginner accepts hands it would refuse against an unknown rival, never fewer
    loose = _truco_answers("loose")
    assert loose and all(not (r == NO_QUIERO and f != NO_QUIERO) for r, f in loose)
    assert any(r != NO_QUIERO and f == NO_QUIERO for r, f in loose)
    # a tight rival (who rarely calls) is answered as an unknown one
    assert all(r == f for r, f in _truco_answers("tight"))


def test_the_call_reader_counts_the_rivals_openings() -> None:
    from truco.bots.simple import CallReader

    views = []
    game = Game(Rules(), seed="reader")
    bots = [make_bot("simple", 1), make_bot("loose", 2)]
    while not game.is_over:
        seat = game.actors()[0]
        view = seat_view(game, seat)
        if seat == 0:
            views.append(view)
        game.apply(seat, bots[seat].choose(view, [x for x in view.legal if not is_say(x)], Rules()))
    reader = CallReader()
    assert reader.rates() == CallReader.BASE
    for view in views:
        reader.observe(view)
    envido, truco = reader.rates()
    assert envido > CallReader.BASE[0] and truco > CallReader.BASE[1]
    reader.observe(views[0])  # an earlier hand: a new match
    assert len(reader.hands) == 1


def test_the_rival_model_moves_from_its_prior_towards_the_answers_seen() -> None:
    from truco.bots.opponent import SEARCH_LIKE, RivalTracker
    from truco.bots.search import LEVELS

    assert LEVELS["expert"].prior == SEARCH_LIKE  # the expert starts where a search bot is
    tracker = RivalTracker(0, SEARCH_LIKE)
    assert tracker.model() == SEARCH_LIKE
    tracker.truco_answers.extend([False] * 4)  # a rival who refuses our trucos
    refusing = tracker.model()
    assert refusing.truco_accepts < SEARCH_LIKE.truco_accepts
    assert refusing.envido_accepts == SEARCH_LIKE.envido_accepts  # answered apart
    tracker.truco_answers.extend([False] * 8)
    assert tracker.model().truco_accepts < refusing.truco_accepts  # more evidence, further
    tracker.envido_answers.extend([True] * 4)  # ... who takes every envido
    assert tracker.model().envido_accepts > SEARCH_LIKE.envido_accepts


def test_the_rollout_answers_envido_and_truco_by_their_own_shifts() -> None:
    from truco.actions import ENVIDO, QUIERO, TRUCO
    from truco.bots.rollout import PlayerModel, policy_action

    truco_wide, envido_wide = PlayerModel(truco_accepts=0.3), PlayerModel(envido_accepts=0.3)
    # the answering hands: tanto 6 and little power; tanto 25 and less power
    for call, answering, wide, other in (
        (TRUCO, _cards("3c", "4b", "6o"), truco_wide, envido_wide),
        (ENVIDO, _cards("5e", "10e", "4c"), envido_wide, truco_wide),
    ):
        game = Game(Rules(), manual_deal=True)
        caller = game.mano  # the mano speaks first
        hands = [STRONG, STRONG]
        hands[1 - caller] = answering
        game.deal(tuple(hands))
        game.apply(caller, call)
        rival = 1 - caller
        legal = game.legal_actions(rival, False)
        assert policy_action(game, rival, legal, 0.0) != QUIERO
        assert policy_action(game, rival, legal, 0.0, other) != QUIERO
        assert policy_action(game, rival, legal, 0.0, wide) == QUIERO


def test_the_wary_rival_is_looser_than_the_policy_whatever_the_fit() -> None:
    from truco.bots.rollout import NEUTRAL, PlayerModel
    from truco.bots.search import LEVELS, WARY_SHIFT, wary

    folding = PlayerModel(calls=-0.3, envido_accepts=-0.3, truco_accepts=-0.3)
    for model in (folding, NEUTRAL, PlayerModel(calls=0.2, truco_accepts=0.1)):
        guard = wary(model)
        assert guard.calls >= max(model.calls, 0.0) + WARY_SHIFT
        assert guard.envido_accepts >= max(model.envido_accepts, 0.0) + WARY_SHIFT
        assert guard.truco_accepts >= max(model.truco_accepts, 0.0) + WARY_SHIFT
    assert LEVELS["expert"].wary > 0
    # the gauntlet's mirrors and the other levels search as before
    assert all(LEVELS[level].wary == 0 for level in ("easy", "medium", "hard"))


@pytest.mark.slow  # (seconds: out of the quick lane)
def test_the_expert_bluffs_a_trash_truco_less_when_its_worlds_include_the_wary_rival() -> None:
    """The leak issue 11's best response found: an expert whose fit says "this rival
    folds" called truco as mano on a worthless hand nearly every time."""
    from truco.actions import TRUCO
    from truco.bots.judgement import hand_power
    from truco.bots.rollout import PlayerModel

    folding = PlayerModel(truco_accepts=-0.3)
    rules = Rules(target=15)
    trucos = {0.0: 0, 0.5: 0}
    deals = 0
    for seed in range(1, 200):
        game = Game(rules, seed=5000 + seed, first_mano=0)
        if hand_power(game.cards[0], (), 0) >= 0.2:
            continue
        deals += 1
        for share in trucos:
            bot = make_bot("search:expert", seed)
            assert isinstance(bot, SearchBot)
            # the wary worlds alone (the bounded bluffs and robust calls, which stop
            # these bluffs too, are tested in tests/test_expert_bots.py)
            bot.method = dataclasses.replace(
                bot.method, prior=folding, wary=share, bluff_rate=None, robust=False
            )
            action = bot.choose(seat_view(game, 0), game.legal_actions(0, False), rules)
            trucos[share] += action == TRUCO
        if deals == 20:
            break
    assert trucos[0.0] >= 16  # the fit alone: a bluff at almost every worthless hand
    assert trucos[0.5] <= trucos[0.0] - 2
