"""The linear REINFORCE learner of the tiny-agent example."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from truco.rl.env import BotOpponentEnv
from truco.rl.policy_bot import LinearPolicy
from truco.rl.reinforce import LinearReinforce
from truco.rules import Rules


class _Recorder(BotOpponentEnv):
    """Notes every decision: the observation, the action, its hand and the reward."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: list[tuple[np.ndarray, np.ndarray, int, int, float]] = []
        self._last: dict[str, np.ndarray] = {}

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        obs, info = super().reset(*args, **kwargs)
        self._last = obs
        return obs, info

    def step(self, action: Any) -> Any:
        hand = self.state.game.hand_index
        x, mask = self._last["observation"], self._last["action_mask"]
        obs, reward, *rest = super().step(action)
        self.seen.append((x.astype(np.float64), mask, int(action), hand, float(reward)))
        self._last = obs
        return (obs, reward, *rest)


@pytest.mark.parametrize("rewards", ["match", "hand"])
def test_one_episode_moves_the_weights_by_the_reinforce_step(rewards: str) -> None:
    rules = Rules(target=15)
    env = _Recorder(opponent="random", rewards=rewards, target=15)
    start = LinearPolicy.zeros(rules)
    start.weights[:] = np.random.default_rng(1).normal(0, 0.01, start.weights.shape)
    policy = LinearPolicy(rules, start.weights.copy(), start.bias.copy())
    learner = LinearReinforce(policy, lr=0.05, rewards=rewards)
    learner.baseline = 0.2
    decisions = learner.episode(env, np.random.default_rng(3))
    assert decisions == len(env.seen) > 5

    by_hand: dict[int, float] = {}
    for *_, hand, reward in env.seen:
        key = hand if rewards == "hand" else 0
        by_hand[key] = by_hand.get(key, 0.0) + reward
    if rewards == "hand":
        assert len(by_hand) > 1  # several hands, credited apart
    weights, bias, baseline = start.weights.copy(), start.bias.copy(), 0.2
    scale = 0.1 if rewards == "hand" else 1.0
    for x, mask, action, hand, _ in env.seen:
        probs = start.probabilities(x, mask)  # the policy as it acted: before the update
        assert probs[action] > 0
        g = by_hand[hand if rewards == "hand" else 0] * scale
        advantage, baseline = g - baseline, baseline + 0.01 * (g - baseline)
        grad = -probs
        grad[action] += 1.0
        weights += 0.05 * advantage * np.outer(grad, x)
        bias += 0.05 * advantage * grad
    assert np.allclose(policy.weights, weights)
    assert np.allclose(policy.bias, bias)
    assert learner.baseline == pytest.approx(baseline)
    assert not np.allclose(policy.weights, start.weights)


def test_unknown_rewards_are_refused() -> None:
    with pytest.raises(ValueError, match="rewards"):
        LinearReinforce(LinearPolicy.zeros(Rules()), lr=0.1, rewards="points")
