"""The research interface as researchers' own tools find it (issue 15): Gymnasium's
``check_env``, PettingZoo's ``api_test``/``seed_test``, and episodes that a learner
playing second must be able to live through."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from truco.rl.env import BotOpponentEnv, MaskedBotEnv, env, parallel_env

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
            assert terminated or truncated or obs["action_mask"].any()
            # the ``max_hands`` cut is a time limit; only a match won ends it
            assert terminated == single.state.game.is_over and not (terminated and truncated)
            terminated = terminated or truncated
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


def _masked(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def _actions(
    observations: dict[str, dict[str, np.ndarray]], rng: np.random.Generator
) -> dict[str, int]:
    """A legal action of the acting agent, 0 (ignored) for the others."""
    return {a: _masked(o, rng) if o["action_mask"].any() else 0 for a, o in observations.items()}


@pytest.mark.parametrize("players", [2, 4])
def test_max_cycles_counts_cycles_as_pettingzoo_counts_them(players: int) -> None:
    """Issue 32: ``max_cycles`` counted the moves of all agents together. It counts
    cycles now: PettingZoo's ``max_cycles_test`` wants the agent that moves most to
    have moved ``max_cycles`` times (then one last, dead step each), and the parallel
    env to stop after ``max_cycles`` steps."""
    max_cycles = 4
    e = env(players=players, max_cycles=max_cycles)
    rng = np.random.default_rng(2)
    truncated = 0
    for seed in range(20):
        e.reset(seed=seed)
        counts = np.zeros(players, dtype=int)
        for agent in e.agent_iter():
            counts[e.possible_agents.index(agent)] += 1
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else _masked(obs, rng))
        if trunc:  # not ended sooner by a mazo
            truncated += 1
            assert counts.max() - 1 == max_cycles
            assert (counts >= 1).all() and counts.sum() - players >= max_cycles
    assert truncated > 5

    par = parallel_env(players=players, max_cycles=max_cycles)
    observations, _ = par.reset(seed=2)
    steps = 0
    while par.agents:
        observations, _, term, trunc, _ = par.step(_actions(observations, rng))
        steps += 1
    assert steps == max_cycles and all(trunc.values()) and not any(term.values())
    with pytest.raises(ValueError, match="max_cycles"):
        env(players=2, max_cycles=0)


@QUIET
@pytest.mark.parametrize("table", [{"players": 2}, {"players": 4, "flor": True, "max_hands": 2}])
def test_pettingzoo_parallel_api_and_render_tests_pass(table: dict[str, object]) -> None:
    parallel_api_test(parallel_env(**table), num_cycles=3000)
    render_test(lambda **kw: env(**table, **kw))


def test_render_follows_pettingzoo_and_gymnasium(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 32: ``render()`` returned a string in ``"human"`` mode (``render_test``
    failed) and ``BotOpponentEnv(render_mode=...)`` raised."""
    for mode, printed in (("human", True), ("ansi", False)):
        e = env(players=2, render_mode=mode)
        e.reset(seed=1)
        text = e.render()
        assert (text is None) == printed
        single = MaskedBotEnv(players=2, render_mode=mode)
        obs, _ = single.reset(seed=1)
        single.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert (single.render() is None) == printed
        assert ("hand 0" in capsys.readouterr().out) == printed
    check_env(MaskedBotEnv(players=2, render_mode="ansi"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="render_mode"):
        BotOpponentEnv(render_mode="rgb_array")


@pytest.mark.parametrize("make", ["aec", "parallel"])
def test_an_illegal_action_of_the_space_forfeits_as_in_pettingzoo_classic(make: str) -> None:
    """Issue 32: an illegal action in the space raised ``ValueError`` in the AEC env;
    PettingZoo's classic games end the episode with the offending agent losing."""
    rng = np.random.default_rng(0)
    if make == "aec":
        e = env(players=2)
        e.reset(seed=3)
        offender = e.agent_selection
        obs = e.observe(offender)
        illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        e.step(illegal)
        assert all(e.terminations.values())
        assert e._cumulative_rewards[offender] == e.unwrapped.game.min_utility()
        assert all(r == 0 for a, r in e._cumulative_rewards.items() if a != offender)
        for _agent in e.agent_iter():
            e.step(None)
        return
    par = parallel_env(players=2)
    observations, infos = par.reset(seed=3)
    offender = next(a for a, i in infos.items() if i["acting"])
    illegal = int(np.flatnonzero(observations[offender]["action_mask"] == 0)[0])
    actions = {**_actions(observations, rng), offender: illegal}
    _, rewards, term, _, infos = par.step(actions)
    assert all(term.values()) and not par.agents
    assert (
        rewards[offender] == par.game.min_utility() and infos[offender]["illegal_action"] == illegal
    )


@QUIET
@pytest.mark.parametrize("players", [2, 4, 6])
def test_pettingzoo_seed_test_passes(players: int) -> None:
    seed_test(lambda: env(players=players, flor=True, first_mano=-1, max_cycles=300), num_cycles=60)


@QUIET
def test_the_envs_have_gymnasium_ids() -> None:
    """Issue 32: no ``gym.make`` ids. ``gymnasium.make`` makes the single-agent envs
    (``check_env`` passes on them, rendering included), ``gymnasium.make_vec`` the
    vector env against the same bots, or in self-play."""
    import gymnasium

    from truco.rl.registration import IDS
    from truco.rl.vector import TrucoVectorEnv

    made = gymnasium.make(
        "truco.rl:TrucoArgento/MaskedBotOpponent-v0",
        opponent="simple",
        max_hands=1,
        rewards="hand",
        render_mode="ansi",
    )
    assert isinstance(made.unwrapped, MaskedBotEnv)
    assert made.spec is not None and made.spec.id == "TrucoArgento/MaskedBotOpponent-v0"
    check_env(made.unwrapped)
    single = gymnasium.make("TrucoArgento/BotOpponent-v0", players=4, learner=(1, 3))
    assert isinstance(single.unwrapped, BotOpponentEnv)
    assert single.unwrapped.learner == (1, 3)
    vec = gymnasium.make_vec("TrucoArgento/BotOpponent-v0", num_envs=5, opponent="simple")
    assert isinstance(vec, TrucoVectorEnv) and vec.num_envs == 5
    assert vec.learner == (0,) and vec.observation_space.shape == (5, 575)
    _, info = vec.reset(seed=1)
    assert (info["player"] == 0).all()
    selfplay = gymnasium.make_vec("TrucoArgento/SelfPlay-v0", num_envs=2, players=4)
    assert isinstance(selfplay, TrucoVectorEnv) and selfplay.n == 4
    assert set(IDS) <= set(gymnasium.registry)
