"""PettingZoo and Gymnasium environments of truco.

:func:`env` / :class:`raw_env`: the AEC environment of PettingZoo. Agents
``player_0..player_{N-1}`` (the seats; teams alternate), ``observe(agent)`` returns
``{"observation": float32 vector, "action_mask": int8 vector of 61}``, the action space
is ``Discrete(61)`` (the engine's enumeration, :mod:`truco.rl.game`). The deal is drawn
from the environment's ``np_random`` (``reset(seed=...)`` makes an episode
reproducible). ``rewards="match"``: +1 / -1 per team when the match ends;
``rewards="hand"``: at each hand's end, the team's points minus the rival's.

:class:`BotOpponentEnv`: a Gymnasium environment where the agent plays some seats and
bots of the project (``"random"``, ``"simple"``, ``"search:easy"``, ... or any
:class:`truco.bots.Bot`) play the others.

>>> e = env(players=4, flor=True)
>>> e.reset(seed=1)
>>> sorted(e.observe(e.agent_selection))
['action_mask', 'observation']
>>> single = BotOpponentEnv(players=2, opponent="random")
>>> obs, info = single.reset(seed=3)
>>> obs["action_mask"].shape
(61,)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from ..actions import NUM_ACTIONS
from ..bots import Bot, make_bot
from ..view import seat_view
from .game import TrucoGame, TrucoState

#: ``observation=``: which tensor an agent observes.
OBSERVATIONS = ("observation", "information_state")


def _game(rewards: str, options: dict[str, Any]) -> TrucoGame:
    return TrucoGame(options, returns=rewards)


def _sample_chance(state: TrucoState, rng: np.random.Generator) -> None:
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])


def _observe(state: TrucoState, seat: int, kind: str) -> dict[str, np.ndarray]:
    tensor = (
        state.observation_tensor(seat)
        if kind == "observation"
        else state.information_state_tensor(seat)
    )
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if not state.is_terminal() and state.current_player() == seat:
        mask[state.legal_actions(seat)] = 1
    return {"observation": tensor, "action_mask": mask}


def _spaces(game: TrucoGame, kind: str) -> spaces.Dict:
    shape = tuple(
        game.observation_tensor_shape()
        if kind == "observation"
        else game.information_state_tensor_shape()
    )
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's order-enforcing and bounds checks."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's naming
    """Truco as a PettingZoo AEC environment.

    Keyword arguments: every table option of :class:`~truco.rules.Rules` (``players``,
    ``flor``, ``target``, ``chicos``, ...), ``first_mano``, ``max_hands`` (0: the whole
    match), ``megaphone``/``says_per_seat``, ``rewards`` (``"match"`` or ``"hand"``),
    ``observation`` (``"observation"`` or ``"information_state"``), ``render_mode``
    (``"ansi"`` or ``"human"``).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "truco_argento_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rewards: str = "match",
        observation: str = "observation",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS} (got {observation!r})")
        self.game = _game(rewards, options)
        self.observation_kind = observation
        self.render_mode = render_mode
        n = self.game.num_players()
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        space = _spaces(self.game, observation)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.np_random, _ = seeding.np_random(None)
        self.state = self.game.new_initial_state()

    def observation_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.state = self.game.new_initial_state()
        _sample_chance(self.state, self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return _observe(self.state, self._seat[agent], self.observation_kind)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None, "a live agent must act"
        self._cumulative_rewards[agent] = 0.0
        state = self.state
        state.apply_action(int(action))
        rewards = state.rewards()
        _sample_chance(state, self.np_random)
        for a in self.agents:
            self.rewards[a] = rewards[self._seat[a]]
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def record(self, headers: dict[str, Any] | None = None) -> dict[str, Any]:
        """The episode as a ``truco-record/1`` object (``truco replay`` reads it)."""
        return self.state.to_record(headers)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        return str(self.state)

    def close(self) -> None:
        pass


class BotOpponentEnv(gymnasium.Env[dict[str, np.ndarray], Any]):
    """The agent plays ``learner`` seats (one team), bots play every other seat.

    ``opponent``: a bot spec for :func:`truco.bots.make_bot` (``"random"``,
    ``"search:easy"``...), a :class:`~truco.bots.Bot`, or a mapping seat -> spec/Bot.
    Rewards are those of the learner's team (see :func:`env`). Other keyword arguments
    are the game's (``players``, ``flor``, ``max_hands``...).
    """

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium's attribute)

    def __init__(
        self,
        opponent: str | Bot | Mapping[int, str | Bot] = "random",
        learner: int | Sequence[int] = 0,
        rewards: str = "match",
        observation: str = "observation",
        **options: Any,
    ) -> None:
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS} (got {observation!r})")
        self.game = _game(rewards, options)
        n = self.game.num_players()
        self.learner = (learner,) if isinstance(learner, int) else tuple(learner)
        if not self.learner or any(not 0 <= s < n for s in self.learner):
            raise ValueError(f"learner seats must be seats from 0 to {n - 1}")
        if len({s & 1 for s in self.learner}) != 1:
            raise ValueError("the learner's seats must all be on one team")
        self.team = self.learner[0] & 1
        self._opponent_spec = opponent
        self.bots: dict[int, Bot] = {}
        self.observation_kind = observation
        self.observation_space = _spaces(self.game, observation)  # type: ignore[assignment]
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.state = self.game.new_initial_state()
        self.seat = self.learner[0]

    def _make_bots(self, seed: int | None) -> None:
        spec = self._opponent_spec
        n = self.game.num_players()
        for s in range(n):
            if s in self.learner:
                continue
            chosen = spec.get(s, "random") if isinstance(spec, Mapping) else spec
            bot_seed = None if seed is None else seed * 31 + s
            self.bots[s] = chosen if isinstance(chosen, Bot) else make_bot(chosen, bot_seed)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or not self.bots:
            self._make_bots(seed)
        self.state = self.game.new_initial_state()
        self._reward = 0.0
        self._advance()
        return self._obs(), {"seat": self.seat}

    def _advance(self) -> None:
        """Deal and let the bots act until a learner seat must act or the episode ends."""
        state = self.state
        while True:
            _sample_chance(state, self.np_random)
            if state.is_terminal():
                return
            seat = state.current_player()
            if seat in self.learner:
                self.seat = seat
                return
            legal = state.legal_actions(seat)
            action = self.bots[seat].choose(seat_view(state.game, seat), legal, self.game.rules)
            state.apply_action(action)
            self._reward += state.rewards()[self.learner[0]]

    def _obs(self) -> dict[str, np.ndarray]:
        return _observe(self.state, self.seat, self.observation_kind)

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        self._reward = 0.0
        self.state.apply_action(int(action))
        self._reward += self.state.rewards()[self.learner[0]]
        self._advance()
        reward, self._reward = self._reward, 0.0
        return self._obs(), reward, self.state.is_terminal(), False, {"seat": self.seat}

    def record(self, headers: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.state.to_record(headers)

    def render(self) -> str:
        return str(self.state)
