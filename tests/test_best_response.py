"""The best-response learner of the exploitability check: it must find the leaks of bots
that have them on purpose, and its untrained form must be its base policy exactly."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np
import pytest

from truco import Game
from truco.actions import ENVIDO, FALTA_ENVIDO, TRUCO
from truco.bots import make_bot
from truco.bots.judgement import hand_power, table_power
from truco.cards import tanto
from truco.rl.best_response import (
    PLAY,
    POWER_EDGES,
    TANTO_EDGES,
    BestResponse,
    Decision,
    HandPair,
    OptionStats,
    high_stakes,
    match_env,
    options,
    paired_hands,
    paired_match,
    per_hand,
    situation,
    train,
)
from truco.rules import Rules
from truco.view import seat_view

RULES = Rules(target=15)
SEEDS = list(range(500, 520))


@pytest.mark.parametrize("bot", ["scared", "station"])
def test_training_finds_what_an_exploitable_style_gives_away(bot: str) -> None:
    """``scared`` refuses almost every call, ``station`` accepts every one: after a short
    training the learner must win clearly more per hand than the base policy would from
    the same positions, with the whole 95% interval (bootstrap over seeds) above 0."""
    learner = BestResponse(RULES, seed=0)
    train(learner, bot, matches=24, seed=0)
    assert learner.evaluated > 100
    hands = paired_hands(learner, bot, SEEDS)
    gain, low, _ = per_hand(hands, lambda h: h.gain)
    assert gain > 0.3 and low > 0.1  # clearly positive: not a lucky deal or two
    assert per_hand(hands, lambda h: h.trained)[0] > 0.5
    assert sum(h.departed for h in hands) > len(hands) / 5


def test_the_untrained_learner_gains_exactly_nothing() -> None:
    """The baseline of the paired measure: with an empty table the learner never departs
    from the base policy, so every hand's gain is exactly 0."""
    hands = paired_hands(BestResponse(RULES, seed=0), "station", SEEDS[:3])
    assert len(hands) > 10
    assert not any(h.departed for h in hands)
    assert per_hand(hands, lambda h: h.gain) == (0.0, 0.0, 0.0)


def test_the_base_branch_is_the_hand_the_base_policy_plays() -> None:
    """The copy that plays the base policy from a departure reproduces the real thing:
    up to the first hand where the trained learner departs, the match is the one the
    base policy plays itself, and that hand's base points are the ones the base policy
    gets in it (same deal, hidden cards, bot memory and random state)."""
    learner = BestResponse(RULES, seed=0)
    train(learner, "station", matches=12, seed=0)
    untrained = BestResponse(RULES, seed=0)
    checked = 0
    for seed in SEEDS[:6]:
        for team in (0, 1):
            trained = paired_match(learner, match_env("station", RULES, team), seed)
            base = paired_match(untrained, match_env("station", RULES, team), seed)
            first = next((i for i, h in enumerate(trained) if h.departed), None)
            if first is None:
                continue
            assert [h.trained for h in trained[:first]] == [h.trained for h in base[:first]]
            assert trained[first].base == base[first].trained
            checked += 1
    assert checked > 5


def test_per_hand_means_over_hands_and_resamples_whole_seeds() -> None:
    """The gain per hand is total points over total hands; the interval resamples seeds
    (a seed's hands together), so hands that move together within a seed widen it as one
    observation would, and a constant gain has no width at all."""
    constant = [HandPair(s, 0, 1.0, 0.0, True) for s in range(5) for _ in range(s + 1)]
    assert per_hand(constant, lambda h: h.gain) == pytest.approx((1.0, 1.0, 1.0))
    uneven = [HandPair(0, 0, 3.0, 0.0, True)] + [HandPair(1, 0, 0.0, 0.0, False)] * 2
    assert per_hand(uneven, lambda h: h.gain)[0] == pytest.approx(1.0)
    rng = np.random.default_rng(3)
    seed_effects = rng.normal(size=30)
    clustered = [HandPair(s, 0, e, 0.0, True) for s, e in enumerate(seed_effects) for _ in range(8)]
    mean, low, high = per_hand(clustered, lambda h: h.gain)
    assert mean == pytest.approx(seed_effects.mean())
    # the width of 30 observations (the seeds), not of 240 independent hands
    naive = 2 * 1.96 * seed_effects.std(ddof=1) / np.sqrt(30)
    assert 0.8 * naive < high - low < 1.2 * naive


def test_falta_situations_need_more_trials_before_they_are_trusted() -> None:
    """A falta envido's outcome is worth up to the rest of the match: a situation where it
    is an option, or is being answered, is trusted after ``stake_visits`` trials only."""
    turn = ("turn", 0, False, (ENVIDO, FALTA_ENVIDO, TRUCO, -1), 4, 1, "", None, True)
    answer = ("envido", 0, ("envido", "falta-envido"), (50, 51), 5, 2, "", None, False)
    plain = ("turn", 0, False, (ENVIDO, TRUCO, -1), 4, 1, "", None, True)
    assert high_stakes(turn) and high_stakes(answer) and not high_stakes(plain)
    learner = BestResponse(RULES, seed=0, min_visits=3, stake_visits=6, stake_caution=2.0)
    for key in (turn, plain):
        stats = OptionStats.empty(len(key[3]))  # type: ignore[arg-type]
        for _ in range(4):
            stats.add([1.0] * len(key[3]))  # type: ignore[arg-type]
        learner.table[key] = stats
    assert learner.stats(plain) is learner.table[plain]
    assert learner.stats(turn) is None


