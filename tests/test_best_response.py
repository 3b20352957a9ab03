"""The best-response learner of the exploitability check: it must find the leaks of bots
that have them on purpose, and its untrained form must be its base policy exactly."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np
import pytest

from truco import Game
from truco.actions import ENVIDO
from truco.arena.stats import mean_interval
from truco.bots import make_bot
from truco.cards import tanto
from truco.rl.best_response import (
    PLAY,
    TANTO_EDGES,
    BestResponse,
    OptionStats,
    duplicate_margins,
    match_env,
    options,
    situation,
    train,
)
from truco.rules import Rules
from truco.view import seat_view

RULES = Rules(target=15)
SEEDS = list(range(500, 520))


@pytest.mark.parametrize("bot", ["scared", "station"])
def test_training_finds_what_an_exploitable_style_gives_away(bot: str) -> None:
    """``scared`` refuses almost every call, ``station`` accepts every one: a short
    training must win clearly more per hand than the untrained learner (the base policy)
    on the same deals, in duplicate."""
    baseline = duplicate_margins(BestResponse(RULES, seed=0), bot, SEEDS)
    learner = BestResponse(RULES, seed=0)
    train(learner, bot, matches=20, seed=0)
    assert learner.evaluated > 100
    trained = duplicate_margins(learner, bot, SEEDS)
    gains = [a - b for a, b in zip(trained, baseline, strict=True)]
    assert np.mean(trained) > 0.5  # clearly positive points per hand
    assert np.mean(gains) > 0.5  # and well above what the base policy took
    assert mean_interval(gains)[1] > 0  # the whole 95% interval: not a lucky deal or two
    assert sum(g > 0 for g in gains) > len(gains) / 2


def test_the_untrained_learner_is_its_base_policy() -> None:
    """The baseline a gain is counted from: with an empty table, every action is the
    base bot's (same seed, same views)."""
    env = match_env("search:easy", RULES, team=1)
    learner = BestResponse(RULES, seed=4)
    reference = make_bot("simple", 4)
    env.reset(seed=9)
    done, decisions = False, 0
    while not done:
        view = seat_view(env.state.game, env.seat)
        legal = env.state.legal_actions(env.seat)
        action = learner.choose(view, legal)
        assert action == reference.choose(view, legal, RULES)
        _, _, done, _, _ = env.step(action)
        decisions += 1
    assert decisions > 10


def test_evaluating_the_options_leaves_the_match_untouched() -> None:
    """Every option is tried in a copy: the real match, its bots and its deals go on as
    if nothing had been tried, and the option the base policy picks is worth what the
    same hand then brings."""
    env = match_env("simple", RULES, team=0)
    twin = match_env("simple", RULES, team=0)
    learner = BestResponse(RULES, seed=1)
    env.reset(seed=3)
    twin.reset(seed=3)
    tried = 0
    for _ in range(200):
        view = seat_view(env.state.game, env.seat)
        d = learner.decide(view, env.state.legal_actions(env.seat))
        if d.key is not None:
            values = learner.evaluate(env, d)
            assert len(values) == len(d.options)
            tried += 1
        action = learner.action(d, learner.base_option(d))
        _, _, done, _, _ = env.step(action)
        _, _, twin_done, _, _ = twin.step(action)
        assert env.record() == twin.record() and done == twin_done
        if done:
            break
    assert tried > 3


def test_option_stats_give_the_paired_difference_and_its_error() -> None:
    rng = np.random.default_rng(0)
    samples = rng.normal(size=(50, 3)) + np.array([0.0, 0.5, -1.0])
    stats = OptionStats.empty(3)
    for row in samples:
        stats.add(row)
    diff = samples[:, 1] - samples[:, 0]
    mean, error = stats.advantage(1, 0)
    assert mean == pytest.approx(diff.mean())
    assert error == pytest.approx(diff.std(ddof=1) / np.sqrt(len(diff)))
    assert np.allclose(stats.means(), samples.mean(axis=0))


def test_an_envido_answer_is_keyed_by_the_answering_seat_s_tanto() -> None:
    """The mazo is no option while a card may be played; answering an envido, the
    situation holds the seat's tanto bucket (the envido is no longer open then, but the
    tanto is what the answer hinges on)."""
    assert options([0, 5, 40, 47, 52]) == (40, 47, PLAY)
    buckets = set()
    for seed in range(30):
        game = Game(RULES, seed=seed)
        caller = game.actors()[0]
        game.apply(caller, ENVIDO)
        seat = game.actors()[0]
        view = seat_view(game, seat)
        key = situation(view, options(view.legal))
        assert key[:3] == ("envido", 0, ("envido",))
        assert key[4] == bisect_right(TANTO_EDGES, tanto(game.hand_cards(seat)))
        buckets.add(key[4])
    assert len(buckets) > 3
