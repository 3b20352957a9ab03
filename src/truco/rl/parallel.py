"""Truco as a PettingZoo parallel environment.

Truco is turn-based: at every step one agent acts (the seat whose turn it is, or the
partner chance picked to answer a call). :class:`ParallelTrucoEnv` (made by
``truco.rl.env.parallel_env``) takes an action from every
live agent, as PettingZoo's parallel API asks, and applies the acting agent's; the
others' are ignored, and their ``action_mask`` is all zeros (``infos[agent]["acting"]``
says who acts). Observations, spaces, rewards and the deal are those of the AEC
environment (:mod:`truco.rl.env`). An action of the space that is not legal forfeits,
as there: the episode ends and the offender receives ``illegal_reward`` (default: the
game's ``min_utility()``). ``max_cycles``: truncate after that many steps.

>>> par = ParallelTrucoEnv(players=2, max_hands=1)
>>> obs, infos = par.reset(seed=1)
>>> sorted(obs) == par.agents, sum(info["acting"] for info in infos.values())
(True, 1)
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from ..actions import NUM_ACTIONS
from . import env_parts


class ParallelTrucoEnv(ParallelEnv):  # type: ignore[misc]
    """Keyword arguments: every table option of :class:`~truco.rules.Rules`,
    ``first_mano``, ``max_hands``, ``megaphone``/``says_per_seat``, ``rewards``
    (``"match"`` or ``"hand"``), ``observation``, ``render_mode`` (``"ansi"``,
    ``"human"``), ``max_cycles`` and ``illegal_reward``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "truco_argento_parallel_v0",
        "render_modes": ["ansi", "human"],
    }

    def __init__(
        self,
        rewards: str = "match",
        observation: str = "observation",
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal_reward: float | None = None,
        **options: Any,
    ) -> None:
        if max_cycles is not None and (not isinstance(max_cycles, int) or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive integer or None (got {max_cycles!r})")
        env_parts.check_observation(observation)
        self.max_cycles = max_cycles
        self.render_mode = env_parts.render_mode(render_mode, self.metadata)
        self.game = env_parts.make_game(rewards, options)
        self.observation_kind = observation
        self.illegal_reward = (
            self.game.min_utility() if illegal_reward is None else float(illegal_reward)
        )
        n = self.game.num_players()
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        self._observation_space = env_parts.observation_space(self.game, observation)
        self._action_space = spaces.Discrete(NUM_ACTIONS)
        self.np_random, _ = seeding.np_random(None)
        self.state = self.game.new_initial_state()
        self._steps = 0

    def observation_space(self, agent: str) -> gymnasium.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.Space[Any]:
        return self._action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """``options={"first_mano": seat}`` (``-1``: drawn) overrides the game's."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.state = self.game.new_initial_state(env_parts.first_mano(options))
        env_parts.sample_chance(self.state, self.np_random)
        self.agents = self.possible_agents[:]
        self._steps = 0
        return self._observations(), self._infos()

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Apply the acting agent's action (the others' are ignored)."""
        if not self.agents:
            raise ValueError("the episode is over: call reset()")
        state = self.state
        seat = state.current_player()
        agent = self.possible_agents[seat]
        if agent not in actions:
            raise ValueError(f"{agent} must act now")
        action = int(actions[agent])
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is outside Discrete({NUM_ACTIONS})")
        self._steps += 1
        agents = self.agents
        infos: dict[str, dict[str, Any]]
        if action not in state.legal_actions(seat):  # forfeit
            rewards = {a: 0.0 for a in agents}
            rewards[agent] = self.illegal_reward
            terminations = dict.fromkeys(agents, True)
            truncations = dict.fromkeys(agents, False)
            observations = self._observations()
            for obs in observations.values():
                obs["action_mask"][:] = 0
            infos = {a: {"acting": False} for a in agents}
            infos[agent]["illegal_action"] = action
            self.agents = []
            return observations, rewards, terminations, truncations, infos
        state.apply_action(action)
        paid = state.rewards()
        env_parts.sample_chance(state, self.np_random)
        rewards = {a: paid[self._seat[a]] for a in agents}
        over = state.is_terminal()
        cut = not over and self.max_cycles is not None and self._steps >= self.max_cycles
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, cut)
        observations, infos = self._observations(), self._infos()
        if over or cut:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {
            a: env_parts.observe(self.state, self._seat[a], self.observation_kind)
            for a in self.agents
        }

    def _infos(self) -> dict[str, dict[str, Any]]:
        state = self.state
        acting = -1 if state.is_terminal() else state.current_player()
        return {a: {"acting": self._seat[a] == acting} for a in self.agents}

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: printed (returns ``None``)."""
        return env_parts.render(self.render_mode, self.state)

    def record(self, headers: dict[str, Any] | None = None) -> dict[str, Any]:
        """The episode as a ``truco-record/1`` object (``truco replay`` reads it)."""
        return self.state.to_record(headers)

    def close(self) -> None:
        pass
