"""REINFORCE for a :class:`~truco.rl.policy_bot.LinearPolicy`, one episode at a time.

The learner of ``examples/train_tiny_agent.py`` (the exploitability check uses a stronger
one, :mod:`truco.rl.best_response`; this one exploited neither search bot): a linear
softmax policy plays one episode of a :class:`~truco.rl.env.BotOpponentEnv`,
sampling its actions, then every decision moves the weights along
``(onehot(action) - probs) ⊗ x``, scaled by its return minus a running-mean baseline.

>>> from truco.rules import Rules
>>> from truco.rl.env import BotOpponentEnv
>>> from truco.rl.policy_bot import LinearPolicy
>>> learner = LinearReinforce(LinearPolicy.zeros(Rules(target=15)), lr=0.01)
>>> env = BotOpponentEnv(opponent="random", target=15)
>>> learner.episode(env, np.random.default_rng(0)) > 0
True
>>> bool(np.any(learner.policy.weights))
True
"""

from __future__ import annotations

import numpy as np

from .env import BotOpponentEnv
from .policy_bot import LinearPolicy


class LinearReinforce:
    """REINFORCE with a running-mean baseline (moving ``baseline_rate`` of the way to
    each return). ``rewards="match"``: every decision of an episode is credited with the
    episode's whole reward (a match's +1/-1); ``"hand"``: with its own hand's reward
    (the env's ``rewards="hand"``: the points difference), scaled by 0.1."""

    def __init__(
        self,
        policy: LinearPolicy,
        lr: float,
        rewards: str = "match",
        baseline_rate: float = 0.01,
    ) -> None:
        if rewards not in ("match", "hand"):
            raise ValueError(f"rewards must be 'match' or 'hand' (got {rewards!r})")
        self.policy = policy
        self.lr = lr
        self.per_hand = rewards == "hand"
        self.scale = 0.1 if self.per_hand else 1.0
        self.baseline_rate = baseline_rate
        self.baseline = 0.0

    def episode(self, env: BotOpponentEnv, rng: np.random.Generator) -> int:
        """Play one episode of ``env`` (reset with a seed drawn from ``rng``), sampling
        from the policy, then update it; returns the decisions taken."""
        policy = self.policy
        obs, _ = env.reset(seed=int(rng.integers(2**31)))
        done = False
        steps: list[tuple[np.ndarray, np.ndarray, int, int]] = []
        by_hand: dict[int, float] = {}
        while not done:
            x, mask = obs["observation"].astype(np.float64), obs["action_mask"]
            probs = policy.probabilities(x, mask)
            action = int(rng.choice(len(probs), p=probs))
            hand = env.state.game.hand_index if self.per_hand else 0
            steps.append((x, probs, action, hand))
            obs, reward, over, cut, _ = env.step(action)
            done = over or cut  # a ``max_hands`` cut is a truncation
            by_hand[hand] = by_hand.get(hand, 0.0) + float(reward)
        for x, probs, action, hand in steps:
            g = by_hand.get(hand, 0.0) * self.scale
            advantage = g - self.baseline
            self.baseline += self.baseline_rate * (g - self.baseline)
            grad = -probs
            grad[action] += 1.0
            policy.weights += self.lr * advantage * np.outer(grad, x)
            policy.bias += self.lr * advantage * grad
        return len(steps)