def test_a_falta_option_must_win_by_more_standard_errors() -> None:
    """Past its trials, a falta envido still needs an edge of ``stake_caution`` standard
    errors of the paired difference over the base's option, where a truco needs
    ``caution``: the same edge (about 1.5 errors) moves the learner to the truco only."""
    learner = BestResponse(RULES, seed=0, min_visits=3, caution=1.0, stake_visits=3)
    learner.stake_caution = 2.0
    edge = [-1.5, 1.0, 3.5, -1.5, 1.0, 3.5, -1.5, 1.0, 3.5, 1.0]  # mean 1.0, error 0.65
    for option, rest in ((FALTA_ENVIDO, (ENVIDO,)), (TRUCO, (ENVIDO,))):
        opts = (*rest, option, PLAY)
        key = ("turn", 0, False, opts, 4, 1, "", None, True)
        stats = OptionStats.empty(3)
        for x in edge:
            stats.add([0.0, x, 0.0])
        learner.table[key] = stats
        d = Decision(opts, key, base_action=0, cards=(0,))
        assert learner.base_option(d) == PLAY
        assert learner.best_option(d) == (PLAY if option == FALTA_ENVIDO else TRUCO)


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


def test_merged_shards_hold_every_trial_of_both() -> None:
    """Shards trained apart (the benchmark's ``--jobs``) merge into one table: every
    situation's trials, sums and paired products are those of both shards together."""
    one, two = BestResponse(RULES, seed=0), BestResponse(RULES, seed=1)
    train(one, "station", matches=2, seed=0)
    train(two, "station", matches=2, seed=1)
    counts = {k: v.n for k, v in one.table.items()}
    for k, v in two.table.items():
        counts[k] = counts.get(k, 0) + v.n
    shared = next(k for k in one.table if k in two.table)
    sums = one.table[shared].sums + two.table[shared].sums
    merged = BestResponse(RULES, seed=0)
    merged.merge(one)
    merged.merge(two)
    assert {k: v.n for k, v in merged.table.items()} == counts
    assert np.allclose(merged.table[shared].sums, sums)
    assert merged.evaluated == one.evaluated + two.evaluated
    assert one.table[shared].n + two.table[shared].n == merged.table[shared].n
    assert merged.table[shared] is not one.table[shared]


def test_a_learner_that_reads_the_table_buckets_a_won_baza_by_the_cards_left() -> None:
    """Before a card of the hand is down both abstractions agree; after the first baza
    the ``read_table`` learner's power bucket is the table read, so a won baza with
    nothing left to take another falls to a lower bucket than the rough score puts it."""
    lower = 0
    for seed in range(60):
        game = Game(RULES, seed=seed)
        seat = game.actors()[0]
        view = seat_view(game, seat)
        opts = options(view.legal)
        assert situation(view, opts) == situation(view, opts, read_table=True)
        while not seat_view(game, seat).baza_results:
            actor = game.actors()[0]
            game.apply(actor, min(a for a in game.legal_actions(actor) if a < 40))
        seat = game.actors()[0]
        view = seat_view(game, seat)
        team = seat & 1
        rough = situation(view, options(view.legal))[5]
        read = situation(view, options(view.legal), read_table=True)[5]
        assert rough == bisect_right(POWER_EDGES, hand_power(view.hand, view.baza_results, team))
        assert read == bisect_right(
            POWER_EDGES, table_power(view.hand, view.baza_results, (), team, view.mano & 1)
        )
        lower += view.baza_results[0] == team and read < rough
    assert lower > 5


class _UncopyablePolicy:
    """A policy that, like a torch model, cannot be deep-copied; uniform over legal."""

    observation = "observation"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        result: np.ndarray = mask / mask.sum()
        return result

    def __deepcopy__(self, memo: dict[int, object]) -> _UncopyablePolicy:
        raise TypeError("cannot pickle 'torch._C.Generator' object")


def test_a_policy_that_cannot_be_copied_is_measured_on_its_own_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 32: the exploitability check could not measure the project's PPO agent:
    ``copy.deepcopy`` of the environment failed on the torch policy, and the default
    target (15) refused a policy trained for 30."""
    import importlib.util
    from pathlib import Path

    from truco.rl.policy_bot import LinearPolicy, PolicyBot

    rules30 = Rules(target=30)
    bot = PolicyBot(_UncopyablePolicy(rules30), seed=1, greedy=False)
    learner = BestResponse(rules30, seed=2, saturation=2)
    env = match_env(bot, rules30, team=0)
    env.reset(seed=5)
    view = seat_view(env.state.game, env.seat)
    d = learner.decide(view, env.state.legal_actions(env.seat))
    while d.key is None:  # to a decision with options to try in copies
        env.step(learner.action(d, learner.base_option(d)))
        d = learner.decide(seat_view(env.state.game, env.seat), env.state.legal_actions(env.seat))
    assert len(learner.evaluate(env, d)) == len(d.options)

    spec = importlib.util.spec_from_file_location(
        "exploitability", Path(__file__).parent.parent / "benchmarks" / "exploitability.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.table_for([bot], None, None) == rules30
    assert bench.table_for([make_bot("simple", 0)], None, None) == Rules(target=15)
    with pytest.raises(ValueError, match="trained for 2 players to 30"):
        bench.table_for([bot], None, 15)
    path = tmp_path / "p30.npz"
    LinearPolicy.zeros(rules30).save(path)
    made = make_bot(f"linear:{path}", 0)
    assert bench.table_for([made, make_bot("simple", 0)], None, None) == rules30
