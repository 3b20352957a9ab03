"""PettingZoo and Gymnasium environments of truco.

:func:`env` / :class:`raw_env`: the AEC environment of PettingZoo (:func:`parallel_env`:
its parallel form, :mod:`truco.rl.parallel`). Agents
``player_0..player_{N-1}`` (the seats; teams alternate), ``observe(agent)`` returns
``{"observation": float32 vector, "action_mask": int8 vector of 61}``, the action space
is ``Discrete(61)`` (the engine's enumeration, :mod:`truco.rl.game`). The deal is drawn
from the environment's ``np_random`` (``reset(seed=...)`` makes an episode
reproducible). ``rewards="match"``: +1 / -1 per team when the match ends;
``rewards="hand"``: at each hand's end, the team's points minus the rival's. As in
PettingZoo's classic games, :func:`env` makes an illegal action forfeit.

:class:`BotOpponentEnv`: a Gymnasium environment where the agent plays some seats and
bots of the project (``"random"``, ``"simple"``, ``"search:easy"``, ... or any
:class:`truco.bots.Bot`) play the others; :class:`MaskedBotEnv` puts it under the masked
convention (``action_masks()``; an illegal action forfeits), which Gymnasium's
``check_env`` and maskable learners (sb3-contrib's ``MaskablePPO``) expect.

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
from . import env_parts
from .parallel import ParallelTrucoEnv

#: How many episodes in a row the bots may finish before the learner acts.
_MAX_SKIPPED = 10_000


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment under PettingZoo's classic wrappers: an action of the space
    that is not legal now **forfeits** (``TerminateIllegalWrapper``: the episode ends,
    the offending agent receives ``illegal_reward``, by default the game's
    ``min_utility()``, the others 0), an action outside the space is refused, and the
    API's order is enforced. Keyword arguments: those of :class:`raw_env`, plus
    ``illegal_reward``."""
    illegal_reward = kwargs.pop("illegal_reward", None)
    raw = raw_env(**kwargs)
    if illegal_reward is None:
        illegal_reward = raw.game.min_utility()
    e: AECEnv = wrappers.TerminateIllegalWrapper(raw, illegal_reward=float(illegal_reward))
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def parallel_env(**kwargs: Any) -> ParallelTrucoEnv:
    """The PettingZoo parallel environment (:class:`truco.rl.parallel.ParallelTrucoEnv`):
    here too so that this module is what PettingZoo's tests take (``env`` and
    ``parallel_env``)."""
    return ParallelTrucoEnv(**kwargs)


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's naming
    """Truco as a PettingZoo AEC environment.

    Keyword arguments: every table option of :class:`~truco.rules.Rules` (``players``,
    ``flor``, ``target``, ``chicos``, ...), ``first_mano``, ``max_hands`` (0: the whole
    match), ``megaphone``/``says_per_seat``, ``rewards`` (``"match"`` or ``"hand"``),
    ``observation`` (``"observation"`` or ``"information_state"``), ``render_mode``
    (``"ansi"``: :meth:`render` returns the table as text; ``"human"``: it prints it,
    after every step too), ``max_cycles`` (truncate once some agent has made that many
    moves; ``None``: never). Used bare, an illegal action raises ``ValueError`` and
    changes nothing; :func:`env` forfeits instead.
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
        max_cycles: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if max_cycles is not None and (not isinstance(max_cycles, int) or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive integer or None (got {max_cycles!r})")
        self.max_cycles = max_cycles
        self._moves: list[int] = []
        env_parts.check_observation(observation)
        self.game = env_parts.make_game(rewards, options)
        self.observation_kind = observation
        self.render_mode = env_parts.render_mode(render_mode, self.metadata)
        n = self.game.num_players()
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        space = env_parts.observation_space(self.game, observation)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.np_random, _ = seeding.np_random(None)
        self.state = self.game.new_initial_state()

    def observation_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """``options={"first_mano": seat}`` (``-1``: drawn) overrides the game's."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.state = self.game.new_initial_state(env_parts.first_mano(options))
        self._moves = [0] * len(self.possible_agents)
        env_parts.sample_chance(self.state, self.np_random)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return env_parts.observe(self.state, self._seat[agent], self.observation_kind)

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
        env_parts.sample_chance(state, self.np_random)
        for a in self.agents:
            self.rewards[a] = rewards[self._seat[a]]
        self._moves[self._seat[agent]] += 1
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
            if self.max_cycles is not None and max(self._moves) >= self.max_cycles:
                self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def record(self, headers: dict[str, Any] | None = None) -> dict[str, Any]:
        """The episode as a ``truco-record/1`` object (``truco replay`` reads it)."""
        return self.state.to_record(headers)

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: printed (returns ``None``)."""
        return env_parts.render(self.render_mode, self.state)

    def close(self) -> None:
        pass


class BotOpponentEnv(gymnasium.Env[dict[str, np.ndarray], Any]):
    """The agent plays ``learner`` seats (one team), bots play every other seat.

    ``opponent``: a bot spec for :func:`truco.bots.make_bot` (``"random"``,
    ``"search:easy"``...), a :class:`~truco.bots.Bot`, or a mapping seat -> spec/Bot.
    Rewards are those of the learner's team (see :func:`env`). Other keyword arguments
    are the game's (``players``, ``flor``, ``max_hands``...). ``render_mode``: ``"ansi"``
    (:meth:`render` returns the table as text) or ``"human"`` (printed after every step).
    """

    metadata = {"render_modes": ["ansi", "human"]}  # noqa: RUF012 (gymnasium's attribute)

    def __init__(
        self,
        opponent: str | Bot | Mapping[int, str | Bot] = "random",
        learner: int | Sequence[int] = 0,
        rewards: str = "match",
        observation: str = "observation",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.render_mode = env_parts.render_mode(render_mode, self.metadata)
        env_parts.check_observation(observation)
        self.game = env_parts.make_game(rewards, options)
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
        self.observation_space = env_parts.observation_space(self.game, observation)  # type: ignore[assignment]
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
        """A new episode where the learner has a decision to make.

        An episode that the bots finish before the learner acts (the bot is mano and
        goes to the mazo in a one-hand game) teaches nothing: it is played out and
        another is dealt; ``info["skipped"]`` counts them. Rewards the learner's team
        receives before its first decision (a hand of a longer episode closed by the
        bots) are paid with the first :meth:`step`. ``options={"first_mano": seat}``
        (``-1``: drawn at random) overrides the game's first mano."""
        super().reset(seed=seed)
        if seed is not None or not self.bots:
            self._make_bots(seed)
        first_mano = env_parts.first_mano(options)
        for skipped in range(_MAX_SKIPPED):
            self.state = self.game.new_initial_state(first_mano)
            self._reward = 0.0
            self._advance()
            if not self.state.is_terminal():
                return self._obs(), {"seat": self.seat, "skipped": skipped}
        raise RuntimeError(f"the bots ended {_MAX_SKIPPED} episodes before the learner acted")

    def _advance(self) -> None:
        """Deal and let the bots act until a learner seat must act or the episode ends."""
        state = self.state
        while True:
            env_parts.sample_chance(state, self.np_random)
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
        return env_parts.observe(self.state, self.seat, self.observation_kind)

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action`` (an illegal one raises ``ValueError`` and changes
        nothing; see :class:`MaskedBotEnv` for a forfeit instead), then the bots."""
        self.state.apply_action(int(action))
        self._reward += self.state.rewards()[self.learner[0]]
        self._advance()
        reward, self._reward = self._reward, 0.0
        if self.render_mode == "human":
            self.render()
        over = self.state.game.is_over
        cut = self.state.is_terminal() and not over  # ``max_hands`` reached: a time limit
        return self._obs(), reward, over, cut, {"seat": self.seat}

    def record(self, headers: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.state.to_record(headers)

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: printed (returns ``None``)."""
        return env_parts.render(self.render_mode, self.state)


