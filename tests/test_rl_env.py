"""The PettingZoo and Gymnasium environments, bots as opponents, policies as bots,
and records of the environment replayed by ``truco replay``."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test

from truco import Game, Rules
from truco.bots import make_bot
from truco.cli import main as truco_main
from truco.rl.env import BotOpponentEnv, env, raw_env
from truco.rl.policy_bot import LinearPolicy, PolicyBot, load_bot
from truco.view import seat_view

TABLES = [{"players": p, "flor": f} for p in (2, 4, 6) for f in (False, True)]


# a Dict observation {"observation", "action_mask"} is PettingZoo's own convention for
# games with illegal moves; its API test still warns about it
QUIET = pytest.mark.filterwarnings("ignore:Observation")


@QUIET
@pytest.mark.parametrize(
    "table", TABLES, ids=lambda t: f"{t['players']}p-{'flor' if t['flor'] else 'sin'}"
)
def test_pettingzoo_api_test_passes(table: dict[str, object]) -> None:
    api_test(env(**table), num_cycles=60)


@QUIET
def test_pettingzoo_api_test_passes_with_pica_pica_megaphone_and_hand_rewards() -> None:
    api_test(
        env(
            players=6,
            flor=True,
            pica_pica=True,
            megaphone=True,
            rewards="hand",
            observation="information_state",
        ),
        num_cycles=60,
    )


def _random_episode(e: raw_env, seed: int) -> dict[str, float]:
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return total


def test_observations_mask_and_rewards() -> None:
    e = raw_env(players=4, flor=True)
    e.reset(seed=4)
    seat = e.agent_selection
    for agent in e.agents:
        obs = e.observe(agent)
        assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
        assert e.observation_space(agent).contains(obs)
        assert obs["action_mask"].any() == (agent == seat)
    totals = _random_episode(e, 4)
    assert totals["player_0"] == totals["player_2"] == -totals["player_1"] == -totals["player_3"]
    assert abs(totals["player_0"]) == 1.0


def test_reset_with_a_seed_is_reproducible() -> None:
    e = raw_env(players=2, rewards="hand")
    first = _random_episode(e, 21)
    record = e.state.serialize()
    assert _random_episode(e, 21) == first
    assert e.state.serialize() == record


@pytest.mark.parametrize("rewards", ["hand", "match"])
@pytest.mark.parametrize(
    "table",
    [{"players": 2}, {"players": 4, "flor": True}, {"players": 6, "pica_pica": True}],
)
def test_a_record_of_the_environment_replays_to_the_same_returns(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    rewards: str,
    table: dict[str, object],
) -> None:
    e = raw_env(rewards=rewards, megaphone=True, **table)
    totals = _random_episode(e, 7)
    path = tmp_path / "episode.json"
    path.write_text(json.dumps(e.record({"event": "test"})), encoding="utf-8")
    assert truco_main(["replay", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    if rewards == "hand":
        expected = sum(h["points"][0] - h["points"][1] for h in out["hands"])
    else:
        expected = 1.0 if out["winner"] == 0 else -1.0
    for agent, total in totals.items():
        sign = 1 if int(agent.split("_")[1]) % 2 == 0 else -1
        assert total == sign * expected


def test_the_truco_replay_command_reads_an_environment_record(tmp_path: Path) -> None:
    e = raw_env(players=2, rewards="hand")
    totals = _random_episode(e, 3)
    path = tmp_path / "episode.json"
    path.write_text(json.dumps(e.record()), encoding="utf-8")
    truco = Path(sys.executable).parent / "truco"
    result = subprocess.run(
        [str(truco), "replay", str(path)], capture_output=True, text=True, check=True
    )
    out = json.loads(result.stdout)
    assert sum(h["points"][0] - h["points"][1] for h in out["hands"]) == totals["player_0"]


@pytest.mark.parametrize("opponent", ["random", "simple", "search:easy"])
def test_any_bot_of_the_project_can_be_the_opponent(opponent: str) -> None:
    single = BotOpponentEnv(players=2, opponent=opponent, max_hands=1, rewards="hand")
    obs, _ = single.reset(seed=2)
    done, total = False, 0.0
    while not done:
        assert single.observation_space.contains(obs)
        action = int(np.flatnonzero(obs["action_mask"])[-1])
        obs, reward, over, cut, _ = single.step(action)
        done = over or cut
        total += reward
    assert total == single.state.returns()[0]
    assert total != 0


def test_a_team_of_learner_seats_against_bots() -> None:
    single = BotOpponentEnv(
        players=4, flor=True, opponent={1: "random", 3: "simple"}, learner=(0, 2)
    )
    obs, info = single.reset(seed=5)
    seats = set()
    done = False
    while not done:
        seats.add(info["seat"])
        obs, _, done, _, info = single.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert seats <= {0, 2}
    assert abs(single.state.returns()[0]) == 1.0
    with pytest.raises(ValueError, match="one team"):
        BotOpponentEnv(players=4, learner=(0, 1))


def test_a_policy_is_a_bot_and_can_be_saved(tmp_path: Path) -> None:
    rules = Rules()
    policy = LinearPolicy.zeros(rules)
    policy.bias[52] = 5.0  # loves to leave: mazo whenever it may
    path = tmp_path / "policy.npz"
    policy.save(path)
    bot = make_bot(f"linear:{path}", seed=1)  # registered by truco.rl.policy_bot
    assert isinstance(bot, PolicyBot)
    game = Game(rules, seed=3)
    seat = game.actors()[0]
    legal = game.legal_actions(seat)
    assert bot.choose(seat_view(game, seat), legal, rules) == 52
    assert load_bot(str(path)).policy.weights.shape == policy.weights.shape
    with pytest.raises(ValueError, match="trained for"):
        other = Game(Rules(players=4), seed=1)
        s = other.actors()[0]
        bot.choose(seat_view(other, s), other.legal_actions(s), other.rules)


def test_a_policy_bot_never_speaks_in_a_team_game() -> None:
    rules = Rules(players=4)
    policy = LinearPolicy.zeros(rules)
    policy.bias[53:] = 10.0
    bot = PolicyBot(policy, seed=0)
    game = Game(rules, seed=2)
    seat = game.actors()[0]
    legal = game.legal_actions(seat)  # with the megaphone words
    assert any(a >= 53 for a in legal)
    assert bot.choose(seat_view(game, seat), legal, rules) < 53


def test_a_policy_bot_sees_what_the_environment_showed_in_training() -> None:
    e = raw_env(players=4, flor=True)
    e.reset(seed=12)
    rules = e.game.rules
    bot = PolicyBot(LinearPolicy.zeros(rules))
    for _ in range(25):
        agent = e.agent_selection
        seat = int(agent.split("_")[1])
        obs = e.observe(agent)
        assert np.array_equal(
            bot.encoder.observation_tensor(seat_view(e.state.game, seat)),
            obs["observation"],
        )
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if e.terminations[e.agent_selection]:
            break


def test_the_tiny_training_example_learns_against_random() -> None:
    example = Path(__file__).parent.parent / "examples" / "train_tiny_agent.py"
    spec = importlib.util.spec_from_file_location("train_tiny_agent", example)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy = LinearPolicy.zeros(Rules(target=15))
    before, _ = module.win_rate(policy, "random", 60, seed=1, greedy=False)
    module.train(policy, "random", seconds=0, lr=0.01, seed=0, eval_matches=10, stop_after=300)
    after, _ = module.win_rate(policy, "random", 60, seed=1)
    assert after >= 0.7 and after > before + 0.1
