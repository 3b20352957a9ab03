"""The research interface as researchers' own tools find it (issue 15): Gymnasium's
``check_env``, PettingZoo's ``api_test``/``seed_test``, and episodes that a learner
playing second must be able to live through."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from truco.rl.env import BotOpponentEnv, MaskedBotEnv, env

QUIET = pytest.mark.filterwarnings("ignore:Observation")


@pytest.mark.parametrize(
    ("players", "learner", "mano"),
    [(2, 0, 1), (2, 1, 0), (4, (1, 3), 0)],
    ids=["1v1-seat-0", "1v1-seat-1", "2v2-seats-1-3"],
)
def test_a_learner_that_is_not_mano_always_gets_a_decision(
    players: int, learner: int | tuple[int, ...], mano: int
) -> None:
    """One-hand episodes where a bot is mano: a bot that goes to the mazo before the
    learner acts used to hand back a finished episode (an all-zero mask; step raised)."""
    single = BotOpponentEnv(
        players=players,
        learner=learner,
        opponent="random",
        first_mano=mano,
        max_hands=1,
        rewards="hand",
    )
    rng = np.random.default_rng(0)
    skipped = 0
    for episode in range(600):
        obs, info = single.reset(seed=episode)
        skipped += info["skipped"]
        assert obs["action_mask"].any(), "reset returned an episode with nothing to decide"
        assert info["seat"] in single.learner
        terminated = False
        while not terminated:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, _, terminated, truncated, info = single.step(action)
            assert terminated or obs["action_mask"].any()
            assert not truncated
    if players == 2:  # the bot did end some episodes alone: the case was met
        assert skipped > 0


def test_every_point_the_learner_wins_is_paid_even_before_its_first_decision() -> None:
    """Whole matches from seat 1: hands the bot closes before the learner ever acts
    still count, so the rewards add up to the match's returns."""
    single = BotOpponentEnv(players=2, learner=1, opponent="random", rewards="hand", first_mano=1)
    rng = np.random.default_rng(1)
    for episode in range(30):
        obs, _ = single.reset(seed=episode)
        total, terminated = 0.0, False
        while not terminated:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, terminated, _, _ = single.step(action)
            total += reward
        assert total == single.state.returns()[1]


@pytest.mark.parametrize(
    "options",
    [
        {"players": 2, "max_hands": 1, "rewards": "hand", "first_mano": 1},
        {"players": 2, "first_mano": -1, "opponent": "simple"},
        {"players": 4, "flor": True, "learner": (1, 3), "max_hands": 1},
        {"players": 6, "learner": (1, 3, 5), "max_hands": 1, "first_mano": -1},
    ],
    ids=["1v1-hand", "1v1-match-drawn-mano", "2v2-flor", "3v3"],
)
def test_gymnasium_check_env_passes_on_the_masked_env(options: dict[str, object]) -> None:
    check_env(MaskedBotEnv(**options), skip_render_check=True)  # type: ignore[arg-type]


def test_the_masked_env_forfeits_an_illegal_action_and_masks_for_maskable_learners() -> None:
    e = MaskedBotEnv(players=2, max_hands=1, rewards="hand", opponent="random")
    obs, _ = e.reset(seed=3)
    mask = e.action_masks()
    assert mask.dtype == bool and np.array_equal(mask, obs["action_mask"].astype(bool))
    illegal = int(np.flatnonzero(~mask)[0])
    obs, reward, terminated, truncated, info = e.step(illegal)
    assert terminated and not truncated
    assert reward == e.game.min_utility() == -e.game.max_utility()
    assert info["illegal_action"] == illegal
    assert not e.action_masks().any() and not obs["action_mask"].any()
    with pytest.raises(ValueError, match="episode is over"):
        e.step(int(np.flatnonzero(mask)[0]))


def test_reset_options_choose_or_draw_the_first_mano() -> None:
    single = BotOpponentEnv(players=4, max_hands=1, learner=(0, 2))
    for mano in range(4):
        single.reset(seed=mano, options={"first_mano": mano})
        assert single.state.game.mano == mano
    drawn = {
        (single.reset(seed=s, options={"first_mano": -1}), single.state.game.mano)[1]
        for s in range(40)
    }
    assert drawn == {0, 1, 2, 3}
    e = env(players=2, max_hands=1)
    e.reset(seed=0, options={"first_mano": 1})
    assert e.unwrapped.state.game.mano == 1 and e.agent_selection == "player_1"


@QUIET
@pytest.mark.parametrize("max_cycles", [1, 7, 40])
def test_pettingzoo_api_test_passes_with_max_cycles(max_cycles: int) -> None:
    api_test(env(players=4, flor=True, max_cycles=max_cycles), num_cycles=60)


def test_max_cycles_truncates_every_agent_after_that_many_moves() -> None:
    e = env(players=2, max_cycles=5)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    moves = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            assert trunc and not term and moves == 5
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        moves += 1
    assert moves == 5
    with pytest.raises(ValueError, match="max_cycles"):
        env(players=2, max_cycles=0)


@QUIET
@pytest.mark.parametrize("players", [2, 4, 6])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    seed_test(lambda: env(players=players, flor=True, first_mano=-1, max_cycles=300), num_cycles=60)