class MaskedBotEnv(BotOpponentEnv):
    """:class:`BotOpponentEnv` under the masked convention, for maskable learners.

    Truco's legal actions change at every step: a learner must act among
    ``observation["action_mask"]`` (also given by :meth:`action_masks`, a boolean array,
    as sb3-contrib's ``MaskablePPO`` asks). An action outside the mask **forfeits**: the
    episode ends at once with ``illegal_reward`` (default: the game's ``min_utility()``,
    the worst return there is) and ``info["illegal_action"]``, as PettingZoo's classic
    games do. Any action of the space is thus accepted, and Gymnasium's ``check_env``
    (which samples without the mask) passes. Arguments: those of
    :class:`BotOpponentEnv`, plus ``illegal_reward``.

    >>> e = MaskedBotEnv(players=2, max_hands=1, rewards="hand")
    >>> obs, info = e.reset(seed=1)
    >>> e.action_masks().dtype, bool(e.action_masks().any())
    (dtype('bool'), True)
    """

    def __init__(self, *args: Any, illegal_reward: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.illegal_reward = (
            self.game.min_utility() if illegal_reward is None else float(illegal_reward)
        )
        self._forfeited = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        self._forfeited = False
        return super().reset(seed=seed, options=options)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner now, as booleans (none once it is over)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if not self._forfeited and not self.state.is_terminal():
            mask[self.state.legal_actions(self.seat)] = True
        return mask

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._forfeited or self.state.is_terminal():
            raise ValueError("the episode is over: call reset()")
        a = int(action)
        if 0 <= a < NUM_ACTIONS and self.action_masks()[a]:
            return super().step(a)
        self._forfeited = True
        obs = self._obs()
        obs["action_mask"][:] = 0
        return obs, self.illegal_reward, True, False, {"seat": self.seat, "illegal_action": a}
